"""Run files cannot be lost: writers killed at random points while re-saving the same keys."""
import dataclasses
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd

from core.dataset import Dataset
from core.runs import RunStore, fit_run

WRITER = r"""
import random, sys
from core.runs import Run, RunStore
store = RunStore(sys.argv[1])
runs = [Run.load(p) for p in sys.argv[2:]]
print("ready", flush=True)
rng = random.Random()
while True:
    store.put(rng.choice(runs))
"""


def _runs(tmp_path, count=5):
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 8)).astype(np.float32)
    X[:, 0] += y
    table = pd.DataFrame({"text": [f"t{i}" for i in range(n)], "label": np.array(["a", "b", "c"])[y]},
                         index=pd.Index([f"e{i}" for i in range(n)], name="id"))
    ds = Dataset(table=table, label="label", text=["text"], name="toy")
    rep = type("Rep", (), {"X": X, "ids": table.index.to_numpy(), "excluded_ids": [], "spec": "toy", "info": {}})
    base = fit_run(ds, rep, dict(n_partitions=8, train_size=0.1, slice_size=0.02, tau=0.0, target_size=0.3))
    # the same trajectory under five keys (the key hashes the parameters)
    return [dataclasses.replace(base, params={**base.params, "random_state": i}) for i in range(count)]


def _start(root, seeds):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(root), *map(str, seeds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_twenty_kills_of_four_writers_lose_nothing(tmp_path):
    runs = _runs(tmp_path)
    seeds = [r.save(tmp_path / "seeds" / f"{i}.npz") for i, r in enumerate(runs)]
    root = tmp_path / "runs"
    store = RunStore(root)
    for r in runs:                      # every key complete once before the chaos
        store.put(r)
    expected = {r.key: r for r in runs}
    chooser = random.Random(0)
    writers = [_start(root, seeds) for _ in range(4)]
    try:
        for _ in range(20):
            time.sleep(chooser.uniform(0.02, 0.25))
            i = chooser.randrange(len(writers))
            os.kill(writers[i].pid, signal.SIGKILL)
            writers[i].wait()
            writers[i] = _start(root, seeds)
    finally:
        for w in writers:
            w.kill()
            w.wait()
    leftovers = [p.name for p in root.iterdir() if p.name.startswith(".")]
    reopened = RunStore(root)          # a server start-up: temporaries of dead writers go
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == []
    assert sorted(reopened.keys()) == sorted(expected)
    for key, run in expected.items():
        back = reopened.get(key)        # never missing, never corrupt
        assert back is not None and back.key == key
        np.testing.assert_array_equal(back.retained, run.retained)
        np.testing.assert_array_equal(back.predictability, run.predictability)
    # the kills did land in the middle of writes (otherwise this test proves little)
    print(f"temporary files left by killed writers: {len(leftovers)}")
