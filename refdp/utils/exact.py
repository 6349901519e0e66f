"""Exact numeric inputs for the mpmath reference paths of the mechanisms.

The ``exact=True`` paths of the distribution functions accept ints,
:class:`fractions.Fraction`, floats (taken at their exact binary value),
:class:`decimal.Decimal` and decimal or rational strings such as ``"0.1"`` or
``"1/3"``. Every such input is first converted to a :class:`~fractions.Fraction`
without rounding; differences and products of inputs are formed exactly, and
only the final rational is rounded once into the working context (or enclosed
in an interval when the context is an interval context). Raising the precision therefore refines every result, which is what
the fail-closed verdicts of :mod:`refdp.verify.verdict` rely on.
"""
from __future__ import annotations

import decimal
import math
import numbers
from fractions import Fraction

import mpmath
import numpy as np
from mpmath import libmp

from .precision import ctx_rational
from .validation import Described, check_scalar, parameter_error
from .validation import POSITIVE

__all__ = ["to_fraction", "fraction_vector", "to_mpf", "float_inputs", "EXACT_REAL"]

EXACT_REAL = "a finite real number (int, float, Fraction, Decimal or numeric string)"
EXACT_SEQUENCE = ("a non-empty 1-dimensional sequence of finite real numbers "
                  "(int, float, Fraction, Decimal or numeric strings)")


def to_fraction(value, name: str, owner: str, *, positive: bool = False) -> Fraction:
    """Return the exact rational value of ``value``.

    Raises
    ------
    ValueError
        If ``value`` is a boolean, not a real number or numeric string, NaN or
        infinite, or (with ``positive=True``) not strictly positive.
    """
    expected = EXACT_REAL + (" in the range (0, inf)" if positive else "")
    f = _fraction_or_none(value)
    if f is None or (positive and f <= 0):
        raise parameter_error(name, owner, expected, value)
    return f


def _fraction_or_none(value):
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, np.generic):
        value = value.item()
        if isinstance(value, bool):
            return None
    try:
        if isinstance(value, str):
            return Fraction(value.strip())
        if isinstance(value, (int, float, Fraction, decimal.Decimal)):
            return Fraction(value)
        if isinstance(value, numbers.Rational):
            return Fraction(int(value.numerator), int(value.denominator))
    except (ValueError, OverflowError, ZeroDivisionError, decimal.InvalidOperation):
        return None
    return None


def fraction_vector(values, name: str, owner: str) -> list[Fraction]:
    """Convert a non-empty one-dimensional sequence to a list of exact rationals."""
    expected = EXACT_SEQUENCE
    if isinstance(values, np.ndarray):
        if values.ndim != 1 or values.size == 0:
            raise parameter_error(name, owner, expected, values)
        items = values.tolist()
    elif isinstance(values, (list, tuple)):
        items = list(values)
    else:
        raise parameter_error(name, owner, expected, values)
    if not items:
        raise parameter_error(name, owner, expected, values)
    out = []
    for i, v in enumerate(items):
        f = _fraction_or_none(v)
        if f is None:
            raise parameter_error(name, owner, expected, Described(f"{v!r} at position ({i},)"))
        out.append(f)
    return out


def to_mpf(value: Fraction, ctx) -> mpmath.mpf:
    """The exact rational ``value`` in the mpmath context ``ctx``.

    Rounded once to nearest in a real context, enclosed with outward rounding
    in an interval context (:func:`refdp.utils.precision.ctx_rational`).
    """
    return ctx_rational(ctx, value)


def float_inputs(scores, epsilon, sensitivity, owner: str):
    """Round exact scores, epsilon and sensitivity to doubles for a float path.

    Raises
    ------
    ValueError
        If a score overflows, or epsilon or sensitivity rounds to 0 or inf.
    """
    try:
        arr = np.array([float(v) for v in scores], dtype=np.float64)
    except OverflowError:
        arr = None
    if arr is None or not np.all(np.isfinite(arr)):
        raise parameter_error("scores", owner, "an array of numbers representable as finite doubles "
                              "(or use exact=True)", Described("a value beyond the double range"))

    def as_double(value, name):
        try:
            v = float(value)
        except OverflowError:
            v = math.inf
        return check_scalar(v, name, owner, POSITIVE)

    return arr, as_double(epsilon, "epsilon"), as_double(sensitivity, "sensitivity")
