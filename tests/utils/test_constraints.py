"""The constraint framework (refdp.utils.constraints): every kind describes itself,
accepts and converts valid values, refuses its own invalid examples with the
standard message, and the decorator enforces a complete declaration."""
import math

import numpy as np
import pytest

from refdp.utils.constraints import (
    CONTEXT, COUNT, DELTA, DIGITS, FLAG, POSITIVE, PROBABILITY, RNG, SIZE, AnyOf, Array, Checked,
    Converted, Enclosure, InstanceOf, Interval, Nullable, Optional, Options, SameLength, Size, StrictInt,
    constrained, constraints_of, describe, invalid_examples_of, validate_with,
)
from refdp.utils.validation import check_scalar


def _even(value, name, owner):
    value = check_scalar(value, name, owner, Interval(int, 0, None))
    if value % 2:
        raise ValueError(f"The '{name}' parameter of {owner} must be an even int. Got {value!r} instead.")
    return value

KINDS = {
    "positive": (POSITIVE, 0.5, 0.5),
    "probability": (PROBABILITY, 1, 1.0),
    "delta": (DELTA, 0, 0.0),
    "count": (COUNT, np.int64(3), 3),
    "int-interval": (Interval(int, -2, 2, closed="neither"), 1.0, 1),
    "options": (Options(("replace", "add_remove")), "replace", "replace"),
    "flag": (FLAG, np.bool_(True), True),
    "optional": (Optional(POSITIVE), None, None),
    "instance": (InstanceOf((str,), "a string"), "abc", "abc"),
    "anyof": (AnyOf((Options(("auto",)), POSITIVE)), 2, 2.0),
    "checked": (Checked("a callable, checked in the body", invalid=(None,)), len, len),
    "array": (Array(ndim=1, interval=Interval(float, 0, 1)), [0.0, 1.0], np.array([0.0, 1.0])),
    "int-array": (Array(ndim=2, dtype="integer"), [[1, 2]], np.array([[1, 2]])),
    "uint64-array": (Array(ndim=1, dtype="integer"), np.array([2**63 - 1], dtype=np.uint64),
                     np.array([2**63 - 1])),
    "converted": (Converted(_even, "an even int", invalid=(3, -2, "4", None)), 4.0, 4),
    "size": (SIZE, [2, 3], (2, 3)),
    "bounded-size": (Size(max_elements=10), 10, (10,)),
    "strict-int": (StrictInt(Interval(int, 1, None)), np.int32(5), 5),
    "nullable": (Nullable(Array(ndim=1)), None, None),
    "nullable-array": (Nullable(Array(ndim=1)), [1, 2], np.array([1.0, 2.0])),
    "enclosure": (Enclosure(Interval(float, 0, 1)), [0, 0.5], (0.0, 0.5)),
    "digits": (DIGITS, 30, 30),
    "context": (CONTEXT, None, None),
}


def test_nullable_keeps_the_inner_message():
    with pytest.raises(ValueError, match=r"must be an array of finite numbers\. Got nan at position \(1,\)"):
        Nullable(Array(ndim=1)).validate([0.0, math.nan], "p", "owner")
    with pytest.raises(ValueError, match=r"must be None or a 1-dimensional array\. Got"):
        Optional(Array(ndim=1)).validate([0.0, math.nan], "p", "owner")


def test_uint64_counts_above_int64_refused():
    with pytest.raises(ValueError, match=r"'c' parameter of f must be .* int64 range .* Got 18446744073709551615"):
        Array(ndim=1, dtype="integer").validate(np.array([5, 2**64 - 1], dtype=np.uint64), "c", "f")


def test_interval_examples_are_all_refused_even_with_infinite_bound():
    closed_inf = Interval(float, 0, math.inf, closed="right")
    assert math.inf not in invalid_examples_of(closed_inf)
    assert check_scalar(math.inf, "s", "f", closed_inf) == math.inf


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_describe_validate_refuse(kind):
    constraint, valid, converted = KINDS[kind]
    text = describe(constraint) if not isinstance(constraint, (Interval, Options)) else constraint.describe()
    assert isinstance(text, str) and text
    got = validate_with(constraint, valid, "p", "owner")
    if kind == "context":
        import mpmath
        assert validate_with(constraint, mpmath.iv, "p", "owner") is mpmath.iv
    if isinstance(converted, np.ndarray):
        np.testing.assert_array_equal(got, converted)
        assert isinstance(got, np.ndarray)
    else:
        assert got == converted and type(got) is type(converted)
    bad = invalid_examples_of(constraint)
    assert bad, f"{kind} lists no invalid example"
    if isinstance(constraint, Checked):
        return  # refused by the body that declares it (the fuzz test calls it)
    for value in bad:
        with pytest.raises(ValueError, match=r"The 'p' parameter of owner must be .*\. Got .* instead\."):
            validate_with(constraint, value, "p", "owner")
            pytest.fail(f"{kind} accepted its invalid example {value!r}")


def test_rng_converts_and_shares_generators():
    g = np.random.default_rng(3)
    assert RNG.validate(g, "rng", "f") is g
    assert isinstance(RNG.validate(7, "rng", "f"), np.random.Generator)
    assert isinstance(RNG.validate(None, "rng", "f"), np.random.Generator)
    for bad in RNG.invalid_examples():
        with pytest.raises(ValueError, match="'rng' parameter of f"):
            RNG.validate(bad, "rng", "f")


def test_same_length_relation():
    rel = SameLength(("X", "y"))
    rel.check({"X": np.zeros((3, 2)), "y": np.zeros(3)}, "f")
    with pytest.raises(ValueError, match=r"The 'y' parameter of f must be an array with as many rows as 'X' \(3\)"):
        rel.check({"X": np.zeros((3, 2)), "y": np.zeros(2)}, "f")


@constrained(x=POSITIVE, n=COUNT, flag=FLAG)
def _f(x, n=1, *, flag=False):
    return x, n, flag


def test_decorator_validates_converts_and_keeps_declaration():
    assert _f(1, np.int64(2), flag=np.bool_(True)) == (1.0, 2, True)
    assert set(_f.__constraints__) == {"x", "n", "flag"}
    assert constraints_of(_f) is _f.__constraints__
    with pytest.raises(ValueError, match=r"The 'x' parameter of _f must be a float in the range \(0, inf\)\. Got nan"):
        _f(math.nan)
    with pytest.raises(ValueError, match="'n' parameter of _f"):
        _f(1.0, 0)
    with pytest.raises(TypeError, match="_f"):
        _f(1.0, nope=1)
    with pytest.raises(TypeError):
        _f.__constraints__["x"] = FLAG


def test_wrapped_skips_validation():
    assert _f.__wrapped__(-1, 0, flag="no") == (-1, 0, "no")


def test_decorator_refuses_undeclared_and_unknown_parameters():
    with pytest.raises(TypeError, match=r"missing \['b'\]"):
        @constrained(a=POSITIVE)
        def g(a, b):
            return a
    with pytest.raises(TypeError, match=r"unknown \['c'\]"):
        @constrained(a=POSITIVE, c=POSITIVE)
        def h(a):
            return a


def test_class_owner_and_constraints_of_class():
    class K:
        @constrained(epsilon=POSITIVE)
        def __init__(self, epsilon):
            self.epsilon = epsilon

    assert constraints_of(K)["epsilon"] is POSITIVE
    with pytest.raises(ValueError, match="'epsilon' parameter of K"):
        K(-1.0)


def test_fast_binding_binds_as_the_signature_does():
    import inspect

    from refdp.utils.constraints import _fast_binder

    def g(a, b=2, *, c, d=None):
        return a, b, c, d

    sig = inspect.signature(g)
    bind = _fast_binder(sig)
    calls = [((1,), {"c": 3}), ((1, 5), {"c": 3, "d": 4}), ((), {"a": 1, "c": 3}), ((1,), {"b": 7, "c": 0}),
             ((1, 2, 3), {"c": 3}), ((1,), {}), ((1,), {"a": 1, "c": 3}), ((1,), {"c": 3, "e": 0}),
             ((), {"c": 3})]
    for args, kwargs in calls:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            assert bind(args, kwargs) is None            # the wrapper then raises through sig.bind
            continue
        bound.apply_defaults()
        got = bind(args, kwargs)
        assert got == dict(bound.arguments) and list(got) == list(bound.arguments)
        assert g(**got) == g(*bound.args, **bound.kwargs)
    # positional-only parameters and *args/**kwargs keep the signature's own binding
    assert _fast_binder(inspect.signature(lambda a, /, b: 0)) is None
    assert _fast_binder(inspect.signature(lambda *a, b=0: 0)) is None
    assert _fast_binder(inspect.signature(lambda a, **k: 0)) is None


def test_decorated_calls_with_every_argument_shape():
    class K:
        @constrained(x=POSITIVE, n=COUNT, flag=FLAG)
        def m(self, x, n=1, *, flag=False):
            return x, n, flag

    k = K()
    assert k.m(1, 2, flag=True) == (1.0, 2, True)
    assert k.m(x=2) == (2.0, 1, False)
    assert K.m(k, 3, n=4) == (3.0, 4, False)
    with pytest.raises(TypeError, match="m: missing a required argument: 'x'"):
        k.m()
    with pytest.raises(TypeError, match="m: multiple values for argument 'x'"):
        k.m(1, x=1)
    with pytest.raises(TypeError, match="m: too many positional arguments"):
        k.m(1, 2, 3)
    with pytest.raises(ValueError, match="'n' parameter of m"):
        k.m(1.0, n=-1)
