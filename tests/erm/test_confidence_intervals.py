"""Private confidence intervals for private ERM (refdp.erm.confidence_intervals, private_matrices)."""
import csv
import doctest
import importlib
import json
import math
import os
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from proofs_checks.wang_kifer_lee.population import sample
from refdp.accounting import basic_composition, zcdp_composition, zcdp_to_dp
from refdp.erm import (HuberHingeLoss, LogisticLoss, PrivateConfidenceIntervals, PrivateHuberSVM,
                       PrivateLogisticRegression, confidence_intervals, frobenius_sensitivity,
                       output_perturbation, output_perturbation_zcdp,
                       private_confidence_intervals, private_gradient_covariance, private_hessian,
                       split_budget)
from refdp.erm.private_matrices import floor_eigenvalues, hessian_matrix, symmetric_noise, vec_f_sensitivity

LAMBDA = 0.1


@pytest.fixture(scope="module")
def data():
    X, y = sample(1500, np.random.default_rng(5))
    return X, y


@pytest.fixture(scope="module")
def release(data):
    X, y = data
    return output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=LAMBDA, rng=3)


@pytest.fixture(scope="module")
def release_zcdp(data):
    X, y = data
    return output_perturbation_zcdp(X, y, LogisticLoss(), rho=0.5, regularization=LAMBDA, rng=3)


def _variants():
    out = []
    for method in ("objective", "output"):
        out.append((method, {"epsilon": 2.0}))
        out.append((method, {"rho": 1.0}))
    return out


# -- shapes, determinism, properties --------------------------------------------

@pytest.mark.parametrize("method,kw", _variants())
def test_shapes_and_fields(data, method, kw):
    X, y = data
    ci = private_confidence_intervals(X, y, HuberHingeLoss(0.5), regularization=LAMBDA, method=method, rng=1, n_samples=2000,
                                      **kw)
    assert isinstance(ci, PrivateConfidenceIntervals)
    for a in (ci.lower, ci.upper, ci.theta, ci.width):
        assert a.shape == (2,)
    assert np.all(ci.lower < ci.theta) and np.all(ci.theta < ci.upper)
    assert np.allclose(ci.theta - ci.lower, ci.upper - ci.theta)
    assert ci.hessian.matrix.shape == ci.gradient_covariance.matrix.shape == ci.covariance.shape == (2, 2)
    assert ci.method == method and ci.privacy == ("pure" if "epsilon" in kw else "zcdp")
    mu = ci.release.regularization + (ci.release.extra_regularization if method == "objective" else 0.0)
    assert ci.regularization == mu == ci.hessian.floor
    assert ci.covers(ci.theta).all()


def test_deterministic_for_a_seed(data, release):
    X, y = data
    a = confidence_intervals(release, X, y, (0.3, 0.3), rng=11)
    b = confidence_intervals(release, X, y, (0.3, 0.3), rng=11)
    c = confidence_intervals(release, X, y, (0.3, 0.3), rng=12)
    assert np.array_equal(a.lower, b.lower) and np.array_equal(a.upper, b.upper)
    assert np.array_equal(a.hessian.noisy, b.hessian.noisy)
    assert not np.array_equal(a.lower, c.lower)
    p = private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, epsilon=2.0, rng=4, n_samples=1000)
    q = private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, epsilon=2.0, rng=np.random.default_rng(4),
                                     n_samples=1000)
    assert np.array_equal(p.lower, q.lower) and np.array_equal(p.theta, q.theta)


@pytest.mark.parametrize("method", ["output", "objective"])
def test_closed_form_matches_monte_carlo_for_gaussian_noise(data, method):
    X, y = data
    fit = private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, rho=0.5, method=method, rng=2).release
    closed = confidence_intervals(fit, X, y, (0.2, 0.2), rng=21)
    mc = confidence_intervals(fit, X, y, (0.2, 0.2), rng=21, monte_carlo=True, n_samples=400_000)
    assert not closed.monte_carlo and mc.monte_carlo
    assert np.array_equal(closed.hessian.matrix, mc.hessian.matrix)       # same matrix noise: drawn first
    # 400000 draws: the 0.95 quantile of |N(0, s^2)| has relative sd about 0.12 / sqrt(4e5) / 1.96 < 1e-3
    np.testing.assert_allclose(mc.width, closed.width, rtol=5e-3)


def test_output_closed_form_value(data, release_zcdp):
    X, y = data
    ci = confidence_intervals(release_zcdp, X, y, (0.25, 0.25), rng=1)
    z = 1.959963984540054
    # a float-safe release: the grid's step * sigma_Z bounds the noise's standard deviation
    s = release_zcdp.grid_noise.noise_scale
    assert release_zcdp.noise_scale <= s <= release_zcdp.noise_scale * (1 + 2.0**-9)
    half = z * np.sqrt(np.diag(ci.covariance) + s ** 2)
    np.testing.assert_allclose(ci.upper - ci.theta, half, rtol=1e-12)
    assert np.array_equal(ci.privacy_variance, np.full(2, s ** 2))


def test_level_orders_widths(data, release):
    X, y = data
    w = [confidence_intervals(release, X, y, (0.3, 0.3), level=lv, rng=1).width for lv in (0.5, 0.9, 0.99)]
    assert np.all(w[0] < w[1]) and np.all(w[1] < w[2])


def test_matrices_are_symmetric_and_floored(data, release):
    X, y = data
    # a tiny budget: the noise dominates and the floors bind for some seeds
    mu, bound = LAMBDA, 0
    for seed in range(10):
        ci = confidence_intervals(release, X, y, (1e-4, 1e-4), rng=seed)
        for m, floor in ((ci.hessian, mu), (ci.gradient_covariance, 0.0)):
            assert np.array_equal(m.noisy, m.noisy.T)
            assert np.array_equal(m.matrix, m.matrix.T)
            assert np.linalg.eigvalsh(m.matrix).min() >= floor - 1e-9 * max(1.0, np.abs(m.noisy).max())
        bound += np.linalg.eigvalsh(ci.hessian.noisy).min() < mu      # the projection did something
        assert np.linalg.eigvalsh(ci.covariance).min() >= -1e-15
    assert bound > 0


def test_projection_is_nonexpansive_towards_the_truth(data, release):
    X, y = data
    H = hessian_matrix(X, y, LogisticLoss(), release.theta) + LAMBDA * np.eye(2)
    for seed in range(20):
        E = symmetric_noise(2, noise_rate=5.0, rng=seed)
        P = floor_eigenvalues(H + E, LAMBDA)
        assert np.linalg.norm(P - H) <= np.linalg.norm(E) * (1 + 1e-12)


def test_secure_matrix_release_is_on_the_grid_and_textbook_path_kept(data, release):
    from refdp.erm.private_matrices import (_unvec_f, _vec_f, private_hessian, secure_symmetric_release,
                                            vec_f_sensitivity, frobenius_sensitivity)
    from refdp.mechanisms.float_safe import l2_laplace_grid
    X, y = data
    theta = release.theta
    H0 = hessian_matrix(X, y, LogisticLoss(), theta)
    n = X.shape[0]
    sec = private_hessian(X, y, LogisticLoss(), theta, LAMBDA, epsilon=0.5, rng=11)
    assert sec.secure and sec.sensitivity == vec_f_sensitivity(n, LogisticLoss().curvature)
    assert sec.sensitivity > frobenius_sensitivity(n, LogisticLoss().curvature)
    want = secure_symmetric_release(H0, sec.sensitivity, "pure", 0.5, np.random.default_rng(11)) \
        + LAMBDA * np.eye(2)
    assert np.array_equal(sec.noisy, want)
    g = l2_laplace_grid(0.5, sec.sensitivity, 3).step
    v = _vec_f(sec.noisy - LAMBDA * np.eye(2))
    assert np.allclose(v / g, np.round(v / g), atol=1e-6)
    old = private_hessian(X, y, LogisticLoss(), theta, LAMBDA, epsilon=0.5, rng=11, secure=False)
    assert not old.secure
    E = symmetric_noise(2, noise_rate=old.noise_rate, rng=11)
    assert np.array_equal(old.noisy, H0 + LAMBDA * np.eye(2) + E)
    assert np.allclose(_unvec_f(_vec_f(H0), 2), H0, rtol=1e-15)


def test_secure_output_release_monte_carlo_uses_the_grid_law(data):
    """The interval's privacy term is drawn from the law the float-safe release actually used."""
    X, y = data
    rel = output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=LAMBDA, rng=2)
    assert rel.grid_noise is not None and rel.grid_noise.law == "laplace"
    assert np.all(rel.theta == np.round(rel.theta / rel.grid_noise.step) * rel.grid_noise.step)
    old = output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=LAMBDA, rng=2, secure=False)
    assert old.grid_noise is None
    a = confidence_intervals(rel, X, y, (0.3, 0.3), rng=5)
    b = confidence_intervals(old, X, y, (0.3, 0.3), rng=5)
    # product discrete Laplace per coordinate is wider than the spherical law in d = 2
    assert np.all(a.width > b.width)


def test_symmetric_noise_is_an_isometric_image():
    for d in (1, 2, 4):
        E = symmetric_noise(d, noise_scale=1.0, rng=d)
        iu = np.triu_indices(d)
        vec = np.where(iu[0] == iu[1], E[iu], E[iu] * math.sqrt(2.0))
        assert math.isclose(np.linalg.norm(vec), np.linalg.norm(E), rel_tol=1e-14)
        assert np.array_equal(E, E.T)


def test_frobenius_sensitivity_rounds_up():
    for n in (1, 3, 1000, 10 ** 7):
        for b in (0.25, 1.0, 2.0):
            s = frobenius_sensitivity(n, b)
            assert Fraction(s) ** 2 >= 2 * Fraction(b) ** 2 / n ** 2
            with mpmath.workdps(50):
                exact = mpmath.sqrt(2) * b / n
                assert s >= exact
                # the rounding term 2 gamma_{n+2} b is sqrt(2) n^2 u relative to sqrt(2) b / n
                assert s <= exact * (1 + 2 * (n + 2) ** 2 * 2.0 ** -53) + 1e-300


def test_noise_calibration_is_exact(data, release):
    X, y = data
    ci = confidence_intervals(release, X, y, (0.3, 0.2), rng=1)
    for m, a in ((ci.hessian, 0.3), (ci.gradient_covariance, 0.2)):
        assert Fraction(m.noise_rate) * Fraction(m.sensitivity) <= Fraction(a)
    assert ci.hessian.sensitivity == vec_f_sensitivity(X.shape[0], 0.25)
    assert ci.gradient_covariance.sensitivity == vec_f_sensitivity(X.shape[0], 1.0)


# -- budgets ----------------------------------------------------------------------

@pytest.mark.parametrize("method,kw", _variants())
def test_whole_release_composes_to_declared_budget(data, method, kw):
    X, y = data
    total = kw.get("epsilon", kw.get("rho"))
    split = (0.7, 0.2, 0.1)
    ci = private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, method=method, split=split, delta=1e-6,
                                      rng=8, n_samples=1000, **kw)
    parts = (ci.budget_theta, ci.budget_hessian, ci.budget_gradient)
    assert parts == split_budget(total, split)
    assert sum(map(Fraction, parts)) <= Fraction(total)
    if "epsilon" in kw:
        assert ci.release.epsilon == parts[0] and ci.hessian.epsilon == parts[1]
        assert ci.total == basic_composition(list(parts)).epsilon <= total
        assert ci.epsilon_dp is None
    else:
        assert ci.release.rho == parts[0] and ci.gradient_covariance.rho == parts[2]
        assert ci.total == zcdp_composition(list(parts)) <= total
        assert ci.epsilon_dp == zcdp_to_dp(ci.total, 1e-6)
    for a, s in zip(parts, split):
        assert math.isclose(a, s * total, rel_tol=1e-15)


def test_budget_with_total_is_shares_of_the_remainder(data, release):
    X, y = data
    ci = confidence_intervals(release, X, y, (0.75, 0.25), total=2.0, rng=1)
    assert ci.budget_theta == 1.0
    assert sum(map(Fraction, (ci.budget_theta, ci.budget_hessian, ci.budget_gradient))) <= 2
    assert ci.total <= 2.0 and math.isclose(ci.budget_hessian, 0.75, rel_tol=1e-15)
    explicit = confidence_intervals(release, X, y, (0.5, 0.25), rng=1)
    assert explicit.total == basic_composition([1.0, 0.5, 0.25]).epsilon == 1.75


def test_split_budget_exact_sum():
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = rng.dirichlet([1, 1, 1])
        s = np.maximum(s, 1e-3)
        s = tuple(float(v) for v in s / s.sum())
        total = float(rng.uniform(0.01, 10))
        parts = split_budget(total, s)
        assert sum(map(Fraction, parts)) <= Fraction(total)
        assert all(p > 0 for p in parts)


# -- estimators as models ---------------------------------------------------------

@pytest.mark.parametrize("cls", [PrivateLogisticRegression, PrivateHuberSVM])
def test_fitted_estimator_as_model(data, cls):
    X, y = data
    y01 = (y > 0).astype(int)
    est = cls(epsilon=1.0, regularization=LAMBDA, method="output", classes=(0, 1), norm_bound=2.0, rng=0)
    est.fit(2 * X, y01)
    ci = confidence_intervals(est, 2 * X, y01, (0.5, 0.5), rng=1)
    assert ci.release is est.result_
    with pytest.raises(ValueError, match="'y' parameter of confidence_intervals"):
        confidence_intervals(est, 2 * X, y, (0.5, 0.5), rng=1)       # -1 is not a declared class


# -- bad input ----------------------------------------------------------------------

def _msg(name, owner="confidence_intervals"):
    return f"The '{name}' parameter of {owner} must be"


@pytest.mark.parametrize("level", [0.0, 1.0, -0.5, 1.5, math.nan, "0.9", None])
def test_bad_level(data, release, level):
    X, y = data
    with pytest.raises(ValueError, match=_msg("level")):
        confidence_intervals(release, X, y, (0.1, 0.1), level=level)
    with pytest.raises(ValueError, match=_msg("level", "private_confidence_intervals")):
        private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, epsilon=1.0, level=level)


# an element is reported under the parameter's name, with its position
@pytest.mark.parametrize("budget,name", [((0.0, 0.1), "budget"), ((0.1, -1.0), "budget"),
                                         ((math.nan, 0.1), "budget"), ((0.1,), "budget"),
                                         (0.2, "budget"), ((0.1, 0.1, 0.1), "budget")])
def test_bad_explicit_budget(data, release, budget, name):
    X, y = data
    with pytest.raises(ValueError, match=_msg(name)):
        confidence_intervals(release, X, y, budget)


@pytest.mark.parametrize("budget,name", [((0.5, 0.6), "budget"), ((0.0, 1.0), "budget"),
                                         ((1.2, -0.2), "budget"), ((0.3, 0.3), "budget")])
def test_bad_shares_with_total(data, release, budget, name):
    X, y = data
    with pytest.raises(ValueError, match=_msg(name)):
        confidence_intervals(release, X, y, budget, total=2.0)


@pytest.mark.parametrize("total", [1.0, 0.5, -1.0, math.nan, math.inf])
def test_total_must_exceed_the_model_budget(data, release, total):
    X, y = data
    with pytest.raises(ValueError, match=_msg("total")):
        confidence_intervals(release, X, y, (0.5, 0.5), total=total)


@pytest.mark.parametrize("split", [(0.5, 0.5, 0.5), (0.8, 0.2, 0.0), (1.2, -0.1, -0.1), (0.5, 0.5), "abc",
                                   (0.9, 0.05, math.nan)])
def test_bad_split(data, split):
    X, y = data
    with pytest.raises(ValueError, match=r"The 'split(\[\d\])?' parameter of private_confidence_intervals "):
        private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, epsilon=1.0, split=split)


@pytest.mark.parametrize("kw", [{}, {"epsilon": 1.0, "rho": 0.5}])
def test_epsilon_and_rho_exactly_one(data, kw):
    X, y = data
    with pytest.raises(ValueError, match=_msg("epsilon", "private_confidence_intervals")):
        private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, **kw)
    with pytest.raises(ValueError, match=_msg("epsilon", "private_hessian")):
        private_hessian(X, y, LogisticLoss(), np.zeros(2), LAMBDA, **kw)
    with pytest.raises(ValueError, match=_msg("epsilon", "private_gradient_covariance")):
        private_gradient_covariance(X, y, LogisticLoss(), np.zeros(2), **kw)


@pytest.mark.parametrize("kw", [{"epsilon": 0.0}, {"epsilon": -1.0}, {"rho": math.nan}, {"rho": math.inf}])
def test_bad_epsilon_or_rho_values(data, kw):
    X, y = data
    name = next(iter(kw))
    with pytest.raises(ValueError, match=_msg(name, "private_confidence_intervals")):
        private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, **kw)


def test_bad_method_and_samples(data, release):
    X, y = data
    with pytest.raises(ValueError, match=_msg("method", "private_confidence_intervals")):
        private_confidence_intervals(X, y, LogisticLoss(), regularization=LAMBDA, epsilon=1.0, method="input")
    with pytest.raises(ValueError, match=_msg("n_samples")):
        confidence_intervals(release, X, y, (0.1, 0.1), n_samples=10)
    with pytest.raises(ValueError, match=_msg("delta")):
        confidence_intervals(release, X, y, (0.1, 0.1), delta=0.0)
    with pytest.raises(ValueError, match=_msg("monte_carlo")):
        confidence_intervals(release, X, y, (0.1, 0.1), monte_carlo="yes")


@pytest.mark.parametrize("model", [PrivateLogisticRegression(), PrivateHuberSVM(), object(), None,
                                   {"theta": [0.0, 0.0]}, np.zeros(2)])
def test_model_not_a_supported_release(data, model):
    X, y = data
    with pytest.raises(ValueError, match=_msg("model")):
        confidence_intervals(model, X, y, (0.1, 0.1))


def test_model_with_unsupported_method(data, release):
    import dataclasses

    X, y = data
    with pytest.raises(ValueError, match=_msg("method", "PrivateERMResult")):    # refused when built
        dataclasses.replace(release, method="input")
    bad = dataclasses.replace(release, noise="gaussian")        # pure DP with a Gaussian label
    with pytest.raises(ValueError, match=_msg("model")):
        confidence_intervals(bad, X, y, (0.1, 0.1))


def test_shapes_must_agree_with_the_model(data, release):
    X, y = data
    with pytest.raises(ValueError, match=_msg("X")):
        confidence_intervals(release, np.column_stack([X, np.zeros(len(X))]) * 0.5, y, (0.1, 0.1))
    with pytest.raises(ValueError, match=_msg("X")):
        confidence_intervals(release, X[:-1], y[:-1], (0.1, 0.1))
    with pytest.raises(ValueError, match=_msg("y")):
        confidence_intervals(release, X, y[:-1], (0.1, 0.1))
    with pytest.raises(ValueError, match=_msg("theta", "private_hessian")):
        private_hessian(X, y, LogisticLoss(), np.zeros(3), LAMBDA, epsilon=1.0)


def test_rows_outside_the_ball_and_nan(data, release):
    X, y = data
    X2 = X.copy()
    X2[7] = [0.9, 0.9]
    with pytest.raises(ValueError, match=_msg("X")):
        confidence_intervals(release, X2, y, (0.1, 0.1))
    X2[7] = [math.nan, 0.0]
    with pytest.raises(ValueError, match=_msg("X")):
        confidence_intervals(release, X2, y, (0.1, 0.1))
    X3 = X.copy()
    X3[0] = [2.0, 0.0]
    with pytest.raises(ValueError, match=_msg("X", "private_confidence_intervals")):
        private_confidence_intervals(X3, y, LogisticLoss(), regularization=LAMBDA, epsilon=1.0)
    ci = private_confidence_intervals(X3, y, LogisticLoss(), regularization=LAMBDA, epsilon=1.0, clip=True, rng=0,
                                      n_samples=500)
    assert ci.release.clip
    confidence_intervals(ci.release, X3, y, (0.1, 0.1), rng=0, n_samples=500)   # clip recorded, reused


def test_labels_outside_the_classes(data, release):
    X, y = data
    y2 = y.copy()
    y2[3] = 0.0
    with pytest.raises(ValueError, match=_msg("y")):
        confidence_intervals(release, X, y2, (0.1, 0.1))
    with pytest.raises(ValueError, match=_msg("y", "private_confidence_intervals")):
        private_confidence_intervals(X, y2, LogisticLoss(), regularization=LAMBDA, epsilon=1.0)


# -- documentation ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["private_matrices", "confidence_intervals"])
def test_docstring_examples(name):
    module = importlib.import_module(f"refdp.erm.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_inference_page_example_runs_and_says_what_the_page_says():
    from tests._support.paths import DOCS
    from tests._support.rst import python_blocks

    blocks = python_blocks(os.path.join(DOCS, "erm_inference.rst"))
    assert len(blocks) == 1
    ns = {"__name__": "erm_inference_example"}
    exec(compile(blocks[0], "erm_inference.rst", "exec"), ns)
    assert ns["ci"].total == 1.5 and ns["ci"].release is ns["clf"].result_


def test_inference_page_tables_match_the_saved_study():
    from tests._support.paths import DOCS

    static = os.path.join(DOCS, "_static")
    with open(os.path.join(static, "erm_inference_coverage.json"), encoding="utf-8") as fh:
        saved = json.load(fh)
    with open(os.path.join(static, "erm_inference_coverage_table.csv"), encoding="utf-8") as fh:
        table = list(csv.reader(fh))[1:]
    assert len(table) == len(saved["rows"]) == 80
    assert all(r["reps"] >= 1000 for r in saved["rows"])
    for cells, r in zip(table, saved["rows"]):
        assert cells[3] == str(r["n"]) and cells[4].startswith(f"{r['coverage'][0]:.3f}")


# -- statistical sanity (slow) --------------------------------------------------------

@pytest.mark.slow
def test_coverage_sanity_objective_pure():
    """Objective perturbation, epsilon = 2, n = 5000: 400 repetitions, coverage >= 0.90 (CP lower, 1e-3)."""
    from proofs_checks.wang_kifer_lee.population import population_minimiser
    from refdp.audit import clopper_pearson_lower

    loss = LogisticLoss()
    master = np.random.SeedSequence(77)
    hits, reps, target = np.zeros(2), 400, None
    for child in master.spawn(reps):
        a, b = child.spawn(2)
        X, y = sample(5000, np.random.default_rng(a))
        ci = private_confidence_intervals(X, y, loss, regularization=0.05, epsilon=2.0, rng=np.random.default_rng(b),
                                          n_samples=4000)
        if target is None:
            target = population_minimiser(loss, ci.regularization)[0]
        hits += ci.covers(target)
    # if the true coverage were 0.95, P[lower bound < 0.90] is below 1e-4 per coordinate
    assert all(clopper_pearson_lower(int(h), reps, 1e-3) >= 0.90 for h in hits), hits / reps
