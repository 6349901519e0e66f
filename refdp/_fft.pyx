# cython: language_level=3
"""Radix-2 decimation-in-time complex FFT, the kernel of refdp's certified convolution.

A plain iterative Cooley-Tukey transform with a precomputed twiddle table, so
that the a-priori error bound of Higham (2002, Theorem 24.2) applies to it as
written; ``refdp.utils.fftconv`` builds the certified convolution and its
bound on it, and ``refdp.twins.fft`` is the pure-Python twin (same
operations in the same order, so the results are identical bit for bit).
"""
cimport cython
from libc.stdint cimport int64_t
cimport numpy as cnp
from refdp._checks cimport array_arg

import numpy as np

cnp.import_array()

from ._kernel_args import length
from .utils.validation import Described, parameter_error


def fft_inplace(re, im, wr, wi, perm):
    """Forward transform of ``re + i im`` in place (length n = 2**L, ``perm`` the bit reversal).

    ``wr + i wi`` holds ``exp(-2 pi i j / n)`` for ``j < n / 2``. The arguments
    are checked (O(1), and one pass over ``perm`` for its range) before the
    transform touches memory.
    """
    owner = "refdp._fft.fft_inplace"
    re = array_arg(re, "re", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
    n = re.shape[0]
    if n < 1 or n & (n - 1):
        raise parameter_error("re", owner, "an array whose length is a power of two", re)
    im = array_arg(im, "im", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
    length(im, "im", owner, n, "len(re)")
    wr = array_arg(wr, "wr", owner, cnp.NPY_FLOAT64, np.float64, 1)
    wi = array_arg(wi, "wi", owner, cnp.NPY_FLOAT64, np.float64, 1)
    for name, table in (("wr", wr), ("wi", wi)):
        if table.shape[0] < n // 2:
            raise parameter_error(name, owner, f"an array of at least len(re) / 2 = {n // 2} twiddle factors",
                                  table)
    perm = array_arg(perm, "perm", owner, cnp.NPY_INT64, np.int64, 1)
    length(perm, "perm", owner, n, "len(re)")
    cdef Py_ssize_t bad = _transform(re, im, wr, wi, perm)
    if bad >= 0:
        raise parameter_error("perm", owner, f"an array of indices in [0, {n})",
                              Described(f"{perm[bad]} at position {bad}"))


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _transform(double[::1] re, double[::1] im, const double[::1] wr, const double[::1] wi,
                           const int64_t[::1] perm):
    # -1 after the transform, or the first position of perm outside [0, n) (nothing written)
    cdef Py_ssize_t n = re.shape[0]
    cdef Py_ssize_t i, j, k, m, half, stride, a, b
    cdef double tr, ti, xr, xi, cr, ci
    with nogil:
        for i in range(n):
            if perm[i] < 0 or perm[i] >= n:
                return i
        for i in range(n):
            j = perm[i]
            if j > i:
                tr = re[i]; re[i] = re[j]; re[j] = tr
                ti = im[i]; im[i] = im[j]; im[j] = ti
        m = 2
        while m <= n:
            half = m // 2
            stride = n // m
            k = 0
            while k < n:
                for j in range(half):
                    a = k + j
                    b = a + half
                    cr = wr[j * stride]
                    ci = wi[j * stride]
                    xr = re[b]
                    xi = im[b]
                    tr = cr * xr - ci * xi
                    ti = cr * xi + ci * xr
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] = re[a] + tr
                    im[a] = im[a] + ti
                k += m
            m *= 2
    return -1
