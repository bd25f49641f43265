"""The joint filter (issue 23): AFLite and training dynamics together.

AFLite removes what Φ predicts; it cannot tell an example that is merely easy from one that is
ambiguous or wrongly labelled, and removing the last two hides them from the curator. The joint
filter asks dataset cartography (`core.dynamics.cartography`, Swayamdipta et al. 2020) and confident
learning (cleanlab) first, on the same Φ, and then:

- **removes** (AFLite's rule, unchanged: the most predictable among p̃ ≥ τ, k per phase, until
  fewer than k pass τ or n remain) only examples that are *easy-to-learn* and not flagged by
  cleanlab;
- **protects** the *ambiguous* ones (the paper's most useful for training): never removed;
- **protects and sends to review** the *hard-to-learn* ones and those cleanlab flags — "possibly
  mislabelled": never removed by the filter, served first in the review queue, listed in the
  manifest.

Protected examples stay in every S_j and are scored; they never count as passing τ
(`core.aflite.selection.passing`), so the removal order among the others still does not depend
on τ or n and the live τ/n answers stay exact (the trajectory records the mask).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .cartography import MODELS, scored_labels, training_dynamics
from ..base.errors import InputError

__all__ = ["JointInputs", "descriptor", "key_part", "joint_inputs", "joint_for", "RULE", "EPOCHS", "FOLDS"]

#: what the joint filter does with each kind of example, as recorded in manifests
RULE = {"remove": "predictable (AFLite) and easy-to-learn, not flagged by cleanlab",
        "protect": "ambiguous",
        "review": "hard-to-learn or flagged by cleanlab (possibly mislabelled): kept, served first for review"}
EPOCHS, FOLDS = 10, 5


def descriptor(*, model: str = "linear", epochs: int = EPOCHS, folds: int = FOLDS, random_state: int = 0) -> dict:
    """What a joint run records as `core.results.runs.Run.joint` and puts in its key: the rule and the
    knobs the cartography depends on (Φ and the data are in the key already)."""
    if model not in MODELS:
        raise InputError(f"the joint filter's model {model!r} is unknown; choose one of {', '.join(MODELS)}.")
    for name, value, lo in (("epochs", epochs, 2), ("folds", folds, 2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= int(value) <= 1000:
            raise InputError(f"the joint filter's {name} must be a whole number from {lo} to 1000, not {value!r} "
                             "(folds ≥ 2: cleanlab needs out-of-sample probabilities).")
    # "source" names the cartography in run keys: it keeps the module's name from before core had
    # packages (core.cartography), so joint runs made then are found again
    return {"source": "core.cartography", "rule": dict(RULE), "model": model, "epochs": int(epochs),
            "folds": int(folds), "random_state": int(random_state)}


def key_part(joint: dict) -> dict:
    """The part of a run's ``joint`` record that names the run (its key): the descriptor without
    what the cartography found."""
    return {k: v for k, v in joint.items() if k != "found"}


@dataclass
class JointInputs:
    """What a joint AFLite fit takes: the ``protected`` rows and the ``mislabelled`` ones among
    them (both (N,) bool, aligned with Φ's ids), the ``descriptor`` and what was ``found``."""

    descriptor: dict
    protected: np.ndarray
    mislabelled: np.ndarray
    found: dict = field(default_factory=dict)

    def record(self) -> dict:
        """`Run.joint`: the descriptor, with the cartography's findings under ``found``."""
        return dict(self.descriptor, found=self.found)


def joint_inputs(X, y, ids, classes, info: dict, *, n_jobs=None, progress=None, cancel=None) -> JointInputs:
    """Cartography of Φ (``X``, labels ``y``, aligned with ``ids``) by ``info`` (a `descriptor`),
    turned into the joint filter's masks; on the CPU, ``n_jobs`` folds at once (the masks do not
    depend on it)."""
    cart = training_dynamics(X, y, ids=ids, classes=classes, epochs=info["epochs"], model=info["model"],
                             folds=info["folds"], random_state=info["random_state"], n_jobs=n_jobs,
                             progress=progress, cancel=cancel)
    t = cart.table
    region = t["region"].to_numpy()
    flagged = t["label_issue"].to_numpy(dtype=bool) if "label_issue" in t else np.zeros(len(t), bool)
    mislabelled = (region == "hard-to-learn") | flagged
    protected = (region != "easy-to-learn") | flagged
    if protected.all():
        raise InputError("the joint filter protects every example (none is easy-to-learn and unflagged on this Φ), "
                         "so nothing could be removed: use plain AFLite, or a representation the cartography model "
                         "can learn from (every text field).")
    regions = pd.Series(region).value_counts()
    found = {"examples": int(len(t)), "accuracy": cart.params["accuracy"], "notes": list(cart.params["notes"]),
             "regions": {r: int(regions.get(r, 0)) for r in ("easy-to-learn", "ambiguous", "hard-to-learn")},
             "label_issues": int(flagged.sum()), "removable": int((~protected).sum()),
             "protected": int(protected.sum()), "possibly_mislabelled": int(mislabelled.sum())}
    return JointInputs(descriptor=dict(info), protected=protected, mislabelled=mislabelled, found=found)


def joint_for(dataset, representation, info: dict, *, n_jobs=None, progress=None, cancel=None):
    """The joint filter's inputs (`joint_inputs`) for the examples Φ represents,
    ``info`` a `descriptor`: what `core.results.runs.fit_run` takes as ``joint``."""
    ids, y = scored_labels(dataset, representation)
    return joint_inputs(np.asarray(representation.X), y, ids, dataset.classes, info, n_jobs=n_jobs,
                        progress=progress, cancel=cancel)
