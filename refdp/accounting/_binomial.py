"""Certified pieces of binomial probabilities shared by the accounting modules.

* :func:`log_factorial` encloses ``ln n!`` in an interval: exactly through
  ``math.factorial`` for small ``n`` and through Stirling's series with its
  remainder bound for large ``n`` (DLMF 5.11.1 and 5.11(ii): for real
  ``x > 0`` the remainder after any number of terms is bounded in absolute
  value by the first neglected term).
* :func:`window_sums` runs the recurrence of consecutive binomial
  probabilities in fixed-point integer interval arithmetic (each step rounded
  outward), with a certified geometric bound of the tail it leaves out
  (``docs/theory/accounting.rst``, section 5).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

__all__ = ["bernoulli", "log_factorial", "window_sums"]

#: Below this, ``ln n!`` is the logarithm of the exact integer ``n!``.
_EXACT_FACTORIAL = 256


@functools.lru_cache(maxsize=None)
def _bernoulli_table(n: int) -> tuple:
    """B_0 .. B_n as Fractions (Akiyama--Tanigawa algorithm, exact)."""
    out, a = [], [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    # the algorithm yields B_1 = +1/2; only even indices are used here
    return tuple(out)


def bernoulli(n: int) -> Fraction:
    """The Bernoulli number B_n (exact)."""
    return _bernoulli_table(max(n, 64))[n]


def log_factorial(iv, n: int):
    """An interval of the context ``iv`` containing ``ln n!``.

    For ``n >= 256``, Stirling's series ``ln n! = (n + 1/2) ln n - n +
    ln(2 pi)/2 + sum_{i=1}^{m} B_{2i} / (2i (2i - 1) n^(2i-1)) + R_m`` with
    ``|R_m| <= |B_{2m+2}| / ((2m+2)(2m+1) n^(2m+1))`` (DLMF 5.11.1, 5.11(ii));
    ``m`` grows until that bound is below ``2**-(iv.prec + 8)``.
    """
    if n < _EXACT_FACTORIAL:
        return iv.log(iv.mpf(math.factorial(n)))
    x = iv.mpf(n)
    total = (x + iv.mpf(0.5)) * iv.log(x) - x + iv.log(2 * iv.pi) / 2
    tiny = Fraction(1, 2 ** (iv.prec + 8))
    i = 1
    while True:
        term = bernoulli(2 * i) / (2 * i * (2 * i - 1) * Fraction(n) ** (2 * i - 1))
        nxt = abs(bernoulli(2 * i + 2)) / ((2 * i + 2) * (2 * i + 1) * Fraction(n) ** (2 * i + 1))
        total += iv.mpf(term.numerator) / term.denominator
        if nxt < tiny or i >= 60:
            r = iv.mpf(nxt.numerator) / nxt.denominator
            return total + iv.mpf([-r.b, r.b])
        i += 1


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def window_sums(k: int, lo: int, hi: int, e_up: int, e_lo: int, g_up: int, g_lo: int,
                tail_p: int, tail_q: int, bits: int, want):
    """Fixed-point enclosures of ``S_l = sum_{m <= l} P_m / P_l`` and ``U_l = sum_{m <= l} Q_m / Q_l``.

    ``P_m = C(k, m) p^(k-m) q^m`` and ``Q_m = C(k, m) q^(k-m) p^m`` with
    ``p / q = e**epsilon``, so ``P_{m-1} / P_m = m e**epsilon / (k - m + 1)``
    and ``Q_{m-1} / Q_m = m e**-epsilon / (k - m + 1)``; hence
    ``S_l = 1 + (P_{l-1}/P_l) S_{l-1}`` and the same for ``U``. Numbers are
    integers scaled by ``2**bits``; ``e_up``/``e_lo`` and ``g_up``/``g_lo``
    enclose ``e**epsilon`` and ``e**-epsilon`` so scaled, and ``tail_p``,
    ``tail_q`` are upper bounds (scaled) of the mass below ``lo`` relative to
    ``P_lo`` and ``Q_lo``. Every step rounds the lower end down and the upper
    end up. Returns ``{l: (S_lo, S_hi, U_lo, U_hi)}`` for ``l`` in ``want``.
    """
    one = 1 << bits
    s_lo, s_hi, u_lo, u_hi = one, one + tail_p, one, one + tail_q
    out = {}
    if lo in want:
        out[lo] = (s_lo, s_hi, u_lo, u_hi)
    shift = bits
    for m in range(lo + 1, hi + 1):
        d = (k - m + 1) << shift
        s_lo = one + (m * e_lo * s_lo) // d
        s_hi = one + _ceil_div(m * e_up * s_hi, d)
        u_lo = one + (m * g_lo * u_lo) // d
        u_hi = one + _ceil_div(m * g_up * u_hi, d)
        if m in want:
            out[m] = (s_lo, s_hi, u_lo, u_hi)
    return out
