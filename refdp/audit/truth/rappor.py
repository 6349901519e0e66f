"""Exact epsilon of RAPPOR's randomised responses on a pair of values.

RAPPOR (Erlingsson, Pihur and Korolova, CCS 2014, Sec. 3, steps 1-3) hashes a
value into a Bloom filter of ``k`` bits (here ``h`` hash functions, bit
``murmur3_32(str(value), seed=i) mod k`` set for ``i < h``, as in
DP-Sniper's benchmark implementation), then

* permanent randomised response: each bit is kept with probability
  ``1 - f``, else replaced by a fair coin: ``P[B' = 1 | B = b] = b (1 - f/2)
  + (1 - b) f/2``;
* instantaneous randomised response (full RAPPOR only): ``P[S = 1 | B' = 1]
  = q``, ``P[S = 1 | B' = 0] = p``.

DP-Sniper's implementation draws both steps afresh for every output, so the
released bits are independent given the value, and the exact epsilon of a
pair of values is ``sum`` over the bits where the two Bloom filters differ of
``max_s |ln P[S = s | B = 1] / P[S = s | B = 0]|`` -- each such bit can be
set, independently, to the outcome favouring the first value.
"""
from __future__ import annotations

from fractions import Fraction

__all__ = ["murmur3_32", "bloom_bits", "bit_probabilities", "rappor_epsilon"]


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 (x86, 32-bit) of ``data`` as an unsigned int (Appleby's public-domain algorithm)."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & 0xFFFFFFFF
    n = len(data)
    nblocks = n // 4
    for i in range(nblocks):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * c1) & 0xFFFFFFFF
        k = ((k << 15) | (k >> 17)) & 0xFFFFFFFF
        k = (k * c2) & 0xFFFFFFFF
        h ^= k
        h = ((h << 13) | (h >> 19)) & 0xFFFFFFFF
        h = (h * 5 + 0xE6546B64) & 0xFFFFFFFF
    tail = data[4 * nblocks:]
    k = 0
    for j in range(len(tail) - 1, -1, -1):
        k = (k << 8) | tail[j]
    if tail:
        k = (k * c1) & 0xFFFFFFFF
        k = ((k << 15) | (k >> 17)) & 0xFFFFFFFF
        k = (k * c2) & 0xFFFFFFFF
        h ^= k
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def _signed(h: int) -> int:
    return h - (1 << 32) if h >= (1 << 31) else h


def bloom_bits(value, n_hashes: int, filter_size: int) -> frozenset:
    """Bloom filter bits of ``value``: ``signed murmur3_32(str(value), i) mod filter_size`` for ``i < n_hashes``."""
    text = str(value).encode("utf-8")
    return frozenset(_signed(murmur3_32(text, i)) % filter_size for i in range(n_hashes))


def bit_probabilities(f, p=None, q=None):
    """``(P[S = 1 | B = 1], P[S = 1 | B = 0])`` as Fractions (``p = q = None``: one-time RAPPOR)."""
    f = Fraction(f)
    keep1, keep0 = 1 - f / 2, f / 2
    if p is None:
        return keep1, keep0
    p, q = Fraction(p), Fraction(q)
    return q * keep1 + p * keep0, q * keep0 + p * keep1


def rappor_epsilon(ctx, value, other, *, n_hashes=4, filter_size=20, f=Fraction(3, 4),
                   p=Fraction(9, 20), q=Fraction(11, 20)):
    """Exact ``sup_o ln P[o | value] / P[o | other]`` (an interval of ``ctx``) and the number of differing bits."""
    a, b = bloom_bits(value, n_hashes, filter_size), bloom_bits(other, n_hashes, filter_size)
    p1, p0 = bit_probabilities(f, p, q)
    one = max(p1 / p0, (1 - p1) / (1 - p0))        # a bit set for ``value`` only: P[s | 1] / P[s | 0]
    zero = max(p0 / p1, (1 - p0) / (1 - p1))       # a bit set for ``other`` only: P[s | 0] / P[s | 1]
    total = ctx.mpf(0)
    for ratio, count in ((one, len(a - b)), (zero, len(b - a))):
        if count:
            total += count * ctx.ln(ctx.mpf(ratio.numerator) / ratio.denominator)
    return total, len(a ^ b), sorted(a), sorted(b)
