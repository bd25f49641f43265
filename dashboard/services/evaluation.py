"""The Evaluate page's work: evaluations of the current run in a background job (`core.base.jobs`),
kept on disk beside the run store (`core.evaluation.EvaluationStore`, keyed by run key, τ, n and
options), so a reload or a teammate on the same server reads them instead of recomputing."""
from __future__ import annotations

from typing import Optional

from artifact_lens import models
from artifact_lens.base.cores import SHARE
from artifact_lens.base.settings import settings
from artifact_lens.evaluation import Evaluation, EvaluationOptions, EvaluationStore, default_partial_spec, evaluation_key
from artifact_lens.usecases.evaluation import evaluate_split, evaluation_report
from artifact_lens.dashboard.services import agreement, cached_jobs, certificates, current, run_view, team


def store(tab) -> EvaluationStore:
    return tab.server.evaluations


def stored(tab, run) -> list:
    """The stored evaluations of this run, newest first."""
    return store(tab).for_run(run.key)


def families() -> tuple:
    """(every model family, the ones trained by default, a family's name as a person reads it): the
    registry's (`core.models`), so a new family is on the page the day it is registered."""
    return models.names(), models.table_names(), models.title


def default_partial(ds) -> str:
    """The partial-input representation offered by default (empty: none)."""
    return default_partial_spec(ds) or ""


def start(tab, run, **knobs):
    """Start (or join) the evaluation of the current run at the live τ/n with the options
    ``knobs`` (`core.evaluation.EvaluationOptions`); one already stored becomes the shown one at
    once. Raises `core.team.store.NotAllowed` unless the member runs filters, InputError for bad options."""
    team.require(tab, "run filters")
    options = EvaluationOptions(**knobs)
    options.check()
    sess = tab.session
    tau, n = run_view.live_values(tab, run)
    key = evaluation_key(run.key, float(tau), int(n), options.to_dict())
    if store(tab).get(key) is not None:
        sess.eval_key = key
        sess.watch(cached_jobs.EVALUATION, None)
        return None
    ds, rep = current.dataset(tab), current.representation(tab)
    live = run_view.live_result(tab, run)
    kept, n_phases, history = run.kept_ids(live), int(live["n_phases"]), run.history
    target = store(tab)
    device = settings().device   # ARTIFACT_LENS_DEVICE: the linear families train there (the key does not change)
    srv = tab.server

    def work(ctx):
        try:
            ev = ctx.offload(evaluate_split, ds, rep, run_key=run.key, tau=tau, n=n, retained_ids=kept,
                             history=history, n_phases=n_phases, options=options, n_jobs=SHARE, device=device)
        except BaseException:
            if not srv.stopping.is_set():   # cancelled or failed: said by the job panel; a stop is "interrupted"
                target.ended(key)
            raise
        return target.put(ev)

    target.started(key, run_key=run.key, tau=float(tau), n=int(n), options=options.to_dict())
    job = cached_jobs.start(tab, cached_jobs.EVALUATION, key, work, about=run.key)
    sess.watch(cached_jobs.EVALUATION, job.spec)
    return job


def job(tab):
    return tab.server.jobs.get(tab.session.watching(cached_jobs.EVALUATION))


def unwatch(tab) -> None:
    """This tab stops watching its evaluation job (it ended, and the page showed how)."""
    tab.session.watch(cached_jobs.EVALUATION, None)


def interrupted(tab, run) -> list:
    """Evaluations of ``run`` a stop or crash cut short (`core.evaluation.EvaluationStore.interrupted`)."""
    here = {j.spec.digest for j in tab.server.jobs.running(kind=cached_jobs.EVALUATION)}
    return store(tab).interrupted(run.key, running=here)


def run_again(tab, run, record: dict):
    """Start an interrupted evaluation again at its τ/n (the tab's live τ/n move there) with its options."""
    tab.session.set_live(record["tau"], record["n"])
    job = start(tab, run, **{k: (tuple(v) if isinstance(v, list) else v) for k, v in record["options"].items()})
    if job is None or job.spec is None or job.spec.digest != record["key"]:
        store(tab).ended(record["key"])   # superseded by the new start (under another key, or already stored)
    return job


def running(tab, run):
    """The evaluation of ``run`` running or waiting on this server (started by anyone), or None:
    the page shows it as running and offers no second start."""
    return next(iter(tab.server.jobs.running(kind=cached_jobs.EVALUATION, about=run.key)), None)


def shown(tab, run) -> Optional[Evaluation]:
    """The evaluation to show: the one this tab asked for, else the newest stored one of the run."""
    found = stored(tab, run)
    key = tab.session.eval_key
    for ev in found:
        if ev.key == key:
            return ev
    return found[0] if found else None


def report(tab, run, ev) -> str:
    """The HTML report of ``ev`` (`core.usecases.evaluation.evaluation_report`: what ``artifact-lens
    evaluate`` writes), with the certificates made at its τ/n and the team's agreement on the run
    there, when the run is saved in the workspace, reviewed, and the member may read it."""
    at = (ev.context.get("tau"), ev.context.get("n"))
    review = None
    run_id = run_view.team_run_id(tab, run)
    if run_id is not None and not agreement.hidden(tab):
        review = agreement.of_run(tab, run, run_id, tau=at[0], n=at[1])
    return evaluation_report(ev, certificates=certificates.result(tab, run, at), review=review)


def where_trained(ev) -> Optional[str]:
    """A line saying the linear families trained on a device, for an evaluation made with one; None
    for the CPU (evaluations made before the device was recorded were on the CPU)."""
    device = ev.context.get("device", "cpu")
    return None if device == "cpu" else (f"The linear families (logistic regression, linear SVM) trained on {device}, "
                                         "as scikit-learn's models; the other families on the CPU.")
