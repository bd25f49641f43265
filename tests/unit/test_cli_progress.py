"""`artifact-lens aflite` reports each phase on stderr: its seconds, |S| and an ETA."""
import re

import numpy as np
import pandas as pd
import pytest

from artifact_lens.cli import PhaseLog, main

PHASE = re.compile(r"aflite phase (\d+)/(\d+): \|S\| ([\d,]+) → ([\d,]+) \(removed ([\d,]+)\) in ([\d.]+) s; "
                   r"(ETA (≤ )?(\d+ s|\d+ min \d+ s|\d+ h \d+ min) \((\d+) phases × [\d.]+ s\)|stopped \(.*\))")


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 8)).astype(np.float32)
    X[:, 0] += 1.5 * y
    pd.DataFrame({"id": [f"r{i}" for i in range(n)], "text": [f"t {i}" for i in range(n)],
                  "label": y}).to_csv(tmp_path / "d.csv", index=False)
    np.save(tmp_path / "emb.npy", X)
    return tmp_path


def _run(data, capsys, *extra):
    code = main(["--cache-dir", str(data / "cache"), "aflite", str(data / "d.csv"), "--id", "id", "--text", "text",
                 "-r", f"file:path={data / 'emb.npy'}", "--m", "4", "--k", "0.05", "--target-size", "0.7",
                 "--out", str(data / "s.csv"), *extra])
    assert code == 0
    return capsys.readouterr().err


def test_each_phase_line_has_its_seconds_size_and_an_eta(data, capsys):
    err = _run(data, capsys, "--tau", "0")
    lines = [m for m in (PHASE.search(l) for l in err.splitlines()) if m]
    assert len(lines) == 6                                # (400 - 280) / 20 phases
    assert [int(m.group(1)) for m in lines] == list(range(1, 7))
    assert all(m.group(2) == "6" for m in lines)
    sizes = [int(m.group(3).replace(",", "")) for m in lines]
    assert sizes == [400, 380, 360, 340, 320, 300]
    assert all(int(m.group(5)) == 20 for m in lines)
    # phases left in the ETA count down to the last phase, which says why it stopped
    assert [int(m.group(10)) for m in lines[:-1]] == [5, 4, 3, 2, 1]
    assert all(m.group(8) is None for m in lines[:-1])     # τ = 0: the ETA is exact, not an upper bound
    assert "stopped (reached n)" in lines[-1].group(7)
    assert re.search(r"aflite: set-up \(checking X, centring, block Gram matrices\) [\d.]+ s", err)
    assert re.search(r"representation: 400 × 8 float32 \(12800 bytes\), memory-mapped from .*emb\.npy", err)


def test_eta_is_an_upper_bound_with_tau_and_quiet_prints_nothing(data, capsys):
    err = _run(data, capsys, "--tau", "0.5")
    first = next(m for m in (PHASE.search(l) for l in err.splitlines()) if m)
    assert first.group(8) == "≤ "
    assert "aflite phase" not in _run(data, capsys, "-q")


def test_eta_is_phases_left_times_the_recent_mean():
    lines = []
    log = PhaseLog(N=1000, n=500, k=10, tau=0.0, write=lines.append, window=2)
    for j, secs in enumerate([100.0, 10.0, 20.0]):
        log({"phase": j, "size": 1000 - 10 * j, "removed": 10, "seconds": secs, "stop_reason": None})
    # after phase 3: |S| = 970, 47 phases left, mean of the last two = 15 s -> 705 s
    assert lines[-1].endswith("ETA 11 min 45 s (47 phases × 15.0 s)")
    assert "phase 3/50" in lines[-1]
