"""Regularised ERM over linear predictors is prediction stable with rate 2 L R^2 / (lam n).

Claim
    Dwork & Feldman 2018, Theorem 4.9 (constant derived in
    docs/theory/stability.rst): for the exact minimisers w_S, w_S' of
    F_S(w) = (1/n) sum_i l(<w, x_i>, y_i) + (lam/2) ||w||^2 on replace-one
    neighbours, with l convex and L-Lipschitz in the prediction and
    ||x|| <= R, sup_{||x|| <= R} |<w_S - w_S', x>| <= beta = 2 L R^2 / (lam n).
    (The strong-convexity argument of Shalev-Shwartz, Shamir, Srebro and
    Sridharan 2010, which Dwork and Feldman cite, bounds the weights,
    ||w_S - w_S'|| <= 2LR/(lam n); the prediction moves by up to R times that.)
Setting
    Exhaustive search (proofs_checks.common.stability_search): every multiset of n
    records over a grid of points of the unit ball with labels +-1, every
    replace-one neighbour, the supremum over the ball (attained on the grid in
    1-D). Quick: 1-D grid {-1, -1/2, 0, 1/2, 1}, n = 4, Huber loss
    (delta = 1/4, L = 1/4) with lam in {1, 1/8} and logistic loss (L = 1)
    with lam in {1, 1/8}: 715 datasets and 9900 neighbouring pairs each.
    Full: 2-D grid {-5/8, 0, 5/8}^2, n = 3, Huber (lam = 1/2) and logistic
    (lam = 1/4): 1140 datasets and 26 163 pairs each. The Huber cases attain
    the bound exactly (the constant 2 is tight). The library's solver
    (RegularizedERM, tol = 1e-12) is also run on the worst pair: its outputs
    must differ by at most its declared rate ``stability_rate(n)``, which
    adds 2 R tol / lam for the solver.
Precision
    Huber minimisers are exact rationals (verified zero gradient); logistic
    minimisers are floats certified by |w_hat - w*| <= ||grad F(w_hat)|| /
    lam with the gradient enclosed in mpmath.iv at 160 bits. Every pair is
    decided in exact rational arithmetic (squared norms against
    (beta/R - r - r')^2); the reported measured value is an exact upper bound
    of the worst pair's difference.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from proofs_checks.common.stability_search import erm_search
from refdp.prediction.convex import HuberLoss, LogisticLoss, RegularizedERM
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

F = Fraction
DIGITS = 48
QUICK = (("huber", F(1), 4, 1), ("huber", F(1, 8), 4, 1),
         ("logistic", F(1), 4, 1), ("logistic", F(1, 8), 4, 1))
FULL = (("huber", F(1, 2), 3, 2), ("logistic", F(1, 4), 3, 2))
DELTA = F(1, 4)


def implementation_on_pair(res, loss, lam, n, tol=1e-12):
    """The library's RegularizedERM on the worst pair: (difference bound, its declared rate)."""
    recs = res.extra["records"]
    lossobj = HuberLoss(float(DELTA)) if loss == "huber" else LogisticLoss()
    erm = RegularizedERM(lossobj, float(lam), 1.0, tol=tol)
    ws = []
    for ds in res.pair:
        X = np.array([[float(c) for c in recs[i][0]] for i in ds])
        y = np.array([float(recs[i][1]) for i in ds])
        ws.append([F(float(v)) for v in erm(X, y).w])
    sq = sum((a - b) ** 2 for a, b in zip(*ws))
    rate = F(erm.stability_rate(n))
    return sq, rate


def run(configs) -> CheckResult:
    verdicts, rows, top = [], [], None
    for loss, lam, n, dim in configs:
        res = erm_search(loss, lam, n, dim, DELTA)
        verdicts.append(res.verdict)
        sq, rate = implementation_on_pair(res, loss, lam, n)
        verdicts.append(Verdict.HOLDS if sq <= rate * rate else Verdict.FAILS)
        rows.append(f"{res.label}: worst {float(res.worst):.6g} (grid {float(res.grid_worst):.6g}) "
                    f"<= beta {float(res.beta):.6g}, ratio {res.ratio():.4f}, {res.pairs} pairs; "
                    f"library solver on the worst pair {float(sq) ** 0.5:.6g} <= declared "
                    f"{float(rate):.6g}")
        if top is None or res.ratio() > top.ratio():
            top = res
    detail = (f"largest ratio in [{top.label}] at S={top.pair[0]}, S'={top.pair[1]} "
              f"(record indices). " + "; ".join(rows))
    return CheckResult(float(top.worst), float(top.beta), worst_verdict(verdicts), DIGITS, detail, method="certified")


@register("dwork_feldman.theorem_4_9_erm_stability",
          "regularised ERM: |<w_S - w_S', x>| <= 2 L R^2 / (lam n) over all replace-one "
          "neighbours of small 1-D datasets (Huber exact, logistic certified)",
          covers=("refdp.prediction.convex.RegularizedERM", "refdp.prediction.convex.erm_stability_rate"),
          quick=True)
def erm_stability_quick() -> CheckResult:
    return run(QUICK)


@register("dwork_feldman.theorem_4_9_erm_stability_2d",
          "regularised ERM: |<w_S - w_S', x>| <= 2 L R^2 / (lam n) over all replace-one "
          "neighbours of small 2-D datasets",
          covers=("refdp.prediction.convex.RegularizedERM", "refdp.prediction.convex.erm_stability_rate"),
          quick=False)
def erm_stability_full() -> CheckResult:
    return run(FULL)
