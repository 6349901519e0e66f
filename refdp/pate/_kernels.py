"""The compiled LNMax kernels, or their pure-Python twin when the extension is not built.

``refdp/_lnmax.pyx`` is compiled with the package; a source tree in which it
was not built still works, through :mod:`refdp.pate._law_twin` (same
algorithm, same floating-point operations, about a thousand times slower).
:data:`COMPILED` says which one runs.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _law_twin as twin

try:  # pragma: no cover - depends on the build
    from .. import _lnmax as _compiled
except ImportError:  # pragma: no cover
    _compiled = None

__all__ = ["COMPILED", "log_law_rows", "exact_rows", "gl_tables"]

#: True when the compiled kernels are available.
COMPILED = _compiled is not None

_FALLBACK = tuple(np.asarray(v, dtype=np.float64) for v in twin.gl_rule(twin.GL_M))
_RIGHT = {}


def gl_tables(n_classes):
    """(fallback nodes, weights, right-piece nodes, weights) for ``n_classes`` classes."""
    m = (int(n_classes) + 1) // 2
    if m not in _RIGHT:
        _RIGHT[m] = tuple(np.asarray(v, dtype=np.float64) for v in twin.gl_rule(max(m, 1)))
    return _FALLBACK + _RIGHT[m]


def log_law_rows(counts, gamma, *, use_compiled=None):
    """Log-probabilities of LNMax for every row of a validated int64 (Q, C) array."""
    use = COMPILED if use_compiled is None else use_compiled
    if use:
        return _compiled._py_lnmax_log_law(counts, gamma, *gl_tables(counts.shape[1]))
    rule = twin.gl_rule(twin.GL_M)
    return np.array([twin.log_law(row, gamma, rule) for row in counts.tolist()],
                    dtype=np.float64).reshape(counts.shape)


def exact_rows(counts, gamma, orders, *, n_threads=None, use_compiled=None):
    """Per row: (log_q, log_q2, alpha_forward, alpha_both, max_abs_log), not rounded.

    The compiled path splits the rows among ``n_threads`` threads (default:
    the number of CPUs); each row is computed independently, so the result
    does not depend on the split.
    """
    use = COMPILED if use_compiled is None else use_compiled
    n, K = counts.shape[0], orders.shape[0]
    if not use:
        rule = twin.gl_rule(twin.GL_M)
        out = [twin.exact_query(row, gamma, orders.tolist(), rule) for row in counts.tolist()]
        return (np.array([o[0] for o in out], dtype=np.float64),
                np.array([o[1] for o in out], dtype=np.float64),
                np.array([o[2] for o in out], dtype=np.float64).reshape(n, K),
                np.array([o[3] for o in out], dtype=np.float64).reshape(n, K),
                np.array([o[4] for o in out], dtype=np.float64))
    tables = gl_tables(counts.shape[1])
    threads = (os.cpu_count() or 1) if n_threads is None else int(n_threads)
    threads = max(1, min(threads, n // 32 + 1))
    if threads == 1:
        return _compiled._py_lnmax_exact(counts, gamma, orders, *tables)
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(lambda ab: _compiled._py_lnmax_exact(
            np.ascontiguousarray(counts[ab[0]:ab[1]]), gamma, orders, *tables),
            zip(bounds[:-1], bounds[1:])))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))
