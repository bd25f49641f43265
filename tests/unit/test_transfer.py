"""Artifacts across splits (`core.dynamics.transfer`, `artifact-lens transfer`, issue 23): the demo NLI set's
planted cues carry over from one half to the other; with the second half's labels shuffled they
do not; the command writes the files the docs name; mismatched splits are one clear error."""
import json

import numpy as np
import pandas as pd
import pytest

from artifact_lens.cli import main
from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import InputError
from artifact_lens.data.sources import load_dataset
from artifact_lens.dynamics.transfer import CUE_COLUMNS, cue_transfer


@pytest.fixture(scope="module")
def halves():
    ds = load_dataset("demo:nli:n=2400")
    ids = ds.table.index
    return ds.subset(ids[:1200]), ds.subset(ids[1200:])


def shuffled(ds, seed=0):
    table = ds.table.copy()
    table[ds.label] = np.random.default_rng(seed).permutation(table[ds.label].to_numpy())
    return Dataset(table=table, label=ds.label, text=list(ds.text), name=ds.name + " (labels shuffled)")


@pytest.mark.slow
def test_planted_cues_carry_over_to_the_other_half(halves):
    train, eval_ = halves
    found = cue_transfer(train, eval_, k=10, m=4)
    s = found.summary
    assert list(found.cues.columns) == CUE_COLUMNS and len(found.cues) == 10
    assert s["cues_transferring"] >= 8
    assert s["partial_input_accuracy_eval"] > s["majority_share_eval"] + 0.2
    assert s["top_cues_accuracy_eval"] > s["majority_share_eval"] + 0.2
    assert not found.cues["feature"].str.contains("pred=").any()     # each split's own model: not a cue of TRAIN


@pytest.mark.slow
def test_cues_do_not_carry_over_to_shuffled_labels(halves):
    train, eval_ = halves
    s = cue_transfer(train, shuffled(eval_), k=10, m=4).summary
    assert s["cues_transferring"] <= 1
    assert s["partial_input_accuracy_eval"] < s["majority_share_eval"] + 0.06
    assert s["top_cues_accuracy_eval"] < s["majority_share_eval"] + 0.06


def test_the_command_writes_cues_duplicates_summary_and_report(tmp_path, capsys):
    train, eval_ = tmp_path / "train.csv", tmp_path / "eval.csv"
    ds = load_dataset("demo:nli:n=900")
    ds.table.iloc[:450].reset_index().to_csv(train, index=False)
    frame = ds.table.iloc[450:].reset_index()
    frame.loc[frame.index[:3], "hypothesis"] = "<b>bold</b> =1+1"            # dataset text reaches the report
    frame.to_csv(eval_, index=False)
    out = tmp_path / "transfer"
    assert main(["-q", "transfer", str(train), str(eval_), "--k", "5", "--m", "2", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["cues.csv", "duplicates.csv", "report.html", "summary.json"]
    cues = pd.read_csv(out / "cues.csv")
    assert list(cues.columns) == CUE_COLUMNS and len(cues) == 5
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cues"] == 5 and summary["eval_examples"] == 450
    report = (out / "report.html").read_text()
    assert "<b>bold</b>" not in report and "Do the training split" in report
    assert list(pd.read_csv(out / "duplicates.csv").columns) == ["train_id", "eval_id", "overlap"]


def test_splits_with_other_columns_are_one_clear_error(halves):
    train, eval_ = halves
    other = Dataset(table=eval_.table.rename(columns={"hypothesis": "claim"}), label=eval_.label,
                    text=["premise", "claim"], name="other")
    with pytest.raises(InputError, match="the evaluation split has no column 'hypothesis'"):
        cue_transfer(train, other)


def _relabelled(ds, mapping, name):
    table = ds.table.copy()
    table[ds.label] = table[ds.label].astype(str).map(lambda v: mapping.get(v, v))
    return Dataset(table=table, label=ds.label, text=list(ds.text), name=name)


def test_what_transfer_cannot_measure_is_said_not_reported_as_a_number(halves):
    """The same split is refused (a training accuracy is not a transfer); disjoint label sets and an
    all-empty text column are refused; an extra label in EVAL is named in the summary."""
    train, eval_ = halves
    with pytest.raises(InputError, match="is the training split"):
        cue_transfer(train, train.subset(train.table.index), k=5, m=2)
    with pytest.raises(InputError, match="no label of the evaluation split"):
        cue_transfer(train, _relabelled(eval_, {"entailment": "E", "neutral": "N", "contradiction": "C"}, "x"), k=5, m=2)
    blank = eval_.table.copy()
    blank["hypothesis"] = ""
    with pytest.raises(InputError, match="empty in every row"):
        cue_transfer(train, Dataset(table=blank, label=eval_.label, text=list(eval_.text), name="blank"), k=5, m=2)
    extra = cue_transfer(train, _relabelled(eval_, {"neutral": "unknown"}, "extra"), k=5, m=2).summary
    assert extra["labels_only_in_eval"] == ["unknown"]
    assert extra["eval_examples_with_a_label_only_in_eval"] == int((eval_.table[eval_.label] == "neutral").sum())


