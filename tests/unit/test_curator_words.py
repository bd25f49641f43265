"""Words a curator stumbles on (issue 45, the team's walk, item 7): the card's certificate table
gives numbers a person reads (not 0.40674327566611945) and says what a negative V-information
means; ``artifact-lens pvi DATA`` prints its summary without ``--out``."""
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from artifact_lens.exports.card import NO_INFORMATION, dataset_card


def _measure(value, stderr):
    return {"value": value, "stderr": stderr, "worse": "higher", "artifact": True, "unit": "x", "description": "d"}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(-2, 2, allow_nan=False), st.floats(0, 1, allow_nan=False))
def test_the_cards_certificate_table_reads_like_a_persons_numbers(value, stderr):
    certificate = {"certificate_format": 1, "dataset": {"fingerprint": "0" * 16},
                   "measures": {"v_information.partial": _measure(value, stderr),
                                "partial_input.accuracy": _measure(0.40674327566611945, 0.004)}}
    text = str(dataset_card({"dataset": {"name": "snli"}, "export": {"rows": 10}}, certificate=certificate))
    rows = [line for line in text.splitlines() if line.startswith("| d |")]
    assert rows and "| d | 0.407 | 0.004 |" in rows
    for row in rows:
        assert all(re.fullmatch(r"-?[0-9,]+\.[0-9]{3}|–", cell.strip()) for cell in row.split("|")[2:4]), row
    assert (NO_INFORMATION in text) == (round(value, 3) < 0)   # as shown: -0.000 is not negative
    assert "-0.000" not in text


def test_pvi_prints_its_summary_without_out(tmp_path, capsys):
    from artifact_lens.cli import main
    from artifact_lens.data.demos import make_nli

    make_nli(n=120, random_state=0).table.reset_index().to_csv(tmp_path / "d.csv", index=False)
    assert main(["pvi", str(tmp_path / "d.csv"), "--folds", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("full input (") and "V-information" in out and "wrote" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from([None, float("nan"), "", "  ", "-", "a", "b", "<b>neutral</b>", "=HYPERLINK(\"x\")",
                                 "+1", "@sum", "-x", "-1"]), min_size=2, max_size=20))
def test_label_messages_say_what_a_person_sees(cells):
    """Empty labels were listed as "(values nan)"; labels that read as HTML or a formula became classes
    without a word. A dropped empty label is "an empty cell"; a markup or formula label is named."""
    import numpy as np
    import pandas as pd

    from artifact_lens.base.errors import InputError
    from artifact_lens.data.sources import load_dataset

    frame = pd.DataFrame({"hypothesis": [f"h{i}" for i in range(len(cells) + 2)],
                          "label": list(cells) + ["a", "b"]})
    try:
        ds = load_dataset(frame)
    except InputError:
        return
    said = " ".join(ds.messages)
    assert "nan" not in said.lower().replace("an empty cell", "")
    empty = [c for c in cells if c is None or (isinstance(c, float) and np.isnan(c)) or not str(c).strip()]
    assert ("an empty cell" in said) == bool(empty)
    odd = {c for c in cells if c in ("<b>neutral</b>", "=HYPERLINK(\"x\")", "+1", "@sum", "-x")}
    assert ("look like HTML markup or a spreadsheet formula" in said or "looks like HTML markup" in said) == bool(odd)
