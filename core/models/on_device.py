"""The evaluation's linear families on a device (issue 32), trained where the data is:

- ``logistic``: the model scikit-learn's ``LogisticRegression`` fits (L2, C = 1, an unpenalised
  intercept; softmax for three or more labels, one sigmoid for two), by scikit-learn's own
  solver: L-BFGS-B (`scipy.optimize.minimize`) with its options (``gtol`` = tol, ``maxls`` = 50,
  ``ftol`` = 64 ε) and its scaling of the objective (the mean loss plus ½ ‖W‖² / (C n));
- ``svm``: the model ``LinearSVC`` fits (liblinear: the squared hinge, L2 on the weights and on
  the intercept, which is a feature of value 1; one against the rest for three or more labels,
  one model for two). liblinear solves its dual; here the same primal optimum is reached by
  L-BFGS-B, to a tighter tolerance.

Only the objective and its gradient are computed on the device, against the Python array API
(`core.base.devices`); the optimiser's state, (d + 1) · k numbers, stays on the host. The optimum
is scikit-learn's, so the predictions are too, bar examples at the decision boundary within the
solvers' tolerances (`tests/unit/test_evaluation_device.py` measures the agreement).
"""
from __future__ import annotations

import numpy as np

from ..base.devices import arrays_on, to_host

__all__ = ["LINEAR_DEFAULTS", "logistic", "logistic_proba", "squared_hinge"]

#: the parameters the device versions take, with scikit-learn's defaults (a fit given any other
#: parameter stays on the CPU)
LINEAR_DEFAULTS = {"C": 1.0, "max_iter": 1000, "tol": 1e-4}


def _minimize(loss_and_grad, size: int, tol: float, max_iter: int):
    from scipy.optimize import minimize

    return minimize(loss_and_grad, np.zeros(size), method="L-BFGS-B", jac=True,
                    options={"maxiter": max_iter, "maxls": 50, "gtol": tol, "ftol": 64 * np.finfo(float).eps})


def _scores(Xte, found, k: int) -> np.ndarray:
    """(len(Xte), k) decision values of the solver's result: k columns [w, b]."""
    W = found.x.reshape(k, -1)
    return np.asarray(Xte, dtype=np.float64) @ W[:, :-1].T + W[:, -1]


def _predicted(Xte, found, k: int, max_iter: int):
    """(codes of Xte, converged) from the solver's result (one column: the sign picks)."""
    scores = _scores(Xte, found, k)
    pred = (scores[:, 0] > 0).astype(np.int64) if k == 1 else scores.argmax(axis=1)
    return pred, bool(found.nit < max_iter)


def logistic(device, Xtr, codes, Xte, n_classes, *, C, tol, max_iter):
    """(predicted codes of Xte, converged): the logistic family fitted on (Xtr, codes) on ``device``."""
    found, k = _logistic_fit(device, Xtr, codes, n_classes, float(C), float(tol), int(max_iter))
    return _predicted(Xte, found, k, int(max_iter))


def logistic_proba(device, Xtr, codes, Xte, n_classes, *, C, tol, max_iter):
    """(probabilities of each class for Xte, (len(Xte), n_classes), converged): what
    ``predict_proba`` of the logistic family fitted on (Xtr, codes) on ``device`` gives (PVI reads them)."""
    found, k = _logistic_fit(device, Xtr, codes, n_classes, float(C), float(tol), int(max_iter))
    z = _scores(Xte, found, k)
    if k == 1:
        p = 1.0 / (1.0 + np.exp(-z[:, 0]))
        return np.column_stack([1.0 - p, p]), bool(found.nit < int(max_iter))
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True), bool(found.nit < int(max_iter))


def _logistic_fit(device, Xtr, codes, n_classes, C, tol, max_iter):
    """(the solver's result, k): k weight columns [w, b], one for two labels."""
    xp, put = arrays_on(device)
    n, d = Xtr.shape
    X = put(np.ascontiguousarray(Xtr, dtype=np.float32))
    binary = n_classes == 2
    k = 1 if binary else n_classes
    target = put((codes == 1).astype(np.float32)[:, None] if binary
                 else np.eye(n_classes, dtype=np.float32)[codes])
    strength = 1.0 / (C * n)

    def loss_and_grad(w):
        W = w.reshape(k, d + 1)
        coef = put(np.ascontiguousarray(W[:, :d].T, dtype=np.float32))          # (d, k)
        bias = put(W[:, d].astype(np.float32))
        z = X @ coef + bias                                                     # (n, k)
        if binary:   # log(1 + e^z) − y z, and its derivative σ(z) − y, both stable for large |z|
            pointwise = xp.sum(xp.maximum(z, xp.zeros_like(z)) + xp.log1p(xp.exp(-xp.abs(z))) - target * z)
            residual = 1.0 / (1.0 + xp.exp(-z)) - target
        else:        # log Σ e^z − z_y, and softmax(z) − y
            top = xp.max(z, axis=1, keepdims=True)
            e = xp.exp(z - top)
            total = xp.sum(e, axis=1, keepdims=True)
            pointwise = xp.sum(xp.log(total) + top) - xp.sum(target * z)
            residual = e / total - target
        grad = np.empty((k, d + 1))
        grad[:, :d] = to_host(xp.matrix_transpose(X) @ residual).T.astype(np.float64) / n
        grad[:, d] = to_host(xp.sum(residual, axis=0)).astype(np.float64) / n
        grad[:, :d] += strength * W[:, :d]
        loss = float(pointwise) / n + 0.5 * strength * float(np.sum(W[:, :d] ** 2))
        return loss, grad.ravel()

    return _minimize(loss_and_grad, k * (d + 1), tol, max_iter), k


def squared_hinge(device, Xtr, codes, Xte, n_classes, *, C, tol, max_iter):
    """(predicted codes of Xte, converged): the linear SVM family fitted on (Xtr, codes) on ``device``."""
    C, tol, max_iter = float(C), float(tol), int(max_iter)
    """liblinear's L2-regularised squared hinge, ½‖w̃‖² + C Σ max(0, 1 − s wᵀx̃)², x̃ = [x, 1], one
    column per class against the rest (one for two labels), all columns at once (their sum's
    optimum is each one's). Divided by n for the solver (the optimum does not move), and solved
    to tol / 100: liblinear's dual tolerance is not the primal's."""
    xp, put = arrays_on(device)
    n, d = Xtr.shape
    Xa = np.empty((n, d + 1), dtype=np.float32)              # x̃ = [x, 1], float32 (no float64 copy of Φ)
    Xa[:, :d] = Xtr
    Xa[:, d] = 1.0
    X = put(Xa)
    k = 1 if n_classes == 2 else n_classes
    signs = np.where(codes[:, None] == (np.array([1]) if k == 1 else np.arange(k))[None, :], 1.0, -1.0)
    S = put(signs.astype(np.float32))                                           # (n, k)

    def loss_and_grad(w):
        W = w.reshape(k, d + 1)
        margin = 1.0 - S * (X @ put(np.ascontiguousarray(W.T, dtype=np.float32)))
        slack = xp.maximum(margin, xp.zeros_like(margin))
        grad = W - (2.0 * C) * to_host(xp.matrix_transpose(S * slack) @ X).astype(np.float64)
        loss = 0.5 * float(np.sum(W ** 2)) + C * float(xp.sum(slack * slack))
        return loss / n, grad.ravel() / n

    return _predicted(Xte, _minimize(loss_and_grad, k * (d + 1), tol / 100, max_iter), k, max_iter)
