"""Drawing outputs from a black-box mechanism and checking what comes back.

A batch of outputs becomes a :class:`Sample`: a float matrix ``real`` (one row
per output; integers and booleans converted exactly, ``None`` for outputs that
are not numbers) and a 64-bit ``key`` per row that identifies the output
exactly (equal outputs, equal keys; outputs that are equal values, such as
``-0.0`` and ``0.0`` or ``numpy.int64(3)`` and ``3``, share a key:
:mod:`refdp.audit.canonical`). Keys are a hash; two different outputs
may in principle share one, which only merges them into one outcome: every
event the audit builds is defined through these keys, so it remains an event
and the bounds stay valid.
"""
from __future__ import annotations

import hashlib
import inspect

import numpy as np

from ..utils.constraints import Callable, constrained
from ..utils.validation import Described, parameter_error
from .canonical import canonical_output

__all__ = ["Sample", "vectorise", "draw", "same_dataset", "describe_dataset", "hash_rows"]

# odd multipliers of a multiplicative row hash (fixed, so keys are reproducible)
_MULTIPLIERS = np.random.default_rng(0x5EED).integers(1, 2**63, size=4096, dtype=np.uint64) | np.uint64(1)


class Sample:
    """Outputs of one batch: numeric rows (or None) and exact row keys.

    For numeric outputs the keys are computed on first use only: counting
    outputs in a threshold event never hashes them, which keeps the held-out
    stage of an audit at the speed of the mechanism itself.
    """

    __slots__ = ("real", "_key", "raw")

    def __init__(self, real, key=None, raw=None):
        self.real = real
        self._key = key
        self.raw = raw  # non-numeric outputs only, kept to describe events

    @property
    def key(self) -> np.ndarray:
        """A 64-bit key per output; equal outputs (``-0.0`` and ``0.0`` included) have equal keys."""
        if self._key is None:
            self._key = hash_rows(self.real + 0.0)  # + 0.0 maps -0.0 to 0.0
        return self._key

    def __len__(self):
        return len(self.real) if self.real is not None else len(self._key)

    def output(self, i):
        """The i-th output as a plain Python value (for reports)."""
        if self.raw is not None:
            return self.raw[i]
        row = self.real[i]
        return row[0].item() if row.shape[0] == 1 else row.tolist()

    def take(self, index) -> "Sample":
        """The outputs at ``index`` (a slice or an integer array)."""
        if self.real is not None:
            return Sample(self.real[index], None if self._key is None else self._key[index])
        raw = [self.raw[i] for i in np.arange(len(self._key))[index]]
        return Sample(None, self._key[index], raw)

    @staticmethod
    def concat(parts) -> "Sample":
        parts = list(parts)
        if len(parts) == 1:
            return parts[0]
        if parts[0].real is not None:
            real = np.concatenate([p.real for p in parts])
            key = (np.concatenate([p._key for p in parts])
                   if all(p._key is not None for p in parts) else None)
            return Sample(real, key)
        key = np.concatenate([p.key for p in parts])
        raw = [x for p in parts for x in p.raw]
        return Sample(None, key, raw)


def hash_rows(matrix: np.ndarray) -> np.ndarray:
    """A 64-bit key per row of a 2-D array of 8-byte numbers (exact bit patterns)."""
    bits = np.ascontiguousarray(matrix).view(np.uint64).reshape(matrix.shape[0], -1)
    d = bits.shape[1]
    mult = _MULTIPLIERS[np.arange(d) % len(_MULTIPLIERS)]
    with np.errstate(over="ignore"):
        h = np.zeros(bits.shape[0], dtype=np.uint64)
        for j in range(d):
            x = bits[:, j] ^ (bits[:, j] >> np.uint64(29))
            h = (h ^ (x * mult[j])) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(31)
    return h


def _stable_key(obj) -> int:
    digest = hashlib.blake2b(repr(obj).encode("utf-8", "backslashreplace"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


@constrained(mechanism=Callable("a callable (dataset, rng) -> output"))
def vectorise(mechanism):
    """Turn a per-call mechanism ``(dataset, rng) -> output`` into the batch form.

    The returned callable ``(dataset, n_samples, rng)`` calls ``mechanism``
    ``n_samples`` times with the same ``rng`` and returns the outputs as an
    array when they are numbers (or arrays of numbers) of one shape, and as
    a list otherwise (strings, tuples, ...). Attributes of the
    mechanism (e.g. ``audit_pairs``) are carried over.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, rng)`` returns one output.

    Returns
    -------
    callable
    """

    def batch(dataset, n_samples, rng):
        outs = [mechanism(dataset, rng) for _ in range(n_samples)]
        try:
            arr = np.asarray(outs)
        except (ValueError, TypeError):
            return outs
        return arr if arr.dtype.kind in "biuf" else outs  # numbers stacked, anything else as given

    for name, value in getattr(mechanism, "__dict__", {}).items():
        if name.startswith("audit_"):
            setattr(batch, name, value)
    batch.__name__ = getattr(mechanism, "__name__", "mechanism") + "_vectorised"
    batch.__wrapped__ = mechanism
    return batch


def describe_dataset(d) -> str:
    text = repr(d.tolist()) if isinstance(d, np.ndarray) else repr(d)
    return text if len(text) <= 80 else text[:77] + "..."


def same_dataset(a, b) -> bool:
    """True when two datasets are equal (arrays compared element-wise, shapes included)."""
    if a is b:
        return True
    try:
        aa, bb = np.asarray(a), np.asarray(b)
        if aa.dtype != object and bb.dtype != object:
            return aa.shape == bb.shape and bool(np.array_equal(aa, bb))
    except (ValueError, TypeError):
        pass
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return False


def _fail(owner, expected, what):
    return parameter_error("mechanism", owner, expected, Described(what))


def _signature_hint(mechanism):
    try:
        params = [p for p in inspect.signature(mechanism).parameters.values()
                  if p.default is inspect.Parameter.empty
                  and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return ""
    if len(params) == 2:
        return " (it takes two arguments: wrap a per-call mechanism (dataset, rng) with refdp.audit.vectorise)"
    return ""


def draw(mechanism, dataset, n, rng, owner, layout=None, copy=True):
    """Call the mechanism for ``n`` outputs on ``dataset`` and validate them.

    Parameters
    ----------
    layout : tuple or None
        ``(numeric, trailing_shape)`` fixed by the first batch; later batches
        (and the other dataset of the pair) must match it.
    copy : bool, default True
        Copy float64 outputs (the batch is kept); False when the batch is
        only counted and dropped, so that a mechanism returning its own
        buffer is read once, without a copy.

    Returns
    -------
    sample : Sample
    layout : tuple
    """
    expected = "a callable (dataset, n_samples, rng) returning n_samples outputs"
    where = f"on dataset {describe_dataset(dataset)} with n_samples={n}"
    try:
        out = mechanism(dataset, n, rng)
    except Exception as exc:  # the mechanism's own failure, reported with its type and message
        raise _fail(owner, expected,
                    f"a call {where} that raised {type(exc).__name__}: {exc}"
                    + _signature_hint(mechanism)) from exc
    if out is None:
        raise _fail(owner, expected, f"None returned {where}")
    if isinstance(out, (str, bytes)) or not hasattr(out, "__len__"):
        raise _fail(owner, expected, f"{type(out).__name__} {out!r:.60} returned {where} "
                                     f"(not a sequence of n_samples outputs)")
    if len(out) != n:
        raise _fail(owner, expected, f"{len(out)} outputs returned {where}")
    try:
        arr = np.asarray(out)
    except (ValueError, TypeError):
        arr = None
    numeric = arr is not None and arr.dtype.kind in "biuf"
    if arr is not None and arr.dtype.kind == "c":
        raise _fail(owner, expected + " (real numbers or hashable values)",
                    f"complex outputs returned {where}")
    if numeric:
        if arr.ndim == 0 or arr.shape[0] != n:
            raise _fail(owner, expected, f"an array of shape {arr.shape} returned {where}")
        real = np.array(arr.reshape(n, -1), dtype=np.float64, copy=copy or None)
        # a sum is finite only if every term is (NaN and infinities propagate), and
        # is cheaper than an elementwise test; the test runs only to locate a bad value
        if arr.dtype.kind == "f" and not (np.isfinite(real.sum()) or np.isfinite(real).all()):
            bad = int(np.argmax(~np.isfinite(real).all(axis=1)))
            raise _fail(owner, expected + " that are finite numbers",
                        f"{real[bad].tolist() if real.shape[1] > 1 else real[bad, 0]} "
                        f"in output #{bad} {where}")
        this = (True, arr.shape[1:])
    else:
        items = list(out)
        for i, o in enumerate(items):
            if isinstance(o, float) and o != o:
                raise _fail(owner, expected + " that are finite numbers", f"nan in output #{i} {where}")
        this = (False, ())
        raw = items
    if layout is not None and this != layout:
        def show(lay):
            return (f"numeric outputs of shape {lay[1]}" if lay[0] else "non-numeric outputs")
        raise _fail(owner, expected + " of the same kind and shape on every call",
                    f"{show(this)} {where}, after {show(layout)} earlier")
    if numeric:
        if real.shape[1] == 0:
            raise _fail(owner, expected, f"empty outputs (shape {arr.shape}) returned {where}")
        return Sample(real), this
    memo = {}

    def key_of(o):
        try:
            k = memo.get(o)
        except TypeError:  # unhashable output: keyed by the text of its value
            return _stable_key(canonical_output(o))
        if k is None:
            k = memo[o] = _stable_key(canonical_output(o))  # equal values, one key
        return k
    key = np.fromiter((key_of(o) for o in raw), dtype=np.uint64, count=n)
    return Sample(None, key, raw), this
