# cython: language_level=3
"""refdp's compiled kernels.

Each ``cdef`` kernel is declared in ``_core.pxd`` (``noexcept nogil``) and is
free of policy: it computes on raw buffers. The ``_py_*`` functions below are
thin entry points for :mod:`refdp.core`, which validates every argument before
calling them; they release the GIL around the kernel. Each also checks its own
arguments in O(1) (:mod:`refdp._kernel_args`: types, dtypes, shapes,
contiguity, integer ranges), so that no call from Python can read or write
out of bounds or divide by zero. Pure-Python twins of
every kernel live in :mod:`refdp.twins.core`, under the kernels' names, and
the tests compare the two.

Floating point: no kernel is compiled with fast-math; results that are upper
bounds (Lemma 4's q, the accountant's log-moments) are rounded upward by an
explicit, documented margin (docs/theory/floating_point.rst).
"""
from libc.math cimport exp, log, log1p, fabs, INFINITY, NAN, isnan
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from numpy.random cimport bitgen_t
cimport numpy as cnp
from refdp._checks cimport array_arg, int_arg, positive_arg
from refdp._bounds cimport (lemma4_margin, pate_theorem2_bound, pure_dp_log_moment,
                            pure_dp_log_moment_bound,
                            theorem3_margin, theorem3_slack, theorem3_threshold, upward_sum_factor)

import math

import numpy as np

cnp.import_array()

from ._kernel_args import bit_generator_capsule, length, ordered
from .utils.validation import Described, parameter_error

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


def _py_projected_walk_log_odds(x, steps, queries, start, lower, upper):
    """Log-odds after the walk at each sorted query (``len(steps) == len(x)``, lower <= start <= upper)."""
    owner = "refdp._core._py_projected_walk_log_odds"
    x = array_arg(x, "x", owner, cnp.NPY_FLOAT64, np.float64, 1)
    steps = array_arg(steps, "steps", owner, cnp.NPY_FLOAT64, np.float64, 1)
    length(steps, "steps", owner, x.shape[0], "len(x)")
    queries = array_arg(queries, "queries", owner, cnp.NPY_FLOAT64, np.float64, 1)
    start, lower, upper = ordered(lower, start, upper, owner)
    cdef Py_ssize_t bad = _first_descent(queries)
    if bad >= 0:
        raise parameter_error("queries", owner, "sorted in ascending order",
                              Described(f"{queries[bad]!r} after {queries[bad - 1]!r} at position {bad}"))
    return _projected_walk_entry(x, steps, queries, start, lower, upper)


cdef Py_ssize_t _first_descent(const double[::1] v):
    # -1, or the first k with v[k] < v[k - 1] (one pass, no allocation)
    cdef Py_ssize_t k
    with nogil:
        for k in range(1, v.shape[0]):
            if v[k] < v[k - 1]:
                return k
    return -1


cdef object _projected_walk_entry(const double[::1] x, const double[::1] steps,
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


cdef enum:
    # Compare-and-count path (n_classes <= _VOTE_SMALL_CLASSES): queries are
    # processed in blocks of _VOTE_BLOCK; each block keeps one uint8 counter
    # per (class, query) in a 32 KiB stack buffer that stays in L1, and the
    # counters are flushed into the int64 output every _VOTE_FLUSH teachers
    # (a multiple of 4 below 256, so a uint8 counter cannot overflow).
    _VOTE_BLOCK = 1024
    _VOTE_SMALL_CLASSES = 32
    _VOTE_FLUSH = 252
    # Scatter path (more classes): int64 counters of one block of queries,
    # about _VOTE_SCATTER_CELLS * 8 bytes, stay in L2 while the rows stream.
    _VOTE_SCATTER_CELLS = 32768


cdef inline Py_ssize_t _count_votes_sequential(const vote_t* votes, Py_ssize_t n_teachers,
                                               Py_ssize_t n_queries, Py_ssize_t n_classes,
                                               int64_t* counts) noexcept nogil:
    # Reference order (teacher-major, as in refdp.twins.core.count_votes). The fast
    # paths fall back to it when some vote lies outside [0, n_classes), so that
    # the returned index is the first bad one in C order and ``counts`` holds
    # exactly the votes before it.
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


cdef inline uint8_t _encode_row(const vote_t* row, uint8_t* code, Py_ssize_t b,
                                Py_ssize_t n_classes) noexcept nogil:
    # code[q] = vote, or 255 (matches no class) when the vote is outside
    # [0, n_classes); n_classes <= _VOTE_SMALL_CLASSES fits every vote type,
    # so the comparisons stay in the vote's own width (and vectorise up to
    # 32 bits).
    cdef Py_ssize_t q
    cdef vote_t v, c = <vote_t> n_classes
    cdef uint8_t ok, bad = 0
    for q in range(b):
        v = row[q]
        if vote_t is int16_t or vote_t is int32_t:
            ok = (v >= 0) & (v < c)
        elif vote_t is int64_t:
            # no 64-bit vector compare on baseline x86-64: one unsigned test
            ok = <uint64_t> v < <uint64_t> c
        else:
            ok = v < c
        bad |= ok ^ 1
        code[q] = <uint8_t> v if ok else 255
    return bad


cdef inline uint8_t _max_byte4(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2,
                               const uint8_t* r3, Py_ssize_t b, uint8_t m) noexcept nogil:
    cdef Py_ssize_t q
    cdef uint8_t u
    for q in range(b):
        u = r0[q] if r0[q] > r1[q] else r1[q]
        u = u if u > r2[q] else r2[q]
        u = u if u > r3[q] else r3[q]
        m = m if m > u else u
    return m


cdef inline void _tally4(uint8_t* cnt, const uint8_t* r0, const uint8_t* r1, const uint8_t* r2,
                         const uint8_t* r3, Py_ssize_t b, Py_ssize_t n_classes) noexcept nogil:
    # cnt[c * _VOTE_BLOCK + q] += number of the four rows voting c at query q.
    cdef Py_ssize_t c, q
    cdef uint8_t cc
    cdef uint8_t* p
    for c in range(n_classes):
        p = cnt + c * _VOTE_BLOCK
        cc = <uint8_t> c
        for q in range(b):
            p[q] = <uint8_t> (p[q] + (r0[q] == cc) + (r1[q] == cc) + (r2[q] == cc) + (r3[q] == cc))


cdef inline Py_ssize_t _count_votes_small(const vote_t* votes, Py_ssize_t n_teachers,
                                          Py_ssize_t n_queries, Py_ssize_t n_classes,
                                          int64_t* counts) noexcept nogil:
    cdef uint8_t cnt[_VOTE_SMALL_CLASSES * _VOTE_BLOCK]
    cdef uint8_t code[4 * _VOTE_BLOCK]
    cdef const uint8_t* r[4]
    cdef const vote_t* row
    cdef Py_ssize_t q0, b, t, t1, g, j, q, c
    cdef uint64_t cls = <uint64_t> n_classes
    cdef uint8_t bad, top
    cdef int64_t* out
    q0 = 0
    while q0 < n_queries:
        b = n_queries - q0
        if b > _VOTE_BLOCK:
            b = _VOTE_BLOCK
        out = counts + q0 * n_classes
        memset(out, 0, <size_t> (b * n_classes) * sizeof(int64_t))
        bad = 0
        top = 0
        t = 0
        while t < n_teachers:
            t1 = t + _VOTE_FLUSH
            if t1 > n_teachers:
                t1 = n_teachers
            memset(cnt, 0, <size_t> (n_classes * _VOTE_BLOCK))
            while t < t1:
                # a group of g <= 4 teachers; in the tally, missing rows point
                # at an all-255 row (no class), in the range check at row 0
                g = t1 - t
                if g > 4:
                    g = 4
                for j in range(4):
                    if j < g:
                        row = votes + (t + j) * n_queries + q0
                        if vote_t is int8_t or vote_t is uint8_t:
                            # one-byte votes are compared in place: a negative
                            # int8 reads as a byte >= 128 > n_classes, so the
                            # byte maximum detects both ends of the range.
                            r[j] = <const uint8_t*> row
                        else:
                            bad |= _encode_row(row, code + j * _VOTE_BLOCK, b, n_classes)
                            r[j] = code + j * _VOTE_BLOCK
                    else:
                        if j == g:
                            memset(code + j * _VOTE_BLOCK, 255, <size_t> b)
                        r[j] = code + g * _VOTE_BLOCK
                if vote_t is int8_t or vote_t is uint8_t:
                    top = _max_byte4(r[0], r[1 if g > 1 else 0], r[2 if g > 2 else 0],
                                     r[3 if g > 3 else 0], b, top)
                _tally4(cnt, r[0], r[1], r[2], r[3], b, n_classes)
                t += g
            for q in range(b):
                for c in range(n_classes):
                    out[q * n_classes + c] += cnt[c * _VOTE_BLOCK + q]
        if bad or <uint64_t> top >= cls:
            return _count_votes_sequential(votes, n_teachers, n_queries, n_classes, counts)
        q0 += b
    return -1


cdef inline Py_ssize_t _count_votes_scatter(const vote_t* votes, Py_ssize_t n_teachers,
                                            Py_ssize_t n_queries, Py_ssize_t n_classes,
                                            int64_t* counts) noexcept nogil:
    cdef Py_ssize_t t, q, q0, q1, block
    cdef const vote_t* row
    cdef int64_t* cb
    cdef uint64_t v, bad, c = <uint64_t> n_classes
    block = _VOTE_SCATTER_CELLS // n_classes
    if block < 64:
        block = 64
    q0 = 0
    while q0 < n_queries:
        q1 = q0 + block
        if q1 > n_queries:
            q1 = n_queries
        cb = counts + q0 * n_classes
        memset(cb, 0, <size_t> ((q1 - q0) * n_classes) * sizeof(int64_t))
        bad = 0
        for t in range(n_teachers):
            row = votes + t * n_queries
            for q in range(q0, q1):
                v = <uint64_t> row[q]
                bad |= (v >= c)
                cb[(q - q0) * n_classes + <Py_ssize_t> (v if v < c else 0)] += 1
        if bad:
            return _count_votes_sequential(votes, n_teachers, n_queries, n_classes, counts)
        q0 = q1
    return -1


cdef inline Py_ssize_t _count_votes(const vote_t* votes, Py_ssize_t n_teachers,
                                    Py_ssize_t n_queries, Py_ssize_t n_classes,
                                    int64_t* counts) noexcept nogil:
    # Both fast paths are cache-blocked over queries (a teacher-major sweep
    # would stream the whole counts array once per teacher) and accumulate
    # range violations instead of exiting early, which lets the compiler
    # vectorise the inner loops; any violation triggers the sequential pass.
    if n_classes <= 0:
        return _count_votes_sequential(votes, n_teachers, n_queries, n_classes, counts)
    if n_classes <= _VOTE_SMALL_CLASSES:
        return _count_votes_small(votes, n_teachers, n_queries, n_classes, counts)
    return _count_votes_scatter(votes, n_teachers, n_queries, n_classes, counts)


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


def _py_count_votes(votes, n_classes):
    """Return ``(counts, first_bad)``; ``first_bad`` is -1 or a flat index."""
    owner = "refdp._core._py_count_votes"
    cdef cnp.ndarray arr
    cdef int tn = -1
    if cnp.PyArray_Check(votes):
        arr = <cnp.ndarray> votes
        if (cnp.PyArray_NDIM(arr) == 2 and cnp.PyArray_IS_C_CONTIGUOUS(arr)
                and cnp.PyArray_ISNOTSWAPPED(arr)):
            tn = cnp.PyArray_TYPE(arr)
    n_classes = int_arg(n_classes, "n_classes", owner, 0, 2**63)
    if tn == cnp.NPY_INT8:
        return _count_votes_entry[int8_t](votes, n_classes)
    if tn == cnp.NPY_INT16:
        return _count_votes_entry[int16_t](votes, n_classes)
    if tn == cnp.NPY_INT32:
        return _count_votes_entry[int32_t](votes, n_classes)
    if tn == cnp.NPY_INT64 or tn == cnp.NPY_LONGLONG:
        return _count_votes_entry[int64_t](votes, n_classes)
    if tn == cnp.NPY_UINT8:
        return _count_votes_entry[uint8_t](votes, n_classes)
    if tn == cnp.NPY_UINT16:
        return _count_votes_entry[uint16_t](votes, n_classes)
    if tn == cnp.NPY_UINT32:
        return _count_votes_entry[uint32_t](votes, n_classes)
    if tn == cnp.NPY_UINT64 or tn == cnp.NPY_ULONGLONG:
        return _count_votes_entry[uint64_t](votes, n_classes)
    raise parameter_error("votes", owner, "a C-contiguous 2-D array of a native-order integer "
                          "dtype (int8 to int64, uint8 to uint64)", votes)


cdef object _count_votes_entry(const vote_t[:, ::1] votes, Py_ssize_t n_classes):
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


cdef enum:
    # Lemma 4's log-tails of gaps below this bound are kept in a stack table
    # (8 KiB) filled on first use within a call; larger gaps are computed directly.
    _GAP_TABLE = 1024
    _GAP_WORDS = 16         # _GAP_TABLE / 64 bits marking the filled entries


cdef inline double _lemma4_row(const int64_t* row, Py_ssize_t n_classes, Py_ssize_t jstar,
                               int64_t top, Py_ssize_t runner, int64_t d, double gamma,
                               double* ltab, uint64_t* seen) noexcept nogil:
    # Lemma 4's upward-rounded log q of the row with d votes moved from jstar (count top)
    # to runner (d = 0: the row itself; runner is then ignored), jstar the first largest
    # count of that row. Each lt is log(2 + z) - z - LOG4 with z = gamma * gap, evaluated
    # by exactly these operations; a gap met before in the same call reads the value
    # computed then (gaps are integers and repeat across rows), which changes nothing
    # in the result.
    cdef Py_ssize_t j
    cdef int64_t g, t = top - d
    cdef double z, zbar, lt, m, s, w, r, lse
    # streaming log-sum-exp: (m, s) stands for exp(m) * s; w carries the
    # same weights times z, so that w / s is the mass-weighted mean of z.
    m = -INFINITY
    s = 0.0
    w = 0.0
    for j in range(n_classes):
        if j == jstar:
            continue
        if j == runner:
            g = t - (row[j] + d)
        else:
            g = t - row[j]
        z = gamma * <double> g
        if <uint64_t> g < _GAP_TABLE:
            if (seen[g >> 6] >> (g & 63)) & 1:
                lt = ltab[g]
            else:
                lt = log(2.0 + z) - z - LOG4
                ltab[g] = lt
                seen[g >> 6] |= (<uint64_t> 1) << (g & 63)
        else:
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
        return -INFINITY
    lse = m + log(s)
    zbar = w / s
    # upward rounding margin (refdp/_bounds.pxd)
    return lse + lemma4_margin(lse, zbar, n_classes)


cdef inline Py_ssize_t _plurality(const int64_t* row, Py_ssize_t n_classes) noexcept nogil:
    # j*: the first largest count of the row
    cdef Py_ssize_t j, jstar = 0
    for j in range(1, n_classes):
        if row[j] > row[jstar]:
            jstar = j
    return jstar


cdef void lemma4_log_q(const int64_t* counts, Py_ssize_t n_queries, Py_ssize_t n_classes,
                       double gamma, double* log_q) noexcept nogil:
    cdef double ltab[_GAP_TABLE]
    cdef uint64_t seen[_GAP_WORDS]
    cdef Py_ssize_t i, jstar
    cdef const int64_t* row
    cdef int64_t top
    memset(seen, 0, sizeof(seen))
    for i in range(n_queries):
        row = counts + i * n_classes
        jstar = _plurality(row, n_classes)
        top = row[jstar]
        log_q[i] = _lemma4_row(row, n_classes, jstar, top, -1, 0, gamma, ltab, seen)


cdef void lemma4_log_q_pair(const int64_t* counts, Py_ssize_t n_queries, Py_ssize_t n_classes,
                            double gamma, double* log_q, double* log_q2) noexcept nogil:
    # log_q as lemma4_log_q; log_q2 Lemma 4 at the row with one vote moved from the
    # plurality class j* (first largest count) to the runner-up (first largest of the
    # others) when their gap is at least 3 (j* stays the unique largest count), +inf
    # for gaps 0..2, -inf for one class: the values of
    # refdp.pate.accountant.lemma4_two_sided_log_q, operation for operation.
    cdef double ltab[_GAP_TABLE]
    cdef uint64_t seen[_GAP_WORDS]
    cdef Py_ssize_t i, j, jstar, runner
    cdef const int64_t* row
    cdef int64_t top, second
    memset(seen, 0, sizeof(seen))
    for i in range(n_queries):
        row = counts + i * n_classes
        jstar = _plurality(row, n_classes)
        top = row[jstar]
        log_q[i] = _lemma4_row(row, n_classes, jstar, top, -1, 0, gamma, ltab, seen)
        runner = -1
        second = 0
        for j in range(n_classes):
            if j != jstar and (runner < 0 or row[j] > second):
                second = row[j]
                runner = j
        if runner < 0:
            log_q2[i] = -INFINITY
        elif top - second <= 2:
            log_q2[i] = INFINITY
        else:
            log_q2[i] = _lemma4_row(row, n_classes, jstar, top, runner, 1, gamma, ltab, seen)


def _py_laplace_difference_log_tail(gaps, gamma):
    """log P[Y - X > g] for each g of ``gaps`` (float64, C-contiguous), gamma finite > 0."""
    owner = "refdp._core._py_laplace_difference_log_tail"
    return _tail_entry(array_arg(gaps, "gaps", owner, cnp.NPY_FLOAT64, np.float64, 1), positive_arg(gamma, "gamma", owner))


cdef object _tail_entry(const double[::1] gaps, double gamma):
    cdef Py_ssize_t i, n = gaps.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = laplace_difference_log_tail(gaps[i], gamma)
    return out


def _py_lemma4_log_q(counts, gamma):
    """Lemma 4's log q per row of ``counts`` (int64, C-contiguous, >= 1 column), gamma finite > 0."""
    owner = "refdp._core._py_lemma4_log_q"
    counts = array_arg(counts, "counts", owner, cnp.NPY_INT64, np.int64, 2)
    if counts.shape[0] > 0 and counts.shape[1] < 1:
        raise parameter_error("counts", owner, "an array with at least one class column", counts)
    return _lemma4_entry(counts, positive_arg(gamma, "gamma", owner))


cdef object _lemma4_entry(const int64_t[:, ::1] counts, double gamma):
    cdef Py_ssize_t n = counts.shape[0], c = counts.shape[1]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    if n == 0:
        return out
    with nogil:
        lemma4_log_q(&counts[0, 0], n, c, gamma, &o[0])
    return out


def _py_lemma4_log_q_pair(counts, gamma):
    """Lemma 4's log q per row and at the row's worst neighbour (``counts`` int64, C-contiguous, >= 1 column)."""
    owner = "refdp._core._py_lemma4_log_q_pair"
    counts = array_arg(counts, "counts", owner, cnp.NPY_INT64, np.int64, 2)
    if counts.shape[0] > 0 and counts.shape[1] < 1:
        raise parameter_error("counts", owner, "an array with at least one class column", counts)
    return _lemma4_pair_entry(counts, positive_arg(gamma, "gamma", owner))


cdef object _lemma4_pair_entry(const int64_t[:, ::1] counts, double gamma):
    cdef Py_ssize_t n = counts.shape[0], c = counts.shape[1]
    out = np.empty(n, dtype=np.float64)
    out2 = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    cdef double[::1] o2 = out2
    if n == 0:
        return out, out2
    with nogil:
        lemma4_log_q_pair(&counts[0, 0], n, c, gamma, &o[0], &o2[0])
    return out, out2


# --------------------------------------------------------------------------
# 4. accountant log-sum-exp
# --------------------------------------------------------------------------
cdef enum:
    # orders handled per pass over the queries (their order-only terms live on the stack)
    _ORDER_CHUNK = 64


cdef inline void _order_terms(const double* orders, Py_ssize_t m, double gamma,
                              double* lam_, double* best_, double* g2l_) noexcept nogil:
    # Order-only quantities: the data-independent bound (Theorem 2) and the
    # pure-DP bound 2 gamma lambda, each rounded upward, and 2 gamma lambda.
    cdef Py_ssize_t k
    cdef double lam, indep, pure
    for k in range(m):
        lam = orders[k]
        indep = pate_theorem2_bound(gamma, lam)
        pure = pure_dp_log_moment_bound(gamma, lam)
        best_[k] = indep if indep < pure else pure
        lam_[k] = lam
        g2l_[k] = pure_dp_log_moment(gamma, lam)


cdef inline void _query_terms(double lq, const double* lam_, const double* best_,
                              const double* g2l_, Py_ssize_t m, double E, double threshold,
                              double* terms) noexcept nogil:
    # terms[k] = min(order-only bound, Theorem 3 rounded upward) for one query.
    # Query-only quantities are computed once; Theorem 3 is evaluated only when
    # hi = max(a, b) < best, because otherwise val = hi + log1p(exp(lo - hi))
    # >= hi and err >= 0 give, in floating point too, val + err >= best, and
    # the minimum is best either way. Every evaluated operation is the one of
    # the reference formulation, in the same order.
    cdef Py_ssize_t k
    cdef double q, x, a1, a2, flq, slack_x
    cdef double lam, a, b, hi, lo, val, err, best
    q = exp(lq)
    if not (q < threshold):
        for k in range(m):
            terms[k] = best_[k]
        return
    x = E * q
    a1 = log1p(-q)
    a2 = log1p(-x)
    flq = fabs(lq) if lq > -INFINITY else 0.0
    slack_x = theorem3_slack(x)
    for k in range(m):
        lam = lam_[k]
        best = best_[k]
        a = (1.0 + lam) * a1 - lam * a2
        b = lq + g2l_[k]
        if a > b:
            hi = a
            lo = b
        else:
            hi = b
            lo = a
        if hi < best:
            val = hi + log1p(exp(lo - hi))
            err = theorem3_margin(lam, a1, a2, flq, g2l_[k], val, slack_x)
            val = val + err
            if val < best:
                best = val
        terms[k] = best


cdef void accountant_log_moments(const double* log_q, Py_ssize_t n_queries,
                                 const double* orders, Py_ssize_t n_orders,
                                 double gamma, double* out) noexcept nogil:
    # The per-query terms of a run of equal consecutive log_q values are
    # computed once and added once per query, in query order, so the result
    # does not depend on whether runs occur.
    cdef Py_ssize_t i, k, k0, m
    cdef double E = exp(2.0 * gamma)
    cdef double threshold = theorem3_threshold(E)
    cdef double lam_[_ORDER_CHUNK]
    cdef double best_[_ORDER_CHUNK]
    cdef double g2l_[_ORDER_CHUNK]
    cdef double terms[_ORDER_CHUNK]
    cdef double acc[_ORDER_CHUNK]
    k0 = 0
    while k0 < n_orders:
        m = n_orders - k0
        if m > _ORDER_CHUNK:
            m = _ORDER_CHUNK
        _order_terms(orders + k0, m, gamma, lam_, best_, g2l_)
        for k in range(m):
            acc[k] = 0.0
        for i in range(n_queries):
            if i == 0 or not (log_q[i] == log_q[i - 1]):
                _query_terms(log_q[i], lam_, best_, g2l_, m, E, threshold, terms)
            for k in range(m):
                acc[k] += terms[k]
        # sequential summation of n_queries non-negative terms: relative error
        # at most (n_queries - 1) * EPS / 2; round the total upward by n_queries * EPS.
        for k in range(m):
            out[k0 + k] = acc[k] * upward_sum_factor(n_queries)
        k0 += m


cdef void _accountant_table(const double* values, Py_ssize_t n_values,
                            const double* orders, Py_ssize_t n_orders, double gamma,
                            double* table) noexcept nogil:
    # table[i * n_orders + k] = the term of a query with log_q = values[i].
    cdef Py_ssize_t i, k0, m
    cdef double E = exp(2.0 * gamma)
    cdef double threshold = theorem3_threshold(E)
    cdef double lam_[_ORDER_CHUNK]
    cdef double best_[_ORDER_CHUNK]
    cdef double g2l_[_ORDER_CHUNK]
    k0 = 0
    while k0 < n_orders:
        m = n_orders - k0
        if m > _ORDER_CHUNK:
            m = _ORDER_CHUNK
        _order_terms(orders + k0, m, gamma, lam_, best_, g2l_)
        for i in range(n_values):
            _query_terms(values[i], lam_, best_, g2l_, m, E, threshold,
                         table + i * n_orders + k0)
        k0 += m


cdef void _accountant_gather_sum(const int64_t* index, Py_ssize_t n_queries,
                                 const double* table, Py_ssize_t n_orders,
                                 double* out) noexcept nogil:
    # out[k] = (sum over queries i, in order, of table[index[i], k]) rounded
    # upward exactly as in accountant_log_moments.
    cdef Py_ssize_t i, k
    cdef const double* row
    for k in range(n_orders):
        out[k] = 0.0
    for i in range(n_queries):
        row = table + index[i] * n_orders
        for k in range(n_orders):
            out[k] += row[k]
    for k in range(n_orders):
        out[k] = out[k] * upward_sum_factor(n_queries)


def _py_accountant_log_moments(log_q, orders, gamma):
    """Composed log-moments per order (``log_q``, ``orders`` float64, C-contiguous; gamma finite > 0)."""
    owner = "refdp._core._py_accountant_log_moments"
    return _accountant_entry(array_arg(log_q, "log_q", owner, cnp.NPY_FLOAT64, np.float64, 1),
                             array_arg(orders, "orders", owner, cnp.NPY_FLOAT64, np.float64, 1),
                             positive_arg(gamma, "gamma", owner))


cdef enum:
    # below this many queries the accountant sums the terms directly (same sum, term for term)
    _UNIQUE_MIN_QUERIES = 256


cdef object _accountant_entry(const double[::1] log_q, const double[::1] orders, double gamma):
    cdef Py_ssize_t n = log_q.shape[0], m = orders.shape[0]
    cdef Py_ssize_t n_values, k0, mc, chunk
    out = np.zeros(m, dtype=np.float64)
    cdef double[::1] o = out
    if m == 0:
        return out
    cdef const double* pl = &log_q[0] if n > 0 else NULL
    if n < _UNIQUE_MIN_QUERIES:
        # few queries: finding the distinct values costs more than it can save
        with nogil:
            accountant_log_moments(pl, n, &orders[0], m, gamma, &o[0])
        return out
    # Vote histograms repeat, and so do their log_q: when at most half of the
    # values are distinct, evaluate the bounds once per distinct value and sum
    # them per query in the original order (the same sum, term for term, as
    # accountant_log_moments computes).
    values, inverse = np.unique(np.asarray(log_q), return_inverse=True)
    n_values = values.shape[0]
    if 2 * n_values > n:
        with nogil:
            accountant_log_moments(pl, n, &orders[0], m, gamma, &o[0])
        return out
    cdef const double[::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const int64_t[::1] idx = np.ascontiguousarray(inverse.reshape(-1), dtype=np.int64)
    cdef double[:, ::1] table
    # at most 2**22 table entries (32 MiB) at a time
    chunk = (1 << 22) // n_values
    if chunk < 1:
        chunk = 1
    k0 = 0
    while k0 < m:
        mc = m - k0
        if mc > chunk:
            mc = chunk
        table = np.empty((n_values, mc), dtype=np.float64)
        with nogil:
            _accountant_table(&v[0], n_values, &orders[k0], mc, gamma, &table[0, 0])
            _accountant_gather_sum(&idx[0], n, &table[0, 0], mc, &o[k0])
        k0 += mc
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


def _py_logsumexp(x):
    """log(sum(exp(x))) of a float64 C-contiguous 1-D array."""
    return _logsumexp_entry(array_arg(x, "x", "refdp._core._py_logsumexp", cnp.NPY_FLOAT64, np.float64, 1))


cdef object _logsumexp_entry(const double[::1] x):
    cdef Py_ssize_t n = x.shape[0]
    cdef double r
    if n == 0:
        return -np.inf
    with nogil:
        r = stable_logsumexp(&x[0], n)
    return r


# --------------------------------------------------------------------------
# 5. exact integer noise samplers (Canonne, Kamath and Steinke, NeurIPS 2020)
# --------------------------------------------------------------------------
# Every probability below is a ratio of integers and every random choice is a
# uniform integer drawn from whole 64-bit words of the Generator's bitgen_t
# (next_uint64), so no floating-point number touches a probability. The
# pure-Python twins in refdp.twins.core consume the same words in the same order;
# the tests require kernel == twin on the same seed. The proofs are in
# docs/theory/discrete_samplers.rst.
#
# Fixed-width bounds (checked by the entry points, which otherwise use the
# twins): discrete Laplace of scale t/s needs 1 <= s, t < 2**64; discrete
# Gaussian with sigma**2 = a/b and t = floor(sigma) + 1 needs b*t < 2**64 and
# 2*a*b*t**2 < 2**128. Loop counters are 64 bits wide: overflowing one takes
# 2**64 consecutive successful trials, which no computer completes.
cdef extern from *:
    """
    typedef unsigned __int128 refdp_u128;
    #define REFDP_U128_MAX (~(refdp_u128) 0)
    /* high and low 128 bits of the 256-bit product x * y */
    static inline void refdp_mul128(refdp_u128 x, refdp_u128 y,
                                    refdp_u128 *hi, refdp_u128 *lo) {
        uint64_t xl = (uint64_t) x, xh = (uint64_t) (x >> 64);
        uint64_t yl = (uint64_t) y, yh = (uint64_t) (y >> 64);
        refdp_u128 ll = (refdp_u128) xl * yl, lh = (refdp_u128) xl * yh;
        refdp_u128 hl = (refdp_u128) xh * yl, hh = (refdp_u128) xh * yh;
        refdp_u128 mid = (ll >> 64) + (uint64_t) lh + (uint64_t) hl;
        *lo = (refdp_u128) (uint64_t) ll | (mid << 64);
        *hi = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
    }
    """
    ctypedef unsigned long long u128 "refdp_u128"
    void _mul128 "refdp_mul128"(u128 x, u128 y, u128* hi, u128* lo) noexcept nogil
    const u128 U128_MAX "REFDP_U128_MAX"


cdef inline uint64_t _word(bitgen_t* bitgen) noexcept nogil:
    return bitgen.next_uint64(bitgen.state)


cdef inline uint64_t _uniform64(bitgen_t* bitgen, uint64_t n) noexcept nogil:
    # Uniform on [0, n), n >= 1, from one word per try: the high word of
    # w * n, rejected when the low word falls below 2**64 mod n (Lemire 2019),
    # so that each of the n results has exactly floor(2**64 / n) words.
    cdef u128 m
    cdef uint64_t low, threshold
    if n == 1:
        return 0
    m = <u128> _word(bitgen) * n
    low = <uint64_t> m
    if low < n:
        threshold = (<uint64_t> 0 - n) % n
        while low < threshold:
            m = <u128> _word(bitgen) * n
            low = <uint64_t> m
    return <uint64_t> (m >> 64)


cdef inline u128 _draw128(bitgen_t* bitgen) noexcept nogil:
    # two words, the first one high (the twin's order)
    cdef u128 w = <u128> _word(bitgen) << 64
    w = w | _word(bitgen)
    return w


cdef inline u128 _uniform128(bitgen_t* bitgen, u128 n) noexcept nogil:
    # As _uniform64 with 128-bit words for 2**64 <= n < 2**128.
    cdef u128 hi, lo, threshold
    if (n >> 64) == 0:
        return _uniform64(bitgen, <uint64_t> n)
    _mul128(_draw128(bitgen), n, &hi, &lo)
    if lo < n:
        threshold = (<u128> 0 - n) % n
        while lo < threshold:
            _mul128(_draw128(bitgen), n, &hi, &lo)
    return hi


cdef inline int _bernoulli128(bitgen_t* bitgen, u128 num, u128 den) noexcept nogil:
    # Bernoulli(num / den) for den >= 1; no word is drawn when num == 0 or num >= den.
    if num == 0:
        return 0
    if num >= den:
        return 1
    return _uniform128(bitgen, den) < num


cdef inline int _bernoulli_over_k(bitgen_t* bitgen, u128 num, u128 den, uint64_t k) noexcept nogil:
    # Bernoulli(num / (den * k)): one draw when den * k < 2**128, otherwise the
    # product Bernoulli(num / den) * Bernoulli(1 / k) of independent draws.
    if den <= U128_MAX / (<u128> k):
        return _bernoulli128(bitgen, num, den * (<u128> k))
    if not _bernoulli128(bitgen, num, den):
        return 0
    return _bernoulli128(bitgen, 1, <u128> k)


cdef inline int _bernoulli_exp_unit(bitgen_t* bitgen, u128 num, u128 den) noexcept nogil:
    # Bernoulli(exp(-num/den)) for 0 <= num <= den (CKS Algorithm 1, gamma in [0, 1]):
    # the first K with A_K = 0, A_k ~ Bernoulli(gamma / k), is odd with
    # probability sum_k (-gamma)^k / k! = exp(-gamma).
    cdef uint64_t k = 1
    while _bernoulli_over_k(bitgen, num, den, k):
        k += 1
    return <int> (k & 1)


cdef inline int _bernoulli_exp128(bitgen_t* bitgen, u128 num, u128 den) noexcept nogil:
    # Bernoulli(exp(-num/den)) for num >= 0 (CKS Algorithm 1, gamma > 1):
    # floor(gamma) Bernoulli(exp(-1)) trials, then Bernoulli(exp(-frac(gamma))).
    cdef u128 g = num / den
    while g != 0:
        if not _bernoulli_exp_unit(bitgen, 1, 1):
            return 0
        g -= 1
    return _bernoulli_exp_unit(bitgen, num % den, den)


cdef inline u128 _geometric128(bitgen_t* bitgen, uint64_t s, uint64_t t) noexcept nogil:
    # P[Y = y] = (1 - exp(-s/t)) exp(-y s/t), y >= 0 (CKS Algorithm 2, steps 2-7):
    # X = U + t V with U uniform on [0, t) kept with probability exp(-U/t) and
    # V ~ Geometric(1 - exp(-1)) is Geometric(1 - exp(-1/t)); Y = floor(X / s).
    cdef uint64_t u, v = 0
    while True:
        u = _uniform64(bitgen, t)
        if _bernoulli_exp_unit(bitgen, u, t):
            break
    while _bernoulli_exp_unit(bitgen, 1, 1):
        v += 1
    return (<u128> u + <u128> t * (<u128> v)) / (<u128> s)


cdef inline u128 _discrete_laplace128(bitgen_t* bitgen, uint64_t s, uint64_t t, int* negative) noexcept nogil:
    # |Z| of Z ~ Lap_Z(t/s), P[Z = z] proportional to exp(-|z| s/t) (CKS Algorithm 2);
    # the sign goes to *negative.
    cdef u128 y
    cdef int b
    while True:
        y = _geometric128(bitgen, s, t)
        b = _uniform64(bitgen, 2) == 0    # Bernoulli(1/2), as _bernoulli128(1, 2)
        if b and y == 0:
            continue
        negative[0] = b
        return y


cdef uint64_t uniform_below(bitgen_t* bitgen, uint64_t n) noexcept nogil:
    return _uniform64(bitgen, n)


cdef int bernoulli_rational(bitgen_t* bitgen, uint64_t num, uint64_t den) noexcept nogil:
    return _bernoulli128(bitgen, <u128> num, <u128> den)


cdef int bernoulli_exp_rational(bitgen_t* bitgen, uint64_t num, uint64_t den) noexcept nogil:
    return _bernoulli_exp128(bitgen, <u128> num, <u128> den)


cdef void geometric_exp(bitgen_t* bitgen, uint64_t num, uint64_t den,
                        uint64_t* hi, uint64_t* lo) noexcept nogil:
    cdef u128 y = _geometric128(bitgen, num, den)
    hi[0] = <uint64_t> (y >> 64)
    lo[0] = <uint64_t> y


cdef Py_ssize_t discrete_laplace_fill(bitgen_t* bitgen, uint64_t s, uint64_t t,
                                      int64_t* out, Py_ssize_t n,
                                      uint64_t* pending) noexcept nogil:
    cdef Py_ssize_t i
    cdef u128 y
    cdef int negative
    for i in range(n):
        y = _discrete_laplace128(bitgen, s, t, &negative)
        if (y >> 63) != 0:
            pending[0] = <uint64_t> (y >> 64)
            pending[1] = <uint64_t> y
            pending[2] = <uint64_t> negative
            return i
        out[i] = -<int64_t> y if negative else <int64_t> y
    return -1


cdef Py_ssize_t discrete_gaussian_fill(bitgen_t* bitgen, uint64_t a_hi, uint64_t a_lo,
                                       uint64_t b, uint64_t t, int64_t* out, Py_ssize_t n,
                                       uint64_t* pending) noexcept nogil:
    # CKS Algorithm 3 with sigma**2 = a/b, t = floor(sigma) + 1: a proposal
    # Y ~ Lap_Z(t) is kept with probability exp(-(|Y| - sigma**2/t)**2 / (2 sigma**2))
    # = exp(-(|Y| b t - a)**2 / (2 a b t**2)).
    cdef Py_ssize_t i = 0
    cdef u128 a = (<u128> a_hi << 64) | a_lo
    cdef u128 den = (<u128> 2) * a * (<u128> b) * (<u128> t) * (<u128> t)
    cdef u128 y, p, q
    cdef int negative
    cdef uint64_t bt = b * t
    while i < n:
        y = _discrete_laplace128(bitgen, 1, t, &negative)
        if (y >> 63) == 0:
            p = y * (<u128> bt)
            q = p - a if p >= a else a - p
            if (q >> 64) == 0:
                if _bernoulli_exp128(bitgen, q * q, den):
                    out[i] = -<int64_t> y if negative else <int64_t> y
                    i += 1
                continue
        pending[0] = <uint64_t> (y >> 64)
        pending[1] = <uint64_t> y
        pending[2] = <uint64_t> negative
        return i
    return -1


_BitGenerator = np.random.BitGenerator


cdef inline bitgen_t* _bitgen(object bit_generator, str owner) except NULL:
    if not isinstance(bit_generator, _BitGenerator):
        bit_generator_capsule(bit_generator, owner)   # the standard ValueError
    capsule = bit_generator.capsule
    if not PyCapsule_IsValid(capsule, b"BitGenerator"):
        raise ValueError("invalid BitGenerator capsule")
    return <bitgen_t*> PyCapsule_GetPointer(capsule, b"BitGenerator")


def _py_uniform_below(bit_generator, n, size):
    """``size`` draws of uniform_below (1 <= n < 2**128; 128-bit n uses _uniform128)."""
    owner = "refdp._core._py_uniform_below"
    cdef bitgen_t* bg = _bitgen(bit_generator, owner)
    n = int_arg(n, "n", owner, 1, 2**128)
    cdef Py_ssize_t m = int_arg(size, "size", owner, 0)
    cdef u128 nn = (<u128> (<uint64_t> (n >> 64)) << 64) | (<uint64_t> (n & 0xFFFFFFFFFFFFFFFF))
    cdef Py_ssize_t i
    cdef u128 r
    hi = np.empty(m, dtype=np.uint64)
    lo = np.empty(m, dtype=np.uint64)
    cdef uint64_t[::1] h = hi, l = lo
    with bit_generator.lock, nogil:
        for i in range(m):
            r = _uniform128(bg, nn)
            h[i] = <uint64_t> (r >> 64)
            l[i] = <uint64_t> r
    return [(int(a) << 64) | int(c) for a, c in zip(hi, lo)]


def _py_bernoulli(bit_generator, num, den, size, exp_of_minus=False):
    """``size`` draws of Bernoulli(num/den), or of Bernoulli(exp(-num/den)) if ``exp_of_minus``."""
    owner = "refdp._core._py_bernoulli"
    return _bernoulli_entry(bit_generator, int_arg(num, "num", owner, 0, 2**64),
                            int_arg(den, "den", owner, 1, 2**64), int_arg(size, "size", owner, 0),
                            bool(exp_of_minus), owner)


cdef object _bernoulli_entry(bit_generator, uint64_t num, uint64_t den, Py_ssize_t size,
                             bint exp_of_minus, str owner):
    cdef bitgen_t* bg = _bitgen(bit_generator, owner)
    cdef Py_ssize_t i
    out = np.empty(size, dtype=np.int8)
    cdef int8_t[::1] o = out
    with bit_generator.lock, nogil:
        if exp_of_minus:
            for i in range(size):
                o[i] = <int8_t> bernoulli_exp_rational(bg, num, den)
        else:
            for i in range(size):
                o[i] = <int8_t> bernoulli_rational(bg, num, den)
    return out


def _py_geometric_exp(bit_generator, num, den, size):
    """``size`` draws of geometric_exp (1 <= num, den < 2**64), as Python ints."""
    owner = "refdp._core._py_geometric_exp"
    return _geometric_entry(bit_generator, int_arg(num, "num", owner, 1, 2**64),
                            int_arg(den, "den", owner, 1, 2**64), int_arg(size, "size", owner, 0), owner)


cdef object _geometric_entry(bit_generator, uint64_t num, uint64_t den, Py_ssize_t size, str owner):
    cdef bitgen_t* bg = _bitgen(bit_generator, owner)
    cdef Py_ssize_t i
    hi = np.empty(size, dtype=np.uint64)
    lo = np.empty(size, dtype=np.uint64)
    cdef uint64_t[::1] h = hi, l = lo
    with bit_generator.lock, nogil:
        for i in range(size):
            geometric_exp(bg, num, den, &h[i], &l[i])
    return [(int(a) << 64) | int(c) for a, c in zip(hi, lo)]


cdef object _signed(uint64_t hi, uint64_t lo, uint64_t negative):
    mag = (int(hi) << 64) | int(lo)
    return -mag if negative else mag


cdef object _finish(out, big):
    # int64 array, or an object array of Python ints if a draw left int64
    if not big:
        return out
    obj = out.astype(object)
    for i, v in big.items():
        obj[i] = v
    return obj


def _py_discrete_laplace(bit_generator, s, t, size):
    """``size`` draws of Lap_Z(t/s) (1 <= s, t < 2**64): int64 array, or object array of ints."""
    owner = "refdp._core._py_discrete_laplace"
    return _laplace_entry(bit_generator, int_arg(s, "s", owner, 1, 2**64), int_arg(t, "t", owner, 1, 2**64),
                          int_arg(size, "size", owner, 0), owner)


cdef object _laplace_entry(bit_generator, uint64_t s, uint64_t t, Py_ssize_t size, str owner):
    cdef bitgen_t* bg = _bitgen(bit_generator, owner)
    cdef Py_ssize_t start = 0, bad
    cdef uint64_t pending[3]
    out = np.empty(size, dtype=np.int64)
    cdef int64_t[::1] o = out
    big = {}
    while start < size:
        with bit_generator.lock, nogil:
            bad = discrete_laplace_fill(bg, s, t, &o[start], size - start, pending)
        if bad < 0:
            break
        o[start + bad] = 0
        big[start + bad] = _signed(pending[0], pending[1], pending[2])
        start += bad + 1
    return _finish(out, big)


def _py_discrete_gaussian(bit_generator, a, b, t, size):
    """``size`` draws of N_Z(0, a/b) with t = floor(sqrt(a/b)) + 1 (within the kernel bounds).

    A proposal whose acceptance test needs more than 128 bits is tested by the
    exact twin :func:`refdp.twins.core.bernoulli_exp` on the same bit generator,
    then the kernel resumes: the words consumed are those of the twin.
    """
    owner = "refdp._core._py_discrete_gaussian"
    a = int_arg(a, "a", owner, 1, 2**128)
    b = int_arg(b, "b", owner, 1, 2**64)
    t = int_arg(t, "t", owner, 1, 2**64)
    size = int_arg(size, "size", owner, 0)
    if t != math.isqrt(a // b) + 1:
        raise parameter_error("t", owner, f"isqrt(a // b) + 1 = {math.isqrt(a // b) + 1}", t)
    if b * t >= 2**64 or 2 * a * b * t * t >= 2**128:
        raise parameter_error("a", owner, "such that b t < 2**64 and 2 a b t**2 < 2**128 (the "
                              "kernel's fixed width)", Described(f"a = {a}, b = {b}, t = {t}"))
    return _gaussian_entry(bit_generator, a, b, t, size, owner)


cdef object _gaussian_entry(bit_generator, a, uint64_t b, uint64_t t, Py_ssize_t size, str owner):
    from .twins import core as _twins
    cdef bitgen_t* bg = _bitgen(bit_generator, owner)
    cdef Py_ssize_t start = 0, bad
    cdef uint64_t pending[3]
    cdef uint64_t a_hi = <uint64_t> (a >> 64), a_lo = <uint64_t> (a & 0xFFFFFFFFFFFFFFFF)
    out = np.empty(size, dtype=np.int64)
    cdef int64_t[::1] o = out
    big = {}
    words = _twins.word_source(bit_generator)
    while start < size:
        with bit_generator.lock, nogil:
            bad = discrete_gaussian_fill(bg, a_hi, a_lo, b, t, &o[start], size - start, pending)
        if bad < 0:
            break
        y = _signed(pending[0], pending[1], pending[2])
        q = abs(y) * b * t - a
        if _twins.bernoulli_exp(words, q * q, 2 * a * b * t * t):
            o[start + bad] = 0
            big[start + bad] = y
            start += bad + 1
        else:
            start += bad
    return _finish(out, big)
