"""What every page does first (`start_page`), and the guard for pages that need a run."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.dashboard.services import current, run_view, navigation, pipelines, team
from artifact_lens.dashboard.state import browser, url
from artifact_lens.dashboard.widgets.formatting import plain
from artifact_lens.dashboard.widgets.reruns import redraw
from artifact_lens.dashboard.widgets.sign_in import sign_in
from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, DEFAULT_SOURCE, DEFAULT_SPEC, Session, Source
from artifact_lens.dashboard.state.tab import Tab
from artifact_lens.dashboard.widgets.sidebar import sidebar


def start_page(title: str, caption: str = "") -> Tab:
    """Sign-in (a shared instance shows nothing before it), title (and caption), session
    state (the workspace's newest run or the scored demo on a first visit, or what the URL
    names), sidebar and the last error. Every page calls it first, whether it runs inside
    ``app.py`` or alone (as streamlit's AppTest runs it), and hands the `Tab` it returns to
    every service and widget it calls."""
    tab = browser.tab()
    _leave_directory_mode()
    st.title(title)
    try:
        sign_in(tab)
    except InputError as exc:   # e.g. the team database cannot be reached: say so, keep serving
        st.error(plain(exc))
        st.stop()
    if caption:
        st.caption(caption)
    sess = tab.session
    _drop_changed_dataset(tab, sess)
    if not sess.ready and not pipelines.restore_link(tab, url.named()) and not _open_newest_run(tab, sess):
        _open_demo(tab, sess)
    url.remember()   # every page keeps dataset, Φ, run, τ and n in the URL
    sidebar(tab)
    damaged = run_view.damaged_run(tab)
    if damaged:
        st.error(plain(damaged))
    error = sess.last_error
    if error:
        st.error(plain(error["message"]))
        if error.get("traceback") and error.get("page") == title and _tracebacks_shown():
            with st.expander("Details (traceback)"):
                st.code(error["traceback"], language=None)
    skipped = navigation.not_for_items(title, current.dataset(tab)) if sess.ready else None
    if skipped:
        st.info(plain(skipped))
        st.stop()
    return tab


def _drop_changed_dataset(tab, sess: Session) -> None:
    """A dataset reloaded after an eviction whose file now holds other content is not shown with the
    old content's results: the tab says so and starts afresh (`current.SourceChanged`)."""
    if not sess.ready:
        return
    try:
        current.dataset(tab)
    except current.SourceChanged as exc:
        sess.fail(str(exc))
        sess.ds_key, sess.source = "", None
        sess.switch_run(None)


def _tracebacks_shown() -> bool:
    """Only where the server shows error details (a curator's own machine, not the shipped
    default): tracebacks name server paths."""
    return str(st.get_option("client.showErrorDetails")).lower() in ("full", "stacktrace", "true")


def _leave_directory_mode() -> None:
    """When the first request a server gets opens a page's own URL (a shared link after a
    restart), Streamlit still runs in its old pages-folder mode: the page runs without
    app.py, so the sidebar lists file names and app.py's settings are missing. Leaving that
    mode and rerunning lets app.py's `st.navigation` serve the same page."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:   # a Streamlit without them has no such mode
        return
    # only a real server: AppTest runs page files directly, in that mode, on purpose
    if PagesManager.uses_pages_directory and type(Runtime.instance()) is Runtime:
        PagesManager.uses_pages_directory = False
        redraw()


def _open_newest_run(tab, sess: Session) -> bool:
    """On a shared instance, open the workspace's newest finished run (what a teammate
    opening it wants); single-user, the demo opens as always."""
    if not team.member(tab).signed_in:
        return False
    runs = run_view.workspace_runs(tab)
    for key in runs.loc[runs["status"] == "done", "key"]:
        try:
            pipelines.open_team_run(tab, key)
            return True
        except InputError as exc:   # its dataset no longer loads, or its file is damaged
            sess.fail(f"The workspace's newest run could not be opened: {exc}")
    return False


def _open_demo(tab, sess: Session) -> None:
    with st.spinner("Loading the synthetic NLI demo and scoring it with a small AFLite run…"):
        source = Source(DEFAULT_SOURCE, {}, DEFAULT_SOURCE)
        key, ds = current.load(tab, source)
        result = pipelines.score(tab, None, key, ds, current.check_spec(DEFAULT_SPEC, ds), DEFAULT_PARAMS)
    sess.source = source
    pipelines.apply_result(tab, result, DEFAULT_PARAMS, source)


def require_run(tab):
    """(run, dataset): the current dataset's AFLite run and the dataset; without a run, say
    how to make one and stop the page."""
    run = run_view.run(tab)
    if run is None:
        st.warning("The current dataset has no AFLite run yet: build Φ and score it on the Data page.")
        st.stop()
    return run, current.dataset(tab)
