"""V-usable information of the current dataset (issue 34): each example's PVI on the current Φ
and, for a dataset of pairs, on the partial input (the last text field), computed once per
dataset and Φ as a shared job (`dashboard.services.cached_jobs`: kept across restarts, and every member
who asks reads the same result)."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from core.evaluation import default_partial_spec
from core.evaluation.information import dataset_pvi
from dashboard.services import cached_jobs, current, team

__all__ = ["start", "result", "job", "ended", "columns"]


def _key(tab) -> tuple:
    sess = tab.session
    return sess.ds_key, sess.spec


def start(tab) -> None:
    """Start (or join) the PVI of the current dataset and Φ; curators and owners."""
    team.require(tab, "run filters")
    ds, spec = current.dataset(tab), tab.session.spec
    partial = default_partial_spec(ds)

    def compute(ctx):
        # each input its own share of the bar and its name in the step ("done" said once, at the end)
        cut = 0.5 if partial else 1.0
        full = ctx.offload(dataset_pvi, ds, spec, progress=_stage(ctx.progress, 0.0, cut, "of Φ"))
        return {"full": full, "partial": ctx.offload(dataset_pvi, ds, partial, progress=_stage(
            ctx.progress, cut, 1.0, "of the partial input")) if partial else None}

    cached_jobs.start(tab, cached_jobs.PVI, _key(tab), compute)


def _stage(progress, lo: float, hi: float, what: str):
    """``progress`` for one input's PVI: its 0..1 as ``lo..hi``, its steps named ("PVI of Φ: fold 2 of 5")."""
    return lambda f, m="": progress(lo + (hi - lo) * f, m.replace("PVI", f"PVI {what}", 1))


def result(tab) -> Optional[dict]:
    """``{"full": UsableInformation, "partial": UsableInformation or None}``, or None before it is computed."""
    return cached_jobs.result(tab, cached_jobs.PVI, _key(tab))


def job(tab):
    return cached_jobs.job(tab, cached_jobs.PVI, _key(tab))


ended = cached_jobs.ended


def columns(tab) -> Optional[pd.DataFrame]:
    """``pvi`` (and ``pvi_partial``) by example id, when computed: the Examples page's columns."""
    found = result(tab)
    if found is None:
        return None

    def build():
        out = found["full"].table.set_index("id")[["pvi"]]
        if found["partial"] is not None:
            out = out.join(found["partial"].table.set_index("id")[["pvi"]].rename(columns={"pvi": "pvi_partial"}))
        return out

    # read on every slider move of the Examples and Dynamics pages: joined once per dataset and Φ
    return current.cached(tab, "pvi_columns", tab.session.spec, build)


def extra_fields(spec: str, partial_spec: str) -> list:
    """The fields Φ (``spec``) reads beyond the partial input's, as far as the two specs name their
    fields ([] when either does not, or Φ reads no more)."""
    from core.base.errors import InputError
    from core.representations.spec import parse_spec

    def fields(text):
        try:
            return set(str(parse_spec(text or "")[1].get("fields", "")).split("+")) - {""}
        except InputError:
            return set()

    mine, its = fields(spec), fields(partial_spec)
    return sorted(mine - its) if its and mine > its else []
