"""The run in view, fetched through the server's bounded cache: the session's run (from the cache,
the run store or the workspace's saved runs), its example table and labels, the live τ/n result,
and the team's runs and reviews of it. An eviction costs time, never state."""
from __future__ import annotations

from typing import Optional

import numpy as np

from artifact_lens.base.keys import ResultKey, data_key, read_key, result_key
from artifact_lens.dashboard.services import current
from artifact_lens.dashboard.services.team import scope


def run_by_key(tab, key: Optional[str]):
    """A finished run from the cache, the run store, or the workspace's saved runs (checksum
    verified); None when there is none. Raises `core.results.runs.CorruptRun` for a damaged run."""
    if not key:
        return None
    srv, key = tab.server, read_key(key)   # a key from a link or the team's records

    def load():
        found = srv.store.get(key)
        if found is None:
            ws = scope(tab)
            rec = ws.run_record(key)
            if rec is not None and rec["status"] == "done":
                found = ws.open_run(key)
        return found

    return srv.cache.get_or_compute("run", key, load)


def live_label(tab, key: str) -> str:
    """The τ and n this tab shows run ``key`` at, or last left it at ("τ 0.75, n 50%" for the
    defaults of a run it has not shown): a run in a list is named with the view it opens at."""
    from artifact_lens.dashboard.state.session import DEFAULT_TARGET, DEFAULT_TAU

    sess = tab.session
    tau, n = (sess.tau, sess.target) if key == sess.run_key else sess.live_of.get(key, (DEFAULT_TAU, DEFAULT_TARGET))
    return f"τ {float(tau):.2f}, n " + (f"{float(n):.0%}" if isinstance(n, float) and n < 1 else f"{int(n):,}")


def stored_run_count(tab) -> int:
    """How many finished runs the server's run store holds (every dataset)."""
    return len(tab.server.store.keys())


def workspace_runs(tab):
    """The runs the member's workspace holds (who made them, when, status), newest first."""
    return scope(tab).runs()


def team_run_id(tab, run_) -> Optional[int]:
    """The id of this run in the member's workspace, or None when it is not saved there."""
    return workspace_run_id(tab, run_.key)


def workspace_run_id(tab, key: str) -> Optional[int]:
    """The id of the finished run ``key`` in the member's workspace, or None."""
    rec = scope(tab).run_record(key)
    return rec["id"] if rec is not None and rec["status"] == "done" else None


def review_standing(tab, run_id: int, *, unblinded: bool = False):
    """`core.team.review.standing` of the run's reviews under the workspace's dispute rule: current
    (teammates review meanwhile), yet read from the database only when a review, the rule or (for
    the ``senior`` rule) a role changed since. In a blind workspace it is the member's own view
    (others' decisions only on examples they decided on), unless ``unblinded`` (adjudicators:
    the export, the adjudication queue, the team's agreement)."""
    from artifact_lens.team.review import standing
    from artifact_lens.team.run_agreement import dispute_roles

    ws = scope(tab)
    settings_ = ws.review_settings()
    stamp, rule = ws.review_stamp(run_id), settings_["dispute_rule"]
    roles = dispute_roles(ws, rule)
    view = "all" if unblinded or not settings_["blind"] else ws.by   # a blind view is its member's own
    return tab.server.cache.get_or_compute(
        "reviews", reviews_key(run_id, stamp, rule, sorted(roles.items()), view),
        lambda: standing(ws.reviews(run_id, unblinded=unblinded), rule=rule, roles=roles))


def reviews_key(run_id: int, stamp, *settings) -> ResultKey:
    """The key of a result of a run's reviews as they stand at ``stamp`` (the team store's own mark
    of their last change), with these settings."""
    return result_key(data_key(f"run {int(run_id)} reviews {stamp}"), *settings)


def run(tab):
    """The current dataset's run, or None (no run yet, a run of other data, or a damaged
    stored run, which every page names (`damaged_run`) and which is left on disk for the user
    to inspect)."""
    from artifact_lens.results.runs import CorruptRun

    try:
        found = run_by_key(tab, tab.session.run_key)
    except CorruptRun:
        return None
    if found is None or found.dataset_fingerprint != current.dataset(tab).fingerprint:
        return None
    return found


def damaged_run(tab) -> Optional[str]:
    """What is wrong with the current run's stored file, when it cannot be read (None otherwise)."""
    from artifact_lens.results.runs import CorruptRun

    try:
        run_by_key(tab, tab.session.run_key)
    except CorruptRun as exc:
        return str(exc)
    return None


def table(tab, run_):
    """The `core.results.tables.ExampleTable` of the current dataset and this run (shared, read-only)."""
    from artifact_lens.results.tables import ExampleTable

    return tab.server.cache.get_or_compute("table", current.named(tab, run_.key),
                                           lambda: ExampleTable(current.dataset(tab), run_).prepare_browsing())


def run_labels(tab, run_):
    """The labels of the run's scored examples (aligned with ``run.ids``) as a `pandas.Categorical`,
    once per run: every τ/n redraw counts them (a reindex by 100k string ids costs ~30 ms)."""
    import pandas as pd

    ds = current.dataset(tab)
    return tab.server.cache.get_or_compute("labels", current.named(tab, run_.key), lambda: pd.Categorical(
        ds.table[ds.label].reindex(np.asarray(run_.ids)).to_numpy()))


def live_values(tab, run_) -> tuple:
    """The session's τ and n (a count), clamped to what the run answers without a refit. A
    quality-ordered run answers only its fitted τ (the quality order among p̃ ≥ τ changes with
    τ), so τ is that run's; its n stays live."""
    sess = tab.session
    tau, n = run_.trajectory.clamp(sess.tau, sess.target)
    if run_.trajectory.quality is not None:
        tau = float(run_.trajectory.tau)
    return tau, n


def live_result(tab, run_) -> dict:
    """What a fresh fit at the session's τ and n gives (``retained``, ``removed_at``,
    ``predictability``, ``n_phases``), from the trajectory."""
    tau, n = live_values(tab, run_)
    return tab.server.cache.get_or_compute("live", result_key(run_.key, tau, n), lambda: run_.result_for(tau, n))
