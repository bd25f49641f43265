"""The GitHub Action (issue 56, item 4): its shell step run as GitHub would run it, in a throwaway
dataset repository with a fake GitHub environment (the files for the step summary and the outputs),
on a clean change and on a planted cue."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _step(name: str) -> dict:
    steps = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]
    return next(s for s in steps if s.get("name") == name)


def _run_check_step(repo: Path, inputs: dict) -> tuple:
    """(exit status, stdout, the summary, the outputs) of the action's "Certify and check" step."""
    step = _step("Certify and check")
    defaults = {k: v.get("default", "") for k, v in
                yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"].items()}
    values = {**defaults, **inputs}

    def expand(text):   # ${{ inputs.x }} and ${{ github.action_path }}, as the runner fills them
        text = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: str(values[m.group(1)]), str(text))
        return text.replace("${{ github.action_path }}", str(ROOT))

    summary, outputs = repo / "summary.md", repo / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    # the runner's PATH holds the tool the action installed: here, this Python's scripts
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, **{k: expand(v) for k, v in step["env"].items()}, "PATH": path, "GITHUB_ACTIONS": "true",
           "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), "HF_HUB_OFFLINE": "1"}
    # as GitHub runs a `shell: bash` step: `bash --noprofile --norc -eo pipefail {0}` on a script file
    script = repo / "step.sh"
    script.write_text(expand(step["run"]))
    assert step["shell"] == "bash"
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout, summary.read_text(encoding="utf-8"), outputs.read_text()


@pytest.fixture
def repo(tmp_path):
    from artifact_lens.certificate.measures import certify
    from artifact_lens.certificate.schema import write_certificate
    from artifact_lens.data.demos import make_choices

    folder = tmp_path / "dataset-repo"
    (folder / "data").mkdir(parents=True)
    for name, share in (("clean", 0.0), ("planted", 0.3)):
        ds = make_choices(n=400, position_share=share, length_share=0.0, seed=4)
        ds.choices.rows.to_json(folder / "data" / f"{name}.jsonl", orient="records", lines=True)
    base = certify(make_choices(n=400, position_share=0.0, length_share=0.0, seed=4))
    write_certificate(base, folder / "certificate.json")
    return folder


def test_the_action_passes_a_clean_change_and_fails_a_planted_cue_with_its_reports(repo):
    status, out, summary, outputs = _run_check_step(repo, {"data": "data/clean.jsonl", "baseline": "certificate.json"})
    assert status == 0, out
    assert "passed=true" in outputs and "Artifact certificate: passed" in summary
    assert not [line for line in out.splitlines() if line.startswith("::error")]
    for name in ("certificate.json", "junit.xml", "check.json", "summary.md"):
        assert (repo / "artifact-certificate" / name).is_file(), name

    status, out, summary, outputs = _run_check_step(repo, {"data": "data/planted.jsonl", "baseline": "certificate.json",
                                                           "out": "planted-report"})
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert status == 1 and "passed=false" in outputs
    assert 1 <= len(annotations) <= 10 and "[position A]" in annotations[0]
    assert "**failed**" in summary and len(summary.encode("utf-8")) < 1024 * 1024
    rows = (repo / "planted-report" / "cue-rows.csv").read_text()
    assert "[position A]" in rows


def test_a_refused_gate_still_reports_passed_false_and_a_dashed_name_is_a_file(repo):
    """Issue 63, item 11: under `bash -eo pipefail` a failing or refused gate ended the step before
    ``passed=false`` was written, and a data file named ``-train.jsonl`` was read as an option."""
    (repo / "data" / "clean.jsonl").rename(repo / "-clean.jsonl")
    status, out, summary, outputs = _run_check_step(repo, {"data": "-clean.jsonl", "baseline": "certificate.json"})
    assert status == 0 and "passed=true" in outputs, out
    status, out, summary, outputs = _run_check_step(repo, {"data": "no-such-file.jsonl", "baseline": "certificate.json"})
    assert status == 2 and outputs.strip() == "passed=false", out
