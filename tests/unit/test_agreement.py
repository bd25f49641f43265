"""Agreement statistics (`core.team.agreement`, issue 22): Krippendorff's α against the textbook table
and the `krippendorff` package, Cohen's κ against scikit-learn's, perfect and chance agreement,
the filter as a rater, and the τ/n the team's decisions support."""
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings, strategies as st
from sklearn.metrics import cohen_kappa_score

from artifact_lens.team.agreement import agreement, alpha_nominal, kappa, sides_of, supported_tau_n, team_sides
from artifact_lens.base.errors import InputError

krippendorff = pytest.importorskip("krippendorff")

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the nominal example: 4 observers,
# 12 units, values 1–5, missing cells; α = 0.743
TEXTBOOK = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
            [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


def long(matrix):
    """(units, values, reviewers) of a reviewers × units matrix with None for missing."""
    cells = [(u, v, r) for r, row in enumerate(matrix) for u, v in enumerate(row) if v is not None]
    return [c[0] for c in cells], [c[1] for c in cells], [c[2] for c in cells]


def test_the_textbook_example():
    units, values, _ = long(TEXTBOOK)
    assert alpha_nominal(units, values) == pytest.approx(0.743, abs=5e-4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=6, max_size=6), min_size=2, max_size=5))
def test_alpha_equals_the_reference_implementation(matrix):
    """Property: on any reviewers × examples table with gaps, α is the `krippendorff` package's."""
    units, values, _ = long(matrix)
    pairable = pd.Series(units).value_counts()
    assume((pairable >= 2).any() and len(set(v for u, v in zip(units, values) if pairable[u] >= 2)) > 1)
    ref = krippendorff.alpha(reliability_data=[[np.nan if v is None else v for v in row] for row in matrix],
                             level_of_measurement="nominal")
    assert alpha_nominal(units, values) == pytest.approx(ref, abs=1e-9)


def test_perfect_agreement_is_one_and_independent_reviewers_are_near_zero():
    rng = np.random.default_rng(0)
    truth = rng.choice(["keep", "remove"], 600)
    same = pd.DataFrame([(i, r, d) for r in "abc" for i, d in enumerate(truth)],
                        columns=["example_id", "reviewer", "decision"])
    assert agreement(same, bootstrap=50).alpha == pytest.approx(1.0)
    noise = pd.DataFrame([(i, r, rng.choice(["keep", "remove"])) for r in "abc" for i in range(600)],
                         columns=["example_id", "reviewer", "decision"])
    found = agreement(noise, bootstrap=200)
    assert abs(found.alpha) < 0.06
    low, high = found.alpha_interval
    assert low < found.alpha < high and low < 0 < high          # chance is inside the interval


def test_one_side_everywhere_leaves_alpha_undefined_and_says_so():
    frame = pd.DataFrame([(i, r, "keep") for r in "ab" for i in range(20)], columns=["example_id", "reviewer", "decision"])
    found = agreement(frame, bootstrap=10)
    assert math.isnan(found.alpha) and "undefined" in found.notes[0]
    single = pd.DataFrame([(0, "a", "keep"), (1, "b", "remove")], columns=["example_id", "reviewer", "decision"])
    assert "No example has two reviews" in agreement(single).notes[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("xyz"), st.sampled_from("xyz")), min_size=2, max_size=40))
def test_kappa_is_scikit_learns(pairs):
    a, b = zip(*pairs)
    ours = kappa(a, b)
    if len(set(a) | set(b)) == 1:
        assert math.isnan(ours)                                  # nothing to agree on beyond chance
    else:
        assert ours == pytest.approx(cohen_kappa_score(a, b), nan_ok=True)


def reviews_table():
    """Three reviewers on ten examples; the filter removed e0–e4. c always agrees with the
    filter; a keeps e0 and e1 (removed by the filter); b removes e9 (kept by the filter)."""
    rows = []
    for i in range(10):
        rows.append((f"e{i}", "c", "agree"))
        rows.append((f"e{i}", "a", "keep" if i < 2 else "agree"))
        rows.append((f"e{i}", "b", "remove" if i == 9 else "agree"))
    frame = pd.DataFrame(rows, columns=["example_id", "reviewer", "decision"])
    removed = pd.Series([i < 5 for i in range(10)], index=[f"e{i}" for i in range(10)])
    return frame, removed


def test_agree_takes_the_filters_side_and_needs_it():
    frame, removed = reviews_table()
    sided = sides_of(frame, removed)
    assert sided.set_index(["example_id", "reviewer"]).loc[("e0", "c"), "side"] == "remove"
    assert sided.set_index(["example_id", "reviewer"]).loc[("e0", "a"), "side"] == "keep"
    with pytest.raises(InputError, match="give the filter's decisions"):
        sides_of(frame)
    with pytest.raises(InputError, match="did not score"):
        sides_of(frame, removed.drop("e3"))


def test_the_filter_as_a_rater_by_hand():
    frame, removed = reviews_table()
    labels = pd.Series(["x"] * 5 + ["y"] * 5, index=[f"e{i}" for i in range(10)])
    found = agreement(frame, removed, labels=labels, features={"nobody": ["e0", "e1", "e2"]}, bootstrap=20)
    per = found.per_reviewer.set_index("reviewer")
    assert per.loc["c", "agreement_with_filter"] == 1.0 and per.loc["c", "kappa_with_filter"] == 1.0
    assert per.loc["a", "agreement_with_filter"] == pytest.approx(0.8)
    # the team's word is the majority: c and b outvote a on e0/e1, c and a outvote b on e9
    assert found.filter_overall["agreement"] == 1.0 and found.filter_overall["examples"] == 10
    # a's raw agreement with the rest: on e0, e1 a differs from both others, on e9 from b (5 of 20 comparisons)
    assert per.loc["a", "agreement_with_others"] == pytest.approx(15 / 20)
    pairs = found.pairs.set_index(["reviewer_a", "reviewer_b"])
    assert pairs.loc[("a", "b"), "shared"] == 10 and pairs.loc[("a", "b"), "agreement"] == pytest.approx(0.7)
    assert pairs.loc[("a", "b"), "kappa"] == pytest.approx(cohen_kappa_score(
        ["keep"] * 2 + ["remove"] * 3 + ["keep"] * 5, ["remove"] * 5 + ["keep"] * 4 + ["remove"]))
    # given the team's word (e.g. a curator's keep on e0 stands), the overrule shows per label and feature
    team = pd.Series({f"e{i}": ("keep" if i in (0, 9) else "remove" if i < 5 else "keep") for i in range(10)})
    found = agreement(frame, removed, team=team, labels=labels, features={"nobody": ["e0", "e1", "e2"]}, bootstrap=0)
    by_label = found.filter_by_label.set_index("label")
    assert by_label.loc["x", "overruled"] == 1 and by_label.loc["x", "overruled_share"] == pytest.approx(0.2)
    assert by_label.loc["y", "overruled"] == 0
    assert found.filter_by_feature.set_index("feature").loc["nobody", "overruled_share"] == pytest.approx(1 / 3)
    assert found.filter_overall["kept_what_the_filter_removed"] == 1
    json.dumps(found.to_dict(), allow_nan=False)                   # the manifest's record is plain JSON


def test_a_tie_goes_to_the_latest_decision():
    frame = pd.DataFrame([("e0", "a", "keep"), ("e0", "b", "remove"), ("e1", "b", "remove"), ("e1", "a", "keep")],
                         columns=["example_id", "reviewer", "decision"])
    assert team_sides(sides_of(frame)).to_dict() == {"e0": "remove", "e1": "keep"}


def test_pairs_with_few_shared_examples_get_no_kappa():
    frame = pd.DataFrame([(f"e{i}", r, d) for i, d in enumerate("kkrrk") for r in "ab"],
                         columns=["example_id", "reviewer", "decision"]).replace({"k": "keep", "r": "remove"})
    assert math.isnan(agreement(frame, min_shared=6, bootstrap=0).pairs["kappa"][0])
    assert agreement(frame, min_shared=5, bootstrap=0).pairs["kappa"][0] == pytest.approx(1.0)
    with pytest.raises(InputError, match="min_shared"):
        agreement(frame, min_shared=0)


def test_the_tau_and_n_the_team_supports(toy_run):
    """A team whose word is the filter's at one τ/n: that τ/n (or one that keeps the same reviewed
    examples) agrees fully and is the best; another τ/n agrees less."""
    _, run = toy_run
    bounds = run.trajectory.live_bounds()
    n0 = int(round((bounds["n_min"] + bounds["N"]) / 2))
    truth = run.trajectory.retained_for(0.5, n0)
    ids = np.asarray(run.ids).astype(str)
    reviewed = np.random.default_rng(1).choice(len(ids), 150, replace=False)
    team = pd.Series(np.where(truth[reviewed], "keep", "remove"), index=ids[reviewed])
    taus = sorted({*np.round(np.linspace(bounds["tau_min"], 1, 6), 2), 0.5})
    grid, best = supported_tau_n(run, team, taus=taus, ns=[bounds["n_min"], n0, bounds["N"] - 1], bootstrap=50)
    assert best["agreement"] == 1.0 and best["examples"] == 150
    at_best = run.trajectory.retained_for(best["tau"], best["n"])[reviewed]
    assert np.array_equal(at_best, truth[reviewed])
    assert grid["agreement"].min() < 1.0 and 0 < best["stability"] <= 1
    assert best["n_range"][0] <= best["n"] <= best["n_range"][1]
    with pytest.raises(InputError, match="none of the reviewed examples"):
        supported_tau_n(run, pd.Series({"not-an-id": "keep"}))


def test_the_default_grid_covers_what_the_run_answers(toy_run):
    _, run = toy_run
    bounds = run.trajectory.live_bounds()
    ids = np.asarray(run.ids).astype(str)
    grid, best = supported_tau_n(run, pd.Series("keep", index=ids[:40]), bootstrap=10)
    assert grid["tau"].min() == pytest.approx(bounds["tau_min"]) and grid["tau"].max() == 1.0
    assert grid["n"].min() == bounds["n_min"] and grid["n"].max() == bounds["N"] - 1
    assert best["n"] == bounds["N"] - 1            # a team that keeps everything supports the least filtering


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), st.sampled_from(["keep", "remove"])),
                min_size=2, max_size=30), st.data())
def test_a_repeated_decision_counts_once(rows, data):
    """Property: appending earlier copies of some decisions (a reviewer repeating themselves) changes
    neither α nor the pairs; each reviewer's latest decision on an example counts once."""
    frame = pd.DataFrame([{"example_id": f"e{u}", "reviewer": f"r{r}", "decision": d} for u, r, d in rows])
    frame = frame.drop_duplicates(["example_id", "reviewer"], keep="last")
    repeated = data.draw(st.lists(st.sampled_from(range(len(frame))), max_size=5), label="repeated rows")
    doubled = pd.concat([frame.iloc[repeated], frame], ignore_index=True)
    once, twice = agreement(frame, bootstrap=0), agreement(doubled, bootstrap=0)
    assert (math.isnan(once.alpha) and math.isnan(twice.alpha)) or once.alpha == pytest.approx(twice.alpha)
    assert once.pairs.fillna(-9).equals(twice.pairs.fillna(-9))


@pytest.mark.parametrize("bootstrap", [-1, -100, 1.5, True, "10"])
def test_a_bootstrap_count_that_is_not_one_is_refused(bootstrap):
    frame = pd.DataFrame({"example_id": ["a", "a"], "reviewer": ["x", "y"], "decision": ["keep", "remove"]})
    with pytest.raises(InputError, match="bootstrap"):
        agreement(frame, bootstrap=bootstrap)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(["keep", "remove"]), st.sampled_from(["keep", "remove"])), min_size=2,
                max_size=60))
def test_the_agreement_expected_by_chance_is_what_kappa_corrects_for(pairs):
    """Issue 45, walk item 6: "κ 0.00" beside "agreement 78 %" reads as a contradiction; the page now
    shows the agreement chance gives, p_e from the marginals, which is exactly what κ subtracts."""
    from sklearn.metrics import cohen_kappa_score

    from artifact_lens.dashboard.services.agreement import chance_agreement

    team, filt = map(list, zip(*pairs))
    p_o = float(np.mean([a == b for a, b in pairs]))
    p_e = sum((team.count(c) / len(team)) * (filt.count(c) / len(filt)) for c in ("keep", "remove"))
    kappa = cohen_kappa_score(team, filt) if p_e < 1 else float("nan")
    found = chance_agreement({"agreement": p_o, "kappa": kappa})
    if p_e >= 1 or kappa != kappa or kappa >= 1:   # (perfect agreement: p_e cannot be told from p_o and κ)
        assert found is None
    else:
        assert found == pytest.approx(p_e, abs=1e-9)


def test_a_supported_tau_n_says_how_few_reviews_it_rests_on():
    from artifact_lens.dashboard.services.agreement import FEW_REVIEWS, few_reviews

    assert "9 reviewed examples: too few to lean on" in few_reviews({"examples": 9})
    assert few_reviews({"examples": FEW_REVIEWS}) == f"It rests on {FEW_REVIEWS} reviewed examples."
