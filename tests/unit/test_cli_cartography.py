"""`artifact-lens cartography`: the CSV the docs name, ids as the dataset has them, the
in-sample variant without label issues (and a note saying why), and the workflow function the
dashboard will call giving the same table."""
import numpy as np
import pandas as pd

from artifact_lens.cli import main
from artifact_lens.representations import represent
from artifact_lens.data.sources import load_dataset
from artifact_lens.dynamics.cartography import dataset_dynamics

SPEC = "tfidf-svd:fields=hypothesis,dim=16"


def test_the_csv_holds_every_scored_example_with_its_dynamics(tmp_path, capsys):
    out = tmp_path / "carto.csv"
    assert main(["-q", "--cache-dir", str(tmp_path / "c"), "cartography", "demo:nli:n=600", "-r", SPEC, "--epochs",
                 "4", "--out", str(out)]) == 0
    frame = pd.read_csv(out, dtype={"id": str})
    assert list(frame.columns) == ["id", "label", "confidence", "variability", "correctness", "region",
                                   "label_quality", "label_issue"]
    ds = load_dataset("demo:nli:n=600")
    assert sorted(frame["id"]) == sorted(ds.table.index.astype(str))
    assert (frame.set_index("id")["label"] == ds.table[ds.label].reindex(frame["id"]).to_numpy()).all()
    same = dataset_dynamics(ds, represent(ds, SPEC, cache_dir=tmp_path / "c"), epochs=4)
    assert np.allclose(same.table["confidence"].to_numpy(), frame["confidence"].to_numpy(), atol=1e-5)


def test_device_trains_on_that_namespace_and_a_bad_one_is_refused_before_any_output(tmp_path, capsys, monkeypatch):
    """`--device` (and `ARTIFACT_LENS_DEVICE` when it is left out) says where the models train: the map
    is the CPU's up to float32 rounding, the summary names the device; an unknown or absent device is
    one error line and no file."""
    common = ["--cache-dir", str(tmp_path / "c"), "cartography", "demo:nli:n=300", "-r", SPEC, "--epochs", "3"]
    cpu, strict, env = tmp_path / "cpu.csv", tmp_path / "strict.csv", tmp_path / "env.csv"
    assert main(common + ["--out", str(cpu)]) == 0
    assert main(common + ["--device", "array-api-strict", "--out", str(strict)]) == 0
    assert "3 epochs on array-api-strict:" in capsys.readouterr().out
    monkeypatch.setenv("ARTIFACT_LENS_DEVICE", "array-api")
    assert main(common + ["--out", str(env)]) == 0
    assert "3 epochs on array-api:" in capsys.readouterr().out
    a, b, c = (pd.read_csv(p, dtype={"id": str}) for p in (cpu, strict, env))
    assert a["id"].equals(b["id"]) and np.allclose(a["confidence"], b["confidence"], atol=1e-5)
    assert a.equals(c)   # NumPy through the array API: the same numbers
    for device, said in (("tpu", "'tpu' is not a device"), ("cuda:x", "'cuda:x' is not a device")):
        out = tmp_path / f"{device}.csv"
        assert main(common + ["--device", device, "--out", str(out)]) == 2
        assert said in capsys.readouterr().err and not out.exists()


def test_in_sample_has_no_label_issues_and_says_why(tmp_path, capsys):
    out = tmp_path / "carto.csv"
    assert main(["--cache-dir", str(tmp_path / "c"), "cartography", "demo:nli:n=300", "-r", SPEC, "--epochs", "3",
                 "--in-sample", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: label issues need out-of-sample probabilities" in err
    assert "label_issue" not in pd.read_csv(out).columns


def test_aflite_joint_marks_and_records_what_it_kept(tmp_path, capsys):
    """`aflite --joint`: the scores CSV's possibly_mislabelled column and the manifest's joint record
    agree, no protected example is removed, and the same run from the workflow has the same key."""
    from artifact_lens.dynamics.joint import descriptor
    from artifact_lens.results.runs import fit_run
    from artifact_lens.dynamics.joint import joint_for

    out, manifest = tmp_path / "scores.csv", tmp_path / "m.json"
    args = ["--cache-dir", str(tmp_path / "c"), "aflite", "demo:nli:n=600", "-r", SPEC, "--m", "8", "--k", "0.02",
            "--joint", "--joint-epochs", "4", "--out", str(out), "--manifest", str(manifest)]
    assert main(args) == 0
    said = capsys.readouterr().out
    frame = pd.read_csv(out, dtype={"id": str})
    m = __import__("json").loads(manifest.read_text())
    flagged = set(frame.loc[frame["possibly_mislabelled"], "id"])
    assert flagged == set(m["joint"]["possibly_mislabelled_ids"]) and flagged
    assert frame.loc[frame["possibly_mislabelled"], "retained"].all()
    assert m["joint"]["epochs"] == 4 and f"{len(flagged):,} possibly mislabelled kept" in said
    ds = load_dataset("demo:nli:n=600")
    rep = represent(ds, SPEC, cache_dir=tmp_path / "c")
    params = dict(n_partitions=8, train_size=0.1, slice_size=0.02, tau=0.75, target_size=0.5, model="ridge",
                  strategy="greedy-slice", random_state=0)
    info = descriptor(epochs=4)
    assert fit_run(ds, rep, params, joint=joint_for(ds, rep, info)).key == m["run_key"]


def test_joint_knobs_without_joint_are_refused(tmp_path, capsys):
    out = tmp_path / "scores.csv"
    assert main(["aflite", "demo:nli:n=300", "-r", SPEC, "--joint-model", "mlp", "--out", str(out)]) == 2
    assert "add --joint" in capsys.readouterr().err and not out.exists()
