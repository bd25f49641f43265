"""Team review rules: the team's word, traffic lights, overrides in the export, the queue."""
import numpy as np
import pandas as pd
import pytest

from artifact_lens.base.errors import InputError
from artifact_lens.team.review import (AWAITING, DISPUTE_RULES, apply_overrides, disagreements, lights, queue, side, standing,
                         to_adjudicate)


def _latest(rows):
    return pd.DataFrame(rows, columns=["example_id", "reviewer", "decision", "note", "created_at"])


REVIEWS = _latest([
    ("e1", "a", "agree", "", 1),           # reviewed, agreed
    ("e2", "a", "keep", "real neutral", 2),  # overridden: keep anyway
    ("e3", "a", "agree", "", 3),           # disputed: a agrees, b removes anyway
    ("e3", "b", "remove", "artifact", 4),
    ("e5", "b", "agree", "", 5),
])
IDS = np.array(["e1", "e2", "e3", "e4", "e5", "e6"])
RETAINED = np.array([False, False, True, False, True, True])


def test_standing_is_the_latest_word_and_flags_disputes():
    s = standing(REVIEWS)
    assert s.loc["e3", "decision"] == "remove" and s.loc["e3", "reviewer"] == "b"
    assert s.loc["e3", "reviewers"] == 2 and s.loc["e3", "decisions"] == ("agree", "remove")
    assert s.loc["e3", "chosen"] == (("a", "agree", 3), ("b", "remove", 4))   # who chose what, in order
    assert s.loc["e1", "decisions"] == ("agree",) and s.loc["e2", "decision"] == "keep"
    assert standing(_latest([])).empty


def test_lights_follow_paper_002s_colours():
    got = lights(IDS, RETAINED, standing(REVIEWS))
    # e1 agreed: green; e2 overridden: yellow; e3 disputed: yellow; e4 removed, unreviewed: red;
    # e5 kept and agreed: green; e6 kept, unreviewed: no light
    assert got.tolist() == ["green", "yellow", "yellow", "red", "green", ""]
    assert lights(IDS, RETAINED, standing(_latest([]))).tolist() == ["red", "red", "", "red", "", ""]


def test_overrides_change_the_split_and_are_listed():
    mask, table = apply_overrides(IDS, RETAINED, standing(REVIEWS))
    assert mask.tolist() == [False, True, False, False, True, True]   # e2 kept anyway, e3 removed anyway
    assert RETAINED.tolist() == [False, False, True, False, True, True]   # the input is not modified
    assert table["example_id"].tolist() == ["e2", "e3"]
    assert table["filter"].tolist() == ["removed", "retained"] and table["changed"].all()
    assert table.loc[table["example_id"] == "e3", "reviewer"].item() == "b"
    # a "keep" on a retained example is listed, but changes nothing
    _, same = apply_overrides(["e1"], [True], standing(_latest([("e1", "a", "keep", "sure", 1)])))
    assert same["changed"].tolist() == [False]


def test_queue_serves_unreviewed_highest_score_first_or_a_fixed_shuffle():
    scores = np.array([0.2, np.nan, 0.9, 0.5, 0.7, 0.1])
    assert queue(IDS, scores, {"e3"}).tolist() == ["e5", "e4", "e1", "e6", "e2"]
    assert queue(IDS, scores, set(), limit=2).tolist() == ["e3", "e5"]
    shuffled = queue(IDS, scores, {"e1"}, order="random", seed=7)
    assert sorted(shuffled) == ["e2", "e3", "e4", "e5", "e6"]
    assert shuffled.tolist() == queue(IDS, scores, {"e1"}, order="random", seed=7).tolist()
    assert any(queue(IDS, scores, set(), order="random", seed=s).tolist() != queue(IDS, scores, set()).tolist()
               for s in range(3))
    with pytest.raises(InputError, match="choose one of predictability, random"):
        queue(IDS, scores, set(), order="newest")


def test_a_decision_on_the_filters_side_is_agreement_not_an_override():
    """'Remove anyway' on an example the filter removed (and 'keep anyway' on one it kept) agree
    with the filter: green, and a reviewer who says 'agree' beside them is on the same side."""
    both = standing(_latest([("r", "a", "remove", "artifact", 1), ("k", "a", "keep", "fine", 2),
                             ("r", "b", "agree", "", 3)]))
    assert lights(["r", "k"], [False, True], both).tolist() == ["green", "green"]
    assert disagreements(["r", "k"], [False, True], both).empty
    # the same decisions on the other side of the filter are overrides
    assert lights(["r", "k"], [True, False], both).tolist() == ["yellow", "yellow"]
    assert side("agree", True) == "keep" and side("agree", False) == "remove" and side("keep", False) == "keep"


def test_the_dispute_rule_decides_whose_word_stands_and_the_disagreements_say_who_chose_what():
    when = [pd.Timestamp("2026-11-26 10:00"), pd.Timestamp("2026-11-26 11:30")]
    latest = _latest([("e", "cur@x.org", "remove", "artifact", when[0]), ("e", "ann@x.org", "keep", "fine", when[1])])
    roles = {"cur@x.org": "curator", "ann@x.org": "annotator"}
    by_time = standing(latest, rule="latest", roles=roles)
    by_role = standing(latest, rule="senior", roles=roles)
    assert by_time.loc["e", "decision"] == "keep" and by_time.loc["e", "reviewer"] == "ann@x.org"
    assert by_role.loc["e", "decision"] == "remove" and by_role.loc["e", "reviewer"] == "cur@x.org"
    for stand, team, who in ((by_time, "keep", "ann@x.org"), (by_role, "remove", "cur@x.org")):
        dis = disagreements(["e"], [True], stand)
        assert dis[["filter", "team", "settled_by"]].values.tolist() == [["retained", team, who]]
        assert dis["chosen"].item() == "cur@x.org: remove (2026-11-26 10:00), ann@x.org: keep (2026-11-26 11:30)"
        assert apply_overrides(["e"], [True], stand)[0].tolist() == [team == "keep"]   # the export follows it
    # a reviewer who is no longer a member ranks below every member
    gone = standing(latest, rule="senior", roles={"ann@x.org": "annotator"})
    assert gone.loc["e", "reviewer"] == "ann@x.org"
    with pytest.raises(InputError, match="dispute rule 'loudest' is unknown; choose one of latest, senior"):
        standing(latest, rule="loudest")
    assert set(DISPUTE_RULES) == {"latest", "senior", "adjudication"}


def _adjudication_reviews():
    t = pd.Timestamp("2026-11-26 10:00")
    rows = [("e", "cur@x.org", "remove", "no", t, "review"), ("e", "ann@x.org", "keep", "yes", t + pd.Timedelta("1h"),
                                                                "review"),
            ("f", "ann@x.org", "agree", "", t, "review"), ("f", "cur@x.org", "remove", "", t, "review")]
    return pd.DataFrame(rows, columns=["example_id", "reviewer", "decision", "note", "created_at", "kind"])


def test_a_dispute_waits_for_adjudication_under_that_rule_and_an_adjudication_settles_it_under_any():
    latest = _adjudication_reviews()
    stand = standing(latest, rule="adjudication")
    # e: reviewers on different sides, no adjudication: the filter's word holds meanwhile
    assert stand.loc["e", ["decision", "reviewer"]].tolist() == ["agree", AWAITING]
    assert not stand["adjudicated"].any()
    assert apply_overrides(["e"], [False], stand)[0].tolist() == [False]           # removed, as the filter said
    dis = disagreements(["e", "f"], [False, False], stand)
    assert dis["example_id"].tolist() == ["e"] and dis["settled_by"].tolist() == [AWAITING]
    adjudicated = pd.concat([latest, pd.DataFrame([("e", "owner@x.org", "keep", "a real contradiction",
                                                    pd.Timestamp("2026-11-26 12:00"), "adjudication")],
                                                  columns=latest.columns)], ignore_index=True)
    for rule in DISPUTE_RULES:
        stand = standing(adjudicated, rule=rule, roles={"cur@x.org": "curator", "ann@x.org": "annotator"})
        assert stand.loc["e", ["decision", "reviewer", "adjudicated"]].tolist() == ["keep", "owner@x.org", True], rule
        assert stand.loc["e", "reviewers"] == 2                                    # the adjudication is not a review
        assert apply_overrides(["e"], [False], stand)[0].tolist() == [True]        # kept: the adjudicated word
    # an adjudication of an example nobody reviewed settles it too
    alone = pd.DataFrame([("g", "owner@x.org", "remove", "duplicate", pd.Timestamp("2026-11-26"), "adjudication")],
                         columns=latest.columns)
    stand = standing(alone)
    assert stand.loc["g", ["decision", "reviewers", "adjudicated"]].tolist() == ["remove", 0, True]


def test_the_queue_serves_an_example_until_it_has_n_reviewers_closest_to_done_first():
    ids = ["a", "b", "c", "d"]
    scores = [0.9, 0.8, 0.7, 0.6]
    counts = {"a": 2, "b": 1, "c": 0, "d": 1}
    # N = 2: "a" is done; those with one review come first (in p̃ order), then the rest
    assert queue(ids, scores, set(), counts=counts, per_example=2).tolist() == ["b", "d", "c"]
    assert queue(ids, scores, {"b"}, counts=counts, per_example=2).tolist() == ["d", "c"]
    # N = 1 (the default): every example with a review is done
    assert queue(ids, scores, set(), counts=counts).tolist() == ["c"]
    assert queue(ids, scores, set()).tolist() == ids                              # no counts: everything
    with pytest.raises(InputError, match="reviews per example"):
        queue(ids, scores, set(), counts=counts, per_example=0)



def test_the_adjudication_queue_holds_open_disputes_and_optionally_overrules_of_the_filter():
    latest = _adjudication_reviews()                       # e: reviewers differ; f: both on the filter's side
    extra = pd.DataFrame([("g", "ann@x.org", "keep", "fine", pd.Timestamp("2026-11-26"), "review")],
                         columns=latest.columns)           # g: one reviewer overrules the filter
    stand = standing(pd.concat([latest, extra], ignore_index=True), rule="adjudication")
    ids, retained = ["e", "f", "g", "h"], [False, False, False, True]
    assert to_adjudicate(ids, retained, stand)["example_id"].tolist() == ["e"]
    both = to_adjudicate(ids, retained, stand, with_filter=True)
    assert both[["example_id", "reason"]].values.tolist() == [["e", "reviewers differ"],
                                                              ["g", "the team overrules the filter"]]
    settled = pd.concat([latest, extra, pd.DataFrame([("e", "owner@x.org", "remove", "copied", pd.Timestamp("2026-11-27"),
                                                       "adjudication")], columns=latest.columns)], ignore_index=True)
    assert to_adjudicate(ids, retained, standing(settled, rule="adjudication"), with_filter=True)[
        "example_id"].tolist() == ["g"]
    assert to_adjudicate(ids, retained, standing(latest.iloc[:0])).empty