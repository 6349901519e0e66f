"""Rounding toward safety for the accountant's bounds.

Every epsilon or delta that :mod:`refdp.accounting` returns as a float is an
upper bound of the exact real value of its formula at the (exact, binary)
float inputs. Two routes get there:

* rational formulas (sums, ``epsilon**2 / 2``, ``k * delta + delta'``) are
  evaluated exactly with :class:`fractions.Fraction` and rounded up once with
  :func:`ceil_fraction`;
* transcendental formulas are evaluated in mpmath's interval context
  (``mpmath.iv``), whose ``exp``, ``ln`` and ``sqrt`` round each endpoint
  outward, so the exact value lies in the resulting interval; its upper
  endpoint is then rounded up to a float by :func:`ceil_interval`.

mpmath contexts are process-global: these helpers set and restore
``mpmath.iv.prec`` and are not safe to call from several threads at once.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction

import mpmath
from mpmath import libmp

__all__ = ["IV_PREC", "interval_context", "ceil_fraction", "ceil_mpf", "ceil_interval"]

#: Working precision (bits) of interval evaluations: enough that the interval
#: width is far below one float ulp for every formula of the package.
IV_PREC = 160

# |x| below 2**_TINY_EXP rounds up to the smallest subnormal (or to 0.0 if
# negative); above 2**_HUGE_EXP it rounds up to inf (or down to -max).
_TINY_EXP = -1080
_HUGE_EXP = 1030


@contextmanager
def interval_context(bits: int = IV_PREC):
    """Yield ``mpmath.iv`` set to ``bits`` of precision, restoring it on exit."""
    iv = mpmath.iv
    old = iv.prec
    iv.prec = bits
    try:
        yield iv
    finally:
        iv.prec = old


def ceil_fraction(q: Fraction) -> float:
    """Smallest float that is >= the rational ``q`` (``inf`` above the float range)."""
    try:
        f = float(q)  # int / int true division: correctly rounded to nearest
    except OverflowError:
        return math.inf if q > 0 else -math.inf
    if math.isinf(f):
        return f if f > 0 else -1.7976931348623157e308
    if Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f + 0.0  # turn -0.0 into 0.0


def ceil_mpf(x) -> float:
    """Smallest float that is >= the mpmath number ``x`` (exact; handles subnormals)."""
    return _ceil_raw(x._mpf_)


def ceil_interval(x) -> float:
    """Smallest float that is >= the upper endpoint of the mpmath interval ``x``."""
    return _ceil_raw(x._mpi_[1])


def _ceil_raw(raw) -> float:
    # ``raw`` is mpmath's (sign, mantissa, exponent, bitcount) tuple; it is read
    # as is, never passed through mpmath.mpf (which would round it at mp.prec).
    if raw == libmp.fnan:
        raise ArithmeticError("an accounting bound evaluated to NaN")
    if raw == libmp.finf:
        return math.inf
    if raw == libmp.fninf:
        return -math.inf
    sign, man, exp, bc = raw
    if not man:
        return 0.0
    top = exp + bc  # |x| lies in [2**(top - 1), 2**top)
    if top > _HUGE_EXP:
        return -1.7976931348623157e308 if sign else math.inf
    if top < _TINY_EXP:
        return 0.0 if sign else 5e-324
    q = Fraction(man) * (Fraction(2) ** exp)
    return ceil_fraction(-q if sign else q)
