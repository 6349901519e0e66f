"""Rényi divergence enclosures contain independently computed exact values.

Claim
    ``renyi_divergence`` (refdp.accounting.renyi) returns an enclosure of the
    exact Rényi divergence ``ln(sum P**a Q**(1-a)) / (a - 1)`` at integer and
    fractional orders ``a`` for: randomized response (two-point sum);
    Laplace (the integral split at 0 and the sensitivity, three elementary
    pieces, each integrated in closed form); discrete Laplace and discrete
    Gaussian (direct lattice sums over ``|x| <= N`` of the unnormalised
    terms, plus geometric bounds of the tails beyond ``N``); the Gaussian
    (``a Delta**2 / (2 sigma**2)``). Each reference is an interval; the
    check decides containment exactly.
Preconditions
    docs/theory/privacy_profiles.rst, section 4.
Precision
    Interval arithmetic in private mpmath contexts at 40 digits (fail closed:
    an overlap that cannot be decided is a failure).
"""
from fractions import Fraction

from refdp.utils.precision import iv_context, raw_to_fraction
from refdp.accounting import (DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace,
                              RandomizedResponse, renyi_divergence)
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

DPS = 40
ORDERS = (1.25, 2.0, 2.75, 6.5, 33.0)


def _rr(iv, eps, a):
    p = iv.exp(iv.mpf(eps)) / (1 + iv.exp(iv.mpf(eps)))
    q = 1 - p
    return iv.log(p ** a * q ** (1 - a) + q ** a * p ** (1 - a)) / (a - 1)


def _laplace(iv, b, d, a):
    b, d = iv.mpf(b), iv.mpf(d)
    left = iv.exp((a - 1) * d / b) / 2                       # x < 0
    right = iv.exp(-a * d / b) / 2                           # x > d
    mid = iv.exp((a - 1) * d / b) * (1 - iv.exp((1 - 2 * a) * d / b)) / (2 * (2 * a - 1))
    return iv.log(left + mid + right) / (a - 1)


def _discrete_laplace(iv, t, d, a, N=400):
    r = iv.exp(-1 / iv.mpf(t))
    c = (1 - r) / (1 + r)
    s = iv.mpf(0)
    for x in range(-N, N + 1):
        s += r ** (a * abs(x) + (1 - a) * abs(x - d))
    # x > N: exponent x + (a - 1) d; x < -N: -x - (a - 1) d (geometric tails)
    tail = r ** (N + 1 + (a - 1) * d) / (1 - r) + r ** (N + 1 - (a - 1) * d) / (1 - r)
    return iv.log(c * (s + iv.mpf([0, tail.b]))) / (a - 1)


def _discrete_gaussian(iv, sigma, d, a):
    S2 = 2 * iv.mpf(sigma) ** 2
    N = int(40 * sigma) + 4 * d + 10
    num = den = iv.mpf(0)
    for x in range(-N, N + 1):
        num += iv.exp(-(a * x * x + (1 - a) * (x - d) ** 2) / S2)
        den += iv.exp(-iv.mpf(x) ** 2 / S2)
    # tails: a x^2 + (1-a)(x-d)^2 = (x + (a-1) d)^2 - a (a-1) d^2 and |x + (a-1) d| >= M
    M = iv.mpf(N + 1) - (a - 1) * d
    g = iv.exp(a * (a - 1) * d * d / S2)
    tail_num = 2 * g * iv.exp(-M * M / S2) / (1 - iv.exp(-M / S2 * 2))
    tail_den = 2 * iv.exp(-iv.mpf(N + 1) ** 2 / S2) / (1 - iv.exp(-iv.mpf(N + 1) / S2 * 2))
    return iv.log((num + iv.mpf([0, tail_num.b])) / (den + iv.mpf([0, tail_den.b]))) / (a - 1)


def _contains(enc, ref):
    lo, hi = raw_to_fraction(ref._mpi_[0]), raw_to_fraction(ref._mpi_[1])
    if Fraction(enc.lower) <= lo and hi <= Fraction(enc.upper):
        return Verdict.HOLDS
    if Fraction(enc.upper) < lo or hi < Fraction(enc.lower):
        return Verdict.FAILS
    return Verdict.UNDECIDED


@register("refdp.renyi_divergences_exact",
          "Rényi divergence enclosures contain two-point sums, piecewise Laplace integrals and "
          "lattice sums at integer and fractional orders",
          covers=("refdp.accounting.renyi.renyi_divergence",))
def renyi_divergences_exact():
    iv = iv_context(DPS)
    verdicts, widest = [], 0.0
    for order in ORDERS:
        a = iv.mpf(order)
        cases = [
            ([RandomizedResponse(0.5)], _rr(iv, 0.5, a)),
            ([RandomizedResponse(3.0)], _rr(iv, 3.0, a)),
            ([Laplace(1.0)], _laplace(iv, 1.0, 1.0, a)),
            ([Laplace(2.0, 3.0)], _laplace(iv, 2.0, 3.0, a)),
            ([Gaussian(2.0, 3.0)], a * iv.mpf(9) / 8),
            ([DiscreteLaplace(2.0, 3)], _discrete_laplace(iv, 2.0, 3, a)),
            ([DiscreteGaussian(0.8)], _discrete_gaussian(iv, 0.8, 1, a)),
            ([DiscreteGaussian(2.5, 2)], _discrete_gaussian(iv, 2.5, 2, a)),
        ]
        for mechs, ref in cases:
            enc = renyi_divergence(mechs, order)
            verdicts.append(_contains(enc, ref))
            widest = max(widest, enc.width)
    return CheckResult(widest, 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions at orders {ORDERS}; widest enclosure {widest:.3g}",
                       method="certified")
