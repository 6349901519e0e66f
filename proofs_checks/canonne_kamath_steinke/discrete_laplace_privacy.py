"""The discrete Laplace mechanism is epsilon-DP for integer queries (Canonne, Kamath and Steinke 2020).

Claim
    For integer query values x, x' with |x - x'| <= sensitivity and the scale
    ``discrete_laplace_scale(sensitivity, epsilon)`` that
    ``discrete_laplace_mechanism`` uses, the output laws P_x(o) = c q^|o - x|,
    q = exp(-1/scale), c = (1 - q)/(1 + q), satisfy |ln P_x(o)/P_x'(o)| <=
    epsilon at every integer output o, for several (sensitivity, epsilon)
    including floats taken at their binary value. The bound is attained
    (for o beyond both inputs), so the check also reports that it is tight.
Preconditions
    The noise follows the discrete Laplace law exactly; the sampler's
    exactness is proved in docs/theory/discrete_samplers.rst and its output
    law is tested by ``canonne_kamath_steinke.discrete_noise_law``.
Precision
    Exact rational arithmetic. Writing u = exp(1/scale), every probability is
    c times an integer power of u, so ln P_x(o) - ln P_x'(o) = (|o - x'| -
    |o - x|) / scale, a rational number. The outputs are enumerated on the
    window [min(x, x') - 2, max(x, x') + 2]; outside it the ratio is constant
    (the two tails have ratios u^(x - x') and u^(x' - x)), so the window
    attains the maximum over all integers. The comparison with epsilon is
    between two Fractions and is always decided.
"""
from __future__ import annotations

from fractions import Fraction

from refdp.mechanisms import discrete_laplace_scale
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

SETTINGS = ((1, 1), (1, Fraction(1, 10)), (3, Fraction(1, 2)), (2, 0.7), (1, 1e-3), (5, 2.5))


def max_log_ratio(scale: Fraction, x: int, x2: int) -> tuple[Fraction, int]:
    """max over integer outputs o of |ln P_x(o) - ln P_x2(o)| (exact) and an output attaining it."""
    lo, hi = min(x, x2) - 2, max(x, x2) + 2
    best, arg = Fraction(-1), None
    for o in range(lo, hi + 1):
        r = abs(Fraction(abs(o - x2) - abs(o - x)) / scale)
        if r > best:
            best, arg = r, o
    return best, arg


def privacy_result(scale_fn=discrete_laplace_scale) -> CheckResult:
    """Decide the claim for the scale function ``scale_fn(sensitivity, epsilon)``."""
    verdicts, worst = [], None
    for sensitivity, epsilon in SETTINGS:
        scale = Fraction(scale_fn(sensitivity, epsilon))
        eps = Fraction(epsilon)
        for k in range(1, int(sensitivity) + 1):          # x' = x + k, |k| <= sensitivity
            ratio, o = max_log_ratio(scale, 0, k)
            verdicts.append(Verdict.HOLDS if ratio <= eps else Verdict.FAILS)
            gap = ratio - eps
            if worst is None or gap > worst[0]:
                worst = (gap, ratio, eps, f"sensitivity={sensitivity}, epsilon={epsilon}, "
                                          f"x=0, x'={k}, output {o}")
    gap, ratio, eps, where = worst
    return CheckResult(float(ratio), float(eps), worst_verdict(verdicts), 0,
                       f"{len(verdicts)} neighbouring pairs; largest log-ratio minus epsilon = "
                       f"{gap} (exact) at {where}", method="certified")


@register("canonne_kamath_steinke.discrete_laplace_mechanism_privacy",
          "discrete Laplace of scale sensitivity/epsilon: |ln P_x(o)/P_x'(o)| <= epsilon, exactly",
          covers=("refdp.mechanisms.discrete_laplace_mechanism",), quick=True)
def discrete_laplace_privacy() -> CheckResult:
    return privacy_result()
