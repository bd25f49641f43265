"""Issue 63, item 9: CSV exports changed cell text. ``"10"`` came back ``"10.0"`` from a column with a
blank and ``"1.10"`` as ``"1.1"`` (so options ``1.10`` and ``1.1`` counted as the same). Any text cell,
written by the one CSV writer and read by the loader, comes back as the same text (a cell a
spreadsheet would run as a formula comes back with the apostrophe the writer gives it)."""
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.data.file_tables import read_file
from artifact_lens.exports.safe_csv import neutralise, write_csv

#: cells that look like numbers, booleans or nothing, beside any text
NUMBERISH = st.sampled_from(["10", "1.10", "1.1", "", "007", "1e5", "-3", "3.0", "0", "-0", "True", "true", "FALSE",
                             "nan", "NA", " 4", "5 ", "+1", ".5", "1,000", "0x10", "inf"])
# (NUL is left out: the loader refuses a CSV that holds one, by name, as binary or damaged)
CELL = st.one_of(NUMBERISH, st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
                 st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{0,3})?", fullmatch=True))


def _as_text(value) -> str:
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(columns=st.lists(st.lists(CELL, min_size=3, max_size=3), min_size=1, max_size=4))
def test_any_text_cell_is_written_and_read_back_unchanged(tmp_path_factory, columns):
    frame = pd.DataFrame({f"c{j}": cells for j, cells in enumerate(columns)})
    path = tmp_path_factory.mktemp("csv") / "cells.csv"
    write_csv(frame, path)
    back = read_file(path)
    for col in frame.columns:
        expected = [_as_text(neutralise(v)) for v in frame[col]]
        assert [_as_text(v) for v in back[col]] == expected, col


def test_the_two_cases_the_sweep_found(tmp_path):
    path = tmp_path / "items.csv"
    write_csv(pd.DataFrame({"a": ["10", "", "3"], "b": ["1.10", "1.1", "2"]}), path)
    back = read_file(path)
    assert [_as_text(v) for v in back["a"]] == ["10", "", "3"]
    assert [_as_text(v) for v in back["b"]] == ["1.10", "1.1", "2"]
    assert back["b"].nunique() == 3
