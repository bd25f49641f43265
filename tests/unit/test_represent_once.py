"""Two jobs that need the same Φ at once build it once (issue 53, item 13: the app computes nothing
twice): an evaluation's partial input and a certificate's, started together, each built it."""
import dataclasses
import threading

import numpy as np
import pytest

import artifact_lens.representations as reps
from artifact_lens.base.errors import Cancelled
from artifact_lens.base.keyed_locks import KeyedLocks
from artifact_lens.representations import represent
from scale import patience
from artifact_lens.data.sources import load_dataset


def test_two_jobs_asking_for_one_phi_build_it_once(tmp_path, monkeypatch):
    ds = load_dataset("demo:nli:n=200")
    real, calls, inside, release = reps.REGISTRY["tfidf-svd"].build, [], threading.Event(), threading.Event()

    def counted(*args, **kwargs):
        calls.append(1)
        inside.set()
        assert release.wait(patience(60))
        return real(*args, **kwargs)

    monkeypatch.setitem(reps.REGISTRY, "tfidf-svd", dataclasses.replace(reps.REGISTRY["tfidf-svd"], build=counted))
    got = [None, None]

    def ask(i):
        got[i] = represent(ds, "tfidf-svd:dim=8", cache_dir=tmp_path)

    first = threading.Thread(target=ask, args=(0,))
    first.start()
    assert inside.wait(patience(60))
    second = threading.Thread(target=ask, args=(1,))
    second.start()
    release.set()
    first.join(patience(120)), second.join(patience(120))
    assert len(calls) == 1
    assert np.array_equal(np.asarray(got[0].X), np.asarray(got[1].X))
    assert got[1].info.get("cached") is True and len(reps._BUILDING) == 0


def test_a_job_waiting_for_a_key_stops_when_cancelled():
    locks, cancel, held, out = KeyedLocks(), threading.Event(), threading.Event(), []

    def waiter():
        try:
            with locks.hold("phi", cancel):
                out.append("ran")
        except Cancelled:
            out.append("cancelled")

    with locks.hold("phi"):
        thread = threading.Thread(target=waiter)
        thread.start()
        cancel.set()
        thread.join(patience(60))
    assert out == ["cancelled"] and len(locks) == 0
    with locks.hold("phi"):   # free again
        pass
