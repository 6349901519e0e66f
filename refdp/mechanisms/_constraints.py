"""Declared constraints shared by the mechanisms' exact-law functions.

The exact-law functions take exact inputs (ints, floats, Fractions, Decimals,
numeric strings); their conversion to rationals is the check, so the
declarations name the converters of :mod:`refdp.utils.exact`.
"""
from __future__ import annotations

import math

import numpy as np

from ..utils.constraints import Converted
from ..utils.exact import EXACT_REAL, EXACT_SEQUENCE, fraction_vector, to_fraction

__all__ = ["EXACT_POSITIVE", "EXACT_SCORES"]


def _positive_fraction(value, name, owner):
    return to_fraction(value, name, owner, positive=True)


#: A positive exact real, converted to a Fraction.
EXACT_POSITIVE = Converted(_positive_fraction, EXACT_REAL + " in the range (0, inf)",
                           invalid=(math.nan, math.inf, -math.inf, 0, -1.0, "abc", True, None))
#: A non-empty 1-dimensional sequence of exact reals, converted to a list of Fractions.
EXACT_SCORES = Converted(fraction_vector, EXACT_SEQUENCE,
                         invalid=([], np.zeros(0), [math.nan], [math.inf], ["abc"], np.zeros((1, 1)),
                                  "abc", None, 1.0))
