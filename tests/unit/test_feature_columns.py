"""Metadata columns as features (issue 45, sweep item 2), generated: every cell type a column can
hold is used as one value per example or refused with one error naming the column and an
example; values equal to Python but not to a reader (True and 1) stay apart; every column a
computation reads is in the dataset's fingerprint; cue transfer measures a metadata cue on the
evaluation split too."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.data.sources import load_dataset
from artifact_lens.text.features import feature_matrix

CELLS = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, 1.0, float("nan")]), st.none(),
                  st.sampled_from(["a", "b", "1", "True", ""]),
                  st.lists(st.integers(0, 2), max_size=2), st.dictionaries(st.sampled_from("xy"), st.integers(0, 1),
                                                                          max_size=1))
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def _frame(cells):
    n = len(cells)
    return pd.DataFrame({"id": [f"e{i}" for i in range(n)], "hypothesis": [f"w{i % 3} x" for i in range(n)],
                         "label": [("a", "b")[i % 2] for i in range(n)], "meta": pd.Series(cells, dtype=object)})


def _is_container(v) -> bool:
    return isinstance(v, (list, dict))


@SETTINGS
@given(st.lists(CELLS, min_size=4, max_size=24))
def test_every_cell_type_is_one_value_or_refused_naming_the_column(cells):
    ds = load_dataset(_frame(cells), features=["meta"])
    if any(_is_container(v) for v in cells):
        with pytest.raises(InputError, match=r"feature column 'meta' holds (list|dict)s, not single values \(example 'e"):
            feature_matrix(ds)
        return
    fm = feature_matrix(ds)
    names = {str(n) for n, kind in zip(fm.names, fm.kind) if kind == "column"}
    values = [v for v in cells if not (v is None or (isinstance(v, float) and np.isnan(v)))]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) and len(set(values)) > 10:
        return   # a numeric column of many values is binned (checked in test_text_features)
    # one feature per value as it reads: True and 1 are two features, "1" and 1 read alike
    assert names == {f"meta={v}" for v in map(str, values)}


def test_true_and_one_stay_two_features():
    ds = load_dataset(_frame([True, 1, False, 0, True, 1, False, 0]), features=["meta"])
    fm = feature_matrix(ds)
    assert {str(n) for n, k in zip(fm.names, fm.kind) if k == "column"} == {"meta=True", "meta=1", "meta=False",
                                                                           "meta=0"}


@SETTINGS
@given(st.lists(st.sampled_from([True, 1, "1", 0, False, "x", None]), min_size=4, max_size=12), st.data())
def test_the_fingerprint_changes_with_any_feature_cell_and_only_with_the_data(cells, data):
    frame = _frame(cells)
    plain = load_dataset(frame.drop(columns="meta"))
    with_meta = load_dataset(frame, features=["meta"])
    assert with_meta.fingerprint == load_dataset(frame.copy(), features=["meta"]).fingerprint
    assert with_meta.fingerprint != plain.fingerprint
    assert load_dataset(frame).fingerprint == plain.fingerprint      # a column nobody reads is not in it
    i = data.draw(st.integers(0, len(cells) - 1))
    other = data.draw(st.sampled_from([v for v in (True, 1, "1", 0, False, "x", "y") if type(v) is not type(cells[i])
                                       or v != cells[i]]))
    changed = frame.copy()
    changed.loc[i, "meta"] = other
    assert load_dataset(changed, features=["meta"]).fingerprint != with_meta.fingerprint


def test_cue_transfer_measures_a_metadata_cue_on_the_evaluation_split(tmp_path, capsys):
    """The sweep's case: ``transfer --feature source`` reported ``n_eval = 0`` where the cue held
    for every row of the evaluation split."""
    from artifact_lens.cli import main

    rng = np.random.default_rng(1)
    words = "the a man dog cat runs sleeps park beach red blue green big small".split()
    for name, n in (("train", 300), ("eval", 150)):
        labels = [("entailment", "neutral", "contradiction")[i % 3] for i in range(n)]
        pd.DataFrame({"id": [f"{name}{i}" for i in range(n)],
                      "premise": [" ".join(rng.choice(words, 6)) for _ in range(n)],
                      "hypothesis": [" ".join(rng.choice(words, 4)) for _ in range(n)], "label": labels,
                      "source": ["web" if y == "neutral" else "book" for y in labels]}).to_json(
            tmp_path / f"{name}.jsonl", orient="records", lines=True)
    assert main(["transfer", str(tmp_path / "train.jsonl"), str(tmp_path / "eval.jsonl"), "--feature", "source",
                 "--k", "3", "--m", "2", "--quiet", "--out", str(tmp_path / "out")]) == 0
    cues = pd.read_csv(tmp_path / "out" / "cues.csv").set_index(["feature", "label"])
    assert cues.loc[("source=web", "neutral"), "n_eval"] == 50
    assert cues.loc[("source=web", "neutral"), "share_eval"] == 1.0


COLUMNS = st.sampled_from(["bools", "ints", "floats", "categories", "unique", "lists", "dicts", "empty"])


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(COLUMNS, min_size=1, max_size=4, unique=True))
def test_columns_offered_as_features_are_exactly_the_usable_ones(kinds):
    """Issue 45, walk item 7: numeric and categorical columns were not offered as features until
    picked by hand. Every column offered builds features; one of lists, dicts or unique strings is not
    offered."""
    n = 24
    make = {"bools": [i % 2 == 0 for i in range(n)], "ints": list(range(n)), "floats": [i / 7 for i in range(n)],
            "categories": [("web", "book", "news")[i % 3] for i in range(n)], "unique": [f"u{i}" for i in range(n)],
            "lists": [[i] for i in range(n)], "dicts": [{"k": i} for i in range(n)], "empty": [None] * n}
    frame = pd.DataFrame({"hypothesis": [f"w{i % 5}" for i in range(n)], "label": ["a", "b"] * (n // 2),
                          **{k: pd.Series(make[k], dtype=object if k in ("lists", "dicts", "empty") else None)
                             for k in kinds}})
    ds = load_dataset(frame)
    offered = ds.feature_candidates()
    assert set(offered) == {k for k in kinds if k in ("bools", "ints", "floats", "categories")}
    if offered:
        feature_matrix(load_dataset(frame, features=offered))   # each builds its features
