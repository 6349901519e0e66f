"""Declared constraints of the private ERM entry points (data, losses, classes, budgets).

The constraint kinds of :mod:`refdp.utils.constraints` cover scalars, flags and
plain arrays; the ERM releases also take objects whose validity is specific to
Chaudhuri, Monteleoni and Sarwate's data assumption (rows in the unit ball,
labels +-1, Section 2.1) and to their Algorithm 2 (a budget computed for the
data size and ``Lambda``). Each kind below follows the same protocol
(``describe``, ``validate(value, name, owner)``, ``invalid_examples``) so that
``@constrained`` validates it once at the public entry and the generated tests
draw invalid values from it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..utils.constraints import FLAG, Nullable, Options
from ..utils.validation import Described, Interval, check_array, parameter_error
from ._data import check_classes, rows_above
from ..utils.validation import POSITIVE

__all__ = ["Loss", "Classes", "UnitBallRows", "SignedLabels", "LOSS", "BINARY_CLASSES",
           "UNIT_BALL_ROWS", "SIGNED_LABELS", "REPORTED_POSITIVE", "REPORTED_NONNEGATIVE", "REPORTED_COUNT",
           "PRIVACY_KIND"]

# --- fields of the result classes (validated when a result is built) ---------------------

#: A budget, rate, scale or regularization reported in a result: finite and positive
#: (a release never states an infinite or a zero epsilon).
REPORTED_POSITIVE = POSITIVE
#: A finite non-negative reported number (Delta, a tolerance, a floor).
REPORTED_NONNEGATIVE = Interval(float, 0, None, closed="left")
#: A number of records or of features.
REPORTED_COUNT = Interval(int, 1, None)
#: The kind of guarantee of a release.
PRIVACY_KIND = Options(("pure", "zcdp"))


@dataclass(frozen=True)
class Loss:
    """A :class:`refdp.erm.MarginLoss` with declared constants in range (:func:`check_loss`)."""

    def describe(self) -> str:
        return "a MarginLoss instance (e.g. LogisticLoss() or HuberHingeLoss(h))"

    def validate(self, value, name, owner):
        from ..utils.losses import check_loss

        return check_loss(value, owner)

    def invalid_examples(self) -> list:
        return ["logistic", 1.0, None, object()]


@dataclass(frozen=True)
class Classes:
    """Declared labels (:func:`refdp.erm._data.check_classes`); converted to a 1-D array."""

    binary: bool = True

    def describe(self) -> str:
        return ("a sequence of exactly two distinct labels such as (0, 1) or (-1, 1)" if self.binary
                else "an int >= 2 or a sequence of distinct labels such as (0, 1)")

    def validate(self, value, name, owner):
        return check_classes(value, owner, binary=self.binary)

    def invalid_examples(self) -> list:
        out = [None, "ab", (1, 1), (0.0, float("nan")), 1]
        if self.binary:
            out.append((0, 1, 2))
        return out


@dataclass(frozen=True)
class UnitBallRows:
    """Feature rows already mapped into the unit ball: ``||z_i|| <= 1`` in exact arithmetic.

    The release functions take the rows the public entry points produce
    (:func:`refdp.erm._data.unit_ball_rows`). A row is accepted only if its
    exact Euclidean norm is at most 1 (:func:`refdp.erm._data.rows_above`
    decides the rows near the sphere exactly), so a row whose float norm
    rounds down to 1 while the exact norm exceeds it is refused: the decision
    always keeps the sensitivity bound the privacy proof uses.
    """

    def describe(self) -> str:
        return "a 2-dimensional array of finite rows with Euclidean norm at most 1"

    def validate(self, value, name, owner):
        if isinstance(value, (str, bytes)) or value is None or hasattr(value, "tocsr"):
            raise parameter_error(name, owner, self.describe(), value)
        Z = check_array(value, name, owner, ndim=2, min_size=1)
        if Z.shape[1] < 1:
            raise parameter_error(name, owner, "an array with at least one column", Z)
        above = rows_above(Z, 1.0)
        if above.size:
            i = int(above[0])
            norm = float(np.linalg.norm(Z[i]))
            note = " (above 1 in exact arithmetic)" if norm <= 1.0 else ""
            raise parameter_error(
                name, owner, "an array of rows with Euclidean norm at most 1 (rows already mapped into "
                "the unit ball; the public entry points map them with norm_bound and clip)",
                Described(f"a row of norm {norm!r}{note} at position {i}"))
        return np.ascontiguousarray(Z)

    def invalid_examples(self) -> list:
        just_above = np.array([[np.nextafter(1.0, 2.0)]])
        rounds_to_one = np.array([[0.6, 0.8000000000000002]])   # float norm 1.0, exact norm above 1
        return ["abc", None, np.zeros((0, 2)), np.zeros(3), np.array([[134.0, 0.0]]), just_above,
                rounds_to_one, np.array([[np.nan, 0.0]]), np.array([[np.inf]])]


@dataclass(frozen=True)
class SignedLabels:
    """Labels already mapped to ``-1.0`` and ``+1.0``: a non-empty 1-D float array."""

    def describe(self) -> str:
        return "a 1-dimensional array of labels in {-1.0, +1.0}"

    def validate(self, value, name, owner):
        if isinstance(value, (str, bytes)) or value is None:
            raise parameter_error(name, owner, self.describe(), value)
        ys = check_array(value, name, owner, ndim=1, min_size=1)
        bad = np.flatnonzero(np.abs(ys) != 1.0)
        if bad.size:
            i = int(bad[0])
            raise parameter_error(name, owner, self.describe(),
                                  Described(f"{ys[i].item()!r} at position ({i},)"))
        return np.ascontiguousarray(ys)

    def invalid_examples(self) -> list:
        return ["abc", None, np.zeros(0), np.array([0.0]), np.array([2.0]), np.array([np.nan]),
                np.array([[1.0]])]


LOSS = Loss()
BINARY_CLASSES = Classes(binary=True)
UNIT_BALL_ROWS = UnitBallRows()
SIGNED_LABELS = SignedLabels()
