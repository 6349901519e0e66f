"""Clopper--Pearson bounds: never inside the exact interval, close to it, validated inputs."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from refdp.audit import clopper_pearson_lower, clopper_pearson_upper
from refdp.audit.clopper_pearson import OUTWARD


def _tail_ge(k, n, p):
    """P[Binomial(n, p) >= k] = I_p(k, n - k + 1), at the current mpmath precision."""
    return mpmath.betainc(k, n - k + 1, 0, p, regularized=True)


CASES = [(k, n, beta)
         for n, ks in ((1, (1,)), (2, (1,)), (7, (1, 2, 6)), (100, (1, 33, 99)), (1000, (1, 333, 999)),
                       (10**5, (1, 2, 10**5 - 1)), (10**7, (1, 10**7 - 1)))
         for k in ks
         for beta in (0.4, 0.025, 1e-6)]


@pytest.mark.parametrize("k,n,beta", CASES)
def test_float_bounds_never_undercut_exact_roots(k, n, beta):
    # The exact lower bound is the root of P_p[X >= k] = beta (increasing in p):
    # the float bound lies at or below it iff the tail there is <= beta, and
    # within a relative 1e-8 of it iff the tail at bound * (1 + 1e-8) is >= beta.
    # Likewise the exact upper bound solves P_p[X <= k] = beta (decreasing in p).
    # Tails are evaluated in mpmath at 40 digits (regularised incomplete beta).
    with mpmath.workdps(40):
        b = mpmath.mpf(beta)
        lo = mpmath.mpf(clopper_pearson_lower(k, n, beta))
        assert _tail_ge(k, n, lo) <= b
        assert _tail_ge(k, n, lo * (1 + mpmath.mpf("1e-8"))) >= b
        if k < n:
            up = mpmath.mpf(clopper_pearson_upper(k, n, beta))
            assert 1 - _tail_ge(k + 1, n, up) <= b
            assert 1 - _tail_ge(k + 1, n, up * (1 - mpmath.mpf("1e-8"))) >= b


def test_boundary_counts():
    assert clopper_pearson_lower(0, 10, 0.05) == 0.0
    assert clopper_pearson_upper(10, 10, 0.05) == 1.0
    # k = 0: 1 - beta^(1/n) exactly solves (1 - p)^n = beta
    for n in (1, 5, 1000, 10**9):
        up = clopper_pearson_upper(0, n, 0.05)
        assert up >= -math.expm1(math.log(0.05) / n)
        with mpmath.workdps(40):
            assert (1 - mpmath.mpf(up)) ** n <= 0.05
    # k = n: the lower bound is beta^(1/n)
    with mpmath.workdps(40):
        lo = clopper_pearson_lower(20, 20, 0.01)
        assert mpmath.mpf(lo) ** 20 <= mpmath.mpf(0.01)


def test_vectorised_and_scalar_types():
    k = np.array([0, 3, 10])
    lo = clopper_pearson_lower(k, 10, 0.05)
    up = clopper_pearson_upper(k, 10, 0.05)
    assert lo.shape == up.shape == (3,)
    assert isinstance(clopper_pearson_lower(3, 10, 0.05), float)
    for i, kk in enumerate(k):
        assert lo[i] == clopper_pearson_lower(int(kk), 10, 0.05)
        assert up[i] == clopper_pearson_upper(int(kk), 10, 0.05)
    # broadcasting over n
    both = clopper_pearson_lower(1, np.array([10, 100]), 0.05)
    assert both[0] > both[1]
    assert OUTWARD == 1e-9


@given(st.integers(1, 10**6), st.floats(0.0, 1.0), st.floats(1e-12, 0.5))
def test_bounds_bracket_the_estimate(n, frac, beta):
    k = int(frac * n)
    lo, up = clopper_pearson_lower(k, n, beta), clopper_pearson_upper(k, n, beta)
    assert 0.0 <= lo <= k / n <= up <= 1.0


@pytest.mark.parametrize("func", [clopper_pearson_lower, clopper_pearson_upper])
@pytest.mark.parametrize("kwargs,name", [
    ({"k": 11, "n": 10, "beta": 0.05}, "'k'"),
    ({"k": -1, "n": 10, "beta": 0.05}, "'k'"),
    ({"k": 1.5, "n": 10, "beta": 0.05}, "'k'"),
    ({"k": 1, "n": 0, "beta": 0.05}, "'n'"),
    ({"k": 1, "n": 10, "beta": 0.0}, "'beta'"),
    ({"k": 1, "n": 10, "beta": 1.0}, "'beta'"),
    ({"k": 1, "n": 10, "beta": float("nan")}, "'beta'"),
])
def test_bad_input_names_the_parameter(func, kwargs, name):
    with pytest.raises(ValueError, match=name):
        func(**kwargs)
