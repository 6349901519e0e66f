"""Generated fuzz test of the public API, driven by the declared constraints.

For every package in :data:`PACKAGES`, every public callable (each function
and class named in the package's ``__all__``, and the data-taking public
methods of those classes) must

1. declare its parameters with :func:`refdp.utils.constraints.constrained`
   (``__constraints__``; a class through its ``__init__``) and have a valid
   example in ``tests/_support/fuzz_examples/<package>.py``;
2. succeed on that example, returning no privacy parameter (an attribute or
   field named ``epsilon``, ``delta``, ``rho``, ...) that is NaN, infinite or
   negative;
3. refuse each value its declaration lists as invalid
   (:func:`refdp.utils.constraints.invalid_examples_of`) with a ValueError or
   TypeError naming the parameter, and for a fixed set of generic bad values
   (NaN, +-inf, 0, -1, huge, tiny, -0.0, wrong types, uint64 extremes, empty,
   0-d, wrong-shape, non-contiguous and read-only arrays) either succeed with a
   result obeying 2 or raise that standard error;
4. obey the same oracle on junk values drawn by hypothesis (deterministic
   profile) for a randomly chosen parameter.

Any other exception, a bad privacy parameter or a hang fails. A call that
hangs in compiled code without the GIL cannot be interrupted, so each call
runs under :func:`faulthandler.dump_traceback_later` with ``exit=True``: the
process writes the call and every thread's stack to :data:`HANG_LOG` and exits
(the test run fails loudly).

Each example module defines ``EXAMPLES``: qualified name -> zero-argument
factory returning ``(bound callable, dict of valid keyword arguments)``; the
keyword arguments name every parameter to perturb.
"""
from __future__ import annotations

import faulthandler
import importlib
import inspect
import math
import numbers
import os
import re
import tempfile
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from refdp.utils.constraints import constraints_of, invalid_examples_of

PACKAGES = ("refdp.mechanisms", "refdp.learning", "refdp.prediction", "refdp.accounting", "refdp.audit",
            "refdp.verify", "refdp.erm", "refdp.pate")

#: Public methods that take data and are therefore fuzzed like functions (any
#: other public method carrying ``__constraints__`` is fuzzed too).
DATA_METHODS = ("fit", "partial_fit", "predict", "predict_proba", "release", "answer", "query",
                "transform", "score", "sample")

#: Seconds before a single call is declared hung (the process then exits).
TIMEOUT = float(os.environ.get("REFDP_FUZZ_TIMEOUT", "20"))

_PRIVACY = re.compile(r"^_?(epsilon|delta|rho|eps)(_[a-z0-9_]*)?_?$")


# --- discovery -------------------------------------------------------------------------


def _public_methods(cls):
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(cls, name)
        if not inspect.isfunction(attr):
            continue
        if name in DATA_METHODS or hasattr(attr, "__constraints__"):
            yield name, attr


def _init_constraints(cls):
    """The declared constraints of ``cls``'s constructor, its own or inherited."""
    for klass in cls.__mro__:
        if klass is object:
            return MappingProxyType({})      # no constructor parameters: nothing to declare
        if "__init__" in klass.__dict__ or "__new__" in klass.__dict__:
            # a NamedTuple is built by its own __new__ (tuple's): declared only through constrained_fields
            return constraints_of(klass)
    return None


def discover(package):
    """Qualified name -> declared constraints (None if undeclared) of every public callable."""
    module = importlib.import_module(package)
    found = {}
    for name in module.__all__:
        obj = getattr(module, name)
        qual = f"{package}.{name}"
        if isinstance(obj, type):
            found[qual] = _init_constraints(obj)
            for meth, func in _public_methods(obj):
                found[f"{qual}.{meth}"] = getattr(func, "__constraints__", None)
        elif callable(obj):
            found[qual] = getattr(obj, "__constraints__", None)
    return found


def examples(package):
    short = package.rsplit(".", 1)[-1]
    try:
        mod = importlib.import_module(f"tests._support.fuzz_examples.{short}")
    except ModuleNotFoundError:
        return {}
    return mod.EXAMPLES


TARGETS = [(pkg, qual) for pkg in PACKAGES for qual in sorted(discover(pkg))]
_IDS = [qual for _, qual in TARGETS]

#: Public callables known to be undeclared, with the reason (strict: the test
#: fails as soon as one is declared, so that the entry is removed).
KNOWN_UNDECLARED: dict = {}


#: Defects of issue 17's list being fixed in parallel (not strict: they pass once fixed).
KNOWN_DEFECTS: dict = {}


def _defect_params():
    for pkg, qual in TARGETS:
        marks = ()
        if qual in KNOWN_DEFECTS:
            marks = pytest.mark.xfail(strict=False, reason=KNOWN_DEFECTS[qual])
        yield pytest.param(pkg, qual, id=qual, marks=marks)


def _declared_params():
    for pkg, qual in TARGETS:
        marks = ()
        if qual in KNOWN_UNDECLARED:
            marks = pytest.mark.xfail(strict=True, reason=KNOWN_UNDECLARED[qual])
        yield pytest.param(pkg, qual, id=qual, marks=marks)


# --- the oracle ------------------------------------------------------------------------


def _privacy_values(obj, depth=0):
    """Yield (name, value) for every privacy parameter reachable in ``obj``'s fields."""
    if depth > 2 or obj is None or isinstance(obj, (str, bytes, numbers.Number, np.ndarray)):
        return
    if isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
        for item in obj[:16]:
            yield from _privacy_values(item, depth + 1)
        return
    if isinstance(obj, dict):
        return
    names = set()
    if hasattr(obj, "_fields"):
        names.update(obj._fields)
    if hasattr(obj, "__dataclass_fields__"):
        names.update(obj.__dataclass_fields__)
    names.update(k for k in getattr(obj, "__dict__", {}) if isinstance(k, str))
    for name in sorted(names):
        if _PRIVACY.match(name):
            try:
                value = getattr(obj, name)
            except Exception:  # pragma: no cover - a property failing is reported by the call
                continue
            yield name, value
        elif hasattr(obj, "_fields") or hasattr(obj, "__dataclass_fields__"):
            try:
                yield from _privacy_values(getattr(obj, name), depth + 1)
            except AttributeError:
                continue


def check_privacy(result, where):
    for name, value in _privacy_values(result):
        if value is None or isinstance(value, (bool, str)):
            continue
        if isinstance(value, numbers.Real):
            v = float(value)
            assert math.isfinite(v) and v >= 0, f"{where}: privacy parameter {name} = {value!r}"


#: Where a hang is reported: the call being made, then every thread's stack
#: (pytest captures the standard error of a test, which the exit would lose).
HANG_LOG = os.environ.get("REFDP_FUZZ_HANG_LOG", os.path.join(tempfile.gettempdir(),
                                                              f"refdp-fuzz-hang-{os.getpid()}.txt"))
_hang_log = None


def call(func, kwargs, where="example"):
    """Call ``func(**kwargs)`` under the hang watchdog."""
    global _hang_log
    if _hang_log is None:
        _hang_log = open(HANG_LOG, "w")
    _hang_log.seek(0)
    _hang_log.truncate()
    _hang_log.write(f"calling (hung for {TIMEOUT} s if a traceback follows): {where}\n")
    _hang_log.flush()
    faulthandler.dump_traceback_later(TIMEOUT, exit=True, file=_hang_log)
    try:
        return func(**kwargs)
    finally:
        faulthandler.cancel_dump_traceback_later()


def oracle(qual, factory, name, value, *, must_refuse):
    """Run one perturbed call; return "ok" or "refused", fail on anything else."""
    func, kwargs = factory()
    kwargs = dict(kwargs)
    kwargs[name] = value
    where = f"{qual}({name}={_show(value)})"
    try:
        result = call(func, kwargs, where)
    except (ValueError, TypeError) as exc:
        assert f"'{name}'" in str(exc), f"{where} raised {type(exc).__name__} not naming '{name}': {exc}"
        return "refused"
    except Exception as exc:  # noqa: BLE001 - any other exception is the failure reported
        pytest.fail(f"{where} raised {type(exc).__name__}: {exc}")
    assert not must_refuse, f"{where} accepted a value its declaration lists as invalid"
    check_privacy(result, where)
    if hasattr(func, "__self__"):
        check_privacy(func.__self__, where)
    return "ok"


def _show(value):
    if isinstance(value, np.ndarray):
        flags = "" if value.flags.c_contiguous else " non-contiguous"
        flags += "" if value.flags.writeable else " read-only"
        return f"array{value.shape} {value.dtype}{flags}"
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


# --- generic bad values ----------------------------------------------------------------

_U64 = np.iinfo(np.uint64).max
GENERIC_SCALARS = (math.nan, math.inf, -math.inf, 0, 0.0, -1, -1.0, 1e308, 5e-324, -0.0, "1", None,
                   True, object(), np.uint64(_U64), np.uint64(2**63), np.int64(-2**63), 2**64, [])


def generic_values(valid):
    """Generic perturbations of a valid argument (arrays get shape and layout variants)."""
    out = list(GENERIC_SCALARS)
    if isinstance(valid, (list, tuple, np.ndarray)) and not isinstance(valid, str):
        try:
            arr = np.asarray(valid)
        except Exception:  # pragma: no cover - ragged example
            return out
        if arr.dtype.kind in "biuf" and arr.ndim >= 1:
            out.append(np.empty((0,) + arr.shape[1:], dtype=arr.dtype))
            out.append(np.asarray(arr.ravel()[0]))                        # 0-d
            out.append(arr[..., np.newaxis])                              # one axis too many
            out.append(arr.ravel()[:1] if arr.ndim > 1 else arr[np.newaxis])
            twice = np.repeat(arr, 2, axis=0)[::2]                        # same values, non-contiguous
            out.append(twice)
            ro = arr.copy()
            ro.flags.writeable = False
            out.append(ro)
            if arr.dtype.kind == "f":
                for bad in (np.nan, np.inf, -np.inf, 1e308):
                    b = arr.copy()
                    b.flat[0] = bad
                    out.append(b)
            out.append(np.full_like(arr, _U64, dtype=np.uint64))
            shifted = arr.astype(np.float64) + 1000                     # out-of-range labels/values
            out.append(shifted)
            out.append(-arr.astype(np.float64) - 1)
            out.append(arr.astype(object))
    return out


# --- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("package,qual", list(_declared_params()))
def test_declared_and_exampled(package, qual):
    constraints = discover(package)[qual]
    assert constraints is not None, f"{qual} declares no constraints (refdp.utils.constraints.constrained)"
    assert qual in examples(package), f"{qual} has no example in tests/_support/fuzz_examples"


def _target(package, qual):
    constraints = discover(package)[qual]
    factory = examples(package).get(qual)
    if constraints is None or factory is None:
        pytest.skip("undeclared or without example (reported by test_declared_and_exampled)")
    return constraints, factory


@pytest.mark.parametrize("package,qual", TARGETS, ids=_IDS)
def test_valid_example(package, qual):
    constraints, factory = _target(package, qual)
    func, kwargs = factory()
    assert set(kwargs) <= set(constraints), f"example names undeclared parameters {set(kwargs) - set(constraints)}"
    result = call(func, kwargs, qual)
    check_privacy(result, qual)
    if hasattr(func, "__self__"):
        check_privacy(func.__self__, qual)


@pytest.mark.parametrize("package,qual", list(_defect_params()))
def test_invalid_values(package, qual):
    constraints, factory = _target(package, qual)
    _, kwargs = factory()
    counts = {"ok": 0, "refused": 0}
    for name in kwargs:
        constraint = constraints[name]
        for value in invalid_examples_of(constraint):
            counts[oracle(qual, factory, name, value, must_refuse=True)] += 1
        for value in generic_values(kwargs[name]):
            counts[oracle(qual, factory, name, value, must_refuse=False)] += 1
    assert counts["refused"] > 0 or not kwargs


def junk():
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    ints = st.one_of(st.integers(-2**64, 2**64), st.sampled_from([0, 1, -1, 2**63, 2**53 + 1]))
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
    arrays = st.one_of(
        hnp.arrays(np.float64, shapes, elements=floats),
        hnp.arrays(st.sampled_from([np.int64, np.uint64, np.int8, np.bool_]), shapes),
    )
    return st.one_of(floats, ints, arrays, st.none(), st.booleans(), st.text(max_size=4),
                     st.lists(floats, max_size=3))


@pytest.mark.parametrize("package,qual", TARGETS, ids=_IDS)
def test_hypothesis_junk(package, qual):
    constraints, factory = _target(package, qual)
    _, kwargs = factory()
    if not kwargs:
        pytest.skip("no parameters")
    names = sorted(kwargs)

    @settings(derandomize=True, max_examples=12, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(names), value=junk())
    def run(name, value):
        oracle(qual, factory, name, value, must_refuse=False)

    run()
