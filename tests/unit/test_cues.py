"""The cue-by-cue comparison (`core.certificate.cues.cue_changes`) on generated cue tables: what
it lists is always a cue leaning towards its label beyond the line, finite (valid JSON), and a
table compared with itself lists nothing."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from artifact_lens.certificate.cues import cue_changes

LABELS = ["a", "b", "c"]


@st.composite
def certificates(draw):
    features = draw(st.lists(st.sampled_from([f"w{i}" for i in range(12)]), min_size=1, max_size=12, unique=True))
    counts = {lab: [] for lab in LABELS}
    support = []
    for _ in features:
        per = [draw(st.integers(0, 40)) for _ in LABELS]
        support.append(max(sum(per), 2))
        per[0] += support[-1] - sum(per)
        for lab, k in zip(LABELS, per):
            counts[lab].append(k)
    totals = {lab: draw(st.integers(0, 500)) + sum(counts[lab]) for lab in LABELS}
    return {"dataset": {"labels": totals}, "settings": {"min_count": draw(st.integers(1, 6))},
            "cues": {"min_count": 2, "features": features, "support": support, "counts": counts}}


@settings(max_examples=150, deadline=None)
@given(before=certificates(), after=certificates(), alpha=st.floats(1e-6, 0.5))
def test_what_is_listed_leans_towards_its_label_beyond_the_line(before, after, alpha):
    found = cue_changes(before, after, alpha)
    json.dumps(found.to_dict("records"), allow_nan=False)   # finite, whatever the counts
    for cue in found.itertuples(index=False):
        assert cue.z > cue.line and cue.share_after > cue.chance
        assert cue.support_after >= after["settings"]["min_count"]
    assert cue_changes(after, after, alpha).empty   # nothing changed: nothing is new or stronger


def _one_feature(support: int, counts: dict, totals: dict) -> dict:
    return {"dataset": {"labels": totals}, "settings": {"min_count": 5},
            "cues": {"min_count": 2, "features": ["indeed@hypothesis", "filler"], "support": [support, 40],
                     "counts": {lab: [counts.get(lab, 0), 40 if lab == "n" else 0] for lab in totals}}}


def test_an_old_rare_feature_that_now_gives_away_many_rows_is_named():
    # MNLI's case: "indeed" was in 13 examples of a half (5 entailment); "Indeed," before 50 more
    # entailment hypotheses leaves the share's uncertainty wide on the baseline's 13, but the rows
    # it gives away beyond chance rose far beyond theirs
    totals = {"e": 1650, "n": 1600, "c": 1650}
    before = _one_feature(13, {"e": 5, "n": 4, "c": 4}, totals)
    after = _one_feature(63, {"e": 55, "n": 4, "c": 4}, totals)
    found = cue_changes(before, after, 0.05 / 60_000)   # as many tests as a half of MNLI makes
    assert list(found["feature"]) == ["indeed@hypothesis"] and list(found["label"]) == ["e"]
    assert found["test"].iloc[0] == "rows"
    assert found["excess_after"].iloc[0] > found["excess_before"].iloc[0] > -1


def test_a_feature_more_common_without_leaning_is_not_a_cue():
    totals = {"e": 1650, "n": 1600, "c": 1650}
    before = _one_feature(30, {"e": 10, "n": 10, "c": 10}, totals)
    after = _one_feature(600, {"e": 202, "n": 196, "c": 202}, totals)   # 20 × as common, at chance
    assert cue_changes(before, after, 0.05 / 60_000).empty



def test_a_lean_away_from_a_label_that_fades_is_not_a_cue_towards_it():
    # SNLI's "is sleeping" (59 examples, 5 % neutral) keeps 6 examples after AFLite, half of them
    # neutral: its lean away from neutral faded, it gives no neutral rows away in either version
    before = _one_feature(59, {"c": 56, "n": 3, "e": 0}, {"e": 3329, "n": 3235, "c": 3278})
    after = _one_feature(6, {"c": 3, "n": 3, "e": 0}, {"e": 2897, "n": 2805, "c": 2977})
    assert cue_changes(before, after, 0.05 / 60_000).empty
