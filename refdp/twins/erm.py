"""Pure-Python twins of the ERM kernels in ``refdp/_erm.pyx``.

:func:`margin_pass` performs the operations of the kernel of the same name in
the same order, row by row with Python floats (``math.exp`` and
``math.log1p`` are the C library's functions the kernel calls), so the two
agree bit for bit; ``tests/erm/test_margin_pass.py`` compares them.
:func:`row_norm_sign` is the twin of the data screen of the same name
(``tests/erm/test_row_norm_sign.py``).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["margin_pass", "row_norm_sign"]


def margin_pass(X, y, theta, kind, h, block, lanes=False, values=True):
    """(gradient sums per block, loss sums per block): see :mod:`refdp._erm` (``lanes``: its lane order)."""
    if lanes:
        return _margin_pass_lanes(X, y, theta, kind, h, block, values)
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


LANES = 4


def _lane_loss(m, kind, h, want):
    """``(l'(m), l(m))`` in the lane-order pass's formulas (one shared exponential for the logistic loss)."""
    if kind == 0:
        if m >= 0.0:
            e = math.exp(-m)
            return -e / (1.0 + e), (math.log1p(e) if want else 0.0)
        e = math.exp(m)
        return -1.0 / (1.0 + e), (-m + math.log1p(e) if want else 0.0)
    if m > 1.0 + h:
        return 0.0, 0.0
    if m < 1.0 - h:
        return -1.0, 1.0 - m
    e = 1.0 + h - m
    return -e / (2.0 * h), e * e / (4.0 * h)


def _margin_pass_lanes(X, y, theta, kind, h, block, want):
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    nb = -(-n // block)
    d4 = d - d % LANES
    blocks = [[0.0] * d for _ in range(nb)]
    values = [0.0] * nb
    t = [float(v) for v in theta]
    for i, (row, yi) in enumerate(zip(X.tolist(), [float(v) for v in y])):
        s = [0.0] * LANES
        for j in range(0, d4, LANES):
            for lane in range(LANES):
                s[lane] = s[lane] + row[j + lane] * t[j + lane]
        dot = (s[0] + s[1]) + (s[2] + s[3])
        for j in range(d4, d):
            dot = dot + row[j] * t[j]
        dv, val = _lane_loss(yi * dot, kind, h, want)
        v = yi * dv
        acc = blocks[i // block]
        for j in range(d):
            acc[j] = acc[j] + v * row[j]
        if want:
            values[i // block] = values[i // block] + val
    return np.array(blocks, dtype=np.float64).reshape(nb, d), np.array(values, dtype=np.float64)


def _two_square(x):
    """``(p, e)`` with ``p + e = x**2`` exactly (Dekker's product; valid for 2**-480 <= |x| <= 2**500 or x = 0)."""
    c = 134217729.0 * x                              # 2**27 + 1: split into two 26-bit halves
    hi = c - (c - x)
    lo = x - hi
    p = x * x
    return p, ((hi * hi - p) + 2.0 * hi * lo) + lo * lo


def row_norm_sign(X, radius):
    """Per row: +1 / -1 where ``||x||**2`` is above / below ``radius**2``, 0 where undecided (see ``refdp/_erm.pyx``).

    Row by row with Python floats, the operations of the kernel in its order:
    the squares split exactly, their leading parts added by TwoSum, the small
    terms summed with a bound on their rounding error. ``radius`` in
    ``[2**-480, 2**500]``.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    u = 2.0 ** -53
    k_u = float(2 * d + 4) * u
    rp, re = _two_square(float(radius))
    out = np.zeros(n, dtype=np.int64)
    for i, row in enumerate(X.tolist()):
        s = small = absmall = 0.0
        tiny = False
        for x in row:
            a = abs(x)
            if a != 0.0 and (a < 2.0 ** -480 or a > 2.0 ** 500):
                tiny, x = True, 0.0
            p, e = _two_square(x)
            t = s + p                                    # TwoSum(s, p): s + p = t + err exactly
            bb = t - s
            err = (s - (t - bb)) + (p - bb)
            s = t
            small = small + (err + e)
            absmall = absmall + (abs(err) + abs(e))
        D = s - rp
        V = D + (small - re)
        bound = ((u * abs(D) + k_u * (absmall + abs(re)) * 1.01) + 2.0 * u * abs(V)) + 2.0 ** -1000
        if not tiny and math.isfinite(V):
            out[i] = 1 if V > bound else (-1 if V < -bound else 0)
    return out
