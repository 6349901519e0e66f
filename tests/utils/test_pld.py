"""refdp.utils.pld and refdp.utils.fftconv: the paired FFT bound, two-level suffix sums and delta tables,
checked against exact rational (or 60-digit interval) values."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from refdp.utils.fftconv import convolve_bounds, convolve_bounds_pair
from refdp.utils.pld import DeltaTable, Pld, delta_at, suffix_sums, truncate
from refdp.utils.precision import iv_context
from refdp.utils.rounding import UNIT_ROUNDOFF


def _exact_conv(a, b):
    fa = [Fraction(float(x)) for x in a]
    fb = [Fraction(float(x)) for x in b]
    out = [Fraction(0)] * (len(fa) + len(fb) - 1)
    for i, x in enumerate(fa):
        if x:
            for j, y in enumerate(fb):
                out[i + j] += x * y
    return out


def _arrays(rng, n, scale):
    # non-negative, spanning many magnitudes, with exact zeros and subnormal-range values
    x = rng.random(n) * np.exp(-rng.random(n) * 60) * scale
    x[rng.random(n) < 0.1] = 0.0
    x[:3] = [5e-320, 0.0, 1e-300]
    return x


@pytest.mark.parametrize("square", [False, True])
@pytest.mark.parametrize("sizes", [(70, 70), (90, 41)])
def test_paired_fft_bound_holds_and_twin_is_identical(square, sizes):
    rng = np.random.default_rng(sizes[0] + sizes[1] + square)
    n1, n2 = (sizes[0], sizes[0]) if square else sizes
    a1, a2 = _arrays(rng, n1, 1.0), _arrays(rng, n1, 1e-3)
    b1, b2 = (a1, a2) if square else (_arrays(rng, n2, 1e-2), _arrays(rng, n2, 1.0))
    c1, c2, err = convolve_bounds_pair(a1, b1, a2, b2)
    e1, e2 = _exact_conv(a1, b1), _exact_conv(a2, b2)
    assert len(c1) == len(e1) and len(c2) == len(e2)
    worst = max(max(abs(Fraction(float(c)) - e) for c, e in zip(c1, e1)),
                max(abs(Fraction(float(c)) - e) for c, e in zip(c2, e2)))
    assert worst <= Fraction(err)
    # the bound is an a-priori one, not a tautology: it is within a few hundred of the
    # single transforms' bounds, not orders of magnitude looser
    single = max(convolve_bounds(a1, b1)[1], convolve_bounds(a2, b2)[1])
    assert err < 1e3 * single
    d1, d2, derr = convolve_bounds_pair(a1, b1, a2, b2, python=True)
    assert np.array_equal(c1, d1) and np.array_equal(c2, d2) and derr == err


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1000, 5000])
def test_suffix_sums_within_their_bound(n):
    rng = np.random.default_rng(n)
    x = rng.random(n) * np.exp(-rng.random(n) * 40)
    s, r = suffix_sums(x)
    assert r <= 2 * int(np.sqrt(n)) + 3
    exact = Fraction(0)
    g = Fraction(1.01) * (r + 1) * Fraction(UNIT_ROUNDOFF)
    for j in range(n - 1, -1, -1):
        exact += Fraction(float(x[j]))
        assert abs(Fraction(float(s[j])) - exact) <= g * exact + n * Fraction(2.0 ** -1074)


def _exact_delta(start, masses, h, eps, iv):
    """sum_i m_i (1 - e**(eps - (start + i) h))_+ in 60-digit intervals."""
    total = iv.mpf(0)
    e = iv.mpf(eps)
    H = iv.mpf(h.numerator) / h.denominator
    for i, m in enumerate(masses):
        if (start + i) * h > Fraction(eps) and m:
            total += iv.mpf(float(m)) * (1 - iv.exp(e - (start + i) * H))
    return total


def test_delta_table_encloses_the_exact_profile():
    rng = np.random.default_rng(3)
    n = 6000
    h = Fraction(1, 1000)
    start = -2500
    x = (start + np.arange(n)) * float(h)
    m = np.exp(-0.5 * ((x - 0.5) / 0.6) ** 2) * (1 + 0.01 * rng.random(n))
    m /= m.sum()
    iv = iv_context(60)
    p = Pld(start, m, 1e-40)
    up_t, lo_t = DeltaTable(p, iv, h, True), DeltaTable(Pld(start, m), iv, h, False)
    for eps in (0.0, 0.3, 1.0, 2.0, 3.1, 3.4999):
        exact = _exact_delta(start, m, h, eps, iv)
        hi, lo = up_t(eps), lo_t(eps)
        assert lo <= float(exact.a) and float(exact.b) + 1e-40 <= hi
        # as tight as the per-query evaluation it replaces, to a few units of 1e-12 relative
        q_hi = delta_at(p, eps, iv, h, float(h), True)
        q_lo = delta_at(Pld(start, m), eps, iv, h, float(h), False)
        assert hi - lo <= (q_hi - q_lo) + 1e-12 * hi
    assert up_t(3.5) == pytest.approx(1e-40) and lo_t(3.5) == 0.0       # nothing finite above 3.5


def test_truncation_floor_moves_only_lower_mass_up():
    m = np.full(1000, 1e-15)
    m[400:600] = 1e-3
    p = Pld(-10, m, 0.0)
    cut = truncate(p, True, 4.0 * 1000 * 1e-15)
    # the lower noise-level entries are moved up to the first kept point; nothing is lost
    assert cut.start > -10
    assert sum(Fraction(float(v)) for v in cut.m) + Fraction(cut.inf) >= sum(Fraction(float(v)) for v in m)
    assert cut.inf <= 1e-12
    # a lower PLD ignores the floor
    assert truncate(Pld(-10, m), False, 1.0).start == -10


def test_geometric_growing_out_of_the_subnormals():
    from refdp.utils.pld import geometric
    iv = iv_context(40)
    seed, ratio = iv.exp(iv.mpf(-800)), iv.exp(iv.mpf("0.01"))
    lo, hi = geometric(seed, ratio, 90001)
    for j in (0, 20000, 50000, 60000, 70000, 90000):
        exact = seed * ratio ** j
        assert lo[j] <= float(exact.a) and float(exact.b) <= hi[j]
    assert hi[90000] > 1e43                      # e**100: grown out of the subnormal range


def test_float_box_is_the_outward_rounding_of_the_endpoints():
    # the fast path (raw mantissa and exponent) against the exact rational rounding
    import math
    import random

    from refdp.utils.pld import float_box, interval_hi, interval_lo
    from refdp.utils.rounding import ceil_fraction, floor_fraction

    iv = iv_context(130)
    rnd = random.Random(5)
    values = [iv.mpf([0, 0]), iv.mpf(5e-324), iv.mpf(-5e-324), iv.mpf([-1e-10, 2.0]), iv.mpf("0.1")]
    for _ in range(3000):
        e = rnd.choice([rnd.uniform(-1100, 1100), rnd.uniform(-5, 5), rnd.uniform(-1080, -1015),
                        rnd.uniform(1015, 1030)])
        values.append(iv.exp(iv.mpf(e)) * rnd.choice([1, -1]) + iv.mpf(rnd.choice([0, 1e-300, -3.7])))
    for x in values:
        got = float_box(x)
        want = (floor_fraction(interval_lo(x)), ceil_fraction(interval_hi(x)))
        assert got == want and [math.copysign(1, v) for v in got] == [math.copysign(1, v) for v in want], x
        if all(math.isfinite(v) for v in got):
            assert Fraction(got[0]) <= interval_lo(x) and interval_hi(x) <= Fraction(got[1])
