# cython: language_level=3
"""refdp's compiled kernels.

Each ``cdef`` kernel is declared in ``_core.pxd`` (``noexcept nogil``) and is
free of policy: it computes on raw buffers. The ``_py_*`` functions below are
thin entry points for :mod:`refdp.core`, which validates every argument before
calling them; they release the GIL around the kernel. Pure-Python twins of
every kernel live in :mod:`refdp._twins` and the tests compare the two.

Floating point: no kernel is compiled with fast-math; results that are upper
bounds (Lemma 4's q, the accountant's log-moments) are rounded upward by an
explicit, documented margin (docs/theory/floating_point.rst).
"""
from libc.math cimport exp, log, log1p, fabs, INFINITY, NAN, isnan
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

import numpy as np

cdef double EPS = 2.220446049250313e-16      # 2**-52, the spacing of doubles at 1
cdef double LOG4 = 1.3862943611198906        # log(4)


# --------------------------------------------------------------------------
# 1. sorted-walk prediction
# --------------------------------------------------------------------------
cdef void projected_walk_log_odds(const double* x, const double* steps, Py_ssize_t n,
                                  const double* queries, Py_ssize_t n_queries,
                                  double start, double lower, double upper,
                                  double* out) noexcept nogil:
    cdef Py_ssize_t i = 0, k
    cdef double l = start, qk
    for k in range(n_queries):
        qk = queries[k]
        while i < n and x[i] <= qk:
            l = l + steps[i]
            if l < lower:
                l = lower
            elif l > upper:
                l = upper
            i += 1
        out[k] = l


def _py_projected_walk_log_odds(const double[::1] x, const double[::1] steps,
                                const double[::1] queries, double start,
                                double lower, double upper):
    cdef Py_ssize_t n = x.shape[0], m = queries.shape[0]
    out = np.empty(m, dtype=np.float64)
    cdef double[::1] o = out
    cdef const double* px = &x[0] if n > 0 else NULL
    cdef const double* ps = &steps[0] if n > 0 else NULL
    cdef const double* pq = &queries[0] if m > 0 else NULL
    cdef double* po = &o[0] if m > 0 else NULL
    with nogil:
        projected_walk_log_odds(px, ps, n, pq, m, start, lower, upper, po)
    return out


# --------------------------------------------------------------------------
# 2. vote counting
# --------------------------------------------------------------------------
ctypedef fused vote_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef inline Py_ssize_t _count_votes(const vote_t* votes, Py_ssize_t n_teachers,
                                    Py_ssize_t n_queries, Py_ssize_t n_classes,
                                    int64_t* counts) noexcept nogil:
    cdef Py_ssize_t t, q
    cdef const vote_t* row
    cdef uint64_t v, c = <uint64_t> n_classes
    memset(counts, 0, <size_t> (n_queries * n_classes) * sizeof(int64_t))
    for t in range(n_teachers):
        row = votes + t * n_queries
        for q in range(n_queries):
            # A negative signed vote converts to a huge unsigned value, so one
            # unsigned comparison rejects both ends of [0, n_classes).
            v = <uint64_t> row[q]
            if v >= c:
                return t * n_queries + q
            counts[q * n_classes + <Py_ssize_t> v] += 1
    return -1


cdef Py_ssize_t count_votes_int8(const int8_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_int16(const int16_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_int32(const int32_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_int64(const int64_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_uint8(const uint8_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_uint16(const uint16_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_uint32(const uint32_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)
cdef Py_ssize_t count_votes_uint64(const uint64_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil:
    return _count_votes(votes, n_teachers, n_queries, n_classes, counts)


def _py_count_votes(const vote_t[:, ::1] votes, Py_ssize_t n_classes):
    """Return ``(counts, first_bad)``; ``first_bad`` is -1 or a flat index."""
    cdef Py_ssize_t n_teachers = votes.shape[0], n_queries = votes.shape[1]
    counts = np.zeros((n_queries, n_classes), dtype=np.int64)
    if n_teachers == 0 or n_queries == 0 or n_classes == 0:
        return counts, (-1 if n_teachers == 0 or n_queries == 0 else 0)
    cdef int64_t[:, ::1] c = counts
    cdef Py_ssize_t bad
    with nogil:
        bad = _count_votes(&votes[0, 0], n_teachers, n_queries, n_classes, &c[0, 0])
    return counts, bad


# --------------------------------------------------------------------------
# 3. Laplace tail sums
# --------------------------------------------------------------------------
cdef double laplace_difference_log_tail(double gap, double gamma) noexcept nogil:
    cdef double z = gamma * gap
    return log(2.0 + z) - z - LOG4


cdef void lemma4_log_q(const int64_t* counts, Py_ssize_t n_queries, Py_ssize_t n_classes,
                       double gamma, double* log_q) noexcept nogil:
    cdef Py_ssize_t i, j, jstar
    cdef const int64_t* row
    cdef int64_t top
    cdef double z, zbar, lt, m, s, w, r, lse
    for i in range(n_queries):
        row = counts + i * n_classes
        jstar = 0
        top = row[0]
        for j in range(1, n_classes):
            if row[j] > top:
                top = row[j]
                jstar = j
        # streaming log-sum-exp: (m, s) stands for exp(m) * s; w carries the
        # same weights times z, so that w / s is the mass-weighted mean of z.
        m = -INFINITY
        s = 0.0
        w = 0.0
        for j in range(n_classes):
            if j == jstar:
                continue
            z = gamma * <double> (top - row[j])
            lt = log(2.0 + z) - z - LOG4
            if lt > m:
                r = exp(m - lt)
                s = s * r + 1.0
                w = w * r + z
                m = lt
            else:
                r = exp(lt - m)
                s = s + r
                w = w + r * z
        if s == 0.0:
            log_q[i] = -INFINITY
        else:
            lse = m + log(s)
            zbar = w / s
            # upward rounding margin (docs/theory/floating_point.rst)
            log_q[i] = lse + 8.0 * EPS * (zbar + log(2.0 + zbar) + fabs(lse) + 2.0 * n_classes + 8.0)


def _py_laplace_difference_log_tail(const double[::1] gaps, double gamma):
    cdef Py_ssize_t i, n = gaps.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = laplace_difference_log_tail(gaps[i], gamma)
    return out


def _py_lemma4_log_q(const int64_t[:, ::1] counts, double gamma):
    cdef Py_ssize_t n = counts.shape[0], c = counts.shape[1]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    if n == 0:
        return out
    with nogil:
        lemma4_log_q(&counts[0, 0], n, c, gamma, &o[0])
    return out


# --------------------------------------------------------------------------
# 4. accountant log-sum-exp
# --------------------------------------------------------------------------
cdef void accountant_log_moments(const double* log_q, Py_ssize_t n_queries,
                                 const double* orders, Py_ssize_t n_orders,
                                 double gamma, double* out) noexcept nogil:
    cdef Py_ssize_t i, k
    cdef double E = exp(2.0 * gamma)
    # Thm 3 needs q < (e^{2g} - 1)/(e^{4g} - 1) = 1/(e^{2g} + 1); the computed
    # threshold is lowered by a few ulps so that rounding never admits a q
    # outside the theorem's range.
    cdef double threshold = (1.0 / (E + 1.0)) * (1.0 - 8.0 * EPS)
    cdef double lq, q, x, a1, a2, lam, a, b, hi, lo, val, err, best, indep, pure
    cdef double slack_x
    for k in range(n_orders):
        out[k] = 0.0
    for i in range(n_queries):
        lq = log_q[i]
        q = exp(lq)
        if q < threshold:
            x = E * q
            a1 = log1p(-q)
            a2 = log1p(-x)
            slack_x = 8.0 * EPS * x / (1.0 - x)
        for k in range(n_orders):
            lam = orders[k]
            indep = 2.0 * gamma * gamma * lam * (lam + 1.0) * (1.0 + 8.0 * EPS)
            pure = 2.0 * gamma * lam * (1.0 + 4.0 * EPS)
            best = indep if indep < pure else pure
            if q < threshold:
                a = (1.0 + lam) * a1 - lam * a2
                b = lq + 2.0 * gamma * lam
                if a > b:
                    hi = a
                    lo = b
                else:
                    hi = b
                    lo = a
                val = hi + log1p(exp(lo - hi))
                err = 64.0 * EPS * ((1.0 + lam) * fabs(a1) + lam * fabs(a2)
                                    + (fabs(lq) if lq > -INFINITY else 0.0)
                                    + 2.0 * gamma * lam + fabs(val) + 1.0) \
                    + (1.0 + 2.0 * lam) * slack_x
                val = val + err
                if val < best:
                    best = val
            out[k] += best
    # sequential summation of n_queries non-negative terms: relative error
    # at most (n_queries - 1) * EPS / 2; round the total upward by n_queries * EPS.
    for k in range(n_orders):
        out[k] = out[k] * (1.0 + (n_queries + 2) * EPS)


def _py_accountant_log_moments(const double[::1] log_q, const double[::1] orders, double gamma):
    cdef Py_ssize_t n = log_q.shape[0], m = orders.shape[0]
    out = np.zeros(m, dtype=np.float64)
    cdef double[::1] o = out
    if m == 0:
        return out
    cdef const double* pl = &log_q[0] if n > 0 else NULL
    with nogil:
        accountant_log_moments(pl, n, &orders[0], m, gamma, &o[0])
    return out


cdef double stable_logsumexp(const double* x, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef double m = -INFINITY, s = 0.0, v
    for i in range(n):
        v = x[i]
        if isnan(v):
            return NAN
        if v == INFINITY:
            return INFINITY
        if v > m:
            s = s * exp(m - v) + 1.0
            m = v
        elif v > -INFINITY:
            s = s + exp(v - m)
    if m == -INFINITY:
        return -INFINITY
    return m + log(s)


def _py_logsumexp(const double[::1] x):
    cdef Py_ssize_t n = x.shape[0]
    cdef double r
    if n == 0:
        return -np.inf
    with nogil:
        r = stable_logsumexp(&x[0], n)
    return r
