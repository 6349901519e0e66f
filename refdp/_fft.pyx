# cython: language_level=3
"""Radix-2 decimation-in-time complex FFT, the kernel of refdp's certified convolution.

A plain iterative Cooley-Tukey transform with a precomputed twiddle table, so
that the a-priori error bound of Higham (2002, Theorem 24.2) applies to it as
written (the stages of length up to 4096 run block by block for the cache:
the same butterflies on the same inputs, so the same results); ``refdp.utils.fftconv`` builds the certified convolution and its
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


cdef extern from *:
    """
    /* One run of butterflies of a radix-2 stage: (a_j, b_j) <- (a_j + w_j b_j, a_j - w_j b_j),
       j < half, the four products and four sums of refdp.twins.fft in the same order; the
       runs a, b and the twiddles w do not overlap, so the compiler may vectorise the loop
       (each lane performs the same IEEE operations, so the results do not change). */
    static void refdp_fft_span(double *restrict ar, double *restrict ai, double *restrict br,
                               double *restrict bi, const double *restrict cr,
                               const double *restrict ci, Py_ssize_t half) {
        for (Py_ssize_t j = 0; j < half; j++) {
            double xr = br[j], xi = bi[j];
            double tr = cr[j] * xr - ci[j] * xi;
            double ti = cr[j] * xi + ci[j] * xr;
            br[j] = ar[j] - tr;
            bi[j] = ai[j] - ti;
            ar[j] = ar[j] + tr;
            ai[j] = ai[j] + ti;
        }
    }
    """
    void refdp_fft_span(double *ar, double *ai, double *br, double *bi, const double *cr,
                        const double *ci, Py_ssize_t half) nogil


#: Butterfly stages of length up to ``_BLOCK`` run block by block: every such stage of a
#: contiguous block of ``_BLOCK`` points reads only that block (after the bit reversal), so
#: the block's stages run while it is in cache. Each butterfly is the same four products
#: and four sums on the same inputs as in the stage-by-stage order, so the results are
#: identical bit for bit (the order of independent butterflies does not change them).
cdef enum:
    _BLOCK = 4096


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef Py_ssize_t _transform(double[::1] re, double[::1] im, const double[::1] wr, const double[::1] wi,
                           const int64_t[::1] perm):
    # -1 after the transform, or the first position of perm outside [0, n) (nothing written)
    cdef Py_ssize_t n = re.shape[0]
    cdef Py_ssize_t i, j, k, m, half, stride, s, block
    cdef double tr, ti
    cdef double[::1] lr, li
    with nogil:
        for i in range(n):
            if perm[i] < 0 or perm[i] >= n:
                return i
        for i in range(n):
            j = perm[i]
            if j > i:
                tr = re[i]; re[i] = re[j]; re[j] = tr
                ti = im[i]; im[i] = im[j]; im[j] = ti
    if n < 2:
        return -1
    block = n if n < _BLOCK else _BLOCK
    # the twiddles of every stage, contiguous: stage m's w[j * n / m], j < m / 2, at m / 2 - 1 + j
    lr = np.empty(n, dtype=np.float64)
    li = np.empty(n, dtype=np.float64)
    with nogil:
        m = 2
        while m <= n:
            half = m // 2
            stride = n // m
            for j in range(half):
                lr[half - 1 + j] = wr[j * stride]
                li[half - 1 + j] = wi[j * stride]
            m *= 2
        s = 0
        while s < n:
            m = 2
            while m <= block:
                half = m // 2
                k = s
                while k < s + block:
                    refdp_fft_span(&re[k], &im[k], &re[k + half], &im[k + half], &lr[half - 1], &li[half - 1],
                                   half)
                    k += m
                m *= 2
            s += block
        m = 2 * block
        while m <= n:
            half = m // 2
            k = 0
            while k < n:
                refdp_fft_span(&re[k], &im[k], &re[k + half], &im[k + half], &lr[half - 1], &li[half - 1], half)
                k += m
            m *= 2
    return -1


def pair_products(zar, zai, zbr, zbi, qr, qi):
    """The spectrum ``conj(A1 B1 + i A2 B2)`` of a paired convolution, written to ``qr + i qi``.

    ``zar + i zai`` is the transform of ``a1 + i a2`` and ``zbr + i zbi`` that
    of ``b1 + i b2`` (the same arrays for a square). Each entry splits off the
    four real transforms by conjugate symmetry (``X1 = (Z_k + conj Z_{-k}) / 2``,
    ``X2 = (Z_k - conj Z_{-k}) / (2i)``) and forms the products, with the
    operations of :func:`refdp.twins.fft.pair_products` in the same order (one
    pass, no temporaries). The arguments are checked in O(1) first.
    """
    owner = "refdp._fft.pair_products"
    zar = array_arg(zar, "zar", owner, cnp.NPY_FLOAT64, np.float64, 1)
    n = zar.shape[0]
    if n < 1:
        raise parameter_error("zar", owner, "a non-empty array", zar)
    zai = array_arg(zai, "zai", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(zai, "zai", owner, n, "len(zar)")
    zbr = array_arg(zbr, "zbr", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(zbr, "zbr", owner, n, "len(zar)")
    zbi = array_arg(zbi, "zbi", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(zbi, "zbi", owner, n, "len(zar)")
    qr = array_arg(qr, "qr", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
    length(qr, "qr", owner, n, "len(zar)")
    qi = array_arg(qi, "qi", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
    length(qi, "qi", owner, n, "len(zar)")
    _pair_products(zar, zai, zbr, zbi, qr, qi)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _pair_products(const double[::1] zar, const double[::1] zai, const double[::1] zbr,
                         const double[::1] zbi, double[::1] qr, double[::1] qi):
    cdef Py_ssize_t n = zar.shape[0]
    cdef Py_ssize_t k, r
    cdef double a1r, a1i, a2r, a2i, b1r, b1i, b2r, b2i, p1r, p1i, p2r, p2i
    with nogil:
        for k in range(n):
            r = n - k if k else 0
            a1r = (zar[k] + zar[r]) / 2
            a1i = (zai[k] - zai[r]) / 2
            a2r = (zai[k] + zai[r]) / 2
            a2i = (zar[r] - zar[k]) / 2
            b1r = (zbr[k] + zbr[r]) / 2
            b1i = (zbi[k] - zbi[r]) / 2
            b2r = (zbi[k] + zbi[r]) / 2
            b2i = (zbr[r] - zbr[k]) / 2
            p1r = a1r * b1r - a1i * b1i
            p1i = a1r * b1i + a1i * b1r
            p2r = a2r * b2r - a2i * b2i
            p2i = a2r * b2i + a2i * b2r
            qr[k] = p1r - p2i
            qi[k] = -(p1i + p2r)


def power_products(z1r, z1i, z2r, z2i, Py_ssize_t m, qr, qi):
    """The spectrum ``conj(X1**m X2 + i Y1**m Y2)`` of a paired transform power, written to ``qr + i qi``.

    ``z1r + i z1i`` is the transform of ``x1 + i y1`` and ``z2r + i z2i`` that
    of ``x2 + i y2`` (both empty: no second operand, ``X2 = Y2 = 1``). Each
    entry splits off the real transforms by conjugate symmetry as
    :func:`pair_products` does, raises ``X1`` and ``Y1`` to the ``m``-th power
    by binary powering (``m - 1`` complex products in the expanded product
    tree), multiplies by ``X2`` and ``Y2``, and forms ``conj(Q)``: the
    operations of :func:`refdp.twins.fft.power_products` in the same order,
    one pass without temporaries. The arguments are checked in O(1) first.
    """
    owner = "refdp._fft.power_products"
    z1r = array_arg(z1r, "z1r", owner, cnp.NPY_FLOAT64, np.float64, 1)
    n = z1r.shape[0]
    if n < 1:
        raise parameter_error("z1r", owner, "a non-empty array", z1r)
    z1i = array_arg(z1i, "z1i", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(z1i, "z1i", owner, n, "len(z1r)")
    z2r = array_arg(z2r, "z2r", owner, cnp.NPY_FLOAT64, np.float64, 1)
    z2i = array_arg(z2i, "z2i", owner, cnp.NPY_FLOAT64, np.float64, 1)
    if z2r.shape[0] == 0:
        length(z2i, "z2i", owner, 0, "len(z2r)")
    else:
        length(z2r, "z2r", owner, n, "len(z1r) (or 0: no second operand)")
        length(z2i, "z2i", owner, n, "len(z1r)")
    if m < 1 or m > (1 << 30):
        raise parameter_error("m", owner, "an integer in [1, 2**30]", m)
    qr = array_arg(qr, "qr", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
    length(qr, "qr", owner, n, "len(z1r)")
    qi = array_arg(qi, "qi", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
    length(qi, "qi", owner, n, "len(z1r)")
    _power_products(z1r, z1i, z2r, z2i, m, qr, qi)


cdef inline void _cpow(double xr, double xi, Py_ssize_t m, double *outr, double *outi) noexcept nogil:
    # binary powering in the twin's order: the result starts as the first base that is needed
    cdef double rr = 0.0, ri = 0.0, br = xr, bi = xi, tr, ti
    cdef bint unset = True
    while m:
        if m & 1:
            if unset:
                rr = br
                ri = bi
                unset = False
            else:
                tr = rr * br - ri * bi
                ti = rr * bi + ri * br
                rr = tr
                ri = ti
        m >>= 1
        if m:
            tr = br * br - bi * bi
            ti = br * bi + bi * br
            br = tr
            bi = ti
    outr[0] = rr
    outi[0] = ri


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _power_products(const double[::1] z1r, const double[::1] z1i, const double[::1] z2r,
                          const double[::1] z2i, Py_ssize_t m, double[::1] qr, double[::1] qi):
    cdef Py_ssize_t n = z1r.shape[0]
    cdef bint has2 = z2r.shape[0] > 0
    cdef Py_ssize_t k, r
    cdef double x1r, x1i, y1r, y1i, x2r, x2i, y2r, y2i, p1r, p1i, p2r, p2i, tr, ti
    with nogil:
        for k in range(n):
            r = n - k if k else 0
            x1r = (z1r[k] + z1r[r]) / 2
            x1i = (z1i[k] - z1i[r]) / 2
            y1r = (z1i[k] + z1i[r]) / 2
            y1i = (z1r[r] - z1r[k]) / 2
            _cpow(x1r, x1i, m, &p1r, &p1i)
            _cpow(y1r, y1i, m, &p2r, &p2i)
            if has2:
                x2r = (z2r[k] + z2r[r]) / 2
                x2i = (z2i[k] - z2i[r]) / 2
                y2r = (z2i[k] + z2i[r]) / 2
                y2i = (z2r[r] - z2r[k]) / 2
                tr = p1r * x2r - p1i * x2i
                ti = p1r * x2i + p1i * x2r
                p1r = tr
                p1i = ti
                tr = p2r * y2r - p2i * y2i
                ti = p2r * y2i + p2i * y2r
                p2r = tr
                p2i = ti
            qr[k] = p1r - p2i
            qi[k] = -(p1i + p2r)
