"""Small and odd data (issue 45, sweep items 3 and 8), generated: every size from the smallest a
command accepts upwards, every model family. A command either works or prints one ``error:``
line that names the flags the user types (never a Python keyword such as ``slice_size``), and
never a traceback; AFLite's defaults work on every size where its rules can hold (t < n)."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import KEYWORD_FLAGS, main
from core.data.sources import detect_roles

LABELS = ("entailment", "neutral", "contradiction")
WORDS = "the a man dog cat runs sleeps park beach red blue".split()
SMALL = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


def _data(folder, n: int, classes: int, seed: int):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"premise": [" ".join(rng.choice(WORDS, 6)) for _ in range(n)],
                          "hypothesis": [" ".join(rng.choice(WORDS, 4)) for _ in range(n)],
                          "label": [LABELS[i % classes] for i in range(n)]})
    path = folder / f"d{n}_{classes}_{seed}.csv"
    frame.to_csv(path, index=False)
    return path


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, err.getvalue()


def _clear(code, err):
    assert code in (0, 2) and "Traceback" not in err, err[-2000:]
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, err[-2000:]
        assert not [k for k in KEYWORD_FLAGS if k in errors[0]], errors[0]   # the flags as typed
        return errors[0]
    return None


@SMALL
@given(n=st.integers(4, 90), classes=st.integers(2, 3), seed=st.integers(0, 3))
def test_aflite_with_its_defaults_works_wherever_t_below_n_can_hold(tmp_path_factory, n, classes, seed):
    folder = tmp_path_factory.mktemp("small")
    code, err = _cli(["aflite", _data(folder, n, classes, seed), "--quiet", "--out", folder / "out.csv"])
    error = _clear(code, err)
    if n // 2 > classes:                   # t = max(0.1 N, classes) < n = N / 2
        assert code == 0, error
        assert len(pd.read_csv(folder / "out.csv")) == n
    else:
        assert "--train-size" in error and "--target-size" in error


@SMALL
@given(k=st.sampled_from(["0", "0.001", "0.5", "1", "200"]), target=st.sampled_from(["0.001", "0.5", "1", "0.99"]),
       train=st.sampled_from(["0.001", "0.4", "0.9", "1", "50"]))
def test_aflite_errors_name_the_flags_the_user_typed(tmp_path_factory, k, target, train):
    folder = tmp_path_factory.mktemp("flags")
    code, err = _cli(["aflite", _data(folder, 60, 3, 0), "--quiet", "--k", k, "--target-size", target,
                      "--train-size", train, "--out", folder / "out.csv"])
    _clear(code, err)


@SMALL
@given(n=st.integers(4, 40), family=st.sampled_from(["logistic", "mlp", "knn"]), folds=st.integers(2, 5),
       classes=st.integers(2, 3))
def test_pvi_on_small_data_works_or_says_why_for_every_family(tmp_path_factory, n, family, folds, classes):
    folder = tmp_path_factory.mktemp("pvi")
    code, err = _cli(["pvi", _data(folder, n, classes, 1), "--family", family, "--folds", str(folds), "--quiet",
                      "--out", folder / "pvi.csv"])
    _clear(code, err)
    if n // classes >= folds:              # every label has a member in every fold
        assert code == 0, err[-1000:]
        assert len(pd.read_csv(folder / "pvi.csv")) == n


def test_a_file_whose_only_text_column_is_part_of_a_layout_is_detected():
    for columns, text in ((["hypothesis", "label"], ["hypothesis"]), (["Premise", "gold_label"], ["Premise"]),
                          (["question1", "label"], ["question1"]), (["premise", "hypothesis", "label"],
                                                                    ["premise", "hypothesis"])):
        assert detect_roles(pd.DataFrame(columns=columns))["text"] == text
    assert detect_roles(pd.DataFrame(columns=["notes", "label"]))["text"] == []
