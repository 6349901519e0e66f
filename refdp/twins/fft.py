"""Pure-Python twin of the compiled FFT in ``refdp/_fft.pyx``.

:func:`fft_inplace` performs the operations of the kernel of the same name in
the same order (the butterflies of one stage are vectorised, each one the
kernel's four products and four sums), so the two agree bit for bit; the
tests and ``refdp verify`` compare them. The certified convolution built on it
is :func:`refdp.utils.fftconv.convolve_bounds`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fft_inplace", "pair_products", "power_products"]


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


def _split(zr, zi):
    rr = np.concatenate((zr[:1], zr[:0:-1]))        # Z_{-k mod n}
    ri = np.concatenate((zi[:1], zi[:0:-1]))
    return ((zr + rr) / 2, (zi - ri) / 2), ((zi + ri) / 2, (rr - zr) / 2)


def _cmul(ar, ai, br, bi):
    return ar * br - ai * bi, ar * bi + ai * br


def _cpow(xr, xi, m):
    rr = ri = None
    br, bi = xr, xi
    while m:
        if m & 1:
            if rr is None:
                rr, ri = br, bi
            else:
                rr, ri = _cmul(rr, ri, br, bi)
        m >>= 1
        if m:
            br, bi = _cmul(br, bi, br, bi)
    return rr, ri


def power_products(z1r, z1i, z2r, z2i, m, qr, qi):
    """Twin of the kernel ``power_products``: ``qr + i qi = conj(X1**m X2 + i Y1**m Y2)``, vectorised.

    ``z1r + i z1i = FFT(x1 + i y1)`` and ``z2r + i z2i = FFT(x2 + i y2)`` (both
    empty: ``X2 = Y2 = 1``); the real transforms are split off as in
    :func:`pair_products`, ``X1`` and ``Y1`` raised to the ``m``-th power by
    binary powering (``m - 1`` complex products in the expanded product
    tree) and multiplied by ``X2`` and ``Y2``, entry by entry with the
    kernel's operations.
    """
    z1r, z1i = np.asarray(z1r, float), np.asarray(z1i, float)
    (x1r, x1i), (y1r, y1i) = _split(z1r, z1i)
    p1r, p1i = _cpow(x1r, x1i, m)
    p2r, p2i = _cpow(y1r, y1i, m)
    if len(z2r):
        (x2r, x2i), (y2r, y2i) = _split(np.asarray(z2r, float), np.asarray(z2i, float))
        p1r, p1i = _cmul(p1r, p1i, x2r, x2i)
        p2r, p2i = _cmul(p2r, p2i, y2r, y2i)
    qr[:] = p1r - p2i
    qi[:] = -(p1i + p2r)
    return qr, qi
