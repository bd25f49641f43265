"""Runs: a plain record of one AFLite run, a small on-disk store, and a thread job runner.

A `Run` holds everything needed to show, reproduce and export one filtering run:
the AFLite parameters (m = ``n_partitions``, t = ``train_size``, k = ``slice_size``,
τ = ``tau``, n = ``target_size``), the seed, the representation spec, the dataset
fingerprint, package versions, the per-phase history and the trajectory arrays.
It is plain data: JSON (``run.json``) plus numpy arrays (``arrays.npz``, no pickle),
so a later SQL-backed store can keep the JSON in a table and the arrays beside it.

`RunStore` keys runs by their parameters (`run_key`), so going back to earlier
knob settings loads the finished run instead of recomputing it.

`Job` / `JobRunner` run long work (representations, AFLite fits, projections) in a
plain background thread that the app polls: progress fraction and message,
records as they arrive (one per AFLite phase), cancellation through a
`threading.Event`, and the result or the error. Nothing here imports streamlit.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from core.errors import Cancelled, InputError

__all__ = ["Run", "RunStore", "run_key", "fit_run", "label_summary", "phase_frame", "phase_scores",
           "examples_frame", "live_columns", "below_chance", "filter_examples", "page", "package_versions", "Job", "JobContext", "JobRunner"]

_VERSIONED = ("artifact-lens", "numpy", "scipy", "pandas", "scikit-learn", "datasets", "pyarrow", "umap-learn", "streamlit")


def package_versions(names=_VERSIONED) -> dict:
    """Installed versions of the packages that shape a run's result (missing ones are ``None``)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    import platform

    out["python"] = platform.python_version()
    return out


def _jsonable(value):
    """Turn numpy scalars/arrays and tuples into JSON types (for params and history)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else (1e308 if value > 0 else -1e308)
    return value


def full_params(params: dict) -> dict:
    """AFLite parameters with the defaults filled in (what a finished run records)."""
    from core.aflite import AFLite

    return _jsonable(AFLite(**params).get_params())


def run_key(fingerprint: str, spec: str, params: dict) -> str:
    """The store key of a run: a hash of (dataset fingerprint, representation spec, parameters).

    τ and n are deliberately part of ``params`` only as the *fitted* values: the
    dashboard fits with a low τ and a small n and answers larger ones from the
    trajectory, so the key changes only with k, m, t, the family, the strategy,
    the seed, the representation or the data. Omitted parameters count as their
    defaults, so ``{}`` and the full default set give the same key.
    """
    blob = json.dumps([fingerprint, spec, full_params(params)], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


@dataclass
class Run:
    """One AFLite run as plain data.

    Attributes
    ----------
    params : dict
        The AFLite constructor parameters (m, t, k, τ, n, model family, strategy, seed).
    dataset_name, dataset_fingerprint : str
        Which data was filtered (`core.dataset.Dataset.fingerprint`).
    representation : str
        The canonical representation spec (Φ).
    ids : numpy.ndarray of str
        Ids of the scored examples, aligned with every trajectory array.
    excluded_ids : numpy.ndarray of str
        Warm-up examples: used to train Φ, excluded from scoring, filtering and export.
    record : dict
        The estimator's JSON record (``AFLite.to_record()``: resolved sizes, seed,
        classes, dimension reduction, per-phase history).
    arrays : dict of str -> numpy.ndarray
        The trajectory arrays as ``AFLite.save_trajectory`` writes them
        (``removed_at``, ``removal_rank``, ``predictability``, ``phase_scores``,
        ``phase_offsets``, ...): all `retained_for` needs.
    versions : dict
        Package versions (`package_versions`).
    representation_info : dict
        The representation's own notes (dimension, seconds, ...).
    seconds : float
        Wall time of the fit.
    created : float
        UNIX time the run finished.
    """

    params: dict
    dataset_name: str
    dataset_fingerprint: str
    representation: str
    ids: np.ndarray
    excluded_ids: np.ndarray = field(default_factory=lambda: np.array([], dtype=str))
    record: dict = field(default_factory=dict)
    arrays: dict = field(default_factory=dict)
    versions: dict = field(default_factory=package_versions)
    representation_info: dict = field(default_factory=dict)
    seconds: float = 0.0
    created: float = field(default_factory=time.time)
    _estimator: Any = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_estimator(cls, estimator, *, ids, dataset_name: str, dataset_fingerprint: str,
                       representation: str, excluded_ids=(), representation_info=None,
                       seconds: Optional[float] = None) -> "Run":
        """Record a fitted `core.aflite.AFLite` through its own trajectory format."""
        buf = io.BytesIO()
        estimator.save_trajectory(buf)
        buf.seek(0)
        with np.load(buf, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files if k != "record"}
            record = json.loads(str(npz["record"]))
        if seconds is None:
            seconds = float(record.get("fit_seconds") or 0.0)
        run = cls(params=_jsonable(record.get("params", {})), dataset_name=dataset_name,
                  dataset_fingerprint=dataset_fingerprint, representation=representation,
                  ids=np.asarray(ids).astype(str), excluded_ids=np.asarray(list(excluded_ids)).astype(str),
                  record=_jsonable(record), arrays=arrays,
                  representation_info=_jsonable(dict(representation_info or {})), seconds=float(seconds))
        run._estimator = estimator
        return run

    # ------------------------------------------------------------------ reading
    @property
    def key(self) -> str:
        return run_key(self.dataset_fingerprint, self.representation, self.params)

    @property
    def history(self) -> list:
        return list(self.record.get("history", []))

    @property
    def removed_at(self) -> np.ndarray:
        return np.asarray(self.arrays["removed_at"], dtype=np.int64)

    @property
    def retained(self) -> np.ndarray:
        return self.removed_at == -1

    @property
    def predictability(self) -> np.ndarray:
        return np.asarray(self.arrays["predictability"], dtype=np.float32)

    @property
    def n_phases(self) -> int:
        return int(self.record.get("n_phases", len(self.history)))

    @property
    def resolved(self) -> dict:
        """The resolved sizes (N, m, t, k, n, τ) of the fit."""
        return dict(self.record.get("resolved", {}))

    def estimator(self):
        """The fitted AFLite, rebuilt from the record (``AFLite.load_trajectory``) after a reload."""
        if self._estimator is None:
            from core.aflite import AFLite

            buf = io.BytesIO()
            np.savez(buf, record=np.array(json.dumps(self.record, default=str)), **self.arrays)
            buf.seek(0)
            self._estimator = AFLite.load_trajectory(buf)
        return self._estimator

    def retained_for(self, tau: Optional[float] = None, target_size=None) -> np.ndarray:
        """The retained mask (aligned with `ids`) for τ' ≥ τ and n' ≥ n, from the trajectory (no refit)."""
        if tau is None and target_size is None:
            return self.retained
        return np.asarray(self.estimator().retained_for(tau=tau, target_size=target_size), dtype=bool)

    def result_for(self, tau: Optional[float] = None, target_size=None) -> dict:
        """``retained``, ``removed_at``, ``predictability`` and ``n_phases`` for τ' and n' (no refit)."""
        return self.estimator().result_for(tau=tau, target_size=target_size)

    def scores_at(self, phase: int) -> np.ndarray:
        """p̃ of every scored example in phase ``phase`` (NaN for examples no longer in S)."""
        return self.estimator().scores_at(phase)

    def manifest(self, **extra) -> dict:
        """The run's description as JSON-able data (what exports put beside the data)."""
        out = {
            "tool": "artifact-lens",
            "dataset": {"name": self.dataset_name, "fingerprint": self.dataset_fingerprint,
                        "scored_examples": int(len(self.ids)),
                        "warmup_excluded": int(len(self.excluded_ids))},
            "representation": {"spec": self.representation, "info": self.representation_info},
            "aflite": {"params": self.params, "seed": self.record.get("seed", self.params.get("random_state")),
                       "resolved": self.resolved, "n_phases": self.n_phases,
                       "phases": self.history, "seconds": self.seconds},
            "run_key": self.key,
            "versions": self.versions,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created)),
            "warmup_excluded_ids": [str(i) for i in self.excluded_ids],
        }
        out.update(_jsonable(extra))
        return out

    # ------------------------------------------------------------------ files
    def save(self, folder) -> Path:
        """Write ``run.json`` and ``arrays.npz`` into ``folder`` (atomically: temp folder + rename)."""
        folder = Path(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            meta = {
                "params": self.params, "dataset_name": self.dataset_name,
                "dataset_fingerprint": self.dataset_fingerprint, "representation": self.representation,
                "record": _jsonable(self.record), "versions": self.versions,
                "representation_info": self.representation_info, "seconds": self.seconds,
                "created": self.created, "key": self.key,
            }
            (tmp / "run.json").write_text(json.dumps(meta, indent=1, default=str))
            arrays = {f"a:{k}": np.asarray(v) for k, v in self.arrays.items()}
            arrays["ids"] = np.asarray(self.ids).astype(str)
            arrays["excluded_ids"] = np.asarray(self.excluded_ids).astype(str)
            np.savez(tmp / "arrays.npz", **arrays)
            if folder.exists():
                shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return folder

    @classmethod
    def load(cls, folder) -> "Run":
        folder = Path(folder)
        try:
            meta = json.loads((folder / "run.json").read_text())
            with np.load(folder / "arrays.npz", allow_pickle=False) as npz:
                arrays = {k[2:]: npz[k] for k in npz.files if k.startswith("a:")}
                ids, excluded = npz["ids"], npz["excluded_ids"]
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(f"cannot read the run in {folder}: {exc}; delete the folder to recompute it") from exc
        return cls(params=meta["params"], dataset_name=meta["dataset_name"],
                   dataset_fingerprint=meta["dataset_fingerprint"], representation=meta["representation"],
                   ids=ids, excluded_ids=excluded, record=meta.get("record", {}), arrays=arrays,
                   versions=meta.get("versions", {}), representation_info=meta.get("representation_info", {}),
                   seconds=meta.get("seconds", 0.0), created=meta.get("created", time.time()))


def fit_run(dataset, representation, params: dict, *, progress=None, cancel=None, on_phase=None,
            quality=None) -> Run:
    """Fit AFLite on a representation of a dataset and record it as a `Run`.

    Parameters
    ----------
    dataset : core.dataset.Dataset
    representation : core.representations.Representation
        Φ: ``X`` (rows aligned with ``ids``), ``excluded_ids`` (warm-up), ``spec``, ``info``.
    params : dict
        `core.aflite.AFLite` constructor parameters (m, t, k, τ, n, family, strategy, seed).
    progress, cancel, on_phase, quality
        Passed to ``AFLite.fit`` (``on_phase`` gets each phase's record as it finishes;
        ``quality`` is a per-example score aligned with ``representation.ids``).
    """
    from core.aflite import AFLite

    ids = np.asarray(representation.ids).astype(str)
    labels = dataset.table[dataset.label]
    index = labels.index.astype(str)
    loc = index.get_indexer(ids)
    if (loc < 0).any():
        raise InputError("the representation does not match the dataset (unknown ids such as "
                         f"{ids[loc < 0][:3].tolist()}); rebuild the representation for this dataset")
    y = labels.to_numpy()[loc]
    t0 = time.perf_counter()
    est = AFLite(**params).fit(representation.X, y, quality=quality, progress=progress, cancel=cancel,
                               on_phase=on_phase)
    return Run.from_estimator(
        est, ids=ids, dataset_name=dataset.name, dataset_fingerprint=dataset.fingerprint,
        representation=representation.spec, excluded_ids=getattr(representation, "excluded_ids", ()),
        representation_info=getattr(representation, "info", {}), seconds=time.perf_counter() - t0)


class RunStore:
    """Finished runs on disk, one folder per `run_key`, with an in-memory layer.

    Parameters
    ----------
    root : path
        Folder holding one sub-folder per run.
    """

    def __init__(self, root):
        self.root = Path(root)
        self._memory: dict = {}
        self._lock = threading.Lock()

    def path(self, key: str) -> Path:
        return self.root / key

    def get(self, key: str) -> Optional[Run]:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
        folder = self.path(key)
        if not (folder / "run.json").exists():
            return None
        try:
            run = Run.load(folder)
            run.estimator()  # a run saved by an older engine that cannot answer τ/n is a miss
        except Exception:
            return None  # a damaged or outdated entry is a cache miss, not a failure
        with self._lock:
            self._memory[key] = run
        return run

    def put(self, run: Run) -> str:
        key = run.key
        run.save(self.path(key))
        with self._lock:
            self._memory[key] = run
        return key

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def keys(self) -> list:
        on_disk = [p.name for p in self.root.glob("*") if (p / "run.json").exists()] if self.root.exists() else []
        return sorted(set(on_disk) | set(self._memory))


# ---------------------------------------------------------------------- jobs
class JobContext:
    """What a job's function receives: progress, records, and the cancel token."""

    def __init__(self, job: "Job"):
        self._job = job
        self.cancel = job._cancel

    def progress(self, fraction: float, message: str = "") -> None:
        """A ``progress(fraction, message)`` callback; also raises `Cancelled` when cancelled."""
        with self._job._lock:
            self._job.fraction = min(max(float(fraction), 0.0), 1.0)
            if message:
                self._job.message = str(message)
        if self.cancel.is_set():
            raise Cancelled("cancelled by the user")

    def emit(self, record) -> None:
        """Publish an intermediate record (e.g. one AFLite phase) for the app to draw."""
        with self._job._lock:
            self._job.records.append(record)


class Job:
    """A function running in a daemon thread, polled by the app.

    ``fn(ctx)`` gets a `JobContext`; its return value becomes `result`, an
    exception becomes `error` (`Cancelled` gives status ``"cancelled"``).
    Status: ``"pending"``, ``"running"``, ``"done"``, ``"error"``, ``"cancelled"``.
    """

    def __init__(self, fn: Callable[[JobContext], Any], *, name: str = "", key: Optional[str] = None):
        self.fn, self.name, self.key = fn, name, key
        self.status = "pending"
        self.fraction, self.message = 0.0, ""
        self.records: list = []
        self.result = None
        self.error: Optional[BaseException] = None
        self.traceback = ""
        self.started = self.finished = None
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> "Job":
        if self._thread is not None:
            return self
        self.status, self.started = "running", time.time()
        self._thread = threading.Thread(target=self._run, name=f"job:{self.name}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        ctx = JobContext(self)
        try:
            result = self.fn(ctx)
        except Cancelled as exc:
            self.error, self.status = exc, "cancelled"
        except BaseException as exc:  # reported to the app, which shows it and keeps going
            self.error, self.status = exc, "error"
            self.traceback = traceback.format_exc()
        else:
            self.result, self.fraction, self.status = result, 1.0, "done"
        finally:
            self.finished = time.time()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return self.status in ("done", "error", "cancelled")

    @property
    def elapsed(self) -> float:
        if self.started is None:
            return 0.0
        return (self.finished or time.time()) - self.started

    def wait(self, timeout: Optional[float] = None) -> "Job":
        if self._thread is not None:
            self._thread.join(timeout)
        return self

    def snapshot(self) -> dict:
        with self._lock:
            return {"name": self.name, "status": self.status, "fraction": self.fraction,
                    "message": self.message, "records": list(self.records), "elapsed": self.elapsed}


class JobRunner:
    """Jobs by key: submitting a key whose job is still running returns that job."""

    def __init__(self):
        self._jobs: dict = {}
        self._lock = threading.Lock()

    def submit(self, key: str, fn: Callable[[JobContext], Any], *, name: str = "") -> Job:
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.done:
                return job
            job = Job(fn, name=name or key, key=key)
            self._jobs[key] = job
        return job.start()

    def get(self, key: str) -> Optional[Job]:
        with self._lock:
            return self._jobs.get(key)

    def running(self) -> list:
        with self._lock:
            return [j for j in self._jobs.values() if not j.done]

    def forget(self, key: str) -> None:
        with self._lock:
            self._jobs.pop(key, None)


# ---------------------------------------------------------------------- views of a run
# Small tables the dashboard and the CLI draw; kept here so pages hold no logic.

def label_summary(labels, retained) -> pd.DataFrame:
    """Retained/removed counts per label and the label balance before and after.

    Parameters
    ----------
    labels : array (N,)
        Label of each scored example.
    retained : bool array (N,)
        The retained mask for the chosen τ and n.

    Returns
    -------
    DataFrame indexed by label with ``total, retained, removed, removed_share,
    share_before, share_after`` (shares of each label among all / retained examples),
    plus a final ``all`` row.
    """
    labels = pd.Series(np.asarray(labels), name="label")
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


def phase_frame(run: Run, retained=None) -> pd.DataFrame:
    """The per-phase history as a table; with a live mask, which phases that τ/n still runs."""
    frame = pd.DataFrame(run.history)
    if retained is not None and len(frame):
        removed_at = np.where(np.asarray(retained, dtype=bool), -1, run.removed_at)
        live = pd.Series(removed_at[removed_at >= 0]).value_counts()
        frame["removed_at_chosen_tau_n"] = frame["phase"].map(live).fillna(0).astype(int)
    return frame


def below_chance(run: Run, live: dict, margin: float = 0.02) -> Optional[dict]:
    """Whether filtering at the live τ and n went past removing artifacts.

    When the pooled held-out accuracy of the last phase that runs at this τ and n
    (``history_[j]["heldout_accuracy"]``, on S_j) is below chance (1 / number of
    labels) by more than ``margin``, the models predict the remaining labels *worse*
    than guessing: what is left is adversarial to the representation rather than
    merely free of its shortcuts (AFLite over-filtering). Returns ``phase``,
    ``accuracy`` and ``chance`` then, else None.
    """
    history = run.history
    n_classes = len(run.record.get("classes", []))
    if not history or n_classes < 2:
        return None
    last = history[min(int(live["n_phases"]) - 1, len(history) - 1)]
    accuracy = last.get("heldout_accuracy")
    chance = 1.0 / n_classes
    if accuracy is None or accuracy >= chance - margin:
        return None
    return {"phase": int(last["phase"]), "accuracy": float(accuracy), "chance": chance}


def phase_scores(run: Run, labels=None, max_phases: int = 40, max_points: int = 4000, random_state: int = 0) -> pd.DataFrame:
    """Long table of p̃ per phase (``phase, score, label``), for 'scores phase by phase' plots.

    At most ``max_phases`` phases (evenly spaced, the first and last always kept) and
    ``max_points`` seeded random scores per phase, so the chart stays light at any N.
    """
    n = run.n_phases
    if n == 0:
        return pd.DataFrame(columns=["phase", "score", "label"])
    phases = np.unique(np.linspace(0, n - 1, min(n, max_phases)).round().astype(int))
    offsets = np.asarray(run.arrays["phase_offsets"])
    scores = np.asarray(run.arrays["phase_scores"])
    removed_at = run.removed_at
    labels = None if labels is None else np.asarray(labels)
    rng = np.random.default_rng(random_state)
    parts = []
    for j in phases:
        members = np.flatnonzero((removed_at == -1) | (removed_at >= j))
        s = scores[offsets[j]:offsets[j + 1]]
        pick = np.arange(len(s)) if len(s) <= max_points else np.sort(rng.choice(len(s), max_points, replace=False))
        part = pd.DataFrame({"phase": j, "score": s[pick]})
        if labels is not None:
            part["label"] = labels[members[pick]]
        parts.append(part)
    return pd.concat(parts, ignore_index=True).dropna(subset=["score"])


def examples_frame(dataset, run: Optional[Run]) -> pd.DataFrame:
    """One row per example: id, label, the text fields, p̃, removal phase and warm-up flag.

    ``pos`` is the example's row in ``run.ids`` (-1 for warm-up / unscored), used to
    apply a live retained mask without copying the table: ``mask[pos]``.
    """
    table = dataset.table
    cols = [dataset.label, *dataset.text, *[c for c in table.columns if c not in (dataset.embedding, dataset.image)]]
    cols = list(dict.fromkeys(c for c in cols if c in table.columns and c not in (dataset.embedding, dataset.image)))
    out = table[cols].copy()
    ids = table.index.astype(str)
    out.insert(0, "id", ids)
    pos = np.full(len(out), -1, dtype=np.int64)
    score = np.full(len(out), np.nan, dtype=np.float32)
    removed_at = np.full(len(out), -1, dtype=np.int64)
    if run is not None:
        loc = pd.Index(ids).get_indexer(np.asarray(run.ids).astype(str))
        ok = loc >= 0
        pos[loc[ok]] = np.flatnonzero(ok)
        score[loc[ok]] = run.predictability[ok]
        removed_at[loc[ok]] = run.removed_at[ok]
    out["predictability"] = score
    out["removed_at"] = removed_at
    out["warmup"] = pos < 0
    out["pos"] = pos
    return out.reset_index(drop=True)


def live_columns(frame: pd.DataFrame, live: dict) -> pd.DataFrame:
    """``frame`` (from `examples_frame`) as a fresh fit at the live τ and n would show it.

    ``live`` is ``Run.result_for(tau, n)``: its ``retained``, ``removed_at`` and
    ``predictability`` (the score of the last phase run at that τ and n) replace the
    fitted run's columns.
    """
    pos = frame["pos"].to_numpy()
    scored = pos >= 0
    at = pos[scored]
    out = frame.copy()
    kept = np.zeros(len(frame), dtype=bool)
    kept[scored] = np.asarray(live["retained"], dtype=bool)[at]
    removed_at = np.full(len(frame), -1, dtype=np.int64)
    removed_at[scored] = np.asarray(live["removed_at"])[at]
    score = np.full(len(frame), np.nan, dtype=np.float32)
    score[scored] = np.asarray(live["predictability"])[at]
    out["retained"] = kept
    out["removed_at"] = removed_at
    out["predictability"] = score
    return out


def filter_examples(frame: pd.DataFrame, *, query: str = "", fields=(), labels=None, score_range=None,
                    ids=None, label_column: str = "label") -> pd.DataFrame:
    """Rows of ``frame`` matching a plain-text search (case-insensitive substring in ``fields``),
    a set of labels, a predictability range and/or a set of ids (e.g. those carrying a feature)."""
    keep = np.ones(len(frame), dtype=bool)
    if query:
        hit = np.zeros(len(frame), dtype=bool)
        for f in fields:
            hit |= frame[f].astype(str).str.contains(query, case=False, regex=False, na=False).to_numpy()
        keep &= hit
    if labels:
        keep &= frame[label_column].isin(list(labels)).to_numpy()
    if score_range is not None:
        lo, hi = score_range
        s = frame["predictability"].to_numpy()
        keep &= (s >= lo) & (s <= hi)
    if ids is not None:
        keep &= frame["id"].isin(pd.Index(np.asarray(ids).astype(str))).to_numpy()
    return frame[keep]


def page(frame: pd.DataFrame, number: int, size: int, sort_by: Optional[str] = None, ascending: bool = True):
    """One page (1-based) of ``frame`` after sorting, and the number of pages."""
    if sort_by:
        frame = frame.sort_values(sort_by, ascending=ascending, kind="stable")
    pages = max(1, -(-len(frame) // max(int(size), 1)))
    number = min(max(int(number), 1), pages)
    return frame.iloc[(number - 1) * size: number * size], pages
