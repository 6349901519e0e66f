"""Convolution of non-negative arrays by FFT with a certified entrywise error bound.

``convolve_bounds(a, b)`` returns ``(c, err)``: the computed convolution and a
double ``err`` with ``|c_i - (a * b)_i| <= err`` for every ``i``. The transform
is the radix-2 Cooley-Tukey FFT of ``refdp/_fft.pyx``, reached through
:func:`refdp.core.fft_inplace` (its pure-Python twin
:func:`refdp.twins.fft.fft_inplace` performs the same operations in the same
order); the bound
follows Higham (2002), Theorem 24.2 and Lemma 3.5
(``docs/theory/privacy_profiles.rst``, section 4).

The one input not proved here is the accuracy of the twiddle factors: they
are computed in long double (64-bit significand) and rounded to double, and
the bound assumes each lies within ``4 u`` of ``exp(-2 pi i j / n)`` (the
rounding alone contributes at most ``u / sqrt(2)`` per component); the tests
compare a sample with mpmath.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .. import core
from .rounding import UNIT_ROUNDOFF as _U, gamma

_MU = 4 * _U                       # twiddle accuracy assumed (see the module docstring)
_PI_LONG = np.longdouble("3.14159265358979323846264338327950288419716939937510")


@lru_cache(maxsize=8)
def _tables(n: int):
    j = np.arange(n // 2, dtype=np.longdouble)
    ang = (2 * _PI_LONG / n) * j
    wr = np.cos(ang).astype(np.float64)
    wi = (-np.sin(ang)).astype(np.float64)
    L = n.bit_length() - 1
    idx = np.arange(n)
    perm = np.zeros(n, dtype=np.int64)
    for bit in range(L):
        perm |= ((idx >> bit) & 1) << (L - 1 - bit)
    for arr in (wr, wi, perm):
        arr.setflags(write=False)
    return wr, wi, perm


def _fft(re, im, python: bool):
    wr, wi, perm = _tables(re.size)
    return core.fft_inplace(np.array(re, dtype=float), np.array(im, dtype=float), wr, wi, perm,
                            compiled=not python)


def _norm2_up(x) -> float:
    n = x.size
    s = float(np.sum(x * x)) * (1 + 1.01 * (n + 2) * _U) + (n + 1) * 2.0 ** -1074
    return math.nextafter(math.sqrt(math.nextafter(s, math.inf)), math.inf)


def _norm1_up(x) -> float:
    n = x.size
    return math.nextafter(float(np.sum(x)) * (1 + 1.01 * (n + 1) * _U) + n * 2.0 ** -1074, math.inf)


def convolve_bounds(a, b, python: bool = False):
    """``(c, err)``: the FFT convolution of non-negative ``a``, ``b`` and a bound on every entry's error.

    Parameters
    ----------
    a, b : 1-D arrays of non-negative doubles (the same object for a square)
    python : bool, default False
        Use the pure-Python twin of the compiled transform (identical results).

    Returns
    -------
    c : ndarray of length ``a.size + b.size - 1``
    err : float
        ``|c_i - sum_j a_j b_{i-j}| <= err`` for all ``i``.
    """
    same = a is b
    a = np.asarray(a, float)
    b = a if same else np.asarray(b, float)
    size = a.size + b.size - 1
    n = 1 << max(1, (size - 1).bit_length())
    L = n.bit_length() - 1
    pa = np.zeros(n)
    pa[:a.size] = a
    pb = np.zeros(n)
    pb[:b.size] = b
    z = np.zeros(n)
    Ar, Ai = _fft(pa, z, python)
    Br, Bi = (Ar, Ai) if same else _fft(pb, z, python)       # a square: one transform
    Pr = Ar * Br - Ai * Bi
    Pi = Ar * Bi + Ai * Br
    # inverse: conj(FFT(conj(P))) / n, the division by a power of two being exact
    Cr, Ci = _fft(Pr, -Pi, python)
    c = Cr[:size] / n
    # error bound (Higham 2002, Thm. 24.2 and Lemma 3.5), all rounded up
    g2 = gamma(2)
    g4 = gamma(4)
    eta = (_MU + g4 * (math.sqrt(2) + _MU)) * (1 + 1e-12)
    th = L * eta / (1 - L * eta) * (1 + 1e-12)
    rn = math.sqrt(n) * (1 + 1e-15)
    a1, b1 = _norm1_up(a), _norm1_up(b)
    a2, b2 = _norm2_up(a), _norm2_up(b)
    b_inf = b1 + th * rn * b2                       # >= max |B_hat|
    d = (th * rn * (a2 * b_inf + a1 * b2)           # ||A_hat B_hat - A B||_2
         + math.sqrt(2) * g2 * (1 + th) * rn * a2 * b_inf)  # complex products
    p2 = rn * a2 * b1 + d                           # >= ||P_hat||_2
    err = (d + th * p2) / rn * (1 + 1e-12)
    # underflow: every operation may lose up to 2**-1074 more
    err = math.nextafter(err + 16 * (L + 2) * n * 2.0 ** -1074, math.inf)
    return c, err
