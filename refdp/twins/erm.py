"""Pure-Python twin of the ERM pass kernel in ``refdp/_erm.pyx``.

:func:`margin_pass` performs the operations of the kernel of the same name in
the same order, row by row with Python floats (``math.exp`` and
``math.log1p`` are the C library's functions the kernel calls), so the two
agree bit for bit; ``tests/erm/test_margin_pass.py`` compares them.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["margin_pass"]


def margin_pass(X, y, theta, kind, h, block):
    """(gradient sums per block, loss sums per block): see :mod:`refdp._erm`."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    nb = -(-n // block)
    blocks = [[0.0] * d for _ in range(nb)]
    values = [0.0] * nb
    t = [float(v) for v in theta]
    for i, (row, yi) in enumerate(zip(X.tolist(), [float(v) for v in y])):
        dot = 0.0
        for j in range(d):
            dot = dot + row[j] * t[j]
        m = yi * dot
        if kind == 0:
            try:
                dv = -1.0 / (1.0 + math.exp(m))
            except OverflowError:               # exp(m) = inf in C: -1 / inf
                dv = -0.0
            val = math.log1p(math.exp(-m)) if m > 0.0 else -m + math.log1p(math.exp(m))
        elif m > 1.0 + h:
            dv, val = 0.0, 0.0
        elif m < 1.0 - h:
            dv, val = -1.0, 1.0 - m
        else:
            e = 1.0 + h - m
            dv, val = -e / (2.0 * h), e * e / (4.0 * h)
        v = yi * dv
        acc = blocks[i // block]
        for j in range(d):
            acc[j] = acc[j] + v * row[j]
        values[i // block] = values[i // block] + val
    return np.array(blocks, dtype=np.float64).reshape(nb, d), np.array(values, dtype=np.float64)
