"""The check's verdict is read one way (issue 54): `core.certificate.gate.verdict` says which measures
fail and which warn, and ``check``'s exit status and JSON, the Evaluate page and the evaluation report
all read it. Before, the CLI tested ``ok == False`` and the page ``status == "fail"``."""
import ast
import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.certificate.gate import compare, verdict
from artifact_lens.certificate.schema import write_certificate
from test_certificate import certificates

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_certificate():
    from artifact_lens.certificate.measures import certify
    from artifact_lens.data.sources import load_dataset

    return certify(load_dataset("demo:nli:n=300"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(certificates, st.just(None)), st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=20),
       st.booleans())
def test_check_exits_and_writes_what_the_verdict_says(tmp_path, demo_certificate, baseline, shifts, gate):
    """Over generated certificates and the demo's real one, whose measures a rule gates (by default
    only the cue table does), so that some candidates fail, some warn and some pass."""
    from artifact_lens.cli import main
    from artifact_lens.certificate.gate import read_rules

    rules = []
    if baseline is None and gate:
        (tmp_path / "rules.toml").write_text('["partial_input.accuracy"]\nmax_rise = 0.01\n')
        rules = ["--rules", str(tmp_path / "rules.toml")]
    baseline = baseline or demo_certificate
    candidate = copy.deepcopy(baseline)
    for (name, m), shift in zip(sorted(candidate["measures"].items()), shifts):
        if m["value"] is not None:
            m["value"] = m["value"] + shift * (m["stderr"] or 1.0) * 10
    write_certificate(baseline, tmp_path / "b.json")
    write_certificate(candidate, tmp_path / "c.json")
    said = verdict(compare(baseline, candidate, read_rules(rules[1]) if rules else None))
    out = tmp_path / "check.json"
    out.unlink(missing_ok=True)
    status = main(["-q", "check", str(tmp_path / "b.json"), str(tmp_path / "c.json"), "--json", str(out), *rules])
    written = json.loads(out.read_text())
    assert status == said.exit_status == written["exit_status"] and written["passed"] == said.passed
    assert {m["measure"] for m in written["measures"] if m["status"] == "fail"} == set(said.failed)


def test_no_front_end_reads_the_gate_table_s_verdict_itself():
    """Only `verdict` reads a compare table's ``ok``/``status`` for the outcome."""
    readers = []
    for folder in ("core", "dashboard", "pages"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "gate.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Compare) and isinstance(node.left, ast.Subscript) and \
                        isinstance(node.left.slice, ast.Constant) and node.left.slice.value in ("ok", "status") and \
                        any(isinstance(c, ast.Constant) and c.value in (False, "fail", "warn") for c in node.comparators):
                    readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not readers, readers
