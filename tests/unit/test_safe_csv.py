"""The one CSV writer: formulas neutralised in cells and headers, every cell reads back as written."""
import csv
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.exports.safe_csv import neutralise, to_csv_bytes, write_csv

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
    assert row == ["a", "[0.5,-1]"]


def test_float32_vectors_read_back_exactly_and_non_finite_values_stay_readable():
    import json

    rng = np.random.default_rng(0)
    vectors = (rng.standard_normal((20, 16)) * 1e-3 ** rng.integers(-3, 3, (20, 1))).astype(np.float32)
    frame = pd.DataFrame({"id": [str(i) for i in range(20)], "emb": list(vectors)})
    back = pd.read_csv(io.BytesIO(to_csv_bytes(frame)), dtype={"id": str})
    np.testing.assert_array_equal(np.array([json.loads(t) for t in back["emb"]], dtype=np.float32), vectors)
    frame.loc[3, "emb"] = np.array([np.nan] * 16, dtype=np.float32)    # JSON has no nan: per-row json.dumps
    back = pd.read_csv(io.BytesIO(to_csv_bytes(frame)), dtype={"id": str})
    assert np.isnan(json.loads(back["emb"][3])).all() and json.loads(back["emb"][4]) == vectors[4].tolist()


@settings(max_examples=50, deadline=None)
@given(cells=st.lists(st.dictionaries(st.text(max_size=8), st.lists(st.text(max_size=8), max_size=3), max_size=3),
                      min_size=1, max_size=6))
def test_mappings_in_cells_are_written_as_json_that_reads_back(cells):
    """A column of mappings (BBQ's ``answer_info``) is JSON in the CSV, as lists are: Python's repr of a
    dict, which CSV readers cannot parse back, never."""
    import io
    import json

    from artifact_lens.exports.safe_csv import to_csv_bytes

    back = pd.read_csv(io.BytesIO(to_csv_bytes(pd.DataFrame({"info": cells}))), keep_default_na=False)
    assert [json.loads(v) for v in back["info"]] == cells
