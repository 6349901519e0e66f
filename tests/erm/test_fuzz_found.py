"""Inputs the generated fuzz of the public API found mishandled in refdp.erm, each now refused or handled.

Before: an OverflowError, a message naming an internal parameter ('beta', 'h',
'budget[0]', 'total'), a NumPy allocation error, a RuntimeError, an infinite
noise rate, or a rate rounded *up* to 5e-324 (less noise than epsilon needs).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from refdp.erm import (LogisticLoss, PrivateHuberSVM, PrivateLogisticRegression,
                       RandomFourierFeatures, confidence_intervals, objective_perturbation,
                       objective_perturbation_budget, objective_perturbation_zcdp_budget, output_perturbation_rate,
                       private_confidence_intervals, release_output_perturbation,
                       release_output_perturbation_zcdp, split_budget)

t = np.linspace(-1.0, 1.0, 16)
X = 0.6 * np.column_stack([t, np.cos(3.0 * t)])
Y = np.where(t + 0.1 * np.sin(7.0 * t) > 0, 1, -1)
LOSS = LogisticLoss()


def _refused(name, call):
    with pytest.raises(ValueError, match=f"The '{name}' parameter of "):
        call()


@pytest.mark.parametrize("name, call", [
    # OverflowError (Lambda + Delta beyond the doubles)
    ("epsilon", lambda: objective_perturbation_budget(5e-324, 0.25, 100, 0.1)),
    ("rho", lambda: objective_perturbation_zcdp_budget(5e-324, 0.25, 100, 0.1)),
    # "The 'beta' parameter of spherical_laplace ..."
    ("epsilon", lambda: release_output_perturbation(X, Y.astype(float), LOSS, 5e-324, 0.1, tol=1e-8, rng=0)),
    # "The 'rho' parameter ..." for a sensitivity 2/(n Lambda) beyond the doubles
    ("regularization", lambda: release_output_perturbation_zcdp(X, Y.astype(float), LOSS, 0.5, 5e-324,
                                                                tol=1e-8, rng=0)),
    # was 5e-324, above the exact rate
    ("epsilon", lambda: output_perturbation_rate(5e-324, 1, 1e-300)),
    # "The 'h' parameter of HuberHingeLoss ..."
    ("huber_width", lambda: PrivateHuberSVM(huber_width=1e308).fit(X, Y)),
    # "The 'total' parameter ..."
    ("epsilon", lambda: private_confidence_intervals(X, Y, LOSS, regularization=0.1, epsilon=5e-324, rng=0)),
    # "The 'budget[0]' parameter ..."
    ("budget", lambda: confidence_intervals(objective_perturbation(X, Y, LOSS, epsilon=1.0, regularization=0.1,
                                                                   rng=0), X, Y, (math.nan, 0.5))),
    # TypeError: len() of unsized object
    ("split", lambda: split_budget(1.0, np.array(0.5))),
    # "Maximum allowed dimension exceeded" (NumPy)
    ("n_samples", lambda: private_confidence_intervals(X, Y, LOSS, regularization=0.1, epsilon=3.0,
                                                       n_samples=10**308, rng=0)),
    # ran for minutes allocating 2 x 5e8 normals
    ("n_components", lambda: RandomFourierFeatures(n_components=2**21).fit(X)),
    # prediction on zero rows, declared invalid, was accepted
    ("X", lambda: PrivateLogisticRegression(rng=0).fit(X, Y).decision_function(np.zeros((0, 2)))),
    ("X", lambda: RandomFourierFeatures(4, rng=0).fit(X).transform(np.zeros((0, 2)))),
])
def test_refused_naming_the_parameter(name, call):
    _refused(name, call)


def test_an_unreachable_solver_tolerance_names_tol():
    with pytest.raises(ValueError, match="The 'tol' parameter of the ERM solver") as info:
        release_output_perturbation_zcdp(X, Y.astype(float), LOSS, 0.5, 0.1, tol=5e-324, rng=0)
    assert isinstance(info.value, RuntimeError)             # what it raised before, kept


def test_rates_beyond_the_doubles_are_rounded_down_not_infinite():
    # Lambda = 1e308 refused with a message naming 'beta'; epsilon = 1e308 built a PrivateMatrix with an
    # infinite noise rate
    res = release_output_perturbation(X, Y.astype(float), LOSS, 1.0, 1e308, tol=1e-8, rng=0)
    assert res.epsilon == 1.0 and res.noise_rate == 1.7976931348623157e308
    ci = private_confidence_intervals(X, Y, LOSS, regularization=0.1, epsilon=1e308, rng=0)
    for m in (ci.hessian, ci.gradient_covariance):
        assert 0 < m.noise_rate < math.inf


@pytest.mark.parametrize("field, value", [("epsilon", math.nan), ("epsilon", -1.0), ("epsilon", math.inf),
                                          ("regularization", 0.0), ("method", "input"), ("rho", math.nan)])
def test_a_release_cannot_be_built_with_a_bad_field(field, value):
    res = objective_perturbation(X, Y, LOSS, epsilon=1.0, regularization=0.1, rng=0)
    with pytest.raises(ValueError, match=f"The '{field}' parameter of PrivateERMResult"):
        dataclasses.replace(res, **{field: value})
