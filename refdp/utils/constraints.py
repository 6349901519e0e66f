"""Parameter constraints declared as data, validated once at the public entry.

A public function of refdp states what each of its parameters may be with
:func:`constrained`::

    @constrained(
        epsilon=POSITIVE,
        sensitivity=POSITIVE,
        value=Array(ndim=(0, 1)),
        rng=RNG,
        secure=FLAG,
    )
    def laplace_mechanism(value, epsilon, *, sensitivity=1.0, rng=None, secure=True):
        ...

The decorator validates and converts every argument before the body runs (the
body receives floats, ints, NumPy arrays and Generators), raises the one
message shape of :mod:`refdp.utils.validation`, and keeps the declaration on
the function as ``__constraints__`` so that tests can generate invalid values
from it. Every parameter must be declared; a parameter that only the body can
check (a callable, a relation between several parameters) is declared
:class:`Checked` with the reason, so that the declaration is complete and a
reader sees where the check is. Internal calls that already hold validated
values call ``function.__wrapped__`` and skip the second validation.

The constraint objects are plain data: ``describe()`` gives the phrase used in
the error message, ``validate(value, name, owner)`` returns the converted
value or raises, and ``invalid_examples()`` lists values that must be refused.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .validation import (
    BOOL,
    DPS,
    POSITIVE,
    Interval,
    Options,
    check_array,
    check_flag,
    check_option,
    check_rng,
    check_scalar,
    parameter_error,
)

__all__ = [
    "constrained",
    "constraints_of",
    "Interval",
    "Options",
    "Array",
    "Flag",
    "Rng",
    "Optional",
    "InstanceOf",
    "AnyOf",
    "Checked",
    "SameLength",
    "POSITIVE",
    "PROBABILITY",
    "DELTA",
    "DPS",
    "FLAG",
    "RNG",
    "COUNT",
    "validate_with",
    "declared",
    "validate_declared",
    "Nullable",
]

# --- scalar constraints ---------------------------------------------------------------

# Interval and Options are defined in refdp.utils.validation (they predate this
# module); validate_with gives them the same protocol as the classes below.


def validate_with(constraint, value, name: str, owner: str):
    """Validate ``value`` against any constraint object and return the converted value."""
    if isinstance(constraint, Interval):
        return check_scalar(value, name, owner, constraint)
    if isinstance(constraint, Options):
        return check_option(value, name, owner, constraint)
    return constraint.validate(value, name, owner)


def invalid_examples_of(constraint) -> list:
    """Values that ``constraint`` must refuse (used by the generated tests)."""
    if isinstance(constraint, Interval):
        out = list(constraint.invalid_examples())
        out += ["1.0", None, True, [1.0], complex(1, 0)]
        if constraint.kind is int:
            lo = constraint.left if constraint.left is not None else 0
            out += [lo + 0.5]
        return out
    if isinstance(constraint, Options):
        return [_not_in(constraint.values), None if None not in constraint.values else object()]
    return list(constraint.invalid_examples())


def describe(constraint) -> str:
    return constraint.describe()


def _not_in(values):
    for candidate in ("no such option", -12345, math.nan):
        if candidate not in values:
            return candidate
    return object()


#: ε > 0 and other strictly positive reals.
PROBABILITY = Interval(float, 0, 1, closed="both")
#: δ of (ε, δ)-DP.
DELTA = Interval(float, 0, 1, closed="left")
#: a positive integer (a number of records, draws, teachers, ...).
COUNT = Interval(int, 1, None)


@dataclass(frozen=True)
class Flag:
    """``True`` or ``False`` (NumPy booleans accepted, ints refused)."""

    def describe(self) -> str:
        return BOOL.describe()

    def validate(self, value, name, owner):
        return check_flag(value, name, owner)

    def invalid_examples(self) -> list:
        return [1, 0, "True", None, math.nan]


FLAG = Flag()


@dataclass(frozen=True)
class Rng:
    """``None``, an int seed, a SeedSequence, a BitGenerator or a Generator."""

    def describe(self) -> str:
        return "None, an int, a SeedSequence, a BitGenerator or a Generator"

    def validate(self, value, name, owner):
        if isinstance(value, np.random.Generator):
            return value
        if isinstance(value, (bool, np.bool_, float, str, bytes)) or (
            isinstance(value, numbers.Integral) and value < 0
        ):
            raise parameter_error(name, owner, self.describe(), value)
        try:
            return check_rng(value)
        except ValueError:
            raise parameter_error(name, owner, self.describe(), value) from None

    def invalid_examples(self) -> list:
        return [-1, 1.5, "seed", True, object()]


RNG = Rng()


@dataclass(frozen=True)
class Array:
    """An array-like, converted with :func:`refdp.utils.validation.check_array`.

    Parameters are those of ``check_array``: admissible ``ndim``, target
    ``dtype`` (or ``"integer"``), ``finite``, ``min_size``, an element
    ``interval`` and a ``shape`` pattern (``None`` entries match any length).
    """

    ndim: int | tuple | None = None
    dtype: object = np.float64
    finite: bool = True
    min_size: int = 1
    interval: Interval | None = None
    shape: tuple | None = None

    def describe(self) -> str:
        what = "an array"
        if self.ndim is not None:
            dims = (self.ndim,) if isinstance(self.ndim, int) else tuple(self.ndim)
            what = "a " + " or ".join(f"{d}-dimensional" for d in dims) + " array"
        if self.interval is not None:
            what += " with every element" + self.interval.describe().split(" in", 1)[1].join([" in", ""])
        return what

    def validate(self, value, name, owner):
        if isinstance(value, (str, bytes)) or value is None:
            raise parameter_error(name, owner, self.describe(), value)
        return check_array(
            value, name, owner, ndim=self.ndim, dtype=self.dtype, finite=self.finite,
            min_size=self.min_size, interval=self.interval, shape=self.shape,
        )

    def invalid_examples(self) -> list:
        dims = None if self.ndim is None else ((self.ndim,) if isinstance(self.ndim, int) else tuple(self.ndim))
        out = ["abc", None]
        if self.min_size >= 1:
            out.append(np.zeros((0,) * max(1, min(dims) if dims else 1)))
        if dims is not None:
            bad_dim = max(dims) + 1
            out.append(np.zeros((1,) * bad_dim))
        base_dim = min(dims) if dims else 1
        if self.finite and self.dtype != "integer":
            out.append(np.full((1,) * base_dim, np.nan))
            out.append(np.full((1,) * base_dim, np.inf))
        if self.interval is not None:
            for v in self.interval.invalid_examples():
                if isinstance(v, float) and not math.isfinite(v):
                    continue
                out.append(np.full((1,) * base_dim, v))
        if self.dtype == "integer":
            out.append(np.full((1,) * base_dim, 0.5))
            out.append(np.full((1,) * base_dim, np.iinfo(np.uint64).max, dtype=np.uint64))
        return out


@dataclass(frozen=True)
class Optional:
    """``None`` or a value satisfying ``inner``."""

    inner: object

    def describe(self) -> str:
        return "None or " + describe(self.inner)

    def validate(self, value, name, owner):
        if value is None:
            return None
        try:
            return validate_with(self.inner, value, name, owner)
        except ValueError:
            raise parameter_error(name, owner, self.describe(), value) from None

    def invalid_examples(self) -> list:
        return [v for v in invalid_examples_of(self.inner) if v is not None]


@dataclass(frozen=True)
class Nullable:
    """``None`` or a value satisfying ``inner``, whose own message is kept on refusal.

    Unlike :class:`Optional` (one message for the union), a refused value gets
    the inner constraint's precise message (e.g. the position of a NaN in an
    array).
    """

    inner: object

    def describe(self) -> str:
        return "None or " + describe(self.inner)

    def validate(self, value, name, owner):
        if value is None:
            return None
        return validate_with(self.inner, value, name, owner)

    def invalid_examples(self) -> list:
        return [v for v in invalid_examples_of(self.inner) if v is not None]


@dataclass(frozen=True)
class InstanceOf:
    """An instance of one of ``types`` (described by ``what``)."""

    types: tuple
    what: str

    def describe(self) -> str:
        return self.what

    def validate(self, value, name, owner):
        if not isinstance(value, self.types):
            raise parameter_error(name, owner, self.what, value)
        return value

    def invalid_examples(self) -> list:
        return [v for v in ("abc", 1.5, None, object()) if not isinstance(v, self.types)]


@dataclass(frozen=True)
class AnyOf:
    """A value satisfying the first of ``options`` that accepts it."""

    options: tuple

    def describe(self) -> str:
        return " or ".join(describe(c) for c in self.options)

    def validate(self, value, name, owner):
        for c in self.options:
            try:
                return validate_with(c, value, name, owner)
            except (ValueError, TypeError):
                continue
        raise parameter_error(name, owner, self.describe(), value)

    def invalid_examples(self) -> list:
        out = []
        for c in self.options:
            for v in invalid_examples_of(c):
                if all(_refuses(o, v) for o in self.options):
                    out.append(v)
        return out


def _refuses(constraint, value) -> bool:
    try:
        validate_with(constraint, value, "x", "probe")
    except (ValueError, TypeError):
        return True
    return False


@dataclass(frozen=True)
class Checked:
    """Validated in the body (a callable, an estimator, a relation); ``why`` says how.

    The generated tests still pass it invalid values (``invalid``) and require the
    standard error.
    """

    why: str
    invalid: tuple = ()

    def describe(self) -> str:
        return self.why

    def validate(self, value, name, owner):
        return value

    def invalid_examples(self) -> list:
        return list(self.invalid)


@dataclass(frozen=True)
class SameLength:
    """A relation: the arrays ``names`` agree in length along axis 0."""

    names: tuple

    def check(self, arguments: dict, owner: str) -> None:
        first = self.names[0]
        n = _length(arguments[first])
        for other in self.names[1:]:
            value = arguments[other]
            if value is None or n is None:
                continue
            m = _length(value)
            if m is not None and m != n:
                raise parameter_error(
                    other, owner,
                    f"an array with as many rows as '{first}' ({n})",
                    value,
                )


def _length(value):
    shape = getattr(value, "shape", None)
    if shape is None or len(shape) == 0:
        return None
    return shape[0]


# --- the decorator ----------------------------------------------------------------------


def constrained(owner: str | None = None, relations: tuple = (), **constraints):
    """Declare the constraints of a public callable's parameters and enforce them.

    Parameters
    ----------
    owner : str, optional
        The name used in error messages; defaults to the function's name, or the
        class name for ``__init__``.
    relations : tuple of relation objects, optional
        Checked after every parameter is converted (e.g. :class:`SameLength`).
    **constraints
        One constraint per parameter of the function; every parameter must be
        declared.

    Returns
    -------
    callable
        A wrapper with ``__constraints__`` (a read-only mapping) and
        ``__wrapped__`` (the unchecked function, for internal calls).
    """

    def decorate(func):
        sig = inspect.signature(func)
        params = [
            p for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"
        ]
        names = [p.name for p in params]
        missing = [n for n in names if n not in constraints]
        extra = [n for n in constraints if n not in names]
        if missing or extra:
            raise TypeError(
                f"constraints of {func.__qualname__} must name every parameter: "
                f"missing {missing}, unknown {extra}"
            )
        who = owner
        if who is None:
            parts = func.__qualname__.split(".")
            who = parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else func.__name__
        frozen = MappingProxyType(dict(constraints))
        rels = tuple(relations)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{who}: {exc}") from None
            bound.apply_defaults()
            arguments = bound.arguments
            for name, constraint in frozen.items():
                arguments[name] = validate_with(constraint, arguments[name], name, who)
            for relation in rels:
                relation.check(arguments, who)
            return func(*bound.args, **bound.kwargs)

        wrapper.__constraints__ = frozen
        wrapper.__relations__ = rels
        wrapper.__owner__ = who
        return wrapper

    return decorate


def constraints_of(obj) -> MappingProxyType | None:
    """The declared constraints of a callable or class (``None`` if undeclared)."""
    if isinstance(obj, type):
        init = obj.__dict__.get("__init__")
        return getattr(init, "__constraints__", None)
    return getattr(obj, "__constraints__", None)


# --- estimators (scikit-learn protocol) ---------------------------------------------------


def declared(owner: str | None = None, relations: tuple = (), **constraints):
    """Declare the constraints of an estimator's ``__init__`` without enforcing them there.

    scikit-learn's protocol stores constructor arguments unchanged and
    validates them when they are used (``fit``), so ``__init__`` and
    ``set_params`` never raise. This decorator checks that every parameter is
    declared (as :func:`constrained` does) and attaches ``__constraints__``,
    ``__relations__`` and ``__owner__`` to the unchanged function; ``fit``
    then calls :func:`validate_declared` on ``get_params()``.
    """

    def decorate(func):
        checked = constrained(owner, relations, **constraints)(func)
        func.__constraints__ = checked.__constraints__
        func.__relations__ = checked.__relations__
        func.__owner__ = checked.__owner__
        return func

    return decorate


def validate_declared(func, arguments: dict, owner: str | None = None) -> dict:
    """Validate ``arguments`` (name -> value) against ``func``'s declaration; return them converted.

    ``owner`` overrides the name used in messages (e.g. ``"PrivateLogisticRegression.fit"``).
    """
    who = owner or func.__owner__
    out = dict(arguments)
    for name, constraint in func.__constraints__.items():
        if name in out:
            out[name] = validate_with(constraint, out[name], name, who)
    for relation in func.__relations__:
        relation.check(out, who)
    return out
