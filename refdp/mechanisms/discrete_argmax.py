r"""Report-noisy-max with exact discrete Laplace noise on grid indices, and its exact law.

The float-safe argmax release (``docs/theory/secure_noise.rst``, Theorem 5):
scores are rounded to a grid ``g Z`` fixed by the sensitivity alone, exact
discrete Laplace noise of scale ``t`` is added to the integer indices, and
the lowest index among the noisy maxima is returned. Everything after the
rounding is integer arithmetic, so the released index has exactly the law
computed by :func:`discrete_argmax_law`.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..utils.validation import parameter_error
from ..utils.exact import to_mpf
from ..utils.rounding import up_dyadic
from .float_safe import grid_step
from .discrete import discrete_laplace

__all__ = ["argmax_grid", "discrete_argmax", "discrete_argmax_law"]

_INT64_SAFE = 2**62


def argmax_grid(sensitivity: float, epsilon, monotone: bool):
    """(g, integer sensitivity, scale t) of the float-safe argmax for ``sensitivity`` and ``epsilon``.

    ``g`` is the grid step of the float-safe releases for one coordinate,
    ``Delta_Z = floor(sensitivity / g) + 1`` and ``t`` the smallest 48-bit
    dyadic rational ``>= c Delta_Z / epsilon`` (``c = 1`` monotone, 2 otherwise).
    """
    g = grid_step(float(sensitivity), 1)
    dz = math.floor(Fraction(float(sensitivity)) / Fraction(g)) + 1
    t = up_dyadic(Fraction((1 if monotone else 2) * dz) / Fraction(epsilon))
    return g, dz, t


def discrete_argmax(k, t, shape, rng):
    """Lowest index of ``max_j (k_j + Z_j)``, ``Z_j`` i.i.d. discrete Laplace of scale ``t``.

    ``k`` is a list of Python ints; ``shape`` is ``None`` (one release) or a
    tuple. The sums are exact (int64 when they cannot overflow, Python ints
    otherwise); ties go to the lowest index (``numpy.argmax``).
    """
    top = max(k)
    c = [v - top for v in k]            # shift by a common integer: the argmax is unchanged
    m = len(c)
    out_shape = (() if shape is None else shape) + (m,)
    z = np.asarray(discrete_laplace(t, size=out_shape, rng=rng))
    if min(c) >= -_INT64_SAFE and z.dtype == np.int64 and (z.size == 0 or int(np.abs(z).max()) < _INT64_SAFE):
        y = np.asarray(c, dtype=np.int64) + z
    else:
        y = np.asarray(c, dtype=object) + z.astype(object)
    winners = np.argmax(y, axis=-1)
    return int(winners) if shape is None else winners.astype(np.int64)


def grid_indices(scores: np.ndarray, g: float, owner: str):
    """``round(scores / g)`` as Python ints (exact), or the standard ValueError if not finite."""
    with np.errstate(over="ignore"):
        q = np.rint(scores / g)          # exact: g is a power of two (an underflow rounds to 0 either way)
    if not np.all(np.isfinite(q)):
        i = int(np.argmin(np.isfinite(q)))
        raise parameter_error("scores", owner,
                              f"finite with every score / {g!r} (the grid step for this 'sensitivity') "
                              f"finite", float(scores[i]))
    return [int(v) for v in q]


def discrete_argmax_law(k, t, c):
    """``P[lowest argmax_j (k_j + Z_j) = j]`` for integers ``k`` and discrete Laplace ``Z`` of scale ``t``.

    ``P[Z = z] = N q^|z|``, ``q = exp(-1/t)``, ``N = (1 - q)/(1 + q)``. With
    ``x = q^y`` for the value ``y`` of the noisy score of ``j``, every factor
    of ``P[j wins, k_j + Z_j = y] = P[Z_j = y - k_j] prod_{i < j} P[Z_i < y - k_i]
    prod_{i > j} P[Z_i <= y - k_i]`` is, on each side of its switch point, a
    monomial ``a x^-1`` or a binomial ``1 - b x`` (``P[Z <= m] = q^-m / (1 + q)``
    for ``m <= -1``, ``1 - q^(m+1) / (1 + q)`` for ``m >= 0``). Between
    consecutive switch points the product is a Laurent polynomial in ``x``,
    summed over the integers of the piece as geometric series in closed form.
    Every operation is done in the mpmath context ``c`` (an interval context
    gives rigorous enclosures).

    Parameters
    ----------
    k : sequence of int
    t : Fraction > 0
    c : mpmath context
    """
    k = [int(v) for v in k]
    n = len(k)
    tm = to_mpf(Fraction(t), c)
    q = c.exp(-1 / tm)
    one_plus_q = 1 + q
    norm = -c.expm1(-1 / tm) / one_plus_q

    def qpow(e):                         # q**e for an integer e, as exp(-e/t)
        return c.exp(-c.mpf(e) / tm)

    def factor(i, j, y_lo):
        """Laurent polynomial {exponent: coeff} of factor i for winner j, valid from y_lo on the piece."""
        if i == j:        # pmf: N q^(k_j - y) x^-1 for y <= k_j, N q^(-k_j) x for y >= k_j
            return {-1: norm * qpow(k[j])} if y_lo < k[j] else {1: norm * qpow(-k[j])}
        s = k[i] + (1 if i < j else 0)   # P[Z_i <= y - s] with s = k_i (+1 for a strict inequality)
        if y_lo - s <= -1:               # q^(s - y) / (1 + q)
            return {-1: qpow(s) / one_plus_q}
        return {0: c.mpf(1), 1: -qpow(1 - s) / one_plus_q}

    def geometric(e, u, v):
        """sum over integers y in [u, v] of q^(e y) (u = None: -inf; v = None: +inf)."""
        if e == 0:
            return c.mpf(v - u + 1)
        le = -c.mpf(e) / tm               # log of r = q^e
        if u is None:                     # e < 0, r > 1: sum_{y <= v} r^y = r^v / (1 - 1/r)
            return c.exp(le * v) / (-c.expm1(-le))
        if v is None:                     # e > 0, r < 1: r^u / (1 - r)
            return c.exp(le * u) / (-c.expm1(le))
        return c.exp(le * u) * c.expm1(le * (v - u + 1)) / c.expm1(le)

    # switch points: a factor changes form between y = p - 1 and y = p
    points = sorted({v for v in k} | {v + 1 for v in k})
    pieces = [(None, points[0] - 1)] + [(a, b - 1) for a, b in zip(points, points[1:])] + [(points[-1], None)]
    total = [c.mpf(0)] * n
    for u, v in pieces:
        if u is not None and v is not None and u > v:
            continue
        y_lo = u if u is not None else v        # any y of the piece decides the forms
        for j in range(n):
            poly = {0: c.mpf(1)}
            for i in range(n):
                f = factor(i, j, y_lo)
                new = {}
                for e1, a1 in poly.items():
                    for e2, a2 in f.items():
                        new[e1 + e2] = new.get(e1 + e2, 0) + a1 * a2
                poly = new
            total[j] += c.fsum(a * geometric(e, u, v) for e, a in poly.items())
    return total
