"""One-pass projected SGD is prediction stable with rate 2 eta L R^2 (n - 1) / n.

Claim
    Dwork & Feldman 2018, Theorem 4.12 (constant derived in
    docs/theory/stability.rst): one pass of w_t = Proj(w_{t-1} - eta
    l'(<w_{t-1}, x_t>, y_t) x_t) from w_0 = 0 in the order of the data, with l
    convex, L-Lipschitz and sigma_l-smooth in the prediction, ||x|| <= R and
    eta <= 2 / (sigma_l R^2), returning the average of w_0 .. w_{n-1}, gives
    sup_{||x|| <= R} |<w_bar_S - w_bar_S', x>| <= beta = 2 eta L R^2 (n-1)/n
    on replace-one neighbours. (Hardt, Recht and Singer 2016, Theorem 3.8 and
    its proof, bound the weights by 2 eta L R T / n after T steps with records
    drawn at random; T/n is 1 for one pass.)
Setting
    Exhaustive search (proofs_checks.common.stability_search) over every sequence
    of n records from a grid of the unit ball with labels +-1 and every
    replace-one neighbour. Quick: 1-D grid {-1, -1/2, 0, 1/2, 1}; Huber
    (delta = 1/4, sigma_l = 1) with eta in {1/2, 2} (2 is the largest step
    allowed), n = 4, 10 000 sequences; logistic (sigma_l = 1/4) with eta in
    {1, 8} (8 is the largest), n = 3, 1000 sequences. Full: 1-D Huber with
    projection onto [-1/4, 1/4], and 2-D grid {-5/8, 0, 5/8}^2 with Huber
    (eta = 1/2) and logistic (eta = 8), n = 3, 5832 sequences each. The
    Huber cases without projection attain the bound exactly. The library's
    ProjectedSGD is run on the worst pair and on 300 sampled sequences per
    Huber case and must agree with the exact rational runs to 1e-12 (its
    floating-point rounding; the observed difference is reported).
Precision
    Huber runs are exact rationals; logistic runs are enclosed in mpmath.iv
    at 160 bits (widths about 1e-47). Every group of neighbours is decided in
    exact rational arithmetic on the enclosure end points; the reported
    measured value is an exact upper bound of the worst pair's difference.
"""
from __future__ import annotations

from fractions import Fraction

from proofs_checks.common.stability_search import implementation_agreement, psgd_search
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

F = Fraction
DIGITS = 48
AGREEMENT = 1e-12
QUICK = (("huber", F(1, 2), 4, 1, None), ("huber", F(2), 4, 1, None),
         ("logistic", F(1), 3, 1, None), ("logistic", F(8), 3, 1, None))
FULL = (("huber", F(2), 4, 1, F(1, 4)), ("huber", F(1, 2), 3, 2, None),
        ("logistic", F(8), 3, 2, None))


def run(configs) -> CheckResult:
    verdicts, rows, top = [], [], None
    for loss, eta, n, dim, proj in configs:
        res = psgd_search(loss, eta, n, dim, F(1, 4), proj)
        verdicts.append(res.verdict)
        row = (f"{res.label}: worst {float(res.worst):.6g} (grid {float(res.grid_worst):.6g}) "
               f"<= beta {float(res.beta):.6g}, ratio {res.ratio():.4f}, {res.pairs} pairs")
        if loss == "huber":
            agree = implementation_agreement(res, loss, eta, projection=proj)
            verdicts.append(Verdict.HOLDS if agree <= AGREEMENT else Verdict.FAILS)
            row += f"; library ProjectedSGD within {agree:.3g} of the exact runs"
        rows.append(row)
        if top is None or res.ratio() > top.ratio():
            top = res
    detail = (f"largest ratio in [{top.label}] at S={top.pair[0]}, S'={top.pair[1]} "
              f"(record indices). " + "; ".join(rows))
    return CheckResult(float(top.worst), float(top.beta), worst_verdict(verdicts), DIGITS, detail, method="certified")


@register("dwork_feldman.theorem_4_12_psgd_stability",
          "one-pass projected SGD: |<w_S - w_S', x>| <= 2 eta L R^2 (n-1)/n over all replace-one "
          "neighbours of small 1-D sequences (Huber exact, logistic in interval arithmetic)",
          covers=("refdp.prediction.convex.ProjectedSGD", "refdp.prediction.convex.psgd_stability_rate"),
          quick=True)
def psgd_stability_quick() -> CheckResult:
    return run(QUICK)


@register("dwork_feldman.theorem_4_12_psgd_stability_full",
          "one-pass projected SGD: the rate holds with projection and on 2-D sequences",
          covers=("refdp.prediction.convex.ProjectedSGD", "refdp.prediction.convex.psgd_stability_rate"),
          quick=False)
def psgd_stability_full() -> CheckResult:
    return run(FULL)
