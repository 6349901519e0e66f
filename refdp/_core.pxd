# cython: language_level=3
"""C signatures of refdp's compiled kernels, for other Cython code to cimport.

Every kernel is ``noexcept nogil``: it takes raw C-contiguous buffers, performs
no validation and no allocation that can fail, and encodes "bad input" in its
return value where one is possible. The Python wrappers in :mod:`refdp.core`
validate arguments and hold the policy (which step, which classes, which
orders); the kernels only compute.

Example
-------
.. code-block:: cython

    from refdp._core cimport stable_logsumexp

    cdef double total(double[::1] x) noexcept nogil:
        return stable_logsumexp(&x[0], x.shape[0])
"""
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

# 1. Sorted-walk prediction (exponential projected walk, SPEC section 2).
#    x[n] sorted ascending with the per-record steps in the same order,
#    queries[n_queries] sorted ascending; out[k] is the log-odds after every
#    record with x <= queries[k], starting at `start`, clipped to [lower, upper]
#    after each step.  O(n + n_queries).
cdef void projected_walk_log_odds(const double* x, const double* steps, Py_ssize_t n,
                                  const double* queries, Py_ssize_t n_queries,
                                  double start, double lower, double upper,
                                  double* out) noexcept nogil

# 2. Vote counting: votes[n_teachers, n_queries] (C order) -> counts[n_queries, n_classes].
#    counts is overwritten.  Returns -1 when every vote lies in [0, n_classes),
#    otherwise the flat C-order index t * n_queries + q of the first vote outside it.
cdef Py_ssize_t count_votes_int8(const int8_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_int16(const int16_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_int32(const int32_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_int64(const int64_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_uint8(const uint8_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_uint16(const uint16_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_uint32(const uint32_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil
cdef Py_ssize_t count_votes_uint64(const uint64_t* votes, Py_ssize_t n_teachers, Py_ssize_t n_queries, Py_ssize_t n_classes, int64_t* counts) noexcept nogil

# 3. Laplace tail sums (PATE Lemma 4).
#    log of P[Y - X > gap] for X, Y i.i.d. Lap(1/gamma), gap >= 0:
#    log((2 + gamma*gap) / (4 exp(gamma*gap))).
cdef double laplace_difference_log_tail(double gap, double gamma) noexcept nogil
#    log_q[i] >= log of Lemma 4's q for counts[i, :] (rounded upward, see docs/theory).
cdef void lemma4_log_q(const int64_t* counts, Py_ssize_t n_queries, Py_ssize_t n_classes,
                       double gamma, double* log_q) noexcept nogil

# 4. Accountant log-sum-exp (PATE Theorems 2 and 3, composed by Theorem 1).
#    out[k] >= sum_i min(2 gamma^2 l (l + 1), 2 gamma l, Thm3(q_i, l)) with
#    l = orders[k]; Thm3 is used only where q_i < 1 / (exp(2 gamma) + 1).
cdef void accountant_log_moments(const double* log_q, Py_ssize_t n_queries,
                                 const double* orders, Py_ssize_t n_orders,
                                 double gamma, double* out) noexcept nogil
#    log(sum(exp(x))) in one pass; -inf for n == 0.
cdef double stable_logsumexp(const double* x, Py_ssize_t n) noexcept nogil
