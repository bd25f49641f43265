"""The ``tfidf-svd`` Φ is fitted faster (each distinct text read once; the SVD's sparse products on
every core) and stays what scikit-learn gives, to the bit: the same vocabulary, IDF, TF-IDF rows,
components and rows of Φ."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

from artifact_lens.base.errors import InputError
from artifact_lens.representations.svd import RandomizedSVD
from artifact_lens.representations.text import fit_tfidf

WORDS = ["a", "man", "dog", "sleeps", "runs", "the", "park", "nobody", "is", "outside", "cat", "red"]

#: texts from a small vocabulary, many of them repeated (as premises are in NLI data)
texts = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join), min_size=2, max_size=12).flatmap(
    lambda pool: st.lists(st.sampled_from(pool), min_size=2, max_size=40))


def _same(A, B) -> bool:
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    A.sort_indices(), B.sort_indices()
    return A.shape == B.shape and all(np.array_equal(getattr(A, k), getattr(B, k)) for k in ("indptr", "indices", "data"))


@settings(max_examples=60, deadline=None)
@given(texts=texts, min_df=st.integers(1, 4), ngram=st.sampled_from(["1-1", "1-2"]))
def test_repeated_texts_give_scikit_learns_tfidf_to_the_bit(texts, min_df, ngram):
    lo, hi = (int(x) for x in ngram.split("-"))
    least = min(min_df, max(1, len(texts) // 2))
    ref = TfidfVectorizer(ngram_range=(lo, hi), min_df=least, sublinear_tf=True, dtype=np.float32)
    try:
        expected = ref.fit_transform(texts)
    except ValueError:
        with pytest.raises(InputError, match="no TF-IDF terms"):
            fit_tfidf(texts, ngram, min_df, "hypothesis")
        return
    vec, got = fit_tfidf(texts, ngram, min_df, "hypothesis")
    assert vec.vocabulary_ == ref.vocabulary_ and np.array_equal(vec.idf_, ref.idf_)
    assert _same(got, expected)
    new = ["the dog sleeps in the park", "a red cat", "unseen words only"]
    assert _same(vec.transform(new), ref.transform(new))   # new text maps as the vectorizer's own would


def test_a_field_with_no_terms_left_after_pruning_is_one_clear_error():
    with pytest.raises(InputError, match="field 'hypothesis' gives no TF-IDF terms"):
        fit_tfidf(["a b", "c d", "a b"], "1-1", 3, "hypothesis")


@pytest.mark.parametrize("shape", [(3000, 5000), (5000, 800)], ids=["wide", "tall"])
def test_the_threaded_svd_is_scikit_learns_randomized_truncated_svd(shape):
    """Both orientations (scikit-learn transposes the wider one), with products large enough to run
    on threads: the same components and rows of Φ, bit for bit, and the same explained variance."""
    rng = np.random.default_rng(0)
    rows = np.repeat(np.arange(shape[0]), 80)
    M = sp.csr_matrix((rng.random(rows.size).astype(np.float32), (rows, rng.integers(0, shape[1], rows.size))),
                      shape=shape)
    ref = TruncatedSVD(32, algorithm="randomized", n_iter=5, random_state=3)
    expected = ref.fit_transform(M)
    mine = RandomizedSVD(32, n_iter=5, random_state=3, workers=2)
    got = mine.fit_transform(M)
    assert np.array_equal(mine.components_, ref.components_) and np.array_equal(got, expected)
    assert np.allclose(mine.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-6)


def _identical(A, B) -> bool:
    """The same stored entries in the same order (the order a row's norm and Φ's products sum in)."""
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    return A.shape == B.shape and all(np.array_equal(getattr(A, k), getattr(B, k)) for k in ("indptr", "indices", "data")) \
        and A.indices.dtype == B.indices.dtype and A.data.dtype == B.data.dtype


any_texts = st.lists(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40) | texts.map(" ".join),
                     min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(texts=any_texts, ngram=st.sampled_from([(1, 1), (1, 2), (2, 3)]))
def test_the_array_term_count_is_the_vectorizers_entry_for_entry(texts, ngram):
    """`count_terms` against ``CountVectorizer.fit_transform`` on any text (any script, punctuation,
    empty texts): the same terms and the same stored entries in the same order, or the same error."""
    from sklearn.feature_extraction.text import CountVectorizer

    from artifact_lens.representations.text import count_terms

    ref = CountVectorizer(ngram_range=ngram, dtype=np.float32)
    try:
        expected = ref.fit_transform(texts)
    except ValueError:
        with pytest.raises(ValueError, match="empty vocabulary"):
            count_terms(texts, ngram)
        return
    got, terms = count_terms(texts, ngram)
    assert list(terms) == list(ref.get_feature_names_out()) and _identical(got, expected)


@settings(max_examples=40, deadline=None)
@given(texts=texts, min_df=st.integers(1, 4))
def test_the_tfidf_rows_are_stored_as_scikit_learns_entry_for_entry(texts, min_df):
    least = min(min_df, max(1, len(texts) // 2))
    ref = TfidfVectorizer(ngram_range=(1, 2), min_df=least, sublinear_tf=True, dtype=np.float32)
    try:
        expected = ref.fit_transform(texts)
    except ValueError:
        return
    assert _identical(fit_tfidf(texts, "1-2", min_df, "hypothesis")[1], expected)
