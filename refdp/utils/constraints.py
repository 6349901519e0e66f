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

import enum
import functools
import inspect
import math
import numbers
import sys
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .validation import (
    BOOL,
    Described,
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
    "Converted",
    "Size",
    "SIZE",
    "CONTEXT",
    "DIGITS",
    "Enclosure",
    "StrictInt",
    "Nullable",
    "constrained_fields",
    "constrained_with",
    "Ordered",
    "PRIVACY",
    "PRIVACY_OR_INF",
    "PROBABILITY_RESULT",
    "Reported",
    "Callable",
    "MAX_SAMPLES",
    "MAX_DPS",
    "items_of",
    "declared",
    "validate_declared",
]

# --- scalar constraints ---------------------------------------------------------------

# Interval and Options are defined in refdp.utils.validation (they predate this
# module); validate_with gives them the same protocol as the classes below.


def validate_with(constraint, value, name: str, owner: str):
    """Validate ``value`` against any constraint object and return the converted value."""
    if isinstance(constraint, Interval):
        return check_scalar(value, name, owner, constraint)
    if isinstance(constraint, Options):
        try:
            return check_option(value, name, owner, constraint)
        except (TypeError, ValueError) as exc:
            # an array (or any value whose comparison is not a bool) is no option
            if isinstance(exc, ValueError) and str(exc).startswith("The '"):
                raise
            raise parameter_error(name, owner, constraint.describe(), value) from None
    return constraint.validate(value, name, owner)


def invalid_examples_of(constraint) -> list:
    """Values that ``constraint`` must refuse (used by the generated tests)."""
    if isinstance(constraint, Interval):
        # an infinite bound's "bound + 1" is the bound itself: keep only refused values
        out = [v for v in constraint.invalid_examples() if not constraint.contains(v)]
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
        arr = check_array(
            value, name, owner, ndim=self.ndim, dtype=self.dtype, finite=self.finite,
            min_size=self.min_size, interval=self.interval, shape=self.shape,
        )
        if arr.dtype.kind == "u" and arr.dtype.itemsize >= 8:
            # Unsigned 64-bit counts at or above 2**63 would wrap to negative
            # once the body computes in int64: refused here, smaller ones kept exact.
            if arr.size and int(arr.max()) > np.iinfo(np.int64).max:
                raise parameter_error(
                    name, owner, self.describe() + " of integers below 2**63",
                    Described(f"{int(arr.max())} at position "
                              f"{tuple(int(i) for i in np.unravel_index(int(np.argmax(arr)), arr.shape))}"),
                )
            arr = arr.astype(np.int64)
        return arr

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


@dataclass(frozen=True)
class Converted:
    """Validated and converted by ``convert(value, name, owner)`` (a shared checker).

    For parameters whose check already exists as a function with the standard
    message (exact rationals, feature matrices, label vectors): the declaration
    names it, the decorator runs it once, the body receives what it returns.
    ``invalid`` lists values it must refuse (used by the generated tests).
    """

    convert: object
    what: str
    invalid: tuple = ()

    def describe(self) -> str:
        return self.what

    def validate(self, value, name, owner):
        return self.convert(value, name, owner)

    def invalid_examples(self) -> list:
        return list(self.invalid)


@dataclass(frozen=True)
class Size:
    """A NumPy-style ``size``: None, a non-negative int or a tuple of them (converted to a tuple).

    ``max_elements`` bounds the product of the shape (``None``: unbounded).
    """

    max_elements: int | None = None

    def describe(self) -> str:
        out = "None, a non-negative int or a tuple of non-negative ints"
        if self.max_elements is not None:
            out += f" with at most {self.max_elements} elements in all"
        return out

    def validate(self, value, name, owner):
        ok = (lambda s: isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_)) and s >= 0)
        if value is None:
            return None
        if ok(value):
            shape = (int(value),)
        elif isinstance(value, (tuple, list)) and all(ok(s) for s in value):
            shape = tuple(int(s) for s in value)
        else:
            raise parameter_error(name, owner, self.describe(), value)
        if self.max_elements is not None and math.prod(shape) > self.max_elements:
            raise parameter_error(name, owner, self.describe(),
                                  Described(f"{value!r} ({math.prod(shape)} elements)"))
        return shape

    def invalid_examples(self) -> list:
        out = [-1, 1.5, "3", (2, -1), True]
        if self.max_elements is not None:
            out.append((self.max_elements + 1,))
        return out


SIZE = Size()


@dataclass(frozen=True)
class StrictInt:
    """An integer type (Python or NumPy, not bool) in ``interval``; integral floats refused.

    For counts whose type is part of the contract (a number of records).
    """

    interval: Interval

    def describe(self) -> str:
        return self.interval.describe()

    def validate(self, value, name, owner):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise parameter_error(name, owner, self.describe(), value)
        return check_scalar(value, name, owner, self.interval)

    def invalid_examples(self) -> list:
        return invalid_examples_of(self.interval) + [float(self.interval.left or 0) + 1.0]


@dataclass(frozen=True)
class Enclosure:
    """A pair ``(lower, upper)`` of floats with ``lower <= upper``, both in ``interval``."""

    interval: Interval

    def describe(self) -> str:
        return "a pair (lower, upper) of floats, lower <= upper, each" + self.interval.describe().split(" in", 1)[1].join([" in", ""])

    def validate(self, value, name, owner):
        try:
            lo, hi = value
        except (TypeError, ValueError):
            raise parameter_error(name, owner, self.describe(), value) from None
        pair = []
        for v in (lo, hi):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not self.interval.contains(float(v)):
                raise parameter_error(name, owner, self.describe(), value)
            pair.append(float(v))
        if pair[0] > pair[1]:
            raise parameter_error(name, owner, self.describe(), value)
        return tuple(pair)

    def invalid_examples(self) -> list:
        return [math.nan, (math.nan, 0.5), (0.5, 0.25), (-1.0, 0.5), "ab", None, (0.1,)]


def _mpmath_contexts():
    from mpmath.ctx_iv import MPIntervalContext
    from mpmath.ctx_mp import MPContext

    return (MPContext, MPIntervalContext)


#: mpmath digits of an exact computation (``dps=``): bounded so that a huge
#: value is refused rather than attempted.
DIGITS = Interval(int, 1, 10**4)

#: ``ctx=`` of the exact-law functions: None or an mpmath (interval) context.
CONTEXT = Optional(InstanceOf(_mpmath_contexts(), "an mpmath context (real or interval)"))


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
    return constrained_with(constraints, owner=owner, relations=relations)


def constrained_with(constraints: dict, owner: str | None = None, relations: tuple = ()):
    """:func:`constrained` with the declarations given as a dict.

    For a function with a parameter called ``owner`` or ``relations``, which
    cannot be passed to :func:`constrained` as keywords.
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

        if not rels and all(isinstance(c, Checked) for c in frozen.values()):
            # everything is checked by the body: no binding, no cost on hot paths
            @functools.wraps(func)
            def passthrough(*args, **kwargs):
                return func(*args, **kwargs)

            passthrough.__constraints__ = frozen
            passthrough.__relations__ = rels
            passthrough.__owner__ = who
            return passthrough

        bind = _fast_binder(sig)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if bind is not None:
                arguments = bind(args, kwargs)
                if arguments is not None:
                    # every parameter is named and plain: the same call as through sig.bind
                    for name, constraint in frozen.items():
                        arguments[name] = validate_with(constraint, arguments[name], name, who)
                    for relation in rels:
                        relation.check(arguments, who)
                    return func(**arguments)
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


_EMPTY = inspect.Parameter.empty


def _fast_binder(sig):
    """A binder equivalent to ``sig.bind`` + ``apply_defaults`` for plain signatures, or ``None``.

    For a signature whose parameters are all positional-or-keyword or
    keyword-only (no ``/``, ``*args`` or ``**kwargs``), returns ``bind(args,
    kwargs)`` giving the dict of every parameter's value, in the signature's
    order, or ``None`` when the call does not bind (too many positional
    arguments, an unknown, repeated or missing argument): the caller then goes
    through ``sig.bind`` for its standard ``TypeError``. A call binds exactly
    when ``sig.bind`` would, to the same values.
    """
    params = list(sig.parameters.values())
    if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params):
        return None
    names = tuple(p.name for p in params)
    positional = tuple(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
    n_pos = len(positional)
    defaults = tuple((p.name, p.default) for p in params)
    known = frozenset(names)

    def bind(args, kwargs):
        n = len(args)
        if n > n_pos:
            return None
        given = dict(zip(positional, args))
        for key in kwargs:
            if key in given or key not in known:
                return None
        given.update(kwargs)
        out = {}
        for name, default in defaults:
            if name in given:
                out[name] = given[name]
            elif default is _EMPTY:
                return None
            else:
                out[name] = default
        return out

    return bind


def constraints_of(obj) -> MappingProxyType | None:
    """The declared constraints of a callable or class (``None`` if undeclared).

    For a class: those of its ``__init__``, or of its ``__new__`` (a NamedTuple
    declared with :func:`constrained_fields`); an Enum is called with one of its
    members' values, which declare it (its ``_missing_`` gives the standard message).
    """
    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        return MappingProxyType({"value": Options(tuple(member.value for member in obj))})
    if isinstance(obj, type):
        init = obj.__dict__.get("__init__")
        found = getattr(init, "__constraints__", None)
        if found is None:
            new = obj.__dict__.get("__new__")
            found = getattr(getattr(new, "__func__", new), "__constraints__", None)
        return found
    return getattr(obj, "__constraints__", None)


# --- declared fields of result and parameter classes ------------------------------------

@dataclass(frozen=True)
class Reported:
    """A number reported in a result, in ``[left, right]``, kept as given.

    Accepts Python, NumPy and mpmath reals (converted to float only to be
    compared, never replaced), so that a result keeps its exact values. NaN,
    values outside the range and non-numbers are refused. An infinite value is
    refused unless ``infinite`` says what it means (e.g. ``"no guarantee"``):
    a result is infinite only where the exact value is, never by overflow.
    """

    left: float = 0.0
    right: float = math.inf
    infinite: str | None = None

    @property
    def upper(self) -> float:
        """The largest value accepted (``right``, or the largest float when inf is refused)."""
        if math.isinf(self.right) and self.infinite is None:
            return sys.float_info.max
        return self.right

    def describe(self) -> str:
        if not math.isinf(self.right):
            return f"a number in the range [{_show_bound(self.left)}, {_show_bound(self.right)}]"
        if self.infinite is None:
            return f"a finite number in the range [{_show_bound(self.left)}, inf)"
        return f"a number in the range [{_show_bound(self.left)}, inf] (inf: {self.infinite})"

    def validate(self, value, name, owner):
        if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
            raise parameter_error(name, owner, self.describe(), value)
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            raise parameter_error(name, owner, self.describe(), value) from None
        if not self.left <= x <= self.upper:
            raise parameter_error(name, owner, self.describe(), value)
        return value

    def invalid_examples(self) -> list:
        out = [math.nan, self.left - 1.0, None, "1"]
        if not math.isinf(self.right):
            out.append(self.right + 1.0)
        elif self.infinite is None:
            out.append(math.inf)
        return out


def _show_bound(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


#: A privacy parameter reported in a result (epsilon, rho, a Renyi divergence):
#: a finite number in [0, inf) (NaN, negative and overflowing values are never a
#: guarantee).
PRIVACY = Reported(0.0, math.inf)
#: A privacy parameter that is infinite exactly when the result gives no
#: guarantee (e.g. advanced composition with delta' = 0); the result's docstring says when.
PRIVACY_OR_INF = Reported(0.0, math.inf, infinite="no guarantee")
#: A probability reported in a result (delta, a confidence level, ...).
PROBABILITY_RESULT = Reported(0.0, 1.0)


def _fast_ok(constraint, value) -> bool:
    """True when ``value`` already satisfies ``constraint`` and needs no conversion."""
    if type(value) is not float:
        return False
    if isinstance(constraint, Reported):
        return constraint.left <= value <= constraint.upper
    if isinstance(constraint, Interval):
        return constraint.kind is float and constraint.contains(value)
    return False


def constrained_fields(owner: str | None = None, relations: tuple = (), unchecked: str | None = None,
                       **constraints):
    """Declare and enforce the constraints of a dataclass's or NamedTuple's fields at construction.

    The class decorator counterpart of :func:`constrained` for result and
    parameter classes: every field given to the constructor is declared
    (fields left out are declared :class:`Checked` with the reason
    ``unchecked`` when it is given, and refused otherwise), the declared
    fields are validated and converted when the object is built (a dataclass
    through ``__post_init__``, running before any ``__post_init__`` of the
    class; a NamedTuple through ``__new__``), and the declaration is kept as
    ``__constraints__`` on the constructor so that :func:`constraints_of`
    finds it.

    A float already inside its interval is accepted with one comparison, so
    building results in loops costs next to nothing.

    Parameters
    ----------
    owner : str, optional
        Name used in error messages; defaults to the class name.
    relations : tuple of relation objects, optional
        Checked after the fields are converted; they receive the fields as a dict.
    unchecked : str, optional
        Reason recorded for the fields not named in ``constraints``.
    **constraints
        One constraint per field.
    """

    def decorate(cls):
        import dataclasses

        who = owner or cls.__name__
        if dataclasses.is_dataclass(cls):
            names = [f.name for f in dataclasses.fields(cls) if f.init]
        elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
            names = list(cls._fields)
        else:
            raise TypeError(f"constrained_fields applies to dataclasses and NamedTuples, not {cls!r}")
        declared = dict(constraints)
        extra = [n for n in declared if n not in names]
        missing = [n for n in names if n not in declared]
        if extra or (missing and unchecked is None):
            raise TypeError(
                f"constraints of {cls.__qualname__} must name every field: "
                f"missing {missing}, unknown {extra}"
            )
        for n in missing:
            declared[n] = Checked(unchecked)
        frozen = MappingProxyType({n: declared[n] for n in names})
        active = tuple((n, c) for n, c in frozen.items() if not isinstance(c, Checked))
        rels = tuple(relations)

        def checked_values(values: dict) -> dict:
            changed = {}
            for name, constraint in active:
                value = values[name]
                if _fast_ok(constraint, value):
                    continue
                new = validate_with(constraint, value, name, who)
                if new is not value:
                    changed[name] = new
            if rels:
                merged = {**values, **changed}
                for relation in rels:
                    relation.check(merged, who)
            return changed

        if dataclasses.is_dataclass(cls):
            original = cls.__dict__.get("__post_init__")

            def __post_init__(self, *args):
                values = {name: getattr(self, name) for name, _ in active}
                if rels:
                    values = {name: getattr(self, name) for name in names}
                for name, value in checked_values(values).items():
                    object.__setattr__(self, name, value)
                if original is not None:
                    original(self, *args)

            cls.__post_init__ = __post_init__
            if original is None:
                # the dataclass machinery calls __post_init__ only if it existed when
                # __init__ was generated: wrap __init__ instead
                init = cls.__init__

                @functools.wraps(init)
                def __init__(self, *args, **kwargs):
                    init(self, *args, **kwargs)
                    __post_init__(self)

                cls.__init__ = __init__
            target = cls.__init__
        else:
            base_new = cls.__new__

            positions = tuple((names.index(n), c) for n, c in active)

            ranges = tuple((i, c.left, c.upper) for i, c in positions if isinstance(c, Reported))
            quick = not rels and len(ranges) == len(positions)

            def __new__(klass, *args, **kwargs):
                obj = base_new(klass, *args, **kwargs)
                if quick:
                    for i, lo, hi in ranges:
                        v = obj[i]
                        if type(v) is not float or not lo <= v <= hi:
                            break
                    else:
                        return obj
                changed = checked_values(obj._asdict())
                if changed:
                    obj = base_new(klass, **{**obj._asdict(), **changed})
                return obj

            __new__.__doc__ = base_new.__doc__
            cls.__new__ = __new__
            target = __new__
        target.__constraints__ = frozen
        target.__relations__ = rels
        target.__owner__ = who
        return cls

    return decorate


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


@dataclass(frozen=True)
class Ordered:
    """A relation: the scalars ``names`` are in non-decreasing order (``None`` skipped)."""

    names: tuple

    def check(self, arguments: dict, owner: str) -> None:
        values = [(n, arguments[n]) for n in self.names if arguments[n] is not None]
        for (a, va), (b, vb) in zip(values, values[1:]):
            if not va <= vb:
                raise parameter_error(b, owner, f"at least '{a}' ({va!r})", vb)


@dataclass(frozen=True)
class Callable:
    """A callable (a mechanism, a law, a rule), described by ``what``; called only by the body."""

    what: str = "a callable"

    def describe(self) -> str:
        return self.what

    def validate(self, value, name, owner):
        if not callable(value):
            raise parameter_error(name, owner, self.what, value)
        return value

    def invalid_examples(self) -> list:
        return [None, 1.5, "abc", object()]


#: A number of samples: a positive int at most 2**53, so that every count and
#: frequency computed from it is exact in floating point.
MAX_SAMPLES = 2 ** 53

#: Largest working precision (decimal digits) a public function accepts: enough
#: for every check of refdp (which use at most a few hundred), small enough that
#: a mistyped precision is refused instead of computed for hours.
MAX_DPS = 5000


def items_of(value, name: str, owner: str, what: str, kind=None, length=None) -> list:
    """``list(value)`` for a body that takes a sequence, with the standard error otherwise.

    Refuses strings, bytes, mappings, 0-d arrays and non-iterables, items that
    are not instances of ``kind`` (when given) and a length other than
    ``length`` (when given); ``what`` describes the expected value.
    """
    from collections.abc import Mapping

    if isinstance(value, (str, bytes, Mapping)) or (isinstance(value, np.ndarray) and value.ndim == 0):
        raise parameter_error(name, owner, what, value)
    try:
        out = list(value)
    except TypeError:
        raise parameter_error(name, owner, what, value) from None
    if kind is not None and not all(isinstance(v, kind) for v in out):
        raise parameter_error(name, owner, what, value)
    if length is not None and len(out) != length:
        raise parameter_error(name, owner, f"{what} ({length} of them)", value)
    return out


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
