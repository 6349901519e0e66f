"""Privacy-profile enclosures contain the exact profiles; fast optimal composition equals brute force.

Claim
    (1) For k-fold randomized response, ``privacy_profile_delta`` and
    ``privacy_profile_epsilon`` return enclosures containing the exact
    optimal composition (Kairouz, Oh and Viswanath 2015, Thm. 3.3), here the
    full binomial sum of ``proofs_checks/common/accounting.py``.
    (2) For the k-fold Gaussian mechanism, the enclosure of delta(epsilon)
    contains Balle and Wang's (2018, Thm. 8) analytic value
    ``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``, ``mu = sqrt(k) Delta/sigma``,
    enclosed in interval arithmetic.
    (3) For one Laplace mechanism (whose PLD is spread, not on a lattice),
    the enclosure contains ``1 - e**((eps - a)/2)``, ``a = Delta/b``, for
    0 <= eps < a.
    (4) ``optimal_composition_delta`` (windowed, O(sqrt k)) is an upper bound
    of the brute-force hockey-stick divergence over all 2**k sequences and
    within a relative 2**-50 of it, for k <= 8.
Preconditions
    docs/theory/privacy_profiles.rst (the enclosure) and
    docs/theory/accounting.rst, section 5 (the window and its tail bound).
Precision
    Interval arithmetic in private mpmath contexts (fail closed: an overlap
    that cannot be decided is a failure).
"""
import math
from fractions import Fraction

from refdp.utils.precision import iv_context, raw_to_fraction
from refdp.accounting import optimal_composition_delta
from refdp.accounting.profiles import (Gaussian, Laplace, RandomizedResponse, privacy_profile_delta,
                                      privacy_profile_epsilon)
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

DPS = 40


def _phi_interval(iv, x):
    """Standard normal CDF at the interval x, from the alternating-free series of erf (interval)."""
    # Phi(x) = 1/2 + phi(x) * sum_{n>=0} x^(2n+1) / (1*3*...*(2n+1)); all terms have the sign of x
    term = x
    total = x
    n = 0
    x2 = x * x
    while True:
        n += 1
        term = term * x2 / (2 * n + 1)
        total += term
        r = x2 / (2 * n + 3)
        if n > 3 and raw_to_fraction(r._mpi_[1]) < Fraction(1, 2) and \
                raw_to_fraction(abs(term)._mpi_[1]) < Fraction(1, 2 ** (iv.prec + 4)):
            # remaining terms: geometric with ratio < 1/2, bounded by |term|
            b = abs(term)
            total += iv.mpf([-b.b, b.b])
            break
    return iv.mpf(0.5) + iv.exp(-x2 / 2) / iv.sqrt(2 * iv.pi) * total


def _gaussian_delta(iv, mu, eps):
    return (_phi_interval(iv, -eps / mu + mu / 2)
            - iv.exp(eps) * _phi_interval(iv, -eps / mu - mu / 2))


def _contains(enclosure, iv_value):
    lo, hi = raw_to_fraction(iv_value._mpi_[0]), raw_to_fraction(iv_value._mpi_[1])
    if Fraction(enclosure.lower) <= lo and hi <= Fraction(enclosure.upper):
        return Verdict.HOLDS
    if Fraction(enclosure.upper) < lo or hi < Fraction(enclosure.lower):
        return Verdict.FAILS
    return Verdict.UNDECIDED


@register("refdp.privacy_profiles_enclose_exact",
          "privacy-profile enclosures contain the exact RR-composition and analytic Gaussian profiles",
          covers=("refdp.accounting.profiles.privacy_profile_delta",
                  "refdp.accounting.profiles.privacy_profile_epsilon"))
def profiles_enclose_exact():
    iv = iv_context(DPS)
    verdicts, widest, where = [], 0.0, ""
    for eps0, k in ((0.1, 10), (0.5, 20), (1.0, 5)):
        rr = [(RandomizedResponse(eps0), k)]
        for et in (0.0, 0.5, 1.5):
            # exact optimal delta, enclosed: the windowed evaluation is certified and checked below
            exact_hi = optimal_composition_delta(eps0, k, et)
            exact = _exact_kov(iv, eps0, k, et)
            enc = privacy_profile_delta(rr, et)
            verdicts.append(_contains(enc, exact))
            verdicts.append(Verdict.HOLDS if Fraction(exact_hi) >= raw_to_fraction(exact._mpi_[0])
                            else Verdict.FAILS)
            if enc.width > widest:
                widest, where = enc.width, f"RR eps0={eps0}, k={k}, eps={et}"
        for d in (1e-3, 1e-6):
            enc = privacy_profile_epsilon(rr, d)
            # the exact optimum: delta_exact(lower) > d >= delta_exact(upper)
            v1 = _exact_kov(iv, eps0, k, enc.upper)
            ok_hi = raw_to_fraction(v1._mpi_[1]) <= Fraction(d)
            ok_lo = enc.lower == 0.0 or raw_to_fraction(_exact_kov(iv, eps0, k, enc.lower)._mpi_[0]) > Fraction(d)
            verdicts.append(Verdict.HOLDS if ok_hi and ok_lo else Verdict.UNDECIDED)
    for sigma, k in ((1.0, 1), (10.0, 100), (2.0, 10), (0.5, 3)):
        mu = iv.sqrt(iv.mpf(k)) / iv.mpf(sigma)
        for eps in (0.0, 0.5, 2.0):
            enc = privacy_profile_delta([(Gaussian(sigma), k)], eps)
            verdicts.append(_contains(enc, _gaussian_delta(iv, mu, iv.mpf(eps))))
            if enc.width > widest:
                widest, where = enc.width, f"Gaussian sigma={sigma}, k={k}, eps={eps}"
    for scale in (1.0, 2.0, 0.7):
        a = iv.mpf(1) / iv.mpf(scale)
        for eps in (0.0, 0.35, 0.9 / scale):
            enc = privacy_profile_delta([Laplace(scale)], eps)
            verdicts.append(_contains(enc, 1 - iv.exp((iv.mpf(eps) - a) / 2)))
            if enc.width > widest:
                widest, where = enc.width, f"Laplace b={scale}, eps={eps}"
    return CheckResult(widest, 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; widest delta enclosure at {where}",
                       method="certified")


def _exact_kov(iv, eps0, k, et):
    """The full binomial sum in interval arithmetic (every term, no window)."""
    e, t = iv.mpf(eps0), iv.mpf(et)
    fe, ft = Fraction(eps0), Fraction(et)
    total = iv.mpf(0)
    for l in range(k + 1):
        if (k - 2 * l) * fe > ft:
            total += math.comb(k, l) * (iv.exp((k - l) * e) - iv.exp(t + l * e))
    return total / (1 + iv.exp(e)) ** k


def _brute(iv, eps0, k, et):
    """Sum of (P - e^t Q)_+ over all 2**k output sequences, in interval arithmetic."""
    e, t = iv.mpf(eps0), iv.mpf(et)
    fe, ft = Fraction(eps0), Fraction(et)
    z = (1 + iv.exp(e)) ** k
    total = iv.mpf(0)
    for bits in range(2 ** k):
        l = bin(bits).count("1")
        if (k - 2 * l) * fe > ft:
            total += (iv.exp((k - l) * e) - iv.exp(t + l * e)) / z
    return total


@register("refdp.fast_optimal_composition_equals_bruteforce",
          "windowed optimal_composition_delta >= the hockey-stick sum over all 2^k sequences, "
          "within 2^-50 relative",
          covers=("refdp.accounting.optimal_composition_delta",
                  "refdp.accounting.optimal_composition_epsilon"))
def fast_equals_bruteforce():
    iv = iv_context(DPS)
    verdicts, worst, where = [], 0.0, ""
    for k in range(1, 9):
        for eps0 in (0.05, 0.5, 1.5):
            for et in sorted({0.0, eps0 / 3, (k - 1) * eps0, k * eps0}):
                if et < 0:
                    continue
                b = _brute(iv, eps0, k, et)
                got = Fraction(optimal_composition_delta(eps0, k, et))
                lo, hi = raw_to_fraction(b._mpi_[0]), raw_to_fraction(b._mpi_[1])
                if hi == 0 and lo == 0:
                    verdicts.append(Verdict.HOLDS if got == 0 else Verdict.FAILS)
                    continue
                ok = hi <= got <= lo * (1 + Fraction(1, 2 ** 50))
                verdicts.append(Verdict.HOLDS if ok else (Verdict.FAILS if got < lo else Verdict.UNDECIDED))
                if lo > 0:
                    rel = float((got - lo) / lo)
                    if rel > worst:
                        worst, where = rel, f"eps0={eps0}, k={k}, eps={et}"
    return CheckResult(worst, 2.0 ** -50, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest relative excess at {where}",
                       method="certified")
