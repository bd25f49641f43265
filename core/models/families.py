"""The model families, one entry each (see `core.models`).

A family is built by ``build(random_state, params, n_train=, d=, scale=)``: ``params`` override its
defaults, ``n_train`` and ``d`` are the training set's rows and dimensions (a family may adapt to
them: k-NN never asks for more neighbours than rows, the RBF-SVM turns approximate on large
sets) and ``scale`` the training matrix's variance (the RBF kernel's width). Adding a family is one
`register` call below (`tests/unit/test_extension_checks.py` checks that every family builds an
estimator that fits and predicts).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..base.errors import InputError
from ..base.registry import Registry
from . import on_device as on_device

__all__ = ["ModelFamily", "OnDevice", "FAMILIES", "register", "family", "names", "table_names", "probabilistic", "title",
           "make_model", "check_families", "KNN_K", "RBF_EXACT_MAX"]

#: neighbours of the k-NN family
KNN_K = 15
#: above this many training examples the RBF-SVM is a Nyström approximation (500 components + linear SVM):
#: an exact kernel SVM costs O(n²) memory and minutes at 16k examples
RBF_EXACT_MAX = 4000


@dataclass(frozen=True)
class OnDevice:
    """A family's version that trains on a device (`core.models.on_device`, issue 32)."""

    defaults: dict   #: the parameters it takes, with their defaults (a fit given any other stays on the CPU)
    #: ``fit(device, Xtr, codes, Xte, n_classes, **knobs)`` -> (predicted codes of Xte, converged)
    fit: Callable
    #: the same -> (class probabilities of Xte, converged), for a family PVI reads; None: none
    proba: Optional[Callable] = None


@dataclass(frozen=True)
class ModelFamily:
    name: str                  #: ``--families``' word and the tables' ``family`` column, e.g. ``"logistic"``
    title: str                 #: what a person reads, e.g. ``"logistic regression"``
    #: ``build(random_state, params, n_train=, d=, scale=)`` -> an unfitted scikit-learn estimator
    build: Callable
    table: bool = True         #: trained by default in the families table (paper 000 Table 3)
    probabilities: bool = False  #: gives calibrated-enough ``predict_proba`` for PVI (V-usable information)
    device: Optional[OnDevice] = None   #: its version that trains on a device; None: the CPU only
    slow: int = 0              #: how long a fit takes, relatively (the slow ones start first on the threads)


#: name -> family, in the order the CLI and the page list them
FAMILIES = Registry("model family")


def register(fam: ModelFamily) -> ModelFamily:
    """Add ``fam`` (a name taken twice is a mistake in the code, said at import)."""
    return FAMILIES.add(fam.name, fam)


def names() -> tuple:
    return tuple(FAMILIES)


def table_names() -> tuple:
    """The families the evaluation trains unless told otherwise."""
    return tuple(n for n, f in FAMILIES.items() if f.table)


def probabilistic() -> tuple:
    """The families PVI can use."""
    return tuple(n for n, f in FAMILIES.items() if f.probabilities)


def title(name: str) -> str:
    fam = FAMILIES.get(name)
    return fam.title if fam is not None else name


def family(name: str) -> ModelFamily:
    try:
        return FAMILIES[name]
    except KeyError:
        raise InputError(f"unknown model family {name!r}; choose from {', '.join(FAMILIES)}.") from None


def make_model(name: str, random_state: int, params: Optional[dict] = None, *, n_train: int = 0, d: int = 0,
               scale: float = 1.0):
    """An unfitted model of family ``name`` with ``params`` over the family's defaults."""
    return family(name).build(int(random_state), dict(params or {}), n_train=n_train, d=d, scale=scale)


def check_families(chosen) -> list:
    """``chosen`` as a list, every name a registered family and at least one (else InputError)."""
    chosen = list(chosen)
    for name in chosen:
        family(name)
    if not chosen:
        raise InputError("no model family chosen; choose one or more of " + ", ".join(table_names()) + ".")
    return chosen


# ---------------------------------------------------------------------------------------- the built-ins
def _logistic(random_state, params, **_):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(**{"max_iter": 1000, "random_state": random_state, **params})


def _linear_svm(random_state, params, **_):
    from sklearn.svm import LinearSVC

    return LinearSVC(**{"random_state": random_state, **params})


def _ridge(random_state, params, **_):
    from sklearn.linear_model import RidgeClassifier

    return RidgeClassifier(**params)


def _knn(random_state, params, *, n_train=0, **_):
    from sklearn.neighbors import KNeighborsClassifier

    # never more neighbours than training rows (a 9-row file's folds train on 7)
    return KNeighborsClassifier(**{"n_neighbors": min(KNN_K, n_train) if n_train > 0 else KNN_K, **params})


def _rbf_svm(random_state, params, *, n_train=0, d=0, scale=1.0):
    from sklearn.svm import SVC, LinearSVC

    if n_train > RBF_EXACT_MAX:
        from sklearn.kernel_approximation import Nystroem
        from sklearn.pipeline import make_pipeline

        gamma = 1.0 / max(d * scale, 1e-12)   # SVC's gamma="scale"
        return make_pipeline(Nystroem(gamma=gamma, n_components=500, random_state=random_state),
                             LinearSVC(**{"random_state": random_state, **params}))
    return SVC(**{"kernel": "rbf", "gamma": "scale", **params})


def _mlp(random_state, params, *, n_train=0, **_):
    from sklearn.neural_network import MLPClassifier

    # early stopping (10 % validation) only where 10 % is a usable validation set
    return MLPClassifier(**{"hidden_layer_sizes": (64,), "max_iter": 300, "early_stopping": n_train >= 2000,
                            "random_state": random_state, **params})


# in this order: the evaluation's default families (and so its stored keys) are the table's, in order
register(ModelFamily("logistic", "logistic regression", _logistic, probabilities=True,
                     device=OnDevice(on_device.LINEAR_DEFAULTS, on_device.logistic, on_device.logistic_proba), slow=1))
register(ModelFamily("svm", "linear SVM", _linear_svm, device=OnDevice(on_device.LINEAR_DEFAULTS,
                                                                        on_device.squared_hinge), slow=1))
register(ModelFamily("ridge", "ridge classifier", _ridge, table=False))
register(ModelFamily("rbf-svm", "RBF-SVM", _rbf_svm, slow=2))
register(ModelFamily("knn", "k-nearest neighbours", _knn, probabilities=True))
register(ModelFamily("mlp", "MLP (one hidden layer of 64)", _mlp, probabilities=True, slow=2))
