"""The dashboard's bounded cache: LRU order, byte accounting, one computation per key."""
import threading
import time

import numpy as np
import pandas as pd
import pytest

from artifact_lens.base.errors import InputError

from artifact_lens.dashboard.process.cache import BoundedCache, default_budget, sizeof

from artifact_lens.base.keys import data_key


def K(name):
    """A key for a test's entry (the cache takes `core.base.keys` keys only)."""
    return data_key(repr(name))


def test_sizeof_counts_arrays_frames_and_objects():
    a = np.zeros(1000, dtype=np.float32)
    assert sizeof(a) == 4000
    frame = pd.DataFrame({"x": np.zeros(100), "t": ["word"] * 100})
    assert sizeof(frame) >= 800 + 100 * len("word")

    class Holder:
        def __init__(self):
            self.X = np.zeros((100, 10), dtype=np.float32)
            self.same = self.X          # shared: counted once
            self.meta = {"ids": np.arange(100)}

    assert 4000 + 800 <= sizeof(Holder()) < 4000 + 800 + 2000


def test_least_recently_used_entries_go_past_the_budget():
    cache = BoundedCache(budget=10_000)
    for i in range(3):
        cache.get_or_compute("a", K(i), lambda: np.zeros(3000, dtype=np.uint8))
    assert cache.nbytes == 9000 and len(cache) == 3
    cache.get_or_compute("a", K(0), lambda: pytest.fail("a hit must not recompute"))  # 0 is now the newest
    cache.get_or_compute("a", K(3), lambda: np.zeros(3000, dtype=np.uint8))
    assert cache.peek("a", K(1)) is None and cache.peek("a", K(0)) is not None  # 1 was the oldest
    assert cache.nbytes <= cache.budget and cache.evictions == 1
    big = cache.put("b", K("huge"), np.zeros(50_000, dtype=np.uint8))
    assert cache.peek("b", K("huge")) is big and len(cache) == 1  # kept alone: it is in use


def test_none_and_errors_are_not_stored():
    cache = BoundedCache(budget=1000)
    assert cache.get_or_compute("k", K(1), lambda: None) is None and len(cache) == 0
    with pytest.raises(ZeroDivisionError):
        cache.get_or_compute("k", K(2), lambda: 1 / 0)
    assert len(cache) == 0 and cache.get_or_compute("k", K(2), lambda: 5) == 5


def test_concurrent_misses_compute_once():
    cache = BoundedCache(budget=10**6)
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return np.ones(10)

    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get_or_compute("k", K("x"), slow))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and all(o is out[0] for o in out)


def test_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE_MB", "3")
    assert default_budget() == 3 << 20
    monkeypatch.setenv("ARTIFACT_LENS_CACHE_MB", "lots")
    with pytest.raises(InputError, match="ARTIFACT_LENS_CACHE_MB='lots' is not a number"):
        default_budget()
    monkeypatch.delenv("ARTIFACT_LENS_CACHE_MB")
    assert default_budget() == 1024 << 20


def test_an_example_table_is_measured_with_its_reading_table(toy_run):
    from artifact_lens.results.tables import ExampleTable

    ds, run = toy_run
    bare = sizeof(ExampleTable(ds, run))
    prepared = sizeof(ExampleTable(ds, run).prepare_browsing())
    assert prepared > bare + len(ds) * 8   # the browse table (ids, labels, text) is counted
