"""Progress and a Cancel button for background jobs: the session's run job (`job_panel`, in
the sidebar) and any other job a page starts (`watch`)."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.dashboard.services import pipelines
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw


def timing(snap: dict) -> str:
    """Elapsed time and the time left ("12 s, about 40 s left"): from a tenth of the work on, at the
    pace so far, and never rising (`core.base.progress.Remaining`); past it, "longer than estimated"."""
    elapsed = float(snap["elapsed"])
    if snap.get("over"):
        return f"{elapsed:.0f} s, longer than estimated"
    if snap.get("left") is None:
        return f"{elapsed:.0f} s"
    return f"{elapsed:.0f} s, about {_duration(snap['left'])} left"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def job_panel(tab) -> None:
    """Polls twice a second while the job runs; when it ends, its result becomes the
    current run, or its error is kept for the page to show (the previous run stays)."""
    job = pipelines.current_job(tab)

    @st.fragment(run_every=0.5 if (job is not None and not job.done) else None)
    def _panel():
        sess = tab.session
        job = pipelines.current_job(tab)
        if job is None:
            return
        if job.done:
            pipelines.forget_job(tab)
            if job.status == "done":
                pipelines.apply_result(tab, job.result, sess.job_params or sess.params, sess.job_source)
                sess.last_error = None
                pipelines.keep_in_workspace(tab)   # this tab may have joined a job another workspace started
                redraw()
            elif job.status == "cancelled":
                st.warning("Cancelled; the previous dataset and run are still in use.")
            else:
                if isinstance(job.error, InputError):
                    sess.fail(str(job.error))
                else:
                    sess.fail(f"{job.name} failed: {type(job.error).__name__}: {job.error} (error id "
                              f"{job.error_id}; the traceback is in the server log)", job.traceback, sess.job_page)
                redraw()
            return
        snap = job.snapshot()
        st.progress(snap["fraction"], text=f"{snap['name']}: {snap['message'] or 'starting'} ({timing(snap)})")
        if snap["records"]:
            last = snap["records"][-1]
            r = last.get("R")
            st.caption(f"phase {last.get('phase', 0) + 1}: |S| = {last.get('size')}, removed {last.get('removed')}"
                       + (f", R = {r:.3f}" if r is not None else ""))
        if st.button("Cancel", key="cancel_job"):
            job.cancel()

    with st.container():   # see `watch`: the element after a fragment that reruns the app must not be dropped
        _panel()


def watch(tab, get_job, what: str, key: str, on_end) -> None:
    """A page's background job (``get_job(tab)``: the job or None): its progress bar and Cancel
    button, polled twice a second in a fragment. When it ends, ``on_end(tab, job)`` (forget it,
    keep its result) and then: done → the whole page reruns to show the result; cancelled →
    said; an error → its message (with the error id of its traceback in the server log)."""
    running = get_job(tab)

    @st.fragment(run_every=0.5 if (running is not None and not running.done) else None)
    def _panel():
        job = get_job(tab)
        if job is None:
            return
        if job.done:
            on_end(tab, job)
            if job.status == "done":
                redraw()
            elif job.status == "cancelled":
                st.warning(f"{what} cancelled.")
            else:
                st.error(plain(job.error if isinstance(job.error, InputError) else
                               f"{what} failed: {type(job.error).__name__}: {job.error} (error id {job.error_id}; "
                               "the traceback is in the server log)"))
            return
        snap = job.snapshot()
        st.progress(snap["fraction"], text=f"{what}: {snap['message'] or 'starting'} ({timing(snap)})")
        if st.button("Cancel", key=f"{key}_cancel"):
            job.cancel()

    # in a container of its own: the element right after a fragment that reran the app from inside
    # (a finished job) was dropped by the browser (the Evaluate page's verdict, until a reload)
    with st.container():
        _panel()
