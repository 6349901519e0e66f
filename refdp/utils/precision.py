"""Precision owned by the call: private mpmath contexts and exact conversions.

mpmath's module-level contexts (``mpmath.mp``, ``mpmath.iv``) keep their
precision in process-global state: a computation that sets ``mp.dps`` or
``iv.prec`` can be changed under its feet by another thread, and a result that
depends on it is not reproducible. refdp's own computations therefore use
contexts they create (:func:`mp_context`, :func:`iv_context`; creating one
costs about a millisecond) or, where they only use a context at a fixed
precision, the calling thread's context at that precision
(:func:`shared_context`, :func:`refined`), and never read or set the global
precision.

Values are recognised by duck typing, so that values of any context are
accepted: an interval has ``_mpi_`` (a pair of raw mpf tuples), a real mpmath
number has ``_mpf_``.

:func:`exact_rational` converts every exactly representable real type to a
:class:`fractions.Fraction` without rounding -- in particular ``numpy.longdouble``
through its exact binary value, which ``float()`` would round away.
"""
from __future__ import annotations

import decimal
import numbers
import threading
from fractions import Fraction

import mpmath
import numpy as np
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext
from mpmath.ctx_mp import MPContext

__all__ = [
    "mp_context",
    "iv_context",
    "shared_context",
    "shared_interval_context",
    "is_interval",
    "is_mpf",
    "exact_rational",
    "raw_to_fraction",
    "mpf_exact",
    "GLOBAL_MPMATH_LOCK",
    "is_interval_context",
    "refined",
    "ctx_rational",
    "ctx_expm1",
    "law_context",
    "mpf_values",
]

#: Serialises refdp's own uses of mpmath's global contexts. Only the legacy
#: protocol of :func:`refdp.verify.check_mechanism` (a law that computes at
#: "the current mpmath precision") touches them; holding this lock keeps two
#: refdp verifications from changing each other's precision. It cannot stop
#: code outside refdp from doing so, which is why such laws are labelled
#: *estimated* (see :mod:`refdp.verify.check`).
GLOBAL_MPMATH_LOCK = threading.RLock()


def mp_context(dps: int) -> MPContext:
    """A new ``mpmath`` real context at ``dps`` decimal digits, owned by the caller."""
    ctx = MPContext()
    ctx.dps = int(dps)
    return ctx


def iv_context(dps: int) -> MPIntervalContext:
    """A new ``mpmath`` interval context at ``dps`` decimal digits, owned by the caller."""
    ctx = MPIntervalContext()
    ctx.dps = int(dps)
    return ctx


_SHARED = threading.local()


def shared_context(dps: int, interval: bool):
    """This thread's context at ``dps`` digits, for computations that never change its precision.

    Creating an mpmath context costs about a millisecond (it builds every
    function wrapper), which dominates exact computations made of many small
    calls (the quick verification run created some 28,000). A call that only
    *uses* a context at a fixed precision may take this one instead of
    :func:`mp_context` / :func:`iv_context`: it belongs to the calling thread
    (never shared between threads, so results stay identical with other
    threads running), and it is replaced by a fresh one if anything changed
    its precision. Code that sets ``prec``/``dps`` on a context must create
    its own.
    """
    return _shared(bool(interval), "dps", int(dps))


def shared_interval_context(bits: int):
    """This thread's interval context at ``bits`` of precision (:func:`shared_context`, counted in bits).

    For a formula evaluated at a fixed precision many times per second (the
    objective-perturbation budget of every fit), where creating a context
    would cost more than the formula. Never change its precision.
    """
    return _shared(True, "prec", int(bits))


def _shared(interval: bool, unit: str, value: int):
    cache = getattr(_SHARED, "contexts", None)
    if cache is None:
        cache = _SHARED.contexts = {}
    key = (interval, unit, value)
    ctx = cache.get(key)
    if ctx is None or getattr(ctx, unit) != value:
        ctx = MPIntervalContext() if interval else MPContext()
        setattr(ctx, unit, value)
        cache[key] = ctx
    return ctx


def is_interval_context(ctx) -> bool:
    """True when ``ctx`` is an mpmath interval context (values are enclosures)."""
    return isinstance(ctx, MPIntervalContext)


def refined(ctx, extra_bits: int):
    """A context of the same kind as ``ctx`` with ``extra_bits`` more bits of precision.

    The caller's context is left as it is, so a context shared by several
    computations is never modified. The returned one is this thread's
    context at that precision (:func:`shared_context`): use it, never change
    its precision.
    """
    return _shared(is_interval_context(ctx), "prec", int(ctx.prec) + max(0, int(extra_bits)))


def law_context(ctx, dps: int, extra_digits: int):
    """The working context of an exact-law function and its output precision.

    Parameters
    ----------
    ctx : mpmath context or None
        The context the caller gave (an interval context asks for rigorous
        enclosures, a real context for values at its precision), or ``None``
        for the legacy ``exact=True`` path at ``dps`` digits.
    dps : int
        Output digits of the legacy path.
    extra_digits : int
        Guard digits of the working precision.

    Returns
    -------
    work : context
        This thread's context (:func:`shared_context`) of ``ctx``'s kind
        with ``extra_digits`` more digits, or a real context at ``dps +
        extra_digits`` digits; its precision must not be changed.
    """
    extra_bits = int(extra_digits * 3.33) + 4
    if ctx is None:
        return shared_context(dps + extra_digits, False)
    return refined(ctx, extra_bits)


def mpf_values(values, ctx, dps: int) -> list:
    """Round the results of an exact-law function for its caller.

    With an interval ``ctx`` the enclosures are returned as they are; with a
    real ``ctx`` each value is rounded to its precision; with ``ctx=None``
    each value is rounded to nearest at ``dps`` digits and returned as an
    ``mpmath.mpf`` holding that rounded value exactly (no global precision is
    read).
    """
    if ctx is not None:
        if is_interval_context(ctx):
            return list(values)
        return [ctx.mpf(v) for v in values]
    out = mp_context(dps)
    return [mpf_exact(out.mpf(v)._mpf_) for v in values]


def ctx_rational(ctx, q):
    """The rational ``q`` in context ``ctx``.

    In an interval context: the tightest enclosure at its precision (a point
    when ``q`` is representable); in a real context: rounded to nearest once.
    """
    q = Fraction(q)
    n, d = q.numerator, q.denominator
    if is_interval_context(ctx):
        if d == 1:
            return ctx.mpf(n)
        return ctx.make_mpf((libmp.from_rational(n, d, ctx.prec, libmp.round_floor),
                             libmp.from_rational(n, d, ctx.prec, libmp.round_ceiling)))
    return ctx.make_mpf(libmp.from_rational(n, d, ctx.prec, libmp.round_nearest))


def ctx_expm1(ctx, x):
    """``exp(x) - 1`` in context ``ctx``, keeping relative accuracy for small ``|x|``.

    In an interval context the result is ``exp(x) - 1`` evaluated with
    outward rounding at enough extra precision to cover the cancellation
    (mpmath's own ``expm1`` truncates a series for tiny arguments, which is
    not an enclosure); in a real context it is ``ctx.expm1``.
    """
    if not is_interval_context(ctx):
        return ctx.expm1(x)
    x = ctx.convert(x)
    if x._mpi_ == (libmp.fzero, libmp.fzero):
        return ctx.mpf(0)
    work = refined(ctx, 20 + max(0, -int(ctx.mag(x))))
    return work.exp(x) - 1


def is_interval(x) -> bool:
    """True for an interval of any mpmath interval context."""
    return hasattr(x, "_mpi_")


def is_mpf(x) -> bool:
    """True for a real number of any mpmath real context."""
    return hasattr(x, "_mpf_") and not is_interval(x)


# mpmath 1.4 has no negative zero (``libmp.fnzero`` is gone); accept it where it exists


def raw_to_fraction(raw) -> Fraction:
    """The exact rational value of a finite raw mpf tuple."""
    sign, man, exp, _ = raw
    if man == 0:
        if exp != 0:   # inf, -inf and nan have a zero mantissa and a special exponent
            raise ValueError(f"not a finite number: {libmp.to_str(raw, 10)}")
        return Fraction(0)
    v = Fraction(man) * (Fraction(2) ** exp if exp >= 0 else Fraction(1, 2 ** (-exp)))
    return -v if sign else v


def mpf_exact(raw) -> "mpmath.mpf":
    """Wrap a raw mpf tuple as an ``mpmath.mpf`` that holds it exactly.

    Creating the number does not round (the raw value is kept as it is);
    comparisons between such numbers are exact whatever the global precision.
    Arithmetic on them would round at the global precision, so refdp does not
    do arithmetic on them.
    """
    return mpmath.mp.make_mpf(raw)


def exact_rational(x):
    """``x`` as an exact :class:`~fractions.Fraction`, or ``None`` if it has no exact finite value.

    Accepts Python ``int``/``Fraction``/``float``/``Decimal``, every NumPy
    integer and floating type (``longdouble`` included, through
    ``as_integer_ratio``, so no bit is lost) and ``numbers.Rational``. Booleans,
    non-finite values, complex numbers, mpmath numbers and anything else give
    ``None`` (mpmath numbers carry a rounding and are handled by the callers).
    """
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        try:
            n, d = x.as_integer_ratio()
        except (OverflowError, ValueError):  # inf, nan
            return None
        return Fraction(int(n), int(d))
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            return None
        return Fraction(x)
    if isinstance(x, numbers.Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    return None
