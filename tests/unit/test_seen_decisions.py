"""A decision lands on the example its author saw, or nowhere (issue 45, item 1), held by the
store on SQLite and a real PostgreSQL: every decision writer takes what was shown (``seen``),
found by reflection; a stale ``seen`` writes nothing; racers shown the same state make one
decision; and a generated interleaving of opens and saves by several members lands exactly the
saves made on an unchanged example, each on the id it was made for."""
import inspect
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base.errors import Changed, InputError
from artifact_lens.team.store import TeamStore

from test_store_scope import _at_once, _only_input_errors, _public_methods, _writes
from test_team_store import store, toy  # noqa: F401  (the SQLite and PostgreSQL fixtures)


def _team(store, toy, reviewers=3):
    ds, run = toy
    tag = uuid.uuid4().hex[:6]
    owner = f"owner-{tag}@x.org"
    ws = store.workspace(f"ws-{tag}", owner=owner)
    people = [owner]
    for i in range(reviewers - 1):
        people.append(f"r{i}-{tag}@x.org")
        store.set_role(ws, people[-1], "curator" if i % 2 else "annotator", by=owner)
    dataset_id = store.save_dataset(ws, ds, source="toy", roles={}, by=owner)
    return ws, store.save_run(ws, dataset_id, run, by=owner), people, [str(x) for x in run.ids]


def test_every_writer_of_a_decision_on_an_example_takes_what_was_shown():
    """Reflection: a store method that writes and names an example takes ``seen`` (keyword), so a
    new kind of decision is bound to what its author saw the day it is written."""
    writers = {name: fn for name, fn in _public_methods().items()
               if _writes(fn) and "example_id" in inspect.signature(fn).parameters}
    assert {"review", "adjudicate"} <= set(writers)
    for name, fn in writers.items():
        seen = inspect.signature(fn).parameters.get("seen")
        assert seen is not None and seen.kind is inspect.Parameter.KEYWORD_ONLY, name


@pytest.mark.parametrize("how", ["review", "adjudicate"])
def test_a_decision_made_on_a_changed_example_writes_nothing_and_says_why(store, toy, how):
    ws, run_id, (owner, ann, cur), ids = _team(store, toy)
    example = ids[3]
    shown = store.example_stamp(ws, run_id, example, by=ann)
    assert shown == 0
    store.review(ws, run_id, example, "agree", by=owner, seen=shown)    # the owner decides meanwhile
    before = store.reviews(ws, run_id, by=owner, latest=False)
    decide = (lambda seen: store.review(ws, run_id, example, "keep", "my note about it", by=cur, seen=seen)) \
        if how == "review" else (lambda seen: store.adjudicate(ws, run_id, example, "keep", "settled", by=cur, seen=seen))
    with pytest.raises(Changed, match=rf"example '{example}' changed while you had it open: 1 decision by teammates"):
        decide(shown)
    assert store.reviews(ws, run_id, by=owner, latest=False).equals(before)
    fresh = store.example_stamp(ws, run_id, example, by=cur)
    assert fresh > shown
    row = decide(fresh)                                                  # shown again, saved again: it lands
    after = store.example_reviews(ws, run_id, example, by=owner, unblinded=True)
    assert after["id"].iloc[-1] == row and after["reviewer"].iloc[-1] == cur
    assert store.example_stamp(ws, run_id, ids[4], by=cur) == 0          # another example's stamp is its own


@pytest.mark.parametrize("seen", [True, -1, 1.5, "3", float("nan"), [0]])
def test_a_seen_that_is_not_a_decision_id_is_refused(store, toy, seen):
    ws, run_id, (owner, ann, _), ids = _team(store, toy)
    with pytest.raises(InputError, match="seen should be the id of the newest decision"):
        store.review(ws, run_id, ids[0], "agree", by=ann, seen=seen)
    assert store.reviews(ws, run_id, by=owner).empty


def test_twenty_reviewers_shown_one_state_make_one_decision(store, toy):
    """The stale check is held by the database (the run's row is locked), not by a read before the
    write: of twenty members saving on the same shown state at once, one lands."""
    ws, run_id, people, ids = _team(store, toy, reviewers=20)
    results, errors = _at_once(20, lambda i: store.review(ws, run_id, ids[0], "agree", by=people[i], seen=0))
    _only_input_errors(errors)
    assert sum(r is not None for r in results) == 1
    assert all(isinstance(e, Changed) for e in errors if e is not None)
    assert len(store.example_reviews(ws, run_id, ids[0], by=people[0], unblinded=True)) == 1


#: a step: (member, example index, "open" | "save")
_STEPS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.sampled_from(["open", "save"])),
                  min_size=1, max_size=25)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_STEPS)
def test_generated_opens_and_saves_land_exactly_the_unchanged_ones(tmp_path_factory, toy, steps):
    """Members open examples (the page reads the stamp) and save later, in any interleaving. A save
    lands iff nothing was decided on its example since it was opened, and on that example."""
    folder = tmp_path_factory.mktemp("seen")
    with TeamStore(f"sqlite:///{folder}/team.sqlite", files=folder / "files") as store:
        ws, run_id, people, ids = _team(store, toy)
        opened, newest, landed = {}, {}, []      # (member, example) -> stamp shown; example -> newest id
        for member, example, what in steps:
            eid = ids[example]
            if what == "open":
                opened[member, example] = store.example_stamp(ws, run_id, eid, by=people[member])
                assert opened[member, example] == newest.get(example, 0)
                continue
            if (member, example) not in opened:
                continue
            seen = opened.pop((member, example))
            note = f"about {eid} by {member}"
            try:
                row = store.review(ws, run_id, eid, "keep", note, by=people[member], seen=seen)
            except Changed:
                assert newest.get(example, 0) != seen
                continue
            assert newest.get(example, 0) == seen
            newest[example] = row
            landed.append((row, eid, note))
        stored = store.reviews(ws, run_id, by=people[0], latest=False)
        assert sorted(zip(stored["id"], stored["example_id"], stored["note"])) == sorted(landed)


def test_a_validation_of_a_decided_submission_says_it_changed(store, toy):
    ws, run_id, (owner, ann, cur), ids = _team(store, toy)
    dataset_id = store.datasets(ws, by=owner)["id"].iloc[0]
    sub = store.submit(ws, int(dataset_id), {"hypothesis": "a new one"}, "a", {}, by=ann)
    store.validate(ws, sub, "accept", by=owner)
    with pytest.raises(Changed, match=f"submission {sub} is accepted already"):
        store.validate(ws, sub, "reject", "about this one", by=cur)
    assert store.submissions(ws, by=owner).set_index("id").loc[sub, "note"] == ""


def test_under_blind_review_a_teammates_unseen_decision_refuses_nothing(store, toy):
    """Blind review: a reviewer who has not decided on an example sees no one else's decision on it,
    so none of those changes what she was shown; twenty reviewers shown the same example all land.
    Once she has decided, she sees the others' (as `reviews` shows them), and a stale page is refused."""
    ws, run_id, people, ids = _team(store, toy, reviewers=20)
    store.set_review_settings(ws, reviews_per_example=20, blind=True, by=people[0])
    assert all(store.example_stamp(ws, run_id, ids[0], by=p) == 0 for p in people)
    results, errors = _at_once(20, lambda i: store.review(ws, run_id, ids[0], "agree", by=people[i], seen=0))
    assert errors == [None] * 20 and len(set(results)) == 20
    mine = store.example_stamp(ws, run_id, ids[0], by=people[1])
    assert mine == max(results)                                   # decided: every decision on it is hers to see
    store.review(ws, run_id, ids[0], "keep", "changed my mind", by=people[2], seen=store.example_stamp(
        ws, run_id, ids[0], by=people[2]))
    with pytest.raises(Changed, match="1 decision by teammates came since"):
        store.review(ws, run_id, ids[0], "remove", "stale", by=people[1], seen=mine)
    assert store.example_stamp(ws, run_id, ids[0], by=people[0], unblinded=True) == max(
        store.reviews(ws, run_id, by=people[0], latest=False, unblinded=True)["id"])


def test_under_blind_review_a_page_served_before_teammates_settled_the_example_is_refused(store, toy):
    """Issue 63, item 3: with two reviews per example, blind, an annotator's page served an example;
    the owner and a curator then decided on it (2 of 2); her "keep anyway" from that page landed and
    became the team's verdict. It is refused now, and one teammate's decision alone still refuses nothing."""
    ws, run_id, (owner, ann, cur), ids = _team(store, toy)
    store.set_review_settings(ws, reviews_per_example=2, blind=True, by=owner)
    first, second = ids[5], ids[6]
    shown = {e: store.example_stamp(ws, run_id, e, by=ann) for e in (first, second)}
    assert shown == {first: 0, second: 0}
    store.review(ws, run_id, first, "agree", by=owner, seen=store.example_stamp(ws, run_id, first, by=owner))
    store.review(ws, run_id, first, "agree", by=cur, seen=store.example_stamp(ws, run_id, first, by=cur))
    store.review(ws, run_id, second, "agree", by=owner, seen=store.example_stamp(ws, run_id, second, by=owner))
    before = store.reviews(ws, run_id, by=owner, latest=False, unblinded=True)
    with pytest.raises(Changed, match=rf"example '{first}' changed while you had it open: 2 decisions by teammates"):
        store.review(ws, run_id, first, "keep", "keep it anyway", by=ann, seen=shown[first])
    assert store.reviews(ws, run_id, by=owner, latest=False, unblinded=True).equals(before)
    store.review(ws, run_id, second, "keep", "one teammate decided: mine is still wanted", by=ann, seen=shown[second])
    settled = store.example_stamp(ws, run_id, first, by=ann)   # served again: what she saves now is a decision on it
    assert settled > 0
    store.review(ws, run_id, first, "keep", "keep it anyway", by=ann, seen=settled)
    # an adjudication settles it too
    third = ids[7]
    stamp = store.example_stamp(ws, run_id, third, by=ann)
    store.adjudicate(ws, run_id, third, "remove", "settled", by=owner, seen=store.example_stamp(
        ws, run_id, third, by=owner, unblinded=True))
    with pytest.raises(Changed):
        store.review(ws, run_id, third, "keep", "late", by=ann, seen=stamp)
