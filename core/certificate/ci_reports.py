"""`check`'s verdict in the shapes CI systems read (issue 56): JUnit XML, which every CI system
renders; GitHub's workflow commands, at most `ANNOTATIONS_MAX` annotations so the new cue shows on
the pull request; and the job summary, cut under `SUMMARY_MAX` bytes with a line saying what was cut.

Each format escapes what a cue carries (a feature, a label: text from the data) by its own rules:
XML by its entities, with the characters XML 1.0 cannot hold written as ``\\xNN``; a workflow
command's message by ``%``, ``\\r`` and ``\\n``, and its properties by ``:`` and ``,`` too (GitHub's
runner reads ``%0A`` as a new line, not a newline as the end of the command)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from ..base.escaping import visible_text, xml_text

__all__ = ["junit_xml", "github_annotations", "step_summary", "ANNOTATIONS_MAX", "SUMMARY_MAX"]

#: GitHub shows at most 10 annotations of each kind per step
ANNOTATIONS_MAX = 10
#: GitHub refuses a job summary of 1 MiB or more
SUMMARY_MAX = 1024 * 1024 - 4096

def _xml_text(value) -> str:
    """A value in JUnit XML: what it holds shown on one line (`visible_text`: a carriage return or an
    escape code as its escape, a reordering character by its code point), as XML 1.0 text."""
    return xml_text(visible_text(value))


def _number(v) -> str:
    return "–" if v is None or v != v else f"{v:.4g}"


def _cue_message(c) -> str:
    before = "absent" if c.share_before is None or c.share_before != c.share_before else \
        f"{c.share_before:.2f} of {int(c.support_before):,}"
    return (f"new or stronger cue '{c.feature}' → {c.label}: share {before} → {c.share_after:.2f} of "
            f"{int(c.support_after):,} (chance {c.chance:.2f}), z {c.z:.1f} over the line {c.line:.2f}")


def junit_xml(table, fail_on: str = "fail") -> str:
    """One test case per gated measure and per new or stronger cue of a `compare` table: a failure
    where the check fails it (with ``fail_on="warn"``, where it warns too), with the numbers in the
    message; a warning that does not fail is the case's ``system-out``."""
    failing = {"fail", "warn"} if fail_on == "warn" else {"fail"}
    suite = ET.Element("testsuite", name="artifact-certificate")
    cases = failures = 0
    for r in table.itertuples(index=False):
        if r.status == "not gated":
            continue
        case = ET.SubElement(suite, "testcase", classname="certificate.measures", name=_xml_text(r.measure))
        cases += 1
        message = (f"{r.measure}: before {_number(r.before)}, after {_number(r.after)}, change {_number(r.change)}, "
                   f"allowed {_number(r.allowed)}: {r.why}")
        if r.status in failing:
            ET.SubElement(case, "failure", message=_xml_text(message), type=r.status).text = _xml_text(message)
            failures += 1
        elif r.status == "warn":
            ET.SubElement(case, "system-out").text = _xml_text("warn: " + message)
    cues = table.attrs.get("cues")
    for c in ([] if cues is None else cues.itertuples(index=False)):
        case = ET.SubElement(suite, "testcase", classname="certificate.cues", name=_xml_text(f"{c.feature} → {c.label}"))
        message = _xml_text(_cue_message(c))
        ET.SubElement(case, "failure", message=message, type="cue").text = message
        cases += 1
        failures += 1
    suite.set("tests", str(cases))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    root = ET.Element("testsuites", tests=str(cases), failures=str(failures), errors="0")
    root.append(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _command_data(text: str) -> str:
    """A workflow command's message: what it holds shown (`visible_text`: an escape code or a
    right-to-left override from the data is not obeyed in the log or the annotation), then the
    runner's own escapes."""
    return visible_text(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _command_property(text: str) -> str:
    return _command_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(table, fail_on: str = "fail", limit: int = ANNOTATIONS_MAX) -> list:
    """GitHub workflow commands (``::error title=…::…``, ``::warning …``), at most ``limit``: the new
    or stronger cues first, strongest first, each naming the cue, its label and its examples' count;
    then the measures that failed; then, room left, those that warned."""
    out = []
    cues = table.attrs.get("cues")
    for c in ([] if cues is None else cues.itertuples(index=False)):
        out.append(f"::error title={_command_property('Artifact certificate: new cue ' + str(c.feature))}::"
                   f"{_command_data(_cue_message(c))}")
    for status, kind in (("fail", "error"), ("warn", "error" if fail_on == "warn" else "warning")):
        for r in table.itertuples(index=False):
            if r.status == status and r.measure != "cues.new_or_stronger":
                out.append(f"::{kind} title={_command_property('Artifact certificate: ' + str(r.measure))}::"
                           f"{_command_data(f'{r.measure}: before {_number(r.before)}, after {_number(r.after)}: {r.why}')}")
    return out[:int(limit)]


def step_summary(markdown: str, limit: int = SUMMARY_MAX) -> str:
    """``markdown`` for ``$GITHUB_STEP_SUMMARY``: whole when under ``limit`` bytes, else cut at a line
    with a last line saying how many lines were cut and where the whole is."""
    blob = markdown.encode("utf-8")
    if len(blob) <= limit:
        return markdown
    lines, kept, size = markdown.splitlines(keepends=True), [], 0
    for line in lines:
        size += len(line.encode("utf-8"))
        if size > limit - 512:
            break
        kept.append(line)
    return "".join(kept) + (f"\n… {len(lines) - len(kept):,} more lines cut (a job summary holds under 1 MiB); "
                            "the whole result is in check's --json and --markdown files.\n")
