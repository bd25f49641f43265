"""How an evaluation fits its model families (`core.models` builds them): one fit, many fits on every
core, and the memo of fits already made (see `core.evaluation`)."""
from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np
import pandas as pd

from ..base.keys import ResultKey, digest_of, require_key, result_key
from ..models import KNN_K, family, make_model, title


TRAIN_SETS = ("full", "aflite", "random", "single-model")
EVAL_SETS = ("i.i.d.", "AFLite-filtered")
#: paper 000 §3 / Fig. 2: four inner/outer radius ratios; the largest separation (0.2) gets flipped labels
SEPARATIONS = (0.2, 0.4, 0.6, 0.8)


def trains_on_device(fam: str, params: Optional[dict], device: Optional[str]) -> bool:
    """Whether this fit trains on ``device`` (`core.models.on_device`): a device is set, the family
    has a device version and its parameters are ones that version takes."""
    from ..base.devices import where

    version = family(fam).device
    return where(device) != "cpu" and version is not None and set(params or {}) <= set(version.defaults)


def fit_predict(fam: str, Xtr, ytr, Xte, random_state: int, params: Optional[dict] = None,
                device: Optional[str] = None):
    """(predictions or None, note): one family fitted on (Xtr, ytr) and applied to Xte, on
    ``device`` where the family has a device version (`trains_on_device`), else on the CPU.

    A failed fit gives None and a note naming the cause; a fit that stopped before
    converging gives predictions and a note saying so."""
    from sklearn.exceptions import ConvergenceWarning

    name = title(fam)
    labels = np.unique(ytr)
    if len(labels) < 2:
        return None, f"{name}: the training set has {len(ytr)} examples of {len(labels)} label(s); it needs two labels"
    if trains_on_device(fam, params, device):
        version = family(fam).device
        knobs = {**version.defaults, **(params or {})}
        found, converged = version.fit(device, Xtr, np.searchsorted(labels, ytr), Xte, len(labels), **knobs)
        iters = knobs["max_iter"]
        return labels[found], "" if converged else (f"{name} did not converge in max_iter = {iters} iterations; "
                                                    "its accuracy may be understated")
    k = int((params or {}).get("n_neighbors", KNN_K))
    if fam == "knn" and len(ytr) < k:
        return None, f"{name}: K = {k} neighbours but the training set has only {len(ytr)} examples"
    model = make_model(fam, random_state, params, n_train=len(ytr), d=Xtr.shape[1], scale=float(np.var(Xtr)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        try:
            model.fit(Xtr, ytr)
            pred = model.predict(Xte) if len(Xte) else np.array([], dtype=ytr.dtype)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            return None, f"{name} could not be fitted: {exc}"
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        iters = getattr(model, "max_iter", None) or (params or {}).get("max_iter")
        return pred, (f"{name} did not converge" + (f" in max_iter = {iters} iterations" if iters else "")
                      + "; its accuracy may be understated")
    return pred, ""


def notes_of(frame: pd.DataFrame) -> list:
    return list(frame.attrs.get("notes", []))


def with_notes(frame: pd.DataFrame, notes) -> pd.DataFrame:
    seen, out = set(), []
    for n in notes:
        if n and n not in seen:
            seen.add(n)
            out.append(n)
    frame.attrs["notes"] = out
    return frame


# ---------------------------------------------------------------------- many fits: once each, on every core
@dataclass(frozen=True)
class Fit:
    """One `fit_predict` call by reference: ``X[train]`` with ``y[train]``, predicting ``X[test]``
    (index arrays, in the order the rows are given to the model)."""

    family: str
    train: np.ndarray
    test: np.ndarray
    random_state: int = 0
    params: Optional[dict] = None


class FitMemo:
    """Predictions of fits already made, by the content of what each model saw (X, y, the rows
    and their order, the family, its parameters, the seed), so an evaluation at another τ/n of
    the same run, or the partial-input table of a second evaluation, reuses the fits that do
    not depend on τ/n (the full training set's, the coarse action's) instead of repeating them.
    Every fit is deterministic given that content, so a reused result is the result. Bounded
    (``max_bytes`` of predictions, least recently used out first); shared by the process's
    evaluations, which is safe: a key is reachable only by a caller holding the same data."""

    def __init__(self, max_bytes: int = 64 << 20):
        self.max_bytes, self._bytes = int(max_bytes), 0
        self._items: "OrderedDict[str, tuple]" = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _size(pred) -> int:
        return 64 if pred is None else int(pred.nbytes) + (8 * len(pred) if pred.dtype == object else 0)

    def get(self, key: str):
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: ResultKey, value: tuple) -> None:
        require_key(key, "a remembered fit")
        size = self._size(value[0])
        if size > self.max_bytes:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = value
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, old = self._items.popitem(last=False)
                self._bytes -= self._size(old[0])

    def __len__(self) -> int:
        return len(self._items)


#: the process's memo of evaluation fits (`FitMemo`; 64 MB of predictions at most)
FITS = FitMemo()


_PROCESS = object()


def fit_many(X, y, fits: Sequence[Fit], *, n_jobs: int = 1, device: Optional[str] = None, memo=_PROCESS,
             on_done: Optional[Callable[[int, Fit], None]] = None, cancel=None) -> list:
    """``fit_predict`` for each of ``fits``, in order: ``[(predictions or None, note), ...]``.

    Fits made before (``memo``) are not made again; the rest run on ``n_jobs`` threads, or on the
    job's share of the cores read again before each fit (`core.base.cores.SHARE`); the solvers
    scikit-learn calls release the GIL (1.6× on 2 cores). The results do not depend on
    ``n_jobs`` or on the memo. ``device``: where the families with a device version train
    (`trains_on_device`; one such fit at a time, beside the CPU's threads). ``on_done(i, fit)`` is
    called as each finishes; ``cancel`` is checked before each fit starts (a fit under way runs
    to its end). ``memo``: a `FitMemo`, None for none; by default the process's (`FITS`)."""
    from ..base.cores import SHARE, one_blas_thread, threads_now, usable_cores
    from ..base.progress import check_cancel

    memo = FITS if memo is _PROCESS else memo
    data = digest_of(X, y) if memo is not None else ""
    # a fit on a device is remembered apart from the CPU's (its rounding differs); a CPU fit keeps its key
    keys = [result_key(data, f.family, str(f.random_state), f.params or {}, digest_of(f.train, f.test),
                       *([str(device)] if trains_on_device(f.family, f.params, device) else []), length=32)
            if memo is not None else "" for f in fits]
    out: list = [None] * len(fits)
    todo = []
    for i, (f, key) in enumerate(zip(fits, keys)):
        hit = memo.get(key) if memo is not None else None
        if hit is not None:
            out[i] = hit
            if on_done:
                on_done(i, f)
        else:
            todo.append(i)

    device_lock = threading.Lock()   # one fit on the device at a time; the CPU's fits go on meanwhile

    def one(i):
        check_cancel(cancel)
        f = fits[i]
        if trains_on_device(f.family, f.params, device):
            with device_lock:
                return fit_predict(f.family, X[f.train], y[f.train], X[f.test], f.random_state, f.params, device)
        return fit_predict(f.family, X[f.train], y[f.train], X[f.test], f.random_state, f.params)

    def finish(i, result):
        out[i] = result
        if memo is not None:
            memo.put(keys[i], result)
        if on_done:
            on_done(i, fits[i])

    # One BLAS thread per fit, whatever n_jobs: n_jobs fits each on every core's BLAS threads
    # oversubscribe the cores, and BLAS's sums depend on its thread count (a fit's result must not).
    most = usable_cores() if n_jobs is SHARE else threads_now(n_jobs)
    if most <= 1 or len(todo) <= 1:
        with one_blas_thread():
            for i in todo:
                finish(i, one(i))
        return out
    # the slowest first (the kernel SVM and the MLP, the largest sets), so no thread is left
    # with one long fit at the end while the others idle
    todo.sort(key=lambda i: (-family(fits[i].family).slow, -len(fits[i].train)))
    with one_blas_thread(), ThreadPoolExecutor(max_workers=min(most, len(todo)), thread_name_prefix="fit") as pool:
        running: dict = {}
        try:
            while todo or running:
                # as many fits at once as the job's threads allow now (`SHARE`: its share of the
                # cores, which grows when a job beside it ends)
                while todo and len(running) < threads_now(n_jobs):
                    i = todo.pop(0)
                    running[pool.submit(one, i)] = i
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    finish(running.pop(fut), fut.result())
        finally:
            for fut in running:   # a cancel or an error: the fits not started are not started
                fut.cancel()
    return out
