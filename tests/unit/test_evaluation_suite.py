"""Issue 12's evaluation: baselines, the model-family table, bad input per cell, the coarse
action, the external difficulty check, the synthetic report, the stored evaluation, figures."""
import json

import numpy as np
import pandas as pd
import pytest

from artifact_lens.aflite import AFLite
from artifact_lens.data.demos import make_circles
from artifact_lens.base.errors import InputError
from artifact_lens.evaluation import (Evaluation, EvaluationOptions, EvaluationStore, coarse_action, coarse_stop,
                             difficulty_check, evaluate, evaluation_sets, family_table, heldout_split,
                             knn_distances, subset_accuracy, synthetic_report, training_sets)


@pytest.fixture(scope="module")
def circles():
    ds = make_circles(n=1000, random_state=1)
    X = np.stack(ds.table[ds.embedding].to_numpy()).astype(np.float32)
    y = ds.y
    kept = AFLite(n_partitions=32, slice_size=0.05, tau=0.0, target_size=0.3, random_state=0).fit(X, y).retained_
    return ds, X, y, kept


def gaussians(n=400, d=4, classes=3, sep=4.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 0] += sep * y
    return X, y


def test_training_sets_are_drawn_from_the_training_split_with_the_aflite_size(circles):
    _, X, y, kept = circles
    split = heldout_split(y, 0.2, random_state=0)
    assert not (split.train & split.test).any() and (split.train | split.test).all()
    sets, notes = training_sets(X, y, kept, split, stratified=True, random_state=0)
    size = int((split.train & kept).sum())
    assert notes == []
    for name in ("aflite", "random", "single-model"):
        assert sets[name].sum() == size, name
        assert not (sets[name] & split.test).any(), name
    # stratified: the random set keeps the training split's label shares (largest remainders: within one)
    full_share = pd.Series(y[split.train]).value_counts(normalize=True).sort_index()
    got = pd.Series(y[sets["random"]]).value_counts().reindex(full_share.index)
    assert (np.abs(got.to_numpy() - full_share.to_numpy() * size) <= 1).all()
    evals = evaluation_sets(kept, split)
    assert (evals["AFLite-filtered"] == (split.test & kept)).all()


def test_family_table_shows_the_filtered_split_is_harder_for_a_linear_model(circles):
    _, X, y, kept = circles
    split = heldout_split(y, 0.25, random_state=0)
    sets, _ = training_sets(X, y, kept, split, random_state=0)
    table = family_table(X, y, sets, evaluation_sets(kept, split), families=("logistic", "knn"), random_state=0)
    assert len(table) == 2 * 4 * 2
    assert (table.loc[table.train_set == "full", "delta_full"] == 0).all()
    acc = table.set_index(["family", "train_set", "eval_set"])["accuracy"]
    assert acc["logistic", "full", "i.i.d."] > 0.75                      # the planted bias makes it easy
    assert acc["logistic", "full", "AFLite-filtered"] < acc["logistic", "full", "i.i.d."] - 0.2
    # bootstrap intervals on this small evaluation split bracket the accuracy
    assert (table["ci_low"] <= table["accuracy"]).all() and (table["accuracy"] <= table["ci_high"]).all()
    assert (table["note"] == "").all()


def test_bootstrap_is_skipped_on_large_evaluation_sets(circles):
    _, X, y, kept = circles
    split = heldout_split(y, 0.25, random_state=0)
    sets, _ = training_sets(X, y, kept, split, random_state=0)
    table = family_table(X, y, {"full": sets["full"]}, evaluation_sets(kept, split), families=("logistic",),
                         bootstrap="auto", bootstrap_below=100)
    assert table.set_index("eval_set").loc["i.i.d.", "ci_low"] != table.set_index("eval_set").loc["i.i.d.", "ci_low"]  # NaN
    assert np.isfinite(table.set_index("eval_set").loc["AFLite-filtered", "ci_low"])   # 75-ish examples < 100


def test_evaluation_labels_the_training_set_lacks_are_named_and_the_rest_is_computed():
    X, y = gaussians()
    split = heldout_split(y, 0.25, random_state=0)
    retained = y != 2                        # AFLite removed every example of label 2
    sets, _ = training_sets(X, y, retained, split, random_state=0)
    table = family_table(X, y, sets, evaluation_sets(retained, split), families=("logistic",))
    row = table.set_index(["train_set", "eval_set"]).loc[("aflite", "i.i.d.")]
    assert "label(s) 2" in row["note"] and "aflite training set lacks" in row["note"]
    assert row["accuracy"] <= 2 / 3 + 0.01           # label 2 is a third of the split and counts as wrong
    full = table.set_index(["train_set", "eval_set"]).loc[("full", "i.i.d.")]
    assert full["note"] == "" and full["accuracy"] > 0.9
    assert any("lacks" in n for n in table.attrs["notes"])


def test_a_family_that_does_not_converge_is_noted_and_still_reported():
    X, y = gaussians()
    split = heldout_split(y, 0.25, random_state=0)
    sets, _ = training_sets(X, y, np.ones(len(y), bool), split, random_state=0)
    table = family_table(X, y, {"full": sets["full"]}, evaluation_sets(np.ones(len(y), bool), split),
                         families=("mlp", "logistic"), family_params={"mlp": {"max_iter": 1}})
    mlp = table[table.family == "mlp"]
    assert mlp["note"].str.contains("did not converge in max_iter = 1").all()
    assert mlp["accuracy"].notna().all()
    assert (table.loc[table.family == "logistic", "note"] == "").all()


def test_fewer_examples_than_k_or_folds_is_named_per_cell():
    X, y = gaussians(n=60)
    train = {"tiny": np.r_[np.ones(9, bool), np.zeros(51, bool)], "full": np.r_[np.ones(45, bool), np.zeros(15, bool)]}
    test = {"i.i.d.": np.r_[np.zeros(45, bool), np.ones(15, bool)]}
    table = family_table(X, y, train, test, families=("knn",))
    tiny = table.set_index("train_set").loc["tiny"]
    assert np.isnan(tiny["accuracy"]) and "K = 15" in tiny["note"] and "only 9" in tiny["note"]
    assert np.isfinite(table.set_index("train_set").loc["full", "accuracy"])
    # cross-validated subsets: too few per label for the folds -> NaN and a note naming the label
    acc = subset_accuracy(X, y, {"tiny": train["tiny"], "all": np.ones(60, bool)}, folds=5, errors="note")
    assert acc.set_index("subset").loc["tiny", "accuracy"] != acc.set_index("subset").loc["tiny", "accuracy"]
    assert "too few examples per label for 5-fold" in acc.set_index("subset").loc["tiny", "note"]
    assert acc.set_index("subset").loc["all", "accuracy"] > 0.9
    # KNN distances: a class with fewer retained training examples than K is measured over those it has
    retained = np.ones(60, bool)
    retained[np.flatnonzero(y == 0)[:-3]] = False
    knn = knn_distances(X, y, retained, ks=(1, 10), held_out=0.2)
    row = knn[(knn.label == 0) & (knn.against == "same class") & (knn.K == 10)].iloc[0]
    assert "fewer training examples than K = 10" in row["note"] and "after has" in row["note"]
    assert knn[(knn.label == 1) & (knn.K == 1)]["note"].eq("").all()


def test_coarse_stop_rule_follows_algorithm_1():
    fr = [0.1, 0.2, 0.3, 0.4, 0.5]
    assert coarse_stop(fr, [0.5, 0.6, 0.7, 0.7, 0.8]) == 0.3
    assert coarse_stop(fr, [0.5, 0.6, 0.7, 0.7, 0.8], tolerance=0.15) == 0.1
    assert coarse_stop(fr, [0.5, 0.6, 0.7, 0.8, 0.9]) == 0.5
    assert coarse_stop(fr, [np.nan, 0.6, 0.5, 0.8, 0.9]) == 0.2


def test_coarse_action_suggests_a_small_fraction_when_accuracy_saturates_early():
    X, y = gaussians(n=600, sep=6.0)
    curve = coarse_action(X, y, step=0.1, random_state=0)
    assert list(curve["fraction"]) == pytest.approx([0.1 * i for i in range(1, 11)])
    assert curve.attrs["fraction"] == 0.1 and curve.attrs["size"] == 60
    assert curve["accuracy"].iloc[0] > 0.95
    with pytest.raises(InputError, match="step"):
        coarse_action(X, y, step=0.0)


def test_difficulty_check_compares_groups_and_names_missing_and_non_numeric_values():
    rng = np.random.default_rng(0)
    retained = np.r_[np.ones(150, bool), np.zeros(150, bool)]
    hard = np.where(retained, rng.normal(2.0, 1.0, 300), rng.normal(0.0, 1.0, 300))
    summary, hist = difficulty_check(hard, retained, name="models_wrong", permutations=500)
    means = summary.set_index("group")["mean"]
    assert means["retained"] > means["random"] > means["removed"]
    assert summary.attrs["p_value"] < 0.01
    assert set(hist["group"]) == {"retained", "removed", "random"}
    assert np.allclose(hist.groupby("group")["share"].sum(), 1.0)
    noise, _ = difficulty_check(rng.normal(size=300), retained, permutations=500)
    assert noise.attrs["p_value"] > 0.05
    values = pd.Series(hard, dtype=object)
    values[:5] = None
    values[5:8] = "hard"
    summary, _ = difficulty_check(values, retained, name="rating", permutations=200)
    notes = " ".join(summary.attrs["notes"])
    assert "rating column has 5 missing" in notes and "3 non-numeric value(s) (e.g. 'hard')" in notes
    assert summary.set_index("group").loc["retained", "n"] == 142 and summary.attrs["p_value"] < 0.01


def test_synthetic_report_finds_the_planted_bias():
    table, points = synthetic_report(separations=(0.2, 0.6), n=800, random_state=0)
    assert list(table["separation"]) == [0.2, 0.6]
    assert table.loc[0, "flipped"] > 0 and table.loc[1, "flipped"] == 0     # flips at the largest separation only
    assert (table["biased_removed"] > 0.6).all()
    assert (table["linear_after"] < table["linear_before"] - 0.2).all()
    assert (table["rbf_after"] > 0.85).all()
    assert set(points.columns) >= {"x0", "x1", "label", "retained"} and len(points) == 1600


def test_evaluate_round_trips_through_the_store_and_draws_every_figure(tmp_path):
    from artifact_lens.evaluation.plots import figures
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=450")
    rep = represent(ds, "tfidf-svd:fields=premise+hypothesis,dim=16", cache_dir=tmp_path)
    run = fit_run(ds, rep, dict(n_partitions=8, slice_size=0.05, tau=0.0, target_size=0.5, random_state=0))
    opts = EvaluationOptions(families=("logistic", "knn"), knn_ks=(1, 5), coarse_step=0.25)
    ev = evaluate(ds, rep, run.retained, history=run.history, n_phases_chosen=2, options=opts,
                  context={"run_key": run.key, "tau": 0.0, "n": int(run.retained.sum())})
    assert ev.context["partial_representation"] == "tfidf-svd:fields=hypothesis"   # the last text field
    assert ev.tables["partial_input"]["representation"].iloc[0].startswith("tfidf-svd:fields=hypothesis")
    assert ev.tables["phases"]["chosen"].sum() == 2
    assert ev.summary["coarse_n"] == round(ev.summary["coarse_fraction"] * 450)
    store = EvaluationStore(tmp_path / "evaluations")
    key = store.put(ev)
    back = store.get(key)
    assert back.key == ev.key and back.summary == json.loads(json.dumps(ev.to_dict()))["summary"]
    pd.testing.assert_frame_equal(back.tables["families"], ev.tables["families"], check_dtype=False)
    assert [e.key for e in store.for_run(run.key)] == [key] and store.for_run("other") == []
    figs = figures(back)
    assert set(figs) == {"families", "partial_input", "knn", "phases", "coarse"}
    assert figs["phases"].layout.shapes[0].x0 == 1.5          # after the two chosen phases
    assert figs["coarse"].layout.shapes[0].x0 == ev.summary["coarse_fraction"]


def test_the_default_tolerance_ignores_a_dip_within_the_noise_and_stops_at_a_real_plateau():
    fr = [0.1, 0.2, 0.3, 0.4]
    noise = [0.011] * 4                                   # one standard error of each accuracy
    assert coarse_stop(fr, [0.60, 0.70, 0.699, 0.75], noise) == 0.2   # −0.001: not a gain beyond the noise …
    assert coarse_stop(fr, [0.60, 0.70, 0.699, 0.75]) == 0.2          # … nor with tolerance 0
    assert coarse_stop(fr, [0.60, 0.65, 0.70, 0.75], noise) == 0.4    # gains of 0.05 > noise: grow to the end
    assert coarse_stop(fr, [0.60, 0.605, 0.70, 0.75], noise) == 0.1   # +0.005 < noise: stop there
    X, y = gaussians(n=600, sep=1.0)
    curve = coarse_action(X, y, step=0.25, random_state=0)             # tolerance=None: the noise rule
    m = int(round(0.2 * 600))
    assert curve["noise"].to_numpy() == pytest.approx(np.sqrt(curve["accuracy"] * (1 - curve["accuracy"]) / m), rel=0.05)
    assert curve.attrs["tolerance"] is None
    assert curve.attrs["fraction"] == coarse_stop(list(curve["fraction"]), curve["accuracy"], curve["noise"])
    with pytest.raises(InputError, match=r"tolerance=-0.1 must be an accuracy gain in \[0, 1\).*or None"):
        coarse_action(X, y, tolerance=-0.1)


@pytest.mark.parametrize("values", [
    np.r_[np.ones(150, bool), np.zeros(150, bool)],                        # booleans (a yes/no column)
    np.where(np.r_[np.ones(150, bool), np.zeros(150, bool)], "True", "false").astype(object),   # the words
    np.r_[np.ones(150, int), np.zeros(150, int)],                          # integers
])
def test_a_yes_no_or_integer_column_is_an_external_difficulty(values):
    retained = np.r_[np.ones(140, bool), np.zeros(10, bool), np.zeros(150, bool)]   # the filter kept the hard ones
    summary, _ = difficulty_check(values, retained, name="hard", permutations=300)
    means = summary.set_index("group")["mean"]
    assert means["retained"] == 1.0 and means["removed"] == pytest.approx(10 / 160)
    assert not summary.attrs["notes"] and summary.attrs["p_value"] < 0.01


def _evaluation(families, partial=None, majority=0.34):
    cells = dict(train_size=8000, eval_size=2000, ci_low=np.nan, ci_high=np.nan, delta_full=0.0, note="")
    rows = [{"family": f, "train_set": "full", "eval_set": e, "accuracy": a, **cells}
            for f, accs in families.items() for e, a in zip(("i.i.d.", "AFLite-filtered"), accs)]
    tables = {"families": pd.DataFrame(rows)}
    if partial is not None:
        tables["partial_input"] = pd.DataFrame([{"family": "logistic", "train_set": "full", "eval_set": e,
                                                 "accuracy": a, "representation": "tfidf-svd:fields=hypothesis",
                                                 **cells}
                                                for e, a in zip(("i.i.d.", "AFLite-filtered"), partial)])
    return Evaluation(options={}, context={"partial_representation": "tfidf-svd:fields=hypothesis"}, tables=tables,
                      summary={"majority": majority})


def test_the_verdict_says_in_words_what_the_numbers_show():
    from artifact_lens.evaluation.verdict import verdict

    harder = verdict(_evaluation({"logistic": (0.50, 0.37), "knn": (0.48, 0.35)}, partial=(0.62, 0.40)))
    assert harder.startswith("The filtered split is harder: models trained on the full training set (2 families, "
                             "mean) score 0.49 on the i.i.d. split and 0.36 on the AFLite-filtered split; always "
                             "guessing the majority label scores 0.34.")
    assert "It gives less away: a model reading only tfidf-svd:fields=hypothesis drops from 0.62 to 0.40." in harder
    same = verdict(_evaluation({"logistic": (0.50, 0.495)}, partial=(0.60, 0.60)))
    assert same.startswith("The filtered split is not measurably harder") and "within the noise (±0.03)" in same
    assert "It does not give less away" in same
    easier = verdict(_evaluation({"logistic": (0.50, 0.70)}))
    assert easier.startswith("The filtered split is not harder: models trained on the full training set (1 family, "
                             "mean) score 0.70 on it against 0.50")
    assert verdict(Evaluation(options={}, context={}, tables={})) == ""


def test_the_report_has_the_verdict_no_row_numbers_one_header_row_and_the_datasets_name(tmp_path):
    from artifact_lens.exports.report import html_report, report_name

    ev = _evaluation({"logistic": (0.50, 0.37)})
    ev.context.update(dataset="/srv/artifact-lens/cache/uploads/ab12cd.csv", tau=0.75, n=2952)
    ev.tables["knn"] = pd.DataFrame({"label": ["a", "a"], "against": ["same", "same"], "K": [1, 5],
                                     "before": [0.1, 0.2], "after": [0.2, 0.3]})
    page = html_report(ev)
    assert "/srv/artifact-lens" not in page and "Evaluation of a filtered split: ab12cd.csv" in page
    assert "The filtered split is harder" in page
    knn = page[page.index("KNN distances"):]
    table = knn[knn.index("<table"):knn.index("</table>")]
    assert table.count("<tr") == 3 and "<th>K</th>" in table and "<th>0</th>" not in table   # header + 2 rows
    families = page[page.index("<table", page.index("Model families")):]
    assert families[:families.index("</thead>")].count("<tr") == 1 and "<th>family</th>" in families[:2000]
    assert report_name(ev) == "ab12cd-evaluation-tau0.75-n2952.html"


def test_the_report_carries_the_certificates_comparison_escaped():
    """Issue 34: with the gate's comparison of the dataset's and the split's certificates, the
    report says which measures got worse and shows the table; measure names are text, never HTML."""
    from artifact_lens.certificate.gate import verdict
    from artifact_lens.exports.report import html_report

    ev = _evaluation({"logistic": (0.50, 0.37)})
    table = pd.DataFrame({"measure": ["zstats.z_max[<b>x</b>]", "partial_input.accuracy"], "before": [9.0, 0.6],
                          "after": [12.0, 0.5], "change": [3.0, -0.1], "allowed": [2.77, 0.02], "ok": [False, True],
                          "status": ["fail", "pass"], "why": ["rose by 3, more than 2.77", "within the rule"]})
    table.attrs["verdict"] = verdict(table)   # as `compare` gives it
    page = html_report(ev, certificate=table)
    section = page[page.index("<h2>Artifact certificate</h2>"):]
    assert "worse beyond their uncertainty: zstats.z_max[&lt;b&gt;x&lt;/b&gt;]" in section and "<b>x</b>" not in section
    assert section.count("<tr") == 3
    assert "Artifact certificate" not in html_report(ev)


def test_a_partial_input_equivalent_to_phi_is_not_trained_twice(tmp_path, monkeypatch):
    """A hypothesis-only Φ (another dimension) against the default hypothesis-only partial input:
    the families table is the partial-input table, said in a note, not a second training."""
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run
    from artifact_lens.data.sources import load_dataset

    ds = load_dataset("demo:nli:n=450")
    rep = represent(ds, "tfidf-svd:fields=hypothesis,dim=16", cache_dir=tmp_path)
    run = fit_run(ds, rep, dict(n_partitions=8, slice_size=0.05, tau=0.0, target_size=0.5, random_state=0))
    import artifact_lens.representations

    def no_second_phi(*args, **kwargs):
        raise AssertionError(f"a second Φ was built: {args[1:]}")

    monkeypatch.setattr(artifact_lens.representations, "represent", no_second_phi)
    ev = evaluate(ds, rep, run.retained, options=EvaluationOptions(families=("logistic",), knn_ks=(1,), coarse_step=0.5),
                  context={"run_key": run.key, "tau": 0.0, "n": int(run.retained.sum())})
    pd.testing.assert_frame_equal(ev.tables["partial_input"], ev.tables["families"])
    assert any("not trained twice" in n for n in ev.notes)


def test_an_evaluation_cut_short_by_a_stop_is_told_apart_from_one_running_elsewhere(tmp_path):
    import os
    import subprocess
    import sys

    import artifact_lens.evaluation.suite as suite

    store = EvaluationStore(tmp_path / "evaluations")
    opts = {"families": ["logistic"]}
    store.started("k1", run_key="r", tau=0.75, n=100, options=opts)
    assert [r["key"] for r in store.interrupted("r", running={"k1"})] == []      # this process runs it
    assert [r["key"] for r in store.interrupted("r")] == ["k1"]                  # this process does not
    assert store.interrupted("other run") == []
    store.ended("k1")                                                            # a cancel or an error
    assert store.interrupted("r") == []

    def record_of(key, **fields):
        path = tmp_path / "evaluations" / "started" / f"{key}.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))

    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        store.started("k2", run_key="r", tau=0.5, n=80, options=opts)
        record_of("k2", pid=alive.pid, instance="another process")
        assert store.interrupted("r") == []                                      # still at work elsewhere
        store.started("k3", run_key="r", tau=0.5, n=90, options=opts)
        record_of("k3", pid=os.getpid(), instance="the server before a restart")  # pid 1 in a container, again
        assert [r["key"] for r in store.interrupted("r")] == ["k3"]
    finally:
        alive.kill()
        alive.wait()
    assert sorted(r["key"] for r in store.interrupted("r")) == ["k2", "k3"]      # its process is gone
    record_of("k2", host="another-host")
    assert [r["key"] for r in store.interrupted("r")] == ["k3"]                  # trusted: not ours to judge
    assert suite._INSTANCE and store.interrupted("r")[0]["options"] == opts


def test_a_started_record_never_leads_outside_its_folder(tmp_path):
    """A record read back names its key by its own file: one whose content says ``../..`` cannot
    make `ended` delete a file outside ``started/``."""
    store = EvaluationStore(tmp_path / "evaluations")
    victim = tmp_path / "victim.json"
    victim.write_text("{}")
    store.started("k1", run_key="r", tau=0.5, n=10, options={})
    path = tmp_path / "evaluations" / "started" / "k1.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "key": "../../victim", "pid": 0}))
    (found,) = store.interrupted("r")
    assert found["key"] == "k1"
    for bad in ("../../victim", "/tmp/x", ""):
        with pytest.raises(InputError, match="is not one this tool makes"):
            store.ended(bad)
    store.ended(found["key"])
    assert victim.exists() and not path.exists()
