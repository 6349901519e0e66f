"""Argument constraints shared by the PATE modules (declared once, as data)."""
from __future__ import annotations

import math

import numpy as np

from ..utils.validation import Interval, check_array, check_scalar, parameter_error
from ..accounting import DEFAULT_ORDERS
from ..utils.validation import POSITIVE

__all__ = ["GAMMA", "DELTA", "POSITIVE", "check_gamma", "check_delta", "check_orders",
           "MIN_DISCRETE_GAMMA", "check_discrete_gamma"]

GAMMA = POSITIVE
DELTA = Interval(float, 0, 1, closed="neither")

def check_gamma(gamma, owner):
    """LNMax's inverse Laplace scale: a finite float in (0, inf)."""
    return check_scalar(gamma, "gamma", owner, GAMMA)

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
    if (type(orders) is np.ndarray and orders.dtype == np.float64 and orders.ndim == 1 and orders.size
            and orders.flags.c_contiguous and orders.min() > 0.0 and orders.max() < math.inf):
        # already valid (NaN fails both comparisons): the checks below would return it as it is
        return orders
    arr = check_array(orders, "orders", owner, ndim=1, min_size=1, interval=POSITIVE)
    return np.ascontiguousarray(arr, dtype=np.float64)
