"""Training dynamics on Φ (dataset cartography, Swayamdipta et al. 2020) and label issues
(confident learning through `cleanlab`), issue 23.

A softmax model on Φ (``model="linear"``) or a one-hidden-layer MLP (``"mlp"``) is trained for
E epochs of mini-batch Adam; after each epoch every example's probability of its gold label is
recorded. **Cross-fitted** (the default, ``folds`` > 1): the examples are split into folds and
each fold's probabilities come from models trained on the other folds, so they are out of
sample; cleanlab needs exactly that. **In-sample** (``folds=1``, the paper's variant): one model
trained on every example records its own training examples' probabilities, which is what the
paper maps (its "hard-to-learn" then means the model cannot fit an example even after seeing it).

Per example:

- **confidence**: the mean over epochs of p(gold);
- **variability**: their standard deviation;
- **correctness**: the share of epochs in which the gold label has the highest probability;
- **region**: ``ambiguous`` when its variability is among the top ``ambiguous_share`` (a third by
  default, as the paper's ambiguous subset); otherwise ``easy-to-learn`` when its confidence is at
  least ``confidence_threshold`` (0.5) and ``hard-to-learn`` below it.
- The last epoch's held-out **accuracy** is in `params`: flags from a model that cannot do the
  task (a hypothesis-only Φ on NLI is right on about 60 %) mark hard examples, not wrong labels,
  and a note says so.
- **label_quality** (cleanlab's self-confidence score of the given label, from the last epoch's
  out-of-sample probabilities; lower = more likely wrong) and **label_issue** (cleanlab's
  ``find_label_issues``). In-sample probabilities overfit, so label issues need ``folds`` ≥ 2.

Inputs are standardised with the training folds' mean and spread; everything is float32 and
seeded, so a run is reproducible.
"""
from __future__ import annotations

import threading
import time
import warnings
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from ..base.bounds import EPOCHS, FOLDS
from ..base.cores import one_blas_thread, usable_cores
from ..base.devices import arrays_on, to_host, where
from ..base import memory
from ..base.errors import InputError
from ..data.labels import encode_labels
from ..base.progress import check_cancel, report

__all__ = ["Cartography", "training_dynamics", "dataset_dynamics", "scored_labels", "REGIONS", "MODELS"]

REGIONS = ("easy-to-learn", "ambiguous", "hard-to-learn")
MODELS = ("linear", "mlp")


@dataclass
class Cartography:
    """Per-example training dynamics (`table`, by id) and how they were made (`params`)."""

    table: pd.DataFrame          # id, label, confidence, variability, correctness, region, label_quality, label_issue
    gold_probs: np.ndarray       # (N, epochs) p(gold) after each epoch
    params: dict = field(default_factory=dict)

    def summary(self) -> dict:
        t = self.table
        out = {"examples": int(len(t)), "regions": {r: int((t["region"] == r).sum()) for r in REGIONS},
               "accuracy": self.params.get("accuracy")}
        if "label_issue" in t:
            out["label_issues"] = int(t["label_issue"].sum())
        return out


def _initial_weights(rng: np.random.Generator, d: int, k: int, hidden: int) -> list:
    """A model's initial weights, drawn on the host (every device starts from the same numbers)."""
    if hidden:
        return [(rng.standard_normal((d, hidden)) * np.sqrt(2.0 / d)).astype(np.float32), np.zeros(hidden, np.float32),
                (rng.standard_normal((hidden, k)) * np.sqrt(1.0 / hidden)).astype(np.float32), np.zeros(k, np.float32)]
    return [np.zeros((d, k), np.float32), np.zeros(k, np.float32)]


def _randoms(rng: np.random.Generator, d: int, k: int, hidden: int, n_train: int, epochs: int):
    """A fold's random numbers in the order they are drawn: the initial weights, then each epoch's
    order of the training rows. The one place they are drawn: the folds' generator states are found
    by drawing them (`training_dynamics`), and each fold replays its own, so folds trained at once
    see exactly what folds trained one after another see."""
    yield _initial_weights(rng, d, k, hidden)
    for _ in range(epochs):
        yield rng.permutation(n_train)


class _Net:
    """Softmax regression or a one-hidden-layer ReLU MLP, trained by mini-batch Adam (float32), on
    array namespace ``xp`` (NumPy, or a device's: `core.base.devices`), from the host's ``initial``
    weights (`_initial_weights`)."""

    def __init__(self, initial: list, lr: float, l2: float, xp=np, put=np.asarray):
        self.xp, self.lr, self.l2, self.t = xp, lr, l2, 0
        self.params = [put(p) for p in initial]
        self.m = [put(np.zeros_like(p)) for p in initial]
        self.v = [put(np.zeros_like(p)) for p in initial]

    def _forward(self, X):
        xp = self.xp
        if len(self.params) == 4:
            W1, b1, W2, b2 = self.params
            h = xp.maximum(X @ W1 + b1, xp.zeros_like(b1))
            return h, h @ W2 + b2
        W, b = self.params
        return None, X @ W + b

    def _softmax(self, z):
        xp = self.xp
        e = xp.exp(z - xp.max(z, axis=1, keepdims=True))
        return e / xp.sum(e, axis=1, keepdims=True)

    def proba(self, X, batch: int = 8192):
        """p(class) of every row of X, on the namespace's device."""
        xp = self.xp
        n = X.shape[0]
        parts = [self._softmax(self._forward(X[s:min(s + batch, n), ...])[1]) for s in range(0, n, batch)]
        return xp.concat(parts, axis=0) if parts else xp.zeros((0, self.params[-1].shape[0]), dtype=xp.float32)

    def step(self, X, Y):
        """One Adam step on rows X with one-hot labels Y."""
        xp = self.xp
        h, z = self._forward(X)
        g = (self._softmax(z) - Y) / Y.shape[0]          # d loss / d logits
        if h is not None:
            W1, _, W2, _ = self.params
            dh = (g @ W2.T) * xp.astype(h > 0, xp.float32)
            grads = [X.T @ dh + self.l2 * W1, xp.sum(dh, axis=0), h.T @ g + self.l2 * W2, xp.sum(g, axis=0)]
        else:
            grads = [X.T @ g + self.l2 * self.params[0], xp.sum(g, axis=0)]
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        rate = self.lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        if not isinstance(self.params[0], np.ndarray):   # a device's arrays take a Python float (float32 steps)
            rate = float(rate)
        for p_, g_, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g_
            v *= b2
            v += (1 - b2) * g_ * g_
            # on NumPy the float64 rate makes the step float64, then float32 as the weights (as it always was)
            p_ -= xp.astype(rate * m / (xp.sqrt(v) + eps), xp.float32)


def _check(epochs, folds, model, hidden, batch_size, ambiguous_share, confidence_threshold):
    def whole(name, value, lo, hi):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
            raise InputError(f"{name} must be a whole number from {lo} to {hi}, not {value!r}.")

    whole("epochs", epochs, *EPOCHS.range)
    whole("folds", folds, 1, FOLDS.high)   # 1: in-sample, the paper's variant
    whole("hidden", hidden, 1, 100_000)
    whole("batch_size", batch_size, 1, 10 ** 7)
    if model not in MODELS:
        raise InputError(f"model {model!r} is unknown; choose one of {', '.join(MODELS)}.")
    for name, value in (("ambiguous_share", ambiguous_share), ("confidence_threshold", confidence_threshold)):
        if not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 < float(value) < 1.0):
            raise InputError(f"{name} must be a number strictly between 0 and 1, not {value!r}.")


def training_dynamics(X, y, *, ids=None, classes=None, epochs: int = 10, model: str = "linear", folds: int = 5,
                      hidden: int = 128, batch_size: int = 256, lr: Optional[float] = None, l2: float = 1e-4,
                      ambiguous_share: float = 1 / 3, confidence_threshold: float = 0.5, label_issues: bool = True,
                      random_state: int = 0, device: Optional[str] = None, n_jobs: Optional[int] = None,
                      progress=None, cancel=None) -> Cartography:
    """Cartography of ``X`` (N × d, Φ) with labels ``y``; see the module docstring.

    ``folds`` ≥ 2 cross-fits (out-of-sample probabilities, label issues found); ``folds=1`` is the
    paper's in-sample variant (no label issues: its probabilities are not out of sample). ``lr``
    (Adam's step) defaults to 0.05 for the linear model and 0.01 for the MLP: steps that fit the
    easy examples within the first epoch, as the paper's models do, so what still moves
    afterwards (variability) is what the model is unsure of. ``device`` (`core.base.devices`; None: NumPy
    on the CPU) is where the models train: ``"cuda"`` trains them on a GPU with PyTorch, from the
    same initial weights on the same batches. Only float32 rounding differs (each library sums in
    its own order): the linear model's map agrees with the CPU's to about 1e-5; an MLP's rounding
    grows over the epochs (benchmarks/README.md measures it). `params["device"]` records where it ran.
    ``n_jobs`` folds train at once on the CPU (None: as many as this process has cores), each with
    BLAS on one thread; the map does not depend on it, nor on the machine's cores.
    """
    started = time.perf_counter()
    _check(epochs, folds, model, hidden, batch_size, ambiguous_share, confidence_threshold)
    lr = (0.05 if model == "linear" else 0.01) if lr is None else lr
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not 0 < lr <= 10:
        raise InputError(f"lr must be a number in (0, 10], not {lr!r}.")
    X, codes, classes = _inputs(X, y, classes)
    rng = np.random.default_rng(random_state)
    fold_of = _folds(codes, len(classes), folds, rng)
    gold, right, last = _train(X, codes, len(classes), fold_of, folds, rng, epochs=epochs, model=model, hidden=hidden,
                               batch_size=batch_size, lr=lr, l2=l2, device=device, n_jobs=n_jobs, progress=progress,
                               cancel=cancel)
    table = _regions(gold, right, codes, classes, ids, ambiguous_share, confidence_threshold)
    accuracy = float((last.argmax(axis=1) == codes).mean())
    notes = _label_issues(table, codes, last, accuracy) if label_issues and folds > 1 else (
        ["label issues need out-of-sample probabilities: give folds ≥ 2 (in-sample ones overfit)."] if label_issues
        else [])
    params = {"epochs": epochs, "model": model, "folds": folds, "hidden": hidden if model == "mlp" else None,
              "batch_size": batch_size, "lr": lr, "l2": l2, "ambiguous_share": float(ambiguous_share),
              "confidence_threshold": float(confidence_threshold), "random_state": random_state,
              "variant": "cross-fitted" if folds > 1 else "in-sample", "accuracy": accuracy, "notes": notes,
              "device": where(device), "seconds": round(time.perf_counter() - started, 3)}
    return Cartography(table=table, gold_probs=gold, params=params)


def _inputs(X, y, classes) -> tuple:
    """(Φ as float32, label codes, classes), checked (InputError naming the fix)."""
    X = np.asarray(X, dtype=np.float32)
    if X.ndim != 2 or not len(X):
        raise InputError(f"Φ must be a non-empty N × d matrix, not of shape {X.shape}.")
    if not np.isfinite(X).all():
        raise InputError("Φ holds NaN or infinite values; rebuild the representation (or drop those rows).")
    codes, classes = encode_labels(np.asarray(y), classes, what="label")
    if len(codes) != len(X):
        raise InputError(f"{len(codes)} labels for {len(X)} rows of Φ; give one label per row.")
    if len(classes) < 2:
        raise InputError("cartography needs at least two labels; this dataset has one.")
    return X, codes, classes


def _folds(codes, k: int, folds: int, rng) -> np.ndarray:
    """Each example's fold: stratified (each label's examples dealt round-robin over the folds), a
    plain split when a label has fewer examples than folds; one fold for the in-sample variant."""
    n = len(codes)
    if folds <= 1:
        return np.zeros(n, dtype=int)
    if folds > n:
        raise InputError(f"{folds} folds for {n} examples; give at most {n} folds.")
    order = rng.permutation(n)
    fold_of = np.empty(n, dtype=int)
    for c in range(k):
        rows = order[codes[order] == c]
        fold_of[rows] = np.arange(len(rows)) % folds
    if (np.bincount(codes, minlength=k) < folds).any():
        fold_of = np.arange(n)[order.argsort()] % folds    # too few of a label to stratify: plain split
    return fold_of


def _train(X, codes, k: int, fold_of, folds: int, rng, *, epochs, model, hidden, batch_size, lr, l2, device, n_jobs,
           progress, cancel) -> tuple:
    """(gold, right, last): each example's probability of its gold label and whether the model was
    right, per epoch, from the model of the fold it is held out of; and its last epoch's
    probabilities."""
    n = len(X)
    gold = np.zeros((n, epochs), np.float32)
    right = np.zeros((n, epochs), bool)
    last = np.zeros((n, k), np.float32)
    xp, put = arrays_on(device)
    onehot = np.eye(k, dtype=np.float32)
    hidden_units = hidden if model == "mlp" else 0
    n_train = [n if folds == 1 else int((fold_of != f).sum()) for f in range(folds)]
    starts = []
    for f in range(folds):   # each fold's generator state: drawn in fold order, as one after another would
        starts.append(rng.bit_generator.state)
        for _ in _randoms(rng, X.shape[1], k, hidden_units, n_train[f], epochs):
            pass
    done, lock, stop = [0], threading.Lock(), threading.Event()

    def train_fold(f: int) -> None:
        # folds write disjoint rows of gold/right/last, so they run at once without a lock on them
        held = np.flatnonzero(fold_of == f)
        train = np.flatnonzero(fold_of != f) if folds > 1 else held
        rows = X[train]                           # one copy of the fold's training rows
        mu = rows.mean(axis=0)
        sd = rows.std(axis=0)
        sd[sd == 0] = 1.0
        # standardised on the host (the same numbers on every device), then sent once a fold
        rows -= mu
        rows /= sd
        Xt = put(rows)
        Xh = Xt if folds == 1 else put((X[held] - mu) / sd)
        Yt = put(onehot[codes[train]])
        replay = np.random.Generator(type(rng.bit_generator)())
        replay.bit_generator.state = starts[f]
        draws = _randoms(replay, X.shape[1], k, hidden_units, len(train), epochs)
        net = _Net(next(draws), lr, l2, xp, put)
        for e, order in enumerate(draws):
            check_cancel(cancel)
            if stop.is_set():                     # another fold failed: its error is the one raised
                return
            perm = put(order)                     # one transfer an epoch, sliced on the device
            for s in range(0, len(train), batch_size):
                b = perm[s:min(s + batch_size, len(train))]
                net.step(xp.take(Xt, b, axis=0), xp.take(Yt, b, axis=0))
            p = to_host(net.proba(Xh))
            gold[held, e] = p[np.arange(len(held)), codes[held]]
            right[held, e] = p.argmax(axis=1) == codes[held]
            if e == epochs - 1:
                last[held] = p
            with lock:
                done[0] += 1

    # The folds train at once on the CPU's cores (one at a time on a device), each with BLAS on one
    # thread: BLAS's sums depend on its thread count, and the map must not depend on the machine.
    # A fold holds a standardised copy of Φ (its training and held-out rows): as many at once as
    # half the free memory holds.
    workers = 1 if where(device) != "cpu" else max(1, min(folds, usable_cores() if n_jobs is None
                                                           else int(n_jobs)))
    free = memory.available_memory()
    if free is not None:
        workers = max(1, min(workers, free // (2 * max(X.nbytes, 1))))
    total = folds * epochs
    with one_blas_thread(), ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fold") as pool:
        running = [pool.submit(train_fold, f) for f in range(folds)]
        try:
            while True:
                finished, pending = wait(running, timeout=0.25, return_when=FIRST_EXCEPTION)
                report(progress, done[0] / total, f"{done[0]} of {total} epochs ({folds} fold"
                       f"{'s' if folds > 1 else ''}, {workers} at once)")
                if not pending or any(fut.exception() is not None for fut in finished):
                    break
        finally:
            stop.set()
            for fut in running:
                fut.cancel()
        for fut in running:
            if not fut.cancelled():
                fut.result()                      # the first fold's error (a cancel too) is raised here
    return gold, right, last


def _regions(gold, right, codes, classes, ids, ambiguous_share, confidence_threshold) -> pd.DataFrame:
    """Confidence, variability, correctness and region of every example (the data map)."""
    confidence = gold.mean(axis=1)
    variability = gold.std(axis=1)
    ambiguous = variability >= np.quantile(variability, 1.0 - ambiguous_share)
    region = np.where(ambiguous, "ambiguous", np.where(confidence >= confidence_threshold, "easy-to-learn",
                                                          "hard-to-learn"))
    return pd.DataFrame({"id": np.arange(len(codes)).astype(str) if ids is None else np.asarray(ids).astype(str),
                         "label": np.asarray(classes, dtype=object)[codes], "confidence": confidence,
                         "variability": variability, "correctness": right.mean(axis=1), "region": region})


def _label_issues(table, codes, last, accuracy: float) -> list:
    """cleanlab's label quality and issues from the out-of-sample probabilities, into ``table``;
    the notes a reader needs to weigh them."""
    from cleanlab.filter import find_label_issues
    from cleanlab.rank import get_label_quality_scores

    notes = []
    probs = np.clip(last.astype(np.float64), 1e-12, None)
    probs /= probs.sum(axis=1, keepdims=True)
    table["label_quality"] = get_label_quality_scores(codes, probs)
    with warnings.catch_warnings(record=True) as said:   # cleanlab's warnings become one note, not stderr noise
        warnings.simplefilter("always")
        table["label_issue"] = find_label_issues(codes, probs, n_jobs=1)
    if said:
        notes.append("cleanlab: some labels have too few examples to flag every possible label error among them.")
    share = float(table["label_issue"].mean())
    if share > 0.2:
        notes.append(f"cleanlab flags {share:.0%} of the labels, more than label noise usually is: the model on this "
                     f"Φ is right on {accuracy:.0%} of held-out examples, too weak to tell a wrong label from a hard "
                     "example. Use a representation that sees the whole input (every text field, or sentence "
                     "embeddings of the pair) before reading the flags as errors.")
    return notes


def scored_labels(dataset, representation):
    """(ids, labels) of the examples Φ represents (warm-up examples are not in it)."""
    ids = np.asarray(representation.ids).astype(str)
    return ids, dataset.table[dataset.label].reindex(ids).to_numpy()


def dataset_dynamics(dataset, representation, *, progress=None, cancel=None, **options):
    """`training_dynamics` of the examples Φ represents, with the dataset's
    labels and class order; ``options`` are its knobs."""
    ids, y = scored_labels(dataset, representation)
    return training_dynamics(np.asarray(representation.X), y, ids=ids, classes=dataset.classes, progress=progress,
                             cancel=cancel, **options)
