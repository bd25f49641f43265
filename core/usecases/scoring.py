"""Score a dataset into an AFLite run: the use case behind ``artifact-lens aflite`` and the
dashboard's Run, Filter and resume (issue 43).

Its rules, held here once:
- a run is named by its data, Φ and parameters (`core.results.runs.run_key`); a store that holds
  one under that name answers without a fit, unless the run was scored on a vector file that has
  been rewritten since (`refuse_if_file_changed`: the stored run would stand for the old vectors);
- what a fit needs besides Φ (a quality column, the joint filter's masks) is computed only when
  there is a fit;
- a run recorded in a team workspace (`RunLife`) is "running" from the fit's start, saved with
  its checksummed file when it ends, "interrupted" when it is cancelled and "failed" on an error,
  so a closed tab loses nothing and a crash leaves it resumable.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..base.errors import Cancelled, InputError
from ..base.progress import span
from ..results.runs import Run, fit_run, package_versions, run_key

__all__ = ["RunLife", "score_dataset", "scored_key", "stored_run", "keep", "refuse_if_file_changed", "run_inputs"]


@dataclass(frozen=True)
class RunLife:
    """Where a run's life is recorded: a member's handle on a workspace (`TeamStore.scoped`, which
    checks their role at each write) and the dataset's row there."""

    workspace: object
    dataset_id: int

    def saved(self, run: Run) -> Run:
        self.workspace.save_run(self.dataset_id, run)
        return run


def refuse_if_file_changed(run: Run) -> None:
    """InputError when ``run`` was scored on a vector file (``file:`` Φ) that has been rewritten
    since: a run is stored under its data, spec and parameters, and the spec names the file by its
    path, so the stored run would silently stand for the old vectors."""
    from ..representations import source_changed

    changed = source_changed(run.representation_info)
    if changed:
        raise InputError(f"{changed} since the saved run with these parameters was scored, so that run "
                         "is not a result for the new vectors. Save the new vectors under a new file name "
                         "(e.g. emb-2.npy) and score that, or put the old file back to open the saved run.")


def _here(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def keep(run: Run, life: Optional[RunLife] = None) -> Run:
    """A run scored before, as the answer: checked against its vector file, and saved in
    ``life``'s workspace too."""
    refuse_if_file_changed(run)
    return life.saved(run) if life is not None else run


def stored_run(store, key: str, life: Optional[RunLife] = None) -> Optional[Run]:
    """The run ``store`` holds under ``key`` (`keep`), or None."""
    found = store.get(key) if store is not None else None
    return None if found is None else keep(found, life)


def family_for(dataset, params: dict) -> dict:
    """``params`` with the model family the data is scored by: multiple-choice items always by
    ``choice`` (a conditional logit over each item's options: a class-by-class family would take the
    gold's letter for a class), which the default (none, or ``ridge``) turns into; other data by the
    family asked for (``ridge`` by default), never ``choice``."""
    model = params.get("model")
    if getattr(dataset, "choices", None) is not None:
        if model not in (None, "ridge", "choice"):
            raise InputError(f"multiple-choice items are scored by the choice family (a conditional logit over each "
                             f"item's options), not {model!r}: drop --model.")
        return {**params, "model": "choice"}
    if model == "choice":
        raise InputError("the choice family scores multiple-choice items (options and a gold one); this dataset has "
                         "labelled examples: choose ridge, logistic, svm or ensemble.")
    return params if model is not None else {**params, "model": "ridge"}


def run_inputs(dataset, rep, *, quality: Optional[Callable] = None, joint_info: Optional[dict] = None,
               n_jobs: Optional[int] = None, cancel=None, run_in: Optional[Callable] = None,
               on_note: Optional[Callable] = None) -> Callable:
    """``inputs(progress)`` for `score_dataset`: (the quality column, the joint filter's inputs), each
    None when not asked for, assembled once for the CLI and the dashboard. ``quality(progress)``
    gives the column (the CLI reads it from a column or computes the components; the dashboard
    reads its shared table); the joint filter's training dynamics on Φ run through ``run_in(fn,
    *args, **kwargs)`` (the dashboard's job backend; here by default), and ``on_note`` hears their
    notes. Each takes its part of the bar: the quality first, then the dynamics."""
    from ..dynamics.joint import joint_for

    run_in = run_in or (lambda fn, *a, **kw: fn(*a, **kw))

    def inputs(progress):
        q = quality(span(progress, 0.0, 0.5 if joint_info else 1.0)) if quality else None
        joint = run_in(joint_for, dataset, rep, joint_info, n_jobs=n_jobs, cancel=cancel,
                       progress=span(progress, 0.5 if quality else 0.0, 1.0)) if joint_info else None
        for note in joint.found["notes"] if joint is not None and on_note else ():
            on_note(note)
        return q, joint

    return inputs


def scored_key(dataset, spec: str, params: dict, quality_info: Optional[dict] = None,
               joint_info: Optional[dict] = None) -> str:
    """The key of the run `score_dataset` makes of these arguments: the one name of a run, in the URL,
    the team's list, the run store and the job alike (the parameters with the family the data is
    scored by, `family_for`)."""
    return run_key(dataset.fingerprint, spec, family_for(dataset, params), quality_info, joint_info)


def score_dataset(dataset, rep, params: dict, *, quality_info: Optional[dict] = None,
                  joint_info: Optional[dict] = None, inputs: Optional[Callable] = None, store=None,
                  life: Optional[RunLife] = None, how: Optional[dict] = None, run_in: Optional[Callable] = None,
                  progress=None, cancel=None, on_phase=None, scheduler: Optional[str] = None,
                  key: Optional[str] = None) -> Run:
    """The AFLite run of ``dataset`` on Φ ``rep`` with ``params`` (module docstring).

    ``quality_info`` and ``joint_info`` describe a quality-ordered run's column and a joint run's
    filter (part of its name); ``inputs(progress)`` returns ``(quality values, joint inputs)``
    (`core.results.runs.fit_run`'s ``quality`` and ``joint``; each None when not asked for),
    called only when there is a fit. ``store`` (``get(key)``, ``put(run)``) answers a run scored
    before and keeps a new one; ``life`` records it in a workspace. ``how`` adds parameters that
    change neither the result nor the name (``n_jobs``, ``device``: the cores and the device the
    caller grants); ``run_in(fn, *args, **kwargs)`` calls the fit where the caller computes (the
    dashboard: its job backend, a Dask worker or this process); by default here. ``key``: the run's
    `scored_key`, when the caller has it already (one call per run)."""
    key = key or scored_key(dataset, rep.spec, params, quality_info, joint_info)
    params = family_for(dataset, params)
    found = stored_run(store, key, life)
    if found is not None:
        return found
    if life is not None:
        # a quality-ordered or joint run records that choice with its parameters (a resume starts it as it was)
        extra = {name: d for name, d in (("quality", quality_info), ("joint", joint_info)) if d}
        life.workspace.begin_run(life.dataset_id, key, representation=rep.spec, params=dict(params, **extra),
                                 seed=params.get("random_state"), versions=package_versions())
    try:
        quality, joint, start = None, None, 0.25 * (bool(quality_info) + bool(joint_info))
        if inputs is not None:
            quality, joint = inputs(span(progress, 0.0, start))
        run = (run_in or _here)(fit_run, dataset, rep, {**params, **(how or {})}, progress=span(progress, start, 1.0),
                                cancel=cancel, on_phase=on_phase, quality=quality, quality_info=quality_info or None,
                                joint=joint, scheduler=scheduler)
    except Cancelled:
        if life is not None:
            life.workspace.end_run(key, "interrupted")
        raise
    except BaseException:
        if life is not None:
            life.workspace.end_run(key, "failed")
        raise
    if store is not None:
        store.put(run)
    return life.saved(run) if life is not None else run
