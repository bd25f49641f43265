"""Common checks over every registered export format (issue 65, item 3): each entry of
`core.exports.formats.FORMATS` is held to what it declares, so a format added tomorrow is checked
the day it is written. A file format streams a table the tool reads back through its own input
format of that ending, every cell as it was; one a spreadsheet opens (``spreadsheet``, and every
format with a spreadsheet's ending must say so) writes a text cell a spreadsheet would run as a
formula neutralised, as the one CSV writer does. The newcomer's TSV of the issue, written without
the neutralising, fails the named check; written with it, passes."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import artifact_lens.exports.writers  # noqa: F401  (registers the tool's formats)
from artifact_lens.data.file_tables import INPUT_FORMATS
from artifact_lens.exports.formats import FORMATS, SPREADSHEET_ENDINGS, ExportFormat
from artifact_lens.exports.safe_csv import neutralise, neutralise_formulas

#: cells a spreadsheet would run (=, +, -, @, a leading tab), and plain ones
HOSTILE = ["=1+1", "+SUM(A1:A9)", "-2+3", "@cmd", "\t=tab", "plain text", "naïve ✓ 日本", "a, \"quoted\"\nline"]


def _frame() -> pd.DataFrame:
    n = len(HOSTILE)
    return pd.DataFrame({"id": [f"r{i}" for i in range(n)], "text": HOSTILE, "count": np.arange(n, dtype=np.int64),
                         "share": np.linspace(0.125, 0.875, n)})


def check_reads_back(fmt: ExportFormat, folder) -> None:
    """The named check: the format streams a table the tool's own reader of its ending reads back,
    text cells as written (neutralised where a spreadsheet opens the file), numbers exact."""
    assert fmt.suffix in INPUT_FORMATS, f"{fmt.name}: the tool cannot read its own {fmt.suffix} export back"
    assert fmt.spreadsheet or fmt.suffix not in SPREADSHEET_ENDINGS, \
        f"{fmt.name}: a spreadsheet opens {fmt.suffix}; declare spreadsheet=True and neutralise formulas"
    frame = _frame()
    buf = io.BytesIO()
    fmt.write(frame, buf, 3, None, None)   # in chunks of 3 rows: a chunk boundary inside the table
    path = folder / f"check{fmt.suffix}"
    path.write_bytes(buf.getvalue())
    back = INPUT_FORMATS[fmt.suffix].read(path)
    assert list(back.columns) == list(frame.columns) and len(back) == len(frame), fmt.name
    expected = [neutralise(t) for t in HOSTILE] if fmt.spreadsheet else HOSTILE
    assert back["text"].astype(str).tolist() == expected, f"{fmt.name}: text cells not as declared"
    assert back["count"].astype(np.int64).tolist() == frame["count"].tolist(), fmt.name
    assert np.array_equal(back["share"].astype(float).to_numpy(), frame["share"].to_numpy()), fmt.name


FILE_FORMATS = [f for f in FORMATS.values() if not f.folder]


@pytest.mark.parametrize("fmt", FILE_FORMATS, ids=lambda f: f.name)
def test_every_file_format_reads_back_as_it_declares(fmt, tmp_path):
    check_reads_back(fmt, tmp_path)


def test_the_checks_see_every_format():
    assert {f.name for f in FILE_FORMATS} >= {"csv", "parquet", "jsonl"}


def _tsv(neutralised: bool) -> ExportFormat:
    def write(frame, fh, chunk_rows, progress, cancel):
        out = neutralise_formulas(frame) if neutralised else frame
        fh.write(out.to_csv(sep="\t", index=False).encode("utf-8"))
    return ExportFormat("tsv", "TSV", ".tsv", "text/tab-separated-values", write, spreadsheet=True)


def test_a_newcomers_tsv_without_the_neutralising_fails_the_named_check(tmp_path):
    with pytest.raises(AssertionError, match="text cells not as declared"):
        check_reads_back(_tsv(neutralised=False), tmp_path)
    undeclared = ExportFormat("tsv", "TSV", ".tsv", "text/tab-separated-values", _tsv(True).write)
    with pytest.raises(AssertionError, match="declare spreadsheet=True"):
        check_reads_back(undeclared, tmp_path)
    check_reads_back(_tsv(neutralised=True), tmp_path)
