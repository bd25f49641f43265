"""Quality (DQI, paper 002) in the dashboard: the quality components of the current dataset and Φ,
computed once in a background job and kept on disk beside the run store, their lights with the
session's thresholds, the combined score with the session's weights, the quality column of a
quality-ordered AFLite run, and the plain vs quality-ordered comparison (`core.quality`).

The components depend only on the dataset, Φ and two knobs (``min_count``, ``nn_dim``); the
combined ``dqi`` and every light are recomputed from them in milliseconds, so the weights and
thresholds are live knobs. Tables go through the server's bounded cache (kind ``"quality"``),
read back from ``$ARTIFACT_LENS_CACHE/runs/quality/<key>.parquet`` after an eviction or a restart.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from artifact_lens.quality import pruning
from artifact_lens.base.jobs import offload
from artifact_lens.base.progress import span
from artifact_lens.quality import COMPONENTS, DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS, DQI_COMPONENTS, combine, lights
from artifact_lens.quality.pruning import quality_descriptor
from artifact_lens.base.lights import COLOURS, EMOJI, LIGHTS, NA
from artifact_lens.base.keys import ResultKey, read_key, result_key
from artifact_lens.dashboard.services import cached_jobs, current, team

__all__ = ["QualityState", "state", "context_key", "table", "scored", "start", "job", "descriptor",
           "quality_column", "badge", "BADGES", "LIGHT_PALETTE", "ORDERS", "compare_start",
           "compare_result", "compare_job"]

#: the removal orders of the Filter page's run form
ORDERS = {"predictability": "by p̃ (plain AFLite)", "dqi": "by quality (DQI combined)",
          "component": "by one quality component"}
#: a quality light as text (tables, legends) and as a colour (the map), from `core.base.lights`
BADGES = {k: EMOJI[k] for k in (*LIGHTS, NA)}
LIGHT_PALETTE = {k: COLOURS[k] for k in (*LIGHTS, NA)}


@dataclass
class QualityState:
    """The tab's quality knobs (`Session.quality`; the jobs it watches are in `Session.jobs`)."""

    weights: dict = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    thresholds: dict = field(default_factory=lambda: {k: tuple(v) for k, v in DEFAULT_THRESHOLDS.items()})
    min_count: int = pruning.QUALITY_MIN_COUNT
    nn_dim: Optional[int] = pruning.QUALITY_NN_DIM
    compare_key: Optional[str] = None    # the comparison it shows


def export_note(tab, spec: str) -> dict:
    """The export manifest's record of the quality columns at this tab's knobs (the CLI writes the
    same keys with the defaults: `core.quality.pruning.quality_columns_note`)."""
    qs = state(tab)
    return pruning.quality_columns_note(spec, weights=qs.weights, thresholds=qs.thresholds, min_count=qs.min_count,
                                         nn_dim=qs.nn_dim)


def state(tab) -> QualityState:
    sess = tab.session
    if not isinstance(sess.quality, QualityState):
        sess.quality = QualityState()
    return sess.quality


def context_key(tab, ds, rep, qs: Optional[QualityState] = None) -> ResultKey:
    """The key of the components of ``ds`` on Φ ``rep`` with the context knobs of ``qs``."""
    qs = qs or state(tab)
    return result_key(ds.fingerprint, rep.spec, int(qs.min_count), qs.nn_dim, length=20, kind="quality")


def _read(tab, key: str) -> Optional[pd.DataFrame]:
    # a damaged file is a logged miss: recomputed on request
    return tab.server.quality_tables.load_or_none(key, pd.read_parquet)


def _ensure(tab, key: str, ds, rep, min_count: int, nn_dim, ctx=None, progress=None) -> pd.DataFrame:
    """The components (cache, disk, or computed on the jobs' backend, ``ctx`` the job's context,
    and written to disk atomically)."""
    def load_or_compute():
        found = _read(tab, key)
        if found is not None:
            return found
        out = offload(ctx, pruning.quality_components, ds, rep, min_count=min_count, nn_dim=nn_dim,
                      progress=progress or (ctx.progress if ctx else None))
        tab.server.quality_tables.save(key, out.to_parquet)
        return out

    return tab.server.cache.get_or_compute("quality", key, load_or_compute)


def table(tab, ds=None, rep=None) -> Optional[pd.DataFrame]:
    """The components of the current dataset and Φ (by id, the 7 component columns) when they
    have been computed (memory or disk), else None. Never computes."""
    ds = ds if ds is not None else current.dataset(tab)
    rep = rep if rep is not None else current.representation(tab)
    key = context_key(tab, ds, rep)
    return tab.server.cache.get_or_compute("quality", key, lambda: _read(tab, key))


def scored(tab, components: pd.DataFrame, qs: Optional[QualityState] = None, key: Optional[str] = None) -> pd.DataFrame:
    """Components + ``dqi`` (the session's weights) + ``light_<component>`` and ``light`` (its
    thresholds); cached when ``key`` (the components' `context_key`) is given."""
    qs = qs or state(tab)
    weights, thresholds = dict(qs.weights), {k: tuple(v) for k, v in qs.thresholds.items()}

    def build():
        out = components.copy()
        out["dqi"] = combine(out, weights)
        lit = lights(out[[*COMPONENTS, "dqi"]], thresholds)
        for c in COMPONENTS:
            out[f"light_{c}"] = lit[c]
        out["light"] = lit["dqi"]
        return out

    if key is None:
        return build()
    return tab.server.cache.get_or_compute("quality_scored", result_key(key, weights, thresholds), build)


def current_scored(tab) -> Optional[pd.DataFrame]:
    """The current dataset's components with ``dqi`` and lights, or None when not computed."""
    ds, rep = current.dataset(tab), current.representation(tab)
    found = table(tab, ds, rep)
    return None if found is None else scored(tab, found, key=context_key(tab, ds, rep))


def start(tab):
    """Start (or join) the components' job for the current dataset and Φ. Raises `NotAllowed`
    unless the member runs filters."""
    team.require(tab, "run filters")
    qs = state(tab)
    ds, rep = current.dataset(tab), current.representation(tab)
    key = context_key(tab, ds, rep, qs)
    min_count, nn_dim = int(qs.min_count), qs.nn_dim

    def work(ctx):
        _ensure(tab, key, ds, rep, min_count, nn_dim, ctx)
        return key

    found = cached_jobs.start(tab, cached_jobs.QUALITY, key, work)
    tab.session.watch(cached_jobs.QUALITY, found.spec)
    return found


def job(tab):
    return tab.server.jobs.get(tab.session.watching(cached_jobs.QUALITY))


def badge(light: str, value: float) -> str:
    return f"{BADGES.get(light, '–')} {value:.2f}" if np.isfinite(value) else BADGES.get(light, "–")


# ---------------------------------------------------------------------- quality-ordered runs
def descriptor(tab, name: str, qs: Optional[QualityState] = None) -> dict:
    """What a quality-ordered run records (`core.quality.pruning.quality_descriptor`, part of its key:
    the CLI's ``aflite --quality`` records the same)."""
    qs = qs or state(tab)
    return quality_descriptor(name, min_count=qs.min_count, nn_dim=qs.nn_dim, weights=qs.weights)


def quality_column(tab, ds, rep, info: dict, ctx=None, progress=None) -> np.ndarray:
    """The quality column ``info`` describes, aligned with ``rep.ids`` (components computed if
    needed: called inside background jobs, ``ctx`` the job's context)."""
    qs = QualityState(min_count=int(info["min_count"]), nn_dim=info["nn_dim"])
    comps = _ensure(tab, context_key(tab, ds, rep, qs), ds, rep, qs.min_count, qs.nn_dim, ctx, progress=progress)
    return pruning.quality_column(comps, info, rep.ids)


# ---------------------------------------------------------------------- plain vs quality-ordered
def compare_key(ds, rep, params: dict, info: dict) -> ResultKey:
    from artifact_lens.results.runs import full_params

    return result_key(ds.fingerprint, rep.spec, full_params(params), info, length=20, kind="compare")


def compare_result(tab, key: Optional[str]) -> Optional[pd.DataFrame]:
    """A stored comparison (its ``attrs`` hold the parameters and the stop reasons), or None."""
    if not key:
        return None

    def read(path):
        data = json.loads(path.read_text())
        frame = pd.DataFrame(data["rows"])
        frame.attrs.update(data["attrs"])
        return frame

    def load():
        return tab.server.comparisons.load_or_none(key, read)

    return tab.server.cache.get_or_compute("quality_compare", key, load)


def compare_start(tab, params: dict, name: str):
    """Start (or join) plain vs quality-ordered AFLite at ``params`` (the same n) for the current
    dataset and Φ, quality ``name``; a stored one is shown at once."""

    team.require(tab, "run filters")
    qs = state(tab)
    ds, rep = current.dataset(tab), current.representation(tab)
    info = descriptor(tab, name, qs)
    key = compare_key(ds, rep, params, info)
    qs.compare_key = key
    if compare_result(tab, key) is not None:
        tab.session.watch(cached_jobs.QUALITY_COMPARE, None)
        return None

    def work(ctx):
        q = quality_column(tab, ds, rep, info, ctx, progress=span(ctx.progress, 0.0, 0.4))
        out = ctx.offload(pruning.compare_pruning, ds, rep, q, dict(params), quality_name=name,
                          progress=span(ctx.progress, 0.4, 1.0))
        rows = json.loads(out.to_json(orient="records"))
        attrs = json.loads(json.dumps(out.attrs, default=str))
        tab.server.comparisons.save(key, lambda fh: fh.write(json.dumps({"rows": rows, "attrs": attrs}).encode()))
        return key

    found = cached_jobs.start(tab, cached_jobs.QUALITY_COMPARE, key, work)
    tab.session.watch(cached_jobs.QUALITY_COMPARE, found.spec)
    return found


def compare_job(tab):
    return tab.server.jobs.get(tab.session.watching(cached_jobs.QUALITY_COMPARE))


def compare_ended(tab, job) -> None:
    """The comparison's job ended (its result is kept): this tab stops watching it."""
    tab.session.watch(cached_jobs.QUALITY_COMPARE, None)


STOP_WORDS = {"tau": "fewer than k examples passed τ", "target_size": "reached n", None: "did not stop"}


def stop_notes(frame: pd.DataFrame) -> list:
    """One sentence per run of a comparison that τ stopped before n."""
    notes = []
    n_target = frame.attrs.get("params", {}).get("target_size")
    for name, reason in (frame.attrs.get("stop_reasons") or {}).items():
        if reason == "tau":
            kept = frame.loc[frame["set"] == name, "n"]
            notes.append(f"{name} stopped early: fewer than k examples passed τ = "
                         f"{frame.attrs['params'].get('tau'):.2f}, so it kept {int(kept.iloc[0]):,} examples "
                         f"instead of n = {n_target:,}." if len(kept) and isinstance(n_target, int) else
                         f"{name} stopped early: fewer than k examples passed τ.")
    return notes


def light_column(frame: pd.DataFrame) -> str:
    """The name of the quality light column in a table: ``quality`` unless the data has one."""
    return "quality" if "quality" not in frame.columns else "quality (DQI)"


def with_quality(rows: pd.DataFrame, quality: Optional[pd.DataFrame]) -> pd.DataFrame:
    """``rows`` (with an ``id`` column) with a quality light column (badge and ``dqi``) after
    ``review`` (or ``id``), when the quality table is given."""
    if quality is None:
        return rows
    name = light_column(rows)
    found = quality.reindex(rows["id"].astype(str))
    out = rows.copy()
    where = list(out.columns).index("review") + 1 if "review" in out.columns else 1
    out.insert(where, name, [badge(l, v) if isinstance(l, str) else "–"
                             for l, v in zip(found["light"], found["dqi"].to_numpy(dtype=float))])
    return out


def example_components(quality: pd.DataFrame, example_id: str) -> Optional[pd.DataFrame]:
    """One example's components: score and light each (the DQI component it follows)."""
    if str(example_id) not in quality.index:
        return None
    row = quality.loc[str(example_id)]
    return pd.DataFrame({"component": [*COMPONENTS, "dqi"],
                         "DQI": [DQI_COMPONENTS[c] for c in COMPONENTS] + ["combined (weighted mean)"],
                         "score": [float(row[c]) for c in [*COMPONENTS, "dqi"]],
                         "light": [f"{BADGES[l]} {l}" for l in [row[f"light_{c}"] for c in COMPONENTS] + [row["light"]]]})
