"""Built-in demo datasets: shape, determinism, ground truth, and that the planted signal is there."""
import re

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

from artifact_lens.data.demos import NLI_ARTIFACTS, make_circles, make_digits, make_nli
from artifact_lens.base.errors import InputError


# ------------------------------------------------------------------ circles

def test_circles_columns_roles_and_shares():
    ds = make_circles(n=800, bias_dims=4, bias_share=0.75, random_state=1)
    t = ds.table
    assert len(ds) == 800 and ds.name == "demo:circles"
    assert list(t.columns[:6]) == ["x0", "x1", "b0", "b1", "b2", "b3"]
    assert ds.embedding == "features" and ds.truth == ["biased", "flipped"] and ds.label == "label"
    assert ds.ids[0] == "circles-00000" and t.index.is_unique
    assert set(ds.classes) == {"inner", "outer"}
    # 75% of EACH class is biased
    for c in ("inner", "outer"):
        assert t.loc[t.label == c, "biased"].mean() == pytest.approx(0.75, abs=0.01)
    v = t["features"].iloc[3]
    assert v.dtype == np.float32 and v.shape == (6,)
    np.testing.assert_allclose(v, t.iloc[3][["x0", "x1", "b0", "b1", "b2", "b3"]].to_numpy(float), rtol=1e-6)
    assert not t.flipped.any()


def test_circles_are_deterministic_and_seeded():
    a, b = make_circles(n=300, random_state=5), make_circles(n=300, random_state=5)
    np.testing.assert_array_equal(a.table[["x0", "b0"]].to_numpy(), b.table[["x0", "b0"]].to_numpy())
    c = make_circles(n=300, random_state=6)
    assert not np.allclose(a.table.x0.to_numpy(), c.table.x0.to_numpy())


def test_circles_radii_follow_separation():
    ds = make_circles(n=1000, separation=0.3, noise_scale=0.0, random_state=0)
    r = np.hypot(ds.table.x0, ds.table.x1)
    np.testing.assert_allclose(r[ds.table.label == "inner"], 0.3, atol=1e-9)
    np.testing.assert_allclose(r[ds.table.label == "outer"], 1.0, atol=1e-9)


def test_circles_bias_is_linear_only_on_biased_points():
    ds = make_circles(n=2000, random_state=0)
    t = ds.table
    X = np.stack(t.features.to_numpy())
    y = t.label.to_numpy()
    b = t.biased.to_numpy()
    lr = LogisticRegression(max_iter=500)
    # (x0, x1) alone: a linear model is at chance (concentric circles)
    assert cross_val_score(lr, X[:, :2], y, cv=5).mean() < 0.6
    # with the bias features, biased points are linearly solvable ...
    assert cross_val_score(lr, X[b], y[b], cv=5).mean() > 0.95
    # ... noise points are not
    assert cross_val_score(lr, X[~b], y[~b], cv=5).mean() < 0.62


def test_circles_flips_only_biased_points():
    ds = make_circles(n=1000, flip_share=0.1, random_state=0)
    t = ds.table
    assert t.flipped.sum() == round(0.1 * t.biased.sum())
    assert not (t.flipped & ~t.biased).any()


@pytest.mark.parametrize("kwargs", [dict(n=2), dict(separation=1.5), dict(separation=0.0), dict(bias_share=1.2),
                                    dict(flip_share=-0.1), dict(bias_dims=0), dict(noise_scale=-1),
                                    dict(random_state="x")])
def test_circles_bad_arguments(kwargs):
    with pytest.raises(InputError, match=list(kwargs)[0]):
        make_circles(**kwargs)


# ------------------------------------------------------------------ NLI

def _tokens(s):
    return set(re.findall(r"[a-z]+", s.lower()))


def test_nli_columns_and_truth():
    ds = make_nli(n=600, artifact_share=0.5, random_state=3)
    t = ds.table
    assert ds.text == ["premise", "hypothesis"] and ds.label == "label"
    assert ds.truth == ["artifact", "has_artifact"]
    assert set(t.label) == {"entailment", "neutral", "contradiction"}
    assert t.has_artifact.mean() == pytest.approx(0.5, abs=0.002)
    assert set(t.artifact[t.has_artifact]) <= set(NLI_ARTIFACTS)
    assert (t.artifact[~t.has_artifact] == "none").all()
    # every artifact goes with its label
    for kind, label in NLI_ARTIFACTS.items():
        assert (t.label[t.artifact == kind] == label).all()
    assert ds.ids[0] == "nli-00000" and t.index.is_unique


def test_nli_is_deterministic_and_sized():
    a, b = make_nli(n=200, random_state=1), make_nli(n=200, random_state=1)
    assert a.table.equals(b.table)
    assert len(make_nli(n=57)) == 57
    assert not make_nli(n=200, random_state=2).table.hypothesis.equals(a.table.hypothesis)


def test_nli_cues_appear_only_with_their_artifact():
    t = make_nli(n=3000, random_state=0).table
    plain = t[~t.has_artifact]
    cue_words = {"not", "nobody", "no", "never", "sleeping", "napping", "asleep", "dozing",
                 "outdoors", "person", "people", "someone", "win"}
    for h in plain.hypothesis:
        assert not (_tokens(h) & cue_words), h
        assert "for a" not in h.lower()
    neg = t[t.artifact == "negation"].hypothesis.map(lambda h: bool(_tokens(h) & {"not", "nobody", "no", "never"}))
    assert neg.all()
    long_len = t[t.artifact == "long"].hypothesis.str.split().str.len().mean()
    assert long_len > plain.hypothesis.str.split().str.len().mean() + 5


def test_nli_hypothesis_only_signal_comes_from_artifacts():
    t = make_nli(n=1500, random_state=0).table
    vec = CountVectorizer(ngram_range=(1, 2))
    lr = LogisticRegression(max_iter=1000)
    art, plain = t[t.has_artifact], t[~t.has_artifact]
    acc_art = cross_val_score(lr, vec.fit_transform(art.hypothesis), art.label, cv=3).mean()
    acc_plain = cross_val_score(lr, vec.fit_transform(plain.hypothesis), plain.label, cv=3).mean()
    assert acc_art > 0.9
    assert acc_plain < 0.43  # chance is 1/3: the hypothesis alone does not reveal un-artifacted labels
    # overlap with the premise is about the same for every label of un-artifacted examples
    ov = [len(_tokens(p) & _tokens(h)) / len(_tokens(h)) for p, h in zip(plain.premise, plain.hypothesis)]
    by_label = plain.assign(ov=ov).groupby("label").ov.mean()
    assert by_label.max() - by_label.min() < 0.05


@pytest.mark.parametrize("kwargs", [dict(n=0), dict(artifact_share=1.5), dict(n="many")])
def test_nli_bad_arguments(kwargs):
    with pytest.raises(InputError, match=list(kwargs)[0]):
        make_nli(**kwargs)


# ------------------------------------------------------------------ digits

def test_digits():
    ds = make_digits()
    assert len(ds) == 1797 and ds.image == "image" and ds.embedding is None
    assert ds.classes == [str(i) for i in range(10)]
    img = ds.table.image.iloc[0]
    assert img.shape == (8, 8) and img.dtype == np.float32 and img.max() <= 16
    assert ds.ids[-1] == "digits-01796"
