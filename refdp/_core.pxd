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
from numpy.random cimport bitgen_t

# 1. Sorted-walk prediction (exponential projected walk, Dwork & Feldman 2018, Sec. 5).
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
#    The same, and log_q2[i] at the row with one vote moved from the plurality class to
#    the runner-up (top-two gap >= 3; +inf for gaps 0..2, -inf for one class).
cdef void lemma4_log_q_pair(const int64_t* counts, Py_ssize_t n_queries, Py_ssize_t n_classes,
                            double gamma, double* log_q, double* log_q2) noexcept nogil

# 4. Accountant log-sum-exp (PATE Theorems 2 and 3, composed by Theorem 1).
#    out[k] >= sum_i min(2 gamma^2 l (l + 1), 2 gamma l, Thm3(q_i, l)) with
#    l = orders[k]; Thm3 is used only where q_i < 1 / (exp(2 gamma) + 1).
cdef void accountant_log_moments(const double* log_q, Py_ssize_t n_queries,
                                 const double* orders, Py_ssize_t n_orders,
                                 double gamma, double* out) noexcept nogil
#    log(sum(exp(x))) in one pass; -inf for n == 0.
cdef double stable_logsumexp(const double* x, Py_ssize_t n) noexcept nogil

# 5. Exact integer noise samplers (Canonne, Kamath and Steinke, "The Discrete
#    Gaussian for Differential Privacy", NeurIPS 2020, Algorithms 1-3).
#    Every probability is a ratio of integers; every random choice is a
#    uniform integer built from whole words of bitgen.next_uint64. Call them
#    holding the bit generator's lock (``with bit_generator.lock, nogil:``).
#    Proofs: docs/theory/discrete_samplers.rst.
#
#    Uniform on [0, n), n >= 1, by rejection (no modulo bias): the high word
#    of w * n for a word w, rejected while the low word is below 2**64 mod n.
#    n == 1 draws no word.
cdef uint64_t uniform_below(bitgen_t* bitgen, uint64_t n) noexcept nogil
#    Bernoulli(num / den), den >= 1 (1 if num >= den); no word when num == 0 or num >= den.
cdef int bernoulli_rational(bitgen_t* bitgen, uint64_t num, uint64_t den) noexcept nogil
#    Bernoulli(exp(-num / den)), den >= 1 (CKS Algorithm 1).
cdef int bernoulli_exp_rational(bitgen_t* bitgen, uint64_t num, uint64_t den) noexcept nogil
#    Y >= 0 with P[Y = y] = (1 - exp(-num/den)) exp(-y num/den), num, den >= 1
#    (CKS Algorithm 2, steps 2-7); Y = hi * 2**64 + lo.
cdef void geometric_exp(bitgen_t* bitgen, uint64_t num, uint64_t den,
                        uint64_t* hi, uint64_t* lo) noexcept nogil
#    out[0:n] ~ i.i.d. Lap_Z(t/s): P[Z = z] proportional to exp(-|z| s/t), 1 <= s, t
#    (CKS Algorithm 2). Returns -1, or the index i of the first draw with
#    |Z| >= 2**63; then out[i] is not written, |Z| = pending[0] * 2**64 + pending[1]
#    and Z < 0 iff pending[2] == 1.
cdef Py_ssize_t discrete_laplace_fill(bitgen_t* bitgen, uint64_t s, uint64_t t,
                                      int64_t* out, Py_ssize_t n,
                                      uint64_t* pending) noexcept nogil
#    out[0:n] ~ i.i.d. N_Z(0, sigma**2), sigma**2 = a/b with a = a_hi * 2**64 + a_lo,
#    t = floor(sigma) + 1, b * t < 2**64 and 2 a b t**2 < 2**128 (CKS Algorithm 3).
#    Returns -1, or the index i of the first proposal Y whose acceptance test
#    needs more than 128 bits (|Y| >= 2**63 or (|Y| b t - a)**2 >= 2**128),
#    stored in pending as above: the caller must keep Y with probability
#    exp(-(|Y| b t - a)**2 / (2 a b t**2)) and resume at i (rejected) or i + 1.
cdef Py_ssize_t discrete_gaussian_fill(bitgen_t* bitgen, uint64_t a_hi, uint64_t a_lo,
                                       uint64_t b, uint64_t t, int64_t* out, Py_ssize_t n,
                                       uint64_t* pending) noexcept nogil
