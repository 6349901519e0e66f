"""Declared constraints of the PATE entry points (counts, votes, gamma, orders).

Each kind follows the protocol of :mod:`refdp.utils.constraints`
(``describe``, ``validate(value, name, owner)``, ``invalid_examples``) and
delegates to the one check of :mod:`refdp.pate._args`, so that a correction
there applies to every declaration. A public function declares its
parameters with them, validates once at its entry and passes the converted
arrays to the other analyses through their ``__wrapped__`` bodies: the vote
counts of one call are derived once.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..utils.rounding import upward_quotient
from ..utils.constraints import InstanceOf, Nullable
from ..utils.validation import Described, Interval, check_array, parameter_error
from . import _args
from ..utils import votes

__all__ = ["Counts", "Gamma", "Orders", "Votes", "RowsSumTo", "COUNTS", "COUNT_ROWS", "COUNT_VECTOR_OR_ROWS",
           "GAMMA", "ORDERS", "VOTES", "CONTEXT", "GroupKeys", "NotAbove", "ClassCount", "MAX_CLASSES",
           "FINITE", "FINITE_PRIVACY"]


@dataclass(frozen=True)
class Counts:
    """Vote counts of LNMax queries (:func:`refdp.pate.votes.check_counts`).

    ``one_row`` accepts a single count vector of shape (C,); it is returned
    as shape (1, C) unless ``keep_shape``, for functions whose result has the
    shape of their input.
    """

    one_row: bool = True
    keep_shape: bool = False

    def describe(self) -> str:
        shapes = "(Q, C) or (C,)" if self.one_row else "(Q, C)"
        return f"an array of vote counts of shape {shapes} (non-negative ints, each row with a vote)"

    def validate(self, value, name, owner):
        if isinstance(value, (str, bytes)) or value is None:
            raise parameter_error(name, owner, self.describe(), value)
        arr = votes.check_counts(value, owner, name=name, one_row=self.one_row)
        if self.keep_shape and np.ndim(value) == 1:
            return arr[0]
        return arr

    def invalid_examples(self) -> list:
        out = ["abc", None, np.zeros((0, 2), dtype=np.int64), np.array([[-1, 3]]), np.array([[0, 0]]),
               np.array([[1.5, 2.0]]), np.array([[np.nan, 2.0]]), np.zeros((1, 1, 2), dtype=np.int64)]
        if not self.one_row:
            out.append(np.array([3, 1]))
        return out


@dataclass(frozen=True)
class Gamma:
    """LNMax's inverse Laplace scale (:func:`refdp.pate._args.check_gamma`)."""

    def describe(self) -> str:
        return _args.GAMMA.describe()

    def validate(self, value, name, owner):
        gamma = _args.check_gamma(value, owner)
        # for gamma >= 2**-1000, 1/gamma <= 2**1000 and its upward rounding is finite: no exact test needed
        if gamma < 2.0**-1000 and math.isinf(upward_quotient(1.0, gamma)):
            # the noise scale 1/gamma (and the discrete scale built from it) must be a finite double
            raise parameter_error("gamma", owner, "large enough that 1/gamma is a finite double", gamma)
        return gamma

    def invalid_examples(self) -> list:
        return list(_args.GAMMA.invalid_examples()) + ["0.5", None, True, 5e-324]


@dataclass(frozen=True)
class Orders:
    """Moment orders, None for the default (:func:`refdp.pate._args.check_orders`)."""

    def describe(self) -> str:
        return "None or a non-empty 1-dimensional array of floats in the range (0, inf)"

    def validate(self, value, name, owner):
        if isinstance(value, (str, bytes)):
            raise parameter_error(name, owner, self.describe(), value)
        return _args.check_orders(value, owner)

    def invalid_examples(self) -> list:
        return ["abc", np.zeros(0), np.array([0.0]), np.array([-1.0]), np.array([np.nan]), np.ones((1, 1))]


@dataclass(frozen=True)
class Votes:
    """A (teachers x queries) array of class indices; their range is checked while counting."""

    def describe(self) -> str:
        return "a 2-dimensional array of integers"

    def validate(self, value, name, owner):
        if isinstance(value, (str, bytes)) or value is None:
            raise parameter_error(name, owner, self.describe(), value)
        return check_array(value, name, owner, ndim=2, dtype="integer", min_size=1)

    def invalid_examples(self) -> list:
        return ["abc", None, np.zeros((0, 3), dtype=np.int64), np.array([[0.5]]), np.array([1, 2])]


@dataclass(frozen=True)
class RowsSumTo:
    """A relation: every row of ``counts`` sums to ``total`` when ``total`` is given."""

    counts: str = "counts"
    total: str = "n_teachers"

    def check(self, arguments: dict, owner: str) -> None:
        n = arguments[self.total]
        if n is None:
            return
        arr = np.atleast_2d(arguments[self.counts])
        totals = arr.sum(axis=1)
        bad = np.flatnonzero(totals != n)
        if bad.size:
            i = int(bad[0])
            raise parameter_error(self.counts, owner, f"an array whose rows each sum to '{self.total}' = {n}",
                                  Described(f"a row summing to {int(totals[i])} at position ({i},)"))


#: A finite non-negative number reported in a result (a scale, a log-moment, a bound).
FINITE = Interval(float, 0, None, closed="left")
#: A privacy parameter of a PATE result that is always finite (these results never
#: state "no guarantee"; refdp.utils.constraints.PRIVACY admits inf).
FINITE_PRIVACY = FINITE

COUNTS = Counts(one_row=False)
COUNT_ROWS = Counts(one_row=True)
COUNT_VECTOR_OR_ROWS = Counts(one_row=True, keep_shape=True)
GAMMA = Gamma()
ORDERS = Orders()
VOTES = Votes()


def _mpmath_contexts():
    from mpmath.ctx_iv import MPIntervalContext
    from mpmath.ctx_mp import MPContext

    return (MPContext, MPIntervalContext)


#: ``ctx=`` of the exact laws: None or an mpmath (real or interval) context.
CONTEXT = Nullable(InstanceOf(_mpmath_contexts(), "an mpmath context (real or interval)"))


@dataclass(frozen=True)
class GroupKeys:
    """One group key per record: a non-empty 1-D sequence (keys compared by their ``repr``)."""

    def describe(self) -> str:
        return "a non-empty 1-dimensional sequence of group keys, one per record"

    def validate(self, value, name, owner):
        if value is None or isinstance(value, (str, bytes)):
            raise parameter_error(name, owner, self.describe(), value)
        try:
            arr = np.asarray(value, dtype=object)
        except (TypeError, ValueError):
            raise parameter_error(name, owner, self.describe(), value) from None
        if arr.ndim != 1 or arr.size < 1:
            raise parameter_error(name, owner, self.describe(),
                                  Described(f"an array of shape {arr.shape}"))
        return arr

    def invalid_examples(self) -> list:
        return [None, "abc", 1.5, [], np.zeros((2, 2))]


#: Most classes an int declaration may state (``C`` means ``0..C-1``; larger counts
#: would allocate the label range and every vote histogram row).
MAX_CLASSES = 2**24


@dataclass(frozen=True)
class ClassCount:
    """Declared classes, bounded when given as a count (the rest is :func:`check_classes` in the body)."""

    def describe(self) -> str:
        return f"an int in the range [2, {MAX_CLASSES}] or a sequence of distinct labels such as (0, 1)"

    def validate(self, value, name, owner):
        if (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                and not 2 <= value <= MAX_CLASSES):
            raise parameter_error(name, owner, self.describe(), value)
        return value

    def invalid_examples(self) -> list:
        return [None, 1, (1, 1), "ab", MAX_CLASSES + 1, np.uint64(2**64 - 1)]


@dataclass(frozen=True)
class NotAbove:
    """A relation: the int ``small`` is at most the int ``large`` (e.g. teachers at most records)."""

    small: str
    large: str

    def check(self, arguments: dict, owner: str) -> None:
        a, b = arguments[self.small], arguments[self.large]
        if a > b:
            raise parameter_error(self.small, owner, f"an int in the range [1, {b}] (at most {self.large})", a)
