"""Argument constraints shared by the PATE modules (declared once, as data)."""
from __future__ import annotations

import numpy as np

from ..utils.validation import Interval, check_array, check_scalar
from ..accounting import DEFAULT_ORDERS

__all__ = ["GAMMA", "DELTA", "POSITIVE", "check_gamma", "check_delta", "check_orders"]

GAMMA = Interval(float, 0, None, closed="neither")
DELTA = Interval(float, 0, 1, closed="neither")
POSITIVE = Interval(float, 0, None, closed="neither")


def check_gamma(gamma, owner):
    """LNMax's inverse Laplace scale: a finite float in (0, inf)."""
    return check_scalar(gamma, "gamma", owner, GAMMA)


def check_delta(delta, owner, name="delta"):
    """A delta of an (epsilon, delta) guarantee: a float in (0, 1)."""
    return check_scalar(delta, name, owner, DELTA)


def check_orders(orders, owner):
    """Moment orders: a non-empty 1-D array of finite floats in (0, inf); None means DEFAULT_ORDERS."""
    if orders is None:
        return np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    arr = check_array(orders, "orders", owner, ndim=1, min_size=1, interval=POSITIVE)
    return np.ascontiguousarray(arr, dtype=np.float64)
