"""Background jobs of the dashboard's services, typed by what they compute.

Every kind of job the dashboard runs is declared once below (`KINDS`: a `core.base.jobs.JobKind`
with its name, what a person reads while it runs and where its result is kept). `start` is the one
way a service starts background work, for every kind: a `core.base.jobs.JobKey` of one of these
kinds names the job, and asking again while it runs joins it. A kind whose result every member
shares keeps it in the server's bounded cache under the same key and in the result store on disk
(`core.results.stores.Results.shared`), so asking again joins the job or reads the result, after a
restart too (z-filtering, consistency filtering, training dynamics, cues across splits: `result`,
`job`). A kind with a store of its own (runs, evaluations, maps, quality components) is named by
its own key, and its work keeps the result there."""
from __future__ import annotations

import logging
from typing import Optional

from artifact_lens.base.jobs import Job, JobKey, JobKind
from artifact_lens.base.keys import ResultKey, require_key, result_key

__all__ = ["start", "result", "job", "ended", "keep", "kept", "KINDS", "RUN", "EVALUATION", "MAP",
           "MAP_PARALLEL", "QUALITY", "QUALITY_COMPARE", "FEEDBACK_MODELS", "ZFILTER", "CONSISTENCY", "DYNAMICS",
           "PVI", "TRANSFER", "CERTIFICATES", "DATASET_CERTIFICATE", "DYNAMICS_LAST", "TRANSFER_LAST"]

# ------------------------------------------------------------------ every kind of job, declared once
RUN = JobKind("run", "AFLite run")                                  # kept in the run store
# paced=False: estimates from the pace measured dishonest (`benchmarks/estimates_bench.py`, SNLI dev):
# an evaluation's stages differ (3.5x short), UMAP's graph is slow beside its epochs (2.6x long)
EVALUATION = JobKind("eval", "Evaluation", paced=False)              # kept in the evaluation store
MAP = JobKind("proj", "UMAP", paced=False)                           # kept in the projection cache
MAP_PARALLEL = JobKind("proj-parallel", "UMAP on every core", paced=False)
QUALITY = JobKind("quality", "Quality components")                  # kept in the quality tables' store
QUALITY_COMPARE = JobKind("qcompare", "Plain vs quality-ordered AFLite")
FEEDBACK_MODELS = JobKind("quality-context", "Feedback models", kept="memory")   # fitted models: no pickles
ZFILTER = JobKind("zfilter", "z-filtering", kept="shared")
CONSISTENCY = JobKind("consistency", "consistency filtering", kept="shared")
DYNAMICS = JobKind("dynamics", "Training dynamics", kept="shared")
PVI = JobKind("pvi", "V-usable information", kept="shared", paced=False)   # Φ, then folds
TRANSFER = JobKind("transfer", "Cues across splits", kept="shared", paced=False)
CERTIFICATES = JobKind("certificates", "Artifact certificates", kept="shared", paced=False)
#: the whole dataset's certificate of a run, kept apart from its splits': it does not depend on τ/n
DATASET_CERTIFICATE = JobKind("certificate-dataset", "the dataset's certificate", kept="shared")
# small values every member and a restart see, with no job of their own
DYNAMICS_LAST = JobKind("dynamics_last", "the last training dynamics' options", kept="shared")
TRANSFER_LAST = JobKind("transfer-last", "the last cues across splits' second split", kept="shared")

KINDS = (RUN, EVALUATION, MAP, MAP_PARALLEL, QUALITY, QUALITY_COMPARE, FEEDBACK_MODELS, ZFILTER, CONSISTENCY,
         DYNAMICS, PVI, TRANSFER, CERTIFICATES, DATASET_CERTIFICATE, DYNAMICS_LAST, TRANSFER_LAST)

log = logging.getLogger(__name__)


def _submit(tab, spec: JobKey, work, *, name: str = "") -> Job:
    """Start ``work(ctx)`` as the job ``spec``, or join that job while it runs (``name``: what the
    job panel says; its kind's title by default)."""
    if not isinstance(spec, JobKey):
        raise TypeError(f"a job is named by a JobKey (kind, digest, about), not {type(spec).__name__}")
    if spec.kind not in KINDS:
        raise ValueError(f"the job kind {spec.kind.name!r} is not declared in dashboard.services.cached_jobs.KINDS")
    return tab.server.jobs.submit(spec, work, name=name or spec.kind.title)


def _named(kind: JobKind, key) -> ResultKey:
    """``key`` itself: every job and every kept result is named by the data it was computed from
    (`result_key`), never by a tuple or a path."""
    return require_key(key, f"a {kind.name} job")


def _job_key(kind: JobKind, key) -> JobKey:
    return JobKey(kind, _named(kind, key))


def _file_key(kind: JobKind, key) -> ResultKey:
    return result_key(_named(kind, key), length=24, kind=kind.name.replace("-", "_"))


def _stored(tab, kind: str, key):
    """The result on disk (None when absent or damaged: a damaged file is logged and recomputed)."""
    from artifact_lens.results.files import read_result

    shared, name = tab.server.results.shared, _file_key(kind, key)
    if not shared.path(name).exists():   # a page rerun asks each time: nothing stored is one stat, no listing
        return None
    found = shared.load_or_none(name, read_result)
    if found is not None:
        tab.server.cache.put(kind.name, key, found)
    return found


def _store(tab, kind: JobKind, key, value):
    """Keep ``value`` in memory and, for a kind kept "shared", on disk; a result the file format
    cannot hold stays in memory."""
    from artifact_lens.results.files import write_result

    tab.server.cache.put(kind.name, key, value)
    if kind.kept != "shared":
        return value
    try:
        tab.server.results.shared.save(_file_key(kind, key), lambda fh: write_result(fh, value))
    except (ValueError, TypeError, OSError) as exc:   # e.g. a table Parquet cannot hold; a full disk
        log.warning("the %s result is kept in memory only (%s)", kind, exc)
    return value


def start(tab, kind: JobKind, key, compute, *, about: str = "", name: str = "") -> Optional[Job]:
    """The one way a service starts background work: ``compute(ctx)`` as the job of ``kind`` and
    ``key``, or that job joined while it runs. Where its result goes is the kind's (`JobKind.kept`):
    a kind kept "shared" or in "memory" is not started again once its result is kept, and keeps
    what ``compute`` returns; a kind with a store of its own ("own": runs, evaluations, maps, quality
    tables) is named by its own key (``key``, a text: the run's key, the evaluation's...; ``about``,
    what it is about, so a page finds it running) and its ``compute`` keeps the result there.
    The job, or None when the result is kept already."""
    if kind.kept == "own":
        return _submit(tab, JobKey(kind, _named(kind, key), about=about), compute, name=name)
    if result(tab, kind, key) is not None:
        return None
    return _submit(tab, _job_key(kind, key), lambda ctx: _store(tab, kind, key, compute(ctx)), name=name)


def result(tab, kind: JobKind, key):
    """The kept result, or None (``key`` None: nothing asked yet)."""
    if key is None:
        return None
    found = tab.server.cache.peek(kind.name, key)
    return found if found is not None else _stored(tab, kind, key)


def keep(tab, kind: JobKind, key, value) -> None:
    """A small value every member and a restart see (e.g. the options of the last map computed)."""
    _store(tab, kind, key, value)


kept = result


def job(tab, kind: JobKind, key):
    return None if key is None else tab.server.jobs.get(_job_key(kind, key))


def ended(tab, found) -> None:
    """A finished job is forgotten (its result is kept; an error was shown once), so the page
    stops watching it."""
    tab.server.jobs.forget(found.spec)
