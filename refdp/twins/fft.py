"""Pure-Python twin of the compiled FFT in ``refdp/_fft.pyx``.

:func:`fft_inplace` performs the operations of the kernel of the same name in
the same order (the butterflies of one stage are vectorised, each one the
kernel's four products and four sums), so the two agree bit for bit; the
tests and ``refdp verify`` compare them. The certified convolution built on it
is :func:`refdp.utils.fftconv.convolve_bounds`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fft_inplace", "pair_products"]


def fft_inplace(re, im, wr, wi, perm):
    """Forward radix-2 transform of ``re + i im`` in place (length n = 2**L).

    ``perm`` is the bit-reversal permutation of ``range(n)`` and ``wr + i wi``
    holds ``exp(-2 pi i j / n)`` for ``j < n / 2`` (Cooley-Tukey, decimation
    in time).
    """
    n = re.size
    re[:] = np.asarray(re, float)[perm]
    im[:] = np.asarray(im, float)[perm]
    m = 2
    while m <= n:
        half, stride = m // 2, n // m
        cr = wr[::stride][:half]
        ci = wi[::stride][:half]
        R = re.reshape(-1, m)
        I = im.reshape(-1, m)
        xr, xi = R[:, half:].copy(), I[:, half:].copy()
        tr = cr * xr - ci * xi
        ti = cr * xi + ci * xr
        ar, ai = R[:, :half].copy(), I[:, :half].copy()
        R[:, half:] = ar - tr
        I[:, half:] = ai - ti
        R[:, :half] = ar + tr
        I[:, :half] = ai + ti
        m *= 2
    return re, im


def pair_products(zar, zai, zbr, zbi, qr, qi):
    """Twin of the kernel ``pair_products``: ``qr + i qi = conj(A1 B1 + i A2 B2)``, vectorised.

    ``zar + i zai = FFT(a1 + i a2)`` and ``zbr + i zbi = FFT(b1 + i b2)``;
    the four real transforms are split off by conjugate symmetry
    (``X1 = (Z_k + conj Z_{-k}) / 2``, ``X2 = (Z_k - conj Z_{-k}) / (2i)``),
    entry by entry with the kernel's operations.
    """
    def split(zr, zi):
        rr = np.concatenate((zr[:1], zr[:0:-1]))        # Z_{-k mod n}
        ri = np.concatenate((zi[:1], zi[:0:-1]))
        return (zr + rr) / 2, (zi - ri) / 2, (zi + ri) / 2, (rr - zr) / 2

    a1r, a1i, a2r, a2i = split(zar, zai)
    b1r, b1i, b2r, b2i = split(zbr, zbi)
    p1r = a1r * b1r - a1i * b1i
    p1i = a1r * b1i + a1i * b1r
    p2r = a2r * b2r - a2i * b2i
    p2i = a2r * b2i + a2i * b2r
    qr[:] = p1r - p2i
    qi[:] = -(p1i + p2r)
    return qr, qi
