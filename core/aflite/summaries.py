"""Summaries of one run at a live τ and n: label balance, phases, phase scores, over-filtering.

Small tables that the dashboard, the CLI and notebooks draw or print; the figures
built from them are in `core.plots.aflite`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

__all__ = ["label_summary", "phase_frame", "phases_run", "phase_scores", "below_chance", "live_view"]


def live_view(tau, n: int, total: int) -> str:
    """The live τ and n in words, n as a count and a share of the ``total`` scored examples:
    ``τ = 0.75, n = 2,952 (30 %)`` (the same words on every page and in exports)."""
    share = 100.0 * n / total if total else 0.0
    pct = f"{share:.0f}" if share >= 1 or share == 0 else f"{share:.1f}"
    return f"τ = {float(tau):.2f}, n = {int(n):,} ({pct} %)"


def label_summary(labels, retained) -> pd.DataFrame:
    """Retained/removed counts per label and the label balance before and after.

    Parameters
    ----------
    labels : array (N,) or pandas.Categorical
        Label of each scored example.
    retained : bool array (N,)
        The retained mask for the chosen τ and n.

    Returns
    -------
    DataFrame indexed by label with ``total, retained, removed, removed_share,
    share_before, share_after`` (shares of each label among all / retained examples),
    plus a final ``all`` row.
    """
    # a Categorical (the dashboard keeps one per run) counts by its codes: twice as fast at 100k
    labels = pd.Series(labels if isinstance(labels, pd.Categorical) else np.asarray(labels), name="label")
    retained = np.asarray(retained, dtype=bool)
    total = labels.value_counts().sort_index()
    kept = labels[retained].value_counts().reindex(total.index, fill_value=0)
    out = pd.DataFrame({"total": total, "retained": kept, "removed": total - kept})
    out["removed_share"] = out["removed"] / out["total"]
    out["share_before"] = out["total"] / max(int(out["total"].sum()), 1)
    out["share_after"] = out["retained"] / max(int(out["retained"].sum()), 1)
    all_row = pd.DataFrame({"total": [out["total"].sum()], "retained": [out["retained"].sum()],
                            "removed": [out["removed"].sum()]}, index=["all"])
    all_row["removed_share"] = all_row["removed"] / all_row["total"].clip(lower=1)
    all_row["share_before"] = 1.0
    all_row["share_after"] = 1.0
    out = pd.concat([out, all_row])
    out.index.name = "label"
    return out


def phase_frame(run, retained=None) -> pd.DataFrame:
    """The per-phase history as a table; with a live mask, how many each phase removes at that τ/n."""
    frame = pd.DataFrame(run.history)
    if retained is not None and len(frame):
        removed_at = np.where(np.asarray(retained, dtype=bool), -1, run.removed_at)
        live = pd.Series(removed_at[removed_at >= 0]).value_counts()
        frame["removed_at_chosen_tau_n"] = frame["phase"].map(live).fillna(0).astype(int)
    return frame


def phases_run(phases: pd.DataFrame) -> int:
    """How many phases remove examples at the live τ/n (from `phase_frame` with a mask)."""
    if not len(phases) or "removed_at_chosen_tau_n" not in phases:
        return 0
    return int((phases["removed_at_chosen_tau_n"] > 0).sum())


def below_chance(run, live: dict, margin: float = 0.02) -> Optional[dict]:
    """Whether filtering at the live τ and n went past removing artifacts.

    When the pooled held-out accuracy of the last phase that runs at this τ and n
    (``history_[j]["heldout_accuracy"]``, on S_j) is below chance (1 / number of
    labels) by more than ``margin``, the models predict the remaining labels *worse*
    than guessing: what is left is adversarial to the representation rather than
    merely free of its shortcuts (AFLite over-filtering). Returns ``phase``,
    ``accuracy`` and ``chance`` then, else None.
    """
    history = run.history
    n_classes = len(run.classes)
    if not history or n_classes < 2:
        return None
    last = history[min(int(live["n_phases"]) - 1, len(history) - 1)]
    accuracy = last.get("heldout_accuracy")
    chance = 1.0 / n_classes
    if accuracy is None or accuracy >= chance - margin:
        return None
    return {"phase": int(last["phase"]), "accuracy": float(accuracy), "chance": chance}


def phase_scores(run, labels=None, max_phases: int = 40, max_points: int = 4000, random_state: int = 0) -> pd.DataFrame:
    """Long table of p̃ per phase (``phase, score, label``), for 'scores phase by phase' plots.

    At most ``max_phases`` phases (evenly spaced, the first and last always kept) and
    ``max_points`` seeded random scores per phase, so the chart stays light at any N.
    """
    traj = run.trajectory
    n = traj.n_phases
    if n == 0:
        return pd.DataFrame(columns=["phase", "score", "label"])
    phases = np.unique(np.linspace(0, n - 1, min(n, max_phases)).round().astype(int))
    labels = None if labels is None else np.asarray(labels)
    rng = np.random.default_rng(random_state)
    parts = []
    for j in phases:
        s = traj.phase_scores(j)
        pick = np.arange(len(s)) if len(s) <= max_points else np.sort(rng.choice(len(s), max_points, replace=False))
        part = pd.DataFrame({"phase": j, "score": s[pick]})
        if labels is not None:
            part["label"] = labels[traj.members(j)[pick]]
        parts.append(part)
    return pd.concat(parts, ignore_index=True).dropna(subset=["score"])


def where_it_ran(run) -> str:
    """Where a run was computed, in words ("computed on the CPU with 2 threads in 38.2 s"), from its
    record (a run saved before this was recorded says only the time)."""
    ex = dict(run.record.get("execution") or {})
    seconds = f" in {run.seconds:.1f} s" if run.seconds else ""
    if ex.get("backend") == "dask":
        return f"computed on a Dask cluster of {ex.get('workers', '?')} workers{seconds}"
    device = ex.get("device")
    if device and device != "cpu":
        return f"computed on {device}{seconds}"
    threads = ex.get("threads")
    on = " on the CPU" if device else ""
    return f"computed{on}" + (f" with {threads} thread{'s' if threads != 1 else ''}" if threads else "") + seconds
