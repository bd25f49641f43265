"""Review a team can measure, in the store (issue 22), on SQLite and a real PostgreSQL: reviews per
example and blind review as owners' settings, blind review enforced by the store (another's
decision is never read before one's own), adjudications recorded as such, guidelines with their
history, and the queue that gathers N reviews per example."""
import uuid

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.team.review import queue, standing
from artifact_lens.team.store import NotAllowed

from test_team_store import store, toy  # noqa: F401  (the SQLite and PostgreSQL fixtures)

ANNS = ("a1", "a2", "a3")


def _team(store, toy):
    """A workspace with an owner, a curator, three annotators and a finished run; names by role."""
    ds, run = toy
    tag = uuid.uuid4().hex[:6]
    who = {"owner": f"owner-{tag}@x.org", "cur": f"cur-{tag}@x.org", **{a: f"{a}-{tag}@x.org" for a in ANNS}}
    ws = store.workspace(f"review-{tag}", owner=who["owner"])
    store.set_role(ws, who["cur"], "curator", by=who["owner"])
    for a in ANNS:
        store.set_role(ws, who[a], "annotator", by=who["owner"])
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by=who["owner"])
    run_id = store.save_run(ws, dataset_id, run, by=who["owner"])
    return ws, run_id, who, [str(i) for i in run.ids[:12]]


def test_owners_set_reviews_per_example_and_blind_review_and_nobody_else(store, toy):
    ws, _, who, _ = _team(store, toy)
    assert store.review_settings(ws, by=who["a1"]) == {"dispute_rule": "latest", "reviews_per_example": 1,
                                                       "blind": False}
    store.set_review_settings(ws, reviews_per_example=2, blind=True, by=who["owner"])
    store.set_dispute_rule(ws, "adjudication", by=who["owner"])
    assert store.review_settings(ws, by=who["cur"]) == {"dispute_rule": "adjudication", "reviews_per_example": 2,
                                                        "blind": True}
    for member in ("cur", "a1"):
        with pytest.raises(NotAllowed):
            store.set_review_settings(ws, reviews_per_example=3, by=who[member])
    for bad in (0, 21, True, 2.0, "2", -1):
        with pytest.raises(InputError, match="reviews per example must be a whole number from 1 to 20"):
            store.set_review_settings(ws, reviews_per_example=bad, by=who["owner"])
    with pytest.raises(InputError, match="blind review is on or off"):
        store.set_review_settings(ws, blind="yes", by=who["owner"])
    assert store.review_settings(ws, by=who["owner"])["reviews_per_example"] == 2   # nothing changed


def test_blind_review_hides_others_decisions_until_one_decides_and_refuses_to_read_them(store, toy):
    ws, run_id, who, ids = _team(store, toy)
    store.set_review_settings(ws, blind=True, by=who["owner"])
    store.review(ws, run_id, ids[0], "keep", "a real one", by=who["a1"])
    store.review(ws, run_id, ids[1], "agree", by=who["a1"])
    # a2 has decided on nothing: sees none of a1's decisions, notes or lights
    assert store.reviews(ws, run_id, by=who["a2"]).empty
    assert standing(store.reviews(ws, run_id, by=who["a2"])).empty
    with pytest.raises(NotAllowed, match="blind: decide on example"):
        store.example_reviews(ws, run_id, ids[0], by=who["a2"])
    # counts only: the queue can still gather reviews per example
    assert store.review_counts(ws, run_id, by=who["a2"]) == {ids[0]: 1, ids[1]: 1}
    assert dict(store.progress(ws, run_id, by=who["a2"]).values.tolist()) == {who["a1"]: 2}
    # once a2 decides on ids[0], a1's decision there is visible; ids[1] stays hidden
    store.review(ws, run_id, ids[0], "agree", by=who["a2"])
    seen = store.reviews(ws, run_id, by=who["a2"])
    assert sorted(seen["reviewer"]) == sorted([who["a1"], who["a2"]]) and set(seen["example_id"]) == {ids[0]}
    assert len(store.example_reviews(ws, run_id, ids[0], by=who["a2"])) == 2
    # adjudicators read everything; an annotator may not ask to
    assert len(store.reviews(ws, run_id, by=who["cur"], unblinded=True)) == 3
    assert len(store.example_reviews(ws, run_id, ids[1], by=who["cur"], unblinded=True)) == 1
    with pytest.raises(NotAllowed):
        store.reviews(ws, run_id, by=who["a2"], unblinded=True)
    # not blind any more: everyone reads everything
    store.set_review_settings(ws, blind=False, by=who["owner"])
    assert len(store.reviews(ws, run_id, by=who["a3"])) == 3


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(st.tuples(st.sampled_from(ANNS), st.integers(0, 4), st.sampled_from(["agree", "keep"])),
                      min_size=1, max_size=10))
def test_blind_review_never_shows_a_decision_before_ones_own(store, toy, steps):
    """Property: whatever the order of decisions, every row a member reads of someone else is on
    an example the member has decided on, and every row of their own is there."""
    ws, run_id, who, ids = _team(store, toy)
    store.set_review_settings(ws, blind=True, by=who["owner"])
    for reviewer, row, decision in steps:
        store.review(ws, run_id, ids[row], decision, "" if decision == "agree" else "why", by=who[reviewer])
    everything = store.reviews(ws, run_id, by=who["cur"], unblinded=True, latest=False)
    for a in ANNS:
        seen = store.reviews(ws, run_id, by=who[a], latest=False)
        mine = set(everything.loc[everything["reviewer"] == who[a], "example_id"])
        assert set(seen["example_id"]) <= mine
        assert len(seen) == int(everything["example_id"].isin(mine).sum())


def test_adjudications_are_recorded_as_such_by_curators_and_owners_with_a_note(store, toy):
    ws, run_id, who, ids = _team(store, toy)
    store.set_dispute_rule(ws, "adjudication", by=who["owner"])
    store.review(ws, run_id, ids[0], "keep", "looks fine", by=who["a1"])
    store.review(ws, run_id, ids[0], "remove", "a giveaway", by=who["a2"])
    with pytest.raises(NotAllowed):
        store.adjudicate(ws, run_id, ids[0], "keep", "mine", by=who["a3"])
    with pytest.raises(InputError, match="an adjudication needs a note"):
        store.adjudicate(ws, run_id, ids[0], "keep", " ", by=who["cur"])
    store.adjudicate(ws, run_id, ids[0], "remove", "the hypothesis copies the premise", by=who["cur"])
    rows = store.reviews(ws, run_id, by=who["owner"])
    assert rows.set_index("reviewer").loc[who["cur"], "kind"] == "adjudication"
    stand = standing(rows, rule="adjudication")
    assert stand.loc[ids[0], ["decision", "reviewer", "adjudicated", "reviewers"]].tolist() == \
        ["remove", who["cur"], True, 2]
    assert store.review_counts(ws, run_id, by=who["a1"]) == {ids[0]: 2}          # an adjudication is not a review


def test_guidelines_have_a_history_and_each_decision_records_its_version(store, toy):
    ws, run_id, who, ids = _team(store, toy)
    assert store.guidelines(ws, by=who["a1"]) is None
    store.review(ws, run_id, ids[0], "agree", by=who["a1"])
    first = store.set_guidelines(ws, "Keep examples a person would write; <b>remove</b> giveaways.", by=who["owner"])
    store.review(ws, run_id, ids[1], "agree", by=who["a1"])
    second = store.set_guidelines(ws, "  Version two.  ", by=who["owner"])
    store.review(ws, run_id, ids[2], "agree", by=who["a2"])
    store.review(ws, run_id, ids[3], "agree", by=who["a2"])
    now = store.guidelines(ws, by=who["a3"])
    assert now["id"] == second and now["text"] == "Version two."                  # stored as text, trimmed
    assert store.guidelines_history(ws, by=who["a3"])["id"].tolist() == [first, second]
    assert "<b>remove</b>" in store.guidelines_history(ws, by=who["a3"])["text"].iloc[0]   # as written, not parsed
    used = {u["version"]: u["decisions"] for u in store.guidelines_of_reviews(ws, run_id, by=who["a1"])}
    assert used == {None: 1, first: 1, second: 2}
    for member in ("cur", "a1"):
        with pytest.raises(NotAllowed):
            store.set_guidelines(ws, "mine", by=who[member])
    with pytest.raises(InputError, match="the guidelines are empty"):
        store.set_guidelines(ws, " \n ", by=who["owner"])
    with pytest.raises(InputError):
        store.set_guidelines(ws, "a\x00b", by=who["owner"])


def test_the_queue_gathers_n_reviews_per_example_from_three_reviewers(store, toy):
    """Reviewers taking turns from their queues with N = 2: every example ends with exactly two
    reviewers, and each reviewer's queue ends empty."""
    ws, run_id, who, ids = _team(store, toy)
    store.set_review_settings(ws, reviews_per_example=2, by=who["owner"])
    scores = [1.0 - i / 100 for i in range(len(ids))]
    served = True
    while served:
        served = False
        for a in ANNS:
            mine = set(store.reviews(ws, run_id, by=who[a]).query("reviewer == @who[@a]")["example_id"])
            n = store.review_settings(ws, by=who[a])["reviews_per_example"]
            todo = queue(ids, scores, mine, counts=store.review_counts(ws, run_id, by=who[a]), per_example=n)
            if len(todo):
                store.review(ws, run_id, todo[0], "agree", by=who[a])
                served = True
    counts = store.review_counts(ws, run_id, by=who["owner"])
    assert counts == {i: 2 for i in ids}
    per_reviewer = store.progress(ws, run_id, by=who["owner"]).set_index("reviewer")["reviewed"]
    assert per_reviewer.sum() == 2 * len(ids) and per_reviewer.max() - per_reviewer.min() <= 1
