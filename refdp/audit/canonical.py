"""Canonical form of an output: equal values are one outcome.

The black-box audit counts how often each outcome occurs under the two
datasets of a pair. Two outputs that are *equal values* must count as one
outcome, or a mechanism that returns ``-0.0`` on one dataset and ``0.0`` on
the other (or ``numpy.int64(3)`` and ``3``, ``numpy.float32(0.5)`` and
``0.5``) looks as if its outputs never overlapped: a 0-DP mechanism would be
reported with an epsilon bound of several units.

:func:`canonical_output` maps an output to a representative of its value:

* every real number to its exact value, written as an ``int`` when it is an
  integer (``3``, ``3.0``, ``numpy.int64(3)``, ``True`` are one outcome), as a
  ``float`` when the value is a binary64 number (``numpy.float32(0.5)`` and
  ``0.5``; ``-0.0`` and ``0.0``), else as a :class:`fractions.Fraction`;
* tuples and lists element by element (a tuple stays a tuple, a list a list,
  since Python does not consider them equal); NumPy arrays as the list of
  their elements together with their shape;
* anything else (strings, bytes, other objects) as it is.

This is the outcome identity of the default events (``outcomes``,
``cells``). The opt-in float-bits events (``float_bits=True``) deliberately
look at the bit pattern of a float output -- sign, exponent, last mantissa
bits -- because a floating-point sampler can leak through exactly those
bits (Mironov 2012); they read the numbers themselves, not these canonical
keys, and ``-0.0`` and ``0.0`` differ there on purpose.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from ..utils.precision import exact_rational

__all__ = ["canonical_output"]


def _number(x):
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    if isinstance(x, (float, np.floating)) and not math.isfinite(float(x)):
        return float(x)             # inf or nan: no exact rational value
    q = exact_rational(x)
    if q is None:
        return x
    if q.denominator == 1:
        return int(q)
    f = float(q)
    return f if Fraction(f) == q else q


def canonical_output(o):
    """A representative of the value of ``o``: equal values give equal representatives.

    Parameters
    ----------
    o : object
        One output of a mechanism.

    Returns
    -------
    object
        ``o`` with every real number replaced by its exact value (``int``,
        ``float`` or ``Fraction``), recursively inside tuples, lists and
        arrays; other objects unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> canonical_output((np.int64(3), -0.0, np.float32(0.5)))
    (3, 0, 0.5)
    """
    if isinstance(o, (str, bytes)):
        return o
    if isinstance(o, (numbers.Real, np.bool_, np.number)) and not isinstance(o, np.complexfloating):
        return _number(o)
    if isinstance(o, np.ndarray):
        return ("ndarray", o.shape, [canonical_output(x) for x in o.ravel().tolist()])
    if isinstance(o, tuple):
        return tuple(canonical_output(x) for x in o)
    if isinstance(o, list):
        return [canonical_output(x) for x in o]
    return o
