"""Task-independent features (core.text.features): tokenisation, n-grams, pair features, cross-fitting."""
import numpy as np
import pandas as pd
import pytest

from artifact_lens.base.errors import InputError
from artifact_lens.text.features import FeatureOptions, build_features, cross_fitted_nb
from artifact_lens.text.tokens import keep_columns, tokenize, tokenize_many


def test_tokenize_lowercases_strips_punctuation_and_splits_on_whitespace():
    assert tokenize("A man isn't sleeping .") == ["a", "man", "isnt", "sleeping"]
    assert tokenize("  Two\tT-shirts,  café\u00a0NAÏVE!! ") == ["two", "tshirts", "café", "naïve"]
    assert tokenize(None) == []
    assert tokenize(" . , ") == []
    assert tokenize_many(["A b", "", None, "c ."]) == [["a", "b"], [], [], ["c"]]


def _pair_frame():
    return pd.DataFrame(
        {
            "premise": ["A man is sleeping .", "Two dogs run", "", None],
            "hypothesis": ["A man sleeps", "dogs run run", "x", "y"],
            "label": ["a", "b", "a", "b"],
            "genre": ["news", "fiction", "news", None],
        },
        index=pd.Index(["r0", "r1", "r2", "r3"], name="id"),
    )


def test_pair_features_lengths_ratio_overlap_and_columns():
    df = _pair_frame()
    fm = build_features(df, text=["premise", "hypothesis"], pair=("premise", "hypothesis"), columns=["genre"],
                        options=FeatureOptions(partial_input=None))
    assert fm.X.dtype == np.float32 and set(np.unique(fm.X.data)) == {1.0}
    assert list(fm.ids) == ["r0", "r1", "r2", "r3"]
    f0 = set(fm.features_of(0))
    # "a man sleeps": 2 of 3 tokens are in the premise -> overlap 0.67; ratio 3/4.
    assert {"null", "a@hypothesis", "a man@hypothesis", "man sleeps@hypothesis", "sleeping@premise",
            "is sleeping@premise", "hypothesis-len<5", "premise-len<5", "len-ratio0.75-1",
            "lex-overlap>0.5", "lex-overlap>0.6", "genre=news"} <= f0
    assert "lex-overlap>0.7" not in f0 and "full-lex-overlap" not in f0
    f1 = set(fm.features_of(1))  # "dogs run run" inside "two dogs run": full overlap, repeats counted
    assert {"full-lex-overlap", "lex-overlap>0.9", "run run@hypothesis", "len-ratio1-1.5", "genre=fiction"} <= f1
    f2 = set(fm.features_of(2))  # empty premise: no ratio, zero overlap
    assert not any(f.startswith("len-ratio") for f in f2)
    assert {"lex-overlap<0.1", "x@hypothesis"} <= f2
    assert not any(f.startswith("genre=") for f in fm.features_of(3))  # missing value: no feature
    # every feature is present somewhere, and kinds/fields line up with names
    assert (fm.n >= 1).all()
    frame = fm.frame().set_index("feature")
    assert frame.loc["sleeping@premise", "kind"] == "ngram" and frame.loc["sleeping@premise", "field"] == "premise"
    assert frame.loc["full-lex-overlap", "kind"] == "overlap"
    assert frame.loc["null", "n"] == 4


def _python_ngrams(toks, field):
    grams = {f"{t}@{field}" for t in toks}
    grams |= {f"{a} {b}@{field}" for a, b in zip(toks, toks[1:])}
    return grams


def test_vectorised_ngrams_match_a_plain_python_reference():
    rng = np.random.default_rng(3)
    words = np.array(["the", "A", "dog", "dog's", "runs", "fast", "-", ",", "Über", "x"])
    texts = [" ".join(rng.choice(words, rng.integers(0, 9))) for _ in range(300)]
    df = pd.DataFrame({"t": texts, "label": rng.integers(0, 2, 300).astype(str)})
    fm = build_features(df, text=["t"], options=FeatureOptions(lengths=False, null=False, partial_input=None))
    tokens = tokenize_many(texts)
    assert tokens[5] == tokenize(texts[5]) and len(tokens) == len(texts)
    for i, text in enumerate(texts):
        assert set(fm.features_of(i)) == _python_ngrams(tokens[i], "t"), text
    # min_count keeps exactly the n-grams present in at least that many rows
    fm3 = build_features(df, text=["t"], min_count=3, options=FeatureOptions(lengths=False, null=False, partial_input=None))
    ref = pd.Series([g for t in tokens for g in _python_ngrams(t, "t")]).value_counts()
    assert set(fm3.names) == set(ref[ref >= 3].index)
    assert dict(zip(fm3.names, fm3.n)) == ref[ref >= 3].to_dict()


def test_unigrams_only_and_length_bins():
    df = pd.DataFrame({"t": ["one two three four five six", "one"], "label": ["a", "b"]})
    fm = build_features(df, text=["t"], options=FeatureOptions(ngram_range=(1, 1), length_bins=(2, 6), null=False))
    assert set(fm.features_of(0)) == {"one@t", "two@t", "three@t", "four@t", "five@t", "six@t", "t-len>=6"}
    assert set(fm.features_of(1)) == {"one@t", "t-len<2"}


def test_partial_input_predictions_are_out_of_fold():
    # Each hypothesis is a word seen once: a model that saw the row would be right
    # every time; a cross-fitted one can only guess.
    n = 400
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"premise": ["p"] * n, "hypothesis": [f"w{i}" for i in range(n)], "label": y.astype(str)})
    fm = build_features(df, text=["premise", "hypothesis"], pair=("premise", "hypothesis"), y_codes=y,
                        classes=["0", "1"])
    acc = fm.info["partial_accuracy"]["hypothesis"]
    assert acc < 0.62
    pred_cols = np.flatnonzero(fm.kind == "pred")
    assert len(pred_cols) >= 1 and (np.asarray(fm.X[:, pred_cols].sum(axis=1)).ravel() == 1).all()


def test_partial_input_model_learns_a_real_cue_and_predicts_unseen_rows():
    n = 300
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, n)
    cue = np.array(["sleeping", "outside", "tall"])
    hyp = [f"{cue[c]} w{rng.integers(0, 50)}" for c in y]
    df = pd.DataFrame({"premise": ["p"] * n, "hypothesis": hyp})
    fit = np.arange(n) < 200
    fm = build_features(df, text=["premise", "hypothesis"], pair=("premise", "hypothesis"), y_codes=y,
                        classes=["c", "e", "n"], fit_rows=fit)
    assert fm.info["partial_accuracy"]["hypothesis"] > 0.95
    pred_cols = np.flatnonzero(fm.kind == "pred")
    pred = np.asarray(fm.X[:, pred_cols].argmax(axis=1)).ravel()
    assert (pred[~fit] == y[~fit]).mean() > 0.95


def test_cross_fitted_nb_every_row_gets_a_prediction():
    import scipy.sparse as sp

    X = sp.random(50, 20, density=0.3, format="csr", random_state=0, dtype=np.float32)
    X.data[:] = 1
    y = np.arange(50) % 3
    pred, acc = cross_fitted_nb(X, y, 3, np.ones(50, bool), folds=5)
    assert pred.shape == (50,) and pred.min() >= 0 and pred.max() <= 2 and 0 <= acc <= 1


def test_keep_columns_equals_fancy_indexing():
    import scipy.sparse as sp

    X = sp.random(30, 12, density=0.4, format="csr", random_state=2, dtype=np.float32)
    keep = np.arange(12) % 3 != 0
    assert (keep_columns(X, keep) != X[:, keep]).nnz == 0


@pytest.mark.parametrize("bad", [np.arange(4), [1.5, 2.5, None, 3.0], [True, False, True, False]])
def test_non_text_column_as_text_is_refused(bad):
    df = pd.DataFrame({"t": ["a b", "c", "d", "e"], "num": bad, "label": list("abab")})
    with pytest.raises(InputError, match="num.*not"):
        build_features(df, text=["t", "num"])


def test_unknown_text_column_and_bad_options():
    df = pd.DataFrame({"t": ["a b"], "label": ["a"]})
    with pytest.raises(InputError, match="'nope' is not in the data"):
        build_features(df, text=["nope"])
    with pytest.raises(InputError, match="ngram_range"):
        build_features(df, text=["t"], options=FeatureOptions(ngram_range=(1, 3)))
    with pytest.raises(InputError, match="length_bins"):
        build_features(df, text=["t"], options=FeatureOptions(length_bins=(10, 5)))
