"""Counts that add up (issue 45, the team's walk, item 6): on the Progress tab each row's
"reviewed" is the sum of its agree, keep and remove, for an owner and for a blind annotator, who
reads her own row only (a teammate's count of a shared queue order told her who had decided the
example in front of her)."""
from apptest_helpers import OWNER, app, metrics, no_exceptions, open_tab, page

from test_agreement_page import ANNOTATOR, CURATOR, team_of_three


def _progress(at):
    open_tab(at, "Progress")
    no_exceptions(at)
    found = [d.value for d in at.dataframe if "reviewed" in d.value.columns]
    return found[0].set_index("reviewer") if found else None


def test_progress_adds_up_for_everyone_and_a_blind_reviewer_reads_her_own(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner, team, ws, key, run_id = team_of_three()
    team.set_review_settings(ws, reviews_per_example=2, blind=True, by=OWNER)
    ids = [str(x) for x in server().store.get(key).ids[:12]]
    for i, example in enumerate(ids):
        team.review(ws, run_id, example, ("agree", "keep", "remove")[i % 3], "why", by=CURATOR)
        if i % 2:
            team.review(ws, run_id, example, "agree", by=ANNOTATOR)
    team.review(ws, run_id, ids[0], "agree", by=CURATOR)             # a change of mind counts once
    team.adjudicate(ws, run_id, ids[1], "remove", "settled", by=OWNER)   # not a review
    owner.switch_page(page("8_review")).run()
    every = _progress(owner)
    assert every.loc[CURATOR, "reviewed"] == 12 and every.loc[ANNOTATOR, "reviewed"] == 6
    assert (every["reviewed"] == every[["agree", "keep", "remove"]].sum(axis=1)).all()
    ann = app(ANNOTATOR).run()
    ann.switch_page(page("8_review")).run()
    hers = _progress(ann)
    assert list(hers.index) == [ANNOTATOR] and hers.loc[ANNOTATOR, "reviewed"] == 6 == hers.loc[ANNOTATOR, "agree"]


def test_filter_examples_and_export_agree_on_the_split_the_team_reviewed(fresh_server, downloads):
    """Filter and Examples said 7,916 retained where Export said 7,919 (three "keep anyway" explained
    only on Export): the pages that count retained examples now say what the reviews change, and the
    number they give is the exported file's."""
    import io
    import re

    import pandas as pd

    from artifact_lens.dashboard.process.shared import server

    owner, team, ws, key, run_id = team_of_three()
    run = server().store.get(key)
    warmup = set(map(str, run.excluded_ids))
    removed = [str(i) for i, kept in zip(run.ids, run.retained) if not kept and str(i) not in warmup][:3]
    for example in removed:
        team.review(ws, run_id, example, "keep", "a real one", by=CURATOR)
    owner.switch_page(page("2_filter")).run()
    said = [c.value for c in owner.caption if c.value.startswith("The team's reviews change")]
    assert said, [c.value for c in owner.caption]
    changed, kept, dropped, exported = (int(x.replace(",", "")) for x in re.search(
        r"change ([0-9,]+) of these decisions \(([0-9,]+) kept anyway, ([0-9,]+) removed anyway\): the exported split "
        r"has ([0-9,]+) examples", said[0]).groups())
    retained = int(metrics(owner)["Retained"].replace(",", ""))
    assert 1 <= changed == kept + dropped <= 3 and exported == retained + kept - dropped
    owner.switch_page(page("6_examples")).run()
    assert any(c.value == said[0] for c in owner.caption)
    owner.switch_page(page("7_export")).run()
    owner.button(key="exp_prepare").click().run()
    no_exceptions(owner)
    frame = pd.read_csv(io.BytesIO(downloads(owner.get("download_button")[0])))
    assert len(frame) == exported and set(removed) <= set(frame["id"].astype(str))
