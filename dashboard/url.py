"""The URL keeps the session's dataset, Φ, run and live τ/n, so a reload or a shared link
reopens the same view (while the server knows how to load that dataset)."""
from __future__ import annotations

import streamlit as st

from dashboard import current
from dashboard.server import server
from dashboard.session import DEFAULT_PARAMS, DEFAULT_TARGET, DEFAULT_TAU, session


def remember() -> None:
    sess = session()
    st.query_params.update({"ds": sess.ds_key, "spec": sess.spec, "run": sess.run_key or "",
                            "source": sess.source.label if sess.source else "",
                            "tau": f"{float(sess.tau):.2f}", "n": _short(sess.target)})


def _short(target) -> str:
    """n for the URL: a count as is, a share with 4 significant digits (0.35, not 0.34992887…)."""
    return str(int(target)) if float(target) >= 1 else f"{float(target):.4g}"


def restore() -> bool:
    """Reopen what the URL names; False (start on the demo) when the server cannot."""
    qp = st.query_params
    ds_key, spec, run_key = qp.get("ds"), qp.get("spec"), qp.get("run")
    if not (ds_key and spec and run_key):
        return False
    qp = dict(qp)   # read now: opening the run rewrites the URL from the session
    if current.workspace_run_id(run_key) is not None:   # a teammate's link: the workspace knows how to reopen it
        from core.errors import InputError
        from dashboard.pipelines import open_team_run

        try:
            open_team_run(run_key)
        except InputError:
            return False
        _restore_live(qp)
        return True
    # beyond the workspace's runs, a link opens a run the server has cached only single-user:
    # on a shared instance it could be another workspace's data
    from dashboard.team import member

    source = server().cache.peek("source", ds_key)
    if source is None or member().signed_in:
        return False
    try:
        ds = current.dataset_by_key(ds_key, source)
        run = current.run_by_key(run_key)
    except Exception:  # noqa: BLE001  (a link to something that no longer loads: open the demo)
        return False
    if ds is None or run is None or run.dataset_fingerprint != ds.fingerprint or run.representation != spec:
        return False
    sess = session()
    sess.ds_key, sess.source, sess.spec, sess.run_key = ds_key, source, spec, run_key
    sess.params = {k: v for k, v in run.params.items() if k in DEFAULT_PARAMS}
    _restore_live(qp)
    return True


def _restore_live(qp) -> None:
    sess = session()
    try:
        sess.tau = float(qp.get("tau", DEFAULT_TAU))
        target = float(qp.get("n", DEFAULT_TARGET))
    except ValueError:
        sess.tau, target = DEFAULT_TAU, DEFAULT_TARGET
    sess.target = int(target) if target >= 1 else target
