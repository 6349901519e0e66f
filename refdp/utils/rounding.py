"""Doubles rounded toward safety from exact values: the one place refdp rounds a bound.

A number refdp returns as a guarantee must never be on the unsafe side of the
exact real value its formula defines: an upper bound (a privacy loss, an
excess risk, a noise scale the proof needs at least) is rounded up; a
quantity whose exact value must not be exceeded (a temperature, the part of a
budget left for the noise) is rounded down. Three routes get there:

* rational formulas (sums, ``epsilon**2 / 2``, ``k * delta + delta'``,
  quotients of doubles) are evaluated exactly with :class:`fractions.Fraction`
  and rounded once (:func:`ceil_fraction`, :func:`upward_quotient`,
  :func:`upward_gaussian_sigma`);
* transcendental formulas are evaluated in mpmath's interval context
  (a private interval context, :func:`interval_context`), whose ``exp``, ``ln`` and
  ``sqrt`` round each endpoint outward, so the exact value lies in the
  resulting interval; its upper endpoint is rounded up to a double by
  :func:`ceil_interval`;
* an exact ``Fraction`` or ``mpf`` is rounded in either direction by
  :func:`float_at_least` / :func:`float_at_most` using exact comparisons only.

A noise scale computed in plain floating point may land half a unit in the
last place *below* the real number the privacy proof asks for (the density
ratio is then ``exp(epsilon (1 + 2**-53))``, not ``exp(epsilon)``); the
helpers above exclude that.

mpmath's module-level contexts are process-global; :func:`interval_context`
therefore yields a new interval context owned by the caller, so no other
thread can change its precision.

The floating-point constants of the a-priori error analyses are defined here
once: the unit roundoff :data:`UNIT_ROUNDOFF` (``u = 2**-53``), Higham's
``gamma_k = k u / (1 - k u)`` (:func:`gamma`; Higham, *Accuracy and Stability
of Numerical Algorithms*, Lemma 3.1), the largest exact integer
:data:`EXACT_INT_LIMIT` and the upward dyadic roundings :func:`up_dyadic` /
:func:`up_dyadic_sqrt` of a noise parameter.
"""
from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from fractions import Fraction

import mpmath
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext

__all__ = ["IV_PREC", "interval_context", "shared_interval_context", "ceil_fraction", "ceil_mpf", "ceil_interval",
           "floor_fraction", "floor_interval", "float_at_least", "float_at_most", "upward_quotient", "upward_gaussian_sigma",
           "UNIT_ROUNDOFF", "MACHINE_EPSILON", "EXACT_INT_LIMIT", "PARAM_BITS", "gamma", "up_dyadic", "up_dyadic_sqrt"]

#: The unit roundoff of IEEE binary64 with rounding to nearest: every basic
#: operation's result is ``x (1 + d)`` with ``|d| <= UNIT_ROUNDOFF``.
UNIT_ROUNDOFF = 2.0 ** -53
#: The spacing of doubles at 1 (``2 * UNIT_ROUNDOFF``).
MACHINE_EPSILON = 2.0 ** -52
#: Integers of magnitude at most this are exact doubles.
EXACT_INT_LIMIT = 2**53 - 1
#: Significant bits kept when a noise parameter is rounded up to a dyadic
#: rational (:func:`up_dyadic`).
PARAM_BITS = 48


def gamma(k):
    """Higham's ``gamma_k = k u / (1 - k u)`` with ``u = UNIT_ROUNDOFF``.

    Bounds the relative error of ``k`` rounded operations in sequence
    (Higham, *Accuracy and Stability of Numerical Algorithms*, Lemma 3.1);
    valid for ``k u < 1``. Computed in floating point, as every use adds its
    own margin.
    """
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)


def up_dyadic(q: Fraction) -> Fraction:
    """The smallest multiple of ``2**-j`` that is >= q, with about 48 significant bits."""
    j = max(0, PARAM_BITS - max(1, math.floor(q)).bit_length())
    return Fraction(-((-q.numerator * 2**j) // q.denominator), 2**j)


def up_dyadic_sqrt(q: Fraction) -> Fraction:
    """A dyadic rational ``s`` with ``s**2 >= q`` and about 48 significant bits."""
    j = max(0, PARAM_BITS - max(1, math.isqrt(math.floor(q))).bit_length())
    x = q * 4**j
    c = math.isqrt(x.numerator // x.denominator)
    while c * c < x:
        c += 1
    return Fraction(c, 2**j)

#: Working precision (bits) of interval evaluations: enough that the interval
#: width is far below one float ulp for every formula of the package.
IV_PREC = 160

# |x| below 2**_TINY_EXP rounds up to the smallest subnormal (or to 0.0 if
# negative); above 2**_HUGE_EXP it rounds up to inf (or down to -max).
_TINY_EXP = -1080
_HUGE_EXP = 1030


@contextmanager
def interval_context(bits: int = IV_PREC):
    """Yield a new mpmath interval context at ``bits`` of precision, owned by the caller.

    The global ``mpmath.iv`` is neither read nor changed
    (:func:`refdp.utils.precision.iv_context`).
    """
    ctx = MPIntervalContext()
    ctx.prec = int(bits)
    yield ctx


def shared_interval_context(bits: int = IV_PREC):
    """:func:`refdp.utils.precision.shared_interval_context` at :data:`IV_PREC` bits by default.

    This thread's interval context, created once per thread: the same
    operations at the same precision give the same enclosures as a new
    context from :func:`interval_context`, without the cost of creating one
    (about a millisecond). Its precision must not be changed.
    """
    from .precision import shared_interval_context as shared

    return shared(bits)


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


def floor_fraction(q: Fraction) -> float:
    """Largest float that is <= the rational ``q`` (``-inf`` below the float range)."""
    return -ceil_fraction(-q)


def floor_interval(x) -> float:
    """Largest float that is <= the lower endpoint of the mpmath interval ``x``."""
    return -ceil_interval(-x)


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
    if _FAST_LOW <= top <= _FAST_HIGH:
        # normal range: keep the 53 leading bits of the mantissa, step up once if a
        # positive value had more (a negative one is rounded toward zero, i.e. up)
        shift = bc - 53
        if shift <= 0:
            return math.ldexp(-man if sign else man, exp)          # exact
        m = man >> shift
        if sign:
            return -math.ldexp(m, exp + shift)
        if man & ((1 << shift) - 1):
            m += 1
        return math.ldexp(m, exp + shift)
    q = Fraction(man) * (Fraction(2) ** exp)
    return ceil_fraction(-q if sign else q)


# |x| in [2**(_FAST_LOW - 1), 2**_FAST_HIGH): doubles there are normal and finite
_FAST_LOW = -1000
_FAST_HIGH = 1000


# Rounding an exact Fraction or mpf in either direction (exact comparisons only).
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


# Noise scales from doubles, decided in rational arithmetic.

def upward_quotient(numerator: float, denominator: float) -> float:
    """Smallest double ``q`` with ``q >= numerator / denominator`` (both > 0, finite).

    Returns ``inf`` when the quotient exceeds the largest finite double.
    """
    q = numerator / denominator
    if math.isinf(q):
        return math.inf
    a, b = Fraction(numerator), Fraction(denominator)
    # round-to-nearest is within half a spacing: at most one step either way
    if Fraction(q) * b < a:
        q = math.nextafter(q, math.inf)
    else:
        below = math.nextafter(q, 0.0)
        if Fraction(below) * b >= a:
            q = below
    return q


def upward_gaussian_sigma(sensitivity: float, rho: float) -> float:
    """Smallest double ``s`` with ``2 * rho * s**2 >= sensitivity**2`` (both > 0, finite).

    This is ``sensitivity / sqrt(2 rho)`` rounded upward (Bun and Steinke 2016,
    Prop. 1.6). Returns ``inf`` when that exceeds the largest finite double.
    """
    s = sensitivity / math.sqrt(2.0) / math.sqrt(rho)
    if math.isinf(s):
        return math.inf
    two_rho, d2 = 2 * Fraction(rho), Fraction(sensitivity) ** 2

    def enough(x: float) -> bool:
        return two_rho * Fraction(x) ** 2 >= d2

    # the float estimate is within a few spacings of the exact value
    while not enough(s):
        s = math.nextafter(s, math.inf)
        if math.isinf(s):
            return math.inf
    while s > 0.0 and enough(math.nextafter(s, 0.0)):
        s = math.nextafter(s, 0.0)
    return s
