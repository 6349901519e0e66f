"""The Gaussian mechanism with sigma = sensitivity / sqrt(2 rho) is rho-zCDP (Bun and Steinke 2016, Prop 1.6).

Claim
    For f(D), f(D') with ||f(D) - f(D')||_2 = sensitivity and sigma =
    ``gaussian_sigma_zcdp(rho, sensitivity)`` (the float the implementation
    uses), the Renyi divergence D_alpha(N(f(D), sigma^2) || N(f(D'), sigma^2))
    = alpha sensitivity^2 / (2 sigma^2) is at most rho alpha for every order
    alpha in {5/4, 3/2, 2, 3, 8, 64}, for several (rho, sensitivity). The
    closed form is cross-checked against mpmath.quad of
    ln(integral p^alpha p'^(1 - alpha)) / (alpha - 1) to 1e-20 relative for
    alpha in {3/2, 2, 8} in one setting.
Preconditions
    Real-valued Gaussian noise; the floating-point sampler is not exactly
    private (Mironov 2012).
Precision
    D_alpha <= rho alpha is equivalent (sigma > 0) to alpha sensitivity^2 <=
    2 rho alpha sigma^2 between dyadic rationals, decided with mpmath interval
    arithmetic at a precision holding both sides exactly (point intervals;
    equality, as for rho = 1/2 and sensitivity = 1, holds). Quadrature at 30
    digits.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath

from refdp.mechanisms import gaussian_sigma_zcdp
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

from proofs_checks.common.continuous_noise import decide_exact_leq

DPS = 30
SETTINGS = ((0.5, 1.0), (0.1, 1.0), (2.0, 3.0), (1e-4, 0.25), (0.3, 1.7), (7.0, 1e-3))
ORDERS = (Fraction(5, 4), Fraction(3, 2), Fraction(2), Fraction(3), Fraction(8), Fraction(64))
QUAD_ORDERS = (Fraction(3, 2), Fraction(2), Fraction(8))
QUAD_TOL = mpmath.mpf("1e-20")


def renyi_by_quadrature(alpha, mu, mu2, sigma):
    """(1 / (alpha - 1)) ln integral N(x; mu, s^2)^alpha N(x; mu2, s^2)^(1 - alpha) dx."""
    a = mpmath.mpf(alpha.numerator) / alpha.denominator
    m, m2, s = mpmath.mpf(mu), mpmath.mpf(mu2), mpmath.mpf(sigma)

    def log_pdf(x, centre):
        return -(x - centre) ** 2 / (2 * s * s) - mpmath.log(2 * mpmath.pi * s * s) / 2

    centre = a * m + (1 - a) * m2      # where the integrand peaks
    integral = mpmath.quad(lambda x: mpmath.exp(a * log_pdf(x, m) + (1 - a) * log_pdf(x, m2)),
                           [-mpmath.inf, centre - 10 * s, centre, centre + 10 * s, mpmath.inf])
    return mpmath.log(integral) / (a - 1)


def zcdp_result(sigma_fn=gaussian_sigma_zcdp) -> CheckResult:
    """Decide the claim for ``sigma_fn(rho, sensitivity)``."""
    verdicts, worst, where = [], None, ""
    for k, (rho, sensitivity) in enumerate(SETTINGS):
        sigma = Fraction(sigma_fn(rho, sensitivity))
        d2 = Fraction(sensitivity) ** 2
        for alpha in ORDERS:
            verdicts.append(decide_exact_leq(alpha * d2, 2 * Fraction(rho) * alpha * sigma**2))
            ratio = (alpha * d2 / (2 * sigma**2)) / (Fraction(rho) * alpha)   # D_alpha / (rho alpha)
            if worst is None or ratio > worst:
                worst, where = ratio, f"rho={rho}, sensitivity={sensitivity}, sigma={float(sigma)!r}"
        if k == 0:
            with mpmath.workdps(DPS):
                for alpha in QUAD_ORDERS:
                    closed = mpmath.mpf(alpha * d2 / (2 * sigma**2))
                    numeric = renyi_by_quadrature(alpha, 0, sensitivity, sigma)
                    ok = abs(numeric - closed) <= QUAD_TOL * closed
                    verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
    with mpmath.workdps(DPS):
        measured = mpmath.mpf(worst.numerator) / worst.denominator
    return CheckResult(measured, mpmath.mpf(1), worst_verdict(verdicts), DPS,
                       f"max over {len(SETTINGS)} settings and orders {[str(a) for a in ORDERS]} "
                       f"of D_alpha / (rho alpha), at {where}; closed form matches quadrature", method="estimated")


@register("bun_steinke.gaussian_mechanism_zcdp",
          "N(0, sigma^2), sigma = sensitivity/sqrt(2 rho): D_alpha <= rho alpha for alpha in 5/4..64",
          covers=("refdp.mechanisms.gaussian_mechanism",), quick=True)
def gaussian_zcdp() -> CheckResult:
    return zcdp_result()
