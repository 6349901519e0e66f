"""Argument constraints shared by the mechanisms (declared once, as data)."""
from __future__ import annotations

import numbers

import numpy as np

from .._validation import Interval, Options, check_option, parameter_error

__all__ = ["POSITIVE", "BOOL", "DPS", "check_flag", "check_size"]

POSITIVE = Interval(float, 0, None, closed="neither")
BOOL = Options((False, True))
DPS = Interval(int, 1, None)


def check_flag(value, name: str, owner: str) -> bool:
    """Validate a boolean option (``True``/``False``, NumPy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise parameter_error(name, owner, BOOL.describe(), value)
    return bool(check_option(bool(value), name, owner, BOOL))


def check_size(size, owner: str) -> tuple | None:
    """Validate a NumPy-style ``size``: None, a non-negative int or a tuple of them."""
    if size is None:
        return None
    expected = "None, a non-negative int or a tuple of non-negative ints"

    def ok(s):
        return isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_)) and s >= 0

    if ok(size):
        return (int(size),)
    if isinstance(size, (tuple, list)) and all(ok(s) for s in size):
        return tuple(int(s) for s in size)
    raise parameter_error("size", owner, expected, size)
