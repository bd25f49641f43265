"""The artifact-aware dataset card (`core.exports.card`, issue 23): its YAML parsed back by huggingface_hub,
its numbers the manifest's, dataset text kept as text; every datasets-folder export carries it;
a Hub push is refused at once offline, with nothing written."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from huggingface_hub import DatasetCard

from artifact_lens.exports import manifest as manifests
from artifact_lens.exports.card import card_inputs, dataset_card, size_category
from artifact_lens.cli import main
from artifact_lens.data.dataset import Dataset
from artifact_lens.representations import represent
from artifact_lens.results.runs import fit_run
from artifact_lens.data.sources import load_dataset

SPEC = "tfidf-svd:fields=hypothesis,dim=16"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("card")
    ds = load_dataset("demo:nli:n=900")
    run = fit_run(ds, represent(ds, SPEC, cache_dir=folder / "c"), dict(n_partitions=8, slice_size=0.05,
                                                                        target_size=0.5))
    run.save(folder / "run.npz")
    return ds, run, folder


def cell(card_text, name):
    found = re.search(rf"^\| {re.escape(name)} \| (.*) \|$", card_text, re.M)
    assert found, name
    return found.group(1)


def test_the_card_says_what_the_manifest_says(saved):
    ds, run, _ = saved
    kept = run.ids[run.retained]
    manifest = manifests.manifest_for(run, which="retained", fmt="datasets", rows=len(kept), tau=run.trajectory.tau,
                                   target_size=run.trajectory.n, dataset=ds, retained_ids=kept)
    inputs = card_inputs(ds, kept)
    card = dataset_card(manifest, inputs, verdict="The filtered split is harder.")
    back = DatasetCard(str(card))                        # the YAML parses back
    assert back.data.size_categories == [size_category(len(kept))] == ["n<1K"]
    assert back.data.source_datasets == ["demo:nli"] and "artifact-lens" in back.data.tags
    text = back.text
    assert cell(text, "rows in this split") == f"{len(kept):,}"
    assert cell(text, "τ (early-stopping threshold on p̃)") == str(manifest["export"]["tau"])
    assert cell(text, "n (target size)") == f"{manifest['export']['target_size']:,}"
    resolved = manifest["aflite"]["resolved"]
    assert cell(text, "k (removed per phase)") == f"{resolved['k']:,}" and cell(text, "m (models per phase)") == \
        f"{resolved['m']:,}" and cell(text, "phases") == f"{manifest['aflite']['n_phases']:,}"
    per_label = inputs["labels"]
    assert sum(c["retained"] for c in per_label.values()) == len(kept)
    assert sum(c["examples"] for c in per_label.values()) == len(ds)
    for label, c in per_label.items():
        assert f"| {label} | {c['examples']:,} | {c['retained']:,} | {c['removed']:,} |" in text
    assert inputs["cues"]["before"][0]["z"] >= inputs["cues"]["after"][0]["z"]   # filtering lowers the top cue
    assert "## Evaluation" in text and "The filtered split is harder." in text


def test_dataset_text_stays_text_in_the_card():
    table = pd.DataFrame({"text": [f"w{i % 7} x" for i in range(60)], "label": ["<b>a|b</b>", "[c](http://x)"] * 30},
                         index=pd.Index([f"e{i}" for i in range(60)], name="id"))
    ds = Dataset(table=table, label="label", text=["text"], name="odd|name")
    manifest = {"dataset": {"name": "odd|name"}, "export": {"selection": "all", "rows": 60}}
    text = str(dataset_card(manifest, card_inputs(ds, table.index[:30])))
    assert "<b>" not in text and "[c](http" not in text and "\\<b\\>a\\|b\\</b\\>" in text


def test_a_datasets_folder_export_carries_the_card(saved, tmp_path):
    ds, run, folder = saved
    out = tmp_path / "split"
    assert main(["-q", "--cache-dir", str(folder / "c"), "export", "demo:nli:n=900", "--run", str(folder / "run.npz"),
                 "--out", str(out)]) == 0
    card = DatasetCard.load(out / "README.md")
    manifest = json.loads((tmp_path / "split.manifest.json").read_text())
    assert cell(card.text, "rows in this split") == f"{manifest['export']['rows']:,}"
    assert card.data.task_categories == ["text-classification"]


@pytest.mark.parametrize("variable", ["HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"])   # one rule for loads and pushes
def test_a_push_is_refused_at_once_offline_and_writes_nothing(saved, tmp_path, capsys, monkeypatch, variable):
    _, _, folder = saved
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv(variable, "1")
    out = tmp_path / "split.csv"
    code = main(["export", "demo:nli:n=900", "--run", str(folder / "run.npz"), "--out", str(out), "--push-to-hub",
                 "team/snli-filtered"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot push to the Hub: offline mode is on" in err
    assert list(tmp_path.iterdir()) == []
    code = main(["export", "demo:nli:n=900", "--run", str(folder / "run.npz"), "--out", str(out), "--push-to-hub",
                 "not a repo"])
    assert code == 2 and "is not a Hub repository id" in capsys.readouterr().err


@pytest.mark.parametrize("repo", ["../..", "team/..", "a--b/c", "-team/x", "team/x.", "team/" + "y" * 100, "a/b/c"])
def test_a_repository_id_the_hub_refuses_is_refused_before_any_work(saved, tmp_path, capsys, monkeypatch, repo):
    """The Hub's own rules are checked up front (not after the export is written, with advice to
    'push again when the Hub is reachable')."""
    _, _, folder = saved
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    code = main(["export", "demo:nli:n=900", "--run", str(folder / "run.npz"), "--out", str(tmp_path / "s.csv"),
                 f"--push-to-hub={repo}"])
    err = capsys.readouterr().err
    assert code == 2 and "is not a Hub repository id" in err and "reachable" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("selection, title", [("all", "every example, with the decisions"),
                                              ("retained", "the filtered split"), ("removed", "the examples removed")])
def test_the_cards_title_says_what_the_export_holds(selection, title):
    text = str(dataset_card({"dataset": {"name": "snli"}, "export": {"selection": selection, "rows": 10}}))
    heading = next(line for line in text.splitlines() if line.startswith("# "))
    assert title in heading and "the all split" not in text


def test_a_datasets_folder_carries_its_certificate_and_the_card_its_headline(saved, tmp_path):
    """Issue 34: the export's certificate.json follows the schema and is the split's own (its
    fingerprint, its rows); the card's front matter holds the headline numbers, its body a table;
    --no-certificate leaves both out."""
    from artifact_lens.certificate.schema import read_certificate

    ds, _, folder = saved
    data = tmp_path / "nli.csv"
    ds.table.reset_index().to_csv(data, index=False)
    out = tmp_path / "split"
    assert main(["-q", "export", str(data), "--run", str(folder / "run.npz"), "--format", "datasets",
                 "--out", str(out)]) == 0
    cert = read_certificate(out / "certificate.json")
    manifest = json.loads((tmp_path / "split.manifest.json").read_text())
    assert cert["dataset"]["examples"] == manifest["export"]["rows"] == len(manifest["retained_ids"])
    card = DatasetCard((out / "README.md").read_text())
    head = card.data.to_dict()["artifact_certificate"]
    assert head["fingerprint"] == cert["dataset"]["fingerprint"]
    assert head["partial_input_accuracy"]["value"] == cert["measures"]["partial_input.accuracy"]["value"]
    assert "## Artifact certificate" in card.text
    bare = tmp_path / "bare"
    assert main(["-q", "export", str(data), "--run", str(folder / "run.npz"), "--format", "datasets", "--no-certificate",
                 "--out", str(bare)]) == 0
    assert not (bare / "certificate.json").exists() and "artifact_certificate" not in (bare / "README.md").read_text()
