"""Three-valued, fail-closed verdicts for exact comparisons.

A claim such as ``divergence <= epsilon`` is decided in one of two ways, and
every verdict says which:

* **certified** -- both sides are enclosed in intervals computed with outward
  rounding (:func:`decide_leq_interval`, :func:`decide_enclosures`); the claim
  holds when the upper end of the left side is at most the lower end of the
  right side, fails when the lower end of the left side exceeds the upper end
  of the right side, and is undecided when the enclosures overlap. HOLDS and
  FAILS are proofs.
* **estimated** -- both sides are evaluated in mpmath twice, at ``dps`` and at
  ``2 * dps + 10`` decimal digits (:func:`decide_leq`); the difference between
  the two evaluations estimates the numerical error. This is not a proof.

Every report treats *undecided* as a failure (fail closed). A :class:`Verdict`
is false in a boolean context unless it is HOLDS, and compares equal to its
name (``Verdict.FAILS == "fails"``).

No function here reads or sets mpmath's global precision: each evaluation runs
in a context created for it (:mod:`refdp.utils.precision`). The only exception is
the legacy protocol of :func:`decide_leq` and :func:`decide_leq_interval` for
zero-argument callables, which compute with the global ``mpmath`` functions;
they are evaluated under :data:`refdp.utils.precision.GLOBAL_MPMATH_LOCK` and the
global precision is restored afterwards.
"""
from __future__ import annotations

import contextlib
import enum
import inspect
import threading
from typing import Callable

import mpmath
from mpmath import libmp

from ..utils.precision import is_interval_context as _is_interval_context
from ..utils import constraints as _c

from ..utils.precision import (
    GLOBAL_MPMATH_LOCK,
    exact_rational,
    is_interval,
    is_mpf,
    mp_context,
    mpf_exact,
    shared_context,
)

__all__ = [
    "Verdict",
    "decide_leq",
    "decide_leq_interval",
    "decide_enclosures",
    "worst_verdict",
    "ivworkdps",
    "enclose",
    "lower",
    "upper",
]

_REAL = _c.Checked("a real number or an mpmath interval (checked by enclose)", invalid=("abc", None, object()))
_DPS = _c.Interval(int, 1, _c.MAX_DPS)
_SIDE = _c.Callable("a callable of an mpmath context returning a real number")

#: Bits used to round a rational that is not a dyadic number to an end point.
_END_BITS = 256


class _VerdictType(enum.EnumMeta):
    """``Verdict(value)`` refuses a non-string with the standard message.

    (The Enum lookup compares the value with each member, which fails with
    NumPy's own error for an array, before ``_missing_`` is reached.)
    """

    def __call__(cls, value, *args, **kwargs):
        if not args and not kwargs and not isinstance(value, str):
            cls._missing_(value)
        return super().__call__(value, *args, **kwargs)


class Verdict(str, enum.Enum, metaclass=_VerdictType):
    """Outcome of an exact comparison: HOLDS, FAILS or UNDECIDED.

    ``bool(v)`` is True only for HOLDS (UNDECIDED fails closed), and a verdict
    compares equal to its name: ``Verdict.FAILS == "fails"``.
    """

    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"

    @property
    def passed(self) -> bool:
        """Only HOLDS passes; UNDECIDED counts as a failure (fail closed)."""
        return self is Verdict.HOLDS

    def __bool__(self) -> bool:
        return self is Verdict.HOLDS

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__

    @classmethod
    def _missing_(cls, value):
        # Verdict(value) with no member of that value: the standard message, naming 'value'
        from ..utils.validation import parameter_error
        raise parameter_error("value", "Verdict", "one of 'holds', 'fails', 'undecided'", value)

    @classmethod
    def parse(cls, value, owner: str = "worst_verdict", name: str = "verdicts") -> "Verdict":
        """``value`` as a Verdict: a Verdict or one of the strings 'holds', 'fails', 'undecided'."""
        if isinstance(value, Verdict):
            return value
        if isinstance(value, str):
            try:
                return cls(value.strip().lower())
            except ValueError:
                pass
        from ..utils.validation import parameter_error
        raise parameter_error(name, owner, "Verdict values or the strings 'holds', 'fails', 'undecided'",
                              value)


# ---------------------------------------------------------------------------
# Calling user functions with a context
# ---------------------------------------------------------------------------

_ARITY_CACHE: dict = {}
_ARITY_LOCK = threading.Lock()


def takes_context(fn, n_args: int) -> bool:
    """True when ``fn`` accepts ``n_args + 1`` positional arguments (the last is a context).

    A function that accepts exactly ``n_args`` arguments follows the legacy
    protocol (it computes with the global ``mpmath`` functions).
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(required) > n_args:
        return True
    if len(positional) > n_args:
        # an optional extra positional parameter is a context only when it is named so
        return positional[n_args].name in ("ctx", "context")
    return False


@_c.constrained(dps=_DPS)
@contextlib.contextmanager
def ivworkdps(dps: int):
    """Set the precision of the global :data:`mpmath.iv` to ``dps`` digits, restored on exit.

    For users' laws written against the global ``mpmath.iv`` only; refdp's own
    computations use contexts they own (:func:`refdp.utils.precision.iv_context`).
    The change is made under :data:`refdp.utils.precision.GLOBAL_MPMATH_LOCK`.
    """
    # Survivor by design: this helper exists to set the global precision for
    # users' legacy laws; refdp's own computations never call it.
    with GLOBAL_MPMATH_LOCK:
        old = mpmath.iv.prec
        try:
            mpmath.iv.dps = dps
            yield
        finally:
            mpmath.iv.prec = old


# ---------------------------------------------------------------------------
# End points
# ---------------------------------------------------------------------------

def _raw_bounds(x):
    """(lower, upper) raw mpf tuples enclosing ``x`` (exact where possible)."""
    if is_interval(x):
        return x._mpi_
    if is_mpf(x):
        return x._mpf_, x._mpf_
    q = exact_rational(x)
    if q is None:
        from ..utils.validation import parameter_error
        raise parameter_error("x", "enclose", "a real number or an mpmath interval", x)
    n, d = q.numerator, q.denominator
    if d == 1:
        r = libmp.from_int(n)
        return r, r
    return (libmp.from_rational(n, d, _END_BITS, libmp.round_floor),
            libmp.from_rational(n, d, _END_BITS, libmp.round_ceiling))


@_c.constrained(x=_REAL, ctx=_c.Checked("None or an mpmath interval context"))
def enclose(x, ctx=None):
    """Enclose ``x`` in an interval of the interval context ``ctx``.

    Parameters
    ----------
    x : interval, mpmath number, int, Fraction, float (any NumPy real type too)
        Intervals keep their end points; exact numbers (``longdouble`` through
        its exact binary value) become the tightest interval at ``ctx``'s
        precision; an ``mpf`` becomes the point interval of its value.
    ctx : mpmath interval context, optional
        Default: a new context at 256 bits.

    Returns
    -------
    interval of ``ctx``
    """
    if ctx is None:
        ctx = shared_context(80, True)
    elif not _is_interval_context(ctx):
        raise _c.parameter_error("ctx", "enclose", "None or an mpmath interval context", ctx)
    if is_interval(x):
        a, b = x._mpi_
        return ctx.mpf([mpf_exact(a), mpf_exact(b)])
    if is_mpf(x):
        return ctx.mpf(mpf_exact(x._mpf_))
    q = exact_rational(x)
    if q is None:
        from ..utils.validation import parameter_error
        raise parameter_error("x", "enclose", "a real number or an mpmath interval", x)
    if q.denominator == 1:
        return ctx.mpf(q.numerator)
    return ctx.mpf(q.numerator) / ctx.mpf(q.denominator)


@_c.constrained(x=_REAL)
def lower(x) -> "mpmath.mpf":
    """Lower end of an enclosure of ``x``, as an ``mpmath.mpf`` holding it exactly.

    No global precision is involved: interval ends are taken as they are, exact
    numbers are rounded down at 256 bits (dyadic numbers, floats included, are
    kept exactly).
    """
    return mpf_exact(_raw_bounds(x)[0])


@_c.constrained(x=_REAL)
def upper(x) -> "mpmath.mpf":
    """Upper end of an enclosure of ``x``, as an ``mpmath.mpf`` holding it exactly."""
    return mpf_exact(_raw_bounds(x)[1])


@_c.constrained(lhs=_REAL, rhs=_REAL)
def decide_enclosures(lhs, rhs) -> Verdict:
    """Decide ``lhs <= rhs`` from interval enclosures of both sides.

    Parameters
    ----------
    lhs, rhs : interval or real number
        Intervals known to contain the true values. A number is taken at its
        exact value (a float or an integer is a point).

    Returns
    -------
    Verdict
        HOLDS when every point of ``lhs`` is ``<=`` every point of ``rhs``
        (``upper(lhs) <= lower(rhs)``), FAILS when every point of ``lhs`` is
        above every point of ``rhs``, UNDECIDED when the enclosures overlap.
        Two equal point intervals HOLD (equality satisfies ``<=``); a true
        equality that is only known up to an enclosure of positive width is
        UNDECIDED, and so fails closed.
    """
    try:
        l_lo, l_hi = _raw_bounds(lhs)
    except ValueError:
        raise _c.parameter_error("lhs", "decide_enclosures", "a real number or an mpmath interval", lhs) from None
    try:
        r_lo, r_hi = _raw_bounds(rhs)
    except ValueError:
        raise _c.parameter_error("rhs", "decide_enclosures", "a real number or an mpmath interval", rhs) from None
    if libmp.mpf_le(l_hi, r_lo):
        return Verdict.HOLDS
    if libmp.mpf_gt(l_lo, r_hi):
        return Verdict.FAILS
    return Verdict.UNDECIDED


@_c.constrained(lhs=_SIDE, rhs=_SIDE, dps=_DPS)
def decide_leq_interval(lhs: Callable, rhs: Callable, dps: int = 30):
    """Decide ``lhs <= rhs`` with interval arithmetic at ``dps`` digits (certified).

    Parameters
    ----------
    lhs, rhs : callable
        Either one-argument functions ``ctx -> interval or number`` that
        compute with the interval context they are given (for example
        ``lambda iv: iv.log(iv.mpf(3))``), evaluated in a context created for
        this call; or zero-argument functions that compute with the global
        :data:`mpmath.iv` (legacy), evaluated under :func:`ivworkdps`.
    dps : int, default 30

    Returns
    -------
    verdict : Verdict
        See :func:`decide_enclosures`; HOLDS and FAILS are rigorous (the
        enclosures are guaranteed by outward rounding at any precision).
    lhs_value, rhs_value : interval
        The enclosures.
    """
    ctx = shared_context(dps, True)          # this thread's; the callables must not change its precision
    encs = []
    for fn in (lhs, rhs):
        if takes_context(fn, 0):
            encs.append(enclose(fn(ctx), ctx))
        else:
            # legacy zero-argument callables compute with the global mpmath.iv;
            # interval arithmetic keeps the enclosure rigorous at any precision
            with ivworkdps(dps):
                encs.append(enclose(fn(), ctx))
    return decide_enclosures(*encs), encs[0], encs[1]


@_c.constrained(lhs=_SIDE, rhs=_SIDE, dps=_DPS)
def decide_leq(lhs: Callable, rhs: Callable, dps: int = 30):
    """Decide ``lhs <= rhs`` at ``dps`` digits, confirmed at ``2 * dps + 10`` (estimated).

    Parameters
    ----------
    lhs, rhs : callable
        One-argument functions ``ctx -> number`` that compute with the mpmath
        context they are given (a context created for this call), or
        zero-argument functions computing with the global ``mpmath`` functions
        at "the current precision" (legacy; evaluated under ``mpmath.workdps``
        while holding :data:`refdp.utils.precision.GLOBAL_MPMATH_LOCK`). They must
        compute from exact inputs so that raising the precision refines the
        result.
    dps : int, default 30
        Working precision in decimal digits.

    Returns
    -------
    verdict : Verdict
        An estimate, not a proof: the agreement of two evaluations.
    lhs_value, rhs_value : mpmath.mpf
        Values at the higher precision.
    """
    hi = 2 * dps + 10

    def evaluate(fn, prec):
        if takes_context(fn, 0):
            v = fn(mp_context(prec))
        else:
            # legacy zero-argument callables compute "at the current precision"
            # with the global mpmath functions: the one reason to set it here
            with GLOBAL_MPMATH_LOCK, mpmath.workdps(prec):
                v = fn()
        if is_mpf(v):
            return mpf_exact(v._mpf_)
        q = exact_rational(v)
        if q is not None:
            return mp_context(prec + 10).mpf(q.numerator) / q.denominator
        if isinstance(v, float):  # non-finite float
            return mpmath.mpf(v)
        from ..utils.validation import parameter_error
        raise parameter_error("lhs/rhs", "decide_leq", "functions returning real numbers", v)

    l1, r1 = evaluate(lhs, dps), evaluate(rhs, dps)
    l2, r2 = evaluate(lhs, hi), evaluate(rhs, hi)
    ctx = mp_context(hi + 10)
    l1, r1, l2, r2 = (ctx.make_mpf(v._mpf_) for v in (l1, r1, l2, r2))
    if not (ctx.isfinite(l2) and ctx.isfinite(r2)):
        if l2 == r2:  # both infinite with the same sign: equality, so <= holds
            return Verdict.HOLDS, mpf_exact(l2._mpf_), mpf_exact(r2._mpf_)
        return (Verdict.HOLDS if l2 < r2 else Verdict.FAILS), mpf_exact(l2._mpf_), mpf_exact(r2._mpf_)
    err = abs(l2 - l1) + abs(r2 - r1) + ctx.mpf(10) ** (-dps) * (1 + abs(l2) + abs(r2))
    diff = r2 - l2
    out = (mpf_exact(l2._mpf_), mpf_exact(r2._mpf_))
    if diff > err:
        return (Verdict.HOLDS,) + out
    if diff < -err:
        return (Verdict.FAILS,) + out
    return (Verdict.UNDECIDED,) + out


@_c.constrained(verdicts=_c.Checked("an iterable of Verdict values or 'holds', 'fails', 'undecided' "
                                    "(checked by Verdict.parse)", invalid=(None, 1.5, ["maybe"])))
def worst_verdict(verdicts) -> Verdict:
    """Combine the verdicts of several claims that must all hold.

    FAILS if any fails, else UNDECIDED if any is undecided, else HOLDS (an
    empty collection HOLDS vacuously). Each item must be a :class:`Verdict`
    or its name (``"holds"``, ``"fails"``, ``"undecided"``); anything else
    (``None``, ``True``) is a ValueError rather than a silent HOLDS.
    """
    verdicts = [Verdict.parse(v) for v in _c.items_of(verdicts, "verdicts", "worst_verdict",
                                                        "an iterable of verdicts")]
    if any(v is Verdict.FAILS for v in verdicts):
        return Verdict.FAILS
    if any(v is Verdict.UNDECIDED for v in verdicts):
        return Verdict.UNDECIDED
    return Verdict.HOLDS
