"""Background work of the dashboard: Φ + AFLite run, and UMAP; applying a finished job;
saving runs to the member's workspace and opening saved ones.

The job functions get everything they need as arguments (they run in a thread
without a streamlit session) and return plain keys; `apply_result` makes them the
session's current dataset, Φ and run. A run started from the dashboard is recorded in
the team store as "running" before its job starts, and saved (file, checksum, "done")
by the job itself, so closing the tab loses nothing and a server crash leaves it
"interrupted" (resumable from the Team page).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from artifact_lens.base.errors import InputError
from artifact_lens.base.jobs import offload
from artifact_lens.base.keys import read_key, result_key
from artifact_lens.base.settings import settings
from artifact_lens.base.progress import report, span
from artifact_lens.usecases import scoring
from artifact_lens.usecases.scoring import RunLife
from artifact_lens.dashboard.services import cached_jobs, current, run_view, map_settings, team
from artifact_lens.dashboard.services.quality import quality_column
from artifact_lens.dashboard.state.session import DEFAULT_PARAMS, DEFAULT_TARGET, DEFAULT_TAU, Source


def score(tab, ctx, ds_key: str, ds, spec: str, params: dict, life: Optional[RunLife] = None,
          quality: Optional[dict] = None, joint: Optional[dict] = None, key: Optional[str] = None) -> dict:
    """Φ (cached) then the AFLite run (`core.usecases.scoring.score_dataset`: stored by its
    parameters, recorded in ``life``'s workspace when given); ``ctx`` may be None. ``quality`` (a
    `dashboard.services.quality.descriptor`) makes it a quality-ordered run (paper 002): the quality column
    is computed (or read back) first, and the run is stored under its own key. ``joint`` (a
    `core.dynamics.joint.descriptor`) makes it a joint run: the training dynamics on Φ first, then
    AFLite removing only easy-to-learn examples (its own key too). ``key``: the run's `scored_key`, when
    the caller has it (`start` does: the run is named once)."""
    from artifact_lens.representations import represent, source_changed

    srv = tab.server
    progress = ctx.progress if ctx is not None else None
    cancel = ctx.cancel if ctx is not None else None

    def build():
        return offload(ctx, represent, ds, spec, progress=span(progress, 0.0, 0.4), cancel=cancel)

    rep_key = result_key(ds_key, spec)
    rep = srv.cache.get_or_compute("representation", rep_key, build)
    if source_changed(rep.info):      # Φ read from a vector file that has been rewritten since
        srv.cache.discard("representation", rep_key)
        rep = srv.cache.get_or_compute("representation", rep_key, build)
    key = key or scoring.scored_key(ds, rep.spec, params, quality, joint)

    inputs = scoring.run_inputs(
        ds, rep, quality=(lambda sub: quality_column(tab, ds, rep, quality, ctx, progress=sub)) if quality else None,
        joint_info=joint, n_jobs=ctx.cores if ctx is not None else None, cancel=cancel,
        run_in=lambda fn, *a, **kw: offload(ctx, fn, *a, **kw))

    # every core the job is granted, on the device ARTIFACT_LENS_DEVICE names (a GPU, say): neither
    # changes the result or the key
    how = {"n_jobs": ctx.cores} if ctx is not None else {}
    if settings().device:
        how["device"] = settings().device

    def on_phase(rec):
        if ctx is not None:
            ctx.emit({k: v for k, v in rec.items() if not isinstance(v, np.ndarray)})

    scored = []

    def score_it():
        scored.append(True)
        return scoring.score_dataset(ds, rep, params, quality_info=quality, joint_info=joint, inputs=inputs,
                                     store=srv.store, life=life, how=how, progress=span(progress, 0.4, 1.0),
                                     cancel=cancel, on_phase=on_phase, key=key,
                                     run_in=lambda fn, *a, **kw: offload(ctx, fn, *a, relay=("on_phase",), **kw))

    # the bounded cache makes concurrent asks for one run (every tab opening on the demo) one fit
    found = srv.cache.get_or_compute("run", key, score_it)
    if not scored:   # this server had the run in memory: the same rules as a stored one
        scoring.keep(found, life)
    if map_settings.map_method() == "umap":
        from artifact_lens.representations.projection import project

        pkey = map_settings.projection_key(ds, rep)
        if project(rep.X, rep.ids, key=pkey, method="umap", only_cached=True, parallel=map_settings.map_parallel()) is None:
            start_umap(tab, ds, rep)
    report(progress, 1.0, f"run ready: {found.n_phases} phases")
    return {"ds_key": ds_key, "spec": rep.spec, "run_key": key}


def start(tab, ds_key: str, spec: str, params: dict, *, label: str = "", source: Optional[Source] = None,
          page: str = "", quality: Optional[dict] = None, joint: Optional[dict] = None) -> None:
    """Start (or join) the background job for this dataset, Φ and parameters (and quality
    order or joint filter, see `score`); a run that is already stored becomes current at once. Raises
    InputError for a bad spec and `core.team.store.NotAllowed` when the member's role does not
    run filters."""

    m = team.require(tab, "run filters")
    srv, sess = tab.server, tab.session
    ds = current.dataset_by_key(tab, ds_key, source)
    spec = current.check_spec(spec, ds)
    key = scoring.scored_key(ds, spec, params, quality, joint)
    # the job's thread has no session: bind the member now
    life = RunLife(srv.team.scoped(m.workspace_id, m.email),
                   _save_dataset(tab, ds, source or sess.source or srv.cache.peek("source", read_key(ds_key))))
    stored = run_view.run_by_key(tab, key) if key in srv.store else None
    if stored is not None:
        scoring.keep(stored, life)   # returning to earlier settings is instant; the workspace gets the run too
        apply_result(tab, {"ds_key": ds_key, "spec": spec, "run_key": key}, params, source)
        return

    def work(ctx):
        return score(tab, ctx, ds_key, ds, spec, params, life=life, quality=quality, joint=joint, key=key)

    # the job is named by the run's own key: two tabs (or two sources of the same data) asking for one
    # run join one job
    job = cached_jobs.start(tab, cached_jobs.RUN, key, work, name=label)
    sess.watch(cached_jobs.RUN, job.spec)
    sess.job_params, sess.job_source, sess.job_page = dict(params), source, page
    sess.last_error = None


def apply_result(tab, result: dict, params: dict, source: Optional[Source] = None) -> None:
    """Make a finished job's dataset, Φ and run the session's current ones."""
    sess = tab.session
    if source is not None and result["ds_key"] != sess.ds_key:
        sess.source = source
    if result["ds_key"] == sess.pending_key:
        sess.pending_key = sess.pending_source = None
    sess.ds_key, sess.spec = result["ds_key"], result["spec"]
    sess.switch_run(result["run_key"])   # with its own live τ and n, never another run's count
    sess.keep_params(sess.ds_key, params)


def keep_in_workspace(tab) -> None:
    """Save the session's current run in its member's workspace if it is not there yet. A job
    is shared by everyone who asks for the same data and parameters, and it saves its run only
    in the workspace of whoever started it; the others' tabs save it here."""
    found = run_view.run(tab)
    if found is not None and team.member(tab).can("run filters") and run_view.team_run_id(tab, found) is None:
        save_to_workspace(tab, found)


def save_to_workspace(tab, run) -> int:
    """Save the session's current run (and its dataset) in the member's workspace, so
    teammates can open and review it; returns its id there."""
    team.require(tab, "run filters")
    dataset_id = _save_dataset(tab, current.dataset(tab), tab.session.source)
    return team.scope(tab).save_run(dataset_id, run)


def _save_dataset(tab, ds, src: Optional[Source]) -> int:
    """Record the dataset in the member's workspace with how to reload it; an upload is
    copied beside the team database first (the uploads folder is a bounded cache)."""
    from artifact_lens.base import paths

    where = str(src.source) if src else ds.name
    uploads = paths.cache_dir() / "uploads"
    if src is not None and Path(where).parent == uploads and Path(where).is_file():
        where = team.scope(tab).keep_file(where)
    return team.scope(tab).save_dataset(ds, source=where, roles=src.roles if src else {},
                                name=src.label if src and src.label else ds.name)


def open_team_run(tab, key: str) -> None:
    """Make a run saved in the member's workspace current: its dataset is reloaded from the
    recorded source and column mapping, its run read from the file (checksum verified)."""
    from artifact_lens.base.errors import InputError

    team.require(tab, "read")
    rec = team.scope(tab).run_record(key)
    if rec is None or rec["status"] != "done":
        raise InputError(f"run {key} is not a finished run of this workspace; choose one from the list.")
    source = Source(rec["source"], dict(rec["roles"] or {}), rec["dataset"])
    ds_key, ds = current.load(tab, source)
    run = run_view.run_by_key(tab, key)
    if run is None or run.dataset_fingerprint != ds.fingerprint:
        raise InputError(f"the dataset of run {key} ({rec['dataset']}) has changed since the run was made; "
                         "load it again and run the filter anew.")

    apply_result(tab, {"ds_key": ds_key, "spec": run.representation, "run_key": key},
                 {k: v for k, v in run.params.items() if k in DEFAULT_PARAMS}, source)
    tab.session.source = source


def forget_job(tab) -> None:
    """This tab stops watching its AFLite job (it ended and was applied, or the tab left for another
    workspace); the job itself runs on for whoever else joined it."""
    tab.session.watch(cached_jobs.RUN, None)


def current_job(tab):
    return tab.server.jobs.get(tab.session.watching(cached_jobs.RUN))


def start_umap(tab, ds, rep):
    """Start (or join) the background UMAP of this Φ; it is cached on disk.

    Started as soon as a representation is scored, so the map is usually ready when
    the Map page opens; it runs in a child process so the server stays responsive
    (see `core.representations.map_process.project_in_subprocess`).
    """
    from artifact_lens.representations.map_process import project_in_subprocess

    key = map_settings.projection_key(ds, rep)
    X, ids = rep.X, rep.ids
    slots = tab.server.map_slots
    parallel = map_settings.map_parallel()

    def work(ctx):
        # one UMAP child process per server at a time: quick dataset switches queue, not pile up
        while not slots.acquire(timeout=0.5):
            ctx.progress(0.0, "waiting for another map to finish")
        try:
            return project_in_subprocess(X, ids, key=key, method="umap", progress=ctx.progress, cancel=ctx.cancel,
                                         parallel=parallel)
        finally:
            slots.release()

    return cached_jobs.start(tab, cached_jobs.MAP_PARALLEL if parallel else cached_jobs.MAP, key, work)


def projection(tab, method: str, *, start: bool = True):
    """The 2-D projection of the current Φ, or None while UMAP is computed.

    PCA is instant and computed inline; UMAP runs once per representation in a
    background job (disk-cached), never on a knob change.
    """
    from artifact_lens.representations.projection import project

    sess = tab.session
    ds, rep = current.dataset(tab), current.representation(tab)
    key = map_settings.projection_key(ds, rep)
    if method == "pca":
        return tab.server.cache.get_or_compute("projection", result_key(key, method),
                                               lambda: project(rep.X, rep.ids, key=key, method="pca"))
    parallel = map_settings.map_parallel()
    proj = tab.server.cache.get_or_compute(
        "projection", result_key(key, method, parallel),
        lambda: project(rep.X, rep.ids, key=key, method="umap", only_cached=True, parallel=parallel))
    if proj is None and start:
        sess.watch(cached_jobs.MAP, start_umap(tab, ds, rep).spec)
    return proj


def projection_job(tab):
    return tab.server.jobs.get(tab.session.watching(cached_jobs.MAP))


def restore_link(tab, qp: Optional[dict]) -> bool:
    """Reopen what a link names (``qp``: the URL's query, `dashboard.state.url.named`); False (start
    on the demo) when it names nothing or the server cannot."""
    if qp is None:
        return False
    ds_key, spec, run_key = qp["ds"], qp["spec"], qp["run"]
    if not _into_linked_workspace(tab, qp.get("ws")):
        return False
    if run_view.workspace_run_id(tab, run_key) is not None:   # a teammate's link: the workspace knows how to reopen it
        try:
            open_team_run(tab, run_key)
        except InputError:
            return False
        _restore_live(tab, qp)
        return True
    if team.member(tab).signed_in:   # beyond the workspace's runs a link opens nothing on a shared instance
        tab.session.fail(f"The run this link names is not in workspace {team.member(tab).workspace!r} (it may have been "
                         "discarded, or its dataset removed); the workspace's newest run is open instead.")
        return False
    # a link to a run the server has cached opens single-user only: on a shared instance it could be
    # another workspace's data
    source = tab.server.cache.peek("source", ds_key)
    if source is None:
        return False
    try:
        ds = current.dataset_by_key(tab, ds_key, source)
        run = run_view.run_by_key(tab, run_key)
    except Exception:  # noqa: BLE001  (a link to something that no longer loads: open the demo)
        return False
    if ds is None or run is None or run.dataset_fingerprint != ds.fingerprint or run.representation != spec:
        return False
    sess = tab.session
    sess.ds_key, sess.source, sess.spec, sess.run_key = ds_key, source, spec, run_key
    sess.keep_params(ds_key, {k: v for k, v in run.params.items() if k in DEFAULT_PARAMS})
    _restore_live(tab, qp)
    return True


def _into_linked_workspace(tab, linked) -> bool:
    """Make the workspace a link names this tab's, when the member belongs to it (True); else say
    so plainly and stay in their own (False: the link's run is not opened in another workspace)."""
    me = team.member(tab)
    if not linked or linked == str(me.workspace_id) or not me.signed_in:
        return True
    spaces = tab.server.team.workspaces_of(me.email)
    found = next((w for w in spaces if str(w[0]) == str(linked)), None)
    if found is None:
        tab.session.fail("This link opens a run in a workspace you are not a member of (or one that no longer "
                         f"exists); you are in {me.workspace!r}. Ask an owner of the link's workspace to add you.")
        return False
    team.enter_workspace(tab, found[0])
    return True


def _restore_live(tab, qp) -> None:
    sess = tab.session
    try:
        sess.tau = float(qp.get("tau", DEFAULT_TAU))
        target = float(qp.get("n", DEFAULT_TARGET))
    except ValueError:
        sess.tau, target = DEFAULT_TAU, DEFAULT_TARGET
    sess.target = int(target) if target >= 1 else target
