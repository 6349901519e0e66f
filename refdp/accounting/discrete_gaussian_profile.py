"""Interval enclosures of the exact privacy profile of the discrete Gaussian mechanism.

For ``Y ~ N_Z(0, sigma**2)`` (``P(y) ~ exp(-y**2 / (2 sigma**2))`` on the
integers) and an integer shift ``Delta >= 1``, the profile of the pair
``(Y, Y + Delta)`` is

``delta(eps) = sum_x (P(x) - e**eps P(x - Delta))_+ = (1/Z) sum_x f(x)``,
``f(x) = (w(x) - e**eps w(x - Delta))_+``, ``w(x) = exp(-x**2 / (2 sigma**2))``

(Canonne, Kamath and Steinke 2020, Theorem 7). Two enclosures of it, both
rigorous (``docs/theory/secure_noise.rst``, Theorem 6):

* :func:`discrete_gaussian_delta` compares the sum with an integral. ``f`` is
  log-concave, hence unimodal, with maximum ``M``, so ``int f - M <= sum_x
  f(x) <= int f + 2M``; ``int f = sigma sqrt(2 pi) delta_N(eps)`` where
  ``delta_N`` is the continuous Gaussian profile at ``mu = Delta / sigma``
  (enclosed by :func:`refdp.accounting.gaussian_exact.gaussian_delta`);
  ``M <= w(c) min(1, Delta / (e |c|))`` for the threshold ``c = Delta/2 -
  sigma**2 eps / Delta < 0`` of the privacy loss; and ``Z = sigma sqrt(2 pi)
  theta`` with ``1 <= theta <= 1 + 2q/(1 - q)``, ``q = exp(-2 pi**2
  sigma**2)`` (Poisson summation). The relative width is about ``M /
  (sigma delta)``: below 1e-5 for the noise a grid release uses.
* :func:`discrete_gaussian_delta_sum` sums the terms one by one in the
  interval context, with a bounded tail (for small ``sigma``: the reference).
"""
from __future__ import annotations

import math
from fractions import Fraction

from .gaussian_exact import gaussian_delta

__all__ = ["discrete_gaussian_delta", "discrete_gaussian_delta_sum"]


def _ivq(q: Fraction, iv):
    return iv.mpf(q.numerator) / q.denominator


def _normaliser(sigma, iv):
    """Interval containing ``Z = sum_x exp(-x**2 / (2 sigma**2))`` (Poisson summation)."""
    q = iv.exp(-2 * iv.pi ** 2 * sigma * sigma)
    theta = iv.mpf([1, (1 + 2 * q / (1 - q)).b])
    return sigma * iv.sqrt(2 * iv.pi) * theta


def discrete_gaussian_delta(sigma: Fraction, shift: int, epsilon, iv):
    """Interval containing the exact ``delta(epsilon)`` of ``N_Z(0, sigma**2)`` against its shift by ``shift``.

    ``sigma`` is a positive Fraction (``sigma**2`` is its exact square),
    ``shift`` a positive int and ``epsilon >= 0`` a float or Fraction, taken
    exactly; ``iv`` is an interval context owned by the caller.
    """
    sigma, epsilon = Fraction(sigma), Fraction(epsilon)
    s = _ivq(sigma, iv)
    e = _ivq(epsilon, iv)
    d = iv.mpf(int(shift))
    integral = s * iv.sqrt(2 * iv.pi) * gaussian_delta(d / s, e, iv)
    c = Fraction(shift, 2) - sigma * sigma * epsilon / shift     # f(x) > 0 exactly for x < c
    if c < 0:
        cc = _ivq(c, iv)
        w_c = iv.exp(-cc * cc / (2 * s * s))
        ratio = d / (iv.e * (-cc))
        peak = w_c * ratio if ratio.b < 1 else w_c
    else:
        peak = iv.mpf(1)
    z = _normaliser(s, iv)
    lo = (integral - peak) / z
    hi = (integral + 2 * peak) / z
    lo_end = max(lo.a, iv.mpf(0).a)
    hi_end = min(hi.b, iv.mpf(1).b)
    return iv.mpf([lo_end, hi_end])


def discrete_gaussian_delta_sum(sigma: Fraction, shift: int, epsilon, iv, *, width: float = 40.0):
    """Interval containing the same ``delta(epsilon)``, summed term by term (small ``sigma``).

    The terms ``f(x)`` for ``c - width sigma <= x < c`` are added in ``iv``;
    those below are at most ``sum_{x < x0} w(x)``, bounded by a geometric
    series (``w(x - 1) / w(x) <= exp((2 x0 - 1) / (2 sigma**2)) < 1`` there),
    and ``Z`` is enclosed by Poisson summation.
    """
    sigma, epsilon = Fraction(sigma), Fraction(epsilon)
    s = _ivq(sigma, iv)
    s2 = 2 * s * s
    e = iv.exp(_ivq(epsilon, iv))
    c = Fraction(shift, 2) - sigma * sigma * epsilon / shift
    top = math.ceil(c) - 1                                 # the largest integer below c
    x0 = min(top, 0) - math.ceil(width * sigma) - 1        # first term summed
    total = iv.mpf(0)
    for x in range(x0, top + 1):
        total += iv.exp(-iv.mpf(x) ** 2 / s2) - e * iv.exp(-iv.mpf(x - shift) ** 2 / s2)
    # sum_{x < x0} w(x) <= w(x0 - 1) / (1 - exp((2 (x0 - 1) - 1) / s2))   (x0 - 1 < 0)
    first = iv.exp(-iv.mpf(x0 - 1) ** 2 / s2)
    tail = first / (1 - iv.exp(iv.mpf(2 * (x0 - 1) - 1) / s2))
    z = _normaliser(s, iv)
    return iv.mpf([max(total.a, iv.mpf(0).a), (total + tail).b]) / z
