"""Issue 63, item 10: ``zstats`` on items whose stem could not tell the strongest cue wrote its CSV, then
exited 2; ``aflite --quality dqi`` and ``--joint`` on items took the gold's letter for a class, and
``pvi --family knn`` on items was ignored. A command either refuses before it writes, or finishes."""
import json

import pytest

from artifact_lens.cli import PASSED, REFUSED, main


@pytest.fixture
def items(tmp_path):
    """Items whose gold always says "indeed" (the cue every item carries: the stem cannot tell)."""
    rows = []
    for i in range(120):
        opts = [f"plain answer {i} {j}" for j in range(4)]
        gold = i % 4
        opts[gold] = f"indeed answer {i}"
        rows.append({"question": f"what is {i % 3}?", "A": opts[0], "B": opts[1], "C": opts[2], "D": opts[3],
                     "answer": "ABCD"[gold]})
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_zstats_on_items_finishes_what_it_wrote(items, tmp_path, capsys):
    out = tmp_path / "cues.csv"
    assert main(["zstats", str(items), "--out", str(out)]) == PASSED
    said = capsys.readouterr().out
    assert out.is_file() and "indeed" in out.read_text()
    assert "in the stem: nothing tells whether" in said


@pytest.mark.parametrize("argv", [["aflite", "--quality", "dqi"], ["aflite", "--joint"], ["pvi", "--family", "knn"]])
def test_options_that_would_change_nothing_or_misread_items_are_refused_before_any_write(items, tmp_path, capsys, argv):
    out = tmp_path / "out.csv"
    assert main(["-q", argv[0], str(items), *argv[1:], "--out", str(out)]) == REFUSED
    err = capsys.readouterr().err
    assert argv[1] in err and "multiple-choice items" in err
    assert not out.exists()
