"""The URL keeps the session's dataset, Φ, run and live τ/n, so a reload or a shared link
reopens the same view (`dashboard.services.pipelines.restore_link` reopens it), and what a page's own
view needs to come back the same (`restore` / `keep`: the Map's colouring and selection, the
Examples search)."""
from __future__ import annotations

import json
from typing import Optional, Sequence

import streamlit as st

from artifact_lens.dashboard.state.browser import session


def remember() -> None:
    sess = session()
    st.query_params.update({"ds": sess.ds_key, "spec": sess.spec, "run": sess.run_key or "",
                            "source": sess.source.label if sess.source else "",
                            "tau": f"{float(sess.tau):.2f}", "n": _short(sess.target),
                            # the run's workspace: a link opens it there (`pipelines.restore_link`)
                            "ws": str(sess.workspace_id) if sess.workspace_id is not None else ""})


def _short(target) -> str:
    """n for the URL: a count as is, a share with 4 significant digits (0.35, not 0.34992887…)."""
    return str(int(target)) if float(target) >= 1 else f"{float(target):.4g}"


def named() -> Optional[dict]:
    """What the URL names (a copy: opening the run rewrites the URL from the session), or None
    when it names no dataset, Φ and run."""
    from artifact_lens.base.errors import InputError
    from artifact_lens.base.keys import read_key

    qp = dict(st.query_params)
    named = all(qp.get(k) for k in ("ds", "spec", "run"))
    if not (named and all(_linkable(qp[k]) for k in ("ds", "spec", "run"))):
        return None
    try:   # the data and the run are named by the keys the app wrote (a hand-edited one names nothing)
        qp["ds"], qp["run"] = read_key(qp["ds"]), read_key(qp["run"])
    except InputError:
        return None
    return qp


def _linkable(value: str) -> bool:
    """A link's value as the app writes one: no control character (a ``%00`` typed into a link)
    and no longer than a URL can be (a hand-made link is otherwise ignored, not an error page)."""
    return len(value) <= 4000 and not any(ord(c) < 32 or ord(c) == 127 for c in value)


#: a selection longer than this (as JSON) is kept in the tab only: URLs past ~8 kB are refused by
#: some proxies and browsers
_MAX_LIST = 4000


def restore(key: str, options: Optional[Sequence] = None) -> None:
    """Before widget ``key`` is drawn: a new session (a reload, a shared link) starts it from the
    URL's value, when the URL has one that is still one of ``options``."""
    value = st.query_params.get(key)
    if key in st.session_state or value is None or (options is not None and value not in options):
        return
    st.session_state[key] = value


def keep(key: str, value) -> None:
    """Keep a page's view value (text) in the URL; an empty one leaves it. Unchanged values are
    not sent again (this runs on every τ/n move)."""
    if value in (None, ""):
        st.query_params.pop(key, None)
    elif st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)


def keep_ids(key: str, ids: Sequence) -> None:
    """Keep a list of ids in the URL (as JSON), when it is short enough for a URL (a selection of
    thousands is not even written out: each id takes at least 4 characters of JSON)."""
    text = json.dumps([str(i) for i in ids]) if ids and 4 * len(ids) <= _MAX_LIST else ""
    keep(key, text if 0 < len(text) <= _MAX_LIST else None)


def ids_named(key: str) -> tuple:
    """The ids `keep_ids` kept, or () when the URL has none (or something else under the key)."""
    try:
        found = json.loads(st.query_params.get(key) or "[]")
    except ValueError:
        return ()
    return tuple(str(i) for i in found) if isinstance(found, list) else ()
