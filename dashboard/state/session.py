"""The per-tab state of the dashboard: one typed `Session` (Streamlit keeps it under one key of
``st.session_state``, `dashboard.state.browser`; this module is plain Python).

Only small values live here (keys, parameters, the live τ and n, the job being
watched); the objects they name are in the server's bounded cache
(`dashboard.process.server`), so many sessions share one copy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

from artifact_lens.base.jobs import JobKey

__all__ = ["Session", "Source", "DEFAULT_SOURCE", "DEFAULT_SPEC", "DEFAULT_PARAMS", "DEFAULT_TAU",
           "DEFAULT_TARGET"]

DEFAULT_SOURCE = "demo:nli"
DEFAULT_SPEC = "tfidf-svd:fields=hypothesis,dim=64"
# The fit uses τ = 0 and a small n: the live knobs answer any larger τ and n from the
# trajectory without refitting (paper 000, Algorithm 1; see core.aflite).
FIT_TAU = 0.0
DEFAULT_PARAMS = dict(n_partitions=16, train_size=0.1, slice_size=0.02, tau=FIT_TAU, target_size=0.3,
                      model="ridge", strategy="greedy-slice", random_state=0)
DEFAULT_TAU = 0.75
DEFAULT_TARGET = 0.5
#: how many runs' live τ and n one tab remembers (`Session.switch_run`)
LIVE_REMEMBERED = 64

@dataclass
class Source:
    """How to (re)load a dataset: what `core.data.sources.load_dataset` is given, and its name for people."""

    source: str
    roles: dict = field(default_factory=dict)
    label: str = ""


@dataclass
class Session:
    """What one browser tab is looking at."""

    ds_key: str = ""                                   # the current dataset (cache key)
    source: Optional[Source] = None                    # ... and how to reload it
    spec: str = ""                                     # its representation Φ (canonical spec)
    params_of: dict = field(default_factory=dict)      # ds_key -> the run parameters last used on it (`params_for`)
    run_key: Optional[str] = None                      # the current run
    tau: float = DEFAULT_TAU                           # live τ
    target: Union[int, float] = DEFAULT_TARGET         # live n: a count, or a share of N in (0, 1)
    pending_key: Optional[str] = None                  # a loaded dataset not scored yet (Data page)
    pending_source: Optional[Source] = None
    mapping: Optional[dict] = None                     # a load waiting for its columns' roles (Data page)
    jobs: dict = field(default_factory=dict)           # job kind's name -> the JobKey this tab watches (`watch`)
    job_params: Optional[dict] = None                  # the AFLite run this tab asked for: its parameters
    job_source: Optional[Source] = None                # becomes `source` when the job's dataset is new
    job_page: str = ""                                 # the page that started it (shows its traceback)
    zfilter_params: Optional[tuple] = None             # the Features page's last submitted forms
    consistency_params: Optional[tuple] = None
    dynamics_params: Optional[tuple] = None            # the Dynamics page's last submitted form
    transfer_source: Optional[tuple] = None            # the Features page's evaluation split (path, its content key)
    last_error: Optional[dict] = None                  # {"message", "traceback", "page"}
    live_line: Any = None                              # this run's sidebar placeholder for the live τ/n
    workspace_id: Optional[int] = None                 # the team workspace this tab works in
    member: Any = None                                 # dashboard.services.team.Member, set by sign-in on every page
    ex_like: Optional[str] = None                      # Examples: list only the neighbours of this example
    revising: Optional[int] = None                     # Create: the rejected submission being revised
    create_message: Optional[tuple] = None             # Create: (kind, text) said once after a submission
    create_cleared: Optional[dict] = None              # Create: field -> the text a submission cleared from it
    eval_key: Optional[str] = None                     # the stored evaluation the Evaluate page shows
    export_file: Any = None                            # the Export page's prepared file (dashboard.services.exports)
    map_selection: tuple = ()                          # the Map's selected example ids (kept across τ/n) ...
    map_selection_of: str = ""                         # ... of this dataset (ds_key)
    knob_generation: int = 0                           # bumped when τ/n are set from outside the sliders
    live_of: dict = field(default_factory=dict)        # run key -> its last live (τ, n) in this tab (`switch_run`)
    quality: Any = None                                # dashboard.services.quality.QualityState: DQI knobs, jobs

    def watch(self, kind, spec: Optional[JobKey]) -> None:
        """Watch job ``spec`` as this tab's job of ``kind`` (a `core.base.jobs.JobKind`); None: none."""
        if spec is None:
            self.jobs.pop(kind.name, None)
        else:
            self.jobs[kind.name] = spec

    def watching(self, kind) -> Optional[JobKey]:
        """The job of ``kind`` this tab watches, or None."""
        return self.jobs.get(kind.name)

    @property
    def ready(self) -> bool:
        return bool(self.ds_key)

    def fail(self, message: str, traceback: str = "", page: str = "") -> None:
        self.last_error = {"message": str(message), "traceback": traceback, "page": page}

    def set_live(self, tau=None, n=None) -> None:
        """Move the live τ and/or n (a saved view, "use this n", an evaluation run again): the
        session takes them, and the sliders get new keys (`knob_key`), so the browser draws them
        afresh at the new values (a slider keeps its own value in the browser while its key stays:
        a reset on the server alone left it showing the old τ, and the next nudge went on from it).
        Streamlit forgets the old keys' values itself: their sliders are not drawn again."""
        if tau is not None:
            self.tau = float(tau)
        if n is not None:
            self.target = int(n)
        self.knob_generation += 1

    def switch_run(self, key: Optional[str]) -> None:
        """Make run ``key`` current with its own live τ and n: the τ and n it had when this tab last
        left it, or the defaults for a run it has not shown. n is a count of one run's examples, so
        carried to another dataset it would keep nearly everything (1,155 of 1,156 pairs after
        3,937 of SNLI's 9,842)."""
        if key == self.run_key:
            return
        if self.run_key:
            self.live_of[self.run_key] = (self.tau, self.target)
            while len(self.live_of) > LIVE_REMEMBERED:   # bounded: the oldest run's τ/n goes first
                self.live_of.pop(next(iter(self.live_of)))
        live = self.live_of.get(key, (DEFAULT_TAU, DEFAULT_TARGET))
        if live != (self.tau, self.target):
            self.knob_generation += 1   # the sliders are drawn afresh at the run's own values (`set_live`)
        self.tau, self.target = live
        self.run_key = key

    @property
    def params(self) -> dict:
        """The run parameters of the current dataset (`params_for`)."""
        return self.params_for(self.ds_key)

    def params_for(self, ds_key: str) -> dict:
        """The run parameters last used on dataset ``ds_key`` in this tab, or the defaults: a dataset's
        settings belong to it (the family an items run is scored by, ``choice``, is no setting for
        the next dataset this tab loads)."""
        return dict(self.params_of.get(ds_key, DEFAULT_PARAMS))

    def keep_params(self, ds_key: str, params: dict) -> None:
        self.params_of.pop(ds_key, None)
        self.params_of[ds_key] = dict(params)
        while len(self.params_of) > LIVE_REMEMBERED:   # bounded, like the runs' live τ and n
            self.params_of.pop(next(iter(self.params_of)))

    def knob_key(self, name: str) -> str:
        """The widget key of the τ (``w_tau``) or n (``w_target``) slider in this tab now."""
        return f"{name}_{self.knob_generation}" if self.knob_generation else name
