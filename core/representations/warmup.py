"""The warm-up representation (paper 000, §4): a feature extractor trained on a held-out share of
the examples, whose last hidden layer is Φ of the rest."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..base.errors import InputError
from ..base.progress import check_cancel, report


def build_warmup(dataset, opts, *, messages, info, progress, cancel, cache_dir):
    """Paper 000's warm-up representation: an MLP trained on a share of the examples (which are then
    excluded from Φ and everything downstream), its last hidden layer on the rest."""
    from . import represent   # the input features, through the cache (the package imports this module)
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    # Input features: unsupervised, fitted on every example (no labels seen), via the cache.
    if opts["input"] == "tfidf":
        base_spec = f"tfidf-svd:fields={opts['fields']},dim={opts['dim']},seed={opts['seed']}"
    elif opts["input"] == "embedding":
        base_spec = "embedding"
    else:
        base_spec = "pixels"
    report(progress, 0.02, f"input features ({base_spec})")
    base = represent(dataset, base_spec, cache_dir=cache_dir, cancel=cancel,
                     progress=(lambda f, m: report(progress, 0.02 + 0.4 * f, m)) if progress else None)
    messages.extend(base.info.get("messages", []))
    info["input_spec"] = base.spec
    Z = np.asarray(base.X, dtype=np.float32)
    y = dataset.y.astype(str)
    n = len(y)

    fraction = opts["fraction"]
    counts = pd.Series(y).value_counts()
    if counts.min() < 2:
        raise InputError(f"class {counts.idxmin()!r} has a single example, so no stratified warm-up split exists; "
                         "drop it or use another representation.")
    n_warm = fraction if isinstance(fraction, int) else int(round(fraction * n))
    if n_warm < len(counts) or n - n_warm < len(counts):
        raise InputError(f"warmup:fraction={fraction} gives {n_warm} warm-up examples of {n}; each side needs at least "
                         f"one example per class ({len(counts)} classes). Choose a fraction between "
                         f"{len(counts) / n:.3f} and {1 - len(counts) / n:.3f}.")
    idx = np.arange(n)
    warm, rest = train_test_split(idx, train_size=n_warm, stratify=y, random_state=opts["seed"])
    warm, rest = np.sort(warm), np.sort(rest)
    check_cancel(cancel)

    report(progress, 0.45, f"training the warm-up extractor on {len(warm)} examples")
    scaler = StandardScaler().fit(Z[warm])
    Zs = scaler.transform(Z).astype(np.float32)
    hidden = tuple(int(h) for h in opts["hidden"].split("-"))
    mlp = MLPClassifier(hidden_layer_sizes=hidden, alpha=1e-3, max_iter=300, early_stopping=False,
                        random_state=opts["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp.fit(Zs[warm], y[warm])
    check_cancel(cancel)
    info["warmup_size"] = int(len(warm))
    info["warmup_train_accuracy"] = round(float(mlp.score(Zs[warm], y[warm])), 4)

    report(progress, 0.9, "last hidden layer")
    H = Zs[rest]
    for W, b in zip(mlp.coefs_[:-1], mlp.intercepts_[:-1]):
        H = np.maximum(H @ W.astype(np.float32) + b.astype(np.float32), 0.0)  # MLPClassifier's ReLU layers
    dead = int((H.max(axis=0) <= 0).sum()) if len(H) else 0
    if dead:
        messages.append(f"{dead} of {H.shape[1]} hidden units are zero on every example (dead ReLUs); they are kept as "
                        "constant columns.")
    messages.append(f"{len(warm)} warm-up examples trained the extractor and are excluded from Φ and everything downstream.")
    return H, dataset.ids[warm]
