"""Checks of the compiled modules' Python entry points (``refdp._core._py_*`` and the like).

The entry points are called by :mod:`refdp.core`, which validates every
argument first; these checks make them safe to call from anywhere else too.
Each costs O(1) per call (type, dtype, shape, contiguity, a few integer
comparisons), never a pass over the data, and failures raise the standard
ValueError of :func:`refdp.utils.validation.parameter_error`. The compiled
modules first try the fast checks of ``refdp/_checks.pxd`` and call these
only when an argument is not exactly what the kernel needs.
"""
from __future__ import annotations

import numbers

import numpy as np

from .utils.validation import Described, parameter_error

__all__ = ["c_array", "length", "integer", "positive_finite", "ordered", "bit_generator_capsule"]


def c_array(a, name, owner, dtype, ndim, *, writeable=False):
    """``a`` itself if it is a C-contiguous ``ndim``-D ndarray of exactly ``dtype``."""
    dtype = np.dtype(dtype)
    if (isinstance(a, np.ndarray) and a.ndim == ndim and a.dtype == dtype
            and a.flags.c_contiguous and (a.flags.writeable or not writeable)):
        return a
    what = "writeable " if writeable else ""
    raise parameter_error(name, owner, f"a C-contiguous {what}{ndim}-D array of dtype {dtype.name} "
                          f"(native byte order)", a)


def length(a, name, owner, n, what):
    """Check ``a.shape[0] == n`` (``what`` says where ``n`` comes from)."""
    if a.shape[0] != n:
        raise parameter_error(name, owner, f"an array of length {what} = {n}",
                              Described(f"an array of length {a.shape[0]}"))


def integer(value, name, owner, low, high=None):
    """``value`` as a Python int in ``[low, high)`` (``high=None``: no upper end)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise parameter_error(name, owner, f"an int >= {low}", value)
    v = int(value)
    if v < low or (high is not None and v >= high):
        span = f"an int in [{low}, {high})" if high is not None else f"an int >= {low}"
        raise parameter_error(name, owner, span, value)
    return v


def positive_finite(value, name, owner):
    """``value`` as a float in ``(0, inf)``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
            or not 0.0 < float(value) < float("inf"):
        raise parameter_error(name, owner, "a finite float > 0", value)
    return float(value)


def ordered(lower, start, upper, owner):
    """``(start, lower, upper)`` as floats with ``lower <= start <= upper`` (none NaN)."""
    for name, value in (("lower", lower), ("start", start), ("upper", upper)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise parameter_error(name, owner, "a float", value)
    lo, st, up = float(lower), float(start), float(upper)
    if not lo <= st <= up:
        raise parameter_error("start", owner, f"a float in [lower, upper] = [{lo!r}, {up!r}]", start)
    return st, lo, up


def bit_generator_capsule(bit_generator, owner):
    """The ``BitGenerator`` capsule of ``bit_generator``, or the standard ValueError."""
    if not isinstance(bit_generator, np.random.BitGenerator):
        raise parameter_error("bit_generator", owner, "a numpy.random.BitGenerator", bit_generator)
    return bit_generator.capsule
