"""The CLI: output of each command, exit code 2 with one clear line on bad input, no partial files."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from artifact_lens.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def nli_csv(tmp_path):
    rng = __import__("numpy").random.default_rng(0)
    words = ["man", "dog", "cat", "girl", "park", "street", "ball", "car"]
    rows = []
    for i in range(60):
        label = ["entailment", "neutral", "contradiction"][i % 3]
        cue = {"entailment": "outdoors", "neutral": "tall", "contradiction": "sleeping"}[label]
        rows.append(
            {
                "premise": " ".join(rng.choice(words, 6)),
                "hypothesis": " ".join(rng.choice(words, 3)) + (f" {cue}" if i % 2 else ""),
                "label": label,
            }
        )
    path = tmp_path / "nli.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_info_prints_rows_labels_and_roles(nli_csv, capsys):
    assert main(["info", str(nli_csv)]) == 0
    out = capsys.readouterr().out
    assert "rows         60" in out
    assert "entailment" in out and "20" in out
    assert "hypothesis               text" in out


def test_info_json(nli_csv, capsys):
    assert main(["info", str(nli_csv), "--json", "--text", "hypothesis"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rows"] == 60
    assert info["labels"] == {"contradiction": 20, "entailment": 20, "neutral": 20}
    assert info["columns"]["hypothesis"] == "text" and info["columns"]["premise"] == "other"


def test_bad_column_exits_2_with_one_line(nli_csv, capsys):
    assert main(["info", str(nli_csv), "--label", "lable"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no column 'lable'") and "Did you mean 'label'" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_represent_bad_out_suffix_leaves_nothing(nli_csv, tmp_path, capsys):
    out = tmp_path / "x.txt"
    assert main(["represent", str(nli_csv), "-r", "tfidf-svd:dim=4", "--out", str(out)]) == 2
    assert "--out must end in .npy" in capsys.readouterr().err
    assert not out.exists()


def test_every_command_has_help():
    for cmd in ([], ["info"], ["represent"]):
        proc = subprocess.run([sys.executable, "-m", "artifact_lens", *cmd, "--help"], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0 and "usage: artifact-lens" in proc.stdout


def test_module_entry_point_reports_errors_without_traceback(tmp_path):
    bad = tmp_path / "data.xlsx"
    bad.write_text("x")
    proc = subprocess.run(
        [sys.executable, "-m", "artifact_lens", "info", str(bad)], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 2
    assert "unknown file type" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------- engine commands


def test_represent_writes_npz_with_ids(tmp_path, capsys):
    out = tmp_path / "phi.npz"
    assert main(["-q", "represent", "demo:nli:n=300", "-r", "tfidf-svd:fields=hypothesis,dim=16", "--out", str(out)]) == 0
    with __import__("numpy").load(out) as npz:
        assert npz["X"].shape == (300, 16) and npz["X"].dtype == "float32"
        assert npz["ids"][0] == "nli-00000"


def test_represent_unknown_spec_leaves_no_file(tmp_path, capsys):
    out = tmp_path / "phi.npy"
    assert main(["represent", "demo:nli:n=200", "-r", "bogus", "--out", str(out)]) == 2
    assert "error:" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_aflite_writes_scores_manifest_and_export(tmp_path):
    out, man, exp = tmp_path / "scored.csv", tmp_path / "run.json", tmp_path / "kept.jsonl"
    code = main(["-q", "aflite", "demo:nli:n=600", "-r", "tfidf-svd:fields=hypothesis,dim=32", "--m", "8",
                 "--k", "0.05", "--tau", "0", "--target-size", "0.5", "--out", str(out), "--manifest", str(man),
                 "--export", str(exp), "--seed", "3"])
    assert code == 0
    scored = pd.read_csv(out)
    assert list(scored.columns) == ["id", "label", "predictability", "removed_at", "retained", "warmup"]
    assert len(scored) == 600 and scored["retained"].sum() == 300
    assert (scored.loc[scored.retained, "removed_at"] == -1).all()
    assert (scored.loc[~scored.retained, "removed_at"] >= 0).all()
    manifest = json.loads(man.read_text())
    assert manifest["aflite"]["params"]["n_partitions"] == 8 and manifest["aflite"]["seed"] == 3
    assert manifest["representation"]["spec"].startswith("tfidf-svd:fields=hypothesis")
    assert sorted(manifest["retained_ids"]) == sorted(scored.loc[scored.retained, "id"])
    assert manifest["versions"]["numpy"] and manifest["dataset"]["fingerprint"]
    kept = pd.read_json(exp, lines=True)
    assert sorted(kept["id"]) == sorted(scored.loc[scored.retained, "id"]) and "hypothesis" in kept.columns


def test_aflite_export_to_a_datasets_folder_carries_its_card_and_manifest(tmp_path):
    """Every datasets-folder export carries README.md (the dataset card) and manifest.json, with
    the fitted τ and n and the retained split's numbers."""
    from huggingface_hub import DatasetCard

    folder = tmp_path / "split"
    assert main(["-q", "aflite", "demo:nli:n=600", "-r", "tfidf-svd:fields=hypothesis,dim=32", "--m", "8", "--k", "0.05",
                 "--tau", "0", "--target-size", "0.5", "--out", str(tmp_path / "s.csv"), "--export", str(folder)]) == 0
    inside = json.loads((folder / "manifest.json").read_text())
    assert inside == json.loads((tmp_path / "split.manifest.json").read_text())
    assert inside["export"]["tau"] == 0.0 and inside["export"]["target_size"] == 300 and len(inside["retained_ids"]) == 300
    card = DatasetCard.load(folder / "README.md")
    assert card.data.to_dict()["size_categories"] == ["n<1K"]
    assert "| rows in this split | 300 |" in card.text and "| n (target size) | 300 |" in card.text


def test_aflite_with_warmup_marks_warmup_rows(tmp_path):
    out = tmp_path / "scored.csv"
    code = main(["-q", "aflite", "demo:nli:n=600", "-r", "warmup:fields=hypothesis,fraction=0.1", "--m", "8",
                 "--k", "0.05", "--tau", "0", "--target-size", "0.5", "--out", str(out)])
    assert code == 0
    scored = pd.read_csv(out)
    assert len(scored) == 600 and scored["warmup"].sum() == 60
    assert not scored.loc[scored.warmup, "retained"].any()
    assert scored.loc[scored.warmup, "predictability"].isna().all()


def test_aflite_bad_tau_is_a_clear_error(tmp_path, capsys):
    out = tmp_path / "scored.csv"
    assert main(["aflite", "demo:nli:n=300", "-r", "tfidf-svd:dim=8", "--tau", "1.5", "--out", str(out)]) == 2
    assert "tau" in capsys.readouterr().err
    assert not out.exists()


def test_zstats_and_zfilter(tmp_path, capsys):
    z = tmp_path / "z.csv"
    assert main(["zstats", "demo:nli:n=900", "--min-count", "5", "--out", str(z)]) == 0
    printed = capsys.readouterr().out
    table = pd.read_csv(z)
    assert {"feature", "label", "n", "count", "p_hat", "z"} <= set(table.columns)
    top = table.sort_values("z", ascending=False).groupby("label").head(5)
    # the demo plants negation cues on contradictions
    assert top[top.label == "contradiction"].feature.str.contains("nobody|not|no@|never").any()
    assert "z* =" in printed
    acc, rej = tmp_path / "acc.csv", tmp_path / "rej.csv"
    assert main(["zfilter", "demo:nli:n=900", "--batch-size", "150", "--k", "5", "--out", str(acc), "--rejected", str(rej)]) == 0
    printed = capsys.readouterr().out
    a, r = pd.read_csv(acc), pd.read_csv(rej)
    assert len(a) + len(r) == 900 and len(r) > 0
    assert r["rejected_by"].notna().all()
    before, after = [float(x.split()[0]) for x in printed.split("largest z ")[1].split(" before, ")]
    assert after < before



@pytest.mark.parametrize(
    "extra, message",
    [
        (["--manifest", "run.txt"], "--manifest must end in .json"),
        (["--quality", "hypothesis"], "--quality column 'hypothesis' has .* non-numeric"),
        (["--export", "kept.xlsx"], "--export must end in .csv or .parquet or .jsonl or a folder name"),
    ],
)
def test_aflite_bad_options_fail_before_any_output(tmp_path, monkeypatch, capsys, extra, message):
    monkeypatch.chdir(tmp_path)
    code = main(["aflite", "demo:nli:n=300", "-r", "tfidf-svd:dim=8", "--out", "scored.csv", *extra])
    assert code == 2
    assert __import__("re").search(message, capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def test_missing_output_folder(tmp_path, capsys):
    assert main(["zstats", "demo:nli:n=300", "--out", str(tmp_path / "no" / "z.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_aflite_quality_order(tmp_path):
    from artifact_lens.data.demos import make_nli

    ds = make_nli(n=400, random_state=0)
    table = ds.table.reset_index()
    table["quality"] = range(len(table))  # lower index = lower quality: removed first among p >= tau
    path = tmp_path / "nli.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "scored.csv"
    assert main(["-q", "aflite", str(path), "--text", "premise,hypothesis", "-r", "tfidf-svd:fields=hypothesis,dim=16",
                 "--m", "8", "--k", "0.05", "--tau", "0", "--target-size", "0.5", "--quality", "quality",
                 "--out", str(out)]) == 0
    scored = pd.read_csv(out).merge(table[["id", "quality"]], on="id")
    first = scored[scored.removed_at == 0]
    # with τ = 0 every example passes, so phase 0 removes exactly the k lowest-quality ones
    assert sorted(first["quality"]) == list(range(20))


def test_cli_csv_outputs_go_through_the_safe_writer(tmp_path):
    # a hostile dataset: formulas in the id, the text and the label
    rows = pd.DataFrame({"uid": [f"=cmd{i}" if i % 2 else f"r{i}" for i in range(120)],
                         "text": ["=HYPERLINK(\"http://x\")" if i % 3 == 0 else f"line\rwith return {i}" for i in range(120)],
                         "label": ["+yes" if i % 2 else "no" for i in range(120)]})
    src = tmp_path / "hostile.csv"
    rows.to_csv(src, index=False, quoting=csv.QUOTE_ALL)
    scores, accepted = tmp_path / "scores.csv", tmp_path / "acc.csv"
    assert main(["-q", "aflite", str(src), "--id", "uid", "-r", "tfidf-svd:fields=text,dim=4", "--m", "4",
                 "--out", str(scores)]) == 0
    assert main(["-q", "zfilter", str(src), "--id", "uid", "--batch-size", "40", "--out", str(accepted)]) == 0
    for path in (scores, accepted):
        frame = pd.read_csv(path, keep_default_na=False, dtype=str)
        assert not frame.apply(lambda col: col.str.startswith(("=", "+"))).any().any(), path.name
        assert frame["label"].isin(["'+yes", "no"]).all()
    text = pd.read_csv(accepted, keep_default_na=False, dtype=str)["text"]
    assert text.str.contains("\r").any()   # a lone CR stays inside its cell


def _listing(folder):
    return sorted(p.name for p in folder.iterdir())   # dotfiles included


def test_interrupt_after_the_first_output_writes_nothing(tmp_path, capsys, monkeypatch):
    import artifact_lens.cli as cli

    out, rejected = tmp_path / "acc.csv", tmp_path / "rej.csv"
    calls = []
    real = cli.common.write_csv

    def write_then_interrupt(frame, path, **kw):
        real(frame, path, **kw)
        calls.append(path)
        if len(calls) == 1:
            raise KeyboardInterrupt   # Ctrl-C right after the first output was written

    monkeypatch.setattr(cli.common, "write_csv", write_then_interrupt)
    code = main(["-q", "zfilter", "demo:nli:n=300", "--out", str(out), "--rejected", str(rejected)])
    assert code == 130 and "no output was written" in capsys.readouterr().err
    assert _listing(tmp_path) == []


def test_sigterm_is_handled_like_ctrl_c(tmp_path):
    out = tmp_path / "s.csv"
    proc = subprocess.Popen([sys.executable, "-m", "artifact_lens", "aflite", "demo:nli:n=20000", "-r",
                             "tfidf-svd:fields=hypothesis,dim=64", "--m", "64", "--k", "0.002", "--out", str(out)],
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=dict(os.environ, ARTIFACT_LENS_CACHE=str(tmp_path / "cache")))
    first = proc.stderr.read(1)   # the first progress bar: the command is at work
    proc.terminate()
    err = first + proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, err
    assert "interrupted; no output was written" in err and "Traceback" not in err
    assert [n for n in _listing(tmp_path) if n != "cache"] == []


def test_a_stop_request_lost_on_the_way_still_writes_nothing(tmp_path):
    """Python drops an interrupt raised while a finaliser runs; the stop request (the event the
    signal handler sets) is honoured at commit, the last point before anything is moved into place."""
    import threading

    from artifact_lens.exports.outputs import Ledger, Outputs

    stop = threading.Event()
    outs = Outputs(ledger=Ledger(tmp_path / "cache" / "ledger.json"), stop=stop)
    outs.declare("--out", str(tmp_path / "o.csv"), (".csv",))
    Path(outs.path_for("--out")).write_text("a\n1\n")
    stop.set()
    with pytest.raises(KeyboardInterrupt):
        outs.commit()
    outs.abort()
    assert [n for n in _listing(tmp_path) if n != "cache"] == [] and outs.report() is None


def test_a_full_disk_is_one_error_line_and_no_file(tmp_path, capsys, monkeypatch):
    import artifact_lens.cli as cli

    def full(frame, path, **kw):
        with open(path, "wb") as fh:
            fh.write(b"partial")
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(cli.common, "write_csv", full)
    out = tmp_path / "z.csv"
    assert main(["-q", "zstats", "demo:nli:n=300", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: No space left on device") and f"--out {out}" in err[0]
    assert _listing(tmp_path) == []


def test_outputs_respect_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        assert main(["-q", "zstats", "demo:nli:n=300", "--out", str(tmp_path / "z.csv")]) == 0
    finally:
        os.umask(old)
    assert oct((tmp_path / "z.csv").stat().st_mode & 0o777) == oct(0o644)
    assert _listing(tmp_path) == ["z.csv"]


def test_aflite_export_and_export_write_a_datasets_folder_the_same_way(tmp_path):
    """Issue 54: ``aflite --export`` wrote its folder by a path of its own, without the split's
    certificate that ``export`` adds; both now write through `core.usecases.exports.write_export`."""
    first = tmp_path / "from-aflite"
    assert main(["-q", "aflite", "demo:nli:n=400", "-r", "tfidf-svd:fields=hypothesis,dim=16", "--m", "4", "--k",
                 "0.05", "--tau", "0", "--target-size", "0.5", "--out", str(tmp_path / "s.csv"), "--manifest",
                 str(tmp_path / "run.json"), "--export", str(first)]) == 0
    second = tmp_path / "from-export"
    assert main(["-q", "export", "demo:nli:n=400", "--run", str(tmp_path / "run.json"), "--out", str(second)]) == 0
    names = {p.name for p in first.iterdir()}
    assert names == {p.name for p in second.iterdir()} and {"certificate.json", "croissant.json", "README.md"} <= names
    assert (first / "certificate.json").read_bytes() == (second / "certificate.json").read_bytes()
