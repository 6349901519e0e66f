"""Tight privacy-profile enclosures: exact lattices, connect-the-dots spreading, certified FFT."""
import math

import mpmath
import numpy as np
import pytest

from refdp.utils.precision import iv_context, mp_context
from refdp.accounting import optimal_composition_delta, optimal_composition_epsilon
from refdp import core
from refdp.utils.fftconv import _tables, convolve_bounds, convolve_bounds_pair
from refdp.accounting.gaussian_exact import gaussian_delta
from refdp.accounting.profiles import (DiscreteLaplace, Gaussian, Laplace, RandomizedResponse,
                                       privacy_profile_delta, privacy_profile_epsilon)


def _lap1(t, a, mp):
    """delta of one Laplace mechanism (a = sensitivity / scale) at any real t."""
    if t >= a:
        return mp.mpf(0)
    if t <= -a:
        return 1 - mp.exp(t)
    return 1 - mp.exp((t - a) / 2)


def _lap2(eps, a, mp):
    """delta of two Laplace mechanisms: E over the first loss of the one-mechanism profile."""
    dens = lambda l: mp.exp(-(a - l) / 2) / 4 * _lap1(eps - l, a, mp)
    pts = sorted({-a, a, min(max(eps - a, -a), a), min(max(eps + a, -a), a)})
    integral = mp.quad(dens, pts)
    return _lap1(eps - a, a, mp) / 2 + mp.exp(-a) / 2 * _lap1(eps + a, a, mp) + integral


@pytest.mark.parametrize("scale", [1.0, 2.0, 0.7])
def test_one_and_two_laplace_against_closed_form(scale):
    mp = mp_context(30)
    a = mp.mpf(1) / scale
    for eps in (0.0, 0.35, 0.9 / scale):
        exact1 = _lap1(mp.mpf(eps), a, mp)
        enc = privacy_profile_delta([Laplace(scale)], eps)
        assert enc.lower <= exact1 <= enc.upper
        assert enc.width <= 2e-6           # (e^h - 1)/4 times a bin mass, h = 1e-3
        exact2 = _lap2(mp.mpf(eps), a, mp)
        enc2 = privacy_profile_delta([(Laplace(scale), 2)], eps)
        assert enc2.lower <= exact2 <= enc2.upper
        assert enc2.width <= 4e-6


@pytest.mark.parametrize("eps0, k", [(0.1, 100), (0.5, 20), (1.0, 7)])
def test_randomized_response_on_the_lattice_is_exact(eps0, k):
    enc = privacy_profile_epsilon([(RandomizedResponse(eps0), k)], 1e-6)
    exact = optimal_composition_epsilon(eps0, k, 1e-6)
    assert enc.lower <= exact <= enc.upper
    assert enc.width <= 1e-9 * exact
    for et in (0.0, 1.0):
        d = privacy_profile_delta([(RandomizedResponse(eps0), k)], et)
        assert d.lower <= optimal_composition_delta(eps0, k, et) <= d.upper
        assert d.width <= 1e-10 * d.upper + 1e-300


def test_discrete_laplace_brute_force():
    # sensitivity 2: losses 2/t, 0, -2/t; three mechanisms enumerated exactly
    t, k, mp = 2.0, 3, mp_context(40)
    r = mp.exp(-1 / mp.mpf(t))
    c = (1 - r) / (1 + r)
    atoms = [(mp.mpf(2) / t, 1 / (1 + r)), (mp.mpf(0), c * r), (-mp.mpf(2) / t, r ** 2 / (1 + r))]
    for eps in (0.0, 0.5, 1.5):
        exact = mp.mpf(0)
        for i in atoms:
            for j in atoms:
                for l in atoms:
                    L = i[0] + j[0] + l[0]
                    if L > eps:
                        exact += i[1] * j[1] * l[1] * (1 - mp.exp(eps - L))
        enc = privacy_profile_delta([(DiscreteLaplace(t, 2), k)], eps)
        assert enc.lower <= exact <= enc.upper
        assert enc.width <= 1e-11 * exact


def test_randomized_response_with_gaussian_against_interval_sum():
    eps0, k, sigma = 0.5, 10, 1.0
    iv = iv_context(40)
    e = iv.mpf(eps0)
    p = iv.exp(e) / (1 + iv.exp(e))
    for eps in (0.5, 2.0, 5.0):
        exact = iv.mpf(0)
        for l in range(k + 1):
            w = iv.mpf(math.comb(k, l)) * p ** (k - l) * (1 - p) ** l
            exact += w * gaussian_delta(iv.mpf(1) / sigma, iv.mpf(eps) - (k - 2 * l) * e, iv)
        enc = privacy_profile_delta([(RandomizedResponse(eps0), k), Gaussian(sigma)], eps)
        assert enc.lower <= float(exact.a) and float(exact.b) <= enc.upper
        assert enc.width <= 1e-3 * enc.upper


def test_width_does_not_grow_like_k_grid_steps():
    # the former enclosures were k * grid_step = 0.1 wide at k = 100
    enc = privacy_profile_epsilon([(Laplace(10.0), 100)], 1e-6)
    assert 0 < enc.width <= 1e-4


@pytest.mark.slow
def test_thousand_laplace_enclosure_is_narrow():
    big = privacy_profile_epsilon([(Laplace(10.0), 1000)], 1e-6)
    assert big.lower <= big.upper <= 1000 * 0.1           # never above pure composition
    assert big.width <= 1e-2 * big.upper


@pytest.mark.parametrize("n", [3, 64, 1000])
def test_fft_convolution_bound_and_twin(n):
    rng = np.random.default_rng(n)
    a = rng.random(n) ** 6
    b = rng.random(n + 5) ** 6
    c, err = convolve_bounds(a, b)
    c2, err2 = convolve_bounds(a, b, python=True)
    assert np.array_equal(c, c2) and err == err2            # the twin is bit-identical
    mp = mp_context(50)
    exact = [mp.fsum(mp.mpf(a[j]) * mp.mpf(b[i - j]) for j in range(max(0, i - b.size + 1), min(i, a.size - 1) + 1))
             for i in range(0, c.size, max(1, c.size // 40))]
    for i, v in zip(range(0, c.size, max(1, c.size // 40)), exact):
        assert abs(mp.mpf(c[i]) - v) <= err
    assert err <= 1e-12 * np.sum(a) * np.sum(b)
    sq, err_sq = convolve_bounds(a, a)                       # a square transforms once
    sq2, err_sq2 = convolve_bounds(a, a.copy())
    assert np.array_equal(sq, sq2) and err_sq == err_sq2


@pytest.mark.parametrize("n", [1, 2, 8, 4096, 8192, 1 << 15])
def test_blocked_fft_kernel_equals_twin(n):
    # the kernel runs the stages up to 4096 block by block and its butterflies as
    # vectorisable runs; the twin runs stage by stage: the results must be the same bits
    rng = np.random.default_rng(n)
    if n > 1:
        wr, wi, perm = _tables(n)
    else:
        wr, wi, perm = np.ones(1), np.zeros(1), np.zeros(1, dtype=np.int64)
    for scale in (1.0, 1e-300, 1e200):
        re, im = rng.random(n) * scale, rng.standard_normal(n) * scale
        got = core.fft_inplace(re.copy(), im.copy(), wr, wi, perm)
        want = core.fft_inplace(re.copy(), im.copy(), wr, wi, perm, compiled=False)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@pytest.mark.parametrize("n", [1, 2, 7, 64, 4096])
def test_paired_products_kernel_equals_twin(n):
    rng = np.random.default_rng(n + 1)
    z = [rng.standard_normal(n) * 10.0 ** rng.integers(-150, 150, n) for _ in range(4)]
    got = core.pair_products(*z, np.empty(n), np.empty(n))
    want = core.pair_products(*z, np.empty(n), np.empty(n), compiled=False)
    assert np.array_equal(got[0], want[0], equal_nan=True) and np.array_equal(got[1], want[1], equal_nan=True)
    same = core.pair_products(z[0], z[1], z[0], z[1], np.empty(n), np.empty(n))
    same_twin = core.pair_products(z[0], z[1], z[0], z[1], np.empty(n), np.empty(n), compiled=False)
    assert np.array_equal(same[0], same_twin[0], equal_nan=True)


@pytest.mark.parametrize("n, same", [(5, False), (300, False), (300, True), (2500, False)])
def test_paired_convolution_bound_and_twin(n, same):
    rng = np.random.default_rng(n)
    a1, a2 = rng.random(n) ** 6, rng.random(n) ** 3 * 1e-40
    b1, b2 = (a1, a2) if same else (rng.random(n) ** 2, rng.random(n) * 1e3)
    c1, c2, err = convolve_bounds_pair(a1, b1, a2, b2)
    p1, p2, perr = convolve_bounds_pair(a1, b1, a2, b2, python=True)
    assert np.array_equal(c1, p1) and np.array_equal(c2, p2) and err == perr
    mp = mp_context(50)
    step = max(1, c1.size // 25)
    for x, y, c in ((a1, b1, c1), (a2, b2, c2)):
        for i in range(0, c.size, step):
            js = range(max(0, i - y.size + 1), min(i, x.size - 1) + 1)
            exact = mp.fsum(mp.mpf(x[j]) * mp.mpf(y[i - j]) for j in js)
            assert abs(mp.mpf(c[i]) - exact) <= err


def test_twiddles_within_the_assumed_accuracy():
    wr, wi, _ = _tables(1 << 12)
    mp = mp_context(40)
    n = 1 << 12
    for j in list(range(0, n // 2, 97)) + [n // 8, n // 4 - 1]:
        ang = 2 * mp.pi * j / n
        dev = abs(mp.mpf(wr[j]) - mp.cos(ang)) + abs(mp.mpf(wi[j]) + mp.sin(ang))
        assert dev <= 2.0 ** -53


def test_mixed_neighbour_relations_are_refused():
    mix = [Laplace(1.0), Gaussian(2.0, relation="replace-one")]
    for func, arg in ((privacy_profile_delta, 1.0), (privacy_profile_epsilon, 1e-6)):
        with pytest.raises(ValueError, match=r"The 'mechanisms' parameter of " + func.__name__
                           + r" must be mechanisms sharing one neighbour relation .*"
                           r"Got a mix of 'add-remove' and 'replace-one' instead"):
            func(mix, arg)
    with pytest.raises(ValueError, match=r"The 'relation' parameter of Laplace must be one of "
                       r"'add-remove', 'replace-one'. Got 'swap' instead"):
        Laplace(1.0, relation="swap")
    same = [Laplace(1.0, relation="replace-one"), Gaussian(2.0, relation="replace-one")]
    assert privacy_profile_delta(same, 1.0) == privacy_profile_delta([Laplace(1.0), Gaussian(2.0)], 1.0)


@pytest.mark.parametrize("delta", [1e-6, 1e-15])
def test_fft_steps_agree_with_direct_convolution(monkeypatch, delta):
    import refdp.utils.pld as pld
    mech = [(Laplace(10.0), 40), (Gaussian(8.0), 5)]
    direct = privacy_profile_epsilon(mech, delta)
    monkeypatch.setattr(pld, "DIRECT_MAX", 0)        # every large step by (tilted) FFT
    fft = privacy_profile_epsilon(mech, delta)
    assert fft.lower <= direct.upper and direct.lower <= fft.upper     # both contain the truth
    assert fft.width <= 2 * direct.width + 1e-9 * direct.upper
    monkeypatch.undo()
    # the exact delta at the upper end is at most delta (the two queries may tilt differently,
    # so only the enclosures' consistency is asserted)
    assert privacy_profile_delta(mech, direct.upper).lower <= delta
