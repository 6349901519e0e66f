# cython: language_level=3
"""One blocked pass of a margin loss over the data: the hot loop of refdp's ERM solver and cell search.

For rows ``x_i`` (a C-contiguous ``n x d`` array), labels ``y_i`` and a point
``theta``, :func:`margin_pass` computes, row by row, the margin ``m_i = y_i
(x_i . theta)`` (the dot product summed in the order ``j = 0 .. d-1``), the
derivative ``v_i = y_i l'(m_i)`` and the loss ``l(m_i)``, and adds ``v_i x_i``
to the gradient sum of the row's block (``block`` rows each, rows in order)
and ``l(m_i)`` to the block's loss sum. Each row is read once, while it is in
cache, instead of once for the margins and once for the gradient; the loop
runs with the GIL released.

Losses (``kind``): 0 logistic, ``l'(m) = -1 / (1 + exp(m))``, ``l(m) =
log1p(exp(-|m|)) + max(-m, 0)``; 1 Huber hinge of width ``h``, the formulas of
:class:`refdp.utils.losses.HuberHingeLoss`. The rounding analysis of the cell
search (:mod:`refdp.erm._grid_minimiser`) covers this order: a dot product in
any order, ``l'`` to within its :meth:`derivative_rounding` (the logistic
formula loses at most 4 ulps of 1: ``exp`` to 1 ulp, the sum and the
quotient one rounding each), each block summed in any order. The twin
:func:`refdp.twins.erm.margin_pass` performs the same operations in the same
order (Python's ``math.exp`` and ``math.log1p`` are the C library's), so the
two agree bit for bit.

Lane order (``lanes=True``, used by the float-safe objective-perturbation
search, whose release does not depend on how its float path computes): the
dot product is summed in four lanes, lane ``l`` over ``j = l, l + 4, ...``
below ``d - d % 4`` in increasing ``j``, the lanes added as ``(s0 + s1) + (s2
+ s3)`` and the remaining ``j`` added in order; the logistic derivative and
loss share one ``exp(-|m|)``: ``l'(m) = -e / (1 + e)`` for ``m >= 0`` and
``-1 / (1 + e)`` below (exp to 1 ulp, the sum and the quotient one rounding
each: at most 4 ulps of 1, as before), ``l(m) = log1p(e) + max(-m, 0)``; the
gradient sums are added in row order as before. The lanes are independent
chains the compiler vectorises (an AVX2 clone is selected at load time with
GCC on x86-64 Linux; neither clone fuses multiply-adds), so this pass runs
several times faster than the row order at d = 50, and its twin
(:func:`refdp.twins.erm.margin_pass` with ``lanes=True``) agrees bit for bit.
On request the lane pass also writes ``l''(m_i)`` per row (the logistic
``e / ((1 + e)(1 + e))`` from the same ``e = exp(-|m|)``; ``1 / (2h)`` or 0 for
the Huber hinge), the weights of the solver's Newton matrix, so that no second
pass over the rows forms the margins again.
"""
cimport cython
from libc.math cimport exp, log1p, fabs, isfinite
from libc.stdint cimport int64_t

cdef extern from *:
    """
    /* The lane-order pass (refdp._erm module docstring, "Lane order").  Plain C so that
       the compiler vectorises the lanes; with GCC on x86-64 Linux an AVX2 clone is
       chosen at load time when the CPU has it.  Neither clone uses fused multiply-add
       (AVX2 does not include FMA) and nothing is reassociated, so both perform the
       same IEEE operations in the same order as the twin: the results are identical. */
    #include <math.h>
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define REFDP_LANE_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define REFDP_LANE_CLONES
    #endif
    #define REFDP_LANES 4

    static inline void refdp_lane_loss(double m, int kind, double h, double *dv, double *val, int want,
                                       double *curv) {
        /* curv (when not NULL) receives l''(m): e / ((1 + e)(1 + e)) with the shared e = exp(-|m|)
           for the logistic loss, 1 / (2h) inside the Huber hinge's quadratic piece, 0 outside */
        double e;
        if (kind == 0) {
            if (m >= 0.0) {
                e = exp(-m);
                *dv = -e / (1.0 + e);
                if (want) *val = log1p(e);
            } else {
                e = exp(m);
                *dv = -1.0 / (1.0 + e);
                if (want) *val = -m + log1p(e);
            }
            if (curv) *curv = e / ((1.0 + e) * (1.0 + e));
        } else if (m > 1.0 + h) {
            *dv = 0.0;
            *val = 0.0;
            if (curv) *curv = 0.0;
        } else if (m < 1.0 - h) {
            *dv = -1.0;
            *val = 1.0 - m;
            if (curv) *curv = 0.0;
        } else {
            e = 1.0 + h - m;
            *dv = -e / (2.0 * h);
            *val = e * e / (4.0 * h);
            if (curv) *curv = 1.0 / (2.0 * h);
        }
    }

    REFDP_LANE_CLONES
    static void refdp_margin_pass_lanes(const double *X, const double *y, const double *theta, Py_ssize_t n,
                                        Py_ssize_t d, int kind, double h, Py_ssize_t block, double *blocks,
                                        double *values, int want_values, double *curvatures) {
        Py_ssize_t i0, i, j, l, r, g, b, d4 = d - d % REFDP_LANES;
        double s[4][REFDP_LANES], dot[4], v[4], val, dv;
        const double *row[4];
        double *acc;
        for (i0 = 0; i0 < n; i0 += 4) {
            g = n - i0 < 4 ? n - i0 : 4;
            for (r = 0; r < 4; r++) {
                row[r] = X + (i0 + (r < g ? r : 0)) * d;
                for (l = 0; l < REFDP_LANES; l++) s[r][l] = 0.0;
            }
            /* lane l of row r sums x[j] t[j] over j = l mod 4, j < d4, in increasing j */
            for (j = 0; j < d4; j += REFDP_LANES)
                for (r = 0; r < 4; r++)
                    for (l = 0; l < REFDP_LANES; l++)
                        s[r][l] = s[r][l] + row[r][j + l] * theta[j + l];
            for (r = 0; r < g; r++) {
                dot[r] = (s[r][0] + s[r][1]) + (s[r][2] + s[r][3]);
                for (j = d4; j < d; j++) dot[r] = dot[r] + row[r][j] * theta[j];
                i = i0 + r;
                val = 0.0;
                refdp_lane_loss(y[i] * dot[r], kind, h, &dv, &val, want_values, curvatures ? curvatures + i : NULL);
                v[r] = y[i] * dv;
                if (want_values) values[i / block] = values[i / block] + val;
            }
            b = i0 / block;
            if (g == 4 && (i0 + 3) / block == b) {
                /* the four rows' terms added to their block's sums in row order */
                acc = blocks + b * d;
                for (j = 0; j < d; j++)
                    acc[j] = (((acc[j] + v[0] * row[0][j]) + v[1] * row[1][j]) + v[2] * row[2][j])
                             + v[3] * row[3][j];
            } else {
                for (r = 0; r < g; r++) {
                    acc = blocks + ((i0 + r) / block) * d;
                    for (j = 0; j < d; j++) acc[j] = acc[j] + v[r] * row[r][j];
                }
            }
        }
    }
    """
    void refdp_margin_pass_lanes(const double* X, const double* y, const double* theta, Py_ssize_t n,
                                 Py_ssize_t d, int kind, double h, Py_ssize_t block, double* blocks,
                                 double* values, int want_values, double* curvatures) nogil
cimport numpy as cnp
from refdp._checks cimport array_arg, int_arg, positive_arg

import numpy as np

cnp.import_array()

from ._kernel_args import length


cdef enum:
    _GROUP = 4          # rows whose dot products are formed together (independent chains, same order each)


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef void margin_pass(const double* X, const double* y, const double* theta, Py_ssize_t n, Py_ssize_t d,
                      int kind, double h, Py_ssize_t block, double* blocks, double* values) noexcept nogil:
    cdef Py_ssize_t i, i0, j, b, g, r
    cdef const double* row
    cdef const double* r0
    cdef const double* r1
    cdef const double* r2
    cdef const double* r3
    cdef double* acc
    cdef double dots[_GROUP]
    cdef double d0, d1, d2, d3, t, m, dv, v, val, e
    i0 = 0
    while i0 < n:
        g = n - i0
        if g > _GROUP:
            g = _GROUP
        if g == _GROUP:
            # four rows' dot products side by side: each summed over j = 0 .. d-1 in order
            r0 = X + i0 * d
            r1 = r0 + d
            r2 = r1 + d
            r3 = r2 + d
            d0 = 0.0
            d1 = 0.0
            d2 = 0.0
            d3 = 0.0
            for j in range(d):
                t = theta[j]
                d0 = d0 + r0[j] * t
                d1 = d1 + r1[j] * t
                d2 = d2 + r2[j] * t
                d3 = d3 + r3[j] * t
            dots[0] = d0
            dots[1] = d1
            dots[2] = d2
            dots[3] = d3
        else:
            for r in range(g):
                row = X + (i0 + r) * d
                d0 = 0.0
                for j in range(d):
                    d0 = d0 + row[j] * theta[j]
                dots[r] = d0
        for r in range(g):
            i = i0 + r
            row = X + i * d
            m = y[i] * dots[r]
            if kind == 0:
                dv = -1.0 / (1.0 + exp(m))
                if m > 0.0:
                    val = log1p(exp(-m))
                else:
                    val = -m + log1p(exp(m))
            else:
                if m > 1.0 + h:
                    dv = 0.0
                    val = 0.0
                elif m < 1.0 - h:
                    dv = -1.0
                    val = 1.0 - m
                else:
                    e = 1.0 + h - m
                    dv = -e / (2.0 * h)
                    val = e * e / (4.0 * h)
            v = y[i] * dv
            b = i // block
            acc = blocks + b * d
            for j in range(d):
                acc[j] = acc[j] + v * row[j]
            values[b] = values[b] + val
        i0 += g


def _py_margin_pass(X, y, theta, kind, h, block, lanes=False, with_values=True, curvatures=None):
    """(gradient sums per block, shape (ceil(n / block), d); loss sums per block) of one pass (module docstring).

    ``lanes``: the lane-order pass (module docstring); ``with_values`` False skips
    the loss sums there (returned as zeros). ``curvatures`` (lane order only): a
    writeable float64 array of length n that receives ``l''(m_i)`` per row (the
    logistic ``e / ((1 + e)(1 + e))`` with the pass's ``e = exp(-|m|)``).
    """
    owner = "refdp._erm._py_margin_pass"
    X = array_arg(X, "X", owner, cnp.NPY_FLOAT64, np.float64, 2)
    n, d = X.shape[0], X.shape[1]
    y = array_arg(y, "y", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(y, "y", owner, n, "X.shape[0]")
    theta = array_arg(theta, "theta", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(theta, "theta", owner, d, "X.shape[1]")
    cdef int k = int_arg(kind, "kind", owner, 0, 2)
    cdef double hh = positive_arg(h, "h", owner)
    cdef Py_ssize_t bl = int_arg(block, "block", owner, 1, 2**62)
    cdef Py_ssize_t nb = (n + bl - 1) // bl
    if curvatures is not None:
        if not lanes:
            from refdp.utils.validation import parameter_error
            raise parameter_error("curvatures", owner, "None unless lanes is True", curvatures)
        curvatures = array_arg(curvatures, "curvatures", owner, cnp.NPY_FLOAT64, np.float64, 1, True)
        length(curvatures, "curvatures", owner, n, "X.shape[0]")
    blocks = np.zeros((nb, d), dtype=np.float64)
    values = np.zeros(nb, dtype=np.float64)
    if n == 0:
        return blocks, values
    cdef const double[:, ::1] xv = X
    cdef const double[::1] yv = y
    cdef double[:, ::1] bv = blocks
    cdef double[::1] vv = values
    cdef const double* pt = NULL
    cdef const double[::1] tv
    cdef const double* px = &xv[0, 0] if d > 0 else NULL
    cdef double* pb = &bv[0, 0] if d > 0 else NULL
    if d > 0:
        tv = theta
        pt = &tv[0]
    cdef Py_ssize_t nn = n, dd = d
    cdef bint use_lanes = bool(lanes)
    cdef double[::1] cv
    cdef double* pc = NULL
    if curvatures is not None:
        cv = curvatures
        pc = &cv[0]
    cdef int want = 1 if with_values else 0
    cdef double zero = 0.0
    with nogil:
        if not use_lanes:
            margin_pass_rows(px, &yv[0], pt, nn, dd, k, hh, bl, pb, &vv[0])
        elif dd == 0:
            refdp_margin_pass_lanes(&zero, &yv[0], &zero, nn, 0, k, hh, bl, &zero, &vv[0], want, pc)
        else:
            refdp_margin_pass_lanes(px, &yv[0], pt, nn, dd, k, hh, bl, pb, &vv[0], want, pc)
    return blocks, values


cdef void margin_pass_rows(const double* X, const double* y, const double* theta, Py_ssize_t n, Py_ssize_t d,
                           int kind, double h, Py_ssize_t block, double* blocks, double* values) noexcept nogil:
    # d == 0: every margin is 0 (no row to read)
    cdef double zero = 0.0
    if d == 0:
        margin_pass(&zero, y, &zero, n, 0, kind, h, block, &zero, values)
    else:
        margin_pass(X, y, theta, n, d, kind, h, block, blocks, values)


# ---------------------------------------------------------------- the data screen ||x|| vs a radius
#
# Sign of ||x||**2 - radius**2 for each row, decided by a compensated (double-double) sum with a
# rigorous error bound, or 0 where it cannot be decided (refdp.erm._data.rows_above decides those
# rows in exact integer arithmetic). Per row, in the order j = 0 .. d-1: each square split exactly
# by Dekker's product (x = hi + lo with 26-bit halves, valid for 2**-480 <= |x| <= 2**500 or x = 0),
# its leading part added to the running sum by Knuth's TwoSum (exact error term), the error terms
# and the squares' low parts summed in floating point with the sum of their absolute values for the
# bound. An entry outside the exact range of the split (or a non-finite one) makes the row
# undecided. The twin refdp.twins.erm.row_norm_sign performs the same operations in the same order.

cdef double _SPLIT = 134217729.0           # 2**27 + 1
cdef double _U53 = 2.0 ** -53


cdef inline void _two_square(double x, double* p, double* e) noexcept nogil:
    cdef double c = _SPLIT * x
    cdef double hi = c - (c - x)
    cdef double lo = x - hi
    p[0] = x * x
    e[0] = ((hi * hi - p[0]) + 2.0 * hi * lo) + lo * lo


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void row_norm_sign(const double* X, Py_ssize_t n, Py_ssize_t d, double radius,
                        int64_t* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef const double* row
    cdef double x, a, p, e, t, bb, err, S, small, absmall, rp, re, D, V, bound
    cdef double lo_x = 2.0 ** -480, hi_x = 2.0 ** 500, floor_ = 2.0 ** -1000
    cdef double kU = <double>(2 * d + 4) * _U53
    cdef bint tiny
    _two_square(radius, &rp, &re)
    for i in range(n):
        row = X + i * d
        S = 0.0
        small = 0.0
        absmall = 0.0
        tiny = False
        for j in range(d):
            x = row[j]
            a = fabs(x)
            if a != 0.0 and (a < lo_x or a > hi_x):
                tiny = True
                x = 0.0
            _two_square(x, &p, &e)
            t = S + p                           # TwoSum(S, p): S + p = t + err exactly
            bb = t - S
            err = (S - (t - bb)) + (p - bb)
            S = t
            small = small + (err + e)
            absmall = absmall + (fabs(err) + fabs(e))
        D = S - rp
        V = D + (small - re)
        bound = ((_U53 * fabs(D) + kU * (absmall + fabs(re)) * 1.01) + 2.0 * _U53 * fabs(V)) + floor_
        if tiny or not isfinite(V):
            out[i] = 0
        elif V > bound:
            out[i] = 1
        elif V < -bound:
            out[i] = -1
        else:
            out[i] = 0


def _py_row_norm_sign(X, radius):
    """Per row of ``X`` (C-contiguous float64, 2-D): +1 / -1 for ``||x||**2`` above / below ``radius**2``, 0 undecided.

    ``radius`` must lie in ``[2**-480, 2**500]`` (the exact range of the split).
    """
    owner = "refdp._erm._py_row_norm_sign"
    X = array_arg(X, "X", owner, cnp.NPY_FLOAT64, np.float64, 2)
    cdef double r = positive_arg(radius, "radius", owner)
    if not (2.0 ** -480 <= r <= 2.0 ** 500):
        from refdp.utils.validation import parameter_error
        raise parameter_error("radius", owner, "a float in the range [2**-480, 2**500]", radius)
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out
    cdef int64_t[::1] ov = out
    cdef const double[:, ::1] xv = X
    cdef double zero = 0.0
    cdef const double* px = &xv[0, 0] if d > 0 else &zero
    with nogil:
        row_norm_sign(px, n, d, r, &ov[0])
    return out


# ---------------------------------------------------------------- exact normal draws (Karney's Algorithm N)
#
# The standard normal draws of the float-safe objective perturbation (refdp.utils.lazy_noise:
# lazy_normal, Karney 2016, Algorithms N and B), with the same random choices in the same order:
# k from geometric_exp(1, 2), accepted with bernoulli_exp(k (k - 1), 2); then k + 1 runs of
# Algorithm B, each comparing fresh lazy uniforms digit by digit (digits taken from the bit
# buffer of refdp.utils.lazy_noise.BitSource: 64-bit words, first bit highest) and drawing
# uniform_below(2k + 2) for the acceptance of (2k + x) / (2k + 2); finally the sign from one bit.
# The samplers are refdp._core's (the ones refdp.core's draws call). Every lazy uniform is held in
# one 64-bit word: a draw needing more than `max_length` digits (probability about 2**-max_length
# per comparison) or a k above 2**20 stops the kernel, which then reports failure; the caller
# restores the bit generator's state and draws with the twin.

from numpy.random cimport bitgen_t
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport uint8_t, uint64_t
from refdp._core cimport geometric_exp, bernoulli_exp_rational, uniform_below

cdef struct _Bits:
    bitgen_t* bg
    uint64_t buffer
    int left
    int max_length
    int failed

cdef struct _Uniform:
    uint64_t m
    int length


cdef inline uint64_t _take(_Bits* s, int k) noexcept nogil:
    # the next k (1 <= k <= 64) bits of the buffer, first bit highest (BitSource.bits)
    cdef uint64_t out = 0
    cdef int take
    while k > 0:
        if s.left == 0:
            s.buffer = s.bg.next_raw(s.bg.state)
            s.left = 64
        take = k if k < s.left else s.left
        s.left -= take
        if take == 64:
            out = s.buffer
        else:
            out = (out << take) | ((s.buffer >> s.left) & ((<uint64_t> 1 << take) - 1))
        k -= take
    return out


cdef inline int _digit(_Bits* s, _Uniform* u, int i) noexcept nogil:
    # the i-th digit of u (LazyUniform.digit), drawn if needed; -1 when u would pass max_length
    cdef int k
    if i >= u.length:
        k = i + 1 - u.length
        if i + 1 > s.max_length:
            s.failed = 1
            return -1
        u.m = (u.m << k) | _take(s, k)
        u.length += k
    return <int> ((u.m >> (u.length - 1 - i)) & 1)


cdef inline int _less_than(_Bits* s, _Uniform* a, _Uniform* b) noexcept nogil:
    # whether a < b (LazyUniform.less_than); -1 on failure
    cdef int i = 0, da, db
    while True:
        da = _digit(s, a, i)
        if da < 0:
            return -1
        db = _digit(s, b, i)
        if db < 0:
            return -1
        if da != db:
            return 1 if da < db else 0
        i += 1


cdef int _karney_b(_Bits* s, uint64_t k, _Uniform* x) noexcept nogil:
    # Bernoulli(exp(-x (2k + x) / (2k + 2))), Karney's Algorithm B (lazy_noise._karney_b); -1 on failure
    cdef _Uniform* y = x
    cdef _Uniform held, z, r
    cdef uint64_t n = 0, m = 2 * k + 2, i
    cdef int c
    while True:
        z.m = 0
        z.length = 0
        c = _less_than(s, &z, y)
        if c < 0:
            return -1
        if c == 0:
            break
        i = uniform_below(s.bg, m)
        if i > 2 * k:
            break
        if i == 2 * k:
            r.m = 0
            r.length = 0
            c = _less_than(s, &r, x)
            if c < 0:
                return -1
            if c == 0:
                break
        held = z
        y = &held
        n += 1
    return 1 if n % 2 == 0 else 0


cdef int lazy_normals(bitgen_t* bg, Py_ssize_t count, uint64_t* buffer, int* left, int max_length,
                      uint8_t* negative, uint64_t* ks, uint64_t* ms, int* lengths) noexcept nogil:
    """``count`` draws of Karney's Algorithm N; 0 on success, -1 on failure (see above)."""
    cdef _Bits s
    cdef _Uniform x
    cdef Py_ssize_t j
    cdef uint64_t k, hi, t
    cdef int ok, c
    s.bg = bg
    s.buffer = buffer[0]
    s.left = left[0]
    s.max_length = max_length
    s.failed = 0
    for j in range(count):
        while True:
            geometric_exp(bg, 1, 2, &hi, &k)
            if hi != 0 or k > (<uint64_t> 1 << 20):
                return -1
            if not bernoulli_exp_rational(bg, k * (k - 1) if k > 0 else 0, 2):
                continue
            x.m = 0
            x.length = 0
            ok = 1
            t = 0
            while t <= k:
                c = _karney_b(&s, k, &x)
                if c < 0:
                    return -1
                if c == 0:
                    ok = 0
                    break
                t += 1
            if ok:
                negative[j] = <uint8_t> _take(&s, 1)
                ks[j] = k
                ms[j] = x.m
                lengths[j] = x.length
                break
    buffer[0] = s.buffer
    left[0] = s.left
    return 0


#: The bit generators whose ``random_raw`` words (BitSource's) are their ``next_uint64`` words.
_RAW_IS_UINT64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def _py_lazy_normals(bit_generator, count, buffer, left, max_length=64):
    """``count`` exact normal draws with a bit buffer ``(buffer, left)``: see the comment above.

    Returns ``(ok, buffer, left, negative, k, m, length)`` (lists; ``ok`` False: the kernel
    stopped, and the bit generator has moved: the caller restores its state).
    """
    owner = "refdp._erm._py_lazy_normals"
    if type(bit_generator) not in _RAW_IS_UINT64:
        from refdp.utils.validation import parameter_error
        raise parameter_error("bit_generator", owner, "a PCG64, PCG64DXSM, Philox or SFC64 bit generator "
                              "(whose raw words are its 64-bit words)", bit_generator)
    cdef Py_ssize_t c = int_arg(count, "count", owner, 0, 2**31)
    buf_ = int_arg(buffer, "buffer", owner, 0, 2**64)
    cdef int lf = int_arg(left, "left", owner, 0, 65)
    cdef int ml = int_arg(max_length, "max_length", owner, 1, 65)
    capsule = bit_generator.capsule
    if not PyCapsule_IsValid(capsule, b"BitGenerator"):
        raise ValueError("invalid BitGenerator capsule")
    cdef bitgen_t* bg = <bitgen_t*> PyCapsule_GetPointer(capsule, b"BitGenerator")
    cdef uint64_t buf = <uint64_t> buf_
    neg = np.zeros(c, dtype=np.uint8)
    ks = np.zeros(c, dtype=np.uint64)
    ms = np.zeros(c, dtype=np.uint64)
    lengths = np.zeros(c, dtype=np.intc)
    cdef uint8_t[::1] nv = neg
    cdef uint64_t[::1] kv = ks, mv = ms
    cdef int[::1] lv = lengths
    cdef int status = 0
    if c == 0:
        return True, int(buf), lf, [], [], [], []
    with bit_generator.lock, nogil:
        status = lazy_normals(bg, c, &buf, &lf, ml, &nv[0], &kv[0], &mv[0], &lv[0])
    if status != 0:
        return False, int(buf_), int(left), [], [], [], []
    return True, int(buf), lf, [bool(v) for v in neg.tolist()], ks.tolist(), ms.tolist(), lengths.tolist()


# ---------------------------------------------------------------- column sums of |x|
#
# out[j] = sum_i |x_ij|, the rows added in order i = 0 .. n-1 (the twin refdp.twins.erm.column_abs_sums
# adds in the same order). The cell search bounds the float sum of n non-negative terms in any order
# by (1 - gamma_n) times the exact one (refdp.erm._grid_minimiser.GridMinimiser), so this order is one
# the bound covers.

@cython.boundscheck(False)
@cython.wraparound(False)
cdef void column_abs_sums(const double* X, Py_ssize_t n, Py_ssize_t d, double* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef const double* row
    for j in range(d):
        out[j] = 0.0
    for i in range(n):
        row = X + i * d
        for j in range(d):
            out[j] = out[j] + fabs(row[j])


def _py_column_abs_sums(X):
    """``sum_i |x_ij|`` per column of ``X`` (C-contiguous float64, 2-D), rows added in order."""
    owner = "refdp._erm._py_column_abs_sums"
    X = array_arg(X, "X", owner, cnp.NPY_FLOAT64, np.float64, 2)
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    out = np.zeros(d, dtype=np.float64)
    if n == 0 or d == 0:
        return out
    cdef const double[:, ::1] xv = X
    cdef double[::1] ov = out
    with nogil:
        column_abs_sums(&xv[0, 0], n, d, &ov[0])
    return out
