# cython: language_level=3
"""C signatures of refdp's exact-LNMax kernels, for other Cython code to cimport.

Every kernel is ``noexcept nogil`` and works on caller-owned buffers; the
Python wrappers (:mod:`refdp.core`, called by :mod:`refdp.pate.lnmax_law` and
:mod:`refdp.pate.exact`) validate
arguments and build the Gauss-Legendre tables. ``gx, gw`` (``gm`` points) is the
rule of the numerical fallback on [-1, 1] (refdp.twins.lnmax.GL_M points);
``rx, rw`` (``rm = (C + 1) // 2`` points) the rule of the unbounded right piece.
Workspaces: ``lnmax_workspace_doubles(C)`` doubles and
``lnmax_workspace_ints(C)`` int64 for the law, the ``lnmax_exact_*`` sizes for
an exact query.

Example
-------
.. code-block:: cython

    from libc.stdint cimport int64_t
    from refdp._lnmax cimport lnmax_log_law

    cdef void law(const int64_t* counts, Py_ssize_t C, double gamma, const double* gx,
                  const double* gw, const double* rx, const double* rw, double* work,
                  int64_t* iwork, double* out) noexcept nogil:
        lnmax_log_law(counts, C, gamma, gx, gw, 12, rx, rw, (C + 1) // 2, work, iwork, out)
"""
from libc.stdint cimport int64_t

cdef Py_ssize_t lnmax_workspace_doubles(Py_ssize_t C) noexcept nogil
cdef Py_ssize_t lnmax_workspace_ints(Py_ssize_t C) noexcept nogil
cdef Py_ssize_t lnmax_exact_workspace_doubles(Py_ssize_t C) noexcept nogil
cdef Py_ssize_t lnmax_exact_workspace_ints(Py_ssize_t C) noexcept nogil

# out[j] = log P[argmax_i (counts[i] + Lap(1/gamma)) = j], j < C (counts >= 0).
cdef void lnmax_log_law(const int64_t* counts, Py_ssize_t C, double gamma,
                        const double* gx, const double* gw, Py_ssize_t gm,
                        const double* rx, const double* rw, Py_ssize_t rm,
                        double* work, int64_t* iwork, double* out) noexcept nogil

# For one count vector: log_q = log P[M(n) != j*], log_q2 = log P[M(n^-) != j*]
# (one vote moved from j* to the runner-up), fwd[k] / both[k] the worst-case
# log-moment at orders[k] over all neighbours (forward / both directions,
# at least 0), max_abs_log the largest |log P| met. Not rounded.
cdef void lnmax_exact_query(const int64_t* counts, Py_ssize_t C, double gamma,
                            const double* orders, Py_ssize_t K,
                            const double* gx, const double* gw, Py_ssize_t gm,
                            const double* rx, const double* rw, Py_ssize_t rm,
                            double* work, int64_t* iwork,
                            double* log_q, double* log_q2, double* fwd, double* both,
                            double* max_abs_log) noexcept nogil

# lnmax_exact_query with the log-moments along the chain of orders sidx/steps/sfrom
# (refdp.twins.lnmax.order_chain, nd steps; nd = 0: every order by its direct
# log-sum-exp). cwork: lnmax_chain_workspace_doubles(C, nd) doubles (unused when nd = 0).
cdef Py_ssize_t lnmax_chain_workspace_doubles(Py_ssize_t C, Py_ssize_t nd) noexcept nogil
cdef void lnmax_exact_query_chained(const int64_t* counts, Py_ssize_t C, double gamma,
                                    const double* orders, Py_ssize_t K, const int64_t* sidx,
                                    const double* steps, const int64_t* sfrom, Py_ssize_t nd,
                                    const double* gx, const double* gw, Py_ssize_t gm,
                                    const double* rx, const double* rw, Py_ssize_t rm,
                                    double* work, int64_t* iwork, double* cwork,
                                    double* log_q, double* log_q2, double* fwd, double* both,
                                    double* max_abs_log) noexcept nogil

# The float-safe LNMax (exact discrete Laplace noise): for one count vector n,
# log q, the two-sided log q, and the worst-case log-moments over every
# neighbour (forward / both directions), rounded upward, from the tables of
# refdp.twins.lnmax.discrete_tables (eight arrays of tlen entries, arguments
# from mlo; the F-ratio tables are 1.0 from one_m, one_p on), the orders chained by sidx/steps/sfrom (refdp.twins.lnmax.order_chain,
# nd steps; lam_max = max |order|; prune: skip the moves provably below the maximum, the same
# doubles either way). Workspaces: discrete_exact_workspace_doubles(C, Y, nd, K)
# doubles, Y = max n - min n + 2 k + 3, and discrete_exact_workspace_ints(C, K) int64.
cdef Py_ssize_t discrete_exact_workspace_doubles(Py_ssize_t C, Py_ssize_t Y, Py_ssize_t nd,
                                                 Py_ssize_t K) noexcept nogil
cdef Py_ssize_t discrete_exact_workspace_ints(Py_ssize_t C, Py_ssize_t K) noexcept nogil
cdef void discrete_exact_query(const int64_t* n, Py_ssize_t C, Py_ssize_t k,
                               const double* tab, Py_ssize_t mlo, Py_ssize_t tlen,
                               int64_t one_m, int64_t one_p,
                               const double* consts, double margin,
                               const double* orders, Py_ssize_t K, const int64_t* sidx,
                               const double* steps, const int64_t* sfrom, Py_ssize_t nd, double lam_max,
                               int prune, double* work, int64_t* mab,
                               double* log_q, double* log_q2, double* fwd, double* both) noexcept nogil
