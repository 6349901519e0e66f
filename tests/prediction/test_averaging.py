"""Tests of the averaged prediction with Laplace noise (Dwork & Feldman 2018, Corollary 4.7)."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from proofs_checks.common.sampler_law import binomial_acceptance
from proofs_checks.dwork_feldman.corollary_4_7_averaging_error import quadrature
from proofs_checks.dwork_feldman.corollary_4_7_averaging_privacy import QUICK, sweep
from refdp.prediction import AveragedPrediction, averaging_extra_error_bound, clipped_laplace_mean
from refdp.verify.check import summarise
from refdp.verify.verdict import Verdict


class Threshold:
    def fit(self, X, y):
        ones = X[y == 1, 0]
        self.t = ones.min() if ones.size else np.inf
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= self.t).astype(int)


def noisy_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 1))
    y = ((X[:, 0] >= 0.5) ^ (rng.random(n) < 0.15)).astype(int)
    return X, y


def g_mp(v, b):
    """Reference closed form, with guard digits for the cancellation when b is large."""
    with mpmath.workdps(mpmath.mp.dps + 20 + max(0, int(math.log10(float(b))))):
        v, b = mpmath.mpf(v), mpmath.mpf(b)
        g = v + b / 2 * (mpmath.exp(-v / b) - mpmath.exp(-(1 - v) / b))
    return +g


# -- clipped_laplace_mean --------------------------------------------------------

@pytest.mark.parametrize("b", [1e-300, 1e-8, 1e-3, 0.1, 1.0, 37.5, 1e6, 1e300])
def test_float_closed_form_matches_mpmath(b):
    v = np.array([0.0, 1e-12, 0.1, 0.25, 0.5, 0.6, 0.9, 1 - 1e-12, 1.0])
    f = clipped_laplace_mean(v, b)
    with mpmath.workdps(60):
        for vi, fi in zip(v, f):
            ref = g_mp(vi, b)
            # absolute error of a few ulps of 1 everywhere ...
            assert abs(mpmath.mpf(fi) - ref) <= 4e-16
            # ... and a small relative error where v <= 1/2 (g is computed directly there)
            if vi <= 0.5:
                assert abs(mpmath.mpf(fi) - ref) <= 1e-14 * ref


def test_small_probability_is_accurate_near_v_equal_one():
    # 1 - g(1) = (b/2)(1 - e^{-1/b}); computed as g(1 - v) for v > 1/2
    b = 1e-10
    assert clipped_laplace_mean(0.0, b) == pytest.approx(b / 2, rel=1e-15)
    assert 1 - clipped_laplace_mean(1.0, b) == pytest.approx(b / 2, rel=1e-5)  # rounding of 1 - tiny


def test_closed_form_against_quadrature_and_symmetry():
    with mpmath.workdps(30):
        for v, b in [(Fraction(0), Fraction(1, 3)), (Fraction(2, 7), Fraction(2)), (Fraction(1), Fraction(1, 5))]:
            assert abs(clipped_laplace_mean(v, b, exact=True, dps=30) - quadrature(v, b)) < 1e-25
            assert abs(clipped_laplace_mean(v, b, exact=True, dps=30)
                       + clipped_laplace_mean(1 - v, b, exact=True, dps=30) - 1) < 1e-28


def test_two_step_sampling_has_the_closed_form_law():
    # Reference-path justification: drawing p = clip(v + Lap(b), 0, 1) then a Bernoulli(p)
    # gives a bit whose count over n draws is Binomial(n, g(v)) if the closed form is right.
    # Acceptance interval at a = 1e-6 / 4 per (v, b) (Bonferroni): false-failure rate <= 1e-6.
    rng = np.random.default_rng(2024)
    n = 200_000
    for v, b in [(0.0, 0.3), (0.2, 1.0), (0.75, 0.05), (1.0, 2.0)]:
        p = np.clip(v + rng.laplace(0.0, b, n), 0.0, 1.0)
        ones = int((rng.random(n) < p).sum())
        lo, hi = binomial_acceptance(n, clipped_laplace_mean(v, b), 1e-6 / 4)
        assert lo <= ones <= hi, (v, b, ones, lo, hi)


def test_monotone_and_bounded():
    v = np.linspace(0, 1, 1001)
    for b in (0.01, 0.5, 10.0):
        g = clipped_laplace_mean(v, b)
        assert np.all(np.diff(g) >= 0) and np.all((g > 0) & (g < 1))


@pytest.mark.parametrize("v", [-0.1, 1.1, math.nan])
def test_clipped_mean_validation(v):
    with pytest.raises(ValueError, match="The 'v' parameter of clipped_laplace_mean"):
        clipped_laplace_mean(v, 1.0)
    with pytest.raises(ValueError, match="The 'v' parameter of clipped_laplace_mean"):
        clipped_laplace_mean(v, 1.0, exact=True)


@pytest.mark.parametrize("scale", [0, -1.0, math.nan, math.inf])
def test_clipped_mean_scale_validation(scale):
    with pytest.raises(ValueError, match="The 'scale' parameter of clipped_laplace_mean"):
        clipped_laplace_mean(0.5, scale)


# -- extra error -----------------------------------------------------------------

@pytest.mark.parametrize("eps", [1e-3, 0.1, 0.3, 1.0, 7.0])
@pytest.mark.parametrize("k", [1, 3, 10, 1000])
def test_extra_error_bounds_never_undercut_exact(eps, k):
    paper = averaging_extra_error_bound(eps, k)
    tight = averaging_extra_error_bound(eps, k, tight=True)
    b = 1 / (Fraction(eps) * k)
    assert Fraction(paper) >= b and Fraction(paper) - b <= b * Fraction(1, 2**51)
    with mpmath.workdps(50):
        bm = mpmath.mpf(b.numerator) / b.denominator
        exact_tight = bm / 2 * (1 - mpmath.exp(-1 / bm))
        assert mpmath.mpf(tight) >= exact_tight
        assert tight <= paper
        # the tight value is the largest |g(v) - v| on the grid v = j/k (attained at v = 0)
        grid = max(abs(g_mp(mpmath.mpf(j) / k, bm) - mpmath.mpf(j) / k) for j in range(0, k + 1, max(1, k // 50)))
        assert grid <= exact_tight * (1 + mpmath.mpf(10) ** -40)


def test_extra_error_validation():
    with pytest.raises(ValueError, match="The 'epsilon' parameter of averaging_extra_error_bound"):
        averaging_extra_error_bound(0, 3)
    with pytest.raises(ValueError, match="The 'k' parameter of averaging_extra_error_bound"):
        averaging_extra_error_bound(1.0, 0)


# -- AveragedPrediction ------------------------------------------------------------

def test_validation():
    with pytest.raises(ValueError, match="The 'epsilon' parameter of AveragedPrediction must be a float"):
        AveragedPrediction(-1.0, 3, Threshold)
    with pytest.raises(ValueError, match="The 'k' parameter of AveragedPrediction"):
        AveragedPrediction(1.0, 0, Threshold)
    with pytest.raises(ValueError, match="The 'classes' parameter of AveragedPrediction"):
        AveragedPrediction(1.0, 3, Threshold, classes=3)
    with pytest.raises(ValueError, match="The 'classes' parameter of AveragedPrediction"):
        AveragedPrediction(1.0, 3, Threshold, classes=[0, 1, 2])
    X, y = noisy_data(10)
    with pytest.raises(ValueError, match="The 'k' parameter of AveragedPrediction"):
        AveragedPrediction(1.0, 11, Threshold).fit(X, y)
    y[0] = 2
    with pytest.raises(ValueError, match="The 'y' parameter of AveragedPrediction"):
        AveragedPrediction(1.0, 3, Threshold).fit(X, y)
    X, y = noisy_data(10)
    ap = AveragedPrediction(1.0, 3, Threshold, rng=0).fit(X, y)
    with pytest.raises(ValueError, match="The 'Xq' parameter of AveragedPrediction"):
        ap.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="The 'Xq' parameter of AveragedPrediction"):
        ap.prob_one([[math.inf]])


def test_prob_one_is_g_of_average_vote():
    X, y = noisy_data()
    ap = AveragedPrediction(0.5, 9, Threshold, rng=4).fit(X, y)
    q = np.linspace(0, 1, 21)[:, None]
    v = ap.average_vote(q)
    assert np.array_equal(v, ap.vote_counts(q)[:, 1] / 9)
    assert np.array_equal(ap.prob_one(q), clipped_laplace_mean(v, 1 / 4.5))
    exact = ap.exact_prob_one(q, dps=40)
    with mpmath.workdps(40):
        for e, f, vi in zip(exact, ap.prob_one(q), v):
            assert abs(e - g_mp(mpmath.mpf(int(round(vi * 9))) / 9, mpmath.mpf(2) / 9)) < 1e-35
            assert abs(mpmath.mpf(f) - e) <= 4e-16


def test_predict_follows_prob_one_and_classes():
    # For each of the 3 distinct query points, the count of classes_[1] over n draws is
    # Binomial(n, g(v)); acceptance at a = 1e-6/3 each (Bonferroni): false-failure rate <= 1e-6.
    X, y = noisy_data()
    labels = np.array([-1, 1])[y]
    ap = AveragedPrediction(1.0, 6, _SignThreshold, classes=[-1, 1], rng=7).fit(X, labels)
    pts = np.array([[0.1], [0.5], [0.9]])
    n = 30_000
    draws = ap.predict(np.repeat(pts, n, axis=0), rng=8).reshape(3, n)
    assert set(np.unique(draws)) <= {-1, 1}
    for row, p in zip(draws, ap.prob_one(pts)):
        lo, hi = binomial_acceptance(n, p, 1e-6 / 3)
        assert lo <= int((row == 1).sum()) <= hi


class _SignThreshold(Threshold):
    def fit(self, X, y):
        return super().fit(X, (y == 1).astype(int))

    def predict(self, X):
        return np.where(super().predict(X) == 1, 1, -1)


def test_deterministic_for_a_seed():
    X, y = noisy_data()
    q = np.linspace(0, 1, 40)[:, None]
    a = AveragedPrediction(1.0, 5, Threshold, rng=3).fit(X, y).predict(q)
    b = AveragedPrediction(1.0, 5, Threshold, rng=3).fit(X, y).predict(q)
    assert a.tolist() == b.tolist()


# -- exact privacy sweep flags a halved noise scale -------------------------------

def test_privacy_sweep_holds_and_flags_halved_scale():
    good = summarise(*sweep(QUICK, (1.0,)))
    bad = summarise(*sweep(QUICK, (1.0,), scale=lambda e, k: 1 / (2 * Fraction(e) * k)))
    assert good.verdict is Verdict.HOLDS and good.measured <= 1
    assert bad.verdict is Verdict.FAILS and bad.measured > 1


class _Words:
    """A stand-in Generator: given 53-bit uniforms, then given 64-bit words."""

    def __init__(self, uniforms, words):
        self._u = list(uniforms)
        self._w = list(words)
        self.bit_generator = self

    def random(self, n):
        out, self._u = self._u[:n], self._u[n:]
        return np.array(out)

    def random_raw(self):
        return self._w.pop(0)


def test_exact_bernoulli_refines_when_the_first_bits_straddle_g():
    from fractions import Fraction
    import mpmath
    from refdp.prediction.averaging import _exact_bernoulli_g, clipped_laplace_mean
    k, b = 10, Fraction(1, 5)
    g = clipped_laplace_mean(Fraction(3, 10), b, exact=True, dps=60)       # g(0.3), irrational
    r = int(mpmath.floor(g * 2**53))                                        # r 2**-53 < g < (r + 1) 2**-53
    u = r / 2**53
    gf = Fraction(mpmath.nstr(g, 60))                                       # within 1e-59 of g
    cut = gf * 2**117 - r * 2**64             # one more word w: U < g iff w + 1 <= cut (gf is 1e-59 from g)
    edge = int(cut // 1)
    for w in (0, 2**63, 2**64 - 1, edge - 1, edge + 1):
        got = _exact_bernoulli_g(np.array([3]), k, b, _Words([u], [w]))[0]
        assert got == (w + 1 <= cut), (w, got)
    # w = edge leaves g inside U's interval again: a second word decides
    cut2 = gf * 2**181 - (r * 2**64 + edge) * 2**64
    for w2 in (0, 2**64 - 1, int(cut2 // 1) - 1, int(cut2 // 1) + 1):
        got = _exact_bernoulli_g(np.array([3]), k, b, _Words([u], [edge, w2]))[0]
        assert got == (w2 + 1 <= cut2), (w2, got)
    # v = 1/2: g = 1/2 exactly, decided by the first bit of U
    assert _exact_bernoulli_g(np.array([5]), k, b, _Words([0.5 - 2**-53], []))[0]
    assert not _exact_bernoulli_g(np.array([5]), k, b, _Words([0.5], []))[0]


def test_exact_bernoulli_agrees_with_the_float_probability_away_from_it():
    from fractions import Fraction
    from refdp.prediction.averaging import _exact_bernoulli_g, clipped_laplace_mean
    k, b = 8, Fraction(1, 4)
    counts = np.arange(k + 1).repeat(50)
    u = np.random.default_rng(5).random(counts.size)
    got = _exact_bernoulli_g(counts, k, b, np.random.default_rng(5))
    w = np.minimum(counts, k - counts) / k
    g = clipped_laplace_mean(w, float(b))
    far = np.abs(u - g) > 1e-12
    assert far.sum() > 400 and np.array_equal(got[far], (u < g)[far])
