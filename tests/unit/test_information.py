"""V-usable information (Ethayarajh et al. 2022): per-example PVI checked against a direct
computation, its limits (no information, all of it), its refusals, SNLI's hypothesis-only
artifacts in bits, and the ``pvi`` command."""
import csv

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.evaluation.information import FLOOR, dataset_pvi, pvi


def _blobs(n=240, classes=3, d=6, shift=1.5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array([f"c{i % classes}" for i in range(n)])
    codes = np.array([i % classes for i in range(n)])
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 0] += shift * codes
    return X, y


def test_pvi_is_the_papers_definition_computed_directly():
    """−log₂ g[∅](y) + log₂ g′[x](y), both fitted on the other folds, for every example."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    X, y = _blobs()
    found = pvi(X, y, folds=4, random_state=3).table
    names, codes = np.unique(y, return_inverse=True)
    expected = np.empty(len(y))
    for train, test in StratifiedKFold(4, shuffle=True, random_state=3).split(X, codes):
        model = LogisticRegression(max_iter=1000, random_state=3).fit(X[train], codes[train])
        p = model.predict_proba(X[test])[np.arange(len(test)), codes[test]]
        prior = np.bincount(codes[train], minlength=len(names))[codes[test]] / len(train)
        expected[test] = np.log2(np.maximum(p, FLOOR)) - np.log2(np.maximum(prior, FLOOR))
    assert np.allclose(found["pvi"].to_numpy(), expected, rtol=1e-5, atol=1e-6)   # float rounding of the solver
    assert found["label"].tolist() == y.tolist()


def test_no_information_is_about_zero_bits_and_all_of_it_is_the_labels_entropy():
    rng = np.random.default_rng(1)
    y = np.array(["a", "b", "c", "d"] * 100)
    noise = pvi(rng.normal(size=(400, 5)), y, random_state=0).summary
    assert abs(noise["v_information"]) < 0.05 + 3 * noise["stderr"]
    onehot = np.eye(4)[np.unique(y, return_inverse=True)[1]] * 5
    full = pvi(onehot, y, random_state=0).summary
    assert full["v_information"] == pytest.approx(2.0, abs=0.15)          # H(Y) of 4 balanced labels
    assert full["v_entropy"] == pytest.approx(2.0, abs=1e-9) and full["conditional_v_entropy"] < 0.15


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2 ** 16), st.integers(2, 4))
def test_pvi_is_out_of_sample_finite_and_deterministic_for_a_seed(classes, seed, folds):
    X, y = _blobs(n=24 * classes, classes=classes, seed=seed)
    a, b = pvi(X, y, folds=folds, random_state=seed), pvi(X, y, folds=folds, random_state=seed)
    assert a.table.equals(b.table)
    assert np.isfinite(a.table["pvi"]).all() and set(a.table["fold"]) == set(range(folds))
    assert (a.table["pvi"] <= -np.log2(a.table["p_prior"]) + 1e-12).all()   # never more bits than the prior lacks
    assert a.summary["v_information"] == pytest.approx(a.table["pvi"].mean())


@pytest.mark.parametrize("call, message", [
    (lambda X, y: pvi(X, y, family="svm"), "gives probabilities"),
    (lambda X, y: pvi(X, y, folds=1), "at least 2 folds"),
    (lambda X, y: pvi(X[:5], y[:5], folds=3), "fewer than folds"),
    (lambda X, y: pvi(np.where(X > 2, np.nan, X), y), "NaN"),
    (lambda X, y: pvi(X[:10], y), "one vector per example"),
    (lambda X, y: pvi(X, np.array(["a"] * len(y))), "two labels"),
])
def test_what_pvi_cannot_mean_is_refused_with_the_fix(call, message):
    X, y = _blobs()
    with pytest.raises(InputError, match=message):
        call(X, y)


def test_snli_hypotheses_alone_carry_bits_and_the_giveaway_words_carry_most(snli_path):
    """The known hypothesis-only artifacts (Gururangan et al. 2018; Gardner et al. 2021): the
    hypothesis alone carries information about the label, and the examples with "nobody" or
    "sleeping" (contradiction) carry far more of it than the others."""
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset(str(snli_path))
    hyp = dataset_pvi(ds, "tfidf-svd:fields=hypothesis,dim=64")
    s = hyp.summary
    assert s["v_information"] > 0.05 and s["v_information"] > 10 * s["stderr"]
    table = hyp.table.set_index("id")
    words = ds.table.loc[table.index, "hypothesis"].str.lower()
    for word in ("nobody", "sleeping"):
        has = words.str.contains(rf"\b{word}\b")
        assert has.sum() >= 20 and table.loc[has, "pvi"].mean() > 0.5 > table.loc[~has, "pvi"].mean(), word


def test_the_pvi_command_writes_both_inputs_bits(tmp_path, capsys):
    from artifact_lens.cli import main
    from artifact_lens.data.demos import make_nli

    data = tmp_path / "nli.csv"
    make_nli(n=300, random_state=0).table.reset_index().to_csv(data, index=False)
    out = tmp_path / "pvi.csv"
    assert main(["pvi", str(data), "-r", "tfidf-svd:dim=16", "--partial", "tfidf-svd:fields=hypothesis,dim=16",
                 "--folds", "3", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 300 and {"id", "label", "pvi", "p_model", "p_prior", "pvi_partial"} <= set(rows[0])
    said = capsys.readouterr().out
    assert "full input" in said and "partial input" in said and "V-information" in said
    assert main(["pvi", str(data), "--family", "ridge", "--out", str(tmp_path / "x.csv")]) == 2


def test_the_pvi_figures_count_per_label_and_colour_the_data_map():
    import pandas as pd

    from artifact_lens.plots.cartography import data_map
    from artifact_lens.plots.information import pvi_histogram, pvi_vs_predictability

    X, y = _blobs(n=90)
    table = pvi(X, y, folds=3).table
    hist = pvi_histogram(table, classes=["c0", "c1", "c2"])
    assert sum(int(sum(t.y)) for t in hist.data) == len(table) and [t.name for t in hist.data] == ["c0", "c1", "c2"]
    frame = table.assign(predictability=np.linspace(0, 1, len(table)))
    scatter = pvi_vs_predictability(frame)
    assert sum(len(t.x) for t in scatter.data) == len(table)
    dyn = pd.DataFrame({"id": table["id"], "label": table["label"], "confidence": 0.5, "variability": 0.1,
                        "predictability": 0.5, "retained": True, "pvi": table["pvi"]})
    marker = data_map(dyn, colour="pvi", variability_border=0.2, confidence_border=0.5).data[0].marker
    assert list(marker.color) == table["pvi"].tolist() and marker.cmid == 0
