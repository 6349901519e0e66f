"""Argument constraints shared by the PATE modules (declared once, as data)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..utils.validation import Interval, check_array, check_scalar, parameter_error
from ..accounting import DEFAULT_ORDERS

__all__ = ["GAMMA", "DELTA", "POSITIVE", "check_gamma", "check_delta", "check_orders",
           "MAX_GAMMA_VOTES", "check_gamma_votes", "MIN_DISCRETE_GAMMA", "check_discrete_gamma"]

GAMMA = Interval(float, 0, None, closed="neither")
DELTA = Interval(float, 0, 1, closed="neither")
POSITIVE = Interval(float, 0, None, closed="neither")


def check_gamma(gamma, owner):
    """LNMax's inverse Laplace scale: a finite float in (0, inf)."""
    return check_scalar(gamma, "gamma", owner, GAMMA)


#: Largest ``gamma * T`` (``T`` the votes of a query) for which the LNMax law and
#: its analyses are computed: every exponent the double-precision kernel forms is
#: a sum of terms of magnitude at most ``gamma T + C log 2``, so its rounding
#: adds at most about ``4 u gamma T <= 3.7e-12`` to ``log P`` (within the
#: ``ETA = 1e-11`` the analyses assume), and the numerical fallback integrates
#: at most ``gamma T / 2 + C log(C) / 4 + log2(8 C) + 3`` mesh intervals per
#: piece (docs/theory/pate.rst, "Range of gamma").
MAX_GAMMA_VOTES = 8192


def check_gamma_votes(gamma, counts, owner):
    """Require ``gamma * T <= MAX_GAMMA_VOTES`` for the largest row total ``T`` of validated counts.

    Beyond it LNMax answers the plurality class with probability at least
    ``1 - C exp(-MAX_GAMMA_VOTES / T)`` per unit gap and the double-precision
    law loses its accuracy (``gamma * T`` terms cancel), so the law and the
    analyses built on it refuse such ``gamma`` with the standard ValueError.
    The comparison is exact (``gamma`` at its binary value).
    """
    total = int(counts.sum(axis=1).max()) if counts.size else 0
    if total and Fraction(gamma) * total > MAX_GAMMA_VOTES:
        limit = MAX_GAMMA_VOTES / total
        if Fraction(limit) * total > MAX_GAMMA_VOTES:      # the largest double accepted
            limit = math.nextafter(limit, 0.0)
        raise parameter_error(
            "gamma", owner,
            f"a float in the range (0, {limit!r}] (gamma times the {total} votes of a query at most "
            f"{MAX_GAMMA_VOTES}, where the LNMax law is computed)", gamma)
    return gamma


#: Smallest ``gamma`` of the analyses of the discrete-noise LNMax: they sum the law
#: over ``2 (ceil(45 t) + 2)`` values beyond the counts (``t >= 1/gamma`` the noise
#: scale), at most about ``2**17`` here.
MIN_DISCRETE_GAMMA = 2.0**-10


def check_discrete_gamma(gamma, owner):
    """Require ``gamma >= MIN_DISCRETE_GAMMA`` for the exact discrete-noise analyses."""
    if gamma < MIN_DISCRETE_GAMMA:
        raise parameter_error(
            "gamma", owner, f"a float in the range [{MIN_DISCRETE_GAMMA!r}, inf) for the exact analyses "
            "of the discrete noise (their sums span about 90/gamma values)", gamma)
    return gamma


def check_delta(delta, owner, name="delta"):
    """A delta of an (epsilon, delta) guarantee: a float in (0, 1)."""
    return check_scalar(delta, name, owner, DELTA)


def check_orders(orders, owner):
    """Moment orders: a non-empty 1-D array of finite floats in (0, inf); None means DEFAULT_ORDERS."""
    if orders is None:
        return np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    arr = check_array(orders, "orders", owner, ndim=1, min_size=1, interval=POSITIVE)
    return np.ascontiguousarray(arr, dtype=np.float64)
