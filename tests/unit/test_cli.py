"""The CLI: output of each command, exit code 2 with one clear line on bad input, no partial files."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from core.cli import main

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
        proc = subprocess.run([sys.executable, "-m", "core", *cmd, "--help"], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0 and "usage: python -m core" in proc.stdout


def test_module_entry_point_reports_errors_without_traceback(tmp_path):
    bad = tmp_path / "data.xlsx"
    bad.write_text("x")
    proc = subprocess.run(
        [sys.executable, "-m", "core", "info", str(bad)], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 2
    assert "unknown file type" in proc.stderr and "Traceback" not in proc.stderr
