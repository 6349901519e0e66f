"""Readable ``repr`` of refdp's estimators and analyses: ``Name(param=value, ...)``.

Learners are shown by name, arrays by shape, generators by type: a repr names
the configuration, never the data.
"""
from __future__ import annotations

import numpy as np

__all__ = ["params_repr"]


def _short(value) -> str:
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, np.ndarray):
        if value.size <= 6:
            return repr(value.tolist())
        return f"<array of shape {value.shape}>"
    if isinstance(value, np.random.Generator):
        return f"Generator({type(value.bit_generator).__name__})"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def params_repr(obj, names, extra=None) -> str:
    """``Type(name=value, ...)`` for the attributes ``names`` of ``obj`` (and ``extra`` pairs)."""
    parts = [f"{n}={_short(getattr(obj, n))}" for n in names]
    parts += [f"{k}={_short(v)}" for k, v in (extra or {}).items()]
    return f"{type(obj).__name__}({', '.join(parts)})"
