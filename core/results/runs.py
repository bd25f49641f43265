"""Runs: the plain record of one AFLite run, and the on-disk store of finished runs.

A `Run` holds everything needed to show, reproduce and export one filtering run:
the AFLite parameters (m = ``n_partitions``, t = ``train_size``, k = ``slice_size``,
τ = ``tau``, n = ``target_size``), the seed, the representation spec, the dataset
fingerprint, package versions, and the recorded `core.aflite.Trajectory` (the
per-phase history and arrays that answer any larger τ and n without refitting).
On disk it is plain data: one ``.npz`` file (no pickle) holding the numpy arrays and
the JSON record, so a SQL-backed store can keep the JSON in a table and the arrays
beside it.

`RunStore` keys runs by their parameters (`run_key`), so going back to earlier
knob settings loads the finished run instead of recomputing it. It tells three
cases apart: a missing run and an *outdated* one (saved in an older format) are
misses to recompute; a *corrupt* one raises `CorruptRun` (logged; the app shows
it) and is never silently recomputed over.
"""
from __future__ import annotations

import json
import math
import logging
import os
import platform
import time
import zipfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Optional

import numpy as np

from ..base import paths
from ..base.result_store import ResultStore, CorruptResult
from ..aflite import AFLite, Trajectory
from ..base.errors import InputError
from ..base.keys import digest, jsonable, result_key
from ..dynamics.joint import key_part

__all__ = ["Run", "RunStore", "CorruptRun", "MANIFEST_FORMAT", "run_key", "fit_run", "quality_digest", "package_versions", "STORE_FORMAT"]

log = logging.getLogger("artifact_lens.runs")

_VERSIONED = ("artifact-lens", "numpy", "scipy", "pandas", "scikit-learn", "datasets", "pyarrow", "umap-learn", "streamlit")

#: Version of the on-disk layout of a run. Runs saved with another version are
#: outdated: a miss, recomputed on demand. 2: history without ``mean_score`` (= R);
#: 3: one ``<key>.npz`` file per run (JSON inside), replaced atomically.
STORE_FORMAT = 3
#: version of the manifest JSON (`Run.manifest`); a reader refuses a newer one
MANIFEST_FORMAT = 1


class CorruptRun(CorruptResult):
    """A stored run exists but cannot be read (damaged files); recomputing would hide that."""


def package_versions(names=_VERSIONED) -> dict:
    """Installed versions of the packages that shape a run's result (missing ones are ``None``)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    out["python"] = platform.python_version()
    return out


def full_params(params: dict) -> dict:
    """AFLite parameters with the defaults filled in (what a finished run records), without
    ``n_jobs`` and ``device``: where and on how many threads a run was computed never changes its result."""
    out = jsonable(AFLite(**params).get_params())
    for where in ("n_jobs", "device"):
        out.pop(where, None)
    return out


def run_key(fingerprint: str, spec: str, params: dict, quality: Optional[dict] = None,
            joint: Optional[dict] = None) -> str:
    """The store key of a run: a hash of (dataset fingerprint, representation spec, parameters
    and, for a quality-ordered run, the quality order's description).

    τ and n are part of ``params`` only as the *fitted* values: the dashboard fits
    with a low τ and a small n and answers larger ones from the trajectory, so the
    key changes only with k, m, t, the family, the strategy, the seed, the
    representation or the data. Omitted parameters count as their defaults, so
    ``{}`` and the full default set give the same key. ``quality`` (see `fit_run`) describes
    the quality column a quality-ordered run removes by (paper 002): plain runs (None or
    ``{}``) keep the keys they always had, and each quality choice has its own key. ``joint``
    (`core.dynamics.joint.descriptor`) does the same for the joint filter.
    """
    parts = [spec, full_params(params)]
    if quality:
        parts.append(jsonable(dict(quality)))
    if joint:
        parts.append({"joint": jsonable(key_part(joint))})
    return result_key(fingerprint, *parts, length=20)


@dataclass
class Run:
    """One AFLite run as plain data.

    Attributes
    ----------
    params : dict
        The AFLite constructor parameters (m, t, k, τ, n, model family, strategy, seed).
    dataset_name, dataset_fingerprint : str
        Which data was filtered (`core.data.dataset.Dataset.fingerprint`).
    representation : str
        The canonical representation spec (Φ).
    ids : numpy.ndarray of str
        Ids of the scored examples, aligned with every trajectory array.
    trajectory : core.aflite.Trajectory
        The recorded run: resolved sizes, seed, classes, per-phase history and the
        arrays that answer `retained_for` / `result_for`.
    excluded_ids : numpy.ndarray of str
        Warm-up examples: used to train Φ, excluded from scoring, filtering and export.
    versions : dict
        Package versions (`package_versions`).
    representation_info : dict
        The representation's own notes (dimension, seconds, ...).
    seconds : float
        Wall time of the fit.
    created : float
        UNIX time the run finished.
    quality : dict
        Empty for plain AFLite; for a quality-ordered run (paper 002: among p̃ ≥ τ the
        lowest quality first) the description of its quality column, e.g. ``{"source":
        "core.quality", "name": "dqi", "weights": {...}}`` (part of the key, in the manifest).
    joint : dict
        Empty for plain AFLite; for the joint filter (`core.dynamics.joint`) its descriptor (part of
        the key) and, under ``found``, what the cartography found (not part of the key).
    review_first : numpy.ndarray of str
        Ids the joint filter kept as possibly mislabelled: the review queue serves them first.
    """

    params: dict
    dataset_name: str
    dataset_fingerprint: str
    representation: str
    ids: np.ndarray
    trajectory: Trajectory
    excluded_ids: np.ndarray = field(default_factory=lambda: np.array([], dtype=str))
    versions: dict = field(default_factory=package_versions)
    representation_info: dict = field(default_factory=dict)
    seconds: float = 0.0
    created: float = field(default_factory=time.time)
    quality: dict = field(default_factory=dict)
    joint: dict = field(default_factory=dict)
    review_first: np.ndarray = field(default_factory=lambda: np.array([], dtype=str))

    @classmethod
    def from_estimator(cls, estimator: AFLite, *, ids, dataset_name: str, dataset_fingerprint: str,
                       representation: str, excluded_ids=(), representation_info=None,
                       seconds: Optional[float] = None, quality: Optional[dict] = None,
                       joint: Optional[dict] = None, review_first=()) -> "Run":
        """Record a fitted `core.aflite.AFLite`."""
        traj = estimator.trajectory_
        if seconds is None:
            seconds = float(traj.record.get("fit_seconds") or 0.0)
        return cls(params=jsonable(traj.record.get("params", {})), dataset_name=dataset_name,
                   dataset_fingerprint=dataset_fingerprint, representation=representation,
                   ids=np.asarray(ids).astype(str), trajectory=traj,
                   excluded_ids=np.asarray(list(excluded_ids)).astype(str),
                   representation_info=jsonable(dict(representation_info or {})), seconds=float(seconds),
                   quality=jsonable(dict(quality or {})), joint=jsonable(dict(joint or {})),
                   review_first=np.asarray(list(review_first)).astype(str))

    # ------------------------------------------------------------------ reading
    @property
    def key(self) -> str:
        return run_key(self.dataset_fingerprint, self.representation, self.params, self.quality, self.joint)

    @property
    def record(self) -> dict:
        return self.trajectory.record

    @property
    def history(self) -> list:
        return list(self.trajectory.history)

    @property
    def removed_at(self) -> np.ndarray:
        return self.trajectory.removed_at

    @property
    def retained(self) -> np.ndarray:
        return self.trajectory.retained

    @property
    def predictability(self) -> np.ndarray:
        return self.trajectory.predictability

    @property
    def n_phases(self) -> int:
        return int(self.trajectory.n_phases)

    @property
    def resolved(self) -> dict:
        """The resolved sizes (N, m, t, k, n, τ) of the fit."""
        return dict(self.record.get("resolved", {}))

    @property
    def classes(self) -> list:
        return list(self.record.get("classes", []))

    def retained_for(self, tau: Optional[float] = None, target_size=None) -> np.ndarray:
        """The retained mask (aligned with `ids`) for τ' ≥ τ and n' ≥ n, from the trajectory (no refit)."""
        return self.trajectory.retained_for(tau=tau, target_size=target_size)

    def result_for(self, tau: Optional[float] = None, target_size=None) -> dict:
        """``retained``, ``removed_at``, ``predictability`` and ``n_phases`` for τ' and n' (no refit)."""
        return self.trajectory.result_for(tau=tau, target_size=target_size)

    def kept_ids(self, result: Optional[dict] = None) -> np.ndarray:
        """The ids (text) the run keeps: at the τ/n of ``result`` (a `result_for`), else as fitted.
        The one place a split's ids are read off a run (the export, its manifest, the certificate,
        the evaluation of a run file)."""
        mask = self.retained if result is None else result["retained"]
        return np.asarray(self.ids)[np.asarray(mask, dtype=bool)].astype(str)

    def scores_at(self, phase: int) -> np.ndarray:
        """p̃ of every scored example in phase ``phase`` (NaN for examples no longer in S)."""
        return self.trajectory.scores_at(phase)

    def nbytes(self) -> int:
        """Memory held by the run's arrays (for the dashboard's cache budget)."""
        arrays = self.trajectory.to_arrays().values()
        return int(sum(a.nbytes for a in arrays) + self.ids.nbytes + self.excluded_ids.nbytes
                   + self.review_first.nbytes)

    def manifest(self, **extra) -> dict:
        """The run's description as JSON-able data (what exports put beside the data)."""
        out = {
            "tool": "artifact-lens",
            "manifest_format": MANIFEST_FORMAT,
            "dataset": {"name": self.dataset_name, "fingerprint": self.dataset_fingerprint,
                        "scored_examples": int(len(self.ids)),
                        "warmup_excluded": int(len(self.excluded_ids))},
            "representation": {"spec": self.representation, "info": self.representation_info},
            "aflite": {"params": self.params, "seed": self.record.get("seed", self.params.get("random_state")),
                       "resolved": self.resolved, "n_phases": self.n_phases,
                       "phases": self.history, "seconds": self.seconds,
                       "removal_order": ("quality (lowest first among p̃ ≥ τ, paper 002)" if self.quality
                                         else "predictability (highest first, paper 000)")
                       + (", easy-to-learn examples only (joint filter)" if self.joint else "")},
            "quality": dict(self.quality) if self.quality else None,
            "joint": dict(self.joint, possibly_mislabelled_ids=[str(i) for i in self.review_first])
            if self.joint else None,
            "run_key": self.key,
            "versions": self.versions,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created)),
            "warmup_excluded_ids": [str(i) for i in self.excluded_ids],
        }
        out.update(jsonable(extra))
        return out

    # ------------------------------------------------------------------ files
    def save(self, path) -> Path:
        """Write the run to one ``.npz`` file, atomically.

        The data goes to a temporary file beside ``path`` (named with this process's
        id), is flushed to disk, then renamed over ``path``: a reader sees the old run
        or the new one, never a half-written file, and an existing run stays readable
        until the new one is complete. Concurrent writers of the same path each rename
        a complete file; the last one wins.
        """
        path = Path(path)
        # the process id in the temporary's name tells a dead writer's leftovers from a live one's
        paths.atomic_write(path, self.write, tag=str(os.getpid()))
        paths.fsync_folder(path.parent)
        return path

    def write(self, fh) -> None:
        """The run as one ``.npz`` into the binary file object ``fh`` (what `save` and the run
        store write)."""
        meta = {
            "format": STORE_FORMAT,
            "params": self.params, "dataset_name": self.dataset_name,
            "dataset_fingerprint": self.dataset_fingerprint, "representation": self.representation,
            "record": jsonable(self.record), "versions": self.versions,
            "representation_info": self.representation_info, "seconds": self.seconds,
            "created": self.created, "key": self.key, "quality": self.quality, "joint": self.joint,
        }
        arrays = {f"a:{k}": np.asarray(v) for k, v in self.trajectory.to_arrays().items()}
        arrays["ids"] = np.asarray(self.ids).astype(str)
        arrays["excluded_ids"] = np.asarray(self.excluded_ids).astype(str)
        arrays["review_first"] = np.asarray(self.review_first).astype(str)
        arrays["meta"] = np.array(json.dumps(meta, default=str))
        np.savez(fh, **arrays)

    @classmethod
    def load(cls, path, *, expect_format: Optional[int] = None) -> Optional["Run"]:
        """A run written by `save`; with ``expect_format``, None when the file declares another
        format (an outdated run). Raises `CorruptRun` when the file cannot be read."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as npz:
                meta = json.loads(str(npz["meta"]))
                if expect_format is not None and meta.get("format") != expect_format:
                    return None
                arrays = {k[2:]: npz[k] for k in npz.files if k.startswith("a:")}
                ids, excluded = npz["ids"], npz["excluded_ids"]
                first = npz["review_first"] if "review_first" in npz.files else np.array([], dtype=str)
            _check_meta(meta)
            trajectory = Trajectory.from_arrays(meta["record"], arrays)
            if len(trajectory.removed_at) != len(ids) or len(set(ids.tolist())) != len(ids):
                raise ValueError(f"{len(ids)} ids (some repeated?) for {len(trajectory.removed_at)} scored examples")
            run = cls(params=meta["params"], dataset_name=meta["dataset_name"],
                       dataset_fingerprint=meta["dataset_fingerprint"], representation=meta["representation"],
                       ids=ids, trajectory=trajectory, excluded_ids=excluded,
                       versions=meta.get("versions", {}), representation_info=meta.get("representation_info", {}),
                       seconds=meta.get("seconds", 0.0), created=meta.get("created", time.time()),
                       quality=meta.get("quality") or {}, joint=meta.get("joint") or {}, review_first=first)
            run.key   # the parameters make a key (AFLite takes them) or the file is damaged
            trajectory.result_for()   # and the phases walk to an end (a walk that cannot is a damaged file)
            return run
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, InputError, OverflowError,
                AttributeError, RecursionError, RuntimeError) as exc:
            raise CorruptRun(f"cannot read the run in {path}: the file is damaged ({exc}); delete it to "
                             "recompute the run", path) from exc


#: what a run file's metadata holds, by type (older files lack the optional ones)
_META_TYPES = {"params": dict, "dataset_name": str, "dataset_fingerprint": str, "representation": str, "record": dict}
_META_OPTIONAL = {"versions": dict, "representation_info": dict, "seconds": (int, float), "created": (int, float),
                  "quality": (dict, type(None)), "joint": (dict, type(None)), "key": (str, type(None))}


def _check_meta(meta) -> None:
    """A run file's metadata has the types a run is made of (a hand edit or another tool's file
    otherwise fails later, far from the file): ValueError naming the field."""
    if not isinstance(meta, dict):
        raise ValueError("its metadata is not a JSON object")
    for name, kind in _META_TYPES.items():
        if not isinstance(meta.get(name), kind):
            raise ValueError(f"its metadata's {name} is {type(meta.get(name)).__name__}, not {kind.__name__}")
    for name, kinds in _META_OPTIONAL.items():
        if name in meta and (not isinstance(meta[name], kinds) or isinstance(meta[name], bool)):
            raise ValueError(f"its metadata's {name} has the wrong type ({type(meta[name]).__name__})")
    for name in ("seconds", "created"):
        if name in meta and not math.isfinite(meta[name]):
            raise ValueError(f"its metadata's {name} is not a finite number")


def fit_run(dataset, representation, params: dict, *, progress=None, cancel=None, on_phase=None,
            quality=None, quality_info: Optional[dict] = None, joint=None, scheduler: Optional[str] = None) -> Run:
    """Fit AFLite on a representation of a dataset and record it as a `Run`.

    Parameters
    ----------
    dataset : core.data.dataset.Dataset
    representation : core.representations.Representation
        Φ: ``X`` (rows aligned with ``ids``), ``excluded_ids`` (warm-up), ``spec``, ``info``.
    params : dict
        `core.aflite.AFLite` constructor parameters (m, t, k, τ, n, family, strategy, seed).
    progress, cancel, on_phase, quality
        Passed to ``AFLite.fit`` (``on_phase`` gets each phase's record as it finishes;
        ``quality`` is a per-example score aligned with ``representation.ids``).
    quality_info : dict, optional
        What the quality column is (e.g. ``{"source": "core.quality", "name": "dqi",
        "weights": {...}}``), recorded as `Run.quality` and part of the run's key. Without it
        a quality column is described by a digest of its values, so different columns never
        share a key. Ignored without ``quality``.
    joint : core.dynamics.joint.JointInputs, optional
        The joint filter: its protected rows are never removed, its possibly mislabelled
        ones become `Run.review_first`, its record `Run.joint` (part of the key).
    scheduler : str, optional
        A Dask scheduler (``tcp://HOST:PORT``): the phases run on its cluster
        (`core.aflite.distributed`) with the same result. A memory-mapped Φ is read by the
        workers from its file (they must see the same path); any other Φ is sent to them.
    """
    ids = np.asarray(representation.ids).astype(str)
    labels = dataset.table[dataset.label]
    loc = labels.index.astype(str).get_indexer(ids)
    if (loc < 0).any():
        raise InputError("the representation does not match the dataset (unknown ids such as "
                         f"{ids[loc < 0][:3].tolist()}); rebuild the representation for this dataset")
    y = labels.to_numpy()[loc]
    info = {}
    if quality is not None:
        info = dict(quality_info) if quality_info else {"source": "values", "digest": quality_digest(quality)}
    protected = None if joint is None else joint.protected
    t0 = time.perf_counter()
    if scheduler:
        from ..aflite.on_cluster import fit_on_cluster

        est = fit_on_cluster(scheduler, representation.X, y, params, quality=quality, protected=protected,
                             progress=progress, cancel=cancel, on_phase=on_phase)
    else:
        est = AFLite(**params).fit(representation.X, y, quality=quality, protected=protected, progress=progress,
                                   cancel=cancel, on_phase=on_phase)
    return Run.from_estimator(
        est, ids=ids, dataset_name=dataset.name, dataset_fingerprint=dataset.fingerprint,
        representation=representation.spec, excluded_ids=getattr(representation, "excluded_ids", ()),
        representation_info=getattr(representation, "info", {}), seconds=time.perf_counter() - t0,
        quality=info, joint=None if joint is None else joint.record(),
        review_first=() if joint is None else ids[joint.mislabelled])


def quality_digest(values) -> str:
    """A short hash of a quality column's values (float64), naming it in a run key."""
    return digest(np.ascontiguousarray(np.asarray(values, dtype=np.float64)).tobytes())


class RunStore:
    """Finished runs on disk, one file per `run_key` (a `core.base.result_store.ResultStore`:
    ``<key>.v<STORE_FORMAT>.npz``, written atomically).

    No memory layer here: the dashboard keeps loaded runs in its bounded cache, and
    the CLI reads a run once. Temporary files of writers that died (a killed process)
    are removed when a store is opened; they are never listed as runs.

    Parameters
    ----------
    root : path
        Folder holding the runs.
    """

    def __init__(self, root):
        self.root = Path(root)
        self.files = ResultStore(self.root, suffix=".npz", format=STORE_FORMAT, what="run")

    def path(self, key: str) -> Path:
        return self.files.path(key)

    def get(self, key: str) -> Optional[Run]:
        """The stored run, or None when it is missing or outdated (saved in another format).

        Raises
        ------
        CorruptRun
            The run's file exists but cannot be read; the message names the file.
        """
        try:
            run = self.files.load(key, lambda p: Run.load(p, expect_format=STORE_FORMAT))
        except CorruptResult as exc:
            log.warning("%s", exc)
            raise exc if isinstance(exc, CorruptRun) else CorruptRun(str(exc), exc.path) from exc
        if run is None and self.path(key).exists():
            log.info("run %s was saved in another format (now %s): recomputing it", key, STORE_FORMAT)
        return run

    def put(self, run: Run) -> Optional[str]:
        """Save the run; its key, or None when it could not be written (logged: the run
        itself is still good, so a full or read-only disk never fails the work that made it)."""
        key = run.key
        try:
            self.files.save(key, run.write)
        except OSError as exc:
            log.warning("could not save run %s in %s (%s); it stays in memory only", key, self.root, exc)
            return None
        return key

    def __contains__(self, key: str) -> bool:
        return key in self.files

    def keys(self) -> list:
        return self.files.keys()

    def remove_stale_temporaries(self) -> int:
        """Delete temporary files left by writers that are no longer running; how many."""
        return self.files.remove_stale_temporaries()
