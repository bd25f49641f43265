"""Error lines (issue 45, sweep item 4): every ``error:`` line passes through the redaction of
secrets, which was quadratic in a long run of letters and digits (a 120k-character ``--label``
took 86 s). `printable` now finds each ``://`` once; here it is checked against the regular
expressions it replaces on generated text (`redaction_reference`), and a long message is cut in
its middle, keeping the problem and the fix. Its speed is measured in
``benchmarks/redaction_bench.py``, not asserted here."""
from hypothesis import given, settings
from hypothesis import strategies as st

from artifact_lens.base.escaping import MESSAGE_MAX, cut_middle
from artifact_lens.base.settings import printable, printable_message

from redaction_reference import reference_printable

#: pieces that make URLs, near-URLs and secrets when strung together
PIECES = st.sampled_from(["://", "http", "postgresql+psycopg", "1", "a", "Z", "_", "-", ".", "+", "@", ":", "/",
                          "?", "&", ";", "#", "=", "password", "PASS", "pwd", "secret", "token", "apikey", "key",
                          " ", "'", '"', "<", ">", "\n", "%", "[", "]", "é", "h.example.org", "5432"])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_printable_hides_what_the_reference_hides_and_nothing_else(text):
    assert printable(text) == reference_printable(text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=80))
def test_printable_agrees_with_the_reference_on_any_text(text):
    assert printable(text) == reference_printable(text)


@given(st.text(min_size=0, max_size=6000))
def test_a_long_message_is_cut_in_its_middle_and_keeps_both_ends(text):
    shown = cut_middle(text)
    if len(text) <= MESSAGE_MAX:
        assert shown == text
    else:
        assert len(shown) < MESSAGE_MAX + 60 and shown.startswith(text[:MESSAGE_MAX // 2])
        assert shown.endswith(text[-(MESSAGE_MAX // 2):]) and f"[{len(text) - MESSAGE_MAX:,} characters not shown]" in shown


def test_the_cli_error_line_for_a_huge_label_is_short_and_names_the_fix(tmp_path, capsys):
    """The hostile sweep's case: a 120k-character ``--label`` (86 s before) on a file without that
    column. The line is printed cut, its end (the fix) kept."""
    from artifact_lens.cli import main

    data = tmp_path / "d.csv"
    data.write_text("premise,hypothesis,label\na,b,x\nc,d,y\n", encoding="utf-8")
    assert main(["zstats", str(data), "--label", "L" * 120_000, "--out", str(tmp_path / "z.csv")]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith("error: ") and len(line) < MESSAGE_MAX + 80 and "characters not shown" in line
    assert printable_message("x" * 10) == "x" * 10
