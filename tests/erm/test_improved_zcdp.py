"""Improved objective perturbation and the zCDP (Gaussian) releases of refdp.erm: budgets, validation, noise law."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats

from refdp.erm import (HuberHingeLoss, LogisticLoss, PrivateHuberSVM, PrivateLogisticRegression,
                       objective_perturbation, objective_perturbation_budget, objective_perturbation_zcdp,
                       objective_perturbation_zcdp_budget, output_perturbation_sensitivity,
                       output_perturbation_sigma, output_perturbation_zcdp)
from refdp.utils.solver import minimise

F = Fraction


def _data(n=60, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.6, 0.6, size=(n, d))
    y = np.where(X[:, 0] - 0.3 * X[:, 1] > 0, 1, -1)
    return X, y


# ------------------------------------------------------------------ improved budget ----

@pytest.mark.parametrize("eps, c, n, lam", [(1.0, 0.25, 100, 0.1), (2.0, 1.0, 2, 0.95), (0.3, 0.25, 50, 0.02)])
def test_improved_budget_first_branch_rounds_down(eps, c, n, lam):
    b = objective_perturbation_budget(eps, c, n, lam, improved=True)
    assert b.improved and b.extra_regularization == 0.0 and b.total_regularization == lam
    with mpmath.workdps(60):
        exact = mpmath.mpf(eps) - mpmath.log1p(mpmath.mpf(c) / (n * mpmath.mpf(lam)))
        assert mpmath.mpf(b.epsilon_prime) <= exact
        assert math.nextafter(b.epsilon_prime, math.inf) > exact          # the largest such double
    assert F(b.noise_rate) * 2 <= F(b.epsilon_prime)
    paper = objective_perturbation_budget(eps, c, n, lam, improved=False)
    assert not paper.improved
    assert objective_perturbation_budget(eps, c, n, lam) == b          # the default is the improved budget
    if paper.extra_regularization == 0.0:          # (else the paper's Delta branch gives epsilon / 2)
        assert b.epsilon_prime > paper.epsilon_prime


def test_improved_budget_delta_branch():
    eps, c, n, lam = 0.1, 0.25, 100, 0.01                  # ln(1 + 0.25) > 0.1
    b = objective_perturbation_budget(eps, c, n, lam, improved=True)
    assert b.epsilon_prime == 0.05 and b.noise_rate == 0.025
    with mpmath.workdps(60):
        need = mpmath.mpf(c) / (n * mpmath.expm1(mpmath.mpf(eps) / 2))
        assert mpmath.mpf(b.total_regularization) >= need               # rounded up
        assert mpmath.mpf(b.total_regularization) - need < 1e-15
    assert b.total_regularization == lam + b.extra_regularization
    paper = objective_perturbation_budget(eps, c, n, lam, improved=False)   # e^{eps/4}: more Delta
    assert paper.extra_regularization > b.extra_regularization


def test_improved_must_be_bool():
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match="The 'improved' parameter of objective_perturbation_budget"):
            objective_perturbation_budget(1.0, 0.25, 10, 0.1, improved=bad)
    X, y = _data()
    with pytest.raises(ValueError, match="The 'improved' parameter of objective_perturbation must be"):
        objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.1, improved=0)


def test_improved_release_records_and_is_deterministic():
    X, y = _data()
    a = objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.1, rng=3, improved=True)
    b = objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.1, rng=3, improved=True)
    assert np.array_equal(a.theta, b.theta) and a.improved and a.privacy == "pure"
    assert a.noise == "spherical_laplace" and a.noise_scale is None and a.rho is None
    assert a.epsilon_prime == objective_perturbation_budget(1.0, 0.25, 60, 0.1, improved=True).epsilon_prime


# ------------------------------------------------------------------ zCDP budgets ----

def test_output_sigma_is_rounded_up():
    for rho, n, lam, tol in [(0.5, 100, 0.1, 0.0), (0.37, 7, 0.3, 1e-8), (3.0, 1000, 1e-3, 1e-8)]:
        s = output_perturbation_sigma(rho, n, lam, tol)
        exact = F(2, n) / F(lam) + 2 * F(tol) / F(lam)
        assert 2 * F(rho) * F(s) ** 2 >= exact ** 2
        assert 2 * F(rho) * F(math.nextafter(s, 0)) ** 2 < F(output_perturbation_sensitivity(n, lam, tol)) ** 2
    assert output_perturbation_sigma(0.5, 100, 0.1) == 0.2


def test_objective_zcdp_budget_numbers_and_rounding():
    b = objective_perturbation_zcdp_budget(0.5, 0.25, 1000, 0.01)
    assert b.extra_regularization == 0.0 and b.improved
    with mpmath.workdps(60):
        rp = mpmath.mpf(0.5) - mpmath.log1p(mpmath.mpf(0.25) / (1000 * mpmath.mpf(0.01)))
        assert mpmath.mpf(b.rho_prime) <= rp < mpmath.mpf(math.nextafter(b.rho_prime, 1))
        s = mpmath.mpf(b.noise_scale)
        root = (mpmath.sqrt(2 * mpmath.pi) + mpmath.sqrt(2 * mpmath.pi + 8 * mpmath.mpf(b.rho_prime))) \
            / (2 * mpmath.mpf(b.rho_prime))
        assert root <= s and s - root < 1e-14 * root                    # sigma rounded up
        assert 2 / s ** 2 + mpmath.sqrt(2 * mpmath.pi) / s <= mpmath.mpf(b.rho_prime)
        total = mpmath.mpf(b.xi) + mpmath.mpf(b.rho0)
        assert total <= 0.5 * (1 + 1e-14)
    paper = objective_perturbation_zcdp_budget(0.5, 0.25, 1000, 0.01, improved=False)
    assert not paper.improved and paper.noise_scale > b.noise_scale


def test_objective_zcdp_budget_delta_branch():
    b = objective_perturbation_zcdp_budget(0.01, 0.25, 100, 0.01)
    assert b.rho_prime == 0.005 and b.extra_regularization > 0
    with mpmath.workdps(60):
        need = mpmath.mpf(0.25) / (100 * mpmath.expm1(mpmath.mpf(0.01) / 2))
        assert need <= mpmath.mpf(b.total_regularization) < need * (1 + 1e-15)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, "1", None])
def test_rho_validation(bad):
    X, y = _data()
    for fn in (output_perturbation_zcdp, objective_perturbation_zcdp):
        with pytest.raises(ValueError, match=f"The 'rho' parameter of {fn.__name__} must be"):
            fn(X, y, LogisticLoss(), rho=bad, regularization=0.1)
    with pytest.raises(ValueError, match="The 'rho' parameter of objective_perturbation_zcdp_budget"):
        objective_perturbation_zcdp_budget(bad, 0.25, 10, 0.1)
    with pytest.raises(ValueError, match="The 'rho' parameter of output_perturbation_sigma"):
        output_perturbation_sigma(bad, 10, 0.1)


def test_zcdp_releases_record_their_parameters_and_repeat_for_a_seed():
    X, y = _data()
    for fn, method in ((output_perturbation_zcdp, "output"), (objective_perturbation_zcdp, "objective")):
        a, b = (fn(X, y, HuberHingeLoss(0.5), rho=0.8, regularization=0.1, rng=11) for _ in range(2))
        assert np.array_equal(a.theta, b.theta)
        assert (a.method, a.privacy, a.noise, a.rho, a.epsilon, a.noise_rate) == \
            (method, "zcdp", "gaussian", 0.8, None, None)
        assert a.noise_scale > 0 and math.isfinite(a.noise_mean_norm)
    assert objective_perturbation_zcdp(X, y, LogisticLoss(), rho=0.8, regularization=0.1, rng=1).improved
    assert not objective_perturbation_zcdp(X, y, LogisticLoss(), rho=0.8, regularization=0.1, rng=1, improved=False).improved


def test_gaussian_output_noise_law():
    # theta - f_hat ~ N(0, sigma^2 I): 1000 releases, d = 2. Each coordinate: a KS test against
    # N(0, sigma^2), and the sample covariance's off-diagonal |r| (Fisher z, normal approximation).
    # Five tests at 2e-7 each: family-wise false-failure rate 1e-6.
    X, y = _data(n=40)
    loss = LogisticLoss()
    f_hat = minimise(loss, X, y.astype(float), 0.5, tol=1e-8).theta
    rng = np.random.default_rng(2024)
    thetas = np.array([output_perturbation_zcdp(X, y, loss, rho=2.0, regularization=0.5, rng=rng).theta for _ in range(1000)])
    sigma = output_perturbation_sigma(2.0, 40, 0.5, 1e-8)
    noise = thetas - f_hat
    crit = scipy.stats.norm.isf(1e-7)
    for j in range(2):
        assert scipy.stats.kstest(noise[:, j], "norm", args=(0.0, sigma)).pvalue > 2e-7
        assert abs(noise[:, j].mean()) <= crit * sigma / math.sqrt(1000)
    r = np.corrcoef(noise.T)[0, 1]
    assert abs(np.arctanh(r)) * math.sqrt(1000 - 3) <= crit


def test_gaussian_objective_noise_enters_the_first_order_condition():
    # textbook path: theta minimises J(f) + b^T f / n + Delta ||f||^2/2 with
    # b = Generator(seed).normal(0, sigma, d) (the float-safe path draws b exactly:
    # tests/erm/test_objective_float_safe.py)
    X, y = _data(n=30)
    loss = HuberHingeLoss(0.5)
    res = objective_perturbation_zcdp(X, y, loss, rho=1.5, regularization=0.2, rng=7, secure=False)
    b = np.random.default_rng(7).normal(0.0, res.noise_scale, size=2)
    m = y * (X @ res.theta)
    grad = X.T @ (y * loss.derivative(m)) / 30 + (0.2 + res.extra_regularization) * res.theta + b / 30
    assert np.linalg.norm(grad) <= 1e-7


# ------------------------------------------------------------------ estimators ----

@pytest.mark.parametrize("cls", [PrivateLogisticRegression, PrivateHuberSVM])
def test_estimators_improved_and_rho(cls):
    X, y = _data(n=200)
    est = cls(epsilon=None, rho=0.5, method="objective", rng=0)
    assert est.get_params()["rho"] == 0.5 and est.get_params()["improved"] is True
    res = est.fit(X, y).result_
    assert res.privacy == "zcdp" and res.rho == 0.5 and res.method == "objective"
    assert res.improved                        # the improved bound by default, under zCDP ...
    assert cls(method="objective", rng=0).fit(X, y).result_.improved              # ... and under epsilon-DP
    assert not cls(improved=False, method="objective", rng=0).fit(X, y).result_.improved    # Algorithm 2 as published
    paper = cls(epsilon=None, rho=0.5, improved=False, method="objective", rng=0).fit(X, y).result_
    assert not paper.improved
    for r, flag in ((res, True), (paper, False)):
        expect = objective_perturbation_zcdp_budget(0.5, r.loss.curvature, 200, 0.01, improved=flag)
        assert (r.noise_scale, r.extra_regularization) == (expect.noise_scale, expect.extra_regularization)
    out = cls(epsilon=None, rho=0.5, method="output", rng=0).fit(X, y).result_
    assert out.method == "output" and out.noise_scale == output_perturbation_sigma(0.5, 200, 0.01, 1e-8)
    imp = cls(improved=True, method="objective", rng=0).fit(X, y).result_
    assert imp.improved and imp.privacy == "pure"
    assert not est.set_params(improved=False).fit(X, y).result_.improved
    with pytest.raises(ValueError, match=r"The 'epsilon' parameter of \w+\.fit must be None when 'rho' is given"):
        cls(rho=0.5).fit(X, y)
    with pytest.raises(ValueError, match=r"The 'rho' parameter of \w+\.fit must be a float"):
        cls(epsilon=None, rho=-1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"The 'improved' parameter of \w+\.fit"):
        cls(improved="no").fit(X, y)
