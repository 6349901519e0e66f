"""The transform power of the certified profiles (``refdp.utils.pld.power_spectral``).

The last 8-fold of a tilted binary power is one transform raised to the 8th
power, on a window certified to hold all but the tail mass. Checked here:

* the entrywise bound of :func:`refdp.utils.fftconv.power_bounds_pair` against
  the exact cyclic convolution power (rationals), with and without a second
  operand, and its pure-Python twin route giving the same doubles;
* the Chernoff bounds of :func:`refdp.utils.pld.tail_bounds` against the exact
  masses outside a window;
* :func:`refdp.utils.pld.power_spectral` with a window shorter than the
  composition (the cyclic folding exercised) against the exact composition:
  the upper PLD dominates it in every suffix (with its +inf mass), the lower
  one lies below it entrywise, for both directions of the tilt's use;
* the privacy profiles with the transform power against binary powering
  (``SPECTRAL_M = 0``): the enclosures meet, and neither end moves outward by
  more than 1e-3 of the enclosure's width (measured: at most 9e-5).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import refdp.utils.pld as pld
from refdp.accounting import privacy_profile_delta, privacy_profile_epsilon
from refdp.accounting.profiles import Gaussian, Laplace, RandomizedResponse
from refdp import core
from refdp.utils.fftconv import power_bounds_pair
from refdp.utils.precision import iv_context


def _conv(a, b):
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _exact_power(x, m, y=None):
    fx = [Fraction(float(v)) for v in x]
    out = fx
    for _ in range(m - 1):
        out = _conv(out, fx)
    if y is not None:
        out = _conv(out, [Fraction(float(v)) for v in y])
    return out


def _fold(c, n):
    out = [Fraction(0)] * n
    for t, v in enumerate(c):
        out[t % n] += v
    return out


def _masses(rng, n, decay):
    x = np.exp(-decay * np.abs(np.arange(n) - rng.integers(n)) - 3 * rng.random(n))
    x[rng.random(n) < 0.1] = 0.0
    return x / np.sum(x)


@pytest.mark.parametrize("m, second", [(2, False), (3, True), (8, False), (8, True)])
def test_power_bound_holds_on_the_exact_cyclic_power(m, second):
    rng = np.random.default_rng(10 * m + second)
    x1, y1 = _masses(rng, 23, 0.3), _masses(rng, 23, 0.05)
    x2, y2 = (_masses(rng, 9, 0.5), _masses(rng, 9, 0.1)) if second else (None, None)
    n = 64                                      # shorter than m * 22 + 9 for m >= 3: indices wrap
    c1, c2, err = power_bounds_pair(x1, y1, m, x2, y2, n)
    e1 = _fold(_exact_power(x1, m, x2), n)
    e2 = _fold(_exact_power(y1, m, y2), n)
    worst = max(max(abs(Fraction(float(c)) - e) for c, e in zip(c1, e1)),
                max(abs(Fraction(float(c)) - e) for c, e in zip(c2, e2)))
    assert worst <= Fraction(err)
    assert err < 1e-13                          # an a-priori bound that says something (1-norms are 1)
    d1, d2, derr = power_bounds_pair(x1, y1, m, x2, y2, n, python=True)
    assert np.array_equal(c1, d1) and np.array_equal(c2, d2) and derr == err


@pytest.mark.parametrize("second", [False, True])
def test_power_products_kernel_equals_twin(second):
    rng = np.random.default_rng(7 + second)
    for n in (1, 2, 8, 1000):
        z = [rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n) for _ in range(4)]
        z2 = (z[2], z[3]) if second else (np.zeros(0), np.zeros(0))
        for m in (1, 2, 3, 7, 8, 13):
            got = core.power_products(z[0], z[1], *z2, m, np.empty(n), np.empty(n))
            with np.errstate(all="ignore"):         # overflow to inf and nan, alike in both
                want = core.power_products(z[0], z[1], *z2, m, np.empty(n), np.empty(n), compiled=False)
            assert np.array_equal(got[0], want[0], equal_nan=True) and np.array_equal(got[1], want[1], equal_nan=True)


def test_power_bound_refuses_arrays_longer_than_the_transform():
    x = np.ones(70) / 70
    with pytest.raises(ValueError, match="x1"):
        power_bounds_pair(x, x, 2, None, None, 64)


def test_tail_bounds_cover_the_exact_outer_masses():
    rng = np.random.default_rng(3)
    x, y = _masses(rng, 30, 0.2), _masses(rng, 7, 0.4)
    m = 5
    exact = _exact_power(x, m, y)
    lin = len(exact)
    iv = iv_context(30)
    for lo, hi, th in ((40, 100, (0.05, 0.05)), (10, 140, (0.3, 0.2)), (0, lin, (0.1, 0.1)), (60, 70, (1.0, 1.0))):
        below, above = pld.tail_bounds(x, m, y, lo, hi, th, iv)
        assert sum(exact[:lo]) <= Fraction(below) and sum(exact[hi:]) <= Fraction(above)
        assert below <= 1.0 and above <= 1.0
    # the window chosen for a tail of 1e-6 is certified at its Chernoff parameters, and shorter
    m = 8
    exact = _exact_power(x, m, y)
    lo, hi, th_lo, th_hi = pld._window(x, m, y, 1e-6)
    assert 0 < lo < hi < len(exact)
    below, above = pld.tail_bounds(x, m, y, lo, hi, (th_lo, th_hi), iv)
    assert below <= 1e-6 and above <= 1e-6
    assert sum(exact[:lo]) <= Fraction(below) and sum(exact[hi:]) <= Fraction(above)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("lam, tail, flip", [(0.5, 1e-6, False), (3.0, 1e-6, False), (0.5, 1e-2, False),
                                            (0.5, 1e-2, True)])
def test_spectral_power_encloses_the_exact_composition(monkeypatch, upper, lam, tail, flip):
    lengths = []
    real = pld.power_bounds_pair
    monkeypatch.setattr(pld, "power_bounds_pair", lambda *a, **k: lengths.append(a[5]) or real(*a, **k))
    rng = np.random.default_rng(int(10 * lam) + upper)
    mb, ms = _masses(rng, 41, 0.15), _masses(rng, 6, 0.3)
    if flip:                                    # the bulk at the other end: the window moves
        mb, ms = mb[::-1].copy(), ms[::-1].copy()
    b = pld.Pld(-20, mb * (1 + 1e-9) if upper else mb * (1 - 1e-9), 1e-30 if upper else 0.0)
    s = pld.Pld(-2, ms, 0.0)
    m = 8
    h = Fraction(1, 100)
    tilt = pld.Tilt(lam, h, iv_context(30))
    out = pld.power_spectral(b, m, s, upper, tilt, tail=tail)
    assert out is not None
    exact = _exact_power(b.m, m, s.m)
    start = m * b.start + s.start
    assert lengths and lengths[0] < len(exact)  # a window: the cyclic folding ran
    got = {out.start + j: Fraction(float(v)) for j, v in enumerate(out.m)}
    if upper:
        # every suffix of the exact composition is dominated (mass moved up is valid)
        inf = Fraction(out.inf)
        assert inf >= m * Fraction(b.inf)
        acc_exact = Fraction(0)
        suffix_got = {}
        acc = Fraction(0)
        for t in sorted(got, reverse=True):
            acc += got[t]
            suffix_got[t] = acc
        top = max(got)
        for t in range(start + len(exact) - 1, start - 1, -1):
            acc_exact += exact[t - start]
            bound = inf + (suffix_got[max(t, min(got))] if t <= top else 0)
            assert acc_exact <= bound, t
    else:
        for t, v in got.items():
            assert v <= (exact[t - start] if 0 <= t - start < len(exact) else 0), t
        # and it is not the trivial lower bound: the bulk is kept
        assert sum(got.values()) > Fraction(1, 2) * sum(exact)


CASES = [
    ("1000 x Laplace(10), epsilon", privacy_profile_epsilon, [(Laplace(10.0), 1000)], 1e-6),
    ("200 x Laplace(1), epsilon", privacy_profile_epsilon, [(Laplace(1.0), 200)], 1e-3),
    ("800 x Laplace(10) + 5 x Gaussian(30)", privacy_profile_epsilon,
     [(Laplace(10.0), 800), (Gaussian(30.0), 5)], 1e-9),
    ("500 x Laplace(10) + 300 x RR(0.01)", privacy_profile_epsilon,
     [(Laplace(10.0), 500), (RandomizedResponse(0.01), 300)], 1e-6),
    ("1000 x Laplace(10), delta", privacy_profile_delta, [(Laplace(10.0), 1000)], 25.0),
]


@pytest.mark.parametrize("name, func, mechs, arg", CASES, ids=[c[0] for c in CASES])
def test_transform_power_against_binary_powering(monkeypatch, name, func, mechs, arg):
    ran = []
    real = pld.power_spectral

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        ran.append(out is not None)
        return out

    monkeypatch.setattr(pld, "power_spectral", spy)
    new = func(mechs, arg)
    assert ran and all(ran)                     # the transform power ran (and did not decline)
    monkeypatch.setattr(pld, "SPECTRAL_M", 0)
    ran.clear()
    old = func(mechs, arg)
    assert not ran
    width = old.upper - old.lower
    assert new.lower <= old.upper and old.lower <= new.upper
    assert new.upper <= old.upper + 1e-3 * width
    assert new.lower >= old.lower - 1e-3 * width
