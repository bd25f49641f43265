"""z-statistics, z-filtering, consistency filtering and the Gardner plot (core.zstats, core.plots.zstats)."""
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings, strategies as st

from artifact_lens.data.dataset import Dataset
from artifact_lens.base.errors import Cancelled, InputError
from artifact_lens.text.features import FeatureOptions
from artifact_lens.zstats import (
    ZStats, bonferroni_threshold, compute_z, consistency_filter, z_filter, z_scores, z_table,
)

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SNLI = DATA / "snli_dev.jsonl"
MNLI = DATA / "mnli_dev_matched.jsonl"
needs_snli = pytest.mark.skipif(not SNLI.exists(), reason="../shared/data/snli_dev.jsonl is absent")

LABELS = np.array(["contradiction", "entailment", "neutral"])


def planted_nli(n=900, share=0.6, seed=0, cue="nobody", cue_label="contradiction"):
    """NLI-like pairs; `share` of the `cue_label` hypotheses contain `cue`, other labels never do."""
    rng = np.random.default_rng(seed)
    words = np.array(["man", "woman", "dog", "runs", "sits", "on", "the", "a", "park", "street", "red", "blue"])
    y = LABELS[rng.integers(0, 3, n)]
    prem = [" ".join(rng.choice(words, rng.integers(5, 10))) for _ in range(n)]
    hyp = []
    for lab in y:
        toks = list(rng.choice(words, rng.integers(3, 7)))
        if lab == cue_label and rng.random() < share:
            toks.insert(int(rng.integers(0, len(toks))), cue)
        hyp.append(" ".join(toks))
    idx = pd.Index([f"ex{i}" for i in range(n)], name="id")
    return pd.DataFrame({"premise": prem, "hypothesis": hyp, "label": y}, index=idx)


@pytest.fixture(scope="module")
def snli():
    return pd.read_json(SNLI, lines=True)


# --------------------------------------------------------------------------- statistics


def test_z_is_eq_2_of_paper_004():
    # n = 10 examples with the feature, 8 of label a, two labels: p0 = 1/2.
    z = z_scores(np.array([[8.0, 2.0]]), np.array([10.0]), 0.5)
    assert z[0, 0] == pytest.approx((0.8 - 0.5) / np.sqrt(0.25 / 10))
    assert z[0, 1] == pytest.approx(-z[0, 0])


def test_bonferroni_threshold_matches_gardner():
    assert bonferroni_threshold(0.01, 28_000) == pytest.approx(4.96, abs=0.01)
    assert bonferroni_threshold(0.01, 1) == pytest.approx(2.326, abs=0.001)


def test_z_table_counts_and_columns_by_hand():
    df = pd.DataFrame({"text": ["red dog", "red cat", "red cow", "blue dog"], "label": ["a", "a", "b", "b"]})
    t = z_table(df, text=["text"], options=FeatureOptions(lengths=False, ngram_range=(1, 1)))
    assert {"feature", "label", "n", "count", "p_hat", "z", "significant", "kind", "field"} <= set(t.columns)
    row = t[(t.feature == "red@text") & (t.label == "a")].iloc[0]
    assert (row.n, row["count"]) == (3, 2) and row.p_hat == pytest.approx(2 / 3)
    assert row.z == pytest.approx((2 / 3 - 0.5) / np.sqrt(0.25 / 3))
    null = t[(t.feature == "null") & (t.label == "a")].iloc[0]
    assert null.n == 4 and null.z == pytest.approx(0.0)
    assert t.attrs["p0"] == 0.5 and t.attrs["n_tests"] == t.feature.nunique()
    assert t.z.is_monotonic_decreasing


def test_dataset_input_uses_its_roles_and_user_features():
    df = planted_nli(300, seed=4)
    df["source"] = np.where(df.label == "neutral", "crowd", "web")
    ds = Dataset(table=df, label="label", text=["premise", "hypothesis"], features=["source"])
    zs = compute_z(ds, min_count=5)
    assert isinstance(zs, ZStats) and zs.n_examples == 300 and zs.labels == list(LABELS)
    top = zs.top(3)
    assert set(top.label) == set(LABELS) and top.groupby("label").size().max() <= 3
    # the planted cue and the user feature are found; pair features exist since there are two text fields
    assert zs.top(1, label="contradiction", kind="ngram").feature.tolist() == ["nobody@hypothesis"]
    assert "source=crowd" in zs.top(2, label="neutral").feature.tolist()
    assert {"overlap", "ratio", "pred", "length", "null"} <= set(zs.table.kind)
    assert zs.significant.z.min() > zs.z_star


def test_cues_in_any_column_an_annotator_or_a_binned_number():
    """Issue 34: the z-statistics of the columns a user names: "annotator a17 writes most of the
    contradictions" and "long hypotheses are neutral" show like any n-gram, a many-valued number
    cut into quantile bins."""
    rng = np.random.default_rng(7)
    df = planted_nli(600, seed=5)
    contra = (df.label == "contradiction").to_numpy()
    df["annotator"] = np.where(contra & (rng.random(len(df)) < 0.6), "a17", rng.choice(["a1", "a2", "a3"], len(df)))
    df["hyp_words"] = df.hypothesis.str.split().str.len() + np.where(df.label == "neutral", 9, 0) + rng.random(len(df))
    ds = Dataset(table=df, label="label", text=["premise", "hypothesis"], features=["annotator", "hyp_words"])
    zs = compute_z(ds, min_count=5)
    columns = zs.table[zs.table.kind == "column"]
    assert "annotator=a17" in zs.top(1, label="contradiction", kind="column").feature.tolist()
    longest = columns[columns.feature.str.startswith("hyp_words∈")].sort_values("feature").feature.unique()
    assert len(longest) == 5
    top_neutral = zs.top(1, label="neutral", kind="column").iloc[0]
    assert top_neutral.feature.startswith("hyp_words∈") and top_neutral.significant


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e9, 1e9), st.none(), st.integers(-10 ** 6, 10 ** 6)), min_size=12, max_size=80))
@example([0.0] * 30 + [None] * 5 + list(range(25)))              # repeated quantile edges and missing values
@example([1.0 + i * 1e-12 for i in range(40)])                   # edges that print alike at 4 digits
def test_any_numeric_column_is_binned_or_refused_clearly(values):
    from artifact_lens.text.features import build_features

    table = pd.DataFrame({"text": ["a b"] * len(values), "x": pd.Series(values, dtype="float64")})
    try:
        fm = build_features(table, text=["text"], columns=["x"], min_count=1)
    except InputError as exc:
        assert "x" in str(exc)
        return
    col = fm.kind == "column"
    per_row = np.asarray(fm.X[:, np.flatnonzero(col)].sum(axis=1)).ravel()
    assert per_row.max(initial=0) <= 1 and len(set(fm.names[col])) == int(col.sum())
    assert (per_row == 0).sum() >= int(pd.isna(table["x"]).sum())


@needs_snli
def test_snli_dev_top_hypothesis_features_match_the_readme(snli):
    zs = compute_z(snli, min_count=20)
    expected = {
        "contradiction": ["sleeping", "nobody", "is sleeping", "cat"],
        "entailment": ["outside", "outdoors", "a person", "people"],
        "neutral": ["tall", "for a", "his", "friends"],
    }
    top = zs.top(15, kind="ngram", field="hypothesis")
    for lab, feats in expected.items():
        got = top[top.label == lab].feature.str.replace("@hypothesis", "").tolist()
        assert all(f in got for f in feats), (lab, got)
        assert sum(f in got[:5] for f in feats) >= 2, (lab, got)
    assert top[top.label == "contradiction"].feature.iloc[0] == "sleeping@hypothesis"
    assert top[top.label == "entailment"].feature.iloc[0] == "outside@hypothesis"
    # Bonferroni over the features actually tested
    assert zs.z_star == pytest.approx(bonferroni_threshold(0.01, zs.n_tests))
    assert zs.z_max > 20  # overlap and hypothesis-only features are strongly biased on SNLI


# --------------------------------------------------------------------------- z-filtering


def test_z_filter_rejects_the_planted_cue_and_lowers_z():
    df = planted_nli(900, share=0.7)
    r = z_filter(df, batch_size=100, k=5, min_count=5)
    assert len(r.accepted) + len(r.rejected) == len(df)
    assert set(r.accepted_ids).isdisjoint(r.rejected_ids)
    assert r.accepted.index.is_monotonic_increasing or list(r.accepted.index) == [i for i in df.index if i in set(r.accepted_ids)]
    assert r.z_max_after < r.z_max_before
    cue_before = r.before.table.query("feature == 'nobody@hypothesis' and label == 'contradiction'").z.iloc[0]
    cue_after = r.after.table.query("feature == 'nobody@hypothesis' and label == 'contradiction'").z
    # the first batch meets an empty Z and keeps its cue examples; later ones are turned away
    assert cue_before > 15 and cue_after.iloc[0] < cue_before / 2
    # every rejection names a feature of the example's own label that it really has
    by_cue = r.rejected[r.rejected.rejected_by == "nobody@hypothesis"]
    assert len(by_cue) > 50
    assert (by_cue.label == "contradiction").all() and by_cue.hypothesis.str.contains("nobody").all()
    assert r.rejected.rejected_by.notna().all() and (r.rejected.rejected_z > 0).all()
    # the first batch meets an empty Z, so nothing in it is rejected
    assert r.history.rejected.iloc[0] == 0 and r.history["size"].sum() == len(df)
    # same seed, same answer
    r2 = z_filter(df, batch_size=100, k=5, min_count=5)
    assert list(r2.accepted_ids) == list(r.accepted_ids)


def test_z_filter_alpha_only_and_fraction_batch():
    df = planted_nli(600, share=0.7, seed=2)
    r = z_filter(df, batch_size=0.1, k=None, alpha=0.01, min_count=5)
    assert r.params["batch_size"] == 60
    assert (r.rejected.rejected_z > bonferroni_threshold(0.01, 1) - 1e-9).all()
    assert "nobody@hypothesis" in set(r.rejected.rejected_by)


@needs_snli
def test_z_filter_snli_dev_lowers_the_largest_z(snli):
    r = z_filter(snli, batch_size=500, k=20)
    assert r.z_max_before > 25
    assert r.z_max_after < r.z_max_before / 3
    assert 0.2 < len(r.accepted) / len(snli) < 0.9
    assert r.reasons().rejected.sum() == len(r.rejected)


def test_conditional_z_filter_screens_candidates_against_the_seed():
    seed = planted_nli(600, share=0.8, seed=5)
    cand = planted_nli(300, share=0.0, seed=6)
    # plant the seed's cue in some candidates of the biased label, and in some of another label
    cand = cand.copy()
    c_rows = cand.index[cand.label == "contradiction"][:30]
    e_rows = cand.index[cand.label == "entailment"][:30]
    cand.loc[c_rows, "hypothesis"] = "nobody " + cand.loc[c_rows, "hypothesis"]
    cand.loc[e_rows, "hypothesis"] = "nobody " + cand.loc[e_rows, "hypothesis"]
    r = z_filter(cand, seed_data=seed, batch_size=50, k=5, min_count=5)
    assert r.params["conditional"] and r.params["seed_size"] == 600
    assert set(r.accepted_ids) | set(r.rejected_ids) == set(cand.index)  # the seed is not part of the output
    # the cue of the seed's contradiction examples sends every contradiction carrying it away from the first batch
    assert set(c_rows) <= set(r.rejected_ids)
    assert (r.rejected.loc[c_rows, "rejected_by"] == "nobody@hypothesis").all()
    # entailment examples with the cue counter the bias: not rejected for it
    assert not (r.rejected.reindex(e_rows).rejected_by == "nobody@hypothesis").any()
    # z is measured on seed + accepted
    assert r.after.n_examples == 600 + len(r.accepted)
    assert r.after.z_max < r.before.z_max


@pytest.mark.skipif(not (SNLI.exists() and MNLI.exists()), reason="shared NLI data absent")
def test_conditional_z_filter_mnli_against_snli_seed(snli):
    mnli = pd.read_json(MNLI, lines=True).iloc[:3000]
    r = z_filter(mnli, seed_data=snli.iloc[:4000], batch_size=500)
    assert len(r.accepted) + len(r.rejected) == 3000
    assert r.after.z_max < r.before.z_max


# --------------------------------------------------------------------------- consistency filtering


def test_consistency_filter_drops_the_flipped_labels():
    rng = np.random.default_rng(7)
    n = 600
    cue = {"contradiction": "nobody", "entailment": "outside", "neutral": "tall"}
    y = LABELS[rng.integers(0, 3, n)]
    hyp = [f"{cue[l]} {' '.join(rng.choice(['a', 'man', 'dog', 'the', 'park'], 4))}" for l in y]
    flipped = rng.random(n) < 0.08
    noisy = y.copy()
    noisy[flipped] = [LABELS[(list(LABELS).index(l) + 1) % 3] for l in y[flipped]]
    df = pd.DataFrame({"premise": ["a man"] * n, "hypothesis": hyp, "label": noisy},
                      index=pd.Index([f"e{i}" for i in range(n)], name="id"))
    res = consistency_filter(df, threshold=0.3, random_state=0)
    dropped = res.scores.index[~res.scores.kept]
    assert set(df.index[flipped]) <= set(dropped)
    assert len(dropped) < 2 * flipped.sum()
    assert set(res.kept.index) | set(res.dropped.index) == set(df.index)
    assert (res.dropped.p_gold <= 0.3).all() and "predicted" in res.dropped.columns
    loose = res.with_threshold(0.05)
    assert len(loose.kept) >= len(res.kept) and loose.threshold == 0.05
    # a reference dataset trains the model instead of cross-fitting
    ref = consistency_filter(df.iloc[:300], reference=df.iloc[300:], threshold=0.3)
    assert ref.params["reference_size"] == 300 and len(ref.scores) == 300
    # a precomputed representation works as the model input
    X = np.column_stack([(df.hypothesis.str.startswith(c)).to_numpy(float) for c in cue.values()]).astype(np.float32)
    rx = consistency_filter(df, X=X, threshold=0.3)
    assert set(df.index[flipped]) <= set(rx.scores.index[~rx.scores.kept])


# --------------------------------------------------------------------------- bad input


def test_bad_inputs_give_clear_messages():
    df = planted_nli(120, seed=9)
    df["score"] = np.arange(len(df), dtype=float)
    with pytest.raises(InputError, match="'score' was chosen as text"):
        z_table(df, text=["hypothesis", "score"])
    with pytest.raises(InputError, match="only one class"):
        z_table(df.assign(label="entailment"), text=["hypothesis"])
    with pytest.raises(InputError, match="min_count=100000 is above every feature's count"):
        z_table(df, text=["hypothesis"], min_count=100_000)
    with pytest.raises(InputError, match="min_count"):
        z_table(df, text=["hypothesis"], min_count=0)
    with pytest.raises(InputError, match="not in the data"):
        z_table(df, label="gold", text=["hypothesis"])
    with pytest.raises(InputError, match="DataFrame or a core.data.dataset.Dataset"):
        z_table([1, 2, 3])
    with pytest.raises(InputError, match="no examples"):
        z_table(df.iloc[:0], text=["hypothesis"])
    with pytest.raises(InputError, match="missing in 1 rows"):
        z_table(df.assign(label=[None] + list(df.label[1:])), text=["hypothesis"])
    with pytest.raises(InputError, match="pair"):
        z_table(df, text=["premise", "hypothesis"], pair=("premise", "score"))


def test_bad_z_filter_inputs():
    df = planted_nli(120, seed=10)
    with pytest.raises(InputError, match="empty batches"):
        z_filter(df, batch_size=0)
    with pytest.raises(InputError, match="empty batches"):
        z_filter(df, batch_size=1.5)
    with pytest.raises(InputError, match="no examples"):
        z_filter(df.iloc[:0])
    with pytest.raises(InputError, match="give k"):
        z_filter(df, k=None, alpha=None)
    with pytest.raises(InputError, match="k=0"):
        z_filter(df, k=0)
    other_labels = df.assign(label=df.label.map({"contradiction": "c", "entailment": "e", "neutral": "n"}))
    with pytest.raises(InputError, match="labels .* that the seed dataset does not have"):
        z_filter(df, seed_data=other_labels)
    other_fields = df.rename(columns={"hypothesis": "sentence2"})
    with pytest.raises(InputError, match=r"seed dataset lacks the columns \['hypothesis'\]"):
        z_filter(df, seed_data=other_fields)
    with pytest.raises(InputError, match="only one class"):
        z_filter(df, seed_data=df.assign(label="neutral"))
    with pytest.raises(InputError, match="threshold"):
        consistency_filter(df, threshold=1.5)


def test_progress_and_cancel():
    df = planted_nli(300, seed=11)
    seen = []
    z_filter(df, batch_size=50, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions[-1] == 1.0 and all(0 <= f <= 1 for f in fractions)
    assert any("batch" in m for _, m in seen)
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        z_filter(df, cancel=stop)
    with pytest.raises(Cancelled):
        compute_z(df, cancel=stop)


# --------------------------------------------------------------------------- plots


def test_gardner_plot_and_bars():
    from artifact_lens.plots.zstats import gardner_plot, threshold_curve, top_features_bar, zfilter_history

    zs = compute_z(planted_nli(600, share=0.7, seed=12), min_count=3)
    fig = gardner_plot(zs, annotate=2)
    names = [t.name for t in fig.data]
    assert any(n.startswith("contradiction") for n in names) and any(n.startswith("z* =") for n in names)
    assert fig.layout.xaxis.type == "log"
    # significant points sit above the threshold curve, the grey ones below it
    sig = [t for t in fig.data if t.name and t.name.startswith("contradiction")][0]
    n, p = np.asarray(sig.x, float), np.asarray(sig.y, float)
    assert (p > zs.p0 + zs.z_star * np.sqrt(zs.p0 * (1 - zs.p0) / n) - 1e-9).all()
    # customdata[0] is the row of zs.table
    row = int(sig.customdata[0][0])
    assert zs.table.loc[row, "feature"] == sig.customdata[0][1]
    assert len(fig.layout.annotations) >= 2
    cn, cp = threshold_curve(zs.p0, zs.z_star, 1, 1000)
    assert (cp <= 1).all() and np.all(np.diff(cp) < 0)
    assert type(gardner_plot(zs, webgl=True).data[0]).__name__ == "Scattergl"
    small = gardner_plot(zs.table, kind="ngram", max_grey=10)
    assert "10 of" in small.data[0].name
    bars = top_features_bar(zs, k=4)
    assert len([t for t in bars.data if t.type == "bar"]) == 3
    assert all(len(t.y) <= 4 for t in bars.data)
    r = z_filter(planted_nli(300, seed=13), batch_size=50)
    assert len(zfilter_history(r).data) == 3


def test_gardner_title_counts_the_features_tested_like_the_summary():
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.plots.zstats import gardner_plot

    zs = compute_z(load_dataset("demo:nli:n=900"), min_count=5)
    n_tests = zs.summary()["n_tests"]
    assert f"Bonferroni over the {n_tests:,} features tested)" in gardner_plot(zs).layout.title.text
    shown = zs.table[zs.table["kind"] == "ngram"]["feature"].nunique()
    assert shown < n_tests
    assert f"{n_tests:,} features tested, {shown:,} shown" in gardner_plot(zs, kind="ngram").layout.title.text
