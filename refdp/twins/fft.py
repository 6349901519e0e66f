"""Pure-Python twin of the compiled FFT in ``refdp/_fft.pyx``.

:func:`fft_inplace` performs the operations of the kernel of the same name in
the same order (the butterflies of one stage are vectorised, each one the
kernel's four products and four sums), so the two agree bit for bit; the
tests and ``refdp verify`` compare them. The certified convolution built on it
is :func:`refdp.utils.fftconv.convolve_bounds`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fft_inplace"]


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
