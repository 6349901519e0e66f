"""Exact discrete samplers: kernel == twin bit for bit, laws, determinism, threads, bad input.

Statistical tests. Each law test compares the counts of draws in a partition
of the integers into cells with the exact cell probabilities: the count of a
cell is Binomial(n, p) under the law, and it must lie in the exact acceptance
interval [lo, hi] with P[X < lo] + P[X > hi] <= a (scipy.stats.binom ppf/isf).
With a = ALPHA / (number of law tests * cells of the test) (Bonferroni), a
correct sampler fails the whole file with probability at most ALPHA = 1e-6
for a random seed; the seeds are fixed, so the outcome is reproducible.
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction as F

import numpy as np
import pytest
from scipy import stats

from refdp import _core
from refdp.twins import core as _twins
from refdp.mechanisms import (
    discrete_gaussian,
    discrete_gaussian_mechanism,
    discrete_gaussian_sigma2,
    discrete_laplace,
    discrete_laplace_mechanism,
    discrete_laplace_scale,
)

ALPHA = 1e-6


def _same_stream(seed, kernel, twin, bit_generator=np.random.PCG64):
    """Run ``kernel(bg)`` and ``twin(words)`` on equal seeds; both results and end states agree."""
    bg1, bg2 = bit_generator(seed), bit_generator(seed)
    got = kernel(bg1)
    want = twin(_twins.word_source(bg2))
    assert [int(v) for v in got] == [int(v) for v in want]
    assert bg1.random_raw() == bg2.random_raw()   # the same number of words was drawn


# ------------------------------------------------------------ kernel == twin ----

@pytest.mark.parametrize("n", [1, 2, 3, 10, 2**32 + 1, 2**63 + 5, 2**64 - 1, 2**64, 2**64 + 1,
                               3**80, 2**128 - 1])
def test_uniform_below_equals_twin(n):
    _same_stream(n % 1000, lambda bg: _core._py_uniform_below(bg, n, 300),
                 lambda w: [_twins.uniform_below(w, n) for _ in range(300)])


@pytest.mark.parametrize("num, den", [(0, 1), (1, 1), (1, 2), (3, 7), (7, 3), (5, 10**18),
                                      (2**64 - 2, 2**64 - 1), (2**63, 3)])
def test_bernoulli_and_bernoulli_exp_equal_twins(num, den):
    _same_stream(1, lambda bg: _core._py_bernoulli(bg, num, den, 400),
                 lambda w: [_twins.bernoulli(w, num, den) for _ in range(400)])
    _same_stream(2, lambda bg: _core._py_bernoulli(bg, num, den, 400, True),
                 lambda w: [_twins.bernoulli_exp(w, num, den) for _ in range(400)])


LAPLACE_ST = [(1, 1), (1, 10), (10, 1), (3, 7), (1, 10**6), (7, 2**40 + 3),
              (1, 2**63 - 1),       # |Z| >= 2**63 often: the kernel hands such draws back
              (2**63, 3), (2**64 - 1, 2**64 - 1)]


@pytest.mark.parametrize("s, t", LAPLACE_ST)
def test_geometric_and_discrete_laplace_equal_twins(s, t):
    _same_stream(3, lambda bg: _core._py_geometric_exp(bg, s, t, 300),
                 lambda w: [_twins.geometric_exp(w, s, t) for _ in range(300)])
    _same_stream(4, lambda bg: _core._py_discrete_laplace(bg, s, t, 300),
                 lambda w: [_twins.discrete_laplace(w, s, t) for _ in range(300)])


GAUSS_AB = [(1, 1), (2, 3), (49, 100), (100, 1), (10**12, 1), (1, 10**6), (314159**2, 10**10),
            (2**61 + 1, 2**62 - 1)]   # (|Y| b t - a)**2 >= 2**128 for |Y| >= 4: the exact hand-back


@pytest.mark.parametrize("a, b", GAUSS_AB)
def test_discrete_gaussian_equals_twin(a, b):
    t = math.isqrt(a // b) + 1
    _same_stream(5, lambda bg: _core._py_discrete_gaussian(bg, a, b, t, 400),
                 lambda w: [_twins.discrete_gaussian(w, a, b) for _ in range(400)])


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox,
                                           np.random.SFC64, np.random.MT19937])
def test_word_source_matches_next_uint64(bit_generator):
    _same_stream(6, lambda bg: _core._py_discrete_laplace(bg, 1, 10, 500),
                 lambda w: [_twins.discrete_laplace(w, 1, 10) for _ in range(500)], bit_generator)


def test_public_samplers_use_kernel_and_twin_consistently():
    # within the kernel bounds the public function equals the twin on the same seed;
    # beyond them (a 65-bit scale, a float sigma) it is the twin itself
    for scale, draw in [(F(10), None), (F(2**64 + 1, 3), None)]:
        got = discrete_laplace(scale, size=200, rng=np.random.default_rng(9))
        words = _twins.word_source(np.random.default_rng(9).bit_generator)
        want = [_twins.discrete_laplace(words, scale.denominator, scale.numerator) for _ in range(200)]
        assert [int(v) for v in got] == want
    for sigma in (3, F(7, 10), 0.7):
        s2 = F(sigma) ** 2
        got = discrete_gaussian(sigma, size=200, rng=np.random.default_rng(9))
        words = _twins.word_source(np.random.default_rng(9).bit_generator)
        want = [_twins.discrete_gaussian(words, s2.numerator, s2.denominator) for _ in range(200)]
        assert [int(v) for v in got] == want


# ---------------------------------------------------------------- laws ----

def _laplace_cdf(k, scale):
    """P[Z <= k] for the discrete Laplace law of the given scale (closed form)."""
    q = math.exp(-1.0 / scale)
    return 1.0 - q ** (k + 1) / (1.0 + q) if k >= 0 else q ** (-k) / (1.0 + q)


def _gaussian_cdf_table(sigma2):
    half = int(40 * math.sqrt(sigma2)) + 40
    z = np.arange(-half, half + 1)
    w = np.exp(-(z.astype(np.float64) ** 2) / (2.0 * sigma2))
    return z, np.cumsum(w) / math.fsum(w)


def _cells(cdf, lo, hi):
    """Cut points: integer quantiles at 2%, 4%, ..., 98% (deduplicated)."""
    cuts = []
    for u in np.linspace(0.02, 0.98, 49):
        a, b = lo, hi
        while a < b:                       # smallest k with cdf(k) >= u
            m = (a + b) // 2
            if cdf(m) >= u:
                b = m
            else:
                a = m + 1
        if not cuts or a > cuts[-1]:
            cuts.append(a)
    return cuts


def _law_test(draws, cdf, cuts, level):
    """Every cell count within its exact binomial acceptance interval at level / cells."""
    draws = np.asarray(draws, dtype=np.float64).ravel()
    n = draws.size
    edges = [-math.inf] + [c + 0.5 for c in cuts]
    probs, counts = [], []
    prev = 0.0
    for i, c in enumerate(cuts):
        p = cdf(c)
        probs.append(p - prev)
        prev = p
    probs.append(1.0 - prev)
    idx = np.searchsorted(np.array(edges[1:]), draws)
    counts = np.bincount(idx, minlength=len(probs))
    a = level / len(probs)
    bad = []
    for j, (cnt, p) in enumerate(zip(counts, probs)):
        lo, hi = stats.binom.ppf(a / 2, n, p), stats.binom.isf(a / 2, n, p)
        if not lo <= cnt <= hi:
            bad.append((j, int(cnt), float(lo), float(hi)))
    assert not bad, bad


LAPLACE_SCALES = [F(1, 10), F(1, 3), 1, F(5, 2), 10, 137, 10**4, 10**6, 0.7, 3.14159]
GAUSS_SIGMAS = [F(1, 10), F(7, 10), 1, F(3, 2), 3, 25, 0.7, 3.14159]
N_LAW_TESTS = len(LAPLACE_SCALES) + len(GAUSS_SIGMAS)


@pytest.mark.parametrize("scale", LAPLACE_SCALES, ids=str)
def test_discrete_laplace_law(scale):
    b = float(F(scale))
    cdf = lambda k: _laplace_cdf(k, b)  # noqa: E731
    span = int(60 * b) + 60
    cuts = _cells(cdf, -span, span)
    draws = discrete_laplace(scale, size=40_000, rng=np.random.default_rng(2020))
    _law_test(draws, cdf, cuts, ALPHA / N_LAW_TESTS)


@pytest.mark.parametrize("sigma", GAUSS_SIGMAS, ids=str)
def test_discrete_gaussian_law(sigma):
    s2 = float(F(sigma) ** 2)
    z, table = _gaussian_cdf_table(s2)
    cdf = lambda k: float(table[min(max(k - z[0], 0), len(z) - 1)]) if k >= z[0] else 0.0  # noqa: E731
    cuts = _cells(cdf, int(z[0]), int(z[-1]))
    n = 40_000 if isinstance(sigma, (int, F)) else 8_000    # floats take the (slower) twin
    draws = discrete_gaussian(sigma, size=n, rng=np.random.default_rng(2020))
    _law_test(draws, cdf, cuts, ALPHA / N_LAW_TESTS)


# ------------------------------------------------------ determinism, threads ----

def test_determinism_for_a_given_seed():
    for f in (lambda r: discrete_laplace(F(7, 3), size=1000, rng=r),
              lambda r: discrete_gaussian(F(7, 3), size=1000, rng=r)):
        np.testing.assert_array_equal(f(123), f(123))
        np.testing.assert_array_equal(f(np.random.SeedSequence(5)), f(np.random.default_rng(5)))
        assert not np.array_equal(f(1), f(2))


def test_generator_stream_is_shared_not_reseeded():
    g = np.random.default_rng(7)
    first = discrete_laplace(10, size=50, rng=g)
    second = discrete_laplace(10, size=50, rng=g)
    both = discrete_laplace(10, size=100, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(np.concatenate([first, second]), both)


def test_threads_with_separate_generators_equal_sequential():
    seeds = [11, 12]
    sequential = [discrete_laplace(10, size=200_000, rng=s) for s in seeds]
    sequential_g = [discrete_gaussian(5, size=50_000, rng=s) for s in seeds]
    results = {}

    def work(i, s):
        results[i] = (discrete_laplace(10, size=200_000, rng=s), discrete_gaussian(5, size=50_000, rng=s))

    threads = [threading.Thread(target=work, args=(i, s)) for i, s in enumerate(seeds)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for i in range(2):
        np.testing.assert_array_equal(results[i][0], sequential[i])
        np.testing.assert_array_equal(results[i][1], sequential_g[i])


# ------------------------------------------------------------ mechanisms ----

def test_mechanisms_add_the_samplers_noise():
    v = np.array([[5, -3], [0, 2**40]], dtype=np.int64)
    out = discrete_laplace_mechanism(v, 2, F(1, 2), rng=3)
    noise = discrete_laplace(discrete_laplace_scale(2, F(1, 2)), size=4, rng=3).reshape(2, 2)
    np.testing.assert_array_equal(out, v + noise)
    out = discrete_gaussian_mechanism(v, 3, 0.25, rng=4)
    s2 = discrete_gaussian_sigma2(3, 0.25)
    assert s2 == 18                       # 3**2 / (2 * 1/4); sigma = sqrt(18) is irrational
    words = _twins.word_source(np.random.default_rng(4).bit_generator)
    noise = np.array([_twins.discrete_gaussian(words, 18, 1) for _ in range(4)]).reshape(2, 2)
    np.testing.assert_array_equal(out, v + noise)


def test_mechanism_scalars_are_exact_python_ints():
    out = discrete_laplace_mechanism(2**100, 1, 1, rng=0)
    assert isinstance(out, int) and abs(out - 2**100) < 100
    out = discrete_gaussian_mechanism(np.int16(7), 1, 1, rng=0)
    assert isinstance(out, int)


def test_uint64_extremes_do_not_overflow():
    v = np.array([2**64 - 1, 2**63, 0], dtype=np.uint64)
    out = discrete_laplace_mechanism(v, 1, F(1, 50), rng=1)
    assert out.dtype == object
    noise = discrete_laplace(50, size=3, rng=1)
    assert [int(x) for x in out] == [int(a) + int(z) for a, z in zip(v, noise)]
    v = np.array([2**63 - 1, -(2**63 - 1)], dtype=np.int64)
    out = discrete_laplace_mechanism(v, 1, F(1, 50), rng=2)
    noise = discrete_laplace(50, size=2, rng=2)
    assert [int(x) for x in out] == [int(a) + int(z) for a, z in zip(v, noise)]
    assert out.dtype == (np.int64 if all(abs(int(a) + int(z)) < 2**63 for a, z in zip(v, noise)) else object)


def test_huge_scale_returns_exact_python_ints():
    out = discrete_laplace(2.0**80, size=5, rng=0)
    assert out.dtype == object and all(isinstance(v, int) for v in out)
    assert max(abs(v) for v in out) > 2**63


def test_empty_and_zero_size():
    assert discrete_laplace(1, size=0, rng=0).shape == (0,)
    assert discrete_gaussian(1, size=(3, 0), rng=0).shape == (3, 0)
    assert discrete_laplace_mechanism(np.zeros((0,), dtype=np.int64), 1, 1, rng=0).shape == (0,)


# ------------------------------------------------------------- bad input ----

BAD_RATIONALS = [0, -1, -0.5, 0.0, math.nan, math.inf, -math.inf, True, "1", None, 2**5000,
                 F(1, 2**5000), 1j]


@pytest.mark.parametrize("bad", BAD_RATIONALS, ids=repr)
def test_bad_scale_and_sigma(bad):
    with pytest.raises(ValueError, match=r"The 'scale' parameter of discrete_laplace must be a positive finite rational"):
        discrete_laplace(bad)
    with pytest.raises(ValueError, match=r"The 'sigma' parameter of discrete_gaussian must be"):
        discrete_gaussian(bad)
    with pytest.raises(ValueError, match=r"The 'epsilon' parameter of discrete_laplace_mechanism"):
        discrete_laplace_mechanism(1, 1, bad)
    with pytest.raises(ValueError, match=r"The 'rho' parameter of discrete_gaussian_mechanism"):
        discrete_gaussian_mechanism(1, 1, bad)
    with pytest.raises(ValueError, match=r"The 'sensitivity' parameter of discrete_gaussian_mechanism"):
        discrete_gaussian_mechanism(1, bad, 1)


def test_derived_parameters_beyond_the_bit_bound():
    with pytest.raises(ValueError, match=r"'sigma' parameter .* sigma\*\*2 exceeds the bit bound"):
        discrete_gaussian(2**3000)
    with pytest.raises(ValueError, match=r"'epsilon' parameter .* scale sensitivity / epsilon exceeds"):
        discrete_laplace_mechanism(0, 2**4000, F(1, 2**200))


@pytest.mark.parametrize("bad", [1.5, 2.0, math.nan, True, np.bool_(False), [1.0, 2.0], [True],
                                 "3", None, [1, "a"], np.array([1.5])], ids=repr)
def test_bad_values(bad):
    for mech in (discrete_laplace_mechanism, discrete_gaussian_mechanism):
        with pytest.raises(ValueError, match=rf"The 'value' parameter of {mech.__name__} must be an int"):
            mech(bad, 1, 1)


@pytest.mark.parametrize("bad", [-1, 1.0, (2, -1), True, 2**40, (2**20, 2**20), "3"], ids=repr)
def test_bad_size(bad):
    with pytest.raises(ValueError, match=r"The 'size' parameter of discrete_(laplace|gaussian)"):
        discrete_laplace(1, size=bad)
    with pytest.raises(ValueError, match=r"The 'size' parameter of discrete_gaussian"):
        discrete_gaussian(1, size=bad)


def test_bad_rng():
    with pytest.raises(ValueError, match="'rng' parameter"):
        discrete_laplace(1, rng="seed")


# ---------------------------------------------------- registered checks ----

def test_privacy_checks_hold_and_flag_wrong_variants():
    from proofs_checks.canonne_kamath_steinke.discrete_laplace_privacy import privacy_result
    from proofs_checks.canonne_kamath_steinke.theorem_4_discrete_gaussian_zcdp import zcdp_result
    from refdp.verify import Verdict

    assert privacy_result().verdict is Verdict.HOLDS
    assert privacy_result().measured == privacy_result().bound           # attained: tight
    halved = privacy_result(lambda s, e: discrete_laplace_scale(s, e) / 2)
    assert halved.verdict is Verdict.FAILS
    assert zcdp_result().verdict is Verdict.HOLDS
    halved_sigma = zcdp_result(lambda s, r: discrete_gaussian_sigma2(s, r) / 4)
    assert halved_sigma.verdict is Verdict.FAILS
    slightly = zcdp_result(lambda s, r: discrete_gaussian_sigma2(s, r) * F(99, 100))
    assert slightly.verdict is Verdict.FAILS


# ------------------------------------------- scale errors are caught ----
#
# The cell tests above check the shape of the law; these check its scale. The
# statistic is the count of draws with |Z| >= c, Binomial(n, p) under the law,
# with c near the point where a change of scale moves p the most relative to
# its standard deviation (c = round(1.6 t) for the Laplace scale t, round(1.6
# sigma) for the Gaussian; c = 1 for small parameters). The acceptance
# interval is the exact binomial one at level ALPHA_SCALE / (number of scale
# tests), so a correct sampler fails one of them with probability at most
# ALPHA_SCALE = 1e-6 in all. n is chosen from the exact p at the true and at
# the 5%-larger parameter so that the shift of the expected count is at least
# (z_{level/2} + z_{0.001}) standard deviations: a sampler whose scale is off
# by 5% is rejected with probability about 0.999 or more (normal
# approximation), and the tests below show that one is rejected. Parameters
# whose law is nearly a point mass (sigma = 1/10: P[Z != 0] ~ 4e-22) cannot be
# tested by sampling at all; their correctness rests on the exact algorithm
# and on kernel == twin.

ALPHA_SCALE = 1e-6
SCALE_LAPLACE = [F(1, 10), F(1, 3), 1, 0.7, F(5, 2), 10, 3.14159, 137, 10**4, 10**6, 1e6 * math.pi]
SCALE_GAUSS = [F(1, 2), 1, F(3, 2), 3, 25, 10**3, 10**6, 0.7]               # 0.7: sigma**2 = 0.49 in binary
SCALE_GAUSS_SLOW = [math.pi, 1000 * math.sqrt(2), 1e6 * math.e]           # float sigma**2, pure-Python twin
N_SCALE_TESTS = len(SCALE_LAPLACE) + len(SCALE_GAUSS) + len(SCALE_GAUSS_SLOW)
_SCALE_LEVEL = ALPHA_SCALE / N_SCALE_TESTS
_N_CAP = 6_000_000


def _laplace_tail(c, t):
    """P[|Z| >= c], c >= 1, discrete Laplace of scale t: 2 q**c / (1 + q), q = exp(-1/t)."""
    import mpmath
    with mpmath.workdps(30):
        q = mpmath.exp(-1 / mpmath.mpf(F(t).numerator) * F(t).denominator)
        return float(2 * q**c / (1 + q))


def _gauss_tail(c, sigma):
    """P[|Z| >= c], c >= 1, discrete Gaussian with parameter sigma (mpmath, 30 digits).

    sigma <= 50: direct sums of exp(-k**2 / (2 s2)) over |k| <= 60 sigma + 60
    (the rest is below 1e-700 relative). sigma > 20: Euler-Maclaurin,
    sum_{k >= c} f(k) = int_c^inf f + f(c)/2 - f'(c)/12 + R with |R| below
    f(c) (c / s2)**3 / 720 up to a constant (relative 8e-10 at sigma = 40, less beyond), and the
    total sqrt(2 pi) sigma (1 + 2 exp(-2 pi**2 s2) + ...) = sqrt(2 pi) sigma to
    far more than double precision.
    """
    import mpmath
    with mpmath.workdps(30):
        sig = mpmath.mpf(F(sigma).numerator) / F(sigma).denominator
        s2 = sig * sig
        f = lambda k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s2))  # noqa: E731
        if sig <= 50:
            top = int(60 * sig) + 60
            total = 1 + 2 * mpmath.fsum(f(k) for k in range(1, top))
            tail = 2 * mpmath.fsum(f(k) for k in range(c, top))
        else:
            total = mpmath.sqrt(2 * mpmath.pi) * sig
            fc = f(c)
            tail = 2 * (sig * mpmath.sqrt(mpmath.pi / 2) * mpmath.erfc(c / (sig * mpmath.sqrt(2)))
                        + fc / 2 + (c / s2) * fc / 12)
        return float(tail / total)


def _scale_plan(tail, param, larger):
    c = max(1, round(1.6 * float(F(param))))
    p, p1 = tail(c, param), tail(c, larger)
    z = stats.norm.isf(_SCALE_LEVEL / 2) + stats.norm.isf(1e-3)
    n = math.ceil(z * z * max(p * (1 - p), p1 * (1 - p1)) / (p1 - p) ** 2 * 1.05)
    assert n <= _N_CAP, (param, n)
    return c, p, n


def _scale_test(draws, c, p):
    """True when the count of |Z| >= c is inside the exact acceptance interval of Binomial(n, p)."""
    draws = np.asarray(draws).astype(object if np.asarray(draws).dtype == object else np.int64).ravel()
    n = draws.size
    cnt = int(np.count_nonzero(np.abs(draws) >= c))
    lo, hi = stats.binom.ppf(_SCALE_LEVEL / 2, n, p), stats.binom.isf(_SCALE_LEVEL / 2, n, p)
    return lo <= cnt <= hi, (cnt, lo, hi, n)


def _larger(param):
    return F(param) * F(21, 20) if isinstance(param, (int, F)) else param * 1.05


@pytest.mark.parametrize("scale", SCALE_LAPLACE, ids=str)
def test_discrete_laplace_scale_is_right_and_a_5_percent_error_is_caught(scale):
    c, p, n = _scale_plan(_laplace_tail, scale, _larger(scale))
    ok, info = _scale_test(discrete_laplace(scale, size=n, rng=np.random.default_rng(514)), c, p)
    assert ok, ("correct sampler rejected", scale, info)
    ok, info = _scale_test(discrete_laplace(_larger(scale), size=n, rng=np.random.default_rng(515)), c, p)
    assert not ok, ("scale x 1.05 not detected", scale, info)


@pytest.mark.parametrize("sigma", SCALE_GAUSS, ids=str)
def test_discrete_gaussian_scale_is_right_and_a_5_percent_error_is_caught(sigma):
    c, p, n = _scale_plan(_gauss_tail, sigma, _larger(sigma))
    ok, info = _scale_test(discrete_gaussian(sigma, size=n, rng=np.random.default_rng(516)), c, p)
    assert ok, ("correct sampler rejected", sigma, info)
    ok, info = _scale_test(discrete_gaussian(_larger(sigma), size=n, rng=np.random.default_rng(517)), c, p)
    assert not ok, ("sigma x 1.05 not detected", sigma, info)


@pytest.mark.slow
@pytest.mark.parametrize("sigma", SCALE_GAUSS_SLOW, ids=str)
def test_discrete_gaussian_float_sigma_scale_slow(sigma):
    c, p, n = _scale_plan(_gauss_tail, sigma, _larger(sigma))
    ok, info = _scale_test(discrete_gaussian(sigma, size=n, rng=np.random.default_rng(518)), c, p)
    assert ok, ("correct sampler rejected", sigma, info)
    ok, info = _scale_test(discrete_gaussian(_larger(sigma), size=n, rng=np.random.default_rng(519)), c, p)
    assert not ok, ("sigma x 1.05 not detected", sigma, info)
