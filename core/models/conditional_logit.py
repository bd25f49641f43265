"""The conditional logit (McFadden's model) of multiple-choice items: every option of an item gets a
score w · x(option), one weight vector shared by all positions and items, and the item's options
compete in a softmax. The one implementation: the items' baselines (`core.evaluation.choices`) and
AFLite's ``choice`` family (`core.aflite.items`) fit it."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["L2", "choice_probabilities", "fit_conditional_logit"]

#: the L2 penalty on the weights (on the summed log-likelihood). Chosen on BBQ nationality and
#: demo:choices: at 1 the options-only model is right as often but overconfident (−0.06 bits on
#: BBQ, where a calibrated one has about +0.085: the 'unknown' option at 1/2, the others at 1/4);
#: at 30, +0.05 bits with the same accuracy, and the demo's planted cues read as strongly.
L2 = 30.0


def choice_probabilities(X, starts: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each option's probability within its item: a softmax of ``X @ w`` over each item's rows
    (items contiguous, item i's rows from ``starts[i]``)."""
    s = np.asarray(X @ w, dtype=np.float64).ravel()
    top = np.maximum.reduceat(s, starts)
    sizes = np.diff(np.append(starts, len(s)))
    e = np.exp(s - np.repeat(top, sizes))
    return e / np.repeat(np.add.reduceat(e, starts), sizes)


def fit_conditional_logit(X, starts: np.ndarray, gold_rows: np.ndarray, l2: float = L2) -> np.ndarray:
    """The weights of a conditional logit (module docstring) by L-BFGS on the penalised negative
    log-likelihood: ``X`` one row per option (items contiguous from ``starts``), ``gold_rows`` the
    row of each item's gold option."""
    from scipy.optimize import minimize

    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    Y = np.zeros(X.shape[0])
    Y[gold_rows] = 1.0

    def loss(w):
        p = choice_probabilities(X, starts, w)
        value = -np.sum(np.log(np.maximum(p[gold_rows], 1e-300))) + 0.5 * l2 * float(w @ w)
        return value, np.asarray(X.T @ (p - Y)).ravel() + l2 * w

    found = minimize(loss, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 300})
    return found.x
