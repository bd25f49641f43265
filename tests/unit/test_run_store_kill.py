"""Run files cannot be lost: writers killed at random points while re-saving the same keys."""
import dataclasses
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from artifact_lens.results.runs import RunStore
from scale import scaled

pytestmark = pytest.mark.durability   # kills processes for half a minute: the full tier, not the pre-commit one

WRITER = r"""
import random, sys
from artifact_lens.results.runs import Run, RunStore
store = RunStore(sys.argv[1])
runs = [Run.load(p) for p in sys.argv[2:]]
print("ready", flush=True)
rng = random.Random()
while True:
    store.put(rng.choice(runs))
"""


def _runs(toy_run, count=5):
    # the same trajectory under five keys (the key hashes the parameters)
    base = toy_run[1]
    return [dataclasses.replace(base, params={**base.params, "random_state": i}) for i in range(count)]


def _start(root, seeds):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(root), *map(str, seeds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_kills_of_four_writers_lose_nothing(tmp_path, toy_run):
    """20 SIGKILLs mid-write under `make test-stress`, 6 in `make test`."""
    runs = _runs(toy_run)
    seeds = [r.save(tmp_path / "seeds" / f"{i}.npz") for i, r in enumerate(runs)]
    root = tmp_path / "runs"
    store = RunStore(root)
    for r in runs:                      # every key complete once before the chaos
        store.put(r)
    expected = {r.key: r for r in runs}
    chooser = random.Random(0)
    writers = [_start(root, seeds) for _ in range(4)]
    try:
        for _ in range(scaled(20, 6)):
            time.sleep(chooser.uniform(0.02, 0.25))
            i = chooser.randrange(len(writers))
            os.kill(writers[i].pid, signal.SIGKILL)
            writers[i].wait()
            writers[i] = _start(root, seeds)
    finally:
        for w in writers:
            w.kill()
            w.wait()
    leftovers = [p.name for p in root.iterdir() if p.name.endswith(".tmp")]
    reopened = RunStore(root)          # a server start-up: temporaries of dead writers go
    assert sorted(p.name for p in root.iterdir() if p.name.endswith(".tmp")) == []   # temporaries of dead writers
    assert sorted(reopened.keys()) == sorted(expected)
    for key, run in expected.items():
        back = reopened.get(key)        # never missing, never corrupt
        assert back is not None and back.key == key
        np.testing.assert_array_equal(back.retained, run.retained)
        np.testing.assert_array_equal(back.predictability, run.predictability)
    # the kills did land in the middle of writes (otherwise this test proves little)
    print(f"temporary files left by killed writers: {len(leftovers)}")
