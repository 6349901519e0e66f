# cython: language_level=3
"""Floating-point constants and upward-rounded bounds shared by refdp's compiled modules.

Each formula is written once, here, as a ``cdef inline`` function that the
``.pyx`` modules cimport (``from refdp._bounds cimport ...``; this header has
no module of its own). Its twin, under the same name, is one Python statement
in ``refdp/twins/bounds.py``; the Python side of refdp (the twins and
:mod:`refdp.pate.accountant`) takes every margin from there, so the compiled
and the Python results are the same doubles. The margins are proved in
``docs/theory/floating_point.rst``.
"""
from libc.math cimport log, fabs

cdef extern from *:
    """
    #define REFDP_EPS 0x1p-52
    #define REFDP_UNIT_ROUNDOFF 0x1p-53
    """
    # 2**-52, the spacing of doubles at 1
    const double EPS "REFDP_EPS"
    # 2**-53, the unit roundoff of round-to-nearest doubles
    const double UNIT_ROUNDOFF "REFDP_UNIT_ROUNDOFF"


cdef inline double pate_theorem2(double gamma, double lam) noexcept nogil:
    # PATE Theorem 2: alpha(lambda) <= 2 gamma^2 lambda (lambda + 1) for one
    # LNMax answer (Laplace scale 1/gamma), as computed in doubles.
    return 2.0 * gamma * gamma * lam * (lam + 1.0)


cdef inline double pate_theorem2_bound(double gamma, double lam) noexcept nogil:
    # pate_theorem2 rounded upward (5 roundings: relative error below 6 EPS)
    return pate_theorem2(gamma, lam) * (1.0 + 8.0 * EPS)


cdef inline double pure_dp_log_moment(double gamma, double lam) noexcept nogil:
    # alpha(lambda) <= 2 gamma lambda for a (2 gamma)-DP answer, as computed in doubles.
    return 2.0 * gamma * lam


cdef inline double pure_dp_log_moment_bound(double gamma, double lam) noexcept nogil:
    # pure_dp_log_moment rounded upward
    return pure_dp_log_moment(gamma, lam) * (1.0 + 4.0 * EPS)


cdef inline double theorem3_threshold(double E) noexcept nogil:
    # PATE Theorem 3 needs q < (e^{2g} - 1)/(e^{4g} - 1) = 1/(e^{2g} + 1), E = e^{2g};
    # lowered by a few ulps so that rounding never admits a q outside the range.
    return (1.0 / (E + 1.0)) * (1.0 - 8.0 * EPS)


cdef inline double theorem3_slack(double x) noexcept nogil:
    # rounding of log1p(-x), x = e^{2 gamma} q < 1, carried into Theorem 3's margin
    return 8.0 * EPS * x / (1.0 - x)


cdef inline double theorem3_margin(double lam, double a1, double a2, double lq_abs,
                                   double g2l, double val, double slack_x) noexcept nogil:
    # upward margin of the computed Theorem 3 bound val (a1 = log1p(-q),
    # a2 = log1p(-x), lq_abs = |log q| or 0, g2l = 2 gamma lambda)
    return 64.0 * EPS * ((1.0 + lam) * fabs(a1) + lam * fabs(a2) + lq_abs
                         + g2l + fabs(val) + 1.0) + (1.0 + 2.0 * lam) * slack_x


cdef inline double lemma4_margin(double lse, double zbar, Py_ssize_t n_classes) noexcept nogil:
    # upward margin of the streamed log of Lemma 4's q (zbar the mass-weighted mean of gamma * gap)
    return 8.0 * EPS * (zbar + log(2.0 + zbar) + fabs(lse) + 2.0 * n_classes + 8.0)


cdef inline double upward_sum_factor(Py_ssize_t n) noexcept nogil:
    # a sequential sum of n non-negative doubles, times this factor, is >= the exact sum
    return 1.0 + (n + 2) * EPS
