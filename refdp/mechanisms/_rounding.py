"""Noise scales rounded toward safety.

A noise scale computed in floating point may land half a unit in the last
place *below* the real number the privacy proof asks for; the density ratio of
the continuous law is then ``exp(epsilon * (1 + 2**-53))`` rather than
``exp(epsilon)``. These helpers return the smallest double that is at least
the exact real value of the formula at the given (float, hence rational)
inputs, decided in exact rational arithmetic.
"""
from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["upward_quotient", "upward_gaussian_sigma"]


def upward_quotient(numerator: float, denominator: float) -> float:
    """Smallest double ``q`` with ``q >= numerator / denominator`` (both > 0, finite).

    Returns ``inf`` when the quotient exceeds the largest finite double.
    """
    q = numerator / denominator
    if math.isinf(q):
        return math.inf
    a, b = Fraction(numerator), Fraction(denominator)
    # round-to-nearest is within half a spacing: at most one step either way
    if Fraction(q) * b < a:
        q = math.nextafter(q, math.inf)
    else:
        below = math.nextafter(q, 0.0)
        if Fraction(below) * b >= a:
            q = below
    return q


def upward_gaussian_sigma(sensitivity: float, rho: float) -> float:
    """Smallest double ``s`` with ``2 * rho * s**2 >= sensitivity**2`` (both > 0, finite).

    This is ``sensitivity / sqrt(2 rho)`` rounded upward (Bun and Steinke 2016,
    Prop. 1.6). Returns ``inf`` when that exceeds the largest finite double.
    """
    s = sensitivity / math.sqrt(2.0) / math.sqrt(rho)
    if math.isinf(s):
        return math.inf
    two_rho, d2 = 2 * Fraction(rho), Fraction(sensitivity) ** 2

    def enough(x: float) -> bool:
        return two_rho * Fraction(x) ** 2 >= d2

    # the float estimate is within a few spacings of the exact value
    while not enough(s):
        s = math.nextafter(s, math.inf)
        if math.isinf(s):
            return math.inf
    while s > 0.0 and enough(math.nextafter(s, 0.0)):
        s = math.nextafter(s, 0.0)
    return s
