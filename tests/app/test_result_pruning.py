"""A starting server keeps the computed results within ARTIFACT_LENS_RESULTS_MB (`core.base.result_store`):
results of an older format go, then the least recently used; a file the tool did not name is
never touched."""
import os

import numpy as np

from artifact_lens.base.keys import ResultKey


def test_a_starting_server_prunes_old_formats_and_the_least_recent(fresh_server, monkeypatch):
    from artifact_lens.base.result_store import ResultStore
    from artifact_lens.results.runs import STORE_FORMAT
    from artifact_lens.dashboard.process.shared import server

    runs = fresh_server / "runs"
    current = ResultStore(runs, suffix=".npz", format=STORE_FORMAT, what="run")
    older = ResultStore(runs, suffix=".npz", format=STORE_FORMAT - 1, what="run")
    for i in range(5):   # 5 "runs" of 1 MB, oldest first
        path = current.save(ResultKey(f"run{i}"), lambda fh: np.save(fh, np.zeros(125_000)))
        os.utime(path, (1000 + i, 1000 + i))
    stale = older.save(ResultKey("run9"), lambda fh: fh.write(b"old"))
    mine = runs / "notes.npz"                    # a user's file beside them, named like nothing the tool makes
    mine.write_bytes(b"keep me")
    (runs / "quality").mkdir()
    theirs = runs / "quality" / "table.v1.parquet.bak"
    theirs.write_bytes(b"and me")
    from artifact_lens.representations.common import stores

    vectors, _ = stores(fresh_server / "representations" / "abc123")
    old_phi = ResultStore(vectors.root, suffix=".npy", format=vectors.format + 1, what="representation")
    old_phi = old_phi.save(ResultKey("phi"), lambda fh: fh.write(b"made by a newer version"))
    phi = vectors.save(ResultKey("phi"), lambda fh: np.save(fh, np.zeros(10)))
    os.utime(phi, (2000, 2000))
    monkeypatch.setenv("ARTIFACT_LENS_RESULTS_MB", "3.5")
    srv = server()                               # a starting server prunes in a thread
    srv.pruning.join(timeout=120)
    assert not srv.pruning.is_alive()
    assert not stale.exists()
    assert current.keys() == ["run2", "run3", "run4"]           # the two least recent went
    assert not old_phi.exists() and phi.exists()                 # Φs too: another format goes, the recent stays
    assert mine.read_bytes() == b"keep me" and theirs.read_bytes() == b"and me"
    again = srv.prune()                                            # nothing left to do
    assert (again["outdated"], again["least_recent"], again["bytes_freed"]) == (0, 0, 0)
    assert again["bytes_left"] <= 3.5e6
