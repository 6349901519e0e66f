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
import re
from fractions import Fraction

import mpmath
import numpy as np
from mpmath import libmp

from .precision import ctx_rational
from .validation import Described, check_scalar, parameter_error
from .validation import POSITIVE

__all__ = ["to_fraction", "fraction_vector", "to_mpf", "float_inputs", "EXACT_REAL", "MAX_EXACT_BITS",
           "decimal_digits"]

#: Largest bit length of the numerator and of the denominator of an exact input.
#: Every double fits (at most 1024 and 1074 bits); larger rationals, and strings or
#: Decimals that would expand into them (``"1e999999999"`` is a billion-digit
#: integer), are rejected before they are built.
MAX_EXACT_BITS = 2048
_MAX_DECIMAL_EXPONENT = 616           # 10**616 < 2**2048 < 10**617
_MAX_STRING = 5000                    # characters of a numeric string

EXACT_REAL = ("a finite real number (int, float, Fraction, Decimal or numeric string) "
              f"with numerator and denominator below 2**{MAX_EXACT_BITS}")
EXACT_SEQUENCE = ("a non-empty 1-dimensional sequence of finite real numbers "
                  "(int, float, Fraction, Decimal or numeric strings) "
                  f"with numerators and denominators below 2**{MAX_EXACT_BITS}")
_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)")


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
        if isinstance(value, np.floating) and value.dtype.itemsize > 8:
            # long double: its exact binary value (as_integer_ratio is exact)
            if not np.isfinite(value):
                return None
            n, d = (int(x) for x in value.as_integer_ratio())
            return _bounded(Fraction(n, d))
        value = value.item()
        if isinstance(value, bool):
            return None
    try:
        if isinstance(value, str):
            text = value.strip()
            # bound the size before parsing: Fraction("1e999999999") builds a 10**9-digit integer
            if len(text) > _MAX_STRING:
                return None
            m = _EXPONENT.search(text)
            if m and (len(m.group(1).lstrip("+-")) > 6 or abs(int(m.group(1))) > _MAX_DECIMAL_EXPONENT):
                return None
            return _bounded(Fraction(text))
        if isinstance(value, decimal.Decimal):
            if not value.is_finite():
                return None
            if value and (abs(value.adjusted()) > _MAX_DECIMAL_EXPONENT
                          or len(value.as_tuple().digits) > _MAX_STRING):
                return None
            return _bounded(Fraction(value))
        if isinstance(value, (int, float, Fraction)):
            return _bounded(Fraction(value))
        if isinstance(value, numbers.Rational):
            return _bounded(Fraction(int(value.numerator), int(value.denominator)))
    except (ValueError, OverflowError, ZeroDivisionError, decimal.InvalidOperation):
        return None
    return None


def _bounded(f: Fraction):
    """``f``, or None when its numerator or denominator has more than MAX_EXACT_BITS bits."""
    if f.numerator.bit_length() > MAX_EXACT_BITS or f.denominator.bit_length() > MAX_EXACT_BITS:
        return None
    return f


def decimal_digits(x) -> int:
    """The number of decimal digits of ``floor(|x|) + 1`` (an upper bound beyond 10**3000).

    Large integers are not converted to strings (Python refuses beyond 4300 digits).
    """
    x = Fraction(x)
    n = abs(x.numerator) // x.denominator + 1
    if n.bit_length() <= 10000:
        return len(str(n))
    return n.bit_length() * 30103 // 100000 + 1


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
