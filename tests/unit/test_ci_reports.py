"""`check`'s results in the shapes CI systems read (issue 56, item 3): JUnit XML read back by a
maintained parser (junitparser), GitHub annotations that stay one command each whatever a cue's
text holds, and a job summary cut under 1 MiB with a line saying so."""
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.base.escaping import visible_text
from artifact_lens.certificate.ci_reports import ANNOTATIONS_MAX, SUMMARY_MAX, github_annotations, junit_xml, step_summary


def _table(cues: list, warn: bool = False) -> pd.DataFrame:
    """A `compare` table: two gated measures (one may warn), the cue measure, and ``cues`` as
    (feature, label) new cues, strongest first."""
    rows = [("mc.degenerate", "pass", 0.0, 0.0, "within the rule"),
            ("mc.options_only.accuracy", "warn" if warn else "pass", 0.5, 0.6, "rose by 0.1"),
            ("cues.new_or_stronger", "fail" if cues else "pass", None, len(cues), "cues"),
            ("zstats.z_max", "not gated", 3.0, 4.0, "information")]
    table = pd.DataFrame([{"measure": m, "status": s, "before": b, "after": a, "change": None, "allowed": 0.01,
                           "why": w, "ok": s != "fail"} for m, s, b, a, w in rows])
    table.attrs["cues"] = pd.DataFrame([{"feature": f, "label": lab, "support_before": None, "share_before": None,
                                         "chance": 0.33, "support_after": 40 + i, "share_after": 0.9, "excess_before": 0.0,
                                         "excess_after": 0.01, "test": "share", "z": 30.0 - i, "line": 4.0}
                                        for i, (f, lab) in enumerate(cues)])
    return table


text = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(cues=st.lists(st.tuples(text, text), max_size=14), warn=st.booleans(), fail_on=st.sampled_from(["fail", "warn"]))
def test_junit_reads_back_with_one_case_per_gated_measure_and_cue(cues, warn, fail_on):
    from junitparser import Failure, JUnitXml

    xml = junit_xml(_table(cues, warn), fail_on)
    suites = JUnitXml.fromstring(xml.encode("utf-8"))
    cases = [case for suite in suites for case in suite]
    assert len(cases) == 3 + len(cues)    # the three gated measures (not the shown one) and each cue
    failed = {case.name for case in cases if any(isinstance(r, Failure) for r in case.result)}
    expected = {"cues.new_or_stronger"} if cues else set()
    if warn and fail_on == "warn":
        expected.add("mc.options_only.accuracy")
    cue_cases = [case for case in cases if case.classname == "certificate.cues"]
    assert {c.name for c in cases if c.classname == "certificate.measures"} & failed == expected
    assert len(cue_cases) == len(cues) and all(c.name in failed for c in cue_cases)


@settings(max_examples=80, deadline=None)
@given(cues=st.lists(st.tuples(text, text), max_size=14), warn=st.booleans())
def test_annotations_are_at_most_ten_strongest_cue_first_each_one_line(cues, warn):
    lines = github_annotations(_table(cues, warn))
    assert len(lines) <= ANNOTATIONS_MAX
    for line in lines:
        assert "\n" not in line and "\r" not in line
        kind, _, rest = line[2:].partition(" title=")
        assert kind in ("error", "warning")
        title, sep, message = rest.partition("::")
        assert sep and ":" not in title and "," not in title   # a property holds no raw ':' or ','
    if cues:
        first = lines[0].split("::", 2)[2]
        decoded = first.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
        # what the cue holds, shown (issue 63, item 12: controls as escapes, direction controls by code point)
        assert f"'{visible_text(cues[0][0])}' → {visible_text(cues[0][1])}" in decoded and "of 40" in decoded


def test_the_summary_is_cut_under_a_mebibyte_with_a_line_saying_so():
    small = "### Artifact certificate\n| a | b |\n"
    assert step_summary(small) == small
    big = "".join(f"| cue {i} | {'x' * 200} |\n" for i in range(20000))
    cut = step_summary(big)
    assert len(cut.encode("utf-8")) < 1024 * 1024 and len(cut.encode("utf-8")) <= SUMMARY_MAX
    assert cut.rstrip().endswith("--json and --markdown files.") and "more lines cut" in cut
    assert big.startswith(cut.split("\n…")[0])


def test_check_writes_junit_and_speaks_to_github(tmp_path, monkeypatch, capsys):
    from junitparser import JUnitXml

    from artifact_lens.certificate.measures import certify
    from artifact_lens.certificate.schema import write_certificate
    from artifact_lens.cli import main
    from artifact_lens.data.demos import make_choices

    for name, share in (("base", 0.0), ("planted", 0.3)):
        write_certificate(certify(make_choices(n=400, position_share=share, length_share=0.0, seed=1), folds=3),
                          tmp_path / f"{name}.json")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "report.xml"
    assert main(["-q", "check", str(tmp_path / "base.json"), str(tmp_path / "planted.json"), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("::error title=Artifact certificate%3A new cue [position A]::")
    assert summary.read_text().startswith("earlier step\n### Artifact certificate: **failed**")   # appended to
    names = {case.name for suite in JUnitXml.fromfile(str(junit)) for case in suite}
    assert "[position A] → gold" in names and "mc.gold_position.max_share" in names
