"""Noise on a beta-stable prediction is private (Lemma 4.5), on the worst pairs found.

Claim
    Dwork & Feldman 2018, Lemma 4.5, as implemented by StablePredictor and
    stable_prediction: if |A(S)(x) - A(S')(x)| <= beta on replace-one
    neighbours, then (i) the densities p, p' of A(S)(x) + Lap(b) and
    A(S')(x) + Lap(b), b = laplace_scale(epsilon, beta), satisfy
    |ln p(o)/p'(o)| <= epsilon at every output o, and after clipping to
    [lo, hi] the two atoms P(o = lo), P(o = hi) satisfy the same bound
    (clipping is post-processing); (ii) with classical Gaussian noise,
    sigma = classical_gaussian_sigma(beta, epsilon, delta) and epsilon < 1,
    the exact hockey-stick divergence of N(0, sigma^2) and N(beta, sigma^2)
    at e^epsilon is at most delta; (iii) with sigma = gaussian_sigma_zcdp(rho,
    beta), (a - a')^2 / (2 sigma^2) <= rho, i.e. every Renyi divergence of
    order alpha is at most rho alpha.
Setting
    The pairs are the worst replace-one pairs found by the exhaustive
    searches of Theorems 4.9 and 4.12 (proofs_checks.common.stability_search):
    Huber ERM (lam = 1, attains beta), logistic ERM (lam = 1) and Huber SGD
    (eta = 1/2, attains beta), all 1-D with n = 4 and the worst query x = 1.
    a and a' are the library's own predictions: StablePredictor (k = 1) wraps
    the library learner with its declared rate ``stability_rate(4)`` and is
    fitted on S and on S'. epsilon in {1, 0.3}; the output grid has 2001
    points over [min(a, a') - 12 b, max(a, a') + 12 b]; the clipping range is
    [min(a, a') + (max - min)/3, max(a, a') + b]. Gaussian: epsilon in
    {0.1, 0.5, 0.9}, delta in {1e-3, 1e-6}; zCDP: rho in {0.01, 0.5, 2}.
Precision
    (i) ln p(o) - ln p'(o) = (|o - a'| - |o - a|)/b with dyadic a, a', b, o:
    decided exactly as max_o (|o - a'| - |o - a|) <= epsilon b (interval
    arithmetic on point intervals, equality decides HOLDS; the Huber pairs
    attain it). Atoms: when both clipping points lie on the same side of a
    and a' the log-ratio is the rational (a - a')/b and is decided exactly,
    otherwise in mpmath.iv at 50 digits. The reported log-ratio is evaluated
    in mpmath at 50 digits. (ii) decided with refdp.verify.verdict.decide_leq
    (30 and 70 digits), the closed form of Balle and Wang (2018):
    Phi(beta/(2 sigma) - epsilon sigma/beta) - e^epsilon Phi(-beta/(2 sigma)
    - epsilon sigma/beta). (iii) exact rationals.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from proofs_checks.common.continuous_noise import decide_exact_leq
from proofs_checks.common.stability_search import erm_search, psgd_search
from refdp.mechanisms import gaussian_sigma_zcdp
from refdp.mechanisms.float_safe import gaussian_grid
from refdp.prediction.convex import HuberLoss, LogisticLoss, ProjectedSGD, RegularizedERM
from refdp.prediction.stability import StablePredictor, _rho_for_dp, classical_gaussian_sigma
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import iv_context
from refdp.verify.verdict import (Verdict, decide_enclosures, decide_leq,
                                  worst_verdict)

F = Fraction
DPS = 50
EPSILONS = (1.0, 0.3)
GAUSS = ((0.1, 1e-3), (0.5, 1e-3), (0.9, 1e-3), (0.1, 1e-6), (0.5, 1e-6), (0.9, 1e-6))
RHOS = (0.01, 0.5, 2.0)
N_GRID = 2001


def _dyadic(x: Fraction) -> Fraction:
    return F(round(x * 2 ** 60), 2 ** 60)


def worst_pairs():
    """(label, learner, S, S') for the worst pairs of the exhaustive searches."""
    out = []
    for label, res, learner in (
        ("Huber ERM lam=1", erm_search("huber", F(1), 4, 1, F(1, 4)),
         RegularizedERM(HuberLoss(0.25), 1.0, 1.0, tol=1e-12)),
        ("logistic ERM lam=1", erm_search("logistic", F(1), 4, 1, F(1, 4)),
         RegularizedERM(LogisticLoss(), 1.0, 1.0, tol=1e-12)),
        ("Huber SGD eta=1/2", psgd_search("huber", F(1, 2), 4, 1, F(1, 4), None),
         ProjectedSGD(HuberLoss(0.25), 0.5, 1.0)),
    ):
        recs = res.extra["records"]
        data = []
        for ds in res.pair:
            X = np.array([[float(c) for c in recs[i][0]] for i in ds])
            y = np.array([float(recs[i][1]) for i in ds])
            data.append((X, y))
        out.append((label, learner, data[0], data[1]))
    return out


def _fitted_scores(learner, beta, epsilon, output_range, pair, **noise):
    query = np.array([[1.0]])
    preds = []
    for X, y in pair:
        sp = StablePredictor(learner, beta, epsilon, output_range=output_range, rng=0, **noise)
        sp.fit(X, y)
        preds.append(float(sp._score(query)[0]))
    return preds, sp


def _log_tail(c, b, iv):
    """ln P(Z >= c) for Z ~ Lap(b), enclosed in the interval context ``iv`` (c, b exact rationals)."""
    cq = iv.mpf(c.numerator) / c.denominator
    bq = iv.mpf(b.numerator) / b.denominator
    if c >= 0:
        return iv.log(iv.mpf(0.5)) - cq / bq
    return iv.log(1 - iv.exp(cq / bq) / 2)


def _atom_verdict(a, a2, b, eps, cut, upper_side):
    """Decide |ln P(atom | a) - ln P(atom | a')| <= eps for the atom at ``cut``."""
    # the upper atom is P(a + Z >= cut); the lower one is P(a + Z <= cut) = P(-a + Z >= -cut)
    c1, c2 = (cut - a, cut - a2) if upper_side else (a - cut, a2 - cut)
    if c1 >= 0 and c2 >= 0:                     # both on the exponential side: rational log-ratio
        return decide_exact_leq(abs(c1 - c2), F(eps) * b)
    iv = iv_context(DPS)
    diff = _log_tail(c1, b, iv) - _log_tail(c2, b, iv)
    return decide_enclosures(abs(diff), iv.mpf(eps))


def laplace_part():
    verdicts, best, where = [], None, ""
    for label, learner, S, S2 in worst_pairs():
        beta = learner.stability_rate(4)
        for eps in EPSILONS:
            (a, a2), sp = _fitted_scores(learner, beta, eps, None, (S, S2))
            b = F(sp.scale)
            fa, fa2 = F(a), F(a2)
            lo, hi = min(fa, fa2) - 12 * b, max(fa, fa2) + 12 * b
            grid = [_dyadic(lo + (hi - lo) * F(k, N_GRID - 1)) for k in range(N_GRID)]
            gaps = [abs(o - fa2) - abs(o - fa) for o in grid]
            k = max(range(N_GRID), key=lambda j: abs(gaps[j]))
            verdicts.append(decide_exact_leq(abs(gaps[k]), F(eps) * b))
            with mpmath.workdps(DPS):
                o = mpmath.mpf(grid[k].numerator) / grid[k].denominator
                bm = mpmath.mpf(b.numerator) / b.denominator
                lr = abs((-abs(o - mpmath.mpf(a)) + abs(o - mpmath.mpf(a2))) / bm)
            # clipping atoms
            cut_lo = min(fa, fa2) + (max(fa, fa2) - min(fa, fa2)) / 3
            cut_hi = max(fa, fa2) + b
            verdicts.append(_atom_verdict(fa, fa2, b, eps, cut_hi, True))
            verdicts.append(_atom_verdict(fa, fa2, b, eps, cut_lo, False))
            if best is None or lr - mpmath.mpf(eps) > best[0] - mpmath.mpf(best[1]):
                best = (lr, eps)
                where = (f"{label}, epsilon={eps}: |a - a'| = {abs(a - a2):.6g}, "
                         f"b = {float(b):.6g}, beta = {beta:.6g}")
    return verdicts, best, where


def gaussian_part():
    verdicts, worst = [], None
    for label, learner, S, S2 in worst_pairs():
        beta = learner.stability_rate(4)
        for eps, delta in GAUSS:
            # secure default: discrete Gaussian on the grid at rho = _rho_for_dp(eps, delta),
            # rho-zCDP (docs/theory/secure_noise.rst, Theorem 2), hence (eps, delta)-DP
            (a, a2), sp = _fitted_scores(learner, beta, eps, None, (S, S2),
                                         noise="gaussian", delta=delta)
            rho_s = _rho_for_dp(eps, delta)
            assert sp.scale == gaussian_sigma_zcdp(rho_s, sp.sensitivity)
            grid = gaussian_grid(rho_s, sp.sensitivity, 1)
            ok = (F(abs(a - a2)) <= F(sp.sensitivity)
                  and F(grid.integer_sensitivity) ** 2 / (2 * grid.parameter ** 2) <= F(rho_s))
            verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
            v, _, _ = decide_leq(lambda: mpmath.mpf(rho_s) + 2 * mpmath.sqrt(mpmath.mpf(rho_s)
                                                                           * -mpmath.log(mpmath.mpf(delta))),
                                 lambda: mpmath.mpf(eps), dps=30)
            verdicts.append(v)
            # textbook path (secure=False): the classical continuous Gaussian
            (a, a2), sp = _fitted_scores(learner, beta, eps, None, (S, S2),
                                         noise="gaussian", delta=delta, secure=False)
            sigma = sp.scale
            assert sigma == classical_gaussian_sigma(sp.sensitivity, eps, delta)
            verdicts.append(Verdict.HOLDS if F(abs(a - a2)) <= F(sp.sensitivity) else Verdict.FAILS)

            def hockey():
                s, d = mpmath.mpf(sigma), mpmath.mpf(sp.sensitivity)
                e = mpmath.mpf(eps)
                return (mpmath.ncdf(d / (2 * s) - e * s / d)
                        - mpmath.exp(e) * mpmath.ncdf(-d / (2 * s) - e * s / d))

            v, lhs, rhs = decide_leq(hockey, lambda: mpmath.mpf(delta), dps=30)
            verdicts.append(v)
            ratio = float(lhs / rhs)
            if worst is None or ratio > worst[0]:
                worst = (ratio, f"{label}, epsilon={eps}, delta={delta}: exact delta(eps) = "
                                f"{float(lhs):.4g}")
        for rho in RHOS:
            (a, a2), sp = _fitted_scores(learner, beta, None, None, (S, S2), noise="gaussian",
                                         rho=rho)
            assert sp.scale == gaussian_sigma_zcdp(rho, sp.sensitivity)
            lhs = F(a - a2) ** 2
            verdicts.append(Verdict.HOLDS if lhs <= 2 * F(rho) * F(sp.scale) ** 2 else Verdict.FAILS)
    return verdicts, worst


@register("dwork_feldman.lemma_4_5_stability_privacy",
          "stable prediction + Lap(beta/eps): |ln p/p'| <= eps on the worst replace-one pairs "
          "(and at the clipping atoms); classical Gaussian delta(eps) <= delta; zCDP Renyi <= rho alpha",
          covers=("refdp.prediction.stability.StablePredictor.predict",
                  "refdp.prediction.stability.stable_prediction",
                  "refdp.prediction.stability.classical_gaussian_sigma"),
          quick=True)
def stability_privacy() -> CheckResult:
    v1, (lr, eps), where = laplace_part()
    v2, (ratio, gwhere) = gaussian_part()
    detail = (f"largest Laplace log-ratio at {where}; Gaussian: largest exact delta(eps)/delta = "
              f"{ratio:.4f} at {gwhere}; {len(v1)} Laplace and {len(v2)} Gaussian decisions")
    return CheckResult(lr, mpmath.mpf(eps), worst_verdict(v1 + v2), DPS, detail, method="estimated")
