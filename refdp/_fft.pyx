# cython: language_level=3
"""Radix-2 decimation-in-time complex FFT, the kernel of refdp's certified convolution.

A plain iterative Cooley-Tukey transform with a precomputed twiddle table, so
that the a-priori error bound of Higham (2002, Theorem 24.2) applies to it as
written; ``refdp.accounting._fftconv`` has the pure-Python twin (same
operations in the same order, so the results are identical bit for bit) and
the bound.
"""
cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
def fft_inplace(double[::1] re, double[::1] im, const double[::1] wr, const double[::1] wi,
                const long[::1] perm):
    """Forward transform of ``re + i im`` in place (length n = 2**L, ``perm`` the bit reversal).

    ``wr + i wi`` holds ``exp(-2 pi i j / n)`` for ``j < n / 2``.
    """
    cdef Py_ssize_t n = re.shape[0]
    cdef Py_ssize_t i, j, k, m, half, stride, a, b
    cdef double tr, ti, xr, xi, cr, ci
    with nogil:
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
