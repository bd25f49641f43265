"""Decisions saved from a page that is out of date (issue 45, the team's walk, items 1 and 2): a
form saves on the example or submission its author was shown, and is refused, with the author's
text kept on the page, when that changed while the page was open; a pick in a table that loses
its row is dropped, never moved onto the next row."""
from apptest_helpers import OWNER, app, no_exceptions, open_tab, page, texts

from test_agreement_page import ANNOTATOR, CURATOR, team_of_three


def _served(at) -> str:
    heads = [t.value for t in at.text if t.value.startswith("id: ")]
    assert heads, "no example is served"
    return heads[0].split("\n")[0][len("id: "):]


def test_a_review_saved_after_a_teammate_decided_lands_nowhere_and_keeps_the_note(fresh_server):
    owner, team, ws, key, run_id = team_of_three()       # one review per example: a decided one leaves the queues
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("8_review")).run()
    no_exceptions(ann)
    first = _served(ann)                                  # her page shows it ...
    team.review(ws, run_id, first, "agree", by=OWNER)    # ... while the owner decides on it
    ann.radio(key="rv_queue_decision").set_value("keep")
    ann.text_input(key="rv_queue_note").input(f"my note is about example {first}")
    ann.button(key="rv_queue_submit").click().run()
    no_exceptions(ann)
    mine = team.reviews(ws, run_id, by=OWNER, latest=False)
    assert not (mine["reviewer"] == ANNOTATOR).any()      # on no example: not on the next one either
    assert any(f"example '{first}' changed while you had it open" in e.value.replace("\\", "") for e in ann.error)
    assert f"note: my note is about example {first}" in texts(ann)          # her text, kept, with its example
    nxt = _served(ann)
    assert nxt != first and ann.text_input(key="rv_queue_note").value == ""  # the next example's form is empty
    ann.button(key="rv_queue_submit_dismiss").click().run()
    assert "my note is about" not in texts(ann) and not ann.error
    ann.text_input(key="rv_queue_note").input("about the one I see")        # a save on a fresh page lands
    ann.radio(key="rv_queue_decision").set_value("keep")
    ann.button(key="rv_queue_submit").click().run()
    no_exceptions(ann)
    mine = team.reviews(ws, run_id, by=OWNER, latest=False)
    assert mine.loc[mine["reviewer"] == ANNOTATOR, ["example_id", "note"]].values.tolist() == [
        [nxt, "about the one I see"]]


def test_a_refused_review_of_an_example_served_again_puts_the_text_back_in_the_form(fresh_server):
    owner, team, ws, key, run_id = team_of_three()
    team.set_review_settings(ws, reviews_per_example=2, by=OWNER)   # a teammate's decision leaves it in her queue
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("8_review")).run()
    first = _served(ann)
    team.review(ws, run_id, first, "agree", by=OWNER)
    ann.radio(key="rv_queue_decision").set_value("remove")
    ann.text_input(key="rv_queue_note").input("a giveaway word")
    ann.button(key="rv_queue_submit").click().run()
    no_exceptions(ann)
    assert _served(ann) == first and any("changed while you had it open" in e.value for e in ann.error)
    assert ann.text_input(key="rv_queue_note").value == "a giveaway word"
    assert ann.radio(key="rv_queue_decision").value == "remove"
    assert not (team.reviews(ws, run_id, by=OWNER)["reviewer"] == ANNOTATOR).any()
    ann.button(key="rv_queue_submit").click().run()                 # read again, saved again: it lands
    mine = team.reviews(ws, run_id, by=OWNER)
    assert mine.loc[mine["reviewer"] == ANNOTATOR, ["example_id", "decision", "note"]].values.tolist() == [
        [first, "remove", "a giveaway word"]]


def test_a_blind_review_saved_after_teammates_settled_the_example_is_refused_and_keeps_the_note(fresh_server):
    """Issue 63, item 3: two reviews per example, blind. The annotator's page serves an example, the
    owner and the curator decide on it (2 of 2), then she saves "keep anyway" from that page: it
    landed, and the team's verdict became hers. Refused now, her note kept on the page."""
    owner, team, ws, key, run_id = team_of_three()
    team.set_review_settings(ws, reviews_per_example=2, blind=True, by=OWNER)
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("8_review")).run()
    no_exceptions(ann)
    first = _served(ann)
    team.review(ws, run_id, first, "agree", by=OWNER)
    team.review(ws, run_id, first, "agree", by=CURATOR)
    ann.radio(key="rv_queue_decision").set_value("keep")
    ann.text_input(key="rv_queue_note").input("keep it anyway")
    ann.button(key="rv_queue_submit").click().run()
    no_exceptions(ann)
    assert any(f"example '{first}' changed while you had it open" in e.value.replace("\\", "") for e in ann.error)
    assert f"note: keep it anyway" in texts(ann)
    every = team.reviews(ws, run_id, by=OWNER, latest=False, unblinded=True)
    assert not (every["reviewer"] == ANNOTATOR).any()
    assert _served(ann) != first                               # settled: it left her queue


def test_an_adjudication_closes_its_form_and_a_stale_one_is_refused(fresh_server):
    owner, team, ws, key, run_id = team_of_three()
    from artifact_lens.dashboard.process.shared import server

    run = server().store.get(key)
    disputed = [str(x) for x in run.ids[:6]]
    for example in disputed:
        team.review(ws, run_id, example, "agree", by=ANNOTATOR)
        team.review(ws, run_id, example, "remove" if run.retained[list(run.ids).index(example)] else "keep",
                    "they differ", by=OWNER)
    cur = app(CURATOR).run()
    cur.switch_page(page("8_review")).run()
    open_tab(cur, "Adjudication")
    table = [d for d in cur.dataframe if d.key.startswith("adj_table")][0]
    assert len(table.value) >= 2 and set(table.value["example_id"]) <= set(disputed)   # (warm-up ones are not listed)
    picked = str(table.value["example_id"].iloc[0])
    cur.session_state[table.key] = {"selection": {"rows": [0], "columns": []}}
    cur.run()
    assert any(c.value == f"Example {picked}: every decision on it." for c in cur.caption)
    cur.radio(key="adj_decision").set_value("keep")
    cur.text_input(key="adj_note").input(f"settles {picked}")
    cur.button(key="adj_submit").click().run()
    no_exceptions(cur)
    assert team.example_reviews(ws, run_id, picked, by=OWNER, unblinded=True)["kind"].iloc[-1] == "adjudication"
    # the row left the table: nothing is picked, no form is open on the example now in its place
    assert not [b for b in cur.button if b.key == "adj_submit"]
    assert not any(c.value.startswith("Example ") and c.value.endswith("every decision on it.") for c in cur.caption)
    # a stale adjudication (a teammate adjudicated the picked example meanwhile) writes nothing
    table = [d for d in cur.dataframe if d.key.startswith("adj_table")][0]
    second = str(table.value["example_id"].iloc[0])
    cur.session_state[table.key] = {"selection": {"rows": [0], "columns": []}}
    cur.run()
    team.adjudicate(ws, run_id, second, "agree", "the owner settled it first", by=OWNER)
    cur.radio(key="adj_decision").set_value("remove")
    cur.text_input(key="adj_note").input("my reason")
    cur.button(key="adj_submit").click().run()
    no_exceptions(cur)
    history = team.example_reviews(ws, run_id, second, by=OWNER, unblinded=True)
    assert history["note"].tolist()[-1] == "the owner settled it first" and "my reason" not in history["note"].tolist()
    assert "note: my reason" in texts(cur)


def test_a_validation_from_a_stale_page_is_not_recorded_on_the_next_submission(fresh_server):
    owner, team, ws, key, run_id = team_of_three()
    owner.switch_page(page("12_validate")).run()
    dataset_id = int(team.datasets(ws, by=OWNER)["id"].iloc[0])
    subs = [team.submit(ws, dataset_id, {"premise": f"p{i}", "hypothesis": f"h{i}"}, "neutral", {}, by=ANNOTATOR)
            for i in range(2)]
    owner.run()
    assert any(t.value.startswith(f"example {subs[0]} by") for t in owner.text)
    team.validate(ws, subs[0], "accept", by=CURATOR)                # decided in another tab meanwhile
    owner.radio(key="va_decision").set_value("reject")
    owner.text_input(key="va_note").input(f"about submission {subs[0]}")
    owner.button(key="va_submit").click().run()
    no_exceptions(owner)
    found = team.submissions(ws, by=OWNER).set_index("id")
    assert found.loc[subs[0], "validator"] == CURATOR and found.loc[subs[1], "status"] == "submitted"
    assert any(f"submission {subs[0]} is accepted already" in e.value for e in owner.error)
    assert f"note: about submission {subs[0]}" in texts(owner)
    assert any(t.value.startswith(f"example {subs[1]} by") for t in owner.text)   # the next one, with an empty form
    assert owner.text_input(key="va_note").value == ""
