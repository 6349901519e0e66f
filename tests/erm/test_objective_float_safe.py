"""Float-safe objective perturbation: exact noise draws and the certified grid cell of the minimiser.

The release is ``g * round(theta*(b) / g)`` for an exact draw ``b`` of the
continuous law (``docs/theory/secure_noise.rst``, Theorem 7). In d = 1 the
law of the release is known in closed form: ``theta*(b)`` is decreasing in
``b`` (``b = phi(theta) = -n (L'(theta) + mu theta)``), so ``P[release <= k g]
= P[b > phi((k + 1/2) g)]``. The law tests compare the sampled release with
it by exact binomial tests; each test fails a correct implementation with
probability at most 1e-6 (Bonferroni over its thresholds), and the same
test applied to a draw with a 10 % scale error fails (checked below).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from refdp.erm import HuberHingeLoss, LogisticLoss, objective_perturbation, objective_perturbation_budget
from refdp.erm import _grid_minimiser as gm
from refdp.erm.objective_perturbation import release_objective_perturbation
from refdp.erm.objective_perturbation_zcdp import (objective_perturbation_zcdp,
                                                   objective_perturbation_zcdp_budget,
                                                   release_objective_perturbation_zcdp)
from refdp.utils.lazy_noise import BitSource, LazyExponential, LazySphericalLaplace, lazy_normal

FALSE_FAILURE = 1e-6


def _binomial_ok(k, n, p, tests):
    return stats.binomtest(k, n, p).pvalue > FALSE_FAILURE / tests


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= 1.01 * np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


# ---------------------------------------------------------------- lazy samplers

@pytest.mark.parametrize("scale_error", [1.0, pytest.param(1.1, marks=pytest.mark.slow)])
def test_lazy_normal_law(scale_error):
    """P[|s Z| < c] at four cuts; s = 1.1 (a 10 % scale error) must fail."""
    src = BitSource(np.random.default_rng(5).bit_generator)
    n = 40_000
    draws = [lazy_normal(src) for _ in range(n)]
    cuts = [0.25, 0.75, 1.5, 2.5]
    ok = True
    for c in cuts:
        cut = Fraction(c) / Fraction(scale_error)
        inside = 0
        for z in draws:
            lo, hi = z.bounds()
            while lo < cut < hi or lo < -cut < hi:
                z.refine(8)
                lo, hi = z.bounds()
            inside += -cut <= lo and hi <= cut
        ok &= _binomial_ok(inside, n, 2 * stats.norm.cdf(c) - 1, len(cuts))
    assert ok == (scale_error == 1.0)


def test_lazy_exponential_law():
    src = BitSource(np.random.default_rng(6).bit_generator)
    n = 40_000
    cuts = [0.1, 0.5, 1.0, 2.0, 4.0]
    draws = [LazyExponential(src) for _ in range(n)]
    for c in cuts:
        below = 0
        for e in draws:
            while True:
                lo, hi = e.bounds()
                if hi <= c or lo >= c:
                    break
                e.refine(4)
            below += hi <= c
        assert _binomial_ok(below, n, 1 - math.exp(-c), len(cuts))


def test_lazy_spherical_laplace_radius_and_direction():
    src = BitSource(np.random.default_rng(7).bit_generator)
    n, dim, beta = 6000, 3, Fraction(2)
    radii, firsts = [], []
    for _ in range(n):
        b = LazySphericalLaplace(src, dim, beta)
        b.refine(40)
        mid = np.array([float((lo + hi) / 2) for lo, hi in b.bounds()])
        radii.append(np.linalg.norm(mid))
        firsts.append(mid[0] / np.linalg.norm(mid))
    # radius ~ Gamma(3, 1/2); first direction coordinate uniform on [-1, 1] in d = 3
    assert stats.kstest(radii, stats.gamma(dim, scale=0.5).cdf).pvalue > FALSE_FAILURE
    assert stats.kstest(firsts, stats.uniform(-1, 2).cdf).pvalue > FALSE_FAILURE


# ---------------------------------------------------------------- certified cells

def _force_exact_stage(monkeypatch):
    real = gm.GridMinimiser.float_gradient

    def useless(self, theta, g):
        grad, err = real(self, theta, g)
        return grad, err + 1e9                    # the float certificate never decides
    monkeypatch.setattr(gm.GridMinimiser, "float_gradient", useless)


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberHingeLoss(0.5)], ids=["logistic", "huber"])
def test_float_and_exact_stages_release_the_same_cell(monkeypatch, loss):
    X, y = _data(12, 2, 3)
    budget = objective_perturbation_budget(1.0, loss.curvature, 12, 0.2)
    fast = [release_objective_perturbation(X, y, loss, 0.2, budget, rng=s).theta for s in range(6)]
    _force_exact_stage(monkeypatch)
    calls = []
    exact = gm._exact_stage
    monkeypatch.setattr(gm, "_exact_stage", lambda *a, **k: calls.append(1) or exact(*a, **k))
    slow = [release_objective_perturbation(X, y, loss, 0.2, budget, rng=s).theta for s in range(6)]
    assert len(calls) == 6
    for a, b in zip(fast, slow):
        assert np.array_equal(a, b)


def test_release_is_on_the_grid_and_deterministic():
    X, y = _data(200, 3, 4)
    r1 = objective_perturbation(X, y, LogisticLoss(), epsilon=0.5, regularization=0.1, rng=11)
    r2 = objective_perturbation(X, y, LogisticLoss(), epsilon=0.5, regularization=0.1, rng=11)
    assert np.array_equal(r1.theta, r2.theta)
    g = r1.grid_step
    assert g is not None and math.frexp(g)[0] == 0.5               # a power of two
    assert all(Fraction(float(t)) / Fraction(g) == int(Fraction(float(t)) / Fraction(g)) for t in r1.theta)
    textbook = objective_perturbation(X, y, LogisticLoss(), epsilon=0.5, regularization=0.1, rng=11,
                                      secure=False)
    assert textbook.grid_step is None


def _phi(loss, X, y, mu, theta):
    """b = -n (L'(theta) + mu theta) in d = 1, in floating point (a test reference)."""
    n = X.shape[0]
    m = y * X[:, 0] * theta
    return -(np.sum(loss.derivative(m) * y * X[:, 0]) + n * mu * theta)


def _law_test(thetas, step, cdf_of_b_above, X, y, loss, mu, n_thresholds=5):
    """Binomial tests of P[release <= k g] = P[b > phi((k + 1/2) g)] at a few quantiles."""
    thetas = np.asarray(thetas)
    ks = np.quantile(thetas / step, np.linspace(0.15, 0.85, n_thresholds)).round().astype(int)
    ok = True
    for k in ks:
        p = cdf_of_b_above(_phi(loss, X, y, mu, (k + 0.5) * step))
        ok &= _binomial_ok(int(np.sum(thetas <= k * step)), len(thetas), p, n_thresholds)
    return ok


@pytest.mark.parametrize("rate_error", [1.0, 1.1])
def test_pure_dp_release_law_in_one_dimension(rate_error):
    loss = HuberHingeLoss(0.5)
    X = np.array([[0.5], [-0.4], [0.3], [0.9], [-0.2]])
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    budget = objective_perturbation_budget(1.0, loss.curvature, 5, 0.5)
    drawn = budget._replace(noise_rate=budget.noise_rate * rate_error)
    rng = np.random.default_rng(8)
    # a deliberately wrong (less noisy) budget is refused by the public release: draw it unchecked
    release = release_objective_perturbation.__wrapped__
    thetas = [release(X, y, loss, 0.5, drawn, rng=rng).theta[0] for _ in range(20_000)]
    step = release_objective_perturbation(X, y, loss, 0.5, budget, rng=0).grid_step
    beta, mu = budget.noise_rate, budget.total_regularization
    above = lambda t: 0.5 * math.exp(-beta * t) if t >= 0 else 1 - 0.5 * math.exp(beta * t)   # noqa: E731
    assert _law_test(thetas, step, above, X, y, loss, mu) == (rate_error == 1.0)


@pytest.mark.parametrize("scale_error", [1.0, pytest.param(1.1, marks=pytest.mark.slow)])
def test_zcdp_release_law_in_one_dimension(scale_error):
    loss = LogisticLoss()
    X = np.array([[0.5], [-0.4], [0.3], [0.9], [-0.2], [0.7]])
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    budget = objective_perturbation_zcdp_budget(0.5, loss.curvature, 6, 0.5)
    drawn = budget._replace(noise_scale=budget.noise_scale * scale_error)
    rng = np.random.default_rng(9)
    thetas = [release_objective_perturbation_zcdp(X, y, loss, 0.5, drawn, rng=rng).theta[0]
              for _ in range(20_000)]
    step = release_objective_perturbation_zcdp(X, y, loss, 0.5, budget, rng=0).grid_step
    sigma, mu = budget.noise_scale, budget.total_regularization
    above = lambda t: stats.norm.sf(t / sigma)          # noqa: E731
    assert _law_test(thetas, step, above, X, y, loss, mu) == (scale_error == 1.0)


def test_zcdp_public_function_is_secure_by_default():
    X, y = _data(50, 2, 12)
    r = objective_perturbation_zcdp(X, y, LogisticLoss(), rho=0.5, regularization=0.1, rng=3)
    assert r.grid_step is not None
    assert objective_perturbation_zcdp(X, y, LogisticLoss(), rho=0.5, regularization=0.1, rng=3,
                                       secure=False).grid_step is None


def test_secure_flag_is_validated():
    X, y = _data(10, 1, 1)
    with pytest.raises(ValueError, match="'secure' parameter of objective_perturbation"):
        objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.1, secure="yes")


def test_replayed_certificate_detects_a_wrong_cell():
    """The checks' independent certificate (proofs_checks.common.chaudhuri_erm.grid_release_verdict) can fail."""
    import dataclasses

    from proofs_checks.common.chaudhuri_erm import grid_release_verdict
    X, y = _data(8, 2, 21)
    loss = LogisticLoss()
    budget = objective_perturbation_budget(1.0, loss.curvature, 8, 0.3)
    res = release_objective_perturbation(X, y, loss, 0.3, budget, rng=4)
    data = [(tuple(Fraction(float(v)) for v in x), Fraction(int(t))) for x, t in zip(X, y)]

    def replay():
        return LazySphericalLaplace(BitSource(np.random.default_rng(4).bit_generator), 2,
                                    Fraction(budget.noise_rate))
    assert grid_release_verdict(loss, data, budget.total_regularization, res, replay()) == "holds"
    moved = dataclasses.replace(res, theta=res.theta + np.array([res.grid_step, 0.0]))
    assert grid_release_verdict(loss, data, budget.total_regularization, moved, replay()) == "fails"
