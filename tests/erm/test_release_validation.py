"""The public ERM releases on prepared rows validate what their guarantee assumes.

``release_output_perturbation``, ``release_objective_perturbation`` and their
zCDP counterparts take rows already mapped into the unit ball and labels
+-1.0. They are public, so they refuse rows outside the ball (decided in exact
arithmetic), labels other than +-1.0, mismatched lengths, NaN parameters and
budgets less safe than the analysis gives, instead of stamping the requested
epsilon (or rho) on a release that does not have it.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from refdp.erm import (HuberHingeLoss, LogisticLoss, objective_perturbation, objective_perturbation_budget,
                       objective_perturbation_zcdp_budget, output_perturbation,
                       release_objective_perturbation, release_objective_perturbation_zcdp,
                       release_output_perturbation, release_output_perturbation_zcdp)

Z = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
YS = np.array([1.0, -1.0, 1.0, -1.0])
LOSS = LogisticLoss()


def _output(**kw):
    args = dict(Z=Z, ys=YS, loss=LOSS, epsilon=1.0, regularization=0.5, tol=1e-8, rng=0)
    args.update(kw)
    return release_output_perturbation(**args)


def _output_zcdp(**kw):
    args = dict(Z=Z, ys=YS, loss=LOSS, rho=0.5, regularization=0.5, tol=1e-8, rng=0)
    args.update(kw)
    return release_output_perturbation_zcdp(**args)


def _objective(**kw):
    args = dict(Z=Z, ys=YS, loss=LOSS, regularization=0.5,
                budget=objective_perturbation_budget(1.0, LOSS.curvature, 4, 0.5), rng=0)
    args.update(kw)
    return release_objective_perturbation(**args)


def _objective_zcdp(**kw):
    args = dict(Z=Z, ys=YS, loss=LOSS, regularization=0.5,
                budget=objective_perturbation_zcdp_budget(0.5, LOSS.curvature, 4, 0.5), rng=0)
    args.update(kw)
    return release_objective_perturbation_zcdp(**args)


RELEASES = [_output, _output_zcdp, _objective, _objective_zcdp]
IDS = ["output", "output_zcdp", "objective", "objective_zcdp"]


@pytest.mark.parametrize("release", RELEASES, ids=IDS)
def test_valid_prepared_rows_are_released(release):
    res = release()
    assert res.theta.shape == (2,) and np.all(np.isfinite(res.theta))
    assert (res.epsilon == 1.0) if res.privacy == "pure" else (res.rho == 0.5)


@pytest.mark.parametrize("release", RELEASES, ids=IDS)
def test_rows_outside_the_unit_ball_are_refused(release):
    far = Z.copy()
    far[2] = [134.0, 0.0]
    with pytest.raises(ValueError, match=r"'Z' parameter of release_.*norm at most 1.*a row of norm 134\.0 "
                                         r"at position 2"):
        release(Z=far)


@pytest.mark.parametrize("release", RELEASES, ids=IDS)
def test_a_row_whose_float_norm_is_one_but_exact_norm_exceeds_it_is_refused(release):
    # the doubles 0.6 and 0.8 square to more than 1 in exact arithmetic
    # although numpy's norm rounds to 1.0; accepting the row would break ||x|| <= 1
    row = np.array([0.6, 0.8])
    assert float(np.linalg.norm(row)) == 1.0
    assert Fraction(0.6) ** 2 + Fraction(0.8) ** 2 > 1
    bad = Z.copy()
    bad[0] = row
    with pytest.raises(ValueError, match=r"'Z' parameter.*above 1 in exact arithmetic\) at position 0"):
        release(Z=bad)
    inside = Z.copy()
    inside[0] = [0.6, 0.7999999999999999]           # exact norm below 1: accepted
    assert Fraction(0.6) ** 2 + Fraction(0.7999999999999999) ** 2 <= 1
    release(Z=inside)


@pytest.mark.parametrize("release", RELEASES, ids=IDS)
@pytest.mark.parametrize("name, value", [
    ("norm_bound", math.nan), ("norm_bound", -1.0), ("regularization", math.nan), ("regularization", 0.0),
    ("tol", math.nan), ("clip", "no"), ("secure", 1), ("rng", -3), ("loss", "logistic"),
    ("ys", np.array([1.0, 0.0, 1.0, -1.0])), ("ys", np.array([1.0, -1.0, 1.0])),
    ("ys", np.array([1.0, np.nan, 1.0, -1.0])), ("Z", np.array([[np.nan, 0.0]] * 4)), ("Z", np.zeros((0, 2))),
])
def test_bad_parameters_name_themselves(release, name, value):
    with pytest.raises(ValueError, match=f"'{name}' parameter of release_"):
        release(**{name: value})


def test_privacy_parameters_are_validated():
    for bad in (math.nan, -1.0, 0.0, math.inf):
        with pytest.raises(ValueError, match="'epsilon' parameter of release_output_perturbation"):
            _output(epsilon=bad)
        with pytest.raises(ValueError, match="'rho' parameter of release_output_perturbation_zcdp"):
            _output_zcdp(rho=bad)


def test_objective_budget_must_fit_the_data_and_the_regularization():
    good = objective_perturbation_budget(1.0, LOSS.curvature, 4, 0.5)
    # computed for another n, another Lambda or another loss: less noise or regularization than needed
    for other in (objective_perturbation_budget(1.0, LOSS.curvature, 400, 0.5),
                  objective_perturbation_budget(1.0, LOSS.curvature, 4, 50.0),
                  good._replace(noise_rate=good.noise_rate * 1.1),
                  good._replace(epsilon=math.nan), good._replace(epsilon=-1.0)):
        with pytest.raises(ValueError, match="'budget' parameter of release_objective_perturbation"):
            _objective(budget=other)
    with pytest.raises(ValueError, match="'budget' parameter"):     # computed for a flatter loss
        _objective(budget=good, loss=HuberHingeLoss(0.01))
    with pytest.raises(ValueError, match="'budget' parameter of release_objective_perturbation"):
        _objective(budget=(1.0, 0.5, 0.0, 0.25, 0.5, True))            # a plain tuple is not a budget
    # the paper's (more conservative) budget, more noise, more regularization: all keep epsilon
    paper = objective_perturbation_budget(1.0, LOSS.curvature, 4, 0.5, improved=False)
    for safer in (paper, good._replace(noise_rate=good.noise_rate / 2),
                  good._replace(total_regularization=1.0)):
        assert _objective(budget=safer).epsilon == 1.0


def test_objective_zcdp_budget_must_fit_the_data_and_the_regularization():
    good = objective_perturbation_zcdp_budget(0.5, LOSS.curvature, 4, 0.5)
    for other in (objective_perturbation_zcdp_budget(0.5, LOSS.curvature, 4000, 0.5),
                  good._replace(noise_scale=good.noise_scale * 0.9),
                  good._replace(rho=math.nan), good._replace(rho=math.inf)):
        with pytest.raises(ValueError, match="'budget' parameter of release_objective_perturbation_zcdp"):
            _objective_zcdp(budget=other)
    assert _objective_zcdp(budget=good._replace(noise_scale=good.noise_scale * 2)).rho == 0.5


def test_the_public_entry_points_validate_once_and_release_the_same_point():
    """output_perturbation = prepared rows + release_output_perturbation, bit for bit."""
    X = Z * 3.0
    y = np.array([1, 0, 1, 0])
    a = output_perturbation(X, y, LOSS, epsilon=1.0, regularization=0.5, norm_bound=3.0, classes=(0, 1), rng=5)
    from refdp.erm._data import unit_ball_rows
    b = release_output_perturbation(unit_ball_rows(X, "t", norm_bound=3.0), YS, LOSS, 1.0, 0.5, tol=1e-8,
                                    rng=5, norm_bound=3.0)
    assert np.array_equal(a.theta, b.theta)
    c = objective_perturbation(X, y, LOSS, epsilon=1.0, regularization=0.5, norm_bound=3.0, classes=(0, 1),
                               rng=5)
    d = release_objective_perturbation(unit_ball_rows(X, "t", norm_bound=3.0), YS, LOSS, 0.5,
                                       objective_perturbation_budget(1.0, LOSS.curvature, 4, 0.5), rng=5,
                                       norm_bound=3.0)
    assert np.array_equal(c.theta, d.theta)
