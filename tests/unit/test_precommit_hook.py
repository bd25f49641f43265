"""Issue 56, item 5: the gate as a pre-commit hook. ``pre-commit try-repo`` installs this checkout's
hook (``.pre-commit-hooks.yaml``) as pre-commit installs any hook, into an environment of its own,
and runs it in a throwaway dataset repository: a commit whose data carries a planted cue is refused
with the cue named; a clean change to the data passes.

Offline: pre-commit's environment sees this Python's packages (virtualenv's
``VIRTUALENV_SYSTEM_SITE_PACKAGES``), so pip installs the hook's package from the checkout and
finds every dependency already there (``PIP_NO_INDEX``; the build uses the installed setuptools)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scale import patience

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _run(argv, cwd, env) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=patience(600))


@pytest.fixture
def dataset_repo(tmp_path) -> tuple:
    """A git repository holding a data file and the baseline certificate committed beside it."""
    if shutil.which("git") is None:
        pytest.fail("git is not installed: the hook's test needs it (as pre-commit does)")
    from artifact_lens.cli import main
    from artifact_lens.data.demos import make_nli

    repo = tmp_path / "dataset"
    repo.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PIP_", "VIRTUALENV_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), VIRTUALENV_SYSTEM_SITE_PACKAGES="1",
               PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0", HF_HUB_OFFLINE="1",
               ARTIFACT_LENS_CACHE=str(tmp_path / "cache"), GIT_AUTHOR_NAME="c", GIT_AUTHOR_EMAIL="c@example.org",
               GIT_COMMITTER_NAME="c", GIT_COMMITTER_EMAIL="c@example.org")
    make_nli(n=400, random_state=3).table[["premise", "hypothesis", "label"]].to_csv(repo / "data.csv", index=False)
    assert main(["-q", "--cache-dir", str(tmp_path / "cache"), "certify", str(repo / "data.csv"), "--out",
                 str(repo / "data.certificate.json")]) == 0
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "the data"]):
        assert _run(argv, repo, env).returncode == 0
    return repo, env


def _try_hook(repo, env) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "artifact-certificate"], repo, env)


def test_the_manifest_declares_the_hook_on_the_gate():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "artifact-certificate" and hook["language"] == "python"
    assert hook["entry"] == "artifact-lens gate" and hook["args"] == ["--"]   # file names after --, dashes and all
    import re

    data = re.compile(hook["files"])
    assert all(data.search(f) for f in ("train.jsonl", "d/dev.csv", "x.tsv", "y.parquet", "z.jsonl.gz"))
    assert not any(data.search(f) for f in ("data.certificate.json", "README.md", "card.yaml"))


def test_a_commit_that_plants_a_cue_is_refused_and_a_clean_one_passes(dataset_repo):
    repo, env = dataset_repo
    table = pd.read_csv(repo / "data.csv")

    # a cue: "indeed" ends most of one label's hypotheses
    planted = table.copy()
    rows = (planted["label"] == "neutral") & (np.random.default_rng(0).random(len(planted)) < 0.6)
    planted.loc[rows, "hypothesis"] = planted.loc[rows, "hypothesis"] + " indeed"
    planted.to_csv(repo / "data.csv", index=False)
    assert _run(["git", "add", "data.csv"], repo, env).returncode == 0
    refused = _try_hook(repo, env)
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0, said[-4000:]
    assert "artifact certificate" in said and "Failed" in said and "exit code: 1" in said, said[-4000:]
    assert "indeed@hypothesis" in said and "→ neutral" in said, said[-4000:]

    # a clean change: some rows dropped and the rest reordered
    clean = table.drop(index=table.index[::25]).sample(frac=1.0, random_state=1)
    clean.to_csv(repo / "data.csv", index=False)
    assert _run(["git", "add", "data.csv"], repo, env).returncode == 0
    passed = _try_hook(repo, env)
    said = passed.stdout + passed.stderr
    assert passed.returncode == 0, said[-4000:]
    assert "artifact certificate" in said and "Passed" in said, said[-4000:]


def test_a_data_file_without_a_baseline_beside_it_is_refused_with_the_fix(dataset_repo):
    repo, env = dataset_repo
    pd.read_csv(repo / "data.csv").to_csv(repo / "more.csv", index=False)
    assert _run(["git", "add", "more.csv"], repo, env).returncode == 0
    refused = _try_hook(repo, env)
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0 and "exit code: 2" in said, said[-4000:]
    assert "more.certificate.json is not a file" in said and "artifact-lens certify more.csv" in said, said[-4000:]


def test_each_data_file_keeps_its_own_baseline_beside_it():
    """Issue 63, item 11: snli.train.jsonl and snli.dev.jsonl were both gated against snli.certificate.json."""
    from artifact_lens.cli.gate import baseline_beside

    assert baseline_beside("data/snli.train.jsonl") == Path("data/snli.train.certificate.json")
    assert baseline_beside("data/snli.dev.jsonl") == Path("data/snli.dev.certificate.json")
    assert baseline_beside("data/train.jsonl.gz") == Path("data/train.certificate.json")
    assert baseline_beside("-train.csv") == Path("-train.certificate.json")
    assert baseline_beside(".hidden.csv") == Path(".hidden.certificate.json")
