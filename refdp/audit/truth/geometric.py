"""Exact law of the truncated geometric mechanism of Balcer and Vadhan.

Balcer and Vadhan ("Differential Privacy on Finite Computers", arXiv:1709.05396,
Algorithm 4.8, GeoSample) release a count ``c`` in ``{0, ..., n}`` through an
integer inverse-CDF sampler: with ``k = ceil(ln(2/eps))`` and ``d = (2^(k+1) + 1)
(2^k + 1)^(n-1)``, draw ``U`` uniform in ``{1, ..., d}`` and output the smallest
``z`` with ``F(z) >= U``, where

* ``F(z) = 2^(k (c - z)) (2^k + 1)^(n - (c - z))`` for ``z < c``,
* ``F(z) = d - 2^(k (z - c + 1)) (2^k + 1)^(n - 1 - (z - c))`` for ``c <= z < n``,
* ``F(n) = d``.

So ``P[z] = (F(z) - F(z - 1)) / d`` exactly (rationals); their Theorem 4.7
states ``ln(1 + 2^-k)``-DP.
"""
from __future__ import annotations

from fractions import Fraction

__all__ = ["geometric_k", "truncated_geometric_law"]


def geometric_k(ctx, eps) -> int:
    """``ceil(ln(2 / eps))``, decided in interval arithmetic (fails closed when undecidable)."""
    eps = Fraction(eps)
    x = ctx.ln(ctx.mpf(2 * eps.denominator) / eps.numerator)
    k = 0
    while True:
        if x.b <= k:
            return k
        if x.a > k:
            k += 1
            continue
        raise ValueError("cannot decide ceil(ln(2/eps))")


def truncated_geometric_law(ctx, eps, n, c) -> dict:
    """``{z: P[z]}`` (point intervals of exact rationals) for the count ``c`` in ``[0, n]``."""
    k = geometric_k(ctx, eps)
    d = (2 ** (k + 1) + 1) * (2 ** k + 1) ** (n - 1)
    F = []
    for z in range(n + 1):
        if z < c:
            F.append(2 ** (k * (c - z)) * (2 ** k + 1) ** (n - (c - z)))
        elif z < n:
            F.append(d - 2 ** (k * (z - c + 1)) * (2 ** k + 1) ** (n - 1 - (z - c)))
        else:
            F.append(d)
    out = {}
    prev = 0
    for z in range(n + 1):
        p = Fraction(F[z] - prev, d)
        prev = F[z]
        out[z] = ctx.mpf(p.numerator) / p.denominator
    return out
