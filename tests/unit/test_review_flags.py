"""A new cue's rows sent to the front of a run's review queue (issue 44, item 2): the store holds
one row per example and cue (on SQLite and a real PostgreSQL), checks
the sender's role and the run's ids, and takes all or nothing (twenty senders at once:
tests/unit/test_store_scope.py); ``check --review-run`` sends exactly
the rows that carry the cue it names; the Review page's queue serves them first."""
import uuid

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.cli import main
from artifact_lens.data.sources import load_dataset
from artifact_lens.team.store import NotAllowed, TeamStore

from test_check_outputs import planted  # noqa: F401  (the baseline and the candidate with "indeed" planted)
from test_team_store import store, toy  # noqa: F401  (the SQLite and PostgreSQL fixtures)


def _team(store, toy):
    ds, run = toy
    tag = uuid.uuid4().hex[:6]
    owner, cur, ann = f"o-{tag}@x.org", f"c-{tag}@x.org", f"a-{tag}@x.org"
    ws = store.workspace(f"flags-{tag}", owner=owner)
    store.set_role(ws, cur, "curator", by=owner)
    store.set_role(ws, ann, "annotator", by=owner)
    run_id = store.save_run(ws, store.save_dataset(ws, ds, source="toy", roles={}, by=owner), run, by=owner)
    return dict(ws=ws, owner=owner, cur=cur, ann=ann, run_id=run_id, ids=[str(i) for i in run.ids])


def test_flags_are_sent_once_read_by_everyone_and_sent_only_by_curators(store, toy):
    t = _team(store, toy)
    flags = pd.DataFrame({"example_id": t["ids"][:3], "reason": ["new cue: x → a"] * 3, "score": [2.0, 5.0, np.nan]})
    with pytest.raises(NotAllowed, match="curator"):
        store.flag_for_review(t["ws"], t["run_id"], flags, by=t["ann"])
    assert store.flag_for_review(t["ws"], t["run_id"], flags, by=t["cur"]) == 3
    assert store.flag_for_review(t["ws"], t["run_id"], flags, by=t["owner"]) == 0   # the same rows again: nothing new
    both = pd.concat([flags.iloc[:1].assign(reason="new cue: y → b"), flags.iloc[:1]])
    assert store.flag_for_review(t["ws"], t["run_id"], both, by=t["cur"]) == 1   # a second reason is a second row
    seen = store.review_flags(t["ws"], t["run_id"], by=t["ann"])   # an annotator reads why (no one's decision)
    assert seen["example_id"].tolist()[:2] == [t["ids"][1], t["ids"][0]]   # strongest first, no score last
    assert seen["example_id"].iloc[-1] == t["ids"][2] and pd.isna(seen["score"].iloc[-1])
    assert len(seen) == 4 and set(seen["created_by"]) == {t["cur"]}
    with pytest.raises(NotAllowed):
        store.clear_review_flags(t["ws"], t["run_id"], by=t["ann"])
    assert store.clear_review_flags(t["ws"], t["run_id"], reason="new cue: y → b", by=t["cur"]) == 1
    assert store.clear_review_flags(t["ws"], t["run_id"], by=t["owner"]) == 3
    assert store.review_flags(t["ws"], t["run_id"], by=t["owner"]).empty


def test_a_flag_on_an_example_the_run_did_not_score_sends_nothing(store, toy):
    t = _team(store, toy)
    flags = [{"example_id": t["ids"][0], "reason": "new cue: x → a"}, {"example_id": "not-there", "reason": "r"}]
    with pytest.raises(InputError, match="1 of the 2 examples are not run .*'not-there'.*Nothing was sent"):
        store.flag_for_review(t["ws"], t["run_id"], flags, by=t["cur"])
    assert store.review_flags(t["ws"], t["run_id"], by=t["cur"]).empty   # all or nothing
    key = f"running-{uuid.uuid4().hex[:6]}"
    dataset_id = int(store.datasets(t["ws"], by=t["owner"])["id"].iloc[0])
    running = store.begin_run(t["ws"], dataset_id, key, representation="r", params={}, seed=0, versions={},
                              by=t["owner"])
    with pytest.raises(InputError, match="not finished"):
        store.flag_for_review(t["ws"], running, flags[:1], by=t["cur"])


_cells = st.one_of(st.none(), st.booleans(), st.integers(-3, 10 ** 20), st.floats(allow_nan=True),
                   st.text(max_size=30), st.text(min_size=495, max_size=520), st.lists(st.integers(), max_size=2),
                   st.just("\x00"), st.just("\ud800"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.dictionaries(st.sampled_from(["example_id", "reason", "score", "other"]), _cells, max_size=4),
                     max_size=4) | _cells)
def test_any_flags_are_sent_whole_or_refused_with_one_clear_error(toy, tmp_path_factory, rows):
    """Hostile rows (missing keys, numbers, NUL, lone surrogates, texts too long, scores that are
    not finite numbers, not a table at all) are sent or refused with one `InputError`, and a refusal
    sends nothing."""
    with TeamStore(f"sqlite:///{tmp_path_factory.mktemp('flags')}/team.sqlite") as s:
        t = _team(s, toy)
        if isinstance(rows, list):   # half the time with a real id, so some rows are accepted
            rows = [dict(r, example_id=t["ids"][0]) if i % 2 and isinstance(r, dict) and "example_id" in r else r
                    for i, r in enumerate(rows)]
        try:
            new = s.flag_for_review(t["ws"], t["run_id"], rows, by=t["cur"])
        except InputError as exc:
            assert str(exc) and s.review_flags(t["ws"], t["run_id"], by=t["cur"]).empty
        else:
            kept = s.review_flags(t["ws"], t["run_id"], by=t["cur"])
            assert 1 <= new == len(kept) and kept["reason"].str.strip().ne("").all()
            assert kept["score"].map(lambda v: v is None or np.isnan(v) or np.isfinite(v)).all()


# ---------------------------------------------------------------------------- check --review-run
@pytest.fixture(scope="module")
def team_on_candidate(planted, tmp_path_factory):
    """A team store whose workspace holds the planted candidate's data and a finished run on it."""
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run

    folder, _ = planted
    cand = load_dataset(str(folder / "cand.jsonl"))
    run = fit_run(cand, represent(cand, "tfidf-svd:dim=8"), dict(n_partitions=4, train_size=0.2, slice_size=0.05,
                                                                 tau=0.0, target_size=0.5))
    url = f"sqlite:///{tmp_path_factory.mktemp('team')}/team.sqlite"
    with TeamStore(url) as s:
        ws = s.workspace("curation", owner="owner@x.org")
        s.set_role(ws, "cur@x.org", "curator", by="owner@x.org")
        s.set_role(ws, "ann@x.org", "annotator", by="owner@x.org")
        s.save_run(ws, s.save_dataset(ws, cand, source=str(folder / "cand.jsonl"), roles={}, by="owner@x.org"), run,
                   by="owner@x.org")
    return url, ws, run, cand


def test_check_sends_exactly_the_rows_that_carry_the_new_cue(planted, team_on_candidate, capsys):
    folder, ids = planted
    url, ws, run, _ = team_on_candidate
    args = ["check", str(folder / "base.json"), str(folder / "cand.json"), "--data", str(folder / "cand.jsonl"),
            "--review-run", run.key, "--db", url, "--workspace", "curation"]
    rows = folder / "refused-rows.csv"
    assert main([*args, "--as", "ann@x.org", "--rows", str(rows)]) == 2   # an annotator may not send
    assert "curator" in capsys.readouterr().err and not rows.exists()      # refused before any work or output
    assert main([*args[:-2], "--workspace", "nowhere", "--as", "cur@x.org"]) == 2
    assert "not a member of a workspace named 'nowhere'" in capsys.readouterr().err
    assert main([*args, "--as", "cur@x.org"]) == 1   # the gate's verdict stands; the rows are sent beside it
    assert "to the front of run" in capsys.readouterr().err
    with TeamStore(url) as s:
        flags = s.review_flags(ws, s.run_id(ws, run.key, by="cur@x.org"), by="ann@x.org")
    indeed = flags[flags["reason"].str.contains("indeed@hypothesis → entailment", regex=False)]
    assert set(indeed["example_id"]) == ids and len(indeed) == len(ids)   # exactly the planted rows
    assert (indeed["score"] > 4).all()   # the cue's z
    assert main([*args, "--as", "owner@x.org"]) == 1
    assert "; 0 new to the queue" in capsys.readouterr().err   # sending again adds nothing


def test_a_refused_send_writes_no_output(planted, team_on_candidate, capsys):
    """Issue 53, item 9: ``check --review-run`` on a run of other data is refused (exit 2) and
    writes none of its --json, --rows or --markdown files."""
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import fit_run

    folder, _ = planted
    url, ws, _, _ = team_on_candidate
    base = load_dataset(str(folder / "base.jsonl"))
    other = fit_run(base, represent(base, "tfidf-svd:dim=8"), dict(n_partitions=4, train_size=0.2, slice_size=0.05,
                                                                   tau=0.0, target_size=0.5))
    with TeamStore(url) as s:
        s.save_run(ws, s.save_dataset(ws, base, source=str(folder / "base.jsonl"), roles={}, by="owner@x.org"), other,
                   by="owner@x.org")
    outputs = {flag: folder / f"refused{ending}" for flag, ending in (("--json", ".json"), ("--rows", ".csv"),
                                                                       ("--markdown", ".md"))}
    assert main(["check", str(folder / "base.json"), str(folder / "cand.json"), "--data", str(folder / "cand.jsonl"),
                 "--review-run", other.key, "--db", url, "--workspace", "curation", "--as", "cur@x.org",
                 *[str(v) for pair in outputs.items() for v in pair]]) == 2
    assert "Nothing was sent" in capsys.readouterr().err
    assert not [p for p in outputs.values() if p.exists()]


def test_a_split_is_sent_only_when_its_rows_are_the_runs(planted, team_on_candidate):
    """The use case both front ends call: a split of the run's data is the run's rows; a split
    with one text changed is refused, and nothing is sent."""
    from artifact_lens.certificate.gate import compare
    from artifact_lens.certificate.schema import read_certificate
    from artifact_lens.usecases.review_queue import send_cue_rows

    folder, ids = planted
    url, ws, run, cand = team_on_candidate
    cues = compare(read_certificate(str(folder / "base.json")), read_certificate(str(folder / "cand.json"))).attrs["cues"]
    with TeamStore(url) as s:
        h = s.scoped(ws, "cur@x.org")
        run_id = h.run_id(run.key)
        h.clear_review_flags(run_id)
        half = sorted(ids)[: len(ids) // 2]
        split = cand.subset([*half, *[i for i in cand.table.index.astype(str) if i not in ids][:100]])
        changed = split.table.copy()
        changed.iloc[0, changed.columns.get_loc(split.text[-1])] += " (edited)"
        import dataclasses
        with pytest.raises(InputError, match="not run .*rows as it scored them.*Nothing was sent"):
            send_cue_rows(h, run_id, run, dataclasses.replace(split, table=changed), cues, full=cand)
        with pytest.raises(InputError, match="nor known to be a split"):
            send_cue_rows(h, run_id, run, split, cues)
        assert h.review_flags(run_id).empty
        sent = send_cue_rows(h, run_id, run, split, cues, full=cand)
        flagged = h.review_flags(run_id)
        assert set(flagged.loc[flagged["reason"].str.contains("indeed@hypothesis", regex=False), "example_id"]) == set(half)
        assert sent["new"] == sent["rows"] == len(flagged)


def test_the_review_queue_serves_the_sent_examples_first(service_tab):
    from service_tabs import score_demo

    from artifact_lens.dashboard.services import current, reviews, run_view
    from artifact_lens.dashboard.services.team import scope

    run = score_demo(service_tab, 300)
    run_id = run_view.team_run_id(service_tab, run)
    frame = run_view.table(service_tab, run).browse(run_view.live_result(service_tab, run))
    frame = frame[~frame["warmup"]]
    ws = scope(service_tab)
    least = frame.sort_values("predictability")["id"].astype(str).tolist()[:3]   # served last without the flags
    ws.flag_for_review(run_id, [{"example_id": i, "reason": "new cue: x → a", "score": 5.0} for i in least])
    served = reviews.queue(service_tab, run, run_id, frame, "predictability", ws.reviews(run_id))
    assert set(served["todo"][:3]) == set(least) and len(served["todo"]) == len(frame)
    assert reviews.flags_of(service_tab, run_id, least[0]) == ["new cue: x → a"]
    ws.review(run_id, least[0], "agree")   # once decided, it leaves this reviewer's queue like any other
    served = reviews.queue(service_tab, run, run_id, frame, "predictability", ws.reviews(run_id))
    assert least[0] not in set(served["todo"]) and set(served["todo"][:2]) == set(least[1:])


def test_the_evaluate_pages_send_puts_the_splits_cue_rows_first(planted, service_tab):
    """`dashboard.services.certificates.send_rows` (the certificate section's button): the split of
    a run on the planted candidate, compared with the baseline half, sends the split's rows that
    carry "indeed", and no other, to the run's queue; an annotator's tab may not."""
    from artifact_lens.usecases.certificates import certify_dataset, certify_split

    from artifact_lens.dashboard.services import certificates, current, pipelines, run_view
    from artifact_lens.dashboard.services.team import scope
    from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, Source

    folder, ids = planted
    tab = service_tab
    source = Source(str(folder / "cand.jsonl"), {}, "cand")
    key, ds = current.load(tab, source)
    spec = current.check_spec("tfidf-svd:fields=hypothesis,dim=8", ds)
    params = dict(DEFAULT_PARAMS, n_partitions=4)
    pipelines.apply_result(tab, pipelines.score(tab, None, key, ds, spec, params), params, source)
    run = run_view.run(tab)
    kept = set(np.asarray(run.ids)[np.asarray(run_view.live_result(tab, run)["retained"], dtype=bool)].astype(str))
    split, why = certify_split(ds, sorted(kept), run=run, folds=3)
    assert split is not None, why
    baseline = certify_dataset(load_dataset(str(folder / "base.jsonl")), run=run, folds=3)   # on the run's Φ too
    cues = certificates.comparison({"dataset": baseline, "split": split}).attrs["cues"]   # what the section draws
    with pytest.raises(InputError, match="save this run"):
        certificates.send_rows(tab, run, cues)   # not in the workspace yet
    pipelines.keep_in_workspace(tab)
    sent = certificates.send_rows(tab, run, cues)
    flagged = scope(tab).review_flags(run_view.team_run_id(tab, run))
    indeed = set(flagged.loc[flagged["reason"].str.contains("indeed@hypothesis", regex=False), "example_id"])
    assert indeed == ids & kept and indeed and sent["examples"] == flagged["example_id"].nunique()
