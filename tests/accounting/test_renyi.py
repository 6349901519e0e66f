"""Exact Rényi divergences (refdp.accounting.renyi) against quadrature, lattice sums and closed forms."""
import math
import re

import pytest

from refdp.utils.precision import mp_context
from refdp.accounting import (DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace,
                              RandomizedResponse, optimal_composition_epsilon,
                              privacy_profile_epsilon, rdp_to_dp, renyi_delta,
                              RenyiConversion, renyi_divergence, renyi_epsilon)

ORDERS = [1.001, 1.3, 2.0, 2.75, 7.0, 64.5]


def _contains(enc, exact, rel=1e-13):
    # the reference is itself computed at 50 digits: allow its own error only
    slack = rel * abs(exact) + 1e-300
    return enc.lower - slack <= exact <= enc.upper + slack and enc.width <= 4e-15 * max(1, abs(exact))


@pytest.mark.parametrize("scale, sens", [(1.0, 1.0), (2.0, 3.0), (0.5, 0.25)])
@pytest.mark.parametrize("alpha", [1.3, 2.0, 2.75, 7.0])
def test_laplace_against_quadrature(scale, sens, alpha):
    mp = mp_context(50)
    b, d, a = mp.mpf(scale), mp.mpf(sens), mp.mpf(alpha)

    def f(x):
        p = mp.exp(-abs(x) / b) / (2 * b)
        q = mp.exp(-abs(x - d) / b) / (2 * b)
        return p ** a * q ** (1 - a)

    s = mp.quad(f, [-mp.inf, 0, d, mp.inf])
    exact = float(mp.log(s) / (a - 1))
    assert _contains(renyi_divergence([Laplace(scale, sens)], alpha), exact, rel=1e-12)


@pytest.mark.parametrize("eps", [1e-3, 0.5, 1.0, 10.0])
@pytest.mark.parametrize("alpha", ORDERS)
def test_rr_against_two_point_sum(eps, alpha):
    mp = mp_context(60)
    e, a = mp.mpf(eps), mp.mpf(alpha)
    p = mp.exp(e) / (1 + mp.exp(e))
    q = 1 - p
    exact = float(mp.log(p ** a * q ** (1 - a) + q ** a * p ** (1 - a)) / (a - 1))
    enc = renyi_divergence([RandomizedResponse(eps)], alpha)
    assert _contains(enc, exact)
    assert enc.upper <= eps            # an eps-DP mechanism has D_alpha <= eps


@pytest.mark.parametrize("scale, sens", [(2.0, 1), (2.0, 3), (0.7, 2)])
@pytest.mark.parametrize("alpha", [1.3, 2.0, 2.75, 7.0])
def test_discrete_laplace_against_lattice_sum(scale, sens, alpha):
    mp = mp_context(50)
    t, a = mp.mpf(scale), mp.mpf(alpha)
    r = mp.exp(-1 / t)
    c = (1 - r) / (1 + r)
    s = mp.fsum(c * r ** (a * abs(x) + (1 - a) * abs(x - sens)) for x in range(-800, 801))
    exact = float(mp.log(s) / (a - 1))
    assert _contains(renyi_divergence([DiscreteLaplace(scale, sens)], alpha), exact)


@pytest.mark.parametrize("sigma, sens", [(0.6, 1), (1.0, 1), (3.0, 2), (5.0, 1)])
@pytest.mark.parametrize("alpha", [1.001, 1.3, 2.75, 7.25])
def test_discrete_gaussian_against_lattice_sum(sigma, sens, alpha):
    # sigma = 5 takes the Poisson-summation branch; the others the direct sum
    mp = mp_context(60)
    s2, a = 2 * mp.mpf(sigma) ** 2, mp.mpf(alpha)
    n = int(60 * sigma) + 10
    z = mp.fsum(mp.exp(-mp.mpf(x) ** 2 / s2) for x in range(-n, n + 1))
    s = mp.fsum(mp.exp(-(a * x * x + (1 - a) * (x - sens) ** 2) / s2) for x in range(-n, n + 1)) / z
    exact = float(mp.log(s) / (a - 1))
    enc = renyi_divergence([DiscreteGaussian(sigma, sens)], alpha)
    assert _contains(enc, exact, rel=1e-12)
    # never above the continuous Gaussian (Canonne, Kamath and Steinke 2020)
    assert enc.lower <= alpha * sens ** 2 / (2 * sigma ** 2)


@pytest.mark.parametrize("alpha", [2.0, 3.0, 17.0])
def test_discrete_gaussian_integer_orders_equal_gaussian(alpha):
    for sigma, sens in [(0.5, 1), (1.3, 2), (40.0, 3)]:
        dg = renyi_divergence([DiscreteGaussian(sigma, sens)], alpha)
        g = renyi_divergence([Gaussian(sigma, float(sens))], alpha)
        assert dg.lower <= alpha * sens ** 2 / (2 * sigma ** 2) <= dg.upper
        assert g.lower <= alpha * sens ** 2 / (2 * sigma ** 2) <= g.upper


def test_composition_adds_and_is_monotone_in_order():
    mechs = [(Laplace(3.0), 7), (Gaussian(2.0, 0.5), 3), RandomizedResponse(0.2), DiscreteGaussian(1.5)]
    prev = 0.0
    for alpha in ORDERS:
        total = renyi_divergence(mechs, alpha)
        parts = [renyi_divergence([m], alpha) for m in mechs]
        assert math.isclose(total.upper, sum(p.upper for p in parts), rel_tol=1e-14)
        assert total.lower <= sum(p.upper for p in parts) and sum(p.lower for p in parts) <= total.upper
        assert total.upper >= prev           # D_alpha is non-decreasing in alpha
        prev = total.lower


def test_conversion_is_valid_and_matches_rdp_to_dp():
    # valid: never below the certified lower end of the exact epsilon
    for mechs in ([(Laplace(10.0), 100)], [(Gaussian(10.0), 100)], [(RandomizedResponse(0.1), 100)],
                  [(Laplace(5.0), 20), (Gaussian(3.0), 10)]):
        conv = renyi_epsilon(mechs, 1e-6)
        truth = privacy_profile_epsilon(mechs, 1e-6)
        assert conv.epsilon >= truth.lower
        # the same number as the single-order conversion at the chosen order
        d = renyi_divergence(mechs, conv.order).upper
        assert conv.epsilon == rdp_to_dp(conv.order, d, 1e-6)
        back = renyi_delta(mechs, conv.epsilon, orders=[conv.order])
        assert back.delta <= 1e-6 * (1 + 1e-9)
    assert renyi_epsilon([(RandomizedResponse(0.1), 100)], 1e-5).epsilon >= \
        optimal_composition_epsilon(0.1, 100, 1e-5)


def test_gaussian_conversion_near_continuous_optimum():
    # for a Gaussian the best real order is 1 + sqrt(...) : the search must find it
    mu2 = 1.0
    conv = renyi_epsilon([Gaussian(1.0)], 1e-5)
    grid = min(rdp_to_dp(1 + i / 100, (1 + i / 100) * mu2 / 2, 1e-5) for i in range(1, 3000))
    assert conv.epsilon <= grid + 1e-6


def test_orders_restrict_the_search():
    conv = renyi_epsilon([(Laplace(2.0), 5)], 1e-5, orders=[2.0, 3.0])
    assert conv.order in (2.0, 3.0)


P = "The '{}' parameter of {} must be"


@pytest.mark.parametrize("bad", [1.0, 0.5, -3.0, math.nan, math.inf])
def test_bad_orders(bad):
    with pytest.raises(ValueError, match=re.escape(P.format("order", "renyi_divergence"))
                       + r" a float in the range \(1, inf\)\. Got"):
        renyi_divergence([Gaussian(1.0)], bad)
    with pytest.raises(ValueError, match=re.escape(P.format("orders", "renyi_epsilon"))):
        renyi_epsilon([Gaussian(1.0)], 1e-5, orders=[2.0, bad])


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-5, math.nan])
def test_bad_delta(bad):
    with pytest.raises(ValueError, match=re.escape(P.format("delta", "renyi_epsilon"))
                       + r" a float in the range \(0, 1\)\. Got"):
        renyi_epsilon([Gaussian(1.0)], bad)


def test_bad_mechanisms():
    with pytest.raises(ValueError, match=re.escape(P.format("mechanisms", "renyi_divergence"))):
        renyi_divergence(["gaussian"], 2.0)
    # a pair's count is part of the 'mechanisms' argument, which the error names
    with pytest.raises(ValueError, match=re.escape(P.format("mechanisms", "renyi_divergence"))):
        renyi_divergence([(Gaussian(1.0), 0)], 2.0)


@pytest.mark.parametrize("fn, arg", [(renyi_divergence, 2.0), (renyi_epsilon, 1e-5), (renyi_delta, 1.0)])
def test_a_divergence_beyond_the_float_range_is_refused(fn, arg):
    # sensitivity / sigma = 1e300: the exact divergence is finite but above the largest float
    with pytest.raises(ValueError, match=rf"^The 'mechanisms' parameter of {fn.__name__}"):
        fn([Gaussian(1e-300)], arg)


def test_renyi_conversion_refuses_an_infinite_epsilon():
    with pytest.raises(ValueError, match=r"^The 'epsilon' parameter of RenyiConversion"):
        RenyiConversion(math.inf, 1e-5, 2.0)
