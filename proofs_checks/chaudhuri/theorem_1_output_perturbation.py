"""Output perturbation is epsilon-DP: the ERM minimiser moves by at most 2/(n Lambda) (Chaudhuri et al. 2011).

Claim
    Chaudhuri, Monteleoni and Sarwate 2011, Corollary 1 and Theorem 1: for
    J(f, D) = (1/n) sum_i l(y_i f^T x_i) + (Lambda/2) ||f||^2 with l convex,
    differentiable, |l'| <= 1 and ||x_i|| <= 1, the exact minimisers on
    replace-one neighbours satisfy ||f_D - f_D'|| <= 2/(n Lambda). With noise
    of density proportional to exp(-beta ||b||), beta = n Lambda epsilon / 2,
    the log-ratio of the output densities at any output o is
    beta (||o - f_D'|| - ||o - f_D||) <= beta ||f_D - f_D'|| <= epsilon (the
    spherical-Laplace step is checked by chaudhuri.spherical_laplace_density_ratio).
Setting
    Every multiset of n records over a grid alphabet, and every replace-one
    neighbour of it (proofs_checks.common.stability_search.worst_pairs). Quick:
    1-D alphabet x in {-1, -1/2, 0, 1/2, 1}, y = +-1, n = 4 (715 datasets,
    9900 pairs) for the logistic loss with Lambda = 1/8 and the Huber hinge
    loss with (h, Lambda) in {(1/4, 2), (1/2, 1/4)}. With h = 1/4 and
    Lambda = 2 every margin stays in the linear zone, where the bound
    2/(n Lambda) is attained exactly. Full: the same 1-D sweep for logistic
    Lambda = 1, and the 2-D alphabet {-5/8, 0, 5/8}^2, n = 3 (1140 datasets,
    26 163 pairs) for logistic Lambda = 1/4 and Huber hinge (1/2, 1/2),
    (1/4, 2).
Implementation
    The same pairs are compared for the points the library actually computes
    (refdp.utils.solver.minimise at the default tol = 1e-8): their distance
    must be at most the sensitivity refdp calibrates to,
    2/(n Lambda) + 2 tol/Lambda, each computed point's exact gradient norm
    must be at most tol, and output_perturbation_rate(epsilon = 1, n, Lambda,
    tol) times that sensitivity must be at most epsilon (exact rationals);
    release_output_perturbation returns that point plus the spherical Laplace
    draw of its seed (checked on the worst pair's first dataset).
Precision
    Huber hinge minimisers are exact rationals (zone pattern read from the
    library's point, solved and verified in rational arithmetic); logistic
    minimisers are enclosed in a ball around the library's point of radius
    ||grad J|| / Lambda, the gradient enclosed in mpmath.iv at 160 bits.
    Every pair is decided exactly in rationals
    (||f_a - f_c||^2 <= (bound - r_a - r_c)^2); measured is an exact upper bound
    of the worst pair's distance.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from proofs_checks.common.chaudhuri_erm import exact_minimiser
from proofs_checks.common.stability_search import norm_upper, worst_pairs, records_1d, records_2d
from refdp.utils.rounding import floor_fraction
from refdp.erm import (HuberHingeLoss, LogisticLoss, output_perturbation_rate, output_perturbation_sensitivity,
                       release_output_perturbation)
from refdp.erm.output_perturbation import DEFAULT_TOL
from refdp.mechanisms import spherical_laplace
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

F = Fraction
DIGITS = 48
EPSILON = 1.0
QUICK = (("logistic", None, F(1, 8), 4, 1), ("huber_hinge", F(1, 4), F(2), 4, 1),
         ("huber_hinge", F(1, 2), F(1, 4), 4, 1))
FULL = (("logistic", None, F(1), 4, 1), ("logistic", None, F(1, 4), 3, 2),
        ("huber_hinge", F(1, 2), F(1, 2), 3, 2), ("huber_hinge", F(1, 4), F(2), 3, 2))


def make_loss(name, h):
    return LogisticLoss() if name == "logistic" else HuberHingeLoss(float(h))


def _distance(values, radii, a, c):
    sq = sum((u - v) ** 2 for u, v in zip(values[a], values[c]))
    return norm_upper(sq) + radii[a] + radii[c]


def released_as_declared(loss, recs, ds, lam, epsilon, point, seed=31):
    """release_output_perturbation releases the solver's point with the seeded noise.

    By default through spherical_laplace's float-safe release at rate
    ``floor(epsilon / S)`` against the float sensitivity ``S`` (so ``rate * S
    <= epsilon``); with ``secure=False`` as the point plus the spherical draw.
    """
    X = np.array([[float(c) for c in recs[i][0]] for i in ds])
    y = np.array([float(recs[i][1]) for i in ds])
    theta = np.array([float(v) for v in point])
    res = release_output_perturbation(X, y, loss, epsilon, float(lam), tol=DEFAULT_TOL, rng=seed)
    s_float = output_perturbation_sensitivity(X.shape[0], float(lam), DEFAULT_TOL)
    rate = floor_fraction(Fraction(epsilon) / Fraction(s_float))
    secure = spherical_laplace(X.shape[1], rate, value=theta, sensitivity=s_float, rng=seed)
    plain = release_output_perturbation(X, y, loss, epsilon, float(lam), tol=DEFAULT_TOL, rng=seed, secure=False)
    b = spherical_laplace(X.shape[1], res.noise_rate, rng=seed)
    return (np.array_equal(res.theta, secure) and np.array_equal(plain.theta, theta + b)
            and Fraction(rate) * Fraction(s_float) <= Fraction(epsilon))


def sweep(name, h, lam, n, dim, epsilon=EPSILON):
    """All replace-one pairs of one setting: (verdicts, worst distance, bound, worst pair, text)."""
    loss = make_loss(name, h)
    recs = records_1d() if dim == 1 else records_2d()
    m = len(recs)
    datasets = list(itertools.combinations_with_replacement(range(m), n))
    bound = F(2, n) / lam
    exact_vals, exact_rad, impl_vals, impl_ok = [], [], [], True
    for ds in datasets:
        f, r, theta, grad_norm = exact_minimiser(loss, [recs[i] for i in ds], lam, DEFAULT_TOL)
        exact_vals.append(f)
        exact_rad.append(r)
        impl_vals.append(tuple(F(float(v)) for v in theta))
        impl_ok &= grad_norm <= F(DEFAULT_TOL)
    holds, (sa, sb, a, c), count = worst_pairs(exact_vals, exact_rad, datasets, m, n, bound)
    worst = _distance(exact_vals, exact_rad, a, c)
    sens = bound + 2 * F(DEFAULT_TOL) / lam
    impl_holds, (_, _, ia, ic), _ = worst_pairs(impl_vals, [F(0)] * len(datasets), datasets, m, n, sens)
    beta = F(output_perturbation_rate(epsilon, n, float(lam), DEFAULT_TOL))
    rate_ok = beta * sens <= F(epsilon)
    wired = released_as_declared(loss, recs, datasets[a], lam, epsilon, impl_vals[a])
    verdicts = [Verdict.HOLDS if ok else Verdict.FAILS
                for ok in (holds, impl_holds, impl_ok, rate_ok, wired)]
    label = f"{name}{'' if h is None else f' h={h}'}, Lambda={lam}, n={n}, {dim}-D"
    text = (f"{label}: worst ||f_D - f_D'|| <= {float(worst):.9g} vs 2/(n Lambda) = {float(bound):.9g} "
            f"(ratio {float(worst / bound):.6f}) over {count} pairs; library points: worst "
            f"{float(_distance(impl_vals, [F(0)] * len(datasets), ia, ic)):.9g} <= {float(sens):.9g}, "
            f"gradients <= tol: {impl_ok}, beta * sensitivity <= epsilon: {rate_ok}")
    return verdicts, worst, bound, (recs, sa, sb), text


def run(settings) -> CheckResult:
    verdicts, rows, top = [], [], None
    for s in settings:
        v, worst, bound, pair, text = sweep(*s)
        verdicts += v
        rows.append(text)
        if top is None or worst / bound > top[0] / top[1]:
            recs, sa, sb = pair
            top = (worst, bound, f"D = {[recs[i] for i in sa]}, D' = {[recs[i] for i in sb]}")
    detail = (f"log density ratio = beta ||f_D - f_D'|| <= epsilon with beta = n Lambda epsilon / 2; "
              f"worst pair {top[2]}. " + "; ".join(rows))
    return CheckResult(float(top[0]), float(top[1]), worst_verdict(verdicts), DIGITS, detail, method="certified")


COVERS = ("refdp.erm.output_perturbation", "refdp.erm.release_output_perturbation",
          "refdp.erm.output_perturbation_rate",
          "refdp.erm.output_perturbation_sensitivity", "refdp.erm.PrivateLogisticRegression.fit",
          "refdp.erm.PrivateHuberSVM.fit")


@register("chaudhuri.output_perturbation_sensitivity",
          "output perturbation: ||f_D - f_D'|| <= 2/(n Lambda) on every replace-one pair of small 1-D "
          "datasets (logistic and Huber hinge; exact or certified minimisers), so beta ||f_D - f_D'|| <= "
          "epsilon; the library's computed points within its calibrated sensitivity",
          covers=COVERS, quick=True)
def output_perturbation_quick() -> CheckResult:
    return run(QUICK)


@register("chaudhuri.output_perturbation_sensitivity_2d",
          "as chaudhuri.output_perturbation_sensitivity on every replace-one pair of small 2-D datasets",
          covers=COVERS, quick=False)
def output_perturbation_full() -> CheckResult:
    return run(FULL)

