"""Issue 65, item 5: the bounds of the seed, the epochs and the folds are declared once
(`core.base.bounds`) and reach every command's argument and every number input of the dashboard.
Read by reflection over the parser and the source, so a new command or a new input is covered the
day it is written."""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

from artifact_lens.base.bounds import BATCH_SIZE, BOUNDS, DIM, EPOCHS, FOLDS, MIN_COUNT, SEED
from artifact_lens.cli.arguments import Whole
from artifact_lens.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
#: an argument's dest → its bound
BY_DEST = {"seed": SEED, "epochs": EPOCHS, "joint_epochs": EPOCHS, "folds": FOLDS, "min_count": MIN_COUNT,
           "nn_dim": DIM}
#: a number input's key → its bound, and the least value it may take below the bound (in-sample folds)
BY_KEY = {"w_seed": (SEED, None), "eval_seed": (SEED, None), "zf_seed": (SEED, None),
          "w_joint_epochs": (EPOCHS, None), "dyn_epochs": (EPOCHS, None), "cf_folds": (FOLDS, None),
          "dyn_folds": (FOLDS, 1), "z_min_count": (MIN_COUNT, None), "zf_min": (MIN_COUNT, None),
          "q_min_count": (MIN_COUNT, None), "f'{key}_min_count'": (MIN_COUNT, None), "rep_dim": (DIM, None),
          "zf_batch": (BATCH_SIZE, None)}


def _commands():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices.items()


def test_every_commands_seed_epochs_and_folds_take_the_declared_bounds():
    seen = set()
    for name, command in _commands():
        for action in command._actions:
            bound = BY_DEST.get(action.dest)
            if bound is None:
                continue
            seen.add(action.dest)
            assert isinstance(action.type, Whole), (name, action.dest)
            assert (action.type.lo, action.type.hi) == bound.range, (name, action.dest, action.type.lo, action.type.hi)
    assert {"seed", "epochs", "joint_epochs", "folds", "min_count", "nn_dim"} <= seen
    dims = [a.type for _, c in _commands() for a in c._actions if a.dest in ("pca_dims", "batch_size")]
    assert dims and all(getattr(t, "hi", getattr(t, "max_count", None)) in (DIM.high, BATCH_SIZE.high) for t in dims), dims


def _number_inputs():
    """(file, key, the min and max arguments' source) of every ``number_input`` of the dashboard."""
    for path in [*ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "number_input":
                key = next((k.value for k in node.keywords if k.arg == "key"), None)
                # a key made at run time (an f-string) by its source: f'{key}_min_count'
                key = key.value if isinstance(key, ast.Constant) else ast.unparse(key) if key is not None else None
                bounds = node.args[1:2] if node.args[1:2] and isinstance(node.args[1], ast.Starred) else node.args[1:3]
                yield path.name, key, bounds


def test_every_seed_epochs_and_folds_input_reads_the_declared_bound():
    """A number input of a declared setting takes its bounds from `core.base.bounds`, never a number
    of its own; and an input the table does not know that looks like one (a seed, epochs or folds)
    fails here until it is added."""
    found = {}
    for file, key, bounds in _number_inputs():
        text = " ".join(ast.unparse(b) for b in bounds)
        if key in BY_KEY:
            bound, low = BY_KEY[key]
            names = {n.id for b in bounds for n in ast.walk(b) if isinstance(n, ast.Name)}
            assert names & {bound.name.upper(), "EPOCH_BOUND"}, (file, key, text)
            # both ends from the bound (``*SEED.range``), or the least one of the input's own (in-sample folds)
            assert isinstance(bounds[0], ast.Starred) or ast.literal_eval(bounds[0]) == low, (file, key, text)
            found[key] = file
        else:
            assert not any(word in str(key) for word in ("seed", "epoch", "fold", "min_count", "dim", "batch")), \
                (file, key, "declare it in BY_KEY")
    assert set(found) == set(BY_KEY)


def test_the_engine_checks_the_same_bounds():
    """The training dynamics refuse what the parser refuses: epochs past EPOCHS, folds past FOLDS."""
    import numpy as np
    import pytest

    from artifact_lens.base.errors import InputError
    from artifact_lens.dynamics.cartography import training_dynamics

    X, y = np.zeros((20, 2), dtype=np.float32), np.arange(20) % 2
    for kwargs in ({"epochs": EPOCHS.high + 1}, {"folds": FOLDS.high + 1}, {"epochs": EPOCHS.low - 1}):
        with pytest.raises(InputError, match="whole number from"):
            training_dynamics(X, y, **kwargs)
    assert set(BOUNDS) == {"seed", "epochs", "folds", "min_count", "dim", "batch_size"}
    from artifact_lens.representations import resolve_spec
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=60")
    for dim in (DIM.low - 1, DIM.high + 1):   # a spec's dim= is held to the bound the inputs take
        with pytest.raises(InputError, match=f"from {DIM.low} to {DIM.high:,}"):
            resolve_spec(ds, f"tfidf-svd:dim={dim}")


def test_the_aflite_sliders_take_their_range_from_the_knobs():
    """AFLite's knobs (`core.aflite.knobs.KNOBS`) reach every slider that sets one: the live τ and n
    sliders (their top and step, `Knob.live`), the fit's m, k, t and n and a quality-ordered run's τ
    hold no number of their own."""
    keys = {"w_tau", "w_target", "w_m", "w_k", "w_t", "w_nfit", "w_tau_q"}
    seen = set()
    for path in [*ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("slider", "select_slider")):
                continue
            key = next((k.value for k in node.keywords if k.arg == "key"), None)
            named = next((s.value for s in ast.walk(key) if isinstance(s, ast.Constant) and s.value in keys), None) \
                if key is not None else None
            if named is None:
                continue
            seen.add(named)
            given = [*node.args[1:], *(k.value for k in node.keywords if k.arg not in ("key", "help", "format"))]
            indices = {id(n.slice) for a in given for n in ast.walk(a) if isinstance(n, ast.Subscript)}   # x[0]
            numbers = [ast.unparse(c) for a in given for c in ast.walk(a) if isinstance(c, ast.Constant)
                       and isinstance(c.value, (int, float)) and not isinstance(c.value, bool) and id(c) not in indices]
            assert not numbers, (path.name, named, numbers)
    assert seen == keys
