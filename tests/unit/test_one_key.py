"""Issue 65, item 1: one key. Everything computed is named by the data it was computed from
(`core.base.keys.result_key` of a `data_key`), never by a path; every place a result is kept (the
stores on disk, the dashboard's cache, its jobs, the fit memo) refuses any other name, and the
checks below find those places by reflection, so a new store, cache method or job kind is covered
the day it is written."""
from __future__ import annotations

import ast
import inspect
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artifact_lens.base.jobs import JobKey
from artifact_lens.base.keys import KEY_FORM, ResultKey, data_key, read_key, result_key

ROOT = Path(__file__).resolve().parents[2]

settings_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=64), st.lists(settings_values, max_size=4))
def test_a_result_key_is_made_from_the_data_and_its_settings(a, b, extra):
    one, other = data_key(a), data_key(b)
    key = result_key(one, *extra)
    assert isinstance(key, ResultKey) and KEY_FORM.fullmatch(key)
    assert key == result_key(one, *extra) and read_key(str(key)) == key   # stable; a link gives it back
    assert (result_key(other, *extra) == key) == (a == b)                  # other data, another name
    assert result_key(key, "evaluation") != key                            # a result of a result


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_nothing_but_a_key_names_the_data(text):
    """A path, a file name or any other text in the data's place is refused: a result can never be
    found again by where its data was read from."""
    if KEY_FORM.fullmatch(text):
        assert result_key(text) == result_key(read_key(text))
        return
    with pytest.raises(TypeError, match="data it was computed from"):
        result_key(text, "settings")
    with pytest.raises(Exception, match="not a key this tool made"):
        read_key(text)
    with pytest.raises(TypeError):
        result_key(("a", "tuple"))


def _stores(tmp_path):
    """Every `ResultStore` the cache root holds, the Φ stores of a dataset folder included."""
    from artifact_lens.results.stores import Results

    (tmp_path / "representations" / data_key("some dataset")).mkdir(parents=True)
    return Results(tmp_path).stores()


def test_every_store_on_disk_keeps_a_result_only_under_its_key(tmp_path):
    stores = _stores(tmp_path)
    assert len({s.what for s in stores}) >= 6, [s.what for s in stores]
    for store in stores:
        for plain in ("snli_dev", "0123456789abcdef", str(tmp_path / "x")):
            with pytest.raises(TypeError, match="result_key"):
                store.save(plain, lambda fh: fh.write(b"x"))
        path = store.save(result_key(data_key("data"), store.what), lambda fh: fh.write(b"x"))
        assert path.parent == store.root and path.exists()


def test_every_method_of_the_servers_cache_takes_keys_only():
    """Reflection over `BoundedCache`: each method with a ``key`` refuses a tuple, a path or plain text."""
    from artifact_lens.dashboard.process.cache import BoundedCache

    cache = BoundedCache(budget=1 << 20)
    methods = [(name, fn) for name, fn in inspect.getmembers(BoundedCache, inspect.isfunction)
               if "key" in inspect.signature(fn).parameters]
    assert {"peek", "put", "get_or_compute", "discard"} <= {name for name, _ in methods}
    for name, fn in methods:
        params = list(inspect.signature(fn).parameters)[1:]
        for bad in (("ds", "spec"), "data/snli.csv", "0123456789abcdef"):
            args = {"kind": "x", "key": bad, "value": 1, "fn": lambda: 1}
            with pytest.raises(TypeError, match="result_key"):
                getattr(cache, name)(**{p: args[p] for p in params})
    good = result_key(data_key("d"), "spec")
    assert cache.get_or_compute("x", good, lambda: 5) == 5 and cache.peek("x", good) == 5


def test_every_job_kind_and_its_kept_result_take_keys_only():
    """Reflection over `cached_jobs.KINDS`: no job, and no result a job keeps, is named by a tuple
    of a path and settings (how the services named them before)."""
    from artifact_lens.dashboard.process.cache import BoundedCache
    from artifact_lens.dashboard.services import cached_jobs

    def reached(*args, **kwargs):
        pytest.fail("a job was looked up or started under a name not made from its data")

    jobs = SimpleNamespace(get=reached, submit=reached)
    tab = SimpleNamespace(server=SimpleNamespace(cache=BoundedCache(budget=1 << 20), jobs=jobs, results=None))
    old_style = ("0123456789abcdef", "tfidf-svd", (1, 2))
    for kind in cached_jobs.KINDS:
        with pytest.raises(TypeError, match="result_key"):
            JobKey(kind, "0123456789abcdef")
        calls = [lambda: cached_jobs.start(tab, kind, old_style, lambda ctx: None),
                 lambda: cached_jobs.job(tab, kind, old_style)]
        if kind.kept != "own":
            calls += [lambda: cached_jobs.result(tab, kind, old_style),
                      lambda: cached_jobs.keep(tab, kind, old_style, 1)]
        for call in calls:
            with pytest.raises(TypeError, match="result_key"):
                call()


def test_the_fit_memo_keeps_fits_under_the_key_of_their_data():
    from artifact_lens.evaluation.models import Fit, FitMemo, fit_many

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), np.repeat(["a", "b"], 30)
    memo = FitMemo()
    fit_many(X, y, [Fit("logistic", np.arange(40), np.arange(40, 60))], memo=memo)
    assert len(memo) == 1 and all(isinstance(k, ResultKey) for k in memo._items)
    with pytest.raises(TypeError, match="result_key"):
        memo.put("a fit", (np.zeros(2), ""))


def _python_files():
    for folder in ("core", "dashboard", "pages"):
        yield from (ROOT / folder).rglob("*.py")
    yield ROOT / "app.py"


def test_keys_are_made_in_one_module():
    """Read from the source: a `ResultKey` is made only by `core/base/keys.py`, the hash functions it
    is made with are called only there (a file's checksum and a content digest go through it too),
    and the only key not made from data is the source stamp that says when to read a file again."""
    made, hashed, described = [], [], []
    for path in _python_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == "core/base/keys.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name == "ResultKey":
                    made.append(f"{rel}:{node.lineno}")
                elif name == "key_of":
                    described.append(rel)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if "hashlib" in names:
                    hashed.append(rel)
    assert made == [], made
    assert hashed == [], hashed
    assert sorted(set(described)) == ["core/data/source_files.py"], described


def test_the_same_content_has_the_same_names_wherever_it_was_read_and_an_edit_renames_all(tmp_path):
    """A file copied elsewhere is the same dataset with the same run, Φ, map and evaluation names; the
    same file edited in place (one label) gets new names for every one of them."""
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.evaluation import evaluation_key
    from artifact_lens.representations.projection import representation_key
    from artifact_lens.usecases.scoring import scored_key

    import json

    rng = np.random.default_rng(0)
    words = "a dog man woman runs sits park street red blue plays sleeps".split()
    labels = ["entailment", "neutral", "contradiction"]
    rows = [json.dumps({"premise": " ".join(rng.choice(words, 6)), "hypothesis": " ".join(rng.choice(words, 4)),
                        "label": labels[i % 3]}) for i in range(300)]
    a, b = tmp_path / "a.jsonl", tmp_path / "elsewhere" / "b.jsonl"
    a.write_text("\n".join(rows) + "\n")
    b.parent.mkdir()
    shutil.copy(a, b)

    def names(path):
        ds = load_dataset(str(path))
        spec = "tfidf-svd:dim=8"
        run = scored_key(ds, spec, {"slice_size": 10})
        rep = SimpleNamespace(spec=spec)
        return [ds.content_key, run, representation_key(ds, rep), evaluation_key(run, 0.75, 100, {})]

    here, there = names(a), names(b)
    assert here == there and all(isinstance(k, ResultKey) for k in here)
    edited = rows[:]
    edited[0] = edited[0].replace('"entailment"', '"contradiction"')   # one label
    assert edited[0] != rows[0]
    a.write_text("\n".join(edited) + "\n")
    changed = names(a)
    assert all(x != y for x, y in zip(changed, here)), (changed, here)
