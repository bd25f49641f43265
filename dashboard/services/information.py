"""V-usable information of the current dataset (issue 34): each example's PVI on the current Φ
and on the dataset's partial inputs (`core.usecases.information`: the hypothesis; for preference
pairs their responses and style), computed once per dataset and Φ as a shared job (`dashboard.services.cached_jobs`: kept across restarts, and every member
who asks reads the same result)."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from artifact_lens.base.settings import settings
from artifact_lens.usecases.information import choice_information, usable_information
from artifact_lens.dashboard.services import cached_jobs, current, team

__all__ = ["start", "result", "job", "ended", "partials", "columns", "start_items", "items_result", "items_job"]


def _key(tab):
    return current.named(tab, tab.session.spec)


def start(tab) -> None:
    """Start (or join) the PVI of the current dataset on Φ and its partial inputs
    (`core.usecases.information`: what ``artifact-lens pvi`` measures); curators and owners."""
    team.require(tab, "run filters")
    ds, spec = current.dataset(tab), tab.session.spec
    device = settings().device   # ARTIFACT_LENS_DEVICE: Φ's SVD and the models there (the same PVI, rounding aside)
    cached_jobs.start(tab, cached_jobs.PVI, _key(tab),
                      lambda ctx: ctx.offload(usable_information, ds, spec, device=device))


def result(tab) -> Optional[dict]:
    """``{"full": UsableInformation, <partial input's name>: UsableInformation, ...}``, or None before
    it is computed (a result stored before issue 54 may hold ``"partial": None``)."""
    return cached_jobs.result(tab, cached_jobs.PVI, _key(tab))


def job(tab):
    return cached_jobs.job(tab, cached_jobs.PVI, _key(tab))


ended = cached_jobs.ended


def partials(found: dict) -> dict:
    """The partial inputs' PVI of a `result`, by name."""
    return {name: got for name, got in found.items() if name != "full" and got is not None}


def columns(tab) -> Optional[pd.DataFrame]:
    """``pvi`` (and ``pvi_<partial input>``) by example id, when computed: the Examples page's columns."""
    found = result(tab)
    if found is None:
        return None

    def build():
        out = found["full"].table.set_index("id")[["pvi"]]
        for name, got in partials(found).items():
            out = out.join(got.table.set_index("id")[["pvi"]].rename(columns={"pvi": f"pvi_{name}"}))
        return out

    # read on every slider move of the Examples and Dynamics pages: joined once per dataset and Φ
    return current.cached(tab, "pvi_columns", tab.session.spec, build)


def extra_fields(spec: str, partial_spec: str) -> list:
    """The fields Φ (``spec``) reads beyond the partial input's, as far as the two specs name their
    fields ([] when either does not, or Φ reads no more)."""
    from artifact_lens.base.errors import InputError
    from artifact_lens.representations.spec import parse_spec

    def fields(text):
        try:
            return set(str(parse_spec(text or "")[1].get("fields", "")).split("+")) - {""}
        except InputError:
            return set()

    mine, its = fields(spec), fields(partial_spec)
    return sorted(mine - its) if its and mine > its else []


# multiple-choice items: the baselines `artifact-lens pvi` measures (the stem with the options, the
# options alone, the position alone), their inputs the items' own (no Φ), once per dataset
def _items_key(tab):
    return current.named(tab, "multiple-choice baselines")


def _baselines(ds, progress=None, cancel=None) -> dict:
    """name → {"summary", "table"}: plain values the result store keeps (a restart, every member)."""
    found = choice_information(ds, progress=progress, cancel=cancel)
    return {name: {"summary": dict(got.summary), "table": got.table} for name, got in found.items()}


def start_items(tab) -> None:
    """Start (or join) the baselines of the current items (curators and owners)."""
    team.require(tab, "run filters")
    ds = current.dataset(tab)
    cached_jobs.start(tab, cached_jobs.PVI, _items_key(tab), lambda ctx: ctx.offload(_baselines, ds))


def items_result(tab) -> Optional[dict]:
    """name → {"summary": accuracy, its error, chance, majority, V-information…, "table": per item},
    or None before they are computed."""
    return cached_jobs.result(tab, cached_jobs.PVI, _items_key(tab))


def items_job(tab):
    return cached_jobs.job(tab, cached_jobs.PVI, _items_key(tab))
