"""The V-usable information of a dataset (issue 34; issue 54's one rule): which inputs PVI is
measured on, and the per-example table. `artifact-lens pvi` and the dashboard's Predictability page
both call `usable_information`, so the same data with the same settings gives the same bytes.

The rule (`pvi_inputs`): Φ is the representation given, else the dataset's default
(`core.representations.default_spec`: pair-diff for preference pairs). Beside it, the partial
inputs: the one given (``none`` for none), else the dataset's own: for a dataset of two or more
text fields its last field (the hypothesis), for preference pairs the responses without the prompt
and their style alone (`core.representations.spec.PAIR_INPUTS`), each only where it is not Φ itself.

Multiple-choice items have their own inputs, fixed (`choice_information`): the stem with the options
as the full input, the options alone and the position alone, each a conditional logit over the
item's options (`core.evaluation.choices`); an item's PVI is against a uniform guess among its options.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from ..base.errors import InputError
from ..base.progress import report
from ..evaluation import default_partial_spec
from ..evaluation.information import dataset_pvi
from ..representations.spec import PAIR_INPUTS, default_spec, resolve_spec

__all__ = ["pvi_inputs", "usable_information", "pvi_table", "choice_information", "choice_pvi_table", "NO_PARTIAL"]

#: what ``partial`` says for "no partial input" (the CLI's ``--partial none``)
NO_PARTIAL = "none"


def pvi_inputs(dataset, representation: Optional[str] = None, partial: Optional[str] = None) -> dict:
    """``{"full": Φ's spec, <partial input's name>: its spec, ...}`` by the module's rule."""
    full = representation or default_spec(dataset)
    if partial is not None and partial.strip():
        return {"full": full, **({} if partial.strip().lower() == NO_PARTIAL else {"partial": partial})}
    if dataset.pairs is not None:
        mine = resolve_spec(dataset, full)
        return {"full": full, **{name: spec for name, spec in PAIR_INPUTS.items()
                                 if name != "full" and resolve_spec(dataset, spec) != mine}}
    own = default_partial_spec(dataset)
    return {"full": full, **({"partial": own} if own else {})}


def usable_information(dataset, representation: Optional[str] = None, partial: Optional[str] = None, *,
                       family: str = "logistic", folds: int = 5, seed: int = 0, device=None, cache_dir=None,
                       progress=None, cancel=None) -> dict:
    """``{input's name: core.evaluation.information.UsableInformation}`` for each of `pvi_inputs`,
    Φ first, each in an equal part of the bar with its steps named by it ("PVI of Φ: fold 2 of 5");
    ``device``: where Φ's SVD and the models compute (`core.base.devices`; None: the CPU)."""
    inputs = pvi_inputs(dataset, representation, partial)
    found = {}
    for i, (name, spec) in enumerate(inputs.items()):
        lo, hi = i / len(inputs), (i + 1) / len(inputs)
        part = _stage(progress, lo, hi, name) if progress is not None else None
        found[name] = dataset_pvi(dataset, spec, family=family, folds=int(folds), random_state=int(seed),
                                  device=device, cache_dir=cache_dir, progress=part, cancel=cancel)
    return found


def _stage(progress, lo: float, hi: float, name: str):
    """``progress`` for one input's PVI: its 0..1 as ``lo..hi``, its steps named ("PVI of Φ: fold 2 of 5")."""
    label = "PVI of Φ" if name == "full" else f"PVI of the {name.replace('_', ' ')} input"
    return lambda f, m="": report(
        progress, lo + (hi - lo) * f, m.replace("PVI", label, 1) if "PVI" in m else f"{label}: {m}" if m else label)


def pvi_table(found: dict, dataset) -> pd.DataFrame:
    """One row per example: ``id`` (and ``label``, but for pairs, whose label is a drawn side),
    ``pvi``, ``p_model``, ``p_prior`` on Φ, then ``pvi_<name>`` and ``p_model_<name>`` per partial
    input (absent where it scored no row)."""
    if "full" not in found or found["full"] is None:
        raise InputError("no PVI of Φ to tabulate")
    table = found["full"].table.drop(columns=["fold", "correct"])
    if dataset.pairs is not None:   # a pair's label is its side in a drawn order: the pair is keyed by its id
        table = table.drop(columns=["label"])
    for name, got in found.items():
        if name != "full" and got is not None:
            part = got.table.set_index("id")
            table = table.join(part[["pvi", "p_model"]].add_suffix(f"_{name}"), on="id")
    return table


def choice_information(dataset, representation: Optional[str] = None, partial: Optional[str] = None, *,
                       folds: int = 5, seed: int = 0, embedding: Optional[str] = None, progress=None,
                       cancel=None) -> dict:
    """The baselines of multiple-choice items (`core.evaluation.choices.choice_baselines`): their
    inputs are the items' own, so a representation or a partial input given is refused by name;
    ``embedding`` (glove, sbert) adds the options-only model on each option's embedding."""
    from ..evaluation.choices import choice_baselines

    given = [flag for flag, value in (("--representation", representation), ("--partial", partial)) if value]
    if given:
        raise InputError(f"{' and '.join(given)} name(s) inputs of labelled examples; multiple-choice items are measured "
                         "on their own inputs (the stem with the options, the options alone, the position alone): "
                         "drop it.")
    return choice_baselines(dataset, folds=folds, random_state=seed, embedding=embedding, progress=progress,
                            cancel=cancel)


def choice_pvi_table(found: dict) -> pd.DataFrame:
    """One row per item: ``id``, ``pvi`` and ``p_gold`` of the full input (the stem with the
    options), then ``pvi_<name>`` and ``p_gold_<name>`` of the options alone and the position alone."""
    table = found["stem_and_options"].table[["id", "pvi", "p_gold"]]
    for name, got in found.items():
        if name != "stem_and_options":
            table = table.join(got.table.set_index("id")[["pvi", "p_gold"]].add_suffix(f"_{name}"), on="id")
    return table
