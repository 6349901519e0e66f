"""Doubles rounded toward safety from exact values.

A bound returned to the user must never be on the unsafe side of the exact
real number its formula defines: an upper bound (a privacy loss, an excess
risk) is rounded up, a quantity whose exact value must not be exceeded (a
temperature, a required sample size stated as a lower bound) is rounded down.
The exact value is a :class:`fractions.Fraction` or an ``mpmath.mpf``; both
compare exactly with the double they are rounded to.
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction

import mpmath

__all__ = ["float_at_least", "float_at_most"]

_MAX = sys.float_info.max


def _exact(x):
    """A value that compares exactly with doubles (Fraction or mpf unchanged)."""
    return x if isinstance(x, (Fraction, mpmath.mpf)) else Fraction(x)


def _nearest(x) -> float:
    try:
        return float(x)          # correctly rounded for Fraction, to nearest for mpf
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _compare(f: float, x) -> int:
    """Sign of ``f - x``, exactly (``f`` a double, possibly infinite)."""
    if math.isinf(f):
        return 1 if f > 0 else -1
    # comparisons (not differences, which would round at the working precision)
    # of a Fraction or an mpf with a double are exact
    g = Fraction(f) if isinstance(x, Fraction) else mpmath.mpf(f)
    return (g > x) - (g < x)


def float_at_least(x) -> float:
    """Smallest double ``f >= x`` (``inf`` if ``x`` exceeds the largest double)."""
    return _directed(_exact(x), math.inf)


def float_at_most(x) -> float:
    """Largest double ``f <= x`` (``-inf`` below the most negative double)."""
    return _directed(_exact(x), -math.inf)


def _directed(x, direction: float) -> float:
    """The double next to ``x`` on the side of ``direction`` (``x`` itself if it is a double).

    No arithmetic is done on ``x`` (mpmath rounds even a negation to the
    working precision): only exact comparisons.
    """
    side = 1 if direction > 0 else -1
    f = _nearest(x)
    while _compare(f, x) * side < 0:                       # on the wrong side: step over x
        f = math.nextafter(f, direction)
    while not math.isinf(f):                               # tighten while still on the right side
        g = math.nextafter(f, -direction)
        if _compare(g, x) * side < 0:
            break
        f = g
    if math.isinf(f) and _compare(side * _MAX, x) * side >= 0:
        f = side * _MAX
    return f
