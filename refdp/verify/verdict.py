"""Three-valued, fail-closed verdicts for exact comparisons.

A claim such as ``divergence <= epsilon`` is decided by evaluating both sides
in mpmath twice, at ``dps`` and at ``2 * dps + 10`` decimal digits. The
difference between the two evaluations estimates the numerical error; the
claim *holds* when the higher-precision left side is below the bound by more
than that error (plus one unit in the last place of the working precision),
*fails* when it is above by more than that, and is *undecided* otherwise.
Every report treats *undecided* as a failure (fail closed).
"""
from __future__ import annotations

import enum
from typing import Callable

import mpmath

__all__ = ["Verdict", "decide_leq"]


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
