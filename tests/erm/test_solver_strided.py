"""The large-n solver path (strided Newton matrix) keeps the certificate of the exact path."""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

import refdp.utils.solver as solver
from proofs_checks.common.chaudhuri_erm import gradient_norm_upper
from refdp.erm import HuberHingeLoss, LogisticLoss


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= 1.01 * np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberHingeLoss(0.5)], ids=repr)
@pytest.mark.parametrize("mu", [1e-3, 0.3])
def test_strided_path_is_certified_exactly(monkeypatch, loss, mu):
    X, y = _data(300, 3, 1)
    g = np.array([0.01, -0.02, 0.005])
    exact_path = solver.minimise(loss, X, y, mu, g, tol=1e-8)
    monkeypatch.setattr(solver, "HESSIAN_ROWS", 40)          # stride 8 on 300 rows
    res = solver.minimise(loss, X, y, mu, g, tol=1e-8)
    data = [(tuple(F(float(v)) for v in x), F(int(t))) for x, t in zip(X, y)]
    assert gradient_norm_upper(loss, data, F(mu), res.theta, [F(float(v)) for v in g]) <= F(1e-8)
    assert np.linalg.norm(res.theta - exact_path.theta) <= 2e-8 / mu


def test_large_n_takes_the_strided_path_and_agrees():
    X, y = _data(solver.HESSIAN_ROWS + 1000, 4, 2)
    res = solver.minimise(LogisticLoss(), X, y, 0.01, tol=1e-8)
    grad = solver.gradient(LogisticLoss(), X, y, 0.01, np.zeros(4), res.theta)
    assert np.linalg.norm(grad) + solver.rounding_bound(LogisticLoss(), len(y), 4, 0.01, np.zeros(4),
                                                        res.theta) <= 1e-8
