"""Delimited files read as the standard readers write them (issue 53, item 7): a TSV or CSV whose
quoted cells hold line breaks, tabs and quotes, written by pandas or Python's csv, reads back as
exactly its rows; a TSV whose quotes are literal text (GLUE's) still reads; one that is neither
is refused by name, never read as other rows."""
import csv

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.data.file_tables import read_file

_tokens = ["a", "b", " ", '"', "\t", "\n", "\r\n", ",", "é"]
#: texts as people write them (a line break is "\n" or "\r\n"); a lone "\r" is tried apart below
_text = st.lists(st.sampled_from(_tokens), min_size=1, max_size=12).map("".join).filter(lambda t: t.strip())


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_text, _text, st.sampled_from(["yes", "no"])), min_size=1, max_size=25),
       st.sampled_from(["pandas", "csv"]), st.sampled_from([".tsv", ".csv"]))
def test_quoted_cells_with_line_breaks_read_back_as_their_rows(tmp_path, rows, writer, suffix):
    frame = pd.DataFrame(rows, columns=["prompt", "response", "label"])
    path = tmp_path / f"data{suffix}"
    sep = "\t" if suffix == ".tsv" else ","
    if writer == "pandas":
        frame.to_csv(path, sep=sep, index=False)
    else:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh, delimiter=sep)
            out.writerow(frame.columns)
            out.writerows(frame.values.tolist())
    _read(path, frame, strict=True)


def _read(path, frame, strict):
    """The file read back: its rows, or (``strict`` false) a refusal; never other rows."""
    try:
        read = read_file(path)
    except InputError as exc:
        assert not strict, exc
        return None
    assert len(read) == len(frame)
    for column in frame.columns:   # a "\r\n" inside a cell is a line break either way
        assert read[column].str.replace("\r\n", "\n").tolist() == frame[column].str.replace("\r\n", "\n").tolist()
    return read


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.lists(st.sampled_from(_tokens + ["\r"]), min_size=1, max_size=8).map("".join),
                          st.sampled_from(["yes", "no"])), min_size=1, max_size=10))
def test_a_lone_carriage_return_is_read_back_or_refused_never_other_rows(tmp_path, rows):
    """pandas writes a cell holding a lone "\r" unquoted in a TSV, which no reader can split right."""
    frame = pd.DataFrame(rows, columns=["text", "label"])
    frame.to_csv(tmp_path / "data.tsv", sep="\t", index=False)
    _read(tmp_path / "data.tsv", frame, strict=False)


def test_sixty_pairs_with_multi_line_cells_are_sixty_rows(tmp_path):
    frame = pd.DataFrame({"prompt": [f"question {i}\nsecond line" for i in range(60)],
                          "chosen": [f'the "best"\nanswer {i}' for i in range(60)],
                          "rejected": [f"answer {i}\n\n- a list" for i in range(60)]})
    frame.to_csv(tmp_path / "pairs.tsv", sep="\t", index=False)
    assert read_file(tmp_path / "pairs.tsv").equals(frame)


def test_a_quoted_tsv_without_a_final_line_break_reads(tmp_path):
    frame = pd.DataFrame({"text": ["two\nlines", 'a "quote"'], "label": ["yes", "no"]})
    (tmp_path / "t.tsv").write_text(frame.to_csv(sep="\t", index=False).rstrip("\n"))
    assert read_file(tmp_path / "t.tsv").equals(frame)


def test_a_tsv_whose_quotes_are_text_still_reads(tmp_path):
    (tmp_path / "glue.tsv").write_text('premise\thypothesis\tlabel\n"Hello there\tok\tx\nA "quote" mid\t"b\ty\n')
    assert read_file(tmp_path / "glue.tsv").values.tolist() == [['"Hello there', "ok", "x"], ['A "quote" mid', '"b', "y"]]


def test_a_tsv_that_reads_neither_way_is_refused(tmp_path):
    (tmp_path / "torn.tsv").write_text('premise\thypothesis\tlabel\n"Hello\nthere\tok\tx\nA\t"b\n')
    with pytest.raises(InputError, match="fit neither way a TSV is read.*line 2 has 1 cells where the header has 3"):
        read_file(tmp_path / "torn.tsv")
