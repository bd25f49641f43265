"""The one CSV writer: formulas neutralised in cells and headers, every cell reads back as written."""
import csv
import io

import numpy as np
import pandas as pd
import pytest

from core.safe_csv import neutralise, to_csv_bytes, write_csv

TRICKY = ["lone\rreturn", "lone\nnewline", "windows\r\nline", 'say "hi"', "tab\there", "nul\x00byte",
          "emoji 😀🧪", "עברית right-to-left", "", "plain"]


def test_every_tricky_cell_reads_back_cell_for_cell():
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(len(TRICKY))], "text": TRICKY,
                          "score": np.linspace(0, 1, len(TRICKY))})
    data = to_csv_bytes(frame)
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    assert rows[0] == ["id", "text", "score"] and len(rows) == len(TRICKY) + 1
    assert [r[1] for r in rows[1:]] == TRICKY
    back = pd.read_csv(io.BytesIO(data), keep_default_na=False, dtype={"id": str, "text": str})
    assert back["text"].tolist() == TRICKY
    np.testing.assert_allclose(back["score"].to_numpy(), frame["score"].to_numpy())


@pytest.mark.parametrize("value, written", [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+1+2", "'+1+2"), ("@SUM(A1)", "'@SUM(A1)"),
    ("-cmd|x", "'-cmd|x"), ("\tlead", "'\tlead"), ("\rlead", "'\rlead"),
    ("-5", "-5"), ("+0.5", "+0.5"), ("1e3", "1e3"), ("a=b", "a=b"),
])
def test_formulas_are_neutralised_plain_numbers_are_not(value, written):
    assert neutralise(value) == written
    frame = pd.DataFrame({"id": [value], "text": [value]})
    row = list(csv.reader(io.StringIO(to_csv_bytes(frame).decode(), newline="")))[1]
    assert row == [written, written]   # ids are neutralised like any other text


def test_headers_are_neutralised_and_files_written(tmp_path):
    frame = pd.DataFrame({"=cmd()": ["x"], "label": ["+y"], "n": [3]})
    path = tmp_path / "out.csv"
    write_csv(frame, path)
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    assert rows == [["'=cmd()", "label", "n"], ["x", "'+y", "3"]]
    buf = io.BytesIO()
    write_csv(frame, buf)
    assert buf.getvalue() == path.read_bytes()


def test_embeddings_become_json_text():
    frame = pd.DataFrame({"id": ["a"], "emb": [np.array([0.5, -1.0], dtype=np.float32)]})
    row = list(csv.reader(io.StringIO(to_csv_bytes(frame).decode(), newline="")))[1]
    assert row == ["a", "[0.5, -1.0]"]
