"""refdp.accounting: values against independent mpmath evaluations, rounding toward safety,
boundaries, validation, the paper's numbers, and the documentation's tables."""
import doctest
import math
import os
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from proofs_checks.common.accounting import kov_sum, rr_log_moment, rr_product_hockey_stick
from refdp.accounting import (DEFAULT_ORDERS, EpsilonDelta, MomentsConversion,
                              advanced_composition, basic_composition, moments_to_dp,
                              optimal_composition_delta, optimal_composition_epsilon,
                              pate_data_independent_log_moments, pate_quick_composition,
                              pure_dp_to_zcdp, rdp_to_dp, zcdp_composition, zcdp_to_dp)
from refdp.utils.rounding import (ceil_fraction, ceil_interval, ceil_mpf, floor_fraction, floor_interval,
                                  interval_context)
from refdp.verify.verdict import Verdict, decide_leq
from tests._support.paths import DOCS

ULP = mpmath.mpf(2) ** -52
# A returned bound may exceed the exact value by the final upward rounding (one
# ulp) plus the width of a 160-bit interval: 4 ulps relative is ample.
REL = 4 * ULP


def assert_upper_bound(returned, exact, rel=REL, dps=30):
    """exact() <= returned, decided in mpmath (fail closed), and returned <= exact() (1 + rel).

    Both sides are divided by ``|returned|`` so that the decision is relative
    (``decide_leq`` works with an absolute error of about 10**-dps). When the
    exact value is itself a float (e.g. 2 * 1.0 * 0.25), equality cannot be
    decided from approximations; it is then confirmed at 250 digits.
    """
    scale = mpmath.mpf(abs(returned)) if returned else mpmath.mpf(1)
    verdict, lhs, rhs = decide_leq(lambda: exact() / scale, lambda: mpmath.mpf(returned) / scale, dps)
    if verdict is Verdict.UNDECIDED:
        with mpmath.workdps(250):
            assert abs(exact() - mpmath.mpf(returned)) <= mpmath.mpf(10) ** -240 * scale, (lhs, rhs)
    else:
        assert verdict is Verdict.HOLDS, (verdict, lhs, rhs)
    with mpmath.workdps(dps):
        e = exact()
        assert mpmath.mpf(returned) <= e * (1 + rel) + mpmath.mpf(10) ** -300, (returned, e)


def assert_smallest_float_above(returned, exact: Fraction):
    """returned is the least float >= the rational exact."""
    assert Fraction(returned) >= exact
    assert Fraction(math.nextafter(returned, -math.inf)) < exact


# The heaviest property tests run a quarter of the profile's examples (50 by
# default, 500 under REFDP_HYPOTHESIS_PROFILE=refdp-thorough).
fewer_examples = settings(max_examples=max(50, settings.default.max_examples // 4))

positive_eps = st.floats(1e-6, 50.0)
targets = st.floats(1e-300, 0.999)
orders_st = st.floats(1.0 + 1e-9, 1e4)

# ----------------------------------------------------------- rounding helpers --


@given(num=st.integers(-10**30, 10**30), den=st.integers(1, 10**30))
def test_ceil_fraction_is_the_least_float_above(num, den):
    q = Fraction(num, den)
    f = ceil_fraction(q)
    assert_smallest_float_above(f, q)


@given(num=st.integers(-10**30, 10**30), den=st.integers(1, 10**30))
def test_floor_fraction_is_the_greatest_float_below(num, den):
    q = Fraction(num, den)
    f = floor_fraction(q)
    assert Fraction(f) <= q and Fraction(math.nextafter(f, math.inf)) > q


def test_floor_interval_is_the_greatest_float_below_the_lower_end():
    with interval_context() as iv:
        x = iv.ln(iv.mpf(2))
        f = floor_interval(x)
        # the double nearest ln 2, 0.693147180559945286..., lies below ln 2 = 0.693147180559945309...
        assert f == math.log(2) == -ceil_interval(-x)


def test_ceil_helpers_at_the_edges_of_the_float_range():
    assert ceil_fraction(Fraction(10) ** 400) == math.inf
    assert ceil_fraction(Fraction(1, 10**400)) == 5e-324
    assert ceil_fraction(-Fraction(1, 10**400)) == 0.0
    with mpmath.workdps(50):
        third = mpmath.mpf(1) / 3
        assert ceil_mpf(third) == math.nextafter(1 / 3, 1.0)
        assert ceil_mpf(mpmath.mpf(10) ** -320) >= 1e-320
        assert ceil_mpf(mpmath.mpf(10) ** -400) == 5e-324
        assert ceil_mpf(mpmath.mpf(10) ** 400) == math.inf
        assert ceil_mpf(-mpmath.mpf(10) ** -400) == 0.0
    before = mpmath.iv.prec
    with interval_context() as iv:
        assert iv.prec == 160
        x = iv.ln(iv.mpf(2))
        assert ceil_interval(x) == math.nextafter(math.log(2), 1.0)
    assert mpmath.iv.prec == before  # restored


# ------------------------------------------------------------- conversions --


@given(epsilon=st.floats(1e-150, 1e150))
def test_pure_dp_to_zcdp_is_exact_square_over_two_rounded_up(epsilon):
    assert_smallest_float_above(pure_dp_to_zcdp(epsilon), Fraction(epsilon) ** 2 / 2)


def test_pure_dp_to_zcdp_values():
    assert pure_dp_to_zcdp(1.0) == 0.5
    assert pure_dp_to_zcdp(0.5) == 0.125
    # 0.7 * 0.7 / 2 in floats rounds to nearest, which is below the exact value
    assert Fraction(0.7 * 0.7 / 2) < Fraction(0.7) ** 2 / 2 <= Fraction(pure_dp_to_zcdp(0.7))
    assert pure_dp_to_zcdp(0.7) == math.nextafter(0.7 * 0.7 / 2, 1.0)


@given(rho=st.floats(1e-12, 1e6), delta=targets)
def test_zcdp_to_dp_upper_bound(rho, delta):
    got = zcdp_to_dp(rho, delta)
    assert_upper_bound(got, lambda: mpmath.mpf(rho) + 2 * mpmath.sqrt(
        mpmath.mpf(rho) * mpmath.log(1 / mpmath.mpf(delta))))


def test_zcdp_to_dp_boundaries():
    assert zcdp_to_dp(0.0, 0.0) == 0.0
    assert zcdp_to_dp(0.0, 1e-5) == 0.0
    assert zcdp_to_dp(1e-3, 0.0) == math.inf


def _cks_exact(alpha, d, delta):
    a, d, delta = mpmath.mpf(alpha), mpmath.mpf(d), mpmath.mpf(delta)
    return d + mpmath.log((a - 1) / a) - (mpmath.log(delta) + mpmath.log(a)) / (a - 1)


@fewer_examples
@given(alpha=orders_st, d=st.floats(0.0, 1e3), delta=targets)
def test_rdp_to_dp_upper_bound_both_methods(alpha, d, delta):
    cks = rdp_to_dp(alpha, d, delta)
    classic = rdp_to_dp(alpha, d, delta, method="classic")
    assert cks <= classic
    assert_upper_bound(classic, lambda: mpmath.mpf(d) + mpmath.log(1 / mpmath.mpf(delta))
                       / (mpmath.mpf(alpha) - 1))
    with mpmath.workdps(30):
        exact = _cks_exact(alpha, d, delta)
    if exact <= 0:
        assert cks == 0.0  # clipped: (eps', delta) with eps' < 0 implies (0, delta)
    else:
        assert_upper_bound(cks, lambda: _cks_exact(alpha, d, delta))


def test_rdp_to_dp_boundaries():
    assert rdp_to_dp(math.inf, 0.7, 0.0) == 0.7      # max-divergence: pure DP
    assert rdp_to_dp(math.inf, 0.7, 1e-5) == 0.7
    assert rdp_to_dp(2.0, math.inf, 1e-5) == math.inf
    assert rdp_to_dp(2.0, 0.7, 0.0) == math.inf
    # D + ln(1/2) - (ln(1/2) + ln 2)/1 = ln(1/2) < 0: reported as 0
    assert rdp_to_dp(2.0, 0.0, 0.5) == 0.0
    # order -> inf: the conversion tends to D
    assert abs(rdp_to_dp(1e12, 0.3, 1e-5) - 0.3) < 1e-9


def test_rdp_to_dp_matches_mironov_and_pate_tail_bound():
    # PATE Thm 1 at lambda = alpha - 1 with alpha(lambda) = lambda D
    for alpha, d, delta in [(2.0, 0.1, 1e-5), (9.0, 0.75, 1e-9), (1.5, 0.01, 0.1)]:
        lam = alpha - 1
        tail = moments_to_dp([lam * d], [lam], delta=delta).epsilon_tail
        assert math.isclose(tail, rdp_to_dp(alpha, d, delta, method="classic"), rel_tol=1e-14)
        rdp = moments_to_dp([lam * d], [lam], delta=delta).epsilon_rdp
        assert math.isclose(rdp, rdp_to_dp(alpha, d, delta), rel_tol=1e-14)


# ------------------------------------------------------------------ moments --


def test_default_orders():
    o = DEFAULT_ORDERS
    assert o.shape == (63,) and not o.flags.writeable
    assert np.all(np.diff(o) > 0) and o[0] == 0.25 and o[-1] == 256
    assert set(range(1, 9)) <= set(o.tolist())
    assert np.all(o * 8 == np.round(o * 8))  # exactly representable binary fractions


def _tail_exact(lm, lam, delta):
    return (mpmath.mpf(lm) + mpmath.log(1 / mpmath.mpf(delta))) / mpmath.mpf(lam)


def _rdp_exact(lm, lam, delta):
    lm, lam, delta = mpmath.mpf(lm), mpmath.mpf(lam), mpmath.mpf(delta)
    return ((lm + mpmath.log(1 / delta) - mpmath.log(lam + 1)) / lam
            + mpmath.log(lam / (lam + 1)))


moment_arrays = st.lists(st.tuples(st.floats(0.01, 300.0), st.floats(0.0, 500.0)),
                         min_size=1, max_size=8, unique_by=lambda pair: pair[0])


@fewer_examples
@given(pairs=moment_arrays, delta=targets)
def test_moments_to_dp_given_delta_equals_exact_minimum_rounded_up(pairs, delta):
    orders = [p[0] for p in pairs]
    lms = [p[1] for p in pairs]
    r = moments_to_dp(lms, orders, delta=delta)
    assert r.delta_tail == r.delta_rdp == delta
    assert r.epsilon_rdp <= r.epsilon_tail
    with mpmath.workdps(30):
        tails = [_tail_exact(m, o, delta) for m, o in zip(lms, orders)]
        rdps = [max(mpmath.mpf(0), _rdp_exact(m, o, delta)) for m, o in zip(lms, orders)]
    best_tail, best_rdp = min(tails), min(rdps)
    # valid: never below the exact minimum; tight: screening costs at most 1e-9
    assert_upper_bound(r.epsilon_tail, lambda: min(_tail_exact(m, o, delta)
                                                   for m, o in zip(lms, orders)), rel=1e-9)
    if best_rdp == 0:
        assert r.epsilon_rdp == 0.0
    else:
        assert_upper_bound(r.epsilon_rdp, lambda: min(_rdp_exact(m, o, delta)
                                                      for m, o in zip(lms, orders)), rel=1e-9)
    # the reported order attains the reported value
    i = orders.index(r.order_tail)
    assert abs(tails[i] - best_tail) <= 1e-9 * best_tail
    j = orders.index(r.order_rdp)
    assert abs(rdps[j] - best_rdp) <= 1e-9 * best_rdp + 1e-300


@fewer_examples
@given(pairs=moment_arrays, epsilon=st.floats(0.01, 20.0))
def test_moments_to_dp_given_epsilon(pairs, epsilon):
    orders = [p[0] for p in pairs]
    lms = [p[1] for p in pairs]
    r = moments_to_dp(lms, orders, epsilon=epsilon)
    assert r.epsilon_tail == r.epsilon_rdp == epsilon
    assert 0 <= r.delta_rdp <= r.delta_tail <= 1

    def tail():
        return min(1, min(mpmath.exp(mpmath.mpf(m) - mpmath.mpf(o) * epsilon)
                          for m, o in zip(lms, orders)))

    def rdp():
        vals = []
        for m, o in zip(lms, orders):
            lam = mpmath.mpf(o)
            vals.append(mpmath.exp(mpmath.mpf(m) - lam * epsilon) * (lam / (lam + 1)) ** lam / (lam + 1))
        return min(1, min(vals))

    for got, exact in ((r.delta_tail, tail), (r.delta_rdp, rdp)):
        with mpmath.workdps(30):
            e = exact()
        if e < mpmath.mpf(2) ** -1070:  # below the float range: 0 is not allowed, 5e-324 is
            assert got > 0
        elif e == 1:
            assert got == 1.0
        else:
            assert_upper_bound(got, exact, rel=1e-9)


def test_moments_round_trip():
    lm = pate_data_independent_log_moments(0.05, DEFAULT_ORDERS, 100)
    r = moments_to_dp(lm, DEFAULT_ORDERS, delta=1e-5)
    back = moments_to_dp(lm, DEFAULT_ORDERS, epsilon=r.epsilon_tail)
    assert back.delta_tail <= 1e-5 * (1 + 1e-12)
    back = moments_to_dp(lm, DEFAULT_ORDERS, epsilon=r.epsilon_rdp)
    assert back.delta_rdp <= 1e-5 * (1 + 1e-12)


def test_moments_tail_bound_over_default_orders_is_near_the_zcdp_bound():
    # With Theorem 2's term active the tail bound minimised over all real
    # orders is exactly the zCDP bound 2 T g^2 + 2 g sqrt(2 T ln(1/delta)); a
    # grid minimum can only be larger, and DEFAULT_ORDERS is fine enough.
    for T, delta in [(100, 1e-5), (1000, 1e-6)]:
        r = moments_to_dp(pate_data_independent_log_moments(0.05, DEFAULT_ORDERS, T),
                          DEFAULT_ORDERS, delta=delta)
        zcdp = zcdp_to_dp(zcdp_composition([pure_dp_to_zcdp(0.1)] * T), delta)
        assert zcdp <= r.epsilon_tail <= zcdp + 0.005
        assert r.epsilon_rdp < r.epsilon_tail
        assert r.epsilon == r.epsilon_rdp and r.delta == delta


def test_moments_boundaries():
    r = moments_to_dp([1.0, 2.0], [1.0, 2.0], delta=0.0)
    assert r == MomentsConversion(math.inf, 0.0, None, math.inf, 0.0, None)
    r = moments_to_dp([math.inf, math.inf], [1.0, 2.0], delta=1e-5)
    assert r.epsilon_tail == r.epsilon_rdp == math.inf and r.order_tail is None
    r = moments_to_dp([math.inf, math.inf], [1.0, 2.0], epsilon=1.0)
    assert r.delta_tail == r.delta_rdp == 1.0 and r.order_rdp is None
    # an order without a bound is skipped
    r1 = moments_to_dp([math.inf, 0.5], [1.0, 2.0], delta=1e-5)
    r2 = moments_to_dp([0.5], [2.0], delta=1e-5)
    assert (r1.epsilon_tail, r1.order_tail) == (r2.epsilon_tail, r2.order_tail) == (r2.epsilon_tail, 2.0)
    # zero log-moments (nothing released yet): best at the largest order
    r = moments_to_dp(np.zeros(len(DEFAULT_ORDERS)), DEFAULT_ORDERS, delta=1e-5)
    assert r.order_tail == r.order_rdp == 256.0 and 0 < r.epsilon_rdp < r.epsilon_tail
    assert math.isclose(r.epsilon_tail, math.log(1e5) / 256, rel_tol=1e-14)
    # ... and the Renyi conversion reaches 0 when delta is large enough
    assert moments_to_dp([0.0], [1.0], delta=0.5).epsilon_rdp == 0.0
    # a delta above 1 is reported as 1
    assert moments_to_dp([5.0], [1.0], epsilon=0.5).delta_tail == 1.0


@fewer_examples
@given(gamma=st.floats(1e-4, 5.0), n=st.integers(0, 10**6))
def test_pate_data_independent_log_moments_upper_bound(gamma, n):
    orders = [0.25, 1.0, 3.5, 32.0, 256.0]
    got = pate_data_independent_log_moments(gamma, orders, n)
    for lam, value in zip(orders, got):
        def exact(lam=lam):
            g, l = mpmath.mpf(gamma), mpmath.mpf(lam)
            return n * min(2 * g * g * l * (l + 1), 2 * g * l)
        if n == 0:
            assert value == 0.0
        else:
            assert_upper_bound(value, exact)


def test_pate_data_independent_log_moments_both_branches():
    # gamma (lambda + 1) <= 1: Theorem 2's term; otherwise the pure-DP cap 2 gamma lambda
    got = pate_data_independent_log_moments(0.5, [0.5, 3.0], 1)
    assert math.isclose(got[0], 2 * 0.25 * 0.5 * 1.5, rel_tol=1e-15)
    assert math.isclose(got[1], 2 * 0.5 * 3.0, rel_tol=1e-15)
    assert pate_data_independent_log_moments(0.1, DEFAULT_ORDERS, 0).tolist() == [0.0] * 63


# -------------------------------------------------------------- composition --


@given(eps=st.lists(st.floats(1e-9, 1e3), min_size=1, max_size=20),
       deltas=st.lists(st.floats(0.0, 0.5), min_size=20, max_size=20))
def test_basic_composition_exact_sums_rounded_up(eps, deltas):
    d = deltas[: len(eps)]
    got = basic_composition(eps, d)
    assert isinstance(got, EpsilonDelta)
    assert_smallest_float_above(got.epsilon, sum(map(Fraction, eps)))
    total = sum(map(Fraction, d))
    if total >= 1:
        assert got.delta == 1.0
    else:
        assert Fraction(got.delta) >= total
        assert got.delta == 0.0 or Fraction(math.nextafter(got.delta, 0.0)) < total


def test_basic_composition_defaults_and_cap():
    assert basic_composition([0.5, 0.25]) == (0.75, 0.0)
    assert basic_composition([1.0] * 3, [0.5] * 3).delta == 1.0


@given(eps=positive_eps, k=st.integers(1, 10**6), dprime=targets, delta=st.floats(0.0, 1e-3))
def test_advanced_composition_upper_bound(eps, k, dprime, delta):
    got = advanced_composition(eps, k, dprime, delta)

    def exact():
        e = mpmath.mpf(eps)
        return e * mpmath.sqrt(2 * k * mpmath.log(1 / mpmath.mpf(dprime))) + k * e * mpmath.expm1(e)
    assert_upper_bound(got.epsilon, exact)
    total = k * Fraction(delta) + Fraction(dprime)
    assert got.delta == 1.0 if total >= 1 else Fraction(got.delta) >= total


def test_advanced_composition_boundaries():
    assert advanced_composition(0.1, 10, 0.0).epsilon == math.inf
    assert advanced_composition(0.1, 10, 1e-5, 1e-6).delta == ceil_fraction(
        10 * Fraction(1e-6) + Fraction(1e-5))


@given(rhos=st.lists(st.floats(0.0, 1e6), min_size=1, max_size=30))
def test_zcdp_composition_exact_sum_rounded_up(rhos):
    got = zcdp_composition(rhos)
    total = sum(map(Fraction, rhos))
    assert Fraction(got) >= total
    assert got == 0.0 or Fraction(math.nextafter(got, 0.0)) < total


@given(gamma=st.floats(1e-6, 10.0), n=st.integers(1, 10**6), delta=targets)
def test_pate_quick_composition_upper_bound(gamma, n, delta):
    got = pate_quick_composition(gamma, n, delta)
    assert_upper_bound(got, lambda: 4 * n * mpmath.mpf(gamma) ** 2 + 2 * mpmath.mpf(gamma)
                       * mpmath.sqrt(2 * n * mpmath.log(1 / mpmath.mpf(delta))))


def test_pate_papers_numbers_come_from_the_quick_form():
    # PATE Sec. 3.1: epsilon ~ 5.80 (gamma=0.05, T=100, delta=1e-5) and
    # epsilon ~ 26 (T=1000, delta=1e-6). The closed form gives 5.7985 and 26.62:
    mnist = pate_quick_composition(0.05, 100, 1e-5)
    svhn = pate_quick_composition(0.05, 1000, 1e-6)
    assert round(mnist, 2) == 5.80
    assert 26 <= svhn < 27 and round(svhn, 2) == 26.62
    # Dwork-Rothblum-Vadhan with epsilon_0 = 2 gamma gives more: 5.85 and 27.14.
    assert round(advanced_composition(0.1, 100, 1e-5).epsilon, 2) == 5.85
    assert round(advanced_composition(0.1, 1000, 1e-6).epsilon, 2) == 27.14
    # exact values (mpmath): 1 + 0.1 sqrt(200 ln 1e5) and 10 + 0.1 sqrt(2000 ln 1e6)
    assert_upper_bound(mnist, lambda: 4 * 100 * mpmath.mpf(0.05) ** 2
                       + 2 * mpmath.mpf(0.05) * mpmath.sqrt(200 * mpmath.log(1 / mpmath.mpf(1e-5))))


@fewer_examples
@given(eps=st.floats(1e-3, 3.0), k=st.integers(1, 60), delta=st.floats(1e-12, 0.5))
def test_composition_bounds_are_ordered(eps, k, delta):
    # optimal <= zCDP <= PATE form (gamma = eps/2) <= advanced, and optimal <= basic
    zcdp = zcdp_to_dp(zcdp_composition([pure_dp_to_zcdp(eps)] * k), delta)
    quick = pate_quick_composition(eps / 2, k, delta)
    adv = advanced_composition(eps, k, delta).epsilon
    basic = basic_composition([eps] * k).epsilon
    opt = optimal_composition_epsilon(eps, k, delta, dps=20)
    assert opt <= zcdp <= quick <= adv
    assert opt <= basic
    # each is valid for the exact profile of the k-fold composition
    for value in (zcdp, quick, adv, basic, opt):
        verdict, _, _ = decide_leq(lambda: kov_sum(eps, k, value), lambda: mpmath.mpf(delta), 30)
        assert verdict is Verdict.HOLDS, value


# ------------------------------------------------------ optimal composition --


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("epsilon", [0.01, 0.3, 2.0])
def test_optimal_composition_delta_equals_bruteforce(epsilon, k):
    for et in (0.0, epsilon / 2, (k - 1) * epsilon, k * epsilon - 1e-9):
        if et < 0:
            continue
        got = optimal_composition_delta(epsilon, k, et)
        with mpmath.workdps(40):
            exact = rr_product_hockey_stick(epsilon, k, et)
        assert_upper_bound(got, lambda: rr_product_hockey_stick(epsilon, k, et), dps=40)
        assert mpmath.almosteq(mpmath.mpf(got), exact, rel_eps=1e-14)


def test_optimal_composition_delta_closed_forms_and_boundaries():
    # k = 1: (e^eps - e^t)/(1 + e^eps) for t < eps
    got = optimal_composition_delta(1.0, 1, 0.25)
    assert_upper_bound(got, lambda: (mpmath.e - mpmath.exp(mpmath.mpf(0.25))) / (1 + mpmath.e))
    assert optimal_composition_delta(0.5, 4, 2.0) == 0.0      # t = k eps
    assert optimal_composition_delta(0.5, 4, 100.0) == 0.0
    # t = 0 is the total variation distance of the products
    assert_upper_bound(optimal_composition_delta(0.3, 6, 0.0), lambda: kov_sum(0.3, 6, 0.0))


def test_optimal_composition_delta_is_non_increasing():
    ts = np.linspace(0, 12, 61)
    ds = [optimal_composition_delta(0.2, 60, float(t), dps=20) for t in ts]
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    # 60 * 0.2 is slightly above 12 (the float 0.2 exceeds one fifth), so one
    # output sequence still has a likelihood ratio above e^12
    assert 0 < ds[-1] < 1e-30
    assert optimal_composition_delta(0.2, 60, 12.000000000000002) == 0.0


@pytest.mark.parametrize("epsilon, k, delta", [
    (0.1, 1, 1e-5), (0.1, 100, 1e-5), (1.0, 10, 1e-6), (0.01, 1000, 1e-9), (2.0, 3, 0.3)])
def test_optimal_composition_epsilon_valid_and_tight(epsilon, k, delta):
    got = optimal_composition_epsilon(epsilon, k, delta)
    # valid: exact delta at the returned epsilon <= target
    v, _, _ = decide_leq(lambda: kov_sum(epsilon, k, got), lambda: mpmath.mpf(delta), 40)
    assert v is Verdict.HOLDS
    # tight: a relative 1e-13 less would need a larger delta
    below = got * (1 - 1e-13)
    v, _, _ = decide_leq(lambda: mpmath.mpf(delta), lambda: kov_sum(epsilon, k, below), 40)
    assert v is Verdict.HOLDS
    assert got <= epsilon * k


def test_optimal_composition_epsilon_boundaries_and_precision():
    assert optimal_composition_epsilon(0.3, 7, 0.0) == ceil_fraction(7 * Fraction(0.3))
    # delta at least the total variation distance: epsilon 0 suffices
    tv = optimal_composition_delta(0.3, 7, 0.0)
    assert optimal_composition_epsilon(0.3, 7, min(0.999, tv * 1.01)) == 0.0
    a = optimal_composition_epsilon(0.1, 50, 1e-6, dps=15)
    b = optimal_composition_epsilon(0.1, 50, 1e-6, dps=100)
    assert abs(a - b) <= 4 * math.ulp(b)


def test_exact_log_moments_of_rr_equal_hockey_stick_twins():
    # the proofs_checks reference log-moment of one RR pair against a direct sum
    with mpmath.workdps(40):
        eps, lam = mpmath.mpf(0.7), mpmath.mpf(2.5)
        p = mpmath.exp(eps) / (1 + mpmath.exp(eps))
        direct = mpmath.log(p * (p / (1 - p)) ** lam + (1 - p) * ((1 - p) / p) ** lam)
        assert mpmath.almosteq(rr_log_moment(0.7, 2.5, 1), direct, rel_eps=1e-35)


# --------------------------------------------------------------- validation --

P = "The '{}' parameter of {} must be"
VALIDATION = [
    (pure_dp_to_zcdp, dict(epsilon=1.0), "epsilon", [0.0, -1.0, math.nan, math.inf, True, "1"]),
    (zcdp_to_dp, dict(rho=1.0, delta=1e-5), "rho", [-1e-9, math.nan, math.inf]),
    (zcdp_to_dp, dict(rho=1.0, delta=1e-5), "delta", [-1e-9, 1.0, 2.0, math.nan]),
    (rdp_to_dp, dict(order_alpha=2.0, rdp_value=1.0, delta=1e-5), "order_alpha",
     [1.0, 0.5, -2.0, math.nan]),
    (rdp_to_dp, dict(order_alpha=2.0, rdp_value=1.0, delta=1e-5), "rdp_value", [-0.1, math.nan]),
    (rdp_to_dp, dict(order_alpha=2.0, rdp_value=1.0, delta=1e-5), "delta", [1.0, -0.5, math.nan]),
    (rdp_to_dp, dict(order_alpha=2.0, rdp_value=1.0, delta=1e-5), "method", ["tight", None]),
    (moments_to_dp, dict(log_moments=[1.0], orders=[1.0], delta=1e-5), "orders",
     [[], [0.0], [-1.0], [math.nan], [math.inf], [[1.0]]]),
    (moments_to_dp, dict(log_moments=[1.0], orders=[1.0], delta=1e-5), "log_moments",
     [[], [-1.0], [math.nan], [1.0, 2.0], [[1.0]]]),
    (moments_to_dp, dict(log_moments=[1.0], orders=[1.0], delta=1e-5), "delta",
     [1.0, -1e-3, math.nan]),
    (moments_to_dp, dict(log_moments=[1.0], orders=[1.0], epsilon=1.0), "epsilon",
     [0.0, -1.0, math.nan, math.inf]),
    (pate_data_independent_log_moments, dict(gamma=0.05, orders=[1.0], n_queries=10), "gamma",
     [0.0, -0.05, math.nan, math.inf]),
    (pate_data_independent_log_moments, dict(gamma=0.05, orders=[1.0], n_queries=10), "orders",
     [[], [0.0], [-3.0], [math.nan]]),
    (pate_data_independent_log_moments, dict(gamma=0.05, orders=[1.0], n_queries=10), "n_queries",
     [-1, 1.5, math.nan, "3"]),
    (basic_composition, dict(epsilons=[1.0], deltas=[0.0]), "epsilons",
     [[], [0.0], [-1.0], [math.nan], [math.inf], [[1.0]]]),
    (basic_composition, dict(epsilons=[1.0], deltas=[0.0]), "deltas",
     [[1.0], [-0.1], [0.0, 0.0], [math.nan]]),
    (advanced_composition, dict(epsilon=0.1, k=10, delta_prime=1e-5), "epsilon",
     [0.0, -0.1, math.nan, math.inf]),
    (advanced_composition, dict(epsilon=0.1, k=10, delta_prime=1e-5), "k", [0, -3, 2.5, math.nan]),
    (advanced_composition, dict(epsilon=0.1, k=10, delta_prime=1e-5), "delta_prime",
     [1.0, -1e-5, math.nan]),
    (advanced_composition, dict(epsilon=0.1, k=10, delta_prime=1e-5), "delta", [1.0, -1e-5]),
    (zcdp_composition, dict(rhos=[0.1]), "rhos", [[], [-0.1], [math.nan], [math.inf]]),
    (pate_quick_composition, dict(gamma=0.05, n_queries=100, delta=1e-5), "gamma",
     [0.0, -1.0, math.nan]),
    (pate_quick_composition, dict(gamma=0.05, n_queries=100, delta=1e-5), "n_queries", [0, -1, 1.5]),
    (pate_quick_composition, dict(gamma=0.05, n_queries=100, delta=1e-5), "delta",
     [1.0, -1.0, math.nan]),
    (optimal_composition_delta, dict(epsilon=0.1, k=10, epsilon_total=0.5), "epsilon",
     [0.0, -1.0, math.nan, math.inf]),
    (optimal_composition_delta, dict(epsilon=0.1, k=10, epsilon_total=0.5), "k", [0, 1.5]),
    (optimal_composition_delta, dict(epsilon=0.1, k=10, epsilon_total=0.5), "epsilon_total",
     [-0.1, math.nan, math.inf]),
    (optimal_composition_delta, dict(epsilon=0.1, k=10, epsilon_total=0.5), "dps", [5, 20.5]),
    (optimal_composition_epsilon, dict(epsilon=0.1, k=10, delta=1e-5), "delta",
     [1.0, -1e-5, math.nan]),
    (optimal_composition_epsilon, dict(epsilon=0.1, k=10, delta=1e-5), "k", [0, -1]),
]


@pytest.mark.parametrize("func, valid, name, bad", VALIDATION,
                         ids=[f"{f.__name__}-{n}" for f, _, n, _ in VALIDATION])
def test_invalid_arguments_raise_one_message_shape(func, valid, name, bad):
    func(**valid)  # the valid call works
    for value in bad:
        kwargs = dict(valid, **{name: value})
        with pytest.raises(ValueError, match=re.escape(P.format(name, func.__name__))):
            func(**kwargs)


def test_moments_to_dp_needs_exactly_one_target():
    for kwargs in ({}, dict(delta=1e-5, epsilon=1.0)):
        with pytest.raises(ValueError, match=re.escape(P.format("delta", "moments_to_dp"))):
            moments_to_dp([1.0], [1.0], **kwargs)


def test_message_names_the_range_and_the_value():
    with pytest.raises(ValueError) as info:
        zcdp_to_dp(0.5, 1.0)
    assert str(info.value) == ("The 'delta' parameter of zcdp_to_dp must be a float in the range "
                               "[0, 1). Got 1.0 instead.")
    with pytest.raises(ValueError) as info:
        moments_to_dp([1.0, 2.0], [1.0], delta=1e-5)
    assert "same shape as 'orders' (1,)" in str(info.value)


# -------------------------------------------------------------------- docs --


def test_accounting_page_examples_run():
    failures, tried = doctest.testfile(os.path.join(DOCS, "accounting.rst"), module_relative=False,
                                       optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried >= 15 and failures == 0


def _recipes_and_tables(text):
    """Pairs (code of a '# Recipe of the table below' block, rows of the csv-table after it)."""
    pattern = re.compile(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+?)\n"
                         r"\.\. csv-table::.*\n(?:   :.*\n)+\n((?:   .*\n)+)")
    pairs = []
    for code, rows in pattern.findall(text):
        code = "\n".join(line[3:] for line in code.splitlines())
        if code.startswith("# Recipe of the table below"):
            pairs.append((code, [r.strip() for r in rows.splitlines() if r.strip()]))
    return pairs


def test_accounting_page_tables_are_what_their_recipes_print(capsys):
    with open(os.path.join(DOCS, "accounting.rst"), encoding="utf-8") as fh:
        pairs = _recipes_and_tables(fh.read())
    assert len(pairs) == 3
    for code, rows in pairs:
        exec(compile(code, "accounting.rst", "exec"), {"__name__": "recipe"})
        printed = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
        assert printed == rows


# --- bounds that overflow a float are refused, never rounded to inf -------------------

@pytest.mark.parametrize("call, name", [
    (lambda: advanced_composition(1e308, 10, 1e-6), "epsilon"),
    (lambda: advanced_composition(1.0, 2 ** 1100, 1e-6), "k"),
    (lambda: basic_composition([1e308, 1e308]), "epsilons"),
    (lambda: zcdp_composition([1e308, 1e308]), "rhos"),
    (lambda: pure_dp_to_zcdp(1e308), "epsilon"),
    (lambda: pate_quick_composition(1e308, 10, 1e-5), "gamma"),
    (lambda: pate_quick_composition(1.0, 2 ** 2000, 1e-5), "n_queries"),
    (lambda: moments_to_dp(np.array([1e308]), np.array([1e-300]), delta=1e-5), "log_moments"),
])
def test_an_overflowing_bound_is_refused_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^The '{name}' parameter of "):
        call()


def test_inf_only_where_the_bound_is_infinite():
    # delta' = 0 (advanced) and delta = 0 (moments, PATE's closed form) give no guarantee: inf is exact
    assert advanced_composition(0.1, 10, 0.0).epsilon == math.inf
    assert pate_quick_composition(0.05, 100, 0.0) == math.inf
    conv = moments_to_dp(np.array([0.1, math.inf]), np.array([1.0, 2.0]), delta=0.0)
    assert conv.epsilon_tail == conv.epsilon_rdp == math.inf
    conv = moments_to_dp(np.array([math.inf]), np.array([1.0]), delta=1e-5)
    assert conv.epsilon == math.inf and conv.order_tail is None
    # the largest accepted epsilon still gives a finite bound
    assert math.isfinite(advanced_composition(700.0, 1, 5e-324).epsilon)
    # results refuse NaN, negative and (unless declared) infinite privacy parameters
    with pytest.raises(ValueError, match=r"^The 'delta_tail' parameter of MomentsConversion"):
        MomentsConversion(1.0, math.nan, None, 1.0, 1e-5, None)
    with pytest.raises(ValueError, match=r"^The 'epsilon' parameter of EpsilonDelta"):
        EpsilonDelta(-1.0, 0.0)
