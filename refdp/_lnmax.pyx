# cython: language_level=3
"""Compiled kernels for PATE's exact LNMax analysis.

``lnmax_log_law`` computes the exact output law of LNMax (report-noisy-max
with Lap(1/gamma) noise on vote counts; Papernot et al., ICLR 2017, Eq. 1) for
one count vector, as natural logarithms; ``lnmax_exact_query`` adds, for one
count vector, the exact probability that LNMax misses the plurality class,
its two-sided counterpart, and the worst-case log-moment over all neighbouring
count vectors. Both are declared in ``_lnmax.pxd`` (``noexcept nogil``).

The pure-Python twin in :mod:`refdp.twins.lnmax` performs the same
floating-point operations in the same order; the tests require equal results.
The algorithm and its error analysis are in ``docs/theory/pate.rst``.
The ``_py_*`` entry points are called through :mod:`refdp.core`
(``lnmax_log_law_rows``, ``lnmax_exact_rows``) by :mod:`refdp.pate.lnmax_law`
and :mod:`refdp.pate.exact`, which validate every argument first.
"""
from libc.math cimport exp, log, log1p, expm1, fabs, INFINITY
from libc.stdint cimport int64_t

cimport numpy as cnp
from refdp._bounds cimport UNIT_ROUNDOFF as U_ROUND
from refdp._checks cimport array_arg, int_arg, positive_arg

import numpy as np

cnp.import_array()

from .utils.validation import Described, parameter_error

cdef double LN2 = 0.6931471805599453
cdef double TOL = 1e-12                        # same as refdp.twins.lnmax.TOL
cdef double SHORT = 0.25                       # refdp.twins.lnmax.SHORT
cdef double SERIES_MAX = 0.7                   # refdp.twins.lnmax.SERIES_MAX
cdef double TWO_M60 = 8.673617379884035e-19    # 2**-60

cdef enum:
    SERIES_TERMS = 1000                        # refdp.twins.lnmax.SERIES_TERMS

# INV[p] = 1 / (p + 1), rounded once (the twin uses the same table)
cdef double INV[2 * SERIES_TERMS + 2]
cdef Py_ssize_t _i
for _i in range(2 * SERIES_TERMS + 2):
    INV[_i] = 1.0 / (_i + 1.0)
cdef double TWO_M62 = 2.168404344971009e-19    # 2**-62


cdef inline void _lse_add(double* m, double* s, double lt) noexcept nogil:
    # (m, s) stands for exp(m) * s
    if lt == -INFINITY:
        return
    if lt > m[0]:
        s[0] = s[0] * exp(m[0] - lt) + 1.0
        m[0] = lt
    else:
        s[0] = s[0] + exp(lt - m[0])


cdef inline double _lse_value(double m, double s) noexcept nogil:
    if s > 0.0:
        return m + log(s)
    return -INFINITY


cdef inline double _jtilde(Py_ssize_t kappa, Py_ssize_t top, double L) noexcept nogil:
    # exp(-top L) * integral_0^L exp(kappa s) ds, kappa <= top
    if kappa > 0:
        return exp(-(<double> (top - kappa)) * L) * (-expm1(-(<double> kappa) * L)) / (<double> kappa)
    if kappa < 0:
        return exp(-(<double> top) * L) * (expm1((<double> kappa) * L) / (<double> kappa))
    return L * exp(-(<double> top) * L)


cdef inline void _sort_int64(int64_t* a, Py_ssize_t n) noexcept nogil:
    # insertion sort (C is small next to the O(C^3) law)
    cdef Py_ssize_t i, j
    cdef int64_t v
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef int _piece_closed(Py_ssize_t U, double L, Py_ssize_t n_low, Py_ssize_t n_lv,
                       const int64_t* lmult, const double* alphas,
                       double* q, double* e, double* et, double* jt, double* jl,
                       double* s_up, double* s_lows) noexcept nogil:
    # Closed form on a bounded piece; returns 0 when the running error bound
    # exceeds TOL (the caller then integrates the piece numerically).
    cdef Py_ssize_t i, r, m, length
    cdef double al, coef, b_up, b_low, qu, s
    q[0] = 1.0
    e[0] = 1.0
    length = 1
    for i in range(n_lv):
        al = alphas[i]
        for r in range(lmult[i]):
            q[length] = -al * q[length - 1]
            e[length] = al * e[length - 1]
            m = length - 1
            while m >= 1:
                q[m] = q[m] - al * q[m - 1]
                e[m] = e[m] + al * e[m - 1]
                m -= 1
            length += 1
    for m in range(n_low + 1):
        jt[m] = _jtilde(U - m, U, L)
    for m in range(n_low):
        jl[m] = _jtilde(U - 1 - m, U - 1, L)
    coef = (4.0 * n_low + 16.0) * U_ROUND
    s_up[0] = 0.0
    b_up = 0.0
    for m in range(n_low + 1):
        s_up[0] += q[m] * jt[m]
        b_up += e[m] * jt[m]
    if not (s_up[0] > 0.0 and coef * b_up <= TOL * s_up[0]):
        return 0
    et[0] = e[0]
    for m in range(1, n_low):
        et[m] = e[m] + 0.5 * et[m - 1]
    b_low = 0.0
    for m in range(n_low):
        b_low += et[m] * jl[m]
    for i in range(n_lv):
        al = alphas[i]
        qu = q[0]
        s = qu * jl[0]
        for m in range(1, n_low):
            qu = q[m] + al * qu
            s += qu * jl[m]
        if not (s > 0.0 and coef * b_low <= TOL * s):
            return 0
        s_lows[i] = s
    return 1


cdef int _series_weights(Py_ssize_t deg, Py_ssize_t a, double Y, double* G) noexcept nogil:
    # G[m] = sum_j beta_j / (j + m + 1), beta_j = binom(a - 1 + j, j) Y^j (see the twin); 0 on failure
    cdef Py_ssize_t j, m
    cdef double beta = 1.0
    for m in range(deg + 1):
        G[m] = 0.0
    for j in range(SERIES_TERMS):
        for m in range(deg + 1):
            G[m] += beta * INV[j + m]
        if Y * (a + j) <= 0.5 * (j + 1) and beta * (deg + 1) <= TWO_M62:
            return 1
        beta = beta * (Y * (a + j) * INV[j])
        if not (beta < INFINITY):
            return 0
    return 0


cdef Py_ssize_t _positive_product(Py_ssize_t n_lv, const int64_t* lmult, const double* alphas,
                                  double Y, Py_ssize_t skip, double* ch) noexcept nogil:
    # coefficients of prod((1 - alpha) + alpha Y z) over the lower classes, one copy
    # of distinct value ``skip`` left out; returns the degree
    cdef Py_ssize_t i, r, m, length, reps
    cdef double lo, hi
    ch[0] = 1.0
    length = 1
    for i in range(n_lv):
        lo = 1.0 - alphas[i]
        hi = alphas[i] * Y
        reps = lmult[i] - (1 if i == skip else 0)
        for r in range(reps):
            ch[length] = hi * ch[length - 1]
            m = length - 1
            while m >= 1:
                ch[m] = lo * ch[m] + hi * ch[m - 1]
                m -= 1
            ch[0] = lo * ch[0]
            length += 1
    return length - 1


cdef int _piece_series(Py_ssize_t U, double L, Py_ssize_t n_low, Py_ssize_t n_lv,
                       const int64_t* lmult, const double* alphas, double* ch, double* g_up,
                       double* g_low, double* s_up, double* s_lows) noexcept nogil:
    # positive series in y = 1 - exp(-s) (see the twin); 0 on failure
    cdef double Y, t
    cdef Py_ssize_t i, m
    if n_low >= SERIES_TERMS:
        return 0
    Y = -expm1(-L)
    if not _series_weights(n_low, U + 1, Y, g_up):
        return 0
    if not _series_weights(n_low - 1, U, Y, g_low):
        return 0
    _positive_product(n_lv, lmult, alphas, Y, -1, ch)
    t = 0.0
    for m in range(n_low + 1):
        t += ch[m] * g_up[m]
    s_up[0] = Y * t
    for i in range(n_lv):
        _positive_product(n_lv, lmult, alphas, Y, i, ch)
        t = 0.0
        for m in range(n_low):
            t += ch[m] * g_low[m]
        s_lows[i] = Y * t
    if not s_up[0] > 0.0:
        return 0
    for i in range(n_lv):
        if not s_lows[i] > 0.0:
            return 0
    return 1


cdef void _piece_numeric(Py_ssize_t U, double L, Py_ssize_t n_low, Py_ssize_t n_lv,
                         const int64_t* lmult, const double* alphas, const double* log_alphas,
                         Py_ssize_t C, double logB, const double* gx, const double* gw,
                         Py_ssize_t gm, double* l1, double* am, double* as_,
                         double* out_up, double* out_low) noexcept nogil:
    # Composite Gauss-Legendre in s on [0, L], graded mesh; every node value is
    # a product of positive factors, summed in log space.
    cdef Py_ssize_t i, k
    cdef double e0, h0, rate, hh, nxt, lo, hi, half, mid, s, ev, lw, lg, up_m, up_s
    up_m = -INFINITY
    up_s = 0.0
    for i in range(n_lv):
        am[i] = -INFINITY
        as_[i] = 0.0
    h0 = L if L < 0.5 / (<double> C) else 0.5 / (<double> C)
    lo = 0.0
    while lo < L:
        rate = U + n_low * exp(-lo)
        hh = 4.0 / (rate if rate > 1.0 else 1.0)
        e0 = h0 if h0 > lo else lo
        if e0 < hh:
            hh = e0
        nxt = lo + hh
        hi = L if nxt >= L else nxt
        half = 0.5 * (hi - lo)
        mid = 0.5 * (hi + lo)
        for k in range(gm):
            s = mid + half * gx[k]
            ev = exp(-s)
            lw = log(half * gw[k])
            for i in range(n_lv):
                l1[i] = log1p(-alphas[i] * ev)
            lg = logB + U * s
            for i in range(n_lv):
                lg += lmult[i] * l1[i]
            _lse_add(&up_m, &up_s, lw + lg)
            for i in range(n_lv):
                _lse_add(&am[i], &as_[i], lw + lg - l1[i] + log_alphas[i] - s)
        lo = hi
    out_up[0] = _lse_value(up_m, up_s)
    for i in range(n_lv):
        out_low[i] = _lse_value(am[i], as_[i])


cdef Py_ssize_t lnmax_workspace_doubles(Py_ssize_t C) noexcept nogil:
    return 18 * (C + 2)


cdef Py_ssize_t lnmax_workspace_ints(Py_ssize_t C) noexcept nogil:
    return 4 * (C + 2)


cdef void lnmax_log_law(const int64_t* counts, Py_ssize_t C, double gamma,
                        const double* gx, const double* gw, Py_ssize_t gm,
                        const double* rx, const double* rw, Py_ssize_t rm,
                        double* work, int64_t* iwork, double* out) noexcept nogil:
    cdef Py_ssize_t i, j, k, K, U, n_low, n_lv, c
    cdef int64_t vk, total, above_sum, above_cnt, v0
    cdef double left, L, logB, up_log, scale_low, x, v, lw, lq, lo_v
    cdef int ok
    if C == 1:
        out[0] = 0.0
        return
    # workspace
    cdef double* q = work
    cdef double* e = q + (C + 2)
    cdef double* et = e + (C + 2)
    cdef double* jt = et + (C + 2)
    cdef double* jl = jt + (C + 2)
    cdef double* alphas = jl + (C + 2)
    cdef double* log_alphas = alphas + (C + 2)
    cdef double* l1 = log_alphas + (C + 2)
    cdef double* acc_m = l1 + (C + 2)
    cdef double* acc_s = acc_m + (C + 2)
    cdef double* am = acc_s + (C + 2)
    cdef double* as_ = am + (C + 2)
    cdef double* s_lows = as_ + (C + 2)
    cdef double* low_out = s_lows + (C + 2)
    cdef double* ch = low_out + (C + 2)
    cdef double* g_up = ch + (C + 2)
    cdef double* g_low = g_up + (C + 2)
    cdef double s_up = 0.0
    cdef double num_up = 0.0
    cdef int64_t* vals = iwork
    cdef int64_t* mult = vals + (C + 2)
    cdef int64_t* cls = mult + (C + 2)
    # distinct values, ascending, with multiplicities
    total = 0
    for i in range(C):
        vals[i] = counts[i]
        total += counts[i]
    _sort_int64(vals, C)
    K = 0
    for i in range(C):
        if K == 0 or vals[i] != vals[K - 1]:
            vals[K] = vals[i]
            mult[K] = 1
            K += 1
        else:
            mult[K - 1] += 1
    for i in range(C):
        # index of each class's value among the distinct values
        j = 0
        while vals[j] != counts[i]:
            j += 1
        cls[i] = j
    for k in range(K):
        acc_m[k] = -INFINITY
        acc_s[k] = 0.0
    # left piece (-inf, v_0]
    v0 = vals[0]
    left = -(<double> C) * LN2 - log(<double> C) - gamma * (<double> (total - C * v0))
    for k in range(K):
        _lse_add(&acc_m[k], &acc_s[k], left)
    above_sum = total
    above_cnt = C
    for k in range(K):
        vk = vals[k]
        above_sum -= vk * mult[k]
        above_cnt -= mult[k]
        U = above_cnt
        n_low = C - U
        n_lv = k + 1
        for i in range(n_lv):
            alphas[i] = 0.5 * exp(-gamma * (<double> (vk - vals[i])))
            log_alphas[i] = -LN2 - gamma * (<double> (vk - vals[i]))
        if k == K - 1:
            # right piece: exact Gauss-Legendre in v = exp(-s) on [0, 1]
            for i in range(n_lv):
                am[i] = -INFINITY
                as_[i] = 0.0
            for j in range(rm):
                x = rx[j]
                v = 0.5 * (x + 1.0)
                lw = log(0.5 * rw[j])
                for i in range(n_lv):
                    l1[i] = log1p(-alphas[i] * v)
                lq = 0.0
                for i in range(n_lv):
                    lq += mult[i] * l1[i]
                for i in range(n_lv):
                    _lse_add(&am[i], &as_[i], lw + lq - l1[i])
            for i in range(n_lv):
                _lse_add(&acc_m[i], &acc_s[i], log_alphas[i] + _lse_value(am[i], as_[i]))
            break
        L = gamma * (<double> (vals[k + 1] - vk))
        logB = -(<double> U) * LN2 - gamma * (<double> (above_sum - U * vk))
        if L > SHORT:
            ok = _piece_closed(U, L, n_low, n_lv, mult, alphas, q, e, et, jt, jl, &s_up, s_lows)
            if ok:
                up_log = logB + U * L + log(s_up)
                for i in range(k + 1, K):
                    _lse_add(&acc_m[i], &acc_s[i], up_log)
                scale_low = logB + (U - 1) * L
                for i in range(n_lv):
                    _lse_add(&acc_m[i], &acc_s[i], scale_low + log_alphas[i] + log(s_lows[i]))
                continue
        ok = 0
        if L <= SERIES_MAX:
            ok = _piece_series(U, L, n_low, n_lv, mult, alphas, ch, g_up, g_low, &s_up, s_lows)
        if ok:
            up_log = logB + log(s_up)
            for i in range(k + 1, K):
                _lse_add(&acc_m[i], &acc_s[i], up_log)
            for i in range(n_lv):
                _lse_add(&acc_m[i], &acc_s[i], logB + log_alphas[i] + log(s_lows[i]))
        else:
            _piece_numeric(U, L, n_low, n_lv, mult, alphas, log_alphas, C, logB, gx, gw, gm,
                           l1, am, as_, &num_up, low_out)
            for i in range(k + 1, K):
                _lse_add(&acc_m[i], &acc_s[i], num_up)
            for i in range(n_lv):
                _lse_add(&acc_m[i], &acc_s[i], low_out[i])
    for i in range(C):
        c = cls[i]
        out[i] = _lse_value(acc_m[c], acc_s[c])


cdef inline double _lse_excluding(const double* x, Py_ssize_t n, Py_ssize_t skip) noexcept nogil:
    cdef Py_ssize_t i
    cdef double m = -INFINITY, s = 0.0
    for i in range(n):
        if i != skip and x[i] > m:
            m = x[i]
    if m == -INFINITY:
        return -INFINITY
    for i in range(n):
        if i != skip:
            s = s + exp(x[i] - m)
    return m + log(s)


cdef Py_ssize_t lnmax_exact_workspace_doubles(Py_ssize_t C) noexcept nogil:
    return lnmax_workspace_doubles(C) + 9 * (C + 2)


cdef Py_ssize_t lnmax_exact_workspace_ints(Py_ssize_t C) noexcept nogil:
    return lnmax_workspace_ints(C) + 7 * (C + 2)


cdef void lnmax_exact_query(const int64_t* counts, Py_ssize_t C, double gamma,
                            const double* orders, Py_ssize_t K,
                            const double* gx, const double* gw, Py_ssize_t gm,
                            const double* rx, const double* rw, Py_ssize_t rm,
                            double* work, int64_t* iwork,
                            double* log_q, double* log_q2, double* fwd, double* both,
                            double* max_abs_log) noexcept nogil:
    # the log-moments by the direct log-sum-exp of every order (no chain of orders)
    lnmax_exact_query_chained(counts, C, gamma, orders, K, NULL, NULL, NULL, 0, gx, gw, gm, rx, rw, rm,
                              work, iwork, NULL, log_q, log_q2, fwd, both, max_abs_log)


cdef Py_ssize_t lnmax_chain_workspace_doubles(Py_ssize_t C, Py_ssize_t nd) noexcept nogil:
    return (nd + 4) * C + 4


cdef void lnmax_exact_query_chained(const int64_t* counts, Py_ssize_t C, double gamma,
                                    const double* orders, Py_ssize_t K, const int64_t* sidx,
                                    const double* steps, const int64_t* sfrom, Py_ssize_t nd,
                                    const double* gx, const double* gw, Py_ssize_t gm,
                                    const double* rx, const double* rw, Py_ssize_t rm,
                                    double* work, int64_t* iwork, double* cwork,
                                    double* log_q, double* log_q2, double* fwd, double* both,
                                    double* max_abs_log) noexcept nogil:
    # lnmax_exact_query with the worst-case log-moments of each move, forward (P(o) (P/P')^lam)
    # and reverse, from the chain of orders sidx/steps/sfrom (nd steps; refdp.twins.lnmax.
    # order_chain) by _moments_update, as the discrete analysis does (docs/theory/pate.rst,
    # "Log-moments"); nd = 0 (cwork may then be NULL): the direct log-sum-exp of every order.
    # cwork: lnmax_chain_workspace_doubles(C, nd) doubles.
    cdef Py_ssize_t i, j, k, o, a, b, jstar, runner, ndv, xi, yi
    cdef double big, lq2, lam_max = 0.0
    cdef int found = 0
    cdef int have_afwd = 0
    cdef double* lp = work + lnmax_workspace_doubles(C)
    cdef double* lpp = lp + (C + 2)
    cdef double* A = lpp + (C + 2)        # C
    cdef double* B = A + (C + 2)          # C
    cdef double* afwd = B + (C + 2)       # C
    cdef double* chain = afwd + (C + 2)   # (nd + 1) x C: the chained factors and delta
    cdef int64_t* nn = iwork + lnmax_workspace_ints(C)
    cdef int64_t* dv = nn + (C + 2)       # distinct values, ascending
    cdef int64_t* first = dv + (C + 2)    # first class with that value
    cdef int64_t* second = first + (C + 2)  # second class with that value, or -1
    if nd > 0:
        A = cwork
        B = A + C
        afwd = B + C
        chain = afwd + C
    for k in range(K):
        if fabs(orders[k]) > lam_max:
            lam_max = fabs(orders[k])
    for k in range(K):
        fwd[k] = 0.0
        both[k] = 0.0
    if C == 1:
        log_q[0] = -INFINITY
        log_q2[0] = -INFINITY
        max_abs_log[0] = 0.0
        return
    lnmax_log_law(counts, C, gamma, gx, gw, gm, rx, rw, rm, work, iwork, lp)
    big = fabs(lp[0])
    for o in range(1, C):
        if fabs(lp[o]) > big:
            big = fabs(lp[o])
    jstar = 0
    for j in range(1, C):
        if counts[j] > counts[jstar]:
            jstar = j
    runner = 0 if jstar != 0 else 1
    for j in range(C):
        if j != jstar and counts[j] > counts[runner]:
            runner = j
    log_q[0] = _lse_excluding(lp, C, jstar)
    lq2 = log_q[0]
    # distinct values and their first two classes
    for i in range(C):
        dv[i] = counts[i]
    _sort_int64(dv, C)
    ndv = 0
    for i in range(C):
        if ndv == 0 or dv[i] != dv[ndv - 1]:
            dv[ndv] = dv[i]
            ndv += 1
    for i in range(ndv):
        first[i] = -1
        second[i] = -1
    for j in range(C):
        i = 0
        while dv[i] != counts[j]:
            i += 1
        if first[i] < 0:
            first[i] = j
        elif second[i] < 0:
            second[i] = j
    for xi in range(ndv):
        if dv[xi] < 1:
            continue
        a = first[xi]
        for yi in range(ndv):
            if yi == xi:
                if second[xi] < 0:
                    continue
                b = second[xi]
            else:
                b = first[yi]
            for i in range(C):
                nn[i] = counts[i]
            nn[a] -= 1
            nn[b] += 1
            lnmax_log_law(nn, C, gamma, gx, gw, gm, rx, rw, rm, work, iwork, lpp)
            for o in range(C):
                if fabs(lpp[o]) > big:
                    big = fabs(lpp[o])
            if counts[a] == counts[jstar] and counts[b] == counts[runner] and b != jstar:
                lq2 = _lse_excluding(lpp, C, a)
                found = 1
            # forward: h = log P at n, l = log P at the neighbour (the factors exp(h - max h) are
            # those of n for every move); reverse: the roles swapped
            _moments_update(lp, lpp, C, orders, K, sidx, steps, sfrom, nd, lam_max, afwd, B, chain,
                            fwd, both, &have_afwd)
            _moments_update(lpp, lp, C, orders, K, sidx, steps, sfrom, nd, lam_max, A, B, chain,
                            both, NULL, NULL)
    if not found:
        lq2 = log_q[0]
    log_q2[0] = lq2 if lq2 > log_q[0] else log_q[0]
    max_abs_log[0] = big


cdef tuple _checked(counts, gamma, gx, gw, rx, rw, str owner):
    # O(1) checks of an entry point's arguments: dtypes, shapes, contiguity,
    # a finite gamma > 0, Gauss-Legendre rules of matching lengths, and a
    # right-piece rule with at least (C + 1) // 2 points (exact for the
    # degree-(C - 1) polynomial it integrates).
    counts = array_arg(counts, "counts", owner, cnp.NPY_INT64, np.int64, 2)
    C = counts.shape[1]
    if counts.shape[0] > 0 and C < 1:
        raise parameter_error("counts", owner, "an array with at least one class column", counts)
    gamma = positive_arg(gamma, "gamma", owner)
    gx = array_arg(gx, "gx", owner, cnp.NPY_FLOAT64, np.float64, 1)
    gw = array_arg(gw, "gw", owner, cnp.NPY_FLOAT64, np.float64, 1)
    rx = array_arg(rx, "rx", owner, cnp.NPY_FLOAT64, np.float64, 1)
    rw = array_arg(rw, "rw", owner, cnp.NPY_FLOAT64, np.float64, 1)
    if gx.shape[0] < 1:
        raise parameter_error("gx", owner, "an array of at least one Gauss-Legendre node", gx)
    if gw.shape[0] != gx.shape[0]:
        raise parameter_error("gw", owner, f"an array of length len(gx) = {gx.shape[0]}", gw)
    if rx.shape[0] < max(1, (C + 1) // 2):
        raise parameter_error("rx", owner, f"an array of at least max(1, (C + 1) // 2) = "
                              f"{max(1, (C + 1) // 2)} nodes", rx)
    if rw.shape[0] != rx.shape[0]:
        raise parameter_error("rw", owner, f"an array of length len(rx) = {rx.shape[0]}", rw)
    return counts, gamma, gx, gw, rx, rw


def _py_lnmax_log_law(counts, gamma, gx, gw, rx, rw):
    """Log-probabilities of LNMax for every row of ``counts`` (arguments checked in O(1))."""
    counts, gamma, gx, gw, rx, rw = _checked(counts, gamma, gx, gw, rx, rw, "refdp._lnmax._py_lnmax_log_law")
    return _log_law_entry(counts, gamma, gx, gw, rx, rw)


cdef object _log_law_entry(const int64_t[:, ::1] counts, double gamma,
                           const double[::1] gx, const double[::1] gw,
                           const double[::1] rx, const double[::1] rw):
    cdef Py_ssize_t n = counts.shape[0], C = counts.shape[1], i
    out = np.empty((n, C), dtype=np.float64)
    if n == 0 or C == 0:
        return out
    cdef double[:, ::1] o = out
    work_arr = np.empty(lnmax_workspace_doubles(C), dtype=np.float64)
    iwork_arr = np.empty(lnmax_workspace_ints(C), dtype=np.int64)
    cdef double[::1] work = work_arr
    cdef int64_t[::1] iwork = iwork_arr
    cdef Py_ssize_t gm = gx.shape[0], rm = rx.shape[0]
    with nogil:
        for i in range(n):
            lnmax_log_law(&counts[i, 0], C, gamma, &gx[0], &gw[0], gm, &rx[0], &rw[0], rm,
                          &work[0], &iwork[0], &o[i, 0])
    return out


def _py_lnmax_exact(counts, gamma, orders, gx, gw, rx, rw, sidx=None, steps=None, sfrom=None):
    """Per row: log q, two-sided log q, forward and two-sided worst log-moments, max |log P|.

    ``sidx, steps, sfrom``: the chain of orders of ``refdp.twins.lnmax.order_chain``
    (all three or none; none: every order by its direct log-sum-exp).
    """
    owner = "refdp._lnmax._py_lnmax_exact"
    counts, gamma, gx, gw, rx, rw = _checked(counts, gamma, gx, gw, rx, rw, owner)
    orders = array_arg(orders, "orders", owner, cnp.NPY_FLOAT64, np.float64, 1)
    if sidx is None and steps is None and sfrom is None:
        sidx = np.full(orders.shape[0], -1, dtype=np.int64)
        steps = np.zeros(0, dtype=np.float64)
        sfrom = np.zeros(0, dtype=np.int64)
    else:
        sidx, steps, sfrom = _chain_checked(orders, sidx, steps, sfrom, owner)
    return _exact_entry(counts, gamma, orders, gx, gw, rx, rw, sidx, steps, sfrom)


cdef tuple _chain_checked(orders, sidx, steps, sfrom, str owner):
    # O(K) checks of a chain of orders (refdp.twins.lnmax.order_chain): steps[sidx[i]] leads from
    # orders[i - 1] to orders[i] exactly, sfrom[i] names an earlier step of half the value
    sidx = array_arg(sidx, "sidx", owner, cnp.NPY_INT64, np.int64, 1)
    steps = array_arg(steps, "steps", owner, cnp.NPY_FLOAT64, np.float64, 1)
    sfrom = array_arg(sfrom, "sfrom", owner, cnp.NPY_INT64, np.int64, 1)
    if sidx.shape[0] != orders.shape[0]:
        raise parameter_error("sidx", owner, f"an array of length len(orders) = {orders.shape[0]}", sidx)
    if sidx.shape[0] and (int(sidx.min()) < -1 or int(sidx.max()) >= steps.shape[0] or sidx[0] != -1):
        raise parameter_error("sidx", owner, f"an array of indices in [-1, {steps.shape[0]}), the first -1", sidx)
    for i in range(1, sidx.shape[0]):
        if sidx[i] >= 0 and orders[i - 1] + steps[sidx[i]] != orders[i]:
            raise parameter_error("steps", owner, "steps from each order to the next (refdp.twins.lnmax.order_chain)",
                                  steps)
    if sfrom.shape[0] != steps.shape[0]:
        raise parameter_error("sfrom", owner, f"an array of length len(steps) = {steps.shape[0]}", sfrom)
    for i in range(sfrom.shape[0]):
        if sfrom[i] != -1 and not (0 <= sfrom[i] < i and steps[i] == 2.0 * steps[sfrom[i]]
                                   and abs(steps[sfrom[i]]) >= 0.125):
            raise parameter_error("sfrom", owner, "-1 or the index of an earlier step of half the value, "
                                  "at least 1/8 in magnitude", sfrom)
    return sidx, steps, sfrom


cdef object _exact_entry(const int64_t[:, ::1] counts, double gamma, const double[::1] orders,
                         const double[::1] gx, const double[::1] gw,
                         const double[::1] rx, const double[::1] rw, const int64_t[::1] sidx,
                         const double[::1] steps, const int64_t[::1] sfrom):
    cdef Py_ssize_t n = counts.shape[0], C = counts.shape[1], K = orders.shape[0], i
    cdef Py_ssize_t nd = steps.shape[0]
    cdef int64_t no_index = -1
    # without orders, the moments have no column but log q and max |log P| are
    # still computed (one scratch column keeps every pointer inside a buffer)
    cdef Py_ssize_t KB = K if K > 0 else 1
    cdef double no_order = 1.0
    log_q = np.empty(n, dtype=np.float64)
    log_q2 = np.empty(n, dtype=np.float64)
    fwd = np.zeros((n, KB), dtype=np.float64)
    both = np.zeros((n, KB), dtype=np.float64)
    big = np.empty(n, dtype=np.float64)
    if n == 0 or C == 0:
        return log_q, log_q2, fwd[:, :K], both[:, :K], big
    cdef const double* po = &orders[0] if K > 0 else &no_order
    cdef double[::1] lq = log_q, lq2 = log_q2, bg = big
    cdef double[:, ::1] fw = fwd, bo = both
    work_arr = np.empty(lnmax_exact_workspace_doubles(C), dtype=np.float64)
    iwork_arr = np.empty(lnmax_exact_workspace_ints(C), dtype=np.int64)
    cwork_arr = np.empty(lnmax_chain_workspace_doubles(C, nd), dtype=np.float64)
    cdef double[::1] work = work_arr
    cdef int64_t[::1] iwork = iwork_arr
    cdef double[::1] cwork = cwork_arr
    cdef Py_ssize_t gm = gx.shape[0], rm = rx.shape[0]
    cdef const int64_t* ps = &sidx[0] if K > 0 else &no_index
    cdef const double* pst = &steps[0] if nd > 0 else &no_order
    cdef const int64_t* psf = &sfrom[0] if nd > 0 else &no_index
    with nogil:
        for i in range(n):
            lnmax_exact_query_chained(&counts[i, 0], C, gamma, po, K, ps, pst, psf, nd, &gx[0], &gw[0], gm,
                                      &rx[0], &rw[0], rm, &work[0], &iwork[0], &cwork[0],
                                      &lq[i], &lq2[i], &fw[i, 0], &bo[i, 0], &bg[i])
    if K == 0:
        return log_q, log_q2, fwd[:, :0], both[:, :0], big
    return log_q, log_q2, fwd, both, big


# ---------------------------------------------------------------------------
# Exact analysis of the float-safe LNMax (exact discrete Laplace noise).
#
# For one count vector n and each of its neighbours n - e_a + e_b (n_a >= 1),
# lower and upper bounds on log P[M = j] (the laws of the discrete noisy argmax,
# docs/theory/pate_discrete.rst), then log q (one- and two-sided) and the
# worst-case log-moments. The neighbour laws are low-rank updates of n's terms
# (winner j, noisy maximum y): sum_y w_j(y) Rm_a(y) Rp_b(y), with the ratios of
# the closed forms read from tables built once per call (refdp.twins.lnmax.
# discrete_tables). Where both ratios are in their geometric range their
# product is exactly 1 (1/p times p), so that part of the sum is a prefix sum
# of the weights. Every sum is of positive terms.

cdef enum:
    DT_LF = 0      # log F(m)
    DT_LFD = 1     # log f(m)
    DT_RMF = 2     # F(m + 1) / F(m)
    DT_RPF = 3     # F(m - 1) / F(m)
    DT_RMD = 4     # f(m + 1) / f(m)
    DT_RPD = 5     # f(m - 1) / f(m)
    DT_FL = 6      # F(m)
    DT_GL = 7      # f(m) / F(m)
    DT_N = 8


cdef inline double _logaddexp(double x, double y) noexcept nogil:
    cdef double m = x if x > y else y
    if m == -INFINITY:
        return -INFINITY
    return m + log1p(exp(-fabs(x - y)))



cdef inline double _dot2(const double* x, const double* y, Py_ssize_t n) noexcept nogil:
    # sum_i x[i] y[i] with four running sums (i mod 4), combined as (s0 + s1) + (s2 + s3)
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        s0 += x[i] * y[i]
        s1 += x[i + 1] * y[i + 1]
        s2 += x[i + 2] * y[i + 2]
        s3 += x[i + 3] * y[i + 3]
        i += 4
    if i < n:
        s0 += x[i] * y[i]
    if i + 1 < n:
        s1 += x[i + 1] * y[i + 1]
    if i + 2 < n:
        s2 += x[i + 2] * y[i + 2]
    return (s0 + s1) + (s2 + s3)


cdef enum:
    # entries of the direct-mapped cache of the truncated-mass terms, keyed by (v_j, max_{i != j} v_i)
    TAIL_CACHE = 256


cdef enum:
    # most anchor orders of the pruned log-moments (more: every move is evaluated in full)
    MAX_ANCHORS = 64


cdef Py_ssize_t discrete_exact_workspace_doubles(Py_ssize_t C, Py_ssize_t Y, Py_ssize_t nd,
                                                 Py_ssize_t K) noexcept nogil:
    cdef Py_ssize_t na = K if K < MAX_ANCHORS else MAX_ANCHORS
    return (6 * Y + 2 + 2 * (1 + C * C) * C + C * (C + 1) + (nd + 4) * C + 8 + TAIL_CACHE
            + 2 * K + 2 * C * C * (na + 1) + 2 * na + C + 8)


cdef Py_ssize_t discrete_exact_workspace_ints(Py_ssize_t C, Py_ssize_t K) noexcept nogil:
    return 2 * C * C + 2 * C + 2 + 2 * TAIL_CACHE + 2 * K + 2


cdef void discrete_exact_query(const int64_t* n, Py_ssize_t C, Py_ssize_t k,
                               const double* tab, Py_ssize_t mlo, Py_ssize_t tlen,
                               int64_t one_m, int64_t one_p,
                               const double* consts, double margin,
                               const double* orders, Py_ssize_t K, const int64_t* sidx,
                               const double* steps, const int64_t* sfrom, Py_ssize_t nd, double lam_max,
                               int prune, double* work, int64_t* mab,
                               double* log_q, double* log_q2, double* fwd, double* both) noexcept nogil:
    # prune: skip the moves provably below the maximum (_moments_pruned; the same doubles either way)
    # consts: lp = log p, log1p(p), log((1 - p)/(1 + p)), log(1 - p), log(1 - p^2);
    # one_m, one_p: the F-ratio tables F(m + 1)/F(m), F(m - 1)/F(m) are 1.0 for every m >= them
    cdef double lp = consts[0], log1p_p = consts[1], log_norm = consts[2]
    cdef double l1mp = consts[3], l1mp2 = consts[4]
    cdef const double* LF = tab + DT_LF * tlen
    cdef const double* LFD = tab + DT_LFD * tlen
    cdef const double* tabm
    cdef const double* tabp
    cdef const double* ra
    cdef const double* rb
    cdef Py_ssize_t i, j, a, b, o, yi, kk, mv, nm, Y, ci, s_idx, r_idx, G, hc, key
    cdef int have_u, linear
    cdef int64_t top0, low0, top, low, y0, ca, cb, thr_a, thr_b, cut, vother, vj, vi, g
    cdef double mx, lmx, sw, S, lam, ef, er, mf, mr, sf, sr, af, ar, big, x, lt
    cdef double v
    # the vector's range
    top0 = n[0]
    low0 = n[0]
    for i in range(C):
        if n[i] > top0:
            top0 = n[i]
        if n[i] < low0:
            low0 = n[i]
    top = top0 + 1
    low = low0 - 1
    y0 = low - k
    Y = (top + k) - y0 + 1
    nm = 0                                       # the moves (a, b), a then b increasing
    for a in range(C):
        if n[a] >= 1:
            for b in range(C):
                if b != a:
                    mab[2 * nm] = a
                    mab[2 * nm + 1] = b
                    nm += 1
    cdef double* T = work
    cdef double* w = T + Y
    cdef double* Pw = w + Y
    cdef double* lo = Pw + Y + 1                 # (1 + nm) x C
    cdef double* hi = lo + (1 + C * C) * C       # (1 + nm) x C
    cdef double* tmp = hi + (1 + C * C) * C      # C
    cdef double* tmp2 = tmp + C                  # C
    cdef double* memo = tmp2 + C                 # C x (C + 1)
    cdef double* Sw = memo + C * (C + 1)         # Y + 1
    cdef double* Tot = Sw + Y + 1                # Y
    cdef double* Qb = Tot + Y                    # Y
    cdef double* chain = Qb + Y                  # (nd + 1) x C
    cdef double* afwd = chain + (nd + 1) * C     # C
    cdef double* tval = afwd + C                 # TAIL_CACHE
    cdef double* ltk = tval + TAIL_CACHE         # K: the final margin of each order
    cdef double* ubd = ltk + K                   # 2 nm x nA: the anchor bounds of each call
    cdef double* umax = ubd + 2 * C * C * (K if K < MAX_ANCHORS else MAX_ANCHORS)   # 2 x nA
    cdef double* done = umax + 2 * (K if K < MAX_ANCHORS else MAX_ANCHORS)        # 2 nm
    cdef double* fac = done + 2 * C * C          # C
    cdef double* wk = fac + C                    # K: the chord weights of the orders between anchors
    cdef int64_t* cval = mab + 2 * C * C         # C
    cdef int64_t* rep = cval + C                 # C
    cdef int64_t* tkey = rep + C + 2             # 2 x TAIL_CACHE: the (v_j, v_other) of each entry
    cdef int64_t* anc = tkey + 2 * TAIL_CACHE    # K: the anchor orders
    cdef int64_t* asq = anc + K                  # K: squarings from the previous anchor
    cdef Py_ssize_t nA
    cdef Py_ssize_t slot
    cdef int have_afwd
    # ---- bodies: lo[r, j] = log sum_y (terms), r = 0 the vector itself, r = 1 + move
    # Linear products when no term can leave [exp(-600), 1]: from y = min n - 1 on every factor
    # F(y - n_i) is at least p^(spread + 1) / (1 + p), each of the (at most C) factors F(m - 1) / F(m)
    # at least p, and f / F at least N p^(spread + k + 2) (N = (1 - p) / (1 + p))
    linear = ((<double>(C * (top0 - low0 + 3) + (top0 - low0) + k + 2) * (-lp)
               + <double>C * log1p_p - log_norm) < 600.0)
    if linear:
        ra = tab + DT_FL * tlen
        for yi in range(k, Y):
            Tot[yi] = 1.0
            Qb[yi] = 1.0
        for i in range(C):
            rb = ra + (y0 - n[i] - mlo)
            for yi in range(k, Y):
                Tot[yi] = Tot[yi] * rb[yi]
    for j in range(C):
        # up to y = g every factor is in its geometric range (F(m), m <= -1, and f(z), z <= 0), so
        # the term grows by exactly p^-C per step: below g the weights are a geometric series,
        # summed in closed form (no move's sum needs them one by one: every cut is >= g - 1)
        g = n[j]
        for i in range(C):
            if i != j and n[i] + (1 if i < j else 0) - 1 < g:
                g = n[i] + (1 if i < j else 0) - 1
        G = <Py_ssize_t>(g - y0)
        if G < 0:
            G = 0
        if linear:
            # the terms as products of tabulated F and f / F: Tot (every class after j) times
            # Q (the classes before j moved by one) times f / F of j, scaled by their maximum
            ra = tab + DT_GL * tlen + (y0 - n[j] - mlo)
            mx = 0.0
            for yi in range(G, Y):
                T[yi] = (Tot[yi] * Qb[yi]) * ra[yi]
                if T[yi] > mx:
                    mx = T[yi]
            sw = 0.0
            if G > 0:
                sw = (T[G] / mx) * (exp(<double>C * lp) * (-expm1(<double>(C * G) * lp)) / (-expm1(<double>C * lp)))
            Pw[G] = sw
            for yi in range(G, Y):
                w[yi] = T[yi] / mx
                sw += w[yi]
                Pw[yi + 1] = sw
            lmx = log(mx)
            lo[j] = lmx + log(sw)
            rb = tab + DT_RPF * tlen + (y0 - n[j] - mlo)
            for yi in range(k, Y):
                Qb[yi] = Qb[yi] * rb[yi]
        else:
            for yi in range(G, Y):
                T[yi] = 0.0
            for i in range(C):
                if i < j:
                    ra = LF + (y0 - n[i] - 1 - mlo)
                elif i > j:
                    ra = LF + (y0 - n[i] - mlo)
                else:
                    ra = LFD + (y0 - n[j] - mlo)
                for yi in range(G, Y):
                    T[yi] += ra[yi]
            mx = -INFINITY
            for yi in range(G, Y):
                if T[yi] > mx:
                    mx = T[yi]
            sw = 0.0
            if G > 0:
                # sum_{i = 1..G} w(g) p^{C i} = w(g) p^C (1 - p^{C G}) / (1 - p^C)
                sw = exp(T[G] - mx) * (exp(<double>C * lp) * (-expm1(<double>(C * G) * lp)) / (-expm1(<double>C * lp)))
            Pw[G] = sw
            for yi in range(G, Y):
                w[yi] = exp(T[yi] - mx)
                sw += w[yi]
                Pw[yi + 1] = sw
            lmx = mx
            lo[j] = lmx + log(sw)
        # classes other than j with equal shifted counts n_i + [i < j] have equal ratio rows:
        # a move's sum depends on its pair of rows only (computed once, memo[rep a, rep b])
        for i in range(C):
            cval[i] = n[i] + (1 if i < j else 0)
            rep[i] = i
            if i != j:
                for i2 in range(i):
                    if i2 != j and cval[i2] == cval[i]:
                        rep[i] = i2
                        break
        # suffix sums of the weights, read at hc only: every hc is at least min(lim, Y), lim the
        # smallest shifted count of the other classes plus max(one_m, one_p) (hc >= ca + one_m and
        # >= cb + one_p, less y0), so the sums start there
        vother = -1
        for i in range(C):
            if i != j and (vother < 0 or cval[i] < vother):
                vother = cval[i]
        hc = <Py_ssize_t>(vother + (one_m if one_m > one_p else one_p) - y0)
        if hc > Y or vother < 0:
            hc = Y
        if hc < G:
            hc = G
        Sw[Y] = 0.0
        for yi in range(Y - 1, hc - 1, -1):
            Sw[yi] = Sw[yi + 1] + w[yi]
        for i in range(C * (C + 1)):
            memo[i] = INFINITY
        mv = 0
        for a in range(C):
            if n[a] < 1:
                continue
            if a == j:
                tabm = tab + DT_RMD * tlen
                ca = n[j]
                thr_a = n[j] - 1
            else:
                tabm = tab + DT_RMF * tlen
                ca = n[a] + (1 if a < j else 0)
                thr_a = ca - 2
            ra = tabm + (y0 - ca - mlo)
            have_u = 0
            for b in range(C):
                if b == a:
                    continue
                if b == j:
                    tabp = tab + DT_RPD * tlen
                    cb = n[j]
                    thr_b = n[j]
                else:
                    tabp = tab + DT_RPF * tlen
                    cb = n[b] + (1 if b < j else 0)
                    thr_b = cb - 1
                # (a = j: the sum depends on b's row alone; rep[a] != j for a != j, so the keys differ)
                key = rep[a] * (C + 1) + (C if b == j else rep[b])
                if memo[key] < INFINITY:
                    lo[(1 + mv) * C + j] = memo[key]
                    mv += 1
                    continue
                if not have_u:
                    for yi in range(G, Y):           # the weights times a's ratios, once per a
                        T[yi] = w[yi] * ra[yi]
                    have_u = 1
                rb = tabp + (y0 - cb - mlo)
                cut = thr_a if thr_a < thr_b else thr_b
                ci = <Py_ssize_t>(cut - y0) + 1          # y - y0 < ci: the ratios' product is 1
                if ci < 0:
                    ci = 0
                if ci > Y:
                    ci = Y
                hc = Y                                   # y - y0 >= hc: both ratios are 1.0 exactly
                if a != j and b != j:
                    hc = <Py_ssize_t>((ca + one_m if ca + one_m > cb + one_p else cb + one_p) - y0)
                    if hc < ci:
                        hc = ci
                    if hc > Y:
                        hc = Y
                S = (Pw[ci] + _dot2(T + ci, rb + ci, hc - ci)) + Sw[hc]
                lo[(1 + mv) * C + j] = lmx + log(S)
                memo[key] = lo[(1 + mv) * C + j]
                mv += 1
    # ---- the truncated mass (upper bounds only), then the margins; its two terms are a function of
    # (v_j, max_{i != j} v_i) alone, evaluated once per pair (a direct-mapped cache: same doubles)
    for slot in range(TAIL_CACHE):
        tkey[2 * slot] = -1
    big = 0.0
    for mv in range(1 + nm):
        a = -1 if mv == 0 else mab[2 * (mv - 1)]
        b = -1 if mv == 0 else mab[2 * (mv - 1) + 1]
        for j in range(C):
            vj = n[j] - (1 if j == a else 0) + (1 if j == b else 0)
            vother = -1
            for i in range(C):
                if i != j:
                    vi = n[i] - (1 if i == a else 0) + (1 if i == b else 0)
                    if vi > vother:
                        vother = vi
            slot = <Py_ssize_t>((vj * 31 + vother) & (TAIL_CACHE - 1))
            if tkey[2 * slot] == vj and tkey[2 * slot + 1] == vother:
                x = tval[slot]
            else:
                x = log_norm + <double>(top + k + 1 - vj) * lp - l1mp
                if C == 1:
                    lt = log_norm + <double>(vj - low + k + 1) * lp - l1mp
                else:
                    lt = log_norm + <double>(vj + vother - 2 * (low - k - 1)) * lp - log1p_p - l1mp2
                x = _logaddexp(x, lt)
                tkey[2 * slot] = vj
                tkey[2 * slot + 1] = vother
                tval[slot] = x
            v = lo[mv * C + j]
            hi[mv * C + j] = _logaddexp(v, x) + margin
            lo[mv * C + j] = v - margin
            if fabs(lo[mv * C + j]) > big:
                big = fabs(lo[mv * C + j])
            if fabs(hi[mv * C + j]) > big:
                big = fabs(hi[mv * C + j])
    # ---- log q: the plurality class j* (first largest), the runner-up, their gap
    s_idx = 0
    for i in range(C):
        if n[i] > n[s_idx]:
            s_idx = i
    if C == 1:
        log_q[0] = -INFINITY
        log_q2[0] = -INFINITY
    else:
        r_idx = 0 if s_idx != 0 else 1
        for i in range(C):
            if i != s_idx and n[i] > n[r_idx]:
                r_idx = i
        if n[s_idx] - n[r_idx] < 3:
            log_q[0] = INFINITY
            log_q2[0] = INFINITY
        else:
            # sum_{j != j*} exp(hi) plus a bound on the relative mass the published
            # single-law evaluation adds beyond its own window (docs/theory/pate_discrete.rst)
            log_q[0] = _discrete_log_miss(n, -1, -1, C, s_idx, hi, lo, k, consts)
            log_q2[0] = -INFINITY
            for mv in range(nm):
                if mab[2 * mv] == s_idx:
                    x = _discrete_log_miss(n, s_idx, mab[2 * mv + 1], C, s_idx, hi + (1 + mv) * C,
                                           lo + (1 + mv) * C, k, consts)
                    if x > log_q2[0]:
                        log_q2[0] = x
    # ---- worst-case log-moments over the moves, both directions
    x = 0.0                                       # the length of the chain of orders so far
    for kk in range(K):
        fwd[kk] = -INFINITY
        both[kk] = -INFINITY
        lam = orders[kk]
        x += fabs(lam) if kk == 0 or sidx[kk] < 0 else fabs(steps[sidx[kk]])
        # the margin of the direct evaluation, plus the rounding of the chained factors
        ltk[kk] = (8.0 * U_ROUND * (2.0 * lam + 2.0) * (1.0 + big)
                   + U_ROUND * ((20.0 * x + 4.0) * (1.0 + big) + 4.0 * kk + 2.0 * C + 12.0))
    have_afwd = 0                                 # Afwd = exp(hi - max hi) of n, shared by the forward calls
    nA = _order_anchors(orders, K, anc, asq, wk) if nm > 0 and prune else 0
    if nA >= 2:
        _moments_pruned(hi, lo, C, nm, orders, K, sidx, steps, sfrom, nd, lam_max, big, ltk, anc, asq, wk, nA,
                        afwd, tmp, tmp2, chain, ubd, umax, done, fac, fwd, both)
    else:
        for mv in range(1, 1 + nm):
            _moments_update(hi, lo + mv * C, C, orders, K, sidx, steps, sfrom, nd, lam_max, afwd, tmp2, chain,
                            fwd, both, &have_afwd)
            _moments_update(hi + mv * C, lo, C, orders, K, sidx, steps, sfrom, nd, lam_max, tmp, tmp2, chain,
                            both, NULL, NULL)
    for kk in range(K):
        if nm == 0:
            fwd[kk] = 0.0
            both[kk] = 0.0
            continue
        lt = ltk[kk]
        af = fwd[kk]
        fwd[kk] = (af if af > 0.0 else 0.0) + lt + 16.0 * U_ROUND * fabs(af)
        ar = both[kk] if both[kk] > 0.0 else 0.0
        both[kk] = ar + lt + 16.0 * U_ROUND * ar


cdef void _moments_update(const double* h, const double* l, Py_ssize_t C, const double* orders,
                          Py_ssize_t K, const int64_t* sidx, const double* steps, const int64_t* sfrom,
                          Py_ssize_t nd,
                          double lam_max, double* A, double* B, double* chain,
                          double* best1, double* best2, int* have_a) noexcept nogil:
    # a_k = log sum_o exp((lam_k + 1) h_o - lam_k l_o) for every order; best1[k] (and best2[k]
    # unless NULL) raised to a_k where a_k is larger. With r the first largest h and
    # delta_o = (h_o - l_o) - (h_r - l_r): a_k = e_r + log sum_o A_o B_o with A_o = exp(h_o - h_r)
    # <= 1 and B_o = exp(lam_k delta_o), which the chain of orders updates by one factor
    # exp(step delta_o) per order (tabulated per distinct step; a step twice an earlier one of
    # magnitude >= 1/8 by squaring that one's factor), while lam_max max|delta| <= 600
    # keeps every factor within exp(+-600); otherwise the direct log-sum-exp. The log is taken
    # only when e_r + (S - 1), an upper bound of a_k (log S <= S - 1), exceeds best1[k].
    # have_a (or NULL): A already holds exp(h_o - h_r) for this h (calls sharing h, here the
    # forward ones, compute it once: the same operations on the same doubles)
    cdef Py_ssize_t o, kk, r = 0, si
    cdef double lam, er, S, a, dm = 0.0, dr, mx, v
    cdef double* delta = chain + nd * C
    for o in range(C):
        if h[o] > h[r]:
            r = o
    dr = h[r] - l[r]
    for o in range(C):
        delta[o] = (h[o] - l[o]) - dr
        v = fabs(delta[o])
        if v > dm:
            dm = v
    if nd > 0 and dm * lam_max <= 600.0:
        if have_a == NULL or not have_a[0]:
            for o in range(C):
                A[o] = exp(h[o] - h[r])
            if have_a != NULL:
                have_a[0] = 1
        for si in range(nd):
            if sfrom[si] >= 0:                   # steps[si] = 2 steps[sfrom[si]]: square its factor
                for o in range(C):
                    chain[si * C + o] = chain[sfrom[si] * C + o] * chain[sfrom[si] * C + o]
            else:
                for o in range(C):
                    chain[si * C + o] = exp(steps[si] * delta[o])
        for kk in range(K):
            lam = orders[kk]
            if kk == 0 or sidx[kk] < 0:
                for o in range(C):
                    B[o] = exp(lam * delta[o])
            else:
                si = sidx[kk]
                for o in range(C):
                    B[o] = B[o] * chain[si * C + o]
            S = _dot2(A, B, C)
            er = (lam + 1.0) * h[r] - lam * l[r]
            if er + (S - 1.0) > best1[kk]:
                a = er + log(S)
                if a > best1[kk]:
                    best1[kk] = a
                if best2 != NULL and a > best2[kk]:
                    best2[kk] = a
        return
    for kk in range(K):                          # (B as scratch: A may hold the shared factors)
        lam = orders[kk]
        mx = -INFINITY
        for o in range(C):
            B[o] = (lam + 1.0) * h[o] - lam * l[o]
            if B[o] > mx:
                mx = B[o]
        S = 0.0
        for o in range(C):
            S += exp(B[o] - mx)
        a = mx + log(S)
        if a > best1[kk]:
            best1[kk] = a
        if best2 != NULL and a > best2[kk]:
            best2[kk] = a


cdef Py_ssize_t _order_anchors(const double* orders, Py_ssize_t K, int64_t* anc, int64_t* asq,
                               double* wk) noexcept nogil:
    # The anchor orders of the pruned log-moments: orders[0] and every later order equal to it times a
    # power of two (anc: their indices, asq: the doublings from the previous anchor). 0 (no pruning)
    # unless orders[0] > 0, the orders increase strictly, the last one is an anchor and there are at
    # most MAX_ANCHORS anchors: then every order is an anchor or lies strictly between two. wk: the
    # weight (lambda_k - lambda_g0) / (lambda_g1 - lambda_g0) of each order between anchors g0 < g1.
    cdef Py_ssize_t kk, nA = 1, sq, i, g0, g1
    cdef double v, c
    if K < 2 or not (orders[0] > 0.0):
        return 0
    anc[0] = 0
    asq[0] = 0
    v = orders[0]
    for kk in range(1, K):
        if not (orders[kk] > orders[kk - 1]):
            return 0
        c = v * 2.0
        sq = 1
        while c < orders[kk] and sq < 2100:
            c = c * 2.0
            sq += 1
        if c == orders[kk]:
            if nA == MAX_ANCHORS:
                return 0
            anc[nA] = kk
            asq[nA] = sq
            nA += 1
            v = c
    if anc[nA - 1] != K - 1:
        return 0
    for i in range(nA - 1):
        g0 = anc[i]
        g1 = anc[i + 1]
        wk[g0] = 0.0
        for kk in range(g0 + 1, g1):
            wk[kk] = (orders[kk] - orders[g0]) / (orders[g1] - orders[g0])
    wk[K - 1] = 0.0
    return nA


cdef void _anchor_bounds(const double* h, const double* l, Py_ssize_t C, const double* orders,
                         const int64_t* anc, const int64_t* asq, Py_ssize_t nA, double lam_max, double big,
                         double* A, int* have_a, double* F, double* u) noexcept nogil:
    # u[i] >= the exact a(lambda) = log sum_o exp((lambda + 1) h_o - lambda l_o) at lambda = orders[anc[i]]
    # (every u[i] = +inf when some lambda |delta_o| could exceed 600, as the chain's own test). The
    # factors exp(lambda delta_o) at the anchors: one exp at the first, then squarings (anchors are the
    # first order times powers of two); A as in _moments_update (shared by the forward calls).
    # Rounding (docs/theory/pate_discrete.rst, "Pruned moves"): relative to the exact sum, the computed
    # S is within u(12 b lambda + 3 lambda / lambda_0 + 2 b + C + 3), the exponent e_r within
    # u(5 lambda + 3) b + u |e_r|, the log within 2u |log S|: e below covers each about twice. Where
    # S <= 1 + 2**-8, log S <= S - 1 (exact in floating point, S >= 1) stands for log S.
    cdef Py_ssize_t o, i, s, r = 0
    cdef double dr, dm = 0.0, d, lam, lam0, S, ls, v, e
    for o in range(C):
        if h[o] > h[r]:
            r = o
    dr = h[r] - l[r]
    for o in range(C):
        d = (h[o] - l[o]) - dr
        F[o] = d
        if fabs(d) > dm:
            dm = fabs(d)
    if not (dm * lam_max <= 600.0):
        for i in range(nA):
            u[i] = INFINITY
        return
    if have_a == NULL or not have_a[0]:
        for o in range(C):
            A[o] = exp(h[o] - h[r])
        if have_a != NULL:
            have_a[0] = 1
    lam0 = orders[anc[0]]
    for o in range(C):
        F[o] = exp(lam0 * F[o])
    for i in range(nA):
        if i > 0:
            for s in range(asq[i]):
                for o in range(C):
                    F[o] = F[o] * F[o]
        lam = orders[anc[i]]
        S = _dot2(A, F, C)
        ls = S - 1.0 if S <= 1.00390625 else log(S)
        v = ((lam + 1.0) * h[r] - lam * l[r]) + ls
        e = (U_ROUND * ((32.0 * lam + 16.0) * (1.0 + big) + 4.0 * (lam / lam0) + 2.0 * C + 16.0)
             + 4.0 * U_ROUND * (fabs(v) + fabs(ls)))
        u[i] = v + e


cdef inline int _below(double c, double b, double lt) noexcept nogil:
    # c (an upper bound of a call's exact log-moment) is so far below b (the largest computed value)
    # that the call's own computed value, within lt + 16u|.| of its exact one, would not exceed b
    return b > -INFINITY and c <= b - (2.0 * lt + 32.0 * U_ROUND * (fabs(b) + fabs(c)))


cdef int _covered(const double* u, Py_ssize_t nA, const int64_t* anc, const double* wk,
                  const double* ltk, const double* best) noexcept nogil:
    # 1 when the call's log-moments at every order are provably below best: at the anchors its bounds
    # u, between them the chords of u (a is convex in lambda), raised for their rounding
    cdef Py_ssize_t i, g0, g1, kk
    cdef double d, c, slack
    for i in range(nA):
        g0 = anc[i]
        if not _below(u[i], best[g0], ltk[g0]):
            return 0
        if i + 1 < nA:
            g1 = anc[i + 1]
            d = u[i + 1] - u[i]
            slack = 8.0 * U_ROUND * (fabs(u[i]) + fabs(u[i + 1]))
            for kk in range(g0 + 1, g1):
                c = (u[i] + wk[kk] * d) + slack
                if not _below(c, best[kk], ltk[kk]):
                    return 0
    return 1


cdef void _moments_pruned(const double* hi, const double* lo, Py_ssize_t C, Py_ssize_t nm,
                          const double* orders, Py_ssize_t K, const int64_t* sidx, const double* steps,
                          const int64_t* sfrom, Py_ssize_t nd, double lam_max, double big, const double* ltk,
                          const int64_t* anc, const int64_t* asq, const double* wk, Py_ssize_t nA,
                          double* afwd, double* tmp, double* tmp2, double* chain, double* ubd, double* umax,
                          double* done, double* fac, double* fwd, double* both) noexcept nogil:
    # The loop of _moments_update over the moves (forward: hi against a neighbour's lo, updating fwd and
    # both; reverse: a neighbour's hi against lo, updating both), skipping the calls whose every value is
    # provably below the largest so far (_covered). The calls that reach the largest anchor bound of
    # their direction at some anchor go first. A skipped call's computed values could not have raised
    # the maximum, so the result is the same doubles as the full loop (docs/theory/pate_discrete.rst).
    cdef Py_ssize_t mv, c, i, d, sweep
    cdef int have_afwd = 0, lead
    cdef double* u
    cdef double* best
    for i in range(2 * nA):
        umax[i] = -INFINITY
    for mv in range(1, 1 + nm):
        c = 2 * (mv - 1)
        _anchor_bounds(hi, lo + mv * C, C, orders, anc, asq, nA, lam_max, big, afwd, &have_afwd, fac,
                       ubd + c * nA)
        _anchor_bounds(hi + mv * C, lo, C, orders, anc, asq, nA, lam_max, big, tmp, NULL, fac,
                       ubd + (c + 1) * nA)
        for d in range(2):
            done[c + d] = 0.0
            u = ubd + (c + d) * nA
            for i in range(nA):
                if u[i] > umax[d * nA + i]:
                    umax[d * nA + i] = u[i]
    for d in range(2):
        best = fwd if d == 0 else both
        for sweep in range(2):
            for mv in range(1, 1 + nm):
                c = 2 * (mv - 1) + d
                if done[c] != 0.0:
                    continue
                u = ubd + c * nA
                if sweep == 0:
                    lead = 0
                    for i in range(nA):
                        if u[i] >= umax[d * nA + i]:
                            lead = 1
                            break
                    if not lead:
                        continue
                elif _covered(u, nA, anc, wk, ltk, best):
                    continue
                done[c] = 1.0
                if d == 0:
                    _moments_update(hi, lo + mv * C, C, orders, K, sidx, steps, sfrom, nd, lam_max, afwd, tmp2,
                                    chain, fwd, both, &have_afwd)
                else:
                    _moments_update(hi + mv * C, lo, C, orders, K, sidx, steps, sfrom, nd, lam_max, tmp, tmp2,
                                    chain, both, NULL, NULL)


cdef double _discrete_log_miss(const int64_t* n, Py_ssize_t a, Py_ssize_t b, Py_ssize_t C,
                               Py_ssize_t s, const double* hi, const double* lo, Py_ssize_t k,
                               const double* consts) noexcept nogil:
    # log of sum_{j != s} exp(hi[j]) for the vector n - e_a + e_b (a = -1: n itself), plus
    # the closed-form bound of the mass beyond the vector's own window (relative to the
    # lower bound of the sum), as exp(log tails - log lower sum)
    cdef double lp = consts[0], log1p_p = consts[1], log_norm = consts[2]
    cdef double l1mp = consts[3], l1mp2 = consts[4]
    cdef Py_ssize_t j
    cdef int64_t vj, vtop, vlow
    cdef double m = -INFINITY, st = 0.0, up, down, tails, lhi, llo
    vtop = -1
    vlow = -1
    for j in range(C):
        vj = n[j] - (1 if j == a else 0) + (1 if j == b else 0)
        if vtop < 0 or vj > vtop:
            vtop = vj
        if vlow < 0 or vj < vlow:
            vlow = vj
    # the window bounds of the single-law evaluation: [min - K, max + K]
    for j in range(C):
        if j == s:
            continue
        vj = n[j] - (1 if j == a else 0) + (1 if j == b else 0)
        up = log_norm + <double>(vtop + k + 1 - vj) * lp - l1mp
        down = log_norm + <double>(vtop + vj - 2 * (vlow - k - 1)) * lp - log1p_p - l1mp2
        if up > m:
            m = up
        if down > m:
            m = down
    for j in range(C):
        if j == s:
            continue
        vj = n[j] - (1 if j == a else 0) + (1 if j == b else 0)
        up = log_norm + <double>(vtop + k + 1 - vj) * lp - l1mp
        down = log_norm + <double>(vtop + vj - 2 * (vlow - k - 1)) * lp - log1p_p - l1mp2
        st += exp(up - m) + exp(down - m)
    tails = m + log(st)
    lhi = _lse_excluding(hi, C, s)
    llo = _lse_excluding(lo, C, s)
    return lhi + exp(tails - llo)


def _py_discrete_exact(counts, tab, mlo, k, consts, margins, orders, sidx, steps, sfrom, prune=True):
    """Per row of ``counts``: (log q, two-sided log q, forward and two-sided worst log-moments).

    ``tab`` holds the eight tables of ``refdp.twins.lnmax.discrete_tables`` (each
    of ``len(tab) // 8`` entries, for arguments from ``mlo``), ``consts`` its
    five constants, ``margins`` the rounding margin of each row's log-laws;
    ``sidx, steps, sfrom`` the chain of orders of ``refdp.twins.lnmax.order_chain``;
    ``prune=False`` evaluates every move in full (the same doubles, more slowly).
    """
    owner = "refdp._lnmax._py_discrete_exact"
    counts = array_arg(counts, "counts", owner, cnp.NPY_INT64, np.int64, 2)
    tab = array_arg(tab, "tab", owner, cnp.NPY_FLOAT64, np.float64, 1)
    consts = array_arg(consts, "consts", owner, cnp.NPY_FLOAT64, np.float64, 1)
    margins = array_arg(margins, "margins", owner, cnp.NPY_FLOAT64, np.float64, 1)
    orders = array_arg(orders, "orders", owner, cnp.NPY_FLOAT64, np.float64, 1)
    k = int_arg(k, "k", owner, 0, 1 << 40)
    mlo = int_arg(mlo, "mlo", owner, -(1 << 40), 1)
    if consts.shape[0] != 5:
        raise parameter_error("consts", owner, "an array of 5 constants", consts)
    if margins.shape[0] != counts.shape[0]:
        raise parameter_error("margins", owner, f"an array of length {counts.shape[0]}", margins)
    if tab.shape[0] % DT_N:
        raise parameter_error("tab", owner, f"an array whose length is a multiple of {DT_N}", tab)
    if counts.shape[0] and counts.shape[1] < 1:
        raise parameter_error("counts", owner, "an array with at least one class column", counts)
    if counts.shape[1] > 128:
        raise parameter_error("counts", owner, "an array with at most 128 class columns", counts)
    sidx, steps, sfrom = _chain_checked(orders, sidx, steps, sfrom, owner)
    return _discrete_entry(counts, tab, mlo, k, consts, margins, orders, sidx, steps, sfrom, bool(prune))


cdef object _discrete_entry(const int64_t[:, ::1] counts, const double[::1] tab, Py_ssize_t mlo,
                            Py_ssize_t k, const double[::1] consts, const double[::1] margins,
                            const double[::1] orders, const int64_t[::1] sidx, const double[::1] steps,
                            const int64_t[::1] sfrom, bint prune):
    cdef Py_ssize_t n = counts.shape[0], C = counts.shape[1], K = orders.shape[0], r, i
    cdef Py_ssize_t tlen = tab.shape[0] // DT_N, KB = K if K > 0 else 1
    cdef int64_t lo_c, hi_c, spread = 0, cmin = 0
    log_q = np.empty(n, dtype=np.float64)
    log_q2 = np.empty(n, dtype=np.float64)
    fwd = np.zeros((n, KB), dtype=np.float64)
    both = np.zeros((n, KB), dtype=np.float64)
    if n == 0:
        return log_q, log_q2, fwd[:, :K], both[:, :K]
    # every table index the kernel reads lies in [-(spread + k + 2), spread + k + 1] - mlo
    with nogil:
        for r in range(n):
            lo_c = counts[r, 0]
            hi_c = counts[r, 0]
            for i in range(C):
                if counts[r, i] < lo_c:
                    lo_c = counts[r, i]
                if counts[r, i] > hi_c:
                    hi_c = counts[r, i]
            if hi_c - lo_c > spread:
                spread = hi_c - lo_c
            if lo_c < cmin:
                cmin = lo_c
    if cmin < 0:
        raise parameter_error("counts", "refdp._lnmax._py_discrete_exact", "an array of counts >= 0", Described("a negative count"))
    if mlo > -(spread + k + 2) or mlo + tlen - 1 < spread + k + 1 or tlen < 1:
        raise parameter_error("tab", "refdp._lnmax._py_discrete_exact",
                              f"tables covering arguments [{-(spread + k + 2)}, {spread + k + 1}]",
                              Described(f"tables of {tlen} entries from {mlo}"))
    cdef double no_order = 1.0, lam_max = 0.0
    cdef int64_t no_index = -1
    cdef const double* po = &orders[0] if K > 0 else &no_order
    cdef const int64_t* ps = &sidx[0] if K > 0 else &no_index
    cdef Py_ssize_t nd = steps.shape[0]
    cdef const double* pst = &steps[0] if nd > 0 else &no_order
    cdef const int64_t* psf = &sfrom[0] if nd > 0 else &no_index
    for i in range(K):
        if fabs(orders[i]) > lam_max:
            lam_max = fabs(orders[i])
    cdef double[::1] lq = log_q, lq2 = log_q2
    cdef double[:, ::1] fw = fwd, bo = both
    cdef Py_ssize_t Y = spread + 2 * k + 3
    cdef int64_t one_m = mlo + tlen, one_p = mlo + tlen     # the F-ratio tables' runs of 1.0 at the end
    while one_m > mlo and tab[DT_RMF * tlen + (one_m - 1 - mlo)] == 1.0:
        one_m -= 1
    while one_p > mlo and tab[DT_RPF * tlen + (one_p - 1 - mlo)] == 1.0:
        one_p -= 1
    work_arr = np.empty(discrete_exact_workspace_doubles(C, Y, nd, K), dtype=np.float64)
    iwork_arr = np.empty(discrete_exact_workspace_ints(C, K), dtype=np.int64)
    cdef double[::1] work = work_arr
    cdef int64_t[::1] iwork = iwork_arr
    with nogil:
        for r in range(n):
            discrete_exact_query(&counts[r, 0], C, k, &tab[0], mlo, tlen, one_m, one_p, &consts[0], margins[r],
                                 po, K, ps, pst, psf, nd, lam_max, prune, &work[0], &iwork[0],
                                 &lq[r], &lq2[r], &fw[r, 0], &bo[r, 0])
    if K == 0:
        return log_q, log_q2, fwd[:, :0], both[:, :0]
    return log_q, log_q2, fwd, both
