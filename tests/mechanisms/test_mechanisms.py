"""refdp.mechanisms: validation, determinism, shapes and output distributions.

Statistical tests state their false-failure rate ALPHA (over seeds; the seeds
are fixed, so every run gives the same verdict) and derive their critical
values from it.
"""
import decimal
import doctest
import importlib
import itertools
import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st

import refdp.mechanisms as M
from refdp import core
from refdp.utils.validation import Interval
from refdp.mechanisms import (
    exponential_mechanism, exponential_mechanism_distribution, gaussian_mechanism,
    gaussian_sigma_zcdp, laplace_mechanism, laplace_scale, report_noisy_max,
    report_noisy_max_distribution, spherical_laplace,
)
from refdp.verify.verdict import Verdict
from tests._support.paths import ROOT

ALPHA = 1e-6
POSITIVE_BAD = Interval(float, 0, None, closed="neither").invalid_examples()   # nan, -1, 0, inf
MODULES = ("laplace", "gaussian", "gaussian_approx", "exponential", "noisy_max", "spherical")

# ------------------------------------------------------------ validation ----


def test_message_shape():
    with pytest.raises(ValueError) as info:
        laplace_mechanism(1.0, -1.0)
    assert str(info.value) == ("The 'epsilon' parameter of laplace_mechanism must be a float "
                               "in the range (0, inf). Got -1.0 instead.")


CALLS = {
    "laplace_scale": lambda **k: laplace_scale(k.get("epsilon", 1.0), k.get("sensitivity", 1.0)),
    "laplace_mechanism": lambda **k: laplace_mechanism(0.0, k.get("epsilon", 1.0),
                                                       sensitivity=k.get("sensitivity", 1.0)),
    "gaussian_sigma_zcdp": lambda **k: gaussian_sigma_zcdp(k.get("rho", 1.0), k.get("sensitivity", 1.0)),
    "gaussian_mechanism": lambda **k: gaussian_mechanism(0.0, k.get("rho", 1.0),
                                                         sensitivity=k.get("sensitivity", 1.0)),
    "exponential_mechanism": lambda **k: exponential_mechanism(
        [0.0, 1.0], k.get("epsilon", 1.0), sensitivity=k.get("sensitivity", 1.0)),
    "exponential_mechanism_distribution": lambda **k: exponential_mechanism_distribution(
        [0.0, 1.0], k.get("epsilon", 1.0), sensitivity=k.get("sensitivity", 1.0)),
    "report_noisy_max": lambda **k: report_noisy_max(
        [0.0, 1.0], k.get("epsilon", 1.0), sensitivity=k.get("sensitivity", 1.0)),
    "report_noisy_max_distribution": lambda **k: report_noisy_max_distribution(
        [0.0, 1.0], k.get("epsilon", 1.0), sensitivity=k.get("sensitivity", 1.0)),
    "spherical_laplace": lambda **k: spherical_laplace(2, k.get("beta", 1.0)),
}
POSITIVE_PARAMS = [(f, "sensitivity") for f in CALLS if f != "spherical_laplace"] + [
    (f, "rho" if "gaussian" in f else "beta" if "spherical" in f else "epsilon") for f in CALLS]


@pytest.mark.parametrize("func, param", POSITIVE_PARAMS)
@pytest.mark.parametrize("bad", POSITIVE_BAD + [True, "x", None])
def test_positive_parameters_rejected(func, param, bad):
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of {func} must be "):
        CALLS[func](**{param: bad})


@pytest.mark.parametrize("func", [laplace_mechanism, gaussian_mechanism])
@pytest.mark.parametrize("value", [math.nan, [1.0, math.inf], [[0.0, -math.inf]], "abc"])
def test_value_must_be_finite(func, value):
    with pytest.raises(ValueError, match=rf"The 'value' parameter of {func.__name__} must be"):
        func(value, 1.0)


@pytest.mark.parametrize("func", [exponential_mechanism, report_noisy_max])
@pytest.mark.parametrize("scores, what", [
    ([], "at least 1 element"), ([[0.0, 1.0]], "1-dimensional"), (3.0, "1-dimensional"),
    ([0.0, math.nan], "finite"), ([math.inf, 0.0], "finite"),
])
def test_sampler_scores_rejected(func, scores, what):
    with pytest.raises(ValueError, match=rf"The 'scores' parameter of {func.__name__} must be .*{what}"):
        func(scores, 1.0)


@pytest.mark.parametrize("func", [exponential_mechanism_distribution, report_noisy_max_distribution])
@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("scores", [[], [[0, 1]], 3, "12", [0, "abc"], [0, "nan"], [float("inf")],
                                    [0, True], [0, None], [0, 1j]])
def test_distribution_scores_rejected(func, exact, scores):
    with pytest.raises(ValueError, match=rf"The 'scores' parameter of {func.__name__} must be "):
        func(scores, 1, exact=exact)


@pytest.mark.parametrize("func", [exponential_mechanism_distribution, report_noisy_max_distribution])
@pytest.mark.parametrize("kwargs, param", [
    (dict(epsilon="0"), "epsilon"), (dict(epsilon=Fraction(-1, 3)), "epsilon"),
    (dict(epsilon="inf"), "epsilon"), (dict(epsilon=True), "epsilon"),
    (dict(sensitivity=decimal.Decimal("-2")), "sensitivity"), (dict(sensitivity="nan"), "sensitivity"),
    (dict(dps=0), "dps"), (dict(dps=2.5), "dps"), (dict(exact="yes"), "exact"),
    (dict(monotone=1), "monotone"),
])
def test_distribution_parameters_rejected(func, kwargs, param):
    args = dict(epsilon=1, sensitivity=1)
    args.update(kwargs)
    eps = args.pop("epsilon")
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of {func.__name__} must be "):
        func([0, 1], eps, **args)


def test_float_path_rejects_scores_beyond_doubles():
    with pytest.raises(ValueError, match="'scores' parameter .* finite doubles"):
        exponential_mechanism_distribution(["1e400", 0], 1)
    # the exact path handles them: the gap of 1e400 leaves the lower score nothing
    p = exponential_mechanism_distribution(["1e400", 0], 1, exact=True, dps=20)
    assert p[0] == 1 and 0 < p[1] < mpmath.mpf("1e-1000000")


@pytest.mark.parametrize("func", [report_noisy_max, lambda *a, **k: spherical_laplace(2, 1.0, **k)])
@pytest.mark.parametrize("size", [-1, 1.5, (2, -1), "3", (2, 1.0), True])
def test_size_rejected(func, size):
    with pytest.raises(ValueError, match=r"The 'size' parameter of (report_noisy_max|spherical_laplace)"):
        func([0.0, 1.0], 1.0, size=size)


@pytest.mark.parametrize("dim", [0, -2, 1.5, math.nan, "3"])
def test_dim_rejected(dim):
    with pytest.raises(ValueError, match=r"The 'dim' parameter of spherical_laplace must be an int "
                                         r"in the range \[1, inf\)"):
        spherical_laplace(dim, 1.0)


def test_monotone_must_be_boolean():
    for func in (exponential_mechanism, report_noisy_max):
        with pytest.raises(ValueError, match=rf"'monotone' parameter of {func.__name__} must be one of"):
            func([0.0, 1.0], 1.0, monotone="no")


def test_overflowing_scales_rejected():
    with pytest.raises(ValueError, match="'epsilon' parameter of laplace_mechanism .* finite"):
        laplace_mechanism(0.0, 1e-300, sensitivity=1e300)
    with pytest.raises(ValueError, match="'rho' parameter of gaussian_mechanism .* finite"):
        gaussian_mechanism(0.0, 1e-300, sensitivity=1e300)
    with pytest.raises(ValueError, match="'epsilon' parameter of report_noisy_max .* finite"):
        report_noisy_max([0.0], 1e-300, sensitivity=1e300)
    with pytest.raises(ValueError, match="'beta' parameter of spherical_laplace"):
        spherical_laplace(2, 1e-320)
    assert laplace_scale(1e-300, 1e300) == math.inf
    assert gaussian_sigma_zcdp(1e-300, 1e300) == math.inf


def test_rng_rejected():
    with pytest.raises(ValueError, match="'rng' parameter"):
        laplace_mechanism(0.0, 1.0, rng="seed")


# ------------------------------------------------- upward-rounded scales ----

doubles = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)


@given(epsilon=doubles, sensitivity=doubles)
def test_laplace_scale_is_the_exact_quotient_rounded_up(epsilon, sensitivity):
    b = laplace_scale(epsilon, sensitivity)
    exact = Fraction(sensitivity) / Fraction(epsilon)
    if math.isinf(b):
        assert exact > Fraction(np.finfo(float).max)
        return
    assert Fraction(b) >= exact                      # never undercuts the exact value
    assert Fraction(math.nextafter(b, 0.0)) < exact  # and is the smallest such double


@given(rho=doubles, sensitivity=doubles)
def test_gaussian_sigma_is_exact_value_rounded_up(rho, sensitivity):
    s = gaussian_sigma_zcdp(rho, sensitivity)
    if math.isinf(s):
        assert Fraction(sensitivity) ** 2 > 2 * Fraction(rho) * Fraction(np.finfo(float).max) ** 2
        return
    assert 2 * Fraction(rho) * Fraction(s) ** 2 >= Fraction(sensitivity) ** 2
    assert 2 * Fraction(rho) * Fraction(math.nextafter(s, 0.0)) ** 2 < Fraction(sensitivity) ** 2
    with mpmath.workdps(40):    # at most one spacing above the mpmath value, never below
        exact = mpmath.mpf(sensitivity) / mpmath.sqrt(2 * mpmath.mpf(rho))
        assert 0 <= mpmath.mpf(s) - exact <= math.ulp(s)


def test_scales_known_values():
    assert laplace_scale(0.5) == 2.0 and laplace_scale(0.1) == 10.0
    assert laplace_scale(3.0) == math.nextafter(1 / 3, 1.0)   # 1/3 rounds down to nearest
    assert gaussian_sigma_zcdp(0.5) == 1.0 and gaussian_sigma_zcdp(2.0, 4.0) == 2.0


# ----------------------------------------------------------- determinism ----

SAMPLERS = {
    "laplace": lambda rng: laplace_mechanism(np.arange(4.0), 0.7, sensitivity=2.0, rng=rng),
    "gaussian": lambda rng: gaussian_mechanism(np.arange(4.0), 0.3, rng=rng),
    "exponential": lambda rng: (lambda g: np.array([exponential_mechanism(np.arange(6.0), 0.5, rng=g)
                                                    for _ in range(20)]))(np.random.default_rng(rng)),
    "noisy_max": lambda rng: report_noisy_max(np.arange(6.0), 0.5, rng=rng, size=20),
    "spherical": lambda rng: spherical_laplace(3, 0.5, size=4, rng=rng),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_same_seed_same_output(name):
    f = SAMPLERS[name]
    np.testing.assert_array_equal(f(123), f(123))
    np.testing.assert_array_equal(f(123), f(np.random.SeedSequence(123)))
    np.testing.assert_array_equal(f(123), f(np.random.PCG64(123)))
    np.testing.assert_array_equal(f(123), f(np.random.default_rng(123)))


@pytest.mark.parametrize("name", SAMPLERS)
def test_generator_is_advanced_and_global_state_untouched(name):
    f = SAMPLERS[name]
    state = np.random.get_state()[1].copy()
    g = np.random.default_rng(7)
    first, second = f(g), f(g)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(np.random.get_state()[1], state)


def test_scalar_and_array_paths_agree():
    assert laplace_mechanism(2.5, 1.0, rng=5) == laplace_mechanism([2.5], 1.0, rng=5)[0]
    assert isinstance(laplace_mechanism(2.5, 1.0, rng=5), float)
    assert isinstance(gaussian_mechanism(2.5, 1.0, rng=5), float)
    assert gaussian_mechanism(2.5, 1.0, rng=5) == gaussian_mechanism([2.5], 1.0, rng=5)[0]
    assert laplace_mechanism(np.zeros((2, 3)), 1.0, rng=0).shape == (2, 3)
    assert gaussian_mechanism(np.zeros((0, 3)), 1.0, rng=0).shape == (0, 3)


def test_report_noisy_max_shapes():
    assert isinstance(report_noisy_max([1.0, 2.0], 1.0, rng=0), int)
    assert report_noisy_max([1.0, 2.0], 1.0, rng=0, size=7).shape == (7,)
    assert report_noisy_max([1.0, 2.0], 1.0, rng=0, size=(2, 3)).shape == (2, 3)
    assert report_noisy_max([1.0, 2.0], 1.0, rng=0, size=0).shape == (0,)
    assert report_noisy_max([5.0], 1.0, rng=0) == 0
    # one release of size=None equals the first of size=1 (same draws)
    assert report_noisy_max(np.arange(5.0), 0.3, rng=9) == report_noisy_max(np.arange(5.0), 0.3, rng=9, size=1)[0]


def test_spherical_laplace_shapes_and_zero_redraw():
    assert spherical_laplace(4, 1.0, rng=0).shape == (4,)
    assert spherical_laplace(4, 1.0, size=3, rng=0).shape == (3, 4)
    assert spherical_laplace(1, 1.0, size=(2, 5), rng=0).shape == (2, 5, 1)
    assert spherical_laplace(2, 1.0, size=0, rng=0).shape == (0, 2)

    class ZeroFirst(np.random.Generator):
        """A Generator whose first standard-normal draw is all zeros."""
        calls = 0

        def standard_normal(self, size=None, *args, **kwargs):
            ZeroFirst.calls += 1
            out = super().standard_normal(size, *args, **kwargs)
            return np.zeros_like(out) if ZeroFirst.calls == 1 else out

    b = spherical_laplace(3, 2.0, size=4, rng=ZeroFirst(np.random.PCG64(1)))
    assert np.all(np.isfinite(b)) and np.all(np.linalg.norm(b, axis=1) > 0)
    assert ZeroFirst.calls == 2


# ------------------------------------------------- exponential mechanism ----

def _mp_exponential(scores, epsilon, sensitivity, monotone, dps):
    """Direct mpmath evaluation of exp(c u) / sum exp(c u) from exact rationals."""
    with mpmath.workdps(dps + 20):
        c = mpmath.mpf(Fraction(epsilon).numerator) / Fraction(epsilon).denominator
        c /= mpmath.mpf(sensitivity) * (1 if monotone else 2)
        w = [mpmath.exp(c * mpmath.mpf(Fraction(s).numerator) / Fraction(s).denominator) for s in scores]
        z = mpmath.fsum(w)
        return [x / z for x in w]


score_lists = st.lists(st.integers(-40, 40) | st.fractions(-20, 20, max_denominator=9),
                       min_size=1, max_size=7)


@settings(max_examples=60)
@given(scores=score_lists, epsilon=st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(5, 2), 7]),
       sensitivity=st.sampled_from([Fraction(1), Fraction(1, 3), 2]), monotone=st.booleans())
def test_exponential_distribution_matches_formula(scores, epsilon, sensitivity, monotone):
    dps = 40
    p = exponential_mechanism_distribution(scores, epsilon, sensitivity=sensitivity,
                                           monotone=monotone, exact=True, dps=dps)
    ref = _mp_exponential(scores, epsilon, sensitivity, monotone, dps)
    pf = exponential_mechanism_distribution(scores, epsilon, sensitivity=sensitivity, monotone=monotone)
    c = Fraction(epsilon) / (Fraction(sensitivity) * (1 if monotone else 2))
    top = max(Fraction(v) for v in scores)
    with mpmath.workdps(dps):
        for a, r, f, u in zip(p, ref, pf, scores):
            assert abs(a - r) <= mpmath.mpf(10) ** (-dps + 2) * r
            # doubles: relative error about (|w| + 2) 2^-52 for the log-weight w = c (u - max u)
            w = float(abs(c * (Fraction(u) - top)))
            assert abs(mpmath.mpf(f) - r) <= (4 + 2 * w) * 2.0**-52 * r + 1e-300
        assert abs(mpmath.fsum(p) - 1) <= mpmath.mpf(10) ** (-dps + 5)
    assert abs(pf.sum() - 1.0) <= 1e-13


def test_exponential_exact_inputs_stay_exact():
    a = exponential_mechanism_distribution([Fraction(1, 3), 0], Fraction(1, 10), exact=True, dps=60)
    b = exponential_mechanism_distribution(["1/3", "0"], "0.1", exact=True, dps=60)
    c = exponential_mechanism_distribution([Fraction(1, 3), decimal.Decimal(0)], decimal.Decimal("0.1"),
                                           exact=True, dps=60)
    assert a == b == c
    d = exponential_mechanism_distribution([Fraction(1, 3), 0], 0.1, exact=True, dps=60)  # binary 0.1
    with mpmath.workdps(60):
        assert a[0] != d[0] and abs(a[0] - d[0]) < 1e-17
    # the result rounds to dps digits and refines as dps grows
    lo = exponential_mechanism_distribution(["1/3", 0], "0.1", exact=True, dps=20)
    with mpmath.workdps(60):
        assert abs(lo[0] - a[0]) <= mpmath.mpf(10) ** -19 * a[0]


def test_exponential_monotone_is_the_doubled_epsilon_and_shift_invariant():
    s = [3, -1, Fraction(7, 2), 0]
    assert (exponential_mechanism_distribution(s, Fraction(3, 4), monotone=True, exact=True)
            == exponential_mechanism_distribution(s, Fraction(3, 2), exact=True))
    shifted = [v + 1000 for v in s]
    assert (exponential_mechanism_distribution(s, 2, exact=True)
            == exponential_mechanism_distribution(shifted, 2, exact=True))
    np.testing.assert_allclose(exponential_mechanism_distribution([0.0, 1e6], 1.0), [0.0, 1.0])


def test_exponential_sampler_uses_one_uniform_against_the_exact_running_sums():
    # the documented rule: smallest k with U * T < S_k, S and T the exact sums of the doubles
    scores = [0.0, 2.0, 1.0, 2.0, -3.0, -3000.0]
    p = exponential_mechanism_distribution(scores, 1.3)
    assert p[-1] == 0.0
    sums = np.cumsum([Fraction(x) for x in p])
    for seed in range(300):
        g, ref = np.random.default_rng(seed), np.random.default_rng(seed)
        u = Fraction(ref.random())
        want = next(k for k, s in enumerate(sums) if u * sums[-1] < s)
        assert exponential_mechanism(scores, 1.3, rng=g) == want
        assert g.bit_generator.state == ref.bit_generator.state     # exactly one uniform used


def test_inversion_boundaries():
    from refdp.utils.inversion import inverse_cdf_index as inv
    p = [0.25, 0.0, 0.75]
    assert [inv(p, u) for u in (0.0, 0.25 - 2**-53, 0.25, 1 - 2**-53)] == [0, 0, 2, 2]
    assert inv([5e-324, 1.0], 0.0) == 0 and inv([0.0, 1.0], 0.0) == 1
    # probabilities that do not sum to 1 are normalised by their exact sum T
    q = [0.1, 0.2, 0.3]                  # T = 0.6000000000000001 in exact binary terms
    t = sum(Fraction(x) for x in q)
    for m in range(0, 2**53, 2**47):
        u = m * 2.0**-53
        k = inv(q, u)
        assert sum(Fraction(x) for x in q[:k]) <= Fraction(u) * t < sum(Fraction(x) for x in q[:k + 1])


def test_exponential_sampler_never_returns_zero_probability_candidates():
    p = exponential_mechanism_distribution([0.0, -1e4, 5.0], 1.0)
    assert p[1] == 0.0
    g = np.random.default_rng(3)
    assert 1 not in {exponential_mechanism([0.0, -1e4, 5.0], 1.0, rng=g) for _ in range(2000)}


def test_exponential_sampler_chi_square():
    # H0: draws follow the returned probabilities. Pearson's statistic with
    # C - 1 = 3 degrees of freedom; critical value chi2.isf(ALPHA, 3) (about
    # 30.7), so a correct sampler fails with probability ALPHA over seeds.
    scores, eps, n = [0.0, 1.0, 2.5, 1.5], 1.0, 10_000
    p = exponential_mechanism_distribution(scores, eps)
    g = np.random.default_rng(2718)
    counts = np.bincount([exponential_mechanism(scores, eps, rng=g) for _ in range(n)], minlength=4)
    expected = n * p
    assert expected.min() >= 5          # the chi-square approximation applies
    stat = float(((counts - expected) ** 2 / expected).sum())
    assert stat <= scipy.stats.chi2.isf(ALPHA, len(p) - 1)


# ------------------------------------------------------ report-noisy-max ----

def _quad_noisy_max(scores, b, dps):
    """P[argmax = j] by mpmath.quad of f(t - s_j) prod F(t - s_i), split at the scores."""
    with mpmath.workdps(dps):
        s = [mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in scores]
        b = mpmath.mpf(b)

        def cdf(x):
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

        def pdf(x):
            return mpmath.exp(-abs(x) / b) / (2 * b)

        cuts = [-mpmath.inf] + sorted(set(s)) + [mpmath.inf]
        return [mpmath.quad(lambda t, j=j: pdf(t - s[j]) * mpmath.fprod(
            cdf(t - s[i]) for i in range(len(s)) if i != j), cuts) for j in range(len(s))]


@pytest.mark.parametrize("scores, epsilon", [([3, 1, 0], 1), (["1/2", -2, 4, 4], "0.3")])
def test_noisy_max_matches_quadrature(scores, epsilon):
    p = report_noisy_max_distribution(scores, epsilon, exact=True, dps=30)
    b = 2 / (Fraction(epsilon) if not isinstance(epsilon, str) else Fraction(epsilon))
    q = _quad_noisy_max(scores, b, 30)
    with mpmath.workdps(30):
        assert max(abs(x - y) for x, y in zip(p, q)) <= mpmath.mpf("1e-20")


@pytest.mark.parametrize("gap", ["0", "0.5", "1", "3", "10", "40", "1e-9"])
@pytest.mark.parametrize("epsilon, sensitivity", [("1", "1"), ("0.1", "1"), ("2", "0.5")])
def test_noisy_max_two_classes_closed_form(gap, epsilon, sensitivity):
    # P[class 1 wins] = P[Z_1 - Z_0 > g] = (2 + gamma g) / (4 e^(gamma g)), gamma = 1/b = eps/(2 sens)
    dps = 40
    p = report_noisy_max_distribution([gap, 0], epsilon, sensitivity=sensitivity, exact=True, dps=dps)
    gamma = Fraction(epsilon) / (2 * Fraction(sensitivity))
    with mpmath.workdps(dps + 10):
        z = mpmath.mpf(gamma * Fraction(gap))
        tail = (2 + z) / (4 * mpmath.exp(z))
    with mpmath.workdps(dps):
        assert abs(p[1] - tail) <= mpmath.mpf(10) ** (-dps + 2) * tail
        assert abs(p[0] + p[1] - 1) <= mpmath.mpf(10) ** (-dps + 5)
    f = report_noisy_max_distribution([gap, 0], epsilon, sensitivity=sensitivity)
    want = core.laplace_difference_tail(float(gap), float(gamma))
    assert abs(f[1] - want) <= 1e-14 * want
    assert abs(f.sum() - 1.0) <= 1e-13


@settings(max_examples=40)
@given(scores=st.lists(st.integers(-6, 6) | st.sampled_from([Fraction(1, 3), Fraction(-5, 2), 0.1]),
                       min_size=1, max_size=6),
       epsilon=st.sampled_from([Fraction(1, 10), Fraction(1), 3]), monotone=st.booleans())
def test_noisy_max_sums_to_one_and_respects_symmetry(scores, epsilon, monotone):
    dps = 30
    p = report_noisy_max_distribution(scores, epsilon, monotone=monotone, exact=True, dps=dps)
    f = report_noisy_max_distribution(scores, epsilon, monotone=monotone)
    with mpmath.workdps(dps):
        assert abs(mpmath.fsum(p) - 1) <= mpmath.mpf(10) ** (-dps + 5)
        assert all(x > 0 for x in p)
        for i in range(len(scores)):          # ties get equal probability, higher scores more
            for j in range(len(scores)):
                if Fraction(scores[i]) == Fraction(scores[j]):
                    assert abs(p[i] - p[j]) <= mpmath.mpf(10) ** (-dps + 5)
                elif Fraction(scores[i]) > Fraction(scores[j]):
                    assert p[i] > p[j]
        assert max(abs(mpmath.mpf(a) - b) / b for a, b in zip(f, p)) <= 2.0**-52
    assert abs(f.sum() - 1.0) <= 1e-13
    order = list(range(len(scores)))[::-1]
    q = report_noisy_max_distribution([scores[i] for i in order], epsilon, monotone=monotone,
                                      exact=True, dps=dps)
    with mpmath.workdps(dps):
        assert all(abs(q[k] - p[i]) <= mpmath.mpf(10) ** (-dps + 5) for k, i in enumerate(order))


def test_noisy_max_ties_and_single_candidate():
    p = report_noisy_max_distribution([2, 2, 2, 2], "0.7", exact=True, dps=30)
    with mpmath.workdps(30):
        assert all(abs(x - mpmath.mpf(1) / 4) <= mpmath.mpf(10) ** -28 for x in p)
    assert report_noisy_max_distribution([5], 1.0).tolist() == [1.0]
    p = report_noisy_max_distribution([1, 1, 0], 1.0)
    assert p[0] == p[1] > p[2]


def test_noisy_max_monotone_is_the_doubled_epsilon():
    s = [Fraction(7, 2), 1, 0, 1]
    assert (report_noisy_max_distribution(s, "0.4", monotone=True, exact=True)
            == report_noisy_max_distribution(s, "0.8", exact=True))


def test_noisy_max_precision_is_stable_for_many_classes():
    # cancellation in the expanded product is bounded by C log10(3) digits and
    # covered by the extra working digits: 25-digit results agree with
    # 80-digit ones to 10^-24 relative, also for tiny probabilities
    rng = np.random.default_rng(11)
    s = (rng.random(24) * 60).tolist()
    lo = report_noisy_max_distribution(s, 1.0, exact=True, dps=25)
    hi = report_noisy_max_distribution(s, 1.0, exact=True, dps=80)
    with mpmath.workdps(80):
        assert min(hi) < 1e-9
        assert max(abs(a - b) / b for a, b in zip(lo, hi)) <= mpmath.mpf(10) ** -24


@pytest.mark.parametrize("counts", [[120, 100, 20, 10], [250, 0, 0], [60, 59, 1]])
def test_lnmax_error_below_pate_lemma_4(counts):
    # P[LNMax != argmax counts] <= sum of Laplace-difference tails (union bound, PATE Lemma 4)
    gamma = 0.05
    p = report_noisy_max_distribution(counts, 2 * gamma, exact=True, dps=30)
    jstar = int(np.argmax(counts))
    with mpmath.workdps(30):
        err = 1 - p[jstar]
        assert err <= mpmath.exp(core.lemma4_log_q([counts], gamma)[0])


def test_noisy_max_sampler_matches_distribution():
    # H0: report_noisy_max draws follow report_noisy_max_distribution. Pearson's
    # chi-square per case with C - 1 degrees of freedom at level ALPHA / m
    # (Bonferroni over the m cases), critical value chi2.isf(ALPHA / m, C - 1);
    # a correct sampler fails with probability at most ALPHA over seeds.
    cases = [([10, 12, 3], 1.0, False), ([0, 0.5, 2, 2], 0.8, False),
             ([5, 4, 4, 1, 0], 1.5, True), ([30, 29, 20], 2 * 0.05, False)]
    n, g = 200_000, np.random.default_rng(4242)
    for (scores, eps, monotone), secure in itertools.product(cases, (False, True)):
        p = report_noisy_max_distribution(scores, eps, monotone=monotone, secure=secure)
        counts = np.bincount(report_noisy_max(scores, eps, monotone=monotone, rng=g, size=n, secure=secure),
                             minlength=len(scores))
        expected = n * p
        assert expected.min() >= 5
        stat = float(((counts - expected) ** 2 / expected).sum())
        assert stat <= scipy.stats.chi2.isf(ALPHA / (2 * len(cases)), len(scores) - 1), (scores, secure, stat)


def test_noisy_max_shift_keeps_large_scores_noisy():
    # Near 1e17 doubles are 16 apart, so Lap(16) noise added to the raw scores
    # would be rounded to multiples of 16 and produce frequent noisy ties; the
    # shift by the maximum keeps the law. H0: P[index 0] = p0 = 3 / (4 e) (gap
    # 16 = b). Two-sided normal approximation to the binomial count at level
    # ALPHA: |count - n p0| <= z sqrt(n p0 (1 - p0)), z = norm.isf(ALPHA / 2).
    n = 40_000
    draws = report_noisy_max([1e17, 1e17 + 16], 1 / 8, rng=np.random.default_rng(99), size=n, secure=False)
    p0 = report_noisy_max_distribution([0, 16], "1/8")[0]
    assert abs(p0 - 3 / (4 * math.e)) < 1e-15
    z = scipy.stats.norm.isf(ALPHA / 2)
    assert abs(np.count_nonzero(draws == 0) - n * p0) <= z * math.sqrt(n * p0 * (1 - p0))


# ------------------------------------------------- checks and meta data ----

def test_private_mechanisms_resolve():
    assert len(M.PRIVATE_MECHANISMS) == len(set(M.PRIVATE_MECHANISMS)) == 8
    for name in M.PRIVATE_MECHANISMS:
        module, _, attr = name.rpartition(".")
        assert module == "refdp.mechanisms" and attr in M.__all__
        assert callable(getattr(importlib.import_module(module), attr))


def test_continuous_checks_detect_broken_mechanisms():
    from proofs_checks.bun_steinke import gaussian_mechanism_noise_law as gauss_law
    from proofs_checks.bun_steinke import gaussian_zcdp as gauss_zcdp
    from proofs_checks.chaudhuri import spherical_laplace_density as sph_law
    from proofs_checks.dwork_roth import laplace_mechanism_noise_law as lap_law
    from proofs_checks.dwork_roth import laplace_mechanism_privacy as lap_ratio

    # a scale one unit in the last place too small breaks the exact bounds
    assert lap_ratio.density_ratio_result(
        lambda e, d: math.nextafter(d / e, 0.0) if Fraction(d / e) <= Fraction(d) / Fraction(e)
        else math.nextafter(math.nextafter(d / e, 0.0), 0.0)).verdict is Verdict.FAILS
    assert gauss_zcdp.zcdp_result(lambda r, d: math.nextafter(gaussian_sigma_zcdp(r, d), 0.0)).verdict \
        is Verdict.FAILS
    # a scale 5 % off is caught by the noise-law tests
    assert lap_law.noise_law_result(
        lambda v, e, sensitivity, rng: v + rng.laplace(0, 1.05 * sensitivity / e, v.shape)).verdict \
        is Verdict.FAILS
    assert gauss_law.noise_law_result(
        lambda v, r, sensitivity, rng: v + rng.normal(0, 1.05 * sensitivity / math.sqrt(2 * r), v.shape)
    ).verdict is Verdict.FAILS

    # Gaussian directions scaled to a Gamma(d, 1/beta) norm are right; Gaussian vectors are not
    def gaussian_vectors(d, beta, size, rng):
        return rng.standard_normal((size, d)) * (math.sqrt(d) / beta)

    assert sph_law.noise_law_result(gaussian_vectors).verdict is Verdict.FAILS


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"refdp.mechanisms.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_docstrings_state_the_floating_point_caveat():
    from refdp.mechanisms import gaussian_mechanism_approx
    for func in (laplace_mechanism, gaussian_mechanism, report_noisy_max, spherical_laplace,
                 gaussian_mechanism_approx):
        assert re.search(r"Mironov|\[Mir12\]", func.__doc__), func.__name__


def test_user_guide_examples():
    path = ROOT / "docs" / "mechanisms.rst"
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0


def test_secure_noisy_max_exact_integers_far_apart_and_overflow():
    # scores 1e300 apart: the grid indices differ by about 1e303, beyond int64; the winner is exact
    assert report_noisy_max([0.0, 1e300], 1.0, rng=3) == 1
    assert report_noisy_max([1e300, 0.0, -1e300], 1.0, rng=3, size=4).tolist() == [0, 0, 0, 0]
    # a score whose grid index overflows a double is the standard ValueError
    with pytest.raises(ValueError, match="The 'scores' parameter of report_noisy_max"):
        report_noisy_max([1e308, 0.0], 1.0, rng=0)
    # the law of the secure release, exactly: two candidates tied on the grid, lowest index first
    p = report_noisy_max_distribution([0.5, 0.5], 1.0, secure=True, exact=True, dps=30)
    assert p[0] > p[1] and abs(float(p[0] + p[1]) - 1) < 1e-25
    with pytest.raises(ValueError, match="The 'scores' parameter of report_noisy_max_distribution"):
        report_noisy_max_distribution(["1/3", 0], 1.0, secure=True)


def test_secure_lnmax_matches_report_noisy_max_law():
    from fractions import Fraction
    from refdp.utils.precision import mp_context
    from refdp.mechanisms.discrete_argmax import discrete_argmax_law
    from refdp.utils.rounding import up_dyadic
    from refdp.pate import lnmax_labels
    # H0: lnmax_labels(secure=True) draws index j with the exact discrete law. Exact binomial
    # acceptance interval per class at ALPHA / 3 (Bonferroni over the 3 classes).
    counts, gamma, n = [5, 5, 1], 0.5, 60_000
    law = discrete_argmax_law(counts, up_dyadic(1 / Fraction(gamma)), mp_context(30))
    draws = lnmax_labels(np.tile(counts, (n, 1)), gamma, rng=np.random.default_rng(31), secure=True)
    got = np.bincount(draws, minlength=3)
    for j in range(3):
        p = float(law[j])
        lo, hi = scipy.stats.binom.ppf(ALPHA / 6, n, p), scipy.stats.binom.isf(ALPHA / 6, n, p)
        assert lo <= got[j] <= hi, (j, got[j], lo, hi)
    assert float(law[0]) > float(law[1])        # the tie between classes 0 and 1 goes to class 0
