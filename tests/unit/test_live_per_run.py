"""Each run keeps its own live τ and n in a tab (issue 53, item 11): a new run opens at the
defaults, a run reopened at its own last values, and the sliders are redrawn only when the values
change (`Session.switch_run`)."""
from hypothesis import given, settings, strategies as st

from artifact_lens.dashboard.state.session import DEFAULT_TARGET, DEFAULT_TAU, LIVE_REMEMBERED, Session


def test_a_new_run_opens_at_the_defaults_and_a_reopened_one_at_its_own_values():
    sess = Session()
    sess.switch_run("snli")
    assert (sess.tau, sess.target, sess.knob_generation) == (DEFAULT_TAU, DEFAULT_TARGET, 0)
    sess.tau, sess.target = 0.8, 3937                     # moved on SNLI
    sess.switch_run("hh")
    assert (sess.tau, sess.target) == (DEFAULT_TAU, DEFAULT_TARGET) and sess.knob_generation == 1
    sess.target = 578
    sess.switch_run("snli")
    assert (sess.tau, sess.target) == (0.8, 3937) and sess.knob_generation == 2
    sess.switch_run("snli")                               # the same run: nothing moves
    assert (sess.target, sess.knob_generation) == (3937, 2)
    sess.switch_run("hh")
    assert sess.target == 578


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 100), st.integers(1, 10_000)), min_size=1, max_size=200))
def test_every_run_returns_to_its_last_n_within_the_bound(visits):
    sess, last = Session(), {}
    for run, n in visits:
        sess.switch_run(f"run{run}")
        expected = last.get(f"run{run}", DEFAULT_TARGET)
        assert sess.target == expected or f"run{run}" not in sess.live_of and expected != DEFAULT_TARGET
        sess.target = n
        last[f"run{run}"] = n
    assert len(sess.live_of) <= LIVE_REMEMBERED


def test_the_session_holds_one_map_of_the_jobs_it_watches():
    """Issue 54: job handles sat in five fields (the run's, the map's, the evaluation's and the
    quality page's two); the session now watches one job per kind, in one map."""
    import dataclasses

    from artifact_lens.base.jobs import JobKey
    from artifact_lens.dashboard.services import cached_jobs
    from artifact_lens.dashboard.state.session import Session

    sess = Session()
    typed = [f.name for f in dataclasses.fields(Session) if "JobKey" in str(f.type)]
    assert typed == [], typed   # no job handle outside the map
    from artifact_lens.base.keys import data_key

    run, evaluation = JobKey(cached_jobs.RUN, data_key("a")), JobKey(cached_jobs.EVALUATION, data_key("b"))
    sess.watch(cached_jobs.RUN, run)
    sess.watch(cached_jobs.EVALUATION, evaluation)
    assert sess.watching(cached_jobs.RUN) == run and sess.watching(cached_jobs.EVALUATION) == evaluation
    sess.watch(cached_jobs.RUN, None)
    assert sess.watching(cached_jobs.RUN) is None and sess.jobs == {"eval": evaluation}
