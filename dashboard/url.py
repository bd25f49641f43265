"""The URL keeps the session's dataset, Φ, run and live τ/n, so a reload or a shared link
reopens the same view (`dashboard.pipelines.restore_link` reopens it)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from dashboard.session import session


def remember() -> None:
    sess = session()
    st.query_params.update({"ds": sess.ds_key, "spec": sess.spec, "run": sess.run_key or "",
                            "source": sess.source.label if sess.source else "",
                            "tau": f"{float(sess.tau):.2f}", "n": _short(sess.target)})


def _short(target) -> str:
    """n for the URL: a count as is, a share with 4 significant digits (0.35, not 0.34992887…)."""
    return str(int(target)) if float(target) >= 1 else f"{float(target):.4g}"


def named() -> Optional[dict]:
    """What the URL names (a copy: opening the run rewrites the URL from the session), or None
    when it names no dataset, Φ and run."""
    qp = dict(st.query_params)
    return qp if all(qp.get(k) for k in ("ds", "spec", "run")) else None
