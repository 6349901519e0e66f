"""Regularisations near the largest double: finite matrices and intervals, no overflow on the way.

Before: ``private_hessian(regularization=1e308)`` returned a matrix of infinities
((A + A^T) / 2 overflowed) and ``private_confidence_intervals`` formed
``mu**2 * theta theta^T = inf * 0``.
"""
import warnings

import numpy as np

from refdp.erm import private_confidence_intervals, private_hessian
from refdp.erm.private_matrices import symmetric_part
from refdp.utils.losses import LogisticLoss


def _data(n=40):
    t = np.linspace(-1.0, 1.0, n)
    X = 0.6 * np.column_stack([t, np.cos(3.0 * t)])
    y = np.where(t + 0.1 * np.sin(7.0 * t) > 0, 1, -1)
    return X, y


def test_symmetric_part_is_the_plain_formula_in_range_and_finite_at_the_top():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 5))
    assert np.array_equal(symmetric_part(A), (A + A.T) / 2.0)
    big = np.array([[1.5e308, 1e308], [1e308, 1.7e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S = symmetric_part(big)
    assert np.all(np.isfinite(S)) and np.array_equal(S, big)


def test_huge_regularisation_gives_finite_releases_without_warnings():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        H = private_hessian(X, y, LogisticLoss(), np.zeros(2), 1e308, epsilon=1.0, rng=0)
        ci = private_confidence_intervals(X, y, LogisticLoss(), regularization=1e308, epsilon=3.0, rng=0)
    assert np.all(np.isfinite(H.matrix)) and np.all(np.diag(H.matrix) >= 1e308)
    assert np.all(np.isfinite(ci.lower)) and np.all(np.isfinite(ci.upper))
