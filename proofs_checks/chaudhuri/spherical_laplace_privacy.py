"""Spherical Laplace noise has density ratio at most exp(beta Delta) under an L2 shift Delta (Chaudhuri et al. 2011).

Claim
    For centres mu, mu' with ||mu - mu'||_2 = Delta and the density
    p(x) proportional to exp(-beta ||x - mu||_2) (and p' around mu'),
    |ln p(x) - ln p'(x)| = beta | ||x - mu'|| - ||x - mu|| | <= beta Delta at
    every x of a grid (d = 2: 21 x 21 points, d = 3: 9 x 9 x 9 points over
    [-4 Delta, 4 Delta]^d, plus points on the line through mu and mu' where
    the bound is attained), for Delta in {5/4, 5/1024} (d = 2) and {3/4, 3/1024}
    (d = 3). With beta = epsilon / Delta this is the epsilon-DP step of
    output perturbation (Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 1
    and Theorem 6, where Delta = 2 / (n Lambda) and beta = n Lambda epsilon / 2).
Preconditions
    The noise is real-valued; the floating-point sampler is not exactly
    private (Mironov 2012). The law of the sampler is checked separately
    (``chaudhuri.spherical_laplace_noise_law``).
Precision
    The normalising constants cancel and beta > 0, so the claim is
    ||P|| <= ||Q|| + Delta for (P, Q) = (x - mu', x - mu) and (x - mu, x - mu').
    With A = ||P||^2 - ||Q||^2 - Delta^2 this is equivalent to
    max(A, 0)^2 <= 4 Delta^2 ||Q||^2, a comparison of dyadic rationals decided
    with mpmath interval arithmetic at a precision holding both sides exactly.
    The reported log-ratio is evaluated in mpmath at 50 digits.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath

from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import worst_verdict

from proofs_checks.common.continuous_noise import decide_exact_leq

DPS = 50
EPSILON = Fraction(1, 2)
# directions with dyadic coordinates and rational norm: (3/4, 1) has norm 5/4, (1/4, 1/2, 1/2) has 3/4
CASES = (
    ((Fraction(3, 4), Fraction(1)), Fraction(5, 4), 21),
    ((Fraction(1, 4), Fraction(1, 2), Fraction(1, 2)), Fraction(3, 4), 9),
)
SCALES = (Fraction(1), Fraction(1, 256))


def _sq(v):
    return sum(c * c for c in v)


def _violation(P, Q, delta):
    """max(A, 0)^2 - 4 delta^2 ||Q||^2 (<= 0 iff ||P|| <= ||Q|| + delta)."""
    a = _sq(P) - _sq(Q) - delta * delta
    return max(a, Fraction(0)) ** 2 - 4 * delta * delta * _sq(Q)


def density_ratio_result(cases=CASES) -> CheckResult:
    """Decide the claim; ``cases`` are (direction, its norm, points per axis)."""
    verdicts, worst, where = [], None, ""
    for direction, norm, m in cases:
        d = len(direction)
        for scale in SCALES:
            mu = tuple(Fraction(0) for _ in direction)
            mu2 = tuple(scale * c for c in direction)
            delta = scale * norm
            axis = [-4 * delta + 8 * delta * Fraction(k, m - 1) for k in range(m)]
            axis = [Fraction(round(v * 2**40), 2**40) for v in axis]   # dyadic outputs
            grid = list(itertools.product(axis, repeat=d))
            grid += [tuple(-k * c for c in mu2) for k in (0, Fraction(1, 2), 1, 2, 5)]
            grid += [tuple((1 + k) * c for c in mu2) for k in (0, Fraction(1, 2), 1, 2, 5)]
            worst_violation, arg = None, None
            for x in grid:
                P = tuple(xi - ci for xi, ci in zip(x, mu2))
                Q = tuple(xi - ci for xi, ci in zip(x, mu))
                for v in (_violation(P, Q, delta), _violation(Q, P, delta)):
                    if worst_violation is None or v > worst_violation:
                        worst_violation, arg = v, x
            verdicts.append(decide_exact_leq(worst_violation, Fraction(0)))
            beta = EPSILON / delta                       # so that beta * Delta = epsilon
            # locate the largest log-ratio in doubles, then evaluate it in mpmath
            x = max(grid, key=lambda x: abs(math.dist(x, mu2) - math.dist(x, mu)))
            with mpmath.workdps(DPS):
                b = mpmath.mpf(beta.numerator) / beta.denominator
                nq = mpmath.sqrt(sum(mpmath.mpf(xi - ci) ** 2 for xi, ci in zip(x, mu)))
                np_ = mpmath.sqrt(sum(mpmath.mpf(xi - ci) ** 2 for xi, ci in zip(x, mu2)))
                log_ratio = b * abs(np_ - nq)
                if worst is None or log_ratio > worst:
                    worst, where = log_ratio, f"dim={d}, Delta={delta}, x={[float(v) for v in x]}"
    with mpmath.workdps(DPS):
        bound = mpmath.mpf(EPSILON.numerator) / EPSILON.denominator
    return CheckResult(worst, bound, worst_verdict(verdicts), DPS,
                       f"beta = epsilon / Delta, epsilon = {EPSILON}; largest |ln p/p'| at {where} "
                       f"(attained on the line through the centres)", method="certified")


@register("chaudhuri.spherical_laplace_density_ratio",
          "density ~ exp(-beta ||b||): |ln p(x)/p'(x)| <= beta ||mu - mu'|| on output grids, d = 2, 3",
          covers=("refdp.mechanisms.spherical_laplace",), quick=True)
def spherical_laplace_density_ratio() -> CheckResult:
    return density_ratio_result()
