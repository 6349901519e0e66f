"""refdp.prediction.convex: losses, domain checks, learners, stability rates and excess-risk bounds.

Statistical tests state their false-failure rate ALPHA (fixed seeds: every run
gives the same verdict) and derive their critical values from it.
"""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings, strategies as st

from refdp.utils.rounding import ceil_fraction
from refdp.prediction.convex import (HuberLoss, LinearPredictor, LogisticLoss, ProjectedSGD,
                                     RegularizedERM, corollary_4_10_excess_risk_bound,
                                     corollary_4_11_regularization,
                                     corollary_4_13_excess_risk_bound, erm_stability_rate,
                                     psgd_stability_rate, theorem_4_9_excess_risk_bound,
                                     theorem_4_12_excess_risk_bound)

ALPHA = 1e-6


# ---------------------------------------------------------------- losses ----

@given(z=st.floats(-30, 30), y=st.sampled_from([-1.0, 1.0]))
def test_logistic_derivatives_and_constants(z, y):
    loss = LogisticLoss()
    with mpmath.workdps(30):
        f = lambda t: mpmath.log1p(mpmath.exp(-y * t))          # noqa: E731
        d1 = mpmath.diff(f, z)
        d2 = mpmath.diff(f, z, 2)
    assert abs(loss.derivative(z, y) - float(d1)) <= 1e-12
    assert abs(loss.second_derivative(z, y) - float(d2)) <= 1e-12
    assert abs(loss.value(z, y) - float(f(z))) <= 1e-12 * max(1.0, abs(z))
    assert abs(loss.derivative(z, y)) <= loss.lipschitz
    assert 0.0 <= loss.second_derivative(z, y) <= loss.smoothness


@given(z=st.floats(-5, 5), y=st.floats(-5, 5), delta=st.floats(0.01, 3))
def test_huber_derivatives_and_constants(z, y, delta):
    loss = HuberLoss(delta)
    r = z - y
    assert loss.derivative(z, y) == max(-delta, min(delta, r))
    assert abs(loss.derivative(z, y)) <= loss.lipschitz == delta
    assert loss.second_derivative(z, y) in (0.0, 1.0) and loss.smoothness == 1.0
    h = 1e-7
    if abs(abs(r) - delta) > 1e-5:
        num = (loss.value(z + h, y) - loss.value(z - h, y)) / (2 * h)
        assert abs(num - loss.derivative(z, y)) <= 1e-6 * (1 + abs(r))


def test_loss_validation():
    with pytest.raises(ValueError, match=r"The 'delta' parameter of HuberLoss must be a float in "
                                         r"the range \(0, inf\)"):
        HuberLoss(0.0)
    with pytest.raises(ValueError, match=r"The 'y' parameter of RegularizedERM must be an array of "
                                         r"labels in \{-1, \+1\}. Got 0.0 instead"):
        RegularizedERM(LogisticLoss(), 1.0, 1.0)(np.zeros((2, 1)), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="The 'loss' parameter of RegularizedERM"):
        RegularizedERM("logistic", 1.0, 1.0)


# ---------------------------------------------------------------- domain ----

def test_norm_check_message():
    h = LinearPredictor([1.0, 0.0], 1.0)
    with pytest.raises(ValueError) as info:
        h(np.array([[0.5, 0.5], [1.0, 0.5]]))
    assert str(info.value).startswith("The 'X' parameter of LinearPredictor must be an array of "
                                      "rows with Euclidean norm at most radius = 1.0. Got a row "
                                      "of norm 1.118")
    assert "at position 1" in str(info.value)


@given(st.lists(st.floats(-1, 1), min_size=2, max_size=2), st.floats(0.999999, 1.000001))
def test_norm_check_is_exact(row, scale):
    x = np.array(row)
    n = np.linalg.norm(x)
    if n == 0:
        return
    x = x / n * scale                                    # near the unit sphere
    exact_inside = sum(Fraction(float(v)) ** 2 for v in x) <= 1
    h = LinearPredictor([1.0, 1.0], 1.0)
    if exact_inside:
        h(x[None, :])
    else:
        with pytest.raises(ValueError, match="norm at most radius"):
            h(x[None, :])


def test_float_rounding_at_the_boundary_is_decided_exactly():
    # (0.6, 0.8) in doubles has norm slightly above 1: rejected, as the proof requires
    with pytest.raises(ValueError):
        LinearPredictor([1.0, 1.0], 1.0)(np.array([[0.6, 0.8]]))
    LinearPredictor([1.0, 1.0], 1.0)(np.array([[1.0, 0.0], [0.0, -1.0]]))


# ----------------------------------------------------------- learners -------

@pytest.mark.parametrize("kwargs, match", [
    ({"lam": 0.0}, "The 'lam' parameter of RegularizedERM"),
    ({"lam": math.nan}, "The 'lam' parameter of RegularizedERM"),
    ({"radius": -1.0}, "The 'radius' parameter of RegularizedERM"),
    ({"tol": 0.0}, "The 'tol' parameter of RegularizedERM"),
])
def test_erm_parameter_validation(kwargs, match):
    args = {"lam": 1.0, "radius": 1.0, "tol": 1e-10, **kwargs}
    with pytest.raises(ValueError, match=match):
        RegularizedERM(HuberLoss(), args["lam"], args["radius"], tol=args["tol"])


@pytest.mark.parametrize("learner", [RegularizedERM(HuberLoss(), 1.0, 1.0),
                                     ProjectedSGD(HuberLoss(), 0.5, 1.0)])
def test_learner_data_validation(learner):
    name = type(learner).__name__
    X = np.array([[0.5, 0.1], [0.2, -0.3], [0.0, 0.0]])
    y = np.array([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match=f"The 'X' parameter of {name} must be an array of rows with"):
        learner(X * 3, y)
    with pytest.raises(ValueError, match=f"The 'X' parameter of {name} must be an array of finite"):
        learner(np.where(X == 0.5, np.nan, X), y)
    with pytest.raises(ValueError, match=f"The 'X' parameter of {name} must be a 2-dimensional"):
        learner(X[:, 0], y)
    with pytest.raises(ValueError, match=f"The 'y' parameter of {name} must be an array of length 3"):
        learner(X, y[:2])
    with pytest.raises(ValueError, match=f"The 'y' parameter of {name} must be an array of finite"):
        learner(X, np.array([1.0, np.inf, 0.0]))


def test_erm_reaches_tolerance_and_matches_mpmath():
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(15, 2))
    y = np.where(rng.random(15) < 0.6, 1.0, -1.0)
    lam, tol = 0.05, 1e-11
    h = RegularizedERM(LogisticLoss(), lam, 1.0, tol=tol)(X, y)
    assert h.gradient_norm <= tol
    # Newton's method in mpmath at 40 digits from the float solution
    with mpmath.workdps(40):
        w = mpmath.matrix([mpmath.mpf(float(v)) for v in h.w])
        Xm = [[mpmath.mpf(float(v)) for v in row] for row in X]
        for _ in range(8):
            g = mpmath.matrix([lam * w[j] for j in range(2)])
            H = mpmath.matrix([[lam if i == j else 0 for j in range(2)] for i in range(2)])
            for xi, yi in zip(Xm, y):
                z = xi[0] * w[0] + xi[1] * w[1]
                s = 1 / (1 + mpmath.exp(yi * z))
                for i in range(2):
                    g[i] += -yi * s * xi[i] / len(y)
                    for j in range(2):
                        H[i, j] += s * (1 - s) * xi[i] * xi[j] / len(y)
            w = w - mpmath.lu_solve(H, g)
        dist = mpmath.sqrt(sum((w[j] - mpmath.mpf(float(h.w[j]))) ** 2 for j in range(2)))
        assert dist <= tol / lam


def test_psgd_step_limit():
    limit = 2 / (0.25 * 2.0 ** 2)
    ProjectedSGD(LogisticLoss(), limit, 2.0)
    with pytest.raises(ValueError, match=r"The 'eta' parameter of ProjectedSGD must be a float in "
                                         r"the range \(0, 2 / \(smoothness \* 'radius'\*\*2\)\] = "
                                         r"\(0, 2.0\]"):
        ProjectedSGD(LogisticLoss(), math.nextafter(limit, 3.0), 2.0)
    with pytest.raises(ValueError, match="The 'projection_radius' parameter of ProjectedSGD"):
        ProjectedSGD(LogisticLoss(), 1.0, 1.0, projection_radius=0.0)


def test_psgd_projection_and_hand_example():
    X = np.array([[1.0], [1.0], [0.5], [-1.0]])
    y = np.array([1.0, 1.0, 0.0, -1.0])
    # recipe: the recursion by hand, w_1 = 0.25, w_2 = 0.5, w_3 = 0.4375, average of w_0..w_3
    assert ProjectedSGD(HuberLoss(0.5), 0.5, 1.0)(X, y).w[0] == (0 + 0.25 + 0.5 + 0.4375) / 4
    # with projection onto [-0.3, 0.3]: w_1 = 0.25, w_2 = 0.3 (clipped), w_3 = 0.3 - 0.5*0.15*0.5
    proj = ProjectedSGD(HuberLoss(0.5), 0.5, 1.0, projection_radius=0.3)(X, y).w[0]
    assert proj == pytest.approx((0 + 0.25 + 0.3 + (0.3 - 0.5 * 0.15 * 0.5)) / 4, abs=1e-15)
    rng = np.random.default_rng(0)
    Xr = rng.uniform(-0.7, 0.7, size=(40, 2))
    h = ProjectedSGD(HuberLoss(1.0), 2.0, 1.0, projection_radius=0.2)(Xr, rng.normal(size=40) * 3)
    assert np.linalg.norm(h.w) <= 0.2 * (1 + 1e-15)


points = st.lists(st.tuples(st.floats(-0.7, 0.7), st.floats(-0.7, 0.7)), min_size=2, max_size=6)


@settings(max_examples=60)
@given(pts=points, labels=st.lists(st.booleans(), min_size=6, max_size=6),
       new=st.tuples(st.floats(-0.7, 0.7), st.floats(-0.7, 0.7), st.booleans()),
       i=st.integers(0, 5), lam=st.sampled_from([0.05, 0.5, 2.0]))
def test_erm_replace_one_within_declared_rate(pts, labels, new, i, lam):
    n = len(pts)
    i %= n
    X = np.array(pts)
    y = np.where(np.array(labels[:n]), 1.0, -1.0)
    X2, y2 = X.copy(), y.copy()
    X2[i], y2[i] = new[:2], (1.0 if new[2] else -1.0)
    erm = RegularizedERM(LogisticLoss(), lam, 1.0)
    h, h2 = erm(X, y), erm(X2, y2)
    # sup over the ball of |<w - w', x>| = R ||w - w'||
    assert np.linalg.norm(h.w - h2.w) <= erm.stability_rate(n)


@settings(max_examples=60)
@given(pts=points, ys=st.lists(st.floats(-2, 2), min_size=6, max_size=6),
       new=st.tuples(st.floats(-0.7, 0.7), st.floats(-0.7, 0.7), st.floats(-2, 2)),
       i=st.integers(0, 5), eta=st.sampled_from([0.1, 1.0, 2.0]))
def test_psgd_replace_one_within_declared_rate(pts, ys, new, i, eta):
    n = len(pts)
    i %= n
    X = np.array(pts)
    y = np.array(ys[:n])
    X2, y2 = X.copy(), y.copy()
    X2[i], y2[i] = new[:2], new[2]
    sgd = ProjectedSGD(HuberLoss(0.5), eta, 1.0)
    # float runs: a few roundings of numbers below 10; the allowance 1e-12 is far above them
    assert np.linalg.norm(sgd(X, y).w - sgd(X2, y2).w) <= sgd.stability_rate(n) + 1e-12


# ------------------------------------------------------------------ rates ---

@given(L=st.floats(0, 10), R=st.floats(1e-3, 10), lam=st.floats(1e-4, 10), n=st.integers(1, 10**6),
       tol=st.floats(0, 1e-6))
def test_erm_rate_formula(L, R, lam, n, tol):
    got = erm_stability_rate(L, R, lam, n, tol=tol)
    F = Fraction
    exact = 2 * F(L) * F(R) ** 2 / (F(lam) * n) + 2 * F(R) * F(tol) / F(lam)
    assert F(got) >= exact
    assert exact == 0 or F(math.nextafter(got, 0.0)) < exact


@given(L=st.floats(0, 10), R=st.floats(1e-3, 10), eta=st.floats(1e-4, 10), n=st.integers(1, 10**6))
def test_psgd_rate_formula(L, R, eta, n):
    got = psgd_stability_rate(L, R, eta, n)
    F = Fraction
    exact = 2 * F(eta) * F(L) * F(R) ** 2 * F(n - 1, n)
    assert F(got) >= exact
    assert exact == 0 or F(math.nextafter(got, 0.0)) < exact


def test_rate_validation():
    with pytest.raises(ValueError, match="The 'n' parameter of erm_stability_rate must be an int"):
        erm_stability_rate(1.0, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="The 'lam' parameter of erm_stability_rate"):
        erm_stability_rate(1.0, 1.0, -1.0, 3)
    with pytest.raises(ValueError, match="The 'eta' parameter of psgd_stability_rate"):
        psgd_stability_rate(1.0, 1.0, 0.0, 3)


# ----------------------------------------------------------------- bounds ---

def test_bound_formulas():
    """Each bound is its formula evaluated in rationals and rounded up (ceil_fraction)."""
    F = Fraction
    assert theorem_4_9_excess_risk_bound(1.0, 1.0, 0.5, 10, 2.0) == ceil_fraction(
        F(1, 2) * 4 / 2 + F(2, 5))
    assert corollary_4_10_excess_risk_bound(1.0, 1.0, 0.5, 10, 2.0, 0.5) == ceil_fraction(
        1 + F(2, 5) * 3)
    assert theorem_4_12_excess_risk_bound(1.0, 1.0, 0.5, 10, 2.0) == ceil_fraction(
        F(4, 10) + F(1, 4))
    beta = F(2) * F(1, 2) * F(9, 10)
    assert corollary_4_13_excess_risk_bound(1.0, 0.25, 1.0, 0.5, 10, 2.0, 1.0) == ceil_fraction(
        F(4, 10) + F(1, 4) + F(1, 4) * beta ** 2)
    # the Lipschitz extra loss is used when it is the smaller one
    assert corollary_4_13_excess_risk_bound(1.0, 100.0, 1.0, 0.5, 10, 2.0, 1.0) == ceil_fraction(
        F(4, 10) + F(1, 4) + beta)


@given(L=st.floats(0.1, 5), R=st.floats(0.1, 5), n=st.integers(1, 10**5), B=st.floats(0.1, 5),
       eps=st.floats(0.01, 5))
def test_corollary_4_11_minimises_corollary_4_10(L, R, n, B, eps):
    lam, bound = corollary_4_11_regularization(L, R, n, B, eps)
    at = corollary_4_10_excess_risk_bound(L, R, lam, n, B, eps)
    assert at == pytest.approx(bound, rel=1e-12)
    for f in (0.8, 1.25):
        assert corollary_4_10_excess_risk_bound(L, R, lam * f, n, B, eps) >= bound * (1 - 1e-12)
    with mpmath.workdps(50):
        exact = 2 * mpmath.mpf(L) * mpmath.mpf(R) * mpmath.mpf(B) * mpmath.sqrt(
            (1 + 1 / mpmath.mpf(eps)) / n)
        assert mpmath.mpf(bound) >= exact


def _population():
    us = np.linspace(-0.6, 0.6, 5)
    X = np.array([[a, b] for a in us for b in us])
    p1 = 1 / (1 + np.exp(-3 * X[:, 0] + 0.5))
    return X, p1


def _pop_loss(w, X, p1):
    z = X @ w
    return float(np.mean(p1 * np.logaddexp(0, -z) + (1 - p1) * np.logaddexp(0, z)))


@pytest.mark.parametrize("algo", ["erm", "psgd"])
def test_excess_risk_bounds_not_contradicted(algo):
    """Theorems 4.9 and 4.12 (derived forms) on a finite population, by simulation.

    L_P is exact given the trained w (a finite population). Over N training sets
    the mean of L_P(w_S) is compared with the bound at comparator w*; the loss is
    bounded by M (from the bound on ||w||), so by Hoeffding the mean exceeds its
    expectation by more than M sqrt(ln(1/ALPHA)/(2N)) with probability <= ALPHA.
    """
    X, p1 = _population()
    n, N, lam, eta = 20, 200, 0.5, 0.5
    w_star = scipy.optimize.minimize(lambda w: _pop_loss(w, X, p1), np.zeros(2)).x
    B = float(np.linalg.norm(w_star)) * (1 + 1e-12)
    if algo == "erm":
        learner = RegularizedERM(LogisticLoss(), lam, 1.0)
        bound = theorem_4_9_excess_risk_bound(1.0, 1.0, lam, n, B)
        M = math.log1p(math.exp(1.0 / lam))            # ||w|| <= L R / lam, |z| <= ||w|| R
    else:
        learner = ProjectedSGD(LogisticLoss(), eta, 1.0)
        bound = theorem_4_12_excess_risk_bound(1.0, 1.0, eta, n, B)
        M = math.log1p(math.exp(eta * (n - 1) / 2))    # ||w_bar|| <= eta L R (n - 1) / 2
    rng = np.random.default_rng(9)
    losses = []
    for _ in range(N):
        idx = rng.integers(0, len(X), size=n)
        y = np.where(rng.random(n) < p1[idx], 1.0, -1.0)
        losses.append(_pop_loss(learner(X[idx], y).w, X, p1))
    width = M * math.sqrt(math.log(1 / ALPHA) / (2 * N))
    assert np.mean(losses) - width <= _pop_loss(w_star, X, p1) + bound


# ------------------------------------------- power of the exhaustive checks --

def test_exhaustive_search_finds_the_attained_rates():
    """The Huber cases attain the rates exactly, so any smaller declared rate would fail."""
    from proofs_checks.common.stability_search import erm_search, psgd_search
    F = Fraction
    res = erm_search("huber", F(1), 4, 1, F(1, 4))
    assert res.worst == res.beta == F(1, 8)
    res = psgd_search("huber", F(1, 2), 4, 1, F(1, 4), None)
    assert res.worst == res.beta == F(3, 16)

