"""Pure-Python twins of the ERM kernels in ``refdp/_erm.pyx``.

:func:`margin_pass` performs the operations of the kernel of the same name in
the same order, row by row with Python floats (``math.exp`` and
``math.log1p`` are the C library's functions the kernel calls), so the two
agree bit for bit; ``tests/erm/test_margin_pass.py`` compares them.
:func:`row_norm_sign` is the twin of the data screen of the same name
(``tests/erm/test_row_norm_sign.py``). :func:`lazy_normals` is the twin of
the exact normal draws of the same name (Karney's Algorithm N with the bit
buffer of :class:`refdp.utils.lazy_noise.BitSource`;
``tests/erm/test_lazy_normals.py``).
"""
from __future__ import annotations

import math

import numpy as np

from . import core as _core_twin

__all__ = ["margin_pass", "row_norm_sign", "lazy_normals", "column_abs_sums"]


def margin_pass(X, y, theta, kind, h, block, lanes=False, values=True, curvatures=None):
    """(gradient sums per block, loss sums per block): see :mod:`refdp._erm` (``lanes``: its lane order).

    ``curvatures`` (lane order only): an array of length n that receives ``l''(m_i)``.
    """
    if lanes:
        return _margin_pass_lanes(X, y, theta, kind, h, block, values, curvatures)
    if curvatures is not None:
        raise ValueError("The 'curvatures' parameter of refdp.twins.erm.margin_pass must be None unless lanes "
                         f"is True. Got {curvatures!r} instead.")
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
    """``(l'(m), l(m), l''(m))`` in the lane-order pass's formulas (one shared exponential for the logistic loss)."""
    if kind == 0:
        if m >= 0.0:
            e = math.exp(-m)
            return -e / (1.0 + e), (math.log1p(e) if want else 0.0), e / ((1.0 + e) * (1.0 + e))
        e = math.exp(m)
        return -1.0 / (1.0 + e), (-m + math.log1p(e) if want else 0.0), e / ((1.0 + e) * (1.0 + e))
    if m > 1.0 + h:
        return 0.0, 0.0, 0.0
    if m < 1.0 - h:
        return -1.0, 1.0 - m, 0.0
    e = 1.0 + h - m
    return -e / (2.0 * h), e * e / (4.0 * h), 1.0 / (2.0 * h)


def _margin_pass_lanes(X, y, theta, kind, h, block, want, curvatures=None):
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
        dv, val, curv = _lane_loss(yi * dot, kind, h, want)
        if curvatures is not None:
            curvatures[i] = curv
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


#: The bit generators whose raw words are their 64-bit words (the kernel's domain).
RAW_IS_UINT64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def lazy_normals(bit_generator, count, buffer, left, max_length=64):
    """``count`` exact standard normal draws (Karney's Algorithm N), as the kernel of the same name.

    ``(buffer, left)`` is the bit buffer of a
    :class:`~refdp.utils.lazy_noise.BitSource` (``left`` bits of the word
    ``buffer`` not yet used, taken highest first). Returns ``(ok, buffer,
    left, negative, k, m, length)``: per draw its sign, integer part and the
    ``length`` digits ``m`` of its fraction drawn so far. ``ok`` is False
    (and the other values are the arguments and empty lists) when a lazy
    uniform would need more than ``max_length`` digits or ``k`` exceeds
    ``2**20``: the bit generator has then moved. ``max_length=None``: no limit.
    """
    if type(bit_generator) not in RAW_IS_UINT64:
        raise ValueError("The 'bit_generator' parameter of refdp.twins.erm.lazy_normals must be a PCG64, "
                         "PCG64DXSM, Philox or SFC64 bit generator (whose raw words are its 64-bit words). "
                         f"Got {bit_generator!r} instead.")
    words = _core_twin.word_source(bit_generator)
    limit = math.inf if max_length is None else max_length
    state = [buffer, left]

    class _Stop(Exception):
        pass

    def take(k):
        out = 0
        while k > 0:
            if state[1] == 0:
                state[0], state[1] = words(), 64
            t = min(k, state[1])
            state[1] -= t
            out = (out << t) | ((state[0] >> state[1]) & ((1 << t) - 1))
            k -= t
        return out

    def digit(u, i):
        if i >= u[1]:
            if i + 1 > limit:
                raise _Stop
            k = i + 1 - u[1]
            u[0] = (u[0] << k) | take(k)
            u[1] += k
        return (u[0] >> (u[1] - 1 - i)) & 1

    def less_than(a, b):
        i = 0
        while True:
            da, db = digit(a, i), digit(b, i)
            if da != db:
                return da < db
            i += 1

    def karney_b(k, x):
        y, n, m = x, 0, 2 * k + 2
        while True:
            z = [0, 0]
            if not less_than(z, y):
                break
            i = _core_twin.uniform_below(words, m)
            if i > 2 * k:
                break
            if i == 2 * k and not less_than([0, 0], x):
                break
            y, n = z, n + 1
        return n % 2 == 0

    negative, ks, ms, lengths = [], [], [], []
    try:
        for _ in range(count):
            while True:
                k = _core_twin.geometric_exp(words, 1, 2)
                if max_length is not None and k > 1 << 20:
                    raise _Stop
                if not _core_twin.bernoulli_exp(words, k * (k - 1), 2):
                    continue
                x = [0, 0]
                if all(karney_b(k, x) for _ in range(k + 1)):
                    negative.append(bool(take(1)))
                    ks.append(k)
                    ms.append(x[0])
                    lengths.append(x[1])
                    break
    except _Stop:
        return False, buffer, left, [], [], [], []
    return True, state[0], state[1], negative, ks, ms, lengths


def column_abs_sums(X):
    """``sum_i |x_ij|`` per column, the rows added in order (the kernel of the same name)."""
    X = np.asarray(X, dtype=np.float64)
    out = [0.0] * X.shape[1]
    for row in X.tolist():
        for j, x in enumerate(row):
            out[j] = out[j] + abs(x)
    return np.array(out, dtype=np.float64)
