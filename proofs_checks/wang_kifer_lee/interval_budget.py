"""Private confidence intervals: the whole release composes to the declared budget.

Claim
    (derived; docs/theory/erm_inference.rst) private_confidence_intervals
    with total epsilon (or rho) and split (s_theta, s_H, s_G) releases theta
    with budget a_theta, H_hat with a_H and G_hat with a_G where the exact
    sum a_theta + a_H + a_G <= total; the intervals are post-processing, so
    the whole release is total-DP by basic composition (total-zCDP by zCDP
    composition), and the accountant (refdp.accounting.basic_composition,
    zcdp_composition, zcdp_to_dp) reports that total. confidence_intervals
    on a given release composes the same way, with explicit parts or with
    shares of a declared total.
Setting
    A sample of n = 400 records of the coverage population (x uniform on the
    unit disc, logistic labels), logistic loss, Lambda = 0.1; the four
    variants (objective perturbation with the improved budget, output
    perturbation; epsilon = 1.5 pure DP, rho = 0.75 zCDP with delta = 1e-6);
    split (0.6, 0.25, 0.15). For each: (1) the parts are split_budget's and
    sum exactly (rationals) to at most the declared total; (2) the model
    release carries a_theta (its epsilon or rho) and equals the
    stand-alone mechanism run on the same seed (so its own check covers it);
    (3) the Hessian and gradient-covariance releases carry a_H and a_G, with
    sensitivity vec_f_sensitivity(n, b) (the secure default) and noise calibrated to it
    exactly (beta S <= a, 2 a sigma^2 >= S^2); (4) the reported total equals
    the accountant's composition of the three parts and is at most the
    declared total; for zCDP epsilon_dp equals zcdp_to_dp(total, delta);
    (5) confidence_intervals on the release with shares (0.5, 0.5) of a total
    twice the model's budget composes to at most that total, and with
    explicit parts to the model's budget plus the parts; (6) the matrices it
    releases are the seeded float-safe grid releases of the computed data
    parts (plus mu I for the Hessian).
Precision
    Exact rational comparisons of doubles (fractions.Fraction); equality of
    arrays is bitwise. No statistics.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from proofs_checks.wang_kifer_lee.population import sample
from refdp.accounting import basic_composition, zcdp_composition, zcdp_to_dp
from refdp.erm import (LogisticLoss, confidence_intervals, objective_perturbation,
                       objective_perturbation_zcdp, output_perturbation, output_perturbation_zcdp,
                       private_confidence_intervals, split_budget)
from refdp.erm.private_matrices import (gradient_covariance_matrix, hessian_matrix, secure_symmetric_release,
                                        vec_f_sensitivity)
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

F = Fraction
LAMBDA = 0.1
SPLIT = (0.6, 0.25, 0.15)
DELTA = 1e-6
TOTALS = {"pure": 1.5, "zcdp": 0.75}
SEED = 2019


def _calibrated(m, a):
    S = F(m.sensitivity)
    if m.privacy == "pure":
        return F(m.noise_rate) * S <= F(a)
    return 2 * F(a) * F(m.noise_scale) ** 2 >= S * S


def _standalone(method, privacy, X, y, loss, a, seed):
    if privacy == "pure":
        if method == "output":
            return output_perturbation(X, y, loss, epsilon=a, regularization=LAMBDA, rng=seed)
        return objective_perturbation(X, y, loss, epsilon=a, regularization=LAMBDA, improved=True, rng=seed)
    if method == "output":
        return output_perturbation_zcdp(X, y, loss, rho=a, regularization=LAMBDA, rng=seed)
    return objective_perturbation_zcdp(X, y, loss, rho=a, regularization=LAMBDA, improved=True, rng=seed)


def _wired(ci, X, y, loss, seed):
    rel = ci.release
    rng = np.random.default_rng(seed)
    H = secure_symmetric_release(hessian_matrix(X, y, loss, rel.theta), ci.hessian.sensitivity, ci.privacy,
                                 ci.hessian.budget, rng) + ci.regularization * np.eye(rel.d)
    G = secure_symmetric_release(gradient_covariance_matrix(X, y, loss, rel.theta),
                                 ci.gradient_covariance.sensitivity, ci.privacy, ci.gradient_covariance.budget, rng)
    return np.array_equal(ci.hessian.noisy, H) and np.array_equal(ci.gradient_covariance.noisy, G)


def variant(method, privacy, X, y, loss):
    """(list of (name, ok), total / declared) for one variant."""
    T = TOTALS[privacy]
    kw = {"epsilon": T} if privacy == "pure" else {"rho": T}
    ci = private_confidence_intervals(X, y, loss, regularization=LAMBDA, method=method, split=SPLIT, delta=DELTA, rng=SEED, **kw)
    rel = ci.release
    parts = split_budget(T, SPLIT)
    a_theta = rel.epsilon if privacy == "pure" else rel.rho
    composed = (basic_composition(list(parts)).epsilon if privacy == "pure" else zcdp_composition(list(parts)))
    n = X.shape[0]
    checks = [
        ("parts", (ci.budget_theta, ci.budget_hessian, ci.budget_gradient) == parts
         and sum(map(F, parts)) <= F(T)),
        ("model budget", a_theta == parts[0]
         and np.array_equal(rel.theta, _standalone(method, privacy, X, y, loss, parts[0], SEED).theta)),
        ("matrix budgets", ci.hessian.budget == parts[1] and ci.gradient_covariance.budget == parts[2]),
        ("sensitivities", ci.hessian.sensitivity == vec_f_sensitivity(n, loss.curvature)
         and ci.gradient_covariance.sensitivity == vec_f_sensitivity(n, 1.0)),
        ("calibration", _calibrated(ci.hessian, parts[1]) and _calibrated(ci.gradient_covariance, parts[2])),
        ("accountant", ci.total == composed and F(ci.total) <= F(T)),
        ("zcdp to dp", privacy == "pure" or ci.epsilon_dp == zcdp_to_dp(ci.total, DELTA)),
    ]
    # confidence_intervals on the release: shares of a declared total, and explicit parts
    total2 = 2 * a_theta
    c2 = confidence_intervals(rel, X, y, (0.5, 0.5), total=total2, rng=SEED + 1)
    c3 = confidence_intervals(rel, X, y, (0.2, 0.1), rng=SEED + 2)
    exp3 = (basic_composition([a_theta, 0.2, 0.1]).epsilon if privacy == "pure"
            else zcdp_composition([a_theta, 0.2, 0.1]))
    checks += [
        ("shares of total", F(c2.total) <= F(total2)
         and sum(map(F, (c2.budget_theta, c2.budget_hessian, c2.budget_gradient))) <= F(total2)
         and _calibrated(c2.hessian, c2.budget_hessian) and _calibrated(c2.gradient_covariance, c2.budget_gradient)),
        ("explicit parts", c3.total == exp3 and (c3.budget_hessian, c3.budget_gradient) == (0.2, 0.1)),
        ("wiring", _wired(c2, X, y, loss, SEED + 1) and _wired(c3, X, y, loss, SEED + 2)),
    ]
    return checks, max(ci.total / T, c2.total / total2)


def run() -> CheckResult:
    X, y = sample(400, np.random.default_rng(SEED))
    loss = LogisticLoss()
    all_ok, worst, rows = True, 0.0, []
    for method in ("objective", "output"):
        for privacy in ("pure", "zcdp"):
            checks, ratio = variant(method, privacy, X, y, loss)
            failed = [name for name, ok in checks if not ok]
            all_ok &= not failed
            worst = max(worst, ratio)
            rows.append(f"{method}/{privacy}: total/declared = {ratio!r}"
                        + (f", FAILED: {failed}" if failed else ", all parts hold"))
    return CheckResult(worst, 1.0, Verdict.HOLDS if all_ok else Verdict.FAILS, 0, "; ".join(rows), method="certified")


@register("wang_kifer_lee.interval_budget_composition",
          "private confidence intervals: theta, H_hat and G_hat are released with parts that sum to at most "
          "the declared budget, each part calibrated exactly, and the accountant's composition equals the "
          "reported total (pure DP and zCDP, both mechanisms)",
          covers=("refdp.erm.confidence_intervals", "refdp.erm.private_confidence_intervals",
                  "refdp.erm.split_budget"),
          quick=True)
def interval_budget_composition() -> CheckResult:
    return run()
