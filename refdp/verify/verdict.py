"""Three-valued, fail-closed verdicts for exact comparisons.

A claim such as ``divergence <= epsilon`` is decided by evaluating both sides
in mpmath twice, at ``dps`` and at ``2 * dps + 10`` decimal digits. The
difference between the two evaluations estimates the numerical error; the
claim *holds* when the higher-precision left side is below the bound by more
than that error (plus one unit in the last place of the working precision),
*fails* when it is above by more than that, and is *undecided* otherwise.
Every report treats *undecided* as a failure (fail closed).

The same three values are produced by interval arithmetic
(:func:`decide_leq_interval`, :func:`decide_enclosures`): both sides are
enclosed in :data:`mpmath.iv` intervals; the claim holds when the upper end of
the left side is at most the lower end of the right side, fails when the lower
end of the left side exceeds the upper end of the right side, and is undecided
when the enclosures overlap.
"""
from __future__ import annotations

import contextlib
import enum
import numbers
from typing import Callable

import mpmath

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


class Verdict(enum.Enum):
    """Outcome of an exact comparison."""

    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"

    @property
    def passed(self) -> bool:
        """Only HOLDS passes; UNDECIDED counts as a failure (fail closed)."""
        return self is Verdict.HOLDS

    def __str__(self) -> str:
        return self.value


def decide_leq(lhs: Callable[[], "mpmath.mpf"], rhs: Callable[[], "mpmath.mpf"], dps: int = 30):
    """Decide ``lhs() <= rhs()`` at ``dps`` digits, confirmed at higher precision.

    Parameters
    ----------
    lhs, rhs : callable
        Zero-argument functions evaluated under ``mpmath.workdps``; they must
        compute from exact inputs (integers, rationals, strings) so that raising
        the precision refines the result.
    dps : int, default 30
        Working precision in decimal digits.

    Returns
    -------
    verdict : Verdict
    lhs_value, rhs_value : mpmath.mpf
        Values at the higher precision.
    """
    with mpmath.workdps(dps):
        l1, r1 = lhs(), rhs()
    hi = 2 * dps + 10
    with mpmath.workdps(hi):
        l2, r2 = lhs(), rhs()
        if not (mpmath.isfinite(l2) and mpmath.isfinite(r2)):
            if l2 == r2:  # both infinite with the same sign: equality, so <= holds
                return Verdict.HOLDS, l2, r2
            return (Verdict.HOLDS if l2 < r2 else Verdict.FAILS), l2, r2
        err = abs(l2 - l1) + abs(r2 - r1) + mpmath.mpf(10) ** (-dps) * (1 + abs(l2) + abs(r2))
        diff = r2 - l2
        if diff > err:
            return Verdict.HOLDS, l2, r2
        if diff < -err:
            return Verdict.FAILS, l2, r2
        return Verdict.UNDECIDED, l2, r2


# ---------------------------------------------------------------------------
# Interval-arithmetic deciding (mpmath.iv)
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def ivworkdps(dps: int):
    """Set the precision of :data:`mpmath.iv` to ``dps`` digits, restored on exit.

    ``mpmath.iv`` has no ``workdps``; this is its counterpart (the precision is
    restored in a ``finally`` clause, so an exception cannot leak a change).
    """
    old = mpmath.iv.prec
    try:
        mpmath.iv.dps = dps
        yield
    finally:
        mpmath.iv.prec = old


def enclose(x) -> "mpmath.iv.mpf":
    """Enclose ``x`` in an :data:`mpmath.iv` interval at the current ``iv`` precision.

    Intervals are returned unchanged; integers, floats and ``mpmath.mpf``
    become point intervals (rounded outward if they do not fit the precision);
    rationals (``fractions.Fraction``) are divided in interval arithmetic.
    """
    if isinstance(x, mpmath.iv.mpf):
        return x
    if isinstance(x, numbers.Rational) and not isinstance(x, numbers.Integral):
        return mpmath.iv.mpf(int(x.numerator)) / mpmath.iv.mpf(int(x.denominator))
    if isinstance(x, numbers.Integral):
        return mpmath.iv.mpf(int(x))
    if isinstance(x, numbers.Real) and not isinstance(x, mpmath.mpf):
        return mpmath.iv.mpf(float(x))
    return mpmath.iv.mpf(x)


def lower(x) -> "mpmath.mpf":
    """Lower end of ``enclose(x)``, as an ``mpmath.mpf`` holding it exactly.

    The end point keeps all its bits whatever the current ``mpmath.mp``
    precision (no rounding on conversion), so comparisons stay rigorous.
    """
    return mpmath.mp.make_mpf(enclose(x)._mpi_[0])


def upper(x) -> "mpmath.mpf":
    """Upper end of ``enclose(x)``, as an ``mpmath.mpf`` holding it exactly."""
    return mpmath.mp.make_mpf(enclose(x)._mpi_[1])


def decide_enclosures(lhs, rhs) -> Verdict:
    """Decide ``lhs <= rhs`` from interval enclosures of both sides.

    Parameters
    ----------
    lhs, rhs : mpmath.iv.mpf or real number
        Intervals known to contain the true values. A number is enclosed with
        :func:`enclose` at the current ``mpmath.iv`` precision (a float or an
        integer is a point interval, e.g. an exactly represented bound such as
        a float epsilon).

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
    if upper(lhs) <= lower(rhs):
        return Verdict.HOLDS
    if lower(lhs) > upper(rhs):
        return Verdict.FAILS
    return Verdict.UNDECIDED


def decide_leq_interval(lhs: Callable[[], object], rhs: Callable[[], object], dps: int = 30):
    """Decide ``lhs() <= rhs()`` with interval arithmetic at ``dps`` digits.

    Parameters
    ----------
    lhs, rhs : callable
        Zero-argument functions that compute with :data:`mpmath.iv` (for
        example ``lambda: mpmath.iv.log(mpmath.iv.mpf(3))``) and return an
        ``mpmath.iv.mpf`` or a number (enclosed with :func:`enclose`). They
        are evaluated with ``mpmath.iv`` at ``dps`` digits.
    dps : int, default 30

    Returns
    -------
    verdict : Verdict
        See :func:`decide_enclosures`; unlike :func:`decide_leq`, HOLDS and
        FAILS are rigorous (the enclosures are guaranteed by outward rounding).
    lhs_value, rhs_value : mpmath.iv.mpf
        The enclosures.
    """
    with ivworkdps(dps):
        l_enc = enclose(lhs())
        r_enc = enclose(rhs())
    return decide_enclosures(l_enc, r_enc), l_enc, r_enc


def worst_verdict(verdicts) -> Verdict:
    """Combine the verdicts of several claims that must all hold.

    FAILS if any fails, else UNDECIDED if any is undecided, else HOLDS (an
    empty collection HOLDS vacuously).
    """
    verdicts = list(verdicts)
    if any(v is Verdict.FAILS for v in verdicts):
        return Verdict.FAILS
    if any(v is Verdict.UNDECIDED for v in verdicts):
        return Verdict.UNDECIDED
    return Verdict.HOLDS
