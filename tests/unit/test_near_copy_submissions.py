"""A near-copy of a submission is refused by the store itself (issue 43, item 1): whoever calls
`TeamStore.submit` (the dashboard, a script, the CLI) gets the same refusal, and near-copies sent
at once cannot both land, because the check runs inside the write with the dataset's row locked
(SQLite and a real PostgreSQL)."""
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base.errors import InputError

from test_store_scope import _at_once, _only_input_errors
from test_team_store import store, toy  # noqa: F401  (the SQLite and PostgreSQL fixtures)


def _creators(store, toy, n=2):
    ds, _ = toy
    tag = uuid.uuid4().hex[:6]
    owner = f"owner-{tag}@x.org"
    ws = store.workspace(f"ws-{tag}", owner=owner)
    people = [owner]
    for i in range(n - 1):
        people.append(f"c{i}-{tag}@x.org")
        store.set_role(ws, people[-1], "annotator", by=owner)
    return ws, store.save_dataset(ws, ds, source="toy", roles={}, by=owner), people


FIELDS = {"premise": "A man plays a guitar on a busy street corner", "hypothesis": "A person makes music outside"}


def test_a_near_copy_is_refused_by_the_store_naming_the_earlier_submission(store, toy):
    ws, dataset_id, (owner, other) = _creators(store, toy)
    first = store.submit(ws, dataset_id, FIELDS, "entailment", {}, by=owner)
    for fields, label in [(FIELDS, "entailment"),                                     # the same text again
                          ({**FIELDS, "hypothesis": "A person makes songs outside"}, "entailment")]:   # one word
        with pytest.raises(InputError, match=rf"near-duplicate of submission {first}\b"):
            store.submit(ws, dataset_id, fields, label, {}, by=other)
    assert len(store.submissions(ws, by=owner, dataset_id=dataset_id)) == 1
    # other wording lands
    store.submit(ws, dataset_id, {**FIELDS, "hypothesis": "Two children sleep in a quiet library"}, "contradiction", {},
                 by=other)
    assert len(store.submissions(ws, by=owner, dataset_id=dataset_id)) == 2


def test_a_revision_is_not_refused_for_resembling_the_submission_it_replaces(store, toy):
    ws, dataset_id, (owner, creator) = _creators(store, toy)
    store.set_role(ws, creator, "curator", by=owner)
    first = store.submit(ws, dataset_id, FIELDS, "entailment", {}, by=creator)
    store.validate(ws, first, "reject", "say where the music is", by=owner)
    revised = store.submit(ws, dataset_id, {**FIELDS, "hypothesis": "A person makes music on a street"}, "entailment",
                           {}, by=creator, revises=first)
    assert revised != first


def test_near_copies_sent_at_once_land_once(store, toy):
    ws, dataset_id, people = _creators(store, toy, n=8)
    results, errors = _at_once(8, lambda i: store.submit(ws, dataset_id, FIELDS, "entailment", {}, by=people[i]))
    _only_input_errors(errors)
    assert sum(r is not None for r in results) == 1
    assert all("near-duplicate of submission" in str(e) for e in errors if e is not None)
    assert len(store.submissions(ws, by=people[0], dataset_id=dataset_id)) == 1


words = st.sampled_from("a man woman dog plays runs guitar street park red blue small big".split())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.lists(words, min_size=3, max_size=8).map(" ".join), min_size=2, max_size=6),
       labels=st.lists(st.sampled_from(["entailment", "neutral"]), min_size=6, max_size=6))
def test_what_lands_never_holds_two_submissions_with_the_same_text_and_label(store, toy, texts, labels):
    """Whatever order of examples is sent, the stored submissions of a dataset never hold the
    same text twice with the same label: the property the refusal promises."""
    ws, dataset_id, (owner,) = _creators(store, toy, n=1)
    for text, label in zip(texts, labels):
        try:
            store.submit(ws, dataset_id, {"premise": "P", "hypothesis": text}, label, {}, by=owner)
        except InputError as exc:
            assert "near-duplicate of submission" in str(exc)
    subs = store.submissions(ws, by=owner, dataset_id=dataset_id)
    keys = [(f["hypothesis"], lab) for f, lab in zip(subs["fields"], subs["label"])]
    assert len(keys) == len(set(keys))
