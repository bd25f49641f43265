"""Background work of the dashboard: Φ + AFLite run, and UMAP; applying a finished job.

The job functions get everything they need as arguments (they run in a thread
without a streamlit session) and return plain keys; `apply_result` makes them the
session's current dataset, Φ and run.
"""
from __future__ import annotations

import hashlib
import json
from typing import Optional

import numpy as np

from core.progress import report
from dashboard import current
from dashboard.server import server
from dashboard.session import Source, session


def score(ctx, ds_key: str, ds, spec: str, params: dict) -> dict:
    """Φ (cached) then the AFLite run (stored by its parameters); ``ctx`` may be None."""
    from core.representations import represent
    from core.runs import fit_run, run_key

    srv = server()
    progress = ctx.progress if ctx is not None else None
    cancel = ctx.cancel if ctx is not None else None

    def sub(lo, hi):
        return None if progress is None else (lambda f, m="": report(progress, lo + (hi - lo) * f, m))

    rep = srv.cache.get_or_compute("representation", (ds_key, spec),
                                   lambda: represent(ds, spec, progress=sub(0.0, 0.4), cancel=cancel))
    key = run_key(ds.fingerprint, rep.spec, params)

    def fit():
        found = srv.store.get(key)
        if found is not None:
            return found

        def on_phase(rec):
            if ctx is not None:
                ctx.emit({k: v for k, v in rec.items() if not isinstance(v, np.ndarray)})

        fitted = fit_run(ds, rep, params, progress=sub(0.4, 1.0), cancel=cancel, on_phase=on_phase)
        srv.store.put(fitted)
        return fitted

    found = srv.cache.get_or_compute("run", key, fit)
    if current.map_method() == "umap":
        from core.projection import project

        pkey = current.projection_key(ds, rep)
        if project(rep.X, rep.ids, key=pkey, method="umap", only_cached=True) is None:
            start_umap(ds, rep)
    report(progress, 1.0, f"run ready: {found.n_phases} phases")
    return {"ds_key": ds_key, "spec": rep.spec, "run_key": key}


def start(ds_key: str, spec: str, params: dict, *, label: str = "", source: Optional[Source] = None,
          page: str = "") -> None:
    """Start (or join) the background job for this dataset, Φ and parameters; a run that
    is already stored becomes current at once. Raises InputError for a bad spec."""
    from core.runs import run_key

    srv, sess = server(), session()
    ds = current.dataset_by_key(ds_key, source)
    spec = current.check_spec(spec, ds)
    key = run_key(ds.fingerprint, spec, params)
    if key in srv.store:
        # returning to earlier settings is instant
        apply_result({"ds_key": ds_key, "spec": spec, "run_key": key}, params, source)
        return
    blob = json.dumps([ds_key, spec, params], sort_keys=True, default=str)
    job_key = "run:" + hashlib.sha256(blob.encode()).hexdigest()[:16]
    srv.jobs.submit(job_key, lambda ctx: score(ctx, ds_key, ds, spec, params), name=label or "AFLite run")
    sess.job_key, sess.job_params, sess.job_source, sess.job_page = job_key, dict(params), source, page
    sess.last_error = None


def apply_result(result: dict, params: dict, source: Optional[Source] = None) -> None:
    """Make a finished job's dataset, Φ and run the session's current ones."""
    from dashboard import url

    sess = session()
    if source is not None and result["ds_key"] != sess.ds_key:
        sess.source = source
    if result["ds_key"] == sess.pending_key:
        sess.pending_key = sess.pending_source = None
    sess.ds_key, sess.spec, sess.run_key = result["ds_key"], result["spec"], result["run_key"]
    sess.params = dict(params)
    url.remember()


def current_job():
    key = session().job_key
    return server().jobs.get(key) if key else None


def start_umap(ds, rep):
    """Start (or join) the background UMAP of this Φ; it is cached on disk.

    Started as soon as a representation is scored, so the map is usually ready when
    the Map page opens; it runs in a child process so the server stays responsive
    (see `core.projection.project_in_subprocess`).
    """
    from core.projection import project_in_subprocess

    key = current.projection_key(ds, rep)
    X, ids = rep.X, rep.ids
    slots = server().map_slots

    def work(ctx):
        # one UMAP child process per server at a time: quick dataset switches queue, not pile up
        while not slots.acquire(timeout=0.5):
            ctx.progress(0.0, "waiting for another map to finish")
        try:
            return project_in_subprocess(X, ids, key=key, method="umap", progress=ctx.progress, cancel=ctx.cancel)
        finally:
            slots.release()

    return server().jobs.submit("proj:" + key, work, name="UMAP")
