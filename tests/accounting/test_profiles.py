"""Certified privacy profiles (refdp.accounting.profiles) and the fast optimal composition."""
import math
import re
import time

import pytest
from scipy.stats import norm

from refdp.accounting import optimal_composition_delta, optimal_composition_epsilon
from refdp.accounting.profiles import (DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace,
                                       RandomizedResponse, privacy_profile_delta,
                                       privacy_profile_epsilon)

P = "The '{}' parameter of {} must be"


def _gauss_delta(mu, eps):
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("eps0, k", [(0.1, 100), (0.5, 20), (1.0, 3)])
def test_rr_enclosure_contains_optimal_composition(eps0, k):
    for et in (0.0, 0.3, 2.0):
        enc = privacy_profile_delta([(RandomizedResponse(eps0), k)], et)
        exact = optimal_composition_delta(eps0, k, et)
        assert enc.lower <= exact * (1 + 1e-12) and exact <= enc.upper
    enc = privacy_profile_epsilon([(RandomizedResponse(eps0), k)], 1e-5)
    assert enc.lower <= optimal_composition_epsilon(eps0, k, 1e-5) <= enc.upper


@pytest.mark.parametrize("sigma, k", [(1.0, 1), (10.0, 100), (2.0, 10), (0.5, 4)])
def test_gaussian_enclosure_contains_balle_wang(sigma, k):
    mu = math.sqrt(k) / sigma
    for eps in (0.0, 0.5, 1.0, 3.0):
        enc = privacy_profile_delta([(Gaussian(sigma), k)], eps)
        exact = _gauss_delta(mu, eps)
        assert enc.lower <= exact * (1 + 1e-9) and exact * (1 - 1e-9) <= enc.upper
        assert enc.width <= 0.01 * exact + 1e-12      # reported in the docs


def test_heterogeneous_gaussians_compose_exactly():
    a = privacy_profile_delta([Gaussian(1.0, 2.0), (Gaussian(2.0), 4)], 1.0)
    # mu^2 = (2/1)^2 + 4 (1/2)^2 = 5 (Dong, Roth and Su 2022, Cor. 3.3)
    exact = _gauss_delta(math.sqrt(5.0), 1.0)
    assert a.lower <= exact <= a.upper


def test_laplace_matches_pure_dp_and_orders():
    # one Laplace(b) is (1/b)-DP: delta(1/b) = 0
    assert privacy_profile_delta([Laplace(2.0)], 0.5 + 2e-3).upper == 0.0
    # k-fold Laplace is dominated by k-fold RR at the same epsilon
    lap = privacy_profile_delta([(Laplace(10.0), 50)], 1.0)
    rr = optimal_composition_delta(0.1, 50, 1.0)
    assert lap.lower <= rr
    # discrete Laplace with scale t and sensitivity 1 is (1/t)-DP, like Laplace
    dl = privacy_profile_delta([(DiscreteLaplace(10.0), 50)], 1.0)
    assert dl.lower <= rr


def test_discrete_gaussian_close_to_gaussian():
    dg = privacy_profile_delta([(DiscreteGaussian(3.0), 2)], 0.5)
    g = _gauss_delta(math.sqrt(2) / 3.0, 0.5)
    assert abs(dg.upper - g) < 0.01 and dg.lower <= dg.upper


def test_epsilon_enclosure_is_ordered_and_consistent():
    mech = [(Laplace(5.0), 20), (Gaussian(4.0), 10), RandomizedResponse(0.3)]
    enc = privacy_profile_epsilon(mech, 1e-6)
    assert 0 < enc.lower <= enc.upper
    # the two calls tilt their FFT steps from different targets (privacy_profile_epsilon's
    # docstring), so their certified bounds agree in all but the last digits: 1e-9 relative
    # here, far inside the enclosure's width
    at_upper = privacy_profile_delta(mech, enc.upper)
    assert at_upper.lower <= 1e-6 and at_upper.upper <= 1e-6 * (1 + 1e-9)
    at_lower = privacy_profile_delta(mech, enc.lower)
    assert at_lower.upper > 1e-6 and at_lower.lower > 1e-6 * (1 - 1e-9)


@pytest.mark.parametrize("func, kwargs, name, bad", [
    (privacy_profile_delta, dict(mechanisms=[Laplace(1.0)], epsilon=1.0), "epsilon", [-1.0, math.nan]),
    (privacy_profile_delta, dict(mechanisms=[Laplace(1.0)], epsilon=1.0), "grid_step", [0.0, 2.0]),
    (privacy_profile_delta, dict(mechanisms=[Laplace(1.0)], epsilon=1.0), "mechanisms", [[], [3], 5]),
    (privacy_profile_epsilon, dict(mechanisms=[Laplace(1.0)], delta=1e-5), "delta",
     [0.0, 1.0, -1e-5, math.nan]),
    # a pair's count is part of the 'mechanisms' argument, which the error names
    (privacy_profile_epsilon, dict(mechanisms=[(Laplace(1.0), 0)], delta=1e-5), "mechanisms", [None]),
])
def test_invalid_arguments(func, kwargs, name, bad):
    for value in bad:
        kw = dict(kwargs)
        if value is not None:
            kw[name] = value
        with pytest.raises(ValueError, match=re.escape(P.format(name, func.__name__))):
            func(**kw)


@pytest.mark.parametrize("cls, field, bad", [
    (Gaussian, "sigma", [0.0, -1.0, math.inf, math.nan]), (Laplace, "scale", [0.0, math.inf]),
    (RandomizedResponse, "epsilon", [0.0, -1.0, math.inf]), (DiscreteGaussian, "sensitivity", [0, 1.5]),
    (DiscreteLaplace, "sensitivity", [0, 2.5])])
def test_invalid_mechanism_parameters(cls, field, bad):
    for value in bad:
        kw = {"sigma": 1.0} if cls in (Gaussian, DiscreteGaussian) else (
            {"epsilon": 1.0} if cls is RandomizedResponse else {"scale": 1.0})
        kw[field] = value
        with pytest.raises(ValueError, match=re.escape(P.format(field, cls.__name__))):
            cls(**kw)


def test_optimal_composition_rejects_bad_k_and_delta():
    for k in (0, -3, 2.5, math.nan):
        with pytest.raises(ValueError, match=re.escape(P.format("k", "optimal_composition_epsilon"))):
            optimal_composition_epsilon(0.1, k, 1e-5)
    for d in (1.0, -1e-9, math.nan):
        with pytest.raises(ValueError, match=re.escape(P.format("delta", "optimal_composition_epsilon"))):
            optimal_composition_epsilon(0.1, 10, d)


def test_optimal_composition_at_a_million_is_fast_and_below_bounds():
    t0 = time.perf_counter()
    got = optimal_composition_epsilon(0.01, 10**6, 1e-6)
    assert time.perf_counter() - t0 < 2.0
    # validity at a million: delta(got) <= 1e-6 and a relative 1e-12 less exceeds it
    assert optimal_composition_delta(0.01, 10**6, got) <= 1e-6
    assert optimal_composition_delta(0.01, 10**6, got * (1 - 1e-12)) > 1e-6
    # below the zCDP bound k eps^2/2 + eps sqrt(2 k ln(1/delta))
    assert got < 1e6 * 1e-4 / 2 + 0.01 * math.sqrt(2e6 * math.log(1e6))
