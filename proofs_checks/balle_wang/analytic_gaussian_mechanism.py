"""The (epsilon, delta) Gaussian mechanism: exact profile at the calibrated noise (Balle and Wang 2018).

Claim
    (1) ``gaussian_mechanism_approx(..., secure=False)``: for each setting
    ``(epsilon, delta, sensitivity)`` below, the noise ``sigma`` of
    ``gaussian_calibration_approx`` has an exact privacy profile
    ``Phi(mu/2 - epsilon/mu) - e**epsilon Phi(-mu/2 - epsilon/mu)``, ``mu =
    sensitivity / sigma`` (Balle and Wang 2018, Theorem 8), at most ``delta``;
    at the reported ``sigma_failing`` (and at ``sigma (1 - 1e-9)``) it exceeds
    ``delta``, so ``sigma`` is minimal to the reported relative gap.
    (2) ``secure=True``, one coordinate: the exact profile of the discrete
    Gaussian ``N_Z(0, sigma_Z**2)`` against its shift by the grid-index
    sensitivity ``Delta_Z`` (Canonne, Kamath and Steinke 2020, Theorem 7;
    the worst shift, ``docs/theory/secure_noise.rst`` Theorem 6) is at most
    ``delta``, and exceeds it at the reported failing parameter.
    (3) ``secure=True``, several coordinates: the order and rho of the
    calibration convert to at most ``epsilon`` by the certified conversion
    of CKS20 Proposition 12, and ``sigma_Z**2 >= Delta_Z**2 / (2 rho)``
    exactly (the zCDP grid release of Theorem 2).
Preconditions
    Exact integer samplers (their own checks); the grid Lemma (checked by
    ``canonne_kamath_steinke.secure_noise_discrete_gaussian_law``).
Precision
    Interval enclosures at 50 digits in a context owned by the check
    (``gaussian_delta``: series and Laplace's continued fraction with bounded
    tails; the discrete profile: the integral comparison of Theorem 6 with
    Poisson summation for the normaliser). The continuous profile is also
    evaluated with mpmath's ``ncdf`` at 50 digits in an owned real context,
    which must lie in the enclosure.
"""
from __future__ import annotations

from fractions import Fraction

from refdp.utils.precision import iv_context, mp_context
from refdp.accounting.discrete_gaussian_profile import discrete_gaussian_delta
from refdp.accounting.gaussian_exact import gaussian_delta
from refdp.accounting.conversions import rdp_to_dp
from refdp.mechanisms import gaussian_calibration_approx
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

DPS = 50
CONTINUOUS = ((0.1, 1e-5, 1.0), (1.0, 1e-5, 1.0), (1.0, 1e-10, 3.0), (4.0, 1e-6, 0.25), (0.5, 0.01, 1.0))
DISCRETE_QUICK = ((1.0, 1e-5, 1.0),)
DISCRETE = ((0.1, 1e-5, 1.0), (1.0, 1e-5, 1.0), (3.0, 1e-8, 2.5))
SEVERAL = ((1.0, 1e-5, 1.0, 4), (0.5, 1e-6, 2.0, 3))


def _holds(ok: bool) -> Verdict:
    return Verdict.HOLDS if ok else Verdict.FAILS


def continuous_case(epsilon, delta, sensitivity, iv, mp):
    cal = gaussian_calibration_approx(epsilon, delta, sensitivity, secure=False)
    d, e = iv.mpf(sensitivity), iv.mpf(epsilon)

    def enclosure(sigma):
        return gaussian_delta(d / iv.mpf(sigma), e, iv)

    at = enclosure(cal.sigma)
    mu = mp.mpf(sensitivity) / mp.mpf(cal.sigma)
    point = mp.ncdf(mu / 2 - epsilon / mu) - mp.exp(epsilon) * mp.ncdf(-mu / 2 - epsilon / mu)
    verdicts = [_holds(at.b <= delta),                                     # the claim at sigma
                _holds(at.a <= point <= at.b),                             # independent evaluation agrees
                _holds(enclosure(cal.sigma_failing).a > delta),            # a smaller sigma fails
                _holds(enclosure(cal.sigma * (1 - 1e-9)).a > delta)]
    return verdicts, at.b, cal


def discrete_case(epsilon, delta, sensitivity, iv):
    cal = gaussian_calibration_approx(epsilon, delta, sensitivity, secure=True)
    at = discrete_gaussian_delta(cal.integer_sigma, cal.integer_sensitivity, epsilon, iv)
    failing = Fraction(cal.sigma_failing) / Fraction(cal.step)    # in grid steps, rounded down
    below = discrete_gaussian_delta(failing, cal.integer_sensitivity, epsilon, iv)
    verdicts = [_holds(at.b <= delta), _holds(below.a > delta),
                _holds(cal.step * float(cal.integer_sigma) <= cal.sigma)]
    return verdicts, at.b, cal


def several_case(epsilon, delta, sensitivity, dim):
    cal = gaussian_calibration_approx(epsilon, delta, sensitivity, dim=dim, secure=True)
    rho, alpha = cal.rho, cal.order
    bound = rdp_to_dp(alpha, alpha * rho, delta)
    exact_sigma = cal.integer_sigma ** 2 * 2 * Fraction(rho) >= Fraction(cal.integer_sensitivity) ** 2
    return [_holds(bound <= epsilon), _holds(exact_sigma)], bound, cal


def analytic_gaussian_result(continuous=CONTINUOUS, discrete=DISCRETE, several=SEVERAL) -> CheckResult:
    iv, mp = iv_context(DPS), mp_context(DPS)
    verdicts, worst, detail = [], None, ""
    for epsilon, delta, sensitivity in continuous:
        v, upper, cal = continuous_case(epsilon, delta, sensitivity, iv, mp)
        verdicts += v
        ratio = upper / delta
        if worst is None or ratio > worst[0]:
            worst = (ratio, upper, delta)
            detail = (f"continuous, epsilon={epsilon}, delta={delta}, sensitivity={sensitivity}: "
                      f"sigma={cal.sigma!r}, gap {cal.relative_gap:.2g}")
    for epsilon, delta, sensitivity in discrete:
        v, upper, cal = discrete_case(epsilon, delta, sensitivity, iv)
        verdicts += v
        ratio = upper / delta
        if worst is None or ratio > worst[0]:
            worst = (ratio, upper, delta)
            detail = (f"grid, epsilon={epsilon}, delta={delta}, sensitivity={sensitivity}: "
                      f"Delta_Z={cal.integer_sensitivity}, sigma_Z={float(cal.integer_sigma)!r}, "
                      f"gap {cal.relative_gap:.2g}")
    for epsilon, delta, sensitivity, dim in several:
        v, bound, cal = several_case(epsilon, delta, sensitivity, dim)
        verdicts += v
    _, upper, delta = worst
    n = len(continuous) + len(discrete) + len(several)
    return CheckResult(float(upper), delta, worst_verdict(verdicts), DPS,
                       f"{n} settings (exact delta at the calibrated noise <= delta; a smaller noise fails); "
                       f"closest: {detail}", method="certified")


@register("balle_wang.analytic_gaussian_exact_profile",
          "(epsilon, delta) Gaussian release: the exact privacy profile at the calibrated noise is <= delta "
          "(continuous analytic Gaussian and the discrete Gaussian on the grid at epsilon = 1, delta = 1e-5; "
          "every setting in the full run), and a smaller noise fails",
          covers=("refdp.mechanisms.gaussian_mechanism_approx",), quick=True)
def analytic_gaussian_exact_profile() -> CheckResult:
    return analytic_gaussian_result(CONTINUOUS[1:2], DISCRETE_QUICK, ())


@register("balle_wang.analytic_gaussian_exact_profile_full",
          "(epsilon, delta) Gaussian release: exact profile <= delta at the calibrated noise for every "
          "setting (five continuous, three grid settings, two multi-coordinate ones)",
          covers=("refdp.mechanisms.gaussian_mechanism_approx",), quick=False)
def analytic_gaussian_exact_profile_full() -> CheckResult:
    return analytic_gaussian_result()
