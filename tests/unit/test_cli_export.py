"""`artifact-lens export`: a saved run's split streamed to a file with its manifest; bad input is
one error line, exit 2 and no file."""
import json

import numpy as np
import pandas as pd
import pytest

from artifact_lens.cli import main
from artifact_lens.representations import represent
from artifact_lens.results.runs import fit_run
from artifact_lens.data.sources import load_dataset

SOURCE = "demo:nli:n=300"
PARAMS = dict(n_partitions=8, train_size=0.1, slice_size=0.05, tau=0.0, target_size=0.3, model="ridge",
              strategy="greedy-slice", random_state=0)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A run .npz (as the dashboard's run store keeps it) and the aflite manifest of the same run."""
    folder = tmp_path_factory.mktemp("runs")
    ds = load_dataset(SOURCE)
    run = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=16", cache_dir=folder), PARAMS)
    run.save(folder / "run.npz")
    assert main(["-q", "--cache-dir", str(folder), "aflite", SOURCE, "-r", "tfidf-svd:fields=hypothesis,dim=16", "--m", "8", "--k", "0.05",
                 "--tau", "0", "--target-size", "0.3", "--out", str(folder / "s.csv"),
                 "--manifest", str(folder / "run.json")]) == 0
    return ds, run, folder


def test_export_from_a_run_file_at_a_live_tau_and_n(saved, tmp_path, capsys):
    ds, run, folder = saved
    out = tmp_path / "kept.csv"
    assert main(["export", SOURCE, "--run", str(folder / "run.npz"), "--tau", "0.6", "--target-size", "150",
                 "--out", str(out)]) == 0
    live = run.result_for(0.6, 150)
    frame = pd.read_csv(out)
    assert sorted(frame["id"]) == sorted(np.asarray(run.ids)[live["retained"]].tolist())
    assert "embedding" not in frame.columns and frame.columns[0] == "id"
    manifest = json.loads((tmp_path / "kept.manifest.json").read_text())
    assert manifest["dataset"]["name"] == ds.name == "demo:nli" and manifest["export"]["tau"] == 0.6
    assert manifest["export"]["target_size"] == 150 and manifest["export"]["embeddings_included"] is False
    assert sorted(manifest["retained_ids"]) == sorted(frame["id"])
    said = capsys.readouterr().out
    assert said.startswith(f"τ = 0.60, n = 150 (50 %) → {len(frame):,} rows retained")


@pytest.mark.parametrize("fmt,name", [("parquet", "all.parquet"), ("jsonl", "all.jsonl"), ("datasets", "all")])
def test_every_format_with_scores(saved, tmp_path, fmt, name):
    import datasets

    ds, run, folder = saved
    out = tmp_path / name
    assert main(["-q", "export", SOURCE, "--run", str(folder / "run.npz"), "--which", "all", "--out", str(out)]) == 0
    if fmt == "parquet":
        frame = pd.read_parquet(out)
    elif fmt == "jsonl":
        frame = pd.read_json(out, lines=True)
    else:
        frame = datasets.load_from_disk(str(out)).to_pandas()
    assert len(frame) == len(ds) and int(frame["retained"].sum()) == int(run.retained.sum())
    assert {"predictability", "removed_at", "warmup"} <= set(frame.columns)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, name.split(".")[0] + ".manifest.json"])


def test_export_from_the_aflite_manifest(saved, tmp_path):
    ds, run, folder = saved
    gone = tmp_path / "gone.csv"
    assert main(["-q", "export", SOURCE, "--run", str(folder / "run.json"), "--which", "removed", "--out", str(gone)]) == 0
    assert sorted(pd.read_csv(gone)["id"]) == sorted(np.asarray(run.ids)[~run.retained].tolist())


@pytest.mark.parametrize("extra,message", [
    (["--run", "RUN.json", "--which", "all"], "--which all writes the score columns"),
    (["--run", "RUN.json", "--tau", "0.8"], "--tau/--target-size need the run's trajectory"),
    (["--run", "nope.npz"], "--run nope.npz: no such file"),
    (["--run", "RUN.npz", "--tau", "-0.5"], "tau"),
    (["--run", "RUN.npz", "--format", "parquet"], "--out must end in .parquet"),
    (["--run", "RUN.npz", "--other-data"], "was made on another dataset"),
])
def test_bad_input_is_one_error_line_and_no_file(saved, tmp_path, capsys, extra, message):
    ds, run, folder = saved
    args = [a.replace("RUN", str(folder / "run")) for a in extra if a != "--other-data"]
    source = "demo:nli:n=200" if "--other-data" in extra else SOURCE
    assert main(["-q", "export", source, *args, "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_export_with_quality_columns(saved, tmp_path):
    from artifact_lens.quality import COMPONENTS, quality_scores

    ds, run, folder = saved
    out = tmp_path / "all.csv"
    assert main(["-q", "--cache-dir", str(folder), "export", SOURCE, "--run", str(folder / "run.npz"), "--which",
                 "all", "--quality", "tfidf-svd:fields=hypothesis,dim=16", "--out", str(out)]) == 0
    frame = pd.read_csv(out, dtype={"id": str})
    assert list(frame.columns[-9:]) == [*COMPONENTS, "dqi", "light"]
    expected = quality_scores(ds, "tfidf-svd:fields=hypothesis,dim=16", cache_dir=folder).reindex(frame["id"])
    assert np.allclose(frame["dqi"], expected["dqi"]) and (frame["light"].to_numpy() == expected["light"].to_numpy()).all()
    assert frame["inter_split"].isna().all() and set(frame["light"]) <= {"red", "yellow", "green"}
    manifest = json.loads((tmp_path / "all.manifest.json").read_text())
    assert manifest["export"]["quality_columns"]["representation"] == "tfidf-svd:fields=hypothesis,dim=16"
    # one record for both front ends: the Export page writes the same keys, at the tab's knobs
    from artifact_lens.quality.pruning import quality_columns_note

    assert manifest["export"]["quality_columns"] == quality_columns_note("tfidf-svd:fields=hypothesis,dim=16")
    assert manifest["export"]["quality_columns"]["weights"]["label_tied"] == 2.0


def test_export_drops_one_of_each_group_of_near_duplicates(tmp_path, capsys):
    from artifact_lens.text.duplicates import near_duplicate_pairs

    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 6)) for _ in range(400)]   # no chance overlaps
    rows = [(" ".join(rng.choice(words, 6)), " ".join(rng.choice(words, 4)), ["a", "b", "c"][i % 3]) for i in range(60)]
    rows += [(p, h + " today", lab) for p, h, lab in rows[:5]]          # five near-copies: a word added
    path = tmp_path / "d.csv"
    pd.DataFrame(rows, columns=["premise", "hypothesis", "label"]).to_csv(path, index=False)
    ds = load_dataset(str(path))
    run = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=8", cache_dir=tmp_path / "c"), PARAMS)
    run.save(tmp_path / "run.npz")
    out = tmp_path / "all.csv"
    assert main(["export", str(path), "--run", str(tmp_path / "run.npz"), "--which", "all",
                 "--drop-near-duplicates", "--out", str(out)]) == 0
    frame = pd.read_csv(out, dtype={"id": str})
    record = json.loads((tmp_path / "all.manifest.json").read_text())["export"]
    dropped = {d["id"]: d["kept"] for d in record["near_duplicates"]["dropped"]}
    assert dropped == {str(60 + i): str(i) for i in range(5)}            # the copies go, the originals stay
    assert record["rows"] == len(frame) == 60 and not set(dropped) & set(frame["id"])
    pairs = near_duplicate_pairs(load_dataset(str(out)))
    assert pairs.empty                                                   # nothing near-duplicate is left
    assert "dropped 5 near-duplicates" in capsys.readouterr().err


def test_a_split_has_one_certificate_whichever_front_end_writes_it(saved, tmp_path):
    """Issue 43's one rule: the datasets folder ``export`` writes carries the certificate the
    dashboard's Certificate panel computes for the same split (`certify_split` on the run's Φ), byte
    for byte; the Φ it records is the run's, not the default."""
    from artifact_lens.certificate.schema import certificate_bytes
    from artifact_lens.usecases.certificates import certify_split

    ds, run, folder = saved
    out = tmp_path / "kept"
    assert main(["-q", "--cache-dir", str(folder), "export", SOURCE, "--run", str(folder / "run.npz"), "--tau", "0.6",
                 "--target-size", "150", "--format", "datasets", "--out", str(out)]) == 0
    written = json.loads((out / "certificate.json").read_text())
    kept = np.asarray(run.ids)[run.result_for(0.6, 150)["retained"]].astype(str)
    panel, why = certify_split(ds, kept, run=run, cache_dir=folder)
    assert why is None and written["settings"]["representation"] == run.representation != "tfidf-svd"
    assert (out / "certificate.json").read_bytes() == certificate_bytes(panel)
