"""The Laplace mechanism's density ratio is at most exp(epsilon) (Dwork and Roth 2014, Thm 3.6).

Claim
    For f(D), f(D') with ||f(D) - f(D')||_1 = sensitivity, the densities p, p'
    of f(D) + Z and f(D') + Z, with Z_i i.i.d. Lap(b) and b =
    ``laplace_scale(epsilon, sensitivity)`` (the float the implementation
    uses), satisfy |ln p(x) - ln p'(x)| <= epsilon at every output x of a grid
    (1-D: 241 points over [-12 b, 12 b + sensitivity]; 2-D: 25 x 25 points),
    for several (epsilon, sensitivity). The bound is attained (for x on the far
    side of f(D)), so the check also reports that it is tight.
Preconditions
    The noise is real-valued Laplace; the floating-point sampler is not
    exactly private (Mironov 2012).
Precision
    ln p(x) - ln p'(x) = (||x - f(D')||_1 - ||x - f(D)||_1) / b. Since b > 0
    and every quantity is a dyadic rational, the claim is decided as
    max_x (||x - f(D')||_1 - ||x - f(D)||_1) <= epsilon * b with mpmath
    interval arithmetic at a precision holding both sides exactly (point
    intervals; equality holds). The reported log-ratio is evaluated from the
    densities in mpmath at 50 digits.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath

from refdp.mechanisms import laplace_scale
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import worst_verdict

from proofs_checks.common.continuous_noise import decide_exact_leq

DPS = 50
SETTINGS = ((1.0, 1.0), (0.1, 1.0), (0.3, 2.0), (2.5, 0.7), (1e-3, 5.0))


def _grid(lo: Fraction, hi: Fraction, n: int):
    return [lo + (hi - lo) * Fraction(k, n - 1) for k in range(n)]


def _dyadic(x: Fraction) -> Fraction:
    """Round to 60 fractional binary digits (grid points need only be outputs, not exact)."""
    return Fraction(round(x * 2**60), 2**60)


def _log_density(x, centre, b):
    return mpmath.fsum(-abs(mpmath.mpf(xi) - mpmath.mpf(ci)) / b - mpmath.log(2 * b)
                       for xi, ci in zip(x, centre))


def density_ratio_result(scale=laplace_scale) -> CheckResult:
    """Decide the claim for the scale function ``scale(epsilon, sensitivity)``."""
    verdicts, worst_gap, detail = [], None, ""
    for epsilon, sensitivity in SETTINGS:
        b = Fraction(scale(epsilon, sensitivity))
        d = Fraction(sensitivity)
        pairs = [
            ((Fraction(0),), (d,), [(_dyadic(x),) for x in _grid(-12 * b, 12 * b + d, 241)]),
            ((Fraction(0), Fraction(0)), (d / 4, 3 * d / 4),
             [(_dyadic(x), _dyadic(y)) for x in _grid(-6 * b, 6 * b + d, 25)
              for y in _grid(-6 * b, 6 * b + d, 25)]),
        ]
        for mu, mu2, grid in pairs:
            best, arg = None, None
            for x in grid:
                a = sum(abs(xi - ci) for xi, ci in zip(x, mu))
                a2 = sum(abs(xi - ci) for xi, ci in zip(x, mu2))
                gap = abs(a2 - a)                  # |ln p(x) - ln p'(x)| * b
                if best is None or gap > best:
                    best, arg = gap, x
            verdicts.append(decide_exact_leq(best, Fraction(epsilon) * b))
            with mpmath.workdps(DPS):
                bm = mpmath.mpf(b)
                measured = abs(_log_density(arg, mu, bm) - _log_density(arg, mu2, bm))
                gap_eps = measured - mpmath.mpf(epsilon)
            if worst_gap is None or gap_eps > worst_gap[0]:
                worst_gap = (gap_eps, measured, epsilon)
                detail = (f"epsilon={epsilon}, sensitivity={sensitivity}, dim={len(mu)}, "
                          f"max |ln p/p'| at x={[float(v) for v in arg]}")
    _, measured, epsilon = worst_gap
    return CheckResult(measured, mpmath.mpf(epsilon), worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} (epsilon, sensitivity, dim) cases; largest log-ratio minus "
                       f"epsilon at {detail} (the bound is attained)", method="certified")


@register("dwork_roth.laplace_mechanism_density_ratio",
          "Lap(sensitivity/epsilon) noise: |ln p(x)/p'(x)| <= epsilon on output grids, 1-D and 2-D",
          covers=("refdp.mechanisms.laplace_mechanism",), quick=True)
def laplace_density_ratio() -> CheckResult:
    return density_ratio_result()
