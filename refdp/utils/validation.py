"""Parameter validation: constraints declared as data, one message shape.

Every public function of refdp validates its arguments through this module, so
every failure reads the same way::

    The 'epsilon' parameter of laplace_mechanism must be a float in the range
    (0, inf). Got -1.0 instead.

Constraints are objects (:class:`Interval`, :class:`Options`) so that tests can
generate invalid values from them automatically.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = [
    "Interval",
    "Options",
    "check_scalar",
    "check_option",
    "check_array",
    "check_rng",
    "parameter_error",
    "Described",
    "POSITIVE",
    "BOOL",
    "DPS",
    "check_flag",
    "check_size",
]


def parameter_error(name: str, owner: str, expected: str, got) -> ValueError:
    """Build the one ValueError message shape used throughout refdp."""
    return ValueError(
        f"The '{name}' parameter of {owner} must be {expected}. Got {_show(got)} instead."
    )


class Described(str):
    """A pre-formatted description of the received value (printed as is)."""


def _show(got) -> str:
    if isinstance(got, Described):
        return str(got)
    if isinstance(got, np.ndarray):
        return f"an array of shape {got.shape} and dtype {got.dtype}"
    if isinstance(got, str):
        return repr(got)
    if isinstance(got, (np.floating, np.integer)):
        return repr(got.item())
    return repr(got)


@dataclass(frozen=True)
class Interval:
    """A real or integer interval, e.g. ``Interval(float, 0, None, closed="neither")``.

    Parameters
    ----------
    kind : {float, int}
        ``int`` admits only integral values (Python or NumPy integers).
    left, right : float or None
        Bounds; ``None`` means unbounded on that side.
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the interval.
    """

    kind: type
    left: float | None
    right: float | None
    closed: str = "both"

    def contains(self, v: float) -> bool:
        if isinstance(v, float) and math.isnan(v):     # (math.isnan fails on ints beyond the double range)
            return False
        if self.left is not None:
            if v < self.left or (v == self.left and self.closed in ("right", "neither")):
                return False
        elif v == -math.inf:
            return False
        if self.right is not None:
            if v > self.right or (v == self.right and self.closed in ("left", "neither")):
                return False
        elif v == math.inf:
            return False
        return True

    def describe(self) -> str:
        lb = "[" if self.closed in ("both", "left") and self.left is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.right is not None else ")"
        lo = "-inf" if self.left is None else _num(self.left)
        hi = "inf" if self.right is None else _num(self.right)
        what = "an int" if self.kind is int else "a float"
        return f"{what} in the range {lb}{lo}, {hi}{rb}"

    def invalid_examples(self) -> list:
        """Values that must be rejected (used by the tests)."""
        out = [math.nan]
        if self.left is not None:
            out.append(self.left - 1)
            if self.closed in ("right", "neither"):
                out.append(self.left)
        else:
            out.append(-math.inf)
        if self.right is not None:
            out.append(self.right + 1)
            if self.closed in ("left", "neither"):
                out.append(self.right)
        else:
            out.append(math.inf)
        return out


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


@dataclass(frozen=True)
class Options:
    """A finite set of admissible values (e.g. neighbour relations)."""

    values: tuple

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


_EXACT_IN_DOUBLE = (float, np.float64, np.float32, np.float16)


def _held_exactly(value, rounded: float) -> bool:
    """Whether the real ``value`` equals the double ``rounded`` exactly (compared as rationals)."""
    if not math.isfinite(rounded):           # an infinity, or a finite value beyond the double range
        return bool(rounded == value)
    if isinstance(value, numbers.Integral):
        return int(value) == int(rounded)
    ratio = getattr(value, "as_integer_ratio", None)
    return Fraction(*ratio()) == Fraction(rounded) if ratio is not None else bool(rounded == value)


_PLAIN_FLOATS = frozenset(_EXACT_IN_DOUBLE)           # as exact types, for a set of entry types
_PLAIN_NUMBERS = _PLAIN_FLOATS | {int}


def _check_held_exactly(value, arr, name, owner):
    """Refuse entries of ``value`` that are not real numbers (strings) or that its float conversion
    ``arr`` rounded (long doubles, Fractions, big ints).

    A list or tuple is read entry by entry, as given: converting it first would
    let NumPy pick one dtype for all its entries, so ``[np.uint64(2**64 - 1),
    1.0]`` or ``[2**53 + 1, 0.5]`` would arrive as rounded doubles and
    ``["1.0", 2]`` as numbers.
    """
    types = None
    if isinstance(value, np.ndarray):
        src = value
    elif isinstance(value, (list, tuple)):
        if arr.ndim == 1:
            types = set(map(type, value))
            if types <= _PLAIN_FLOATS or (types <= _PLAIN_NUMBERS and not np.any(np.abs(arr) >= 2.0 ** 53)):
                return                       # floats of at most double precision, ints a double holds
        try:
            src = np.asarray(value, dtype=object)
        except (TypeError, ValueError):
            return
        if src.shape != arr.shape:
            return
    elif isinstance(value, (numbers.Number, np.generic, str, bytes)) and not isinstance(value, float):
        src = np.asarray(value)              # a scalar: a long double, Fraction, big int or string
    else:
        return
    if src.dtype.kind in "USa":
        raise parameter_error(name, owner, "an array of real numbers", Described(f"{src.dtype} entries"))
    if src.dtype in (np.float64, np.float32, np.float16) or src.dtype.kind not in "fiuO" or src.shape != arr.shape:
        return
    flat, conv = src.ravel(), arr.ravel()
    if src.dtype.kind in "iu":
        suspects = np.flatnonzero(np.abs(conv) >= 2.0 ** 53)
    elif src.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            suspects = np.flatnonzero(~(conv.astype(src.dtype) == flat) & ~np.isnan(flat))
    else:
        if types is None:
            types = set(map(type, flat))
        if types <= _PLAIN_FLOATS:
            return
        # entries of a plain float type, or of an integer type with a value a double holds, need no
        # look; the rest are read one by one
        codes = {t: i for i, t in enumerate(types)}
        of_type = np.fromiter(map(codes.__getitem__, map(type, flat)), dtype=np.intp, count=flat.size)
        plain = np.zeros(flat.size, dtype=bool)
        small = None
        for t, i in codes.items():
            if t in _PLAIN_FLOATS:
                plain |= of_type == i
            elif issubclass(t, (int, np.integer)) and not issubclass(t, (bool, np.bool_)):
                if small is None:
                    with np.errstate(invalid="ignore"):
                        small = np.abs(conv) < 2.0 ** 53
                plain |= (of_type == i) & small
        suspects = np.flatnonzero(~plain)
    for i in suspects:
        v = flat[i]
        if isinstance(v, (str, bytes)):
            pos = tuple(int(p) for p in np.unravel_index(int(i), src.shape))
            raise parameter_error(name, owner, "an array of real numbers", Described(f"{v!r} at position {pos}"))
        if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_)):
            continue
        r = float(conv[i])
        if not isinstance(v, _EXACT_IN_DOUBLE) and not math.isnan(r) and not _held_exactly(v, r):
            pos = tuple(int(p) for p in np.unravel_index(int(i), src.shape))
            raise parameter_error(name, owner, "an array of values exactly representable as doubles (pass "
                                  "float64 values to accept the nearest doubles)",
                                  Described(f"{v!r} at position {pos}, nearest double {r!r}"))


def check_scalar(value, name: str, owner: str, interval: Interval):
    """Validate a scalar against an :class:`Interval` and return it as float or int.

    Raises
    ------
    ValueError
        If ``value`` is not a real number (booleans excluded), is not integral
        when ``interval.kind is int``, is NaN or infinite where the interval
        excludes it, or lies outside the interval.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise parameter_error(name, owner, interval.describe(), value)
    if interval.kind is int:
        if not isinstance(value, numbers.Integral):
            if not (isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()):
                raise parameter_error(name, owner, interval.describe(), value)
        value = int(value)
    else:
        try:
            rounded = float(value)
        except OverflowError:                 # an int or Fraction beyond the double range
            raise parameter_error(name, owner, interval.describe(), value) from None
        if not isinstance(value, _EXACT_IN_DOUBLE) and not math.isnan(rounded) and not _held_exactly(value, rounded):
            # a Fraction, long double or large int that a double does not hold: rounding it could
            # move a privacy parameter to the unsafe side (a larger epsilon, a larger delta)
            raise parameter_error(name, owner, f"{interval.describe()}, exactly representable as a "
                                  f"double (pass float(...) to accept the nearest double, {rounded!r})", value)
        value = rounded
    if not interval.contains(value):
        raise parameter_error(name, owner, interval.describe(), value)
    return value


def check_option(value, name: str, owner: str, options: Options):
    """Validate that ``value`` is one of ``options.values``."""
    if value not in options.values:
        raise parameter_error(name, owner, options.describe(), value)
    return value


def check_array(
    value,
    name: str,
    owner: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    dtype=np.float64,
    finite: bool = True,
    min_size: int = 0,
    interval: Interval | None = None,
    shape: tuple | None = None,
):
    """Convert ``value`` to a NumPy array and validate it.

    Parameters
    ----------
    ndim : int or tuple of int, optional
        Admissible numbers of dimensions.
    dtype : numpy dtype or "integer", optional
        Target dtype; ``"integer"`` keeps any integer dtype and rejects others.
    finite : bool
        Reject NaN and infinities (float arrays only).
    min_size : int
        Minimum number of elements (``1`` rejects empty data).
    interval : Interval, optional
        Every element must lie in it.
    shape : tuple, optional
        Required shape; ``None`` entries match any length.
    """
    try:
        if dtype == "integer":
            arr = _integer_array(np.asarray(value), name, owner)
        else:
            arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith("The '"):
            raise
        raise parameter_error(name, owner, f"array-like convertible to {dtype}", value) from None
    if dtype != "integer" and arr.dtype.kind == "f":
        _check_held_exactly(value, arr, name, owner)
    if ndim is not None:
        dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in dims:
            what = " or ".join(f"{d}-dimensional" for d in dims)
            raise parameter_error(name, owner, f"a {what} array", arr)
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise parameter_error(name, owner, f"an array of shape {want}", arr)
    if arr.size < min_size:
        raise parameter_error(name, owner, f"an array with at least {min_size} element(s)", arr)
    if finite and arr.dtype.kind == "f" and arr.size and not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise parameter_error(
            name, owner, "an array of finite numbers",
            Described(f"{float(arr[bad])} at position {bad}"),
        )
    if interval is not None and arr.size:
        flat = arr.ravel()
        ok = np.ones(flat.shape, dtype=bool)
        if interval.left is not None:
            ok &= flat >= interval.left if interval.closed in ("both", "left") else flat > interval.left
        if interval.right is not None:
            ok &= flat <= interval.right if interval.closed in ("both", "right") else flat < interval.right
        if not ok.all():
            i = int(np.argmin(ok))
            pos = tuple(int(p) for p in np.unravel_index(i, arr.shape))
            raise parameter_error(
                name, owner,
                "an array with every element" + interval.describe().split(" in", 1)[1].join([" in", ""]),
                Described(f"{flat[i].item()!r} at position {pos}"),
            )
    return arr


_INT64_MAX = 2**63 - 1


def _integer_array(arr, name: str, owner: str):
    """An integer array whose every element is exact in int64 (``check_array(dtype="integer")``).

    Signed and narrow unsigned integer arrays are kept as they are; uint64
    arrays and float arrays of integral values (``-0.0`` included) are
    converted to int64. A value that int64 cannot hold (a uint64 of at least
    ``2**63``, a float outside ``[-2**63, 2**63)``) is the standard
    ValueError, never wrapped.
    """
    kind = arr.dtype.kind
    if kind == "i":
        return arr
    expected = "an array of integers in the int64 range [-2**63, 2**63 - 1]"
    if kind == "u":
        if arr.dtype.itemsize < 8:
            return arr
        if arr.size and int(arr.max()) > _INT64_MAX:
            i = int(np.argmax(arr.ravel() > _INT64_MAX))
            pos = tuple(int(p) for p in np.unravel_index(i, arr.shape))
            raise parameter_error(name, owner, expected, Described(f"{arr.ravel()[i].item()!r} at position {pos}"))
        return arr.astype(np.int64)
    if kind == "f":
        if arr.size == 0:
            return arr.astype(np.int64)
        if np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            flat = arr.ravel()
            # the int64 range is [-2**63, 2**63): both ends are exact in every float format
            bad = (flat < -(2.0**63)) | (flat >= 2.0**63)
            if bad.any():
                i = int(np.argmax(bad))
                pos = tuple(int(p) for p in np.unravel_index(i, arr.shape))
                raise parameter_error(name, owner, expected, Described(f"{flat[i].item()!r} at position {pos}"))
            return arr.astype(np.int64)
    raise parameter_error(name, owner, "an array of integers", arr)


def check_rng(rng):
    """Normalise ``rng`` with :func:`numpy.random.default_rng`.

    Accepts None, an int, a SeedSequence, a BitGenerator or a Generator
    (returned unchanged, so streams are shared, never re-seeded).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise parameter_error(
            "rng", "default_rng",
            "None, an int, a SeedSequence, a BitGenerator or a Generator", rng,
        ) from None


# Constraints shared by every package (declared once, as data).

POSITIVE = Interval(float, 0, None, closed="neither")
BOOL = Options((False, True))
DPS = Interval(int, 1, None)


def check_flag(value, name: str, owner: str) -> bool:
    """Validate a boolean option (``True``/``False``, NumPy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise parameter_error(name, owner, BOOL.describe(), value)
    return bool(check_option(bool(value), name, owner, BOOL))


def check_size(size, owner: str) -> tuple | None:
    """Validate a NumPy-style ``size``: None, a non-negative int or a tuple of them."""
    if size is None:
        return None
    expected = "None, a non-negative int or a tuple of non-negative ints"

    def ok(s):
        return isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_)) and s >= 0

    if ok(size):
        return (int(size),)
    if isinstance(size, (tuple, list)) and all(ok(s) for s in size):
        return tuple(int(s) for s in size)
    raise parameter_error("size", owner, expected, size)
