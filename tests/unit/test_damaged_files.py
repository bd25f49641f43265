"""Damaged stored files of every kind the tool reads back (issue 31, class 7), generated: a run
file whose metadata or arrays hold the wrong types or values (a hand edit, another tool, a bit
flip) is `CorruptRun` ("this run file is damaged"), or a run that answers τ and n as any other;
never a traceback later, far from the file."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.results.runs import CorruptRun, Run, fit_run

QUICK = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))
HOSTILE = [None, [], [1, 2], {}, {"a": 1}, "", "x", 0, -1, 1.5, 1e300, -1e300, float("nan"), 10 ** 30, True, "NaN",
           [[1]], {"resolved": None}]


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    from artifact_lens.representations import represent
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=120")
    run = fit_run(ds, represent(ds, "tfidf-svd:fields=hypothesis,dim=4"), dict(n_partitions=4, slice_size=0.1,
                                                                                target_size=0.6))
    buf = io.BytesIO()
    run.write(buf)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def _meta_paths(meta, prefix=()):
    for key, value in meta.items():
        yield (*prefix, key)
        if isinstance(value, dict) and len(prefix) < 2:
            yield from _meta_paths(value, (*prefix, key))


def _write(tmp, arrays) -> str:
    path = tmp / "run.npz"
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    return path


def _check(path):
    try:
        run = Run.load(path)
    except CorruptRun as exc:
        assert "damaged" in str(exc)
        return
    # accepted: it answers as a run does
    run.key
    run.result_for()
    run.result_for(tau=0.9)


@QUICK
@given(data=st.data(), value=st.sampled_from(HOSTILE))
def test_a_run_file_with_hostile_metadata_is_damaged_or_whole(good, tmp_path_factory, data, value):
    meta = json.loads(str(good["meta"]))
    where = data.draw(st.sampled_from(sorted(_meta_paths(meta))), label="field")
    target = meta
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    arrays = dict(good, meta=np.array(json.dumps(meta)))
    _check(_write(tmp_path_factory.mktemp("meta"), arrays))


@QUICK
@given(data=st.data(), how=st.sampled_from(["float", "huge", "2-D", "short", "text", "negative", "past the phases",
                                             "nan"]))
def test_a_run_file_with_hostile_arrays_is_damaged_or_whole(good, tmp_path_factory, data, how):
    name = data.draw(st.sampled_from(sorted(k for k in good if k.startswith("a:"))), label="array")
    a = good[name]
    changed = {"float": lambda: a.astype(float) + 0.5, "huge": lambda: np.full(a.shape, 1e300),
               "2-D": lambda: np.atleast_2d(a), "short": lambda: a[:-1], "text": lambda: a.astype(str),
               "negative": lambda: np.full(a.shape, -5, dtype=np.int64),
               "past the phases": lambda: np.full(a.shape, 10 ** 6, dtype=np.int64),
               "nan": lambda: np.full(a.shape, np.nan)}[how]()
    _check(_write(tmp_path_factory.mktemp("arrays"), dict(good, **{name: changed})))


def test_the_hostile_cases_are_found_damaged(good, tmp_path):
    """The cases the sweep found: params as a list, a float or a huge removed_at."""
    meta = json.loads(str(good["meta"]))
    for arrays in (dict(good, meta=np.array(json.dumps({**meta, "params": [1, 2]}))),
                   dict(good, **{"a:removed_at": good["a:removed_at"].astype(float) + 0.5}),
                   dict(good, **{"a:removed_at": np.full(good["a:removed_at"].shape, 1e300)})):
        with pytest.raises(CorruptRun, match="damaged"):
            Run.load(_write(tmp_path, arrays))
