"""The evaluation's logistic family on a device (issue 32): the model scikit-learn's
``LogisticRegression`` fits (L2, C = 1, an unpenalised intercept; softmax for three or more
labels, one sigmoid for two), trained where the data is.

scikit-learn's own solver is kept: L-BFGS-B (`scipy.optimize.minimize`) with scikit-learn's
options (``gtol`` = tol, ``maxls`` = 50, ``ftol`` = 64 ε) and its scaling of the objective (the
mean loss plus ½ ‖W‖² / (C n)). Only the objective and its gradient are computed on the device,
against the Python array API (`core.base.devices`): the optimiser's state, (d + 1) · k numbers,
stays on the host. The optimum is scikit-learn's, so the predictions are too, bar examples at
the decision boundary within the solver's tolerance (`tests/unit/test_evaluation_device.py`
measures the agreement).
"""
from __future__ import annotations

import numpy as np

from core.base.devices import arrays_on, to_host

__all__ = ["DEVICE_FAMILIES", "fit_predict_on"]

#: the families that train on a device when one is set; the others train on the CPU
DEVICE_FAMILIES = ("logistic",)


def fit_predict_on(device: str, Xtr, codes, Xte, n_classes: int, *, C: float = 1.0, tol: float = 1e-4,
                   max_iter: int = 1000):
    """(predicted codes of Xte, converged): the logistic family fitted on (Xtr, codes) on ``device``."""
    from scipy.optimize import minimize

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

    found = minimize(loss_and_grad, np.zeros(k * (d + 1)), method="L-BFGS-B", jac=True,
                     options={"maxiter": max_iter, "maxls": 50, "gtol": tol, "ftol": 64 * np.finfo(float).eps})
    W = found.x.reshape(k, d + 1)
    scores = np.asarray(Xte, dtype=np.float64) @ W[:, :d].T + W[:, d]
    pred = (scores[:, 0] > 0).astype(np.int64) if binary else scores.argmax(axis=1)
    return pred, bool(found.nit < max_iter)
