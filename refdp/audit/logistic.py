"""A small ridge-regularised logistic regression, the classifier score of the audit.

DP-Sniper ([BSBV21]_) chooses the event of a black-box audit as the set of
outputs a classifier, trained to tell ``M(D)`` from ``M(D')``, scores above a
threshold. refdp fits the simplest such classifier, a logistic regression,
by Newton's method (iteratively reweighted least squares, [HTF09]_ Sec.
4.4.1) on features built by :mod:`refdp.audit.events`. Any score is
admissible: the bounds are computed on samples the fit never saw, so a poor
fit costs power, never validity.

References
----------
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper:
   Black-Box Discovery of Differential Privacy Violations using Classifiers",
   IEEE S&P 2021.
.. [HTF09] T. Hastie, R. Tibshirani and J. Friedman, "The Elements of
   Statistical Learning", 2nd ed., 2009.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fit_logistic"]


def fit_logistic(features, labels, *, ridge=1e-3, iterations=30, tol=1e-8):
    """Fit ``P[label = 1 | x] = sigmoid(w_0 + x . w)`` by Newton's method.

    Parameters
    ----------
    features : ndarray of shape (n, p)
        Standardised features (no intercept column).
    labels : ndarray of shape (n,)
        0 or 1. The two classes are weighted to equal total weight.
    ridge : float, default 1e-3
        Penalty ``ridge * n * |w|^2 / 2`` on the non-intercept weights.
    iterations : int, default 30
    tol : float, default 1e-8
        Stop when the Newton step is smaller than this (max norm).

    Returns
    -------
    ndarray of shape (p + 1,)
        Intercept first, then the weights.
    """
    x = np.column_stack([np.ones(len(features)), features])
    y = np.asarray(labels, dtype=np.float64)
    n1 = y.sum()
    n0 = len(y) - n1
    sw = np.where(y == 1, 0.5 / max(n1, 1.0), 0.5 / max(n0, 1.0))  # balanced, total weight 1
    penalty = np.full(x.shape[1], ridge)
    penalty[0] = 0.0
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        z = np.clip(x @ w, -35.0, 35.0)
        mu = 1.0 / (1.0 + np.exp(-z))
        grad = x.T @ (sw * (y - mu)) - penalty * w
        hess = (x * (sw * mu * (1.0 - mu))[:, None]).T @ x + np.diag(penalty + 1e-12)
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        w += step
        if not np.all(np.isfinite(w)):
            return np.zeros(x.shape[1])
        if np.max(np.abs(step)) < tol:
            break
    return w
