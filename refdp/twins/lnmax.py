"""Pure-Python twin of the compiled kernels in ``refdp/_lnmax.pyx``.

Two kernels, written here operation for operation as the Cython code does
them, so that the tests can require the two to agree to 1e-12 (relative, on
probabilities; absolute, on logarithms):

* :func:`lnmax_log_law` -- the exact output law of LNMax (report-noisy-max with
  ``Lap(1/gamma)`` noise on vote counts, Papernot et al. 2017, Eq. 1) for one
  count vector, as natural logarithms of the probabilities;
* :func:`lnmax_exact_query` -- for one count vector, the exact ``q = P[M(n) != j*]``,
  its two-sided counterpart ``P[M(n^-) != j*]`` (one vote moved from the top
  class to the runner-up) and the worst-case log-moment over every
  neighbouring count vector (one vote moved between two classes), in the
  forward direction and in both directions (along the chain of orders of
  :func:`order_chain` when one is given, as the discrete analysis does).

The algorithm and its error analysis are in ``docs/theory/pate.rst``; in
short, the law is the integral over the real line of piecewise-exponential
functions. Its pieces are cut by the distinct scaled counts. The unbounded
pieces are integrated exactly (the right one by Gauss-Legendre in
``v = exp(-s)``, where the integrand is a polynomial of degree ``C - 1``).
A bounded piece longer than :data:`SHORT` is integrated in closed form after
expanding a product of ``C`` binomials, with a running bound on the rounding
error of the expansion; short pieces, and pieces up to :data:`SERIES_MAX`
whose bound exceeds :data:`TOL`, by a series in ``y = 1 - exp(-s)`` whose
terms are all positive; the remaining pieces by composite Gauss-Legendre on a
graded mesh, from pointwise products that involve no cancellation.

This module is the reference used when the compiled module is not built and
in the tests; it is slow (pure Python loops).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .bounds import EPS, UNIT_ROUNDOFF as U_ROUND

__all__ = ["TOL", "ETA", "GL_M", "gl_rule", "lnmax_log_law", "lnmax_exact_query", "moves",
           "discrete_tables", "order_chain", "order_anchors", "discrete_exact_query"]

LN2 = math.log(2.0)
#: Largest accepted running bound on the relative rounding error of a piece
#: integrated in closed form; above it the piece is integrated numerically.
TOL = 1e-12
#: Bound assumed on the relative error of each computed probability when the
#: analysis rounds its results upward (docs/theory/pate.rst, "Accuracy").
ETA = 1e-11
#: Nodes per sub-interval of the composite Gauss-Legendre fallback.
GL_M = 12
#: Pieces at most this long (in units of the Laplace scale) are integrated by
#: the positive series; longer ones first try the closed form.
SHORT = 0.25
#: Longest piece on which the positive series is tried when the closed form fails.
SERIES_MAX = 0.7
#: Most terms of a positive series before giving up (then: numerical fallback).
SERIES_TERMS = 1000


def gl_rule(m):
    """Gauss-Legendre nodes and weights on [-1, 1] (``m`` points)."""
    x, w = np.polynomial.legendre.leggauss(int(m))
    return [float(v) for v in x], [float(v) for v in w]


def _lse_add(acc, j, lt):
    """Add exp(lt) to the streaming log-sum-exp ``acc[j] = (m, s)`` (value exp(m) s)."""
    m, s = acc[j]
    if lt == -math.inf:
        return
    if lt > m:
        acc[j] = (lt, s * math.exp(m - lt) + 1.0)
    else:
        acc[j] = (m, s + math.exp(lt - m))


def _lse_value(m, s):
    return m + math.log(s) if s > 0.0 else -math.inf


def _jtilde(kappa, top, L):
    """exp(-top L) * integral_0^L exp(kappa s) ds, for kappa <= top."""
    if kappa > 0:
        return math.exp(-(top - kappa) * L) * (-math.expm1(-kappa * L)) / kappa
    if kappa < 0:
        return math.exp(-top * L) * (math.expm1(kappa * L) / kappa)
    return L * math.exp(-top * L)


def _mesh(L, U, n_low, C):
    """Sub-interval edges of [0, L] for the numerical fallback (graded, capped by the growth rate)."""
    edges = [0.0]
    h0 = min(L, 0.5 / C)
    while edges[-1] < L:
        e = edges[-1]
        rate = U + n_low * math.exp(-e)
        hh = min(4.0 / max(rate, 1.0), max(h0, e))
        nxt = e + hh
        edges.append(L if nxt >= L else nxt)
    return edges


def _piece_closed(U, L, lower, alphas, n_low):
    """Closed form on a bounded piece; returns (S_up, [S_u]) or None when the error bound is too large.

    ``lower`` are the distinct lower values with multiplicities, ``alphas``
    their alpha = exp(-gamma (v_k - w)) / 2.
    """
    q = [1.0]
    e = [1.0]
    for (w, mult), al in zip(lower, alphas):
        for _ in range(mult):
            qn = [q[0]]
            en = [e[0]]
            for m in range(1, len(q)):
                qn.append(q[m] - al * q[m - 1])
                en.append(e[m] + al * e[m - 1])
            qn.append(-al * q[-1])
            en.append(al * e[-1])
            q, e = qn, en
    # upper classes: exp(-U L) J(U - t), t = 0..n_low; lower classes (integrand
    # one exponential lower): exp(-(U - 1) L) J(U - 1 - t), t = 0..n_low - 1
    jt = [_jtilde(U - t, U, L) for t in range(n_low + 1)]
    jl = [_jtilde(U - 1 - t, U - 1, L) for t in range(n_low)]
    coef = (4.0 * n_low + 16.0) * U_ROUND
    s_up = 0.0
    b_up = 0.0
    for m in range(n_low + 1):
        s_up += q[m] * jt[m]
        b_up += e[m] * jt[m]
    if not (s_up > 0.0 and coef * b_up <= TOL * s_up):
        return None
    # e~_m = e_m + e~_{m-1} / 2 bounds the synthetic-division coefficients and their errors
    et = [e[0]]
    for m in range(1, n_low):
        et.append(e[m] + 0.5 * et[-1])
    b_low = 0.0
    for m in range(n_low):
        b_low += et[m] * jl[m]
    s_lows = []
    for al in alphas:
        qu = q[0]
        s = qu * jl[0]
        for m in range(1, n_low):
            qu = q[m] + al * qu
            s += qu * jl[m]
        if not (s > 0.0 and coef * b_low <= TOL * s):
            return None
        s_lows.append(s)
    return s_up, s_lows


#: INV[p] = 1 / (p + 1), rounded once (the compiled kernel uses the same table).
INV = [1.0 / (p + 1.0) for p in range(2 * SERIES_TERMS + 2)]


def _series_weights(deg, a, Y):
    """G[m] = sum_j beta_j / (j + m + 1), m = 0..deg, beta_j = binom(a - 1 + j, j) Y**j.

    Every term is positive. The sum stops after the first j with
    Y (a + j) <= (j + 1) / 2 (from there on each term is at most half the
    previous one, so the remainder is at most the last term) and
    beta_j (deg + 1) <= 2**-62 (G[m] >= 1/(deg + 1), so the remainder is below
    2**-62 of every G[m]). Returns None if SERIES_TERMS terms do not suffice.
    """
    G = [0.0] * (deg + 1)
    beta = 1.0
    for j in range(SERIES_TERMS):
        for m in range(deg + 1):
            G[m] += beta * INV[j + m]
        if Y * (a + j) <= 0.5 * (j + 1) and beta * (deg + 1) <= 2.168404344971009e-19:
            return G
        beta = beta * (Y * (a + j) * INV[j])
        if not (beta < math.inf):
            return None
    return None


def _positive_product(lower, alphas, Y, skip):
    """Coefficients of prod ((1 - alpha) + alpha Y z) over the lower classes, one copy of ``skip`` left out."""
    ch = [1.0]
    for i, ((w, mult), al) in enumerate(zip(lower, alphas)):
        lo = 1.0 - al
        hi = al * Y
        for _ in range(mult - (1 if i == skip else 0)):
            nc = [lo * ch[0]]
            for m in range(1, len(ch)):
                nc.append(lo * ch[m] + hi * ch[m - 1])
            nc.append(hi * ch[-1])
            ch = nc
    return ch


def _piece_series(U, L, lower, alphas, n_low):
    """Bounded piece by the positive series in y = 1 - exp(-s); (S_up, [S_u]) or None.

    On the piece each lower factor is (1 - alpha) + alpha y with positive
    coefficients, ds = dy / (1 - y) and exp(U s) = (1 - y)**-U, so the upper
    integrand is B (1 - y)**-(U + 1) prod(...) and the lower one (value u)
    B alpha_u (1 - y)**-U prod(... without one u); both expand into series
    with positive terms, integrated termwise over [0, Y], Y = 1 - exp(-L):
    S = Y sum_m ch[m] G[m] with ch the coefficients of prod(...) in Y z and G
    from :func:`_series_weights`.
    """
    if n_low >= SERIES_TERMS:
        return None
    Y = -math.expm1(-L)
    g_up = _series_weights(n_low, U + 1, Y)
    g_low = _series_weights(n_low - 1, U, Y)
    if g_up is None or g_low is None:
        return None
    ch = _positive_product(lower, alphas, Y, -1)
    t = 0.0
    for m in range(n_low + 1):
        t += ch[m] * g_up[m]
    s_up = Y * t
    s_lows = []
    for i in range(len(lower)):
        ch = _positive_product(lower, alphas, Y, i)
        t = 0.0
        for m in range(n_low):
            t += ch[m] * g_low[m]
        s_lows.append(Y * t)
    if not s_up > 0.0 or not all(v > 0.0 for v in s_lows):
        return None
    return s_up, s_lows


def _piece_numeric(U, L, lower, alphas, log_alphas, n_low, C, logB, rule):
    """Composite Gauss-Legendre in s on [0, L]; returns log of (I_up, [I_u]) without the scale."""
    xs, ws = rule
    k = len(alphas)
    up = (-math.inf, 0.0)
    lows = [(-math.inf, 0.0)] * k
    acc = [up] + lows
    edges = _mesh(L, U, n_low, C)
    for lo, hi in zip(edges[:-1], edges[1:]):
        half = 0.5 * (hi - lo)
        mid = 0.5 * (hi + lo)
        for x, w in zip(xs, ws):
            s = mid + half * x
            ev = math.exp(-s)
            lw = math.log(half * w) if half * w > 0.0 else -math.inf   # C's log(0) (subnormal gamma)
            l1 = [math.log1p(-al * ev) for al in alphas]
            lg = logB + U * s
            for (wv, mult), v in zip(lower, l1):
                lg += mult * v
            _lse_add(acc, 0, lw + lg)
            for i in range(k):
                _lse_add(acc, i + 1, lw + lg - l1[i] + log_alphas[i] - s)
    return [_lse_value(*a) for a in acc]


def lnmax_log_law(counts, gamma, rule=None):
    """Natural logs of P[argmax_j (n_j + Lap(1/gamma)) = j] for one count vector.

    Parameters
    ----------
    counts : sequence of int
        Vote counts, non-negative.
    gamma : float
        Inverse Laplace scale.
    rule : tuple, optional
        The Gauss-Legendre rule of the fallback (default :func:`gl_rule` of
        :data:`GL_M` points).
    """
    if rule is None:
        rule = gl_rule(GL_M)
    n = [int(c) for c in counts]
    C = len(n)
    if C == 1:
        return [0.0]
    vals = sorted(set(n))
    K = len(vals)
    mult = {v: 0 for v in vals}
    for c in n:
        mult[c] += 1
    acc_val = {v: (-math.inf, 0.0) for v in vals}   # per distinct value: classes with equal counts are exchangeable

    def add(v, lt):
        m, s = acc_val[v]
        if lt == -math.inf:
            return
        if lt > m:
            acc_val[v] = (lt, s * math.exp(m - lt) + 1.0)
        else:
            acc_val[v] = (m, s + math.exp(lt - m))

    total = sum(n)
    # left piece (-inf, v_0]: every class upper, integral B / C
    v0 = vals[0]
    left = -C * LN2 - math.log(C) - gamma * float(total - C * v0)
    for v in vals:
        add(v, left)
    above_sum = total      # sum of counts strictly above the current value
    above_cnt = C
    lower = []
    for k in range(K):
        vk = vals[k]
        lower.append((vk, mult[vk]))
        above_sum -= vk * mult[vk]
        above_cnt -= mult[vk]
        U = above_cnt
        n_low = C - U
        alphas = [0.5 * math.exp(-gamma * float(vk - w)) for w, _ in lower]
        log_alphas = [-LN2 - gamma * float(vk - w) for w, _ in lower]
        if k == K - 1:
            # right piece: U = 0, integrand alpha_u Q_u(v) dv on [0, 1], a polynomial
            # of degree C - 1: exact with ceil(C/2) Gauss-Legendre points
            xs, ws = gl_rule((C + 1) // 2)
            accs = [(-math.inf, 0.0)] * len(lower)
            for x, w in zip(xs, ws):
                v = 0.5 * (x + 1.0)
                lw = math.log(0.5 * w)
                l1 = [math.log1p(-al * v) for al in alphas]
                lq = 0.0
                for (wv, mu), t in zip(lower, l1):
                    lq += mu * t
                for i in range(len(lower)):
                    _lse_add(accs, i, lw + lq - l1[i])
            for i, (w, _) in enumerate(lower):
                add(w, log_alphas[i] + _lse_value(*accs[i]))
            break
        L = gamma * float(vals[k + 1] - vk)
        logB = -U * LN2 - gamma * float(above_sum - U * vk)
        res = None
        if L > SHORT:
            res = _piece_closed(U, L, lower, alphas, n_low)
            if res is not None:
                s_up, s_lows = res
                up_log = logB + U * L + math.log(s_up)
                for v in vals[k + 1:]:
                    add(v, up_log)
                scale_low = logB + (U - 1) * L
                for i, (w, _) in enumerate(lower):
                    add(w, scale_low + log_alphas[i] + math.log(s_lows[i]))
                continue
        if L <= SERIES_MAX:
            res = _piece_series(U, L, lower, alphas, n_low)
        if res is not None:
            s_up, s_lows = res
            up_log = logB + math.log(s_up)
            for v in vals[k + 1:]:
                add(v, up_log)
            for i, (w, _) in enumerate(lower):
                add(w, logB + log_alphas[i] + math.log(s_lows[i]))
        else:
            logs = _piece_numeric(U, L, lower, alphas, log_alphas, n_low, C, logB, rule)
            for v in vals[k + 1:]:
                add(v, logs[0])
            for i, (w, _) in enumerate(lower):
                add(w, logs[i + 1])
    return [_lse_value(*acc_val[c]) for c in n]


def _lse(values):
    m = max(values)
    if m == -math.inf:
        return -math.inf
    return m + math.log(sum(math.exp(v - m) for v in values))


def moves(counts):
    """Representative single-vote moves (a, b): one per pair of count values (source, target).

    Classes with equal counts are exchangeable, so moving a vote from any class
    with count x to any other class with count y gives the same log-moments.
    """
    n = [int(c) for c in counts]
    first = {}
    second = {}
    for i, c in enumerate(n):
        if c not in first:
            first[c] = i
        elif c not in second:
            second[c] = i
    out = []
    for x in sorted(first):
        if x < 1:
            continue
        a = first[x]
        for y in sorted(first):
            if y == x:
                if x in second:
                    out.append((a, second[x]))
            else:
                out.append((a, first[y]))
    return out


def lnmax_exact_query(counts, gamma, orders, rule=None, chain=None):
    """Exact data-dependent quantities of one LNMax answer.

    ``chain``: the ``(sidx, steps, sfrom)`` of :func:`order_chain` along which
    the log-moments are evaluated (default: none, every order by its direct
    log-sum-exp), by :func:`_moments_update` as in the discrete analysis.

    Returns
    -------
    log_q, log_q2 : float
        ``log P[M(n) != j*]`` and ``log P[M(n^-) != j*]`` with ``j*`` the first
        largest count and ``n^-`` the vector with one vote moved from ``j*``
        to the first runner-up (``-inf`` for a single class).
    alpha_fwd, alpha_both : list of float
        Per order, ``max_{n'} log sum_o P(o) (P(o)/P'(o))**lam`` over the
        neighbours ``n'`` (forward), and the max of that and the reverse
        ``log sum_o P'(o) (P'(o)/P(o))**lam`` (both), at least 0. Not rounded.
    max_abs_log : float
        The largest ``|log P(o)|`` over every law computed (it enters the
        rounding margins).
    """
    if rule is None:
        rule = gl_rule(GL_M)
    n = [int(c) for c in counts]
    C = len(n)
    K = len(orders)
    if C == 1:
        return -math.inf, -math.inf, [0.0] * K, [0.0] * K, 0.0
    lp = lnmax_log_law(n, gamma, rule)
    big = max(abs(v) for v in lp)
    jstar = max(range(C), key=lambda j: (n[j], -j))
    log_q = _lse([lp[j] for j in range(C) if j != jstar])
    runner = max((j for j in range(C) if j != jstar), key=lambda j: (n[j], -j))
    fwd = [0.0] * K
    both = [0.0] * K
    log_q2 = None
    if chain is None:
        sidx, steps, sfrom = [-1] * K, [], []
    else:
        sidx, steps, sfrom = (list(v) for v in chain)
    nd = len(steps)
    lam_max = max((abs(v) for v in orders), default=0.0)
    for a, b in moves(n):
        m = list(n)
        m[a] -= 1
        m[b] += 1
        lpp = lnmax_log_law(m, gamma, rule)
        for v in lpp:
            if abs(v) > big:
                big = abs(v)
        if n[a] == n[jstar] and n[b] == n[runner] and (b != jstar):
            # the move top -> runner-up (up to exchangeable classes): relabel so that
            # the class losing the vote plays j*
            log_q2 = _lse([lpp[j] for j in range(C) if j != a])
        # forward (h = log P at n, l at the neighbour), then reverse
        _moments_update(lp, lpp, orders, sidx, steps, sfrom, nd, lam_max, fwd, both)
        _moments_update(lpp, lp, orders, sidx, steps, sfrom, nd, lam_max, both, None)
    if log_q2 is None:      # no vote can leave the top class (cannot happen with T >= 1)
        log_q2 = log_q
    return log_q, (log_q2 if log_q2 > log_q else log_q), fwd, both, big



# ---------------------------------------------------------------------------
# The float-safe LNMax (exact discrete Laplace noise of scale t): twin of
# ``discrete_exact_query`` in ``refdp/_lnmax.pyx``, operation for operation.

#: Order of the six tables in the array of :func:`discrete_tables`.
DT_LF, DT_LFD, DT_RMF, DT_RPF, DT_RMD, DT_RPD, DT_FL, DT_GL = range(8)


def discrete_tables(t, spread, k):
    """Tables of the discrete closed forms for the arguments ``m`` in ``[-(spread + k + 2), spread + k + 1]``.

    ``p = exp(-1/t)``, ``F(m) = P[Z <= m]`` (``p^-m / (1 + p)`` for ``m <= -1``,
    ``1 - p^(m+1) / (1 + p)`` otherwise) and ``f(m) = (1 - p)/(1 + p) p^|m|``.

    Returns
    -------
    (tab, mlo, consts)
        ``tab``: float64 array of eight consecutive tables (``log F(m)``,
        ``log f(m)``, ``F(m+1)/F(m)``, ``F(m-1)/F(m)``, ``f(m+1)/f(m)``,
        ``f(m-1)/f(m)``, ``F(m)``, ``f(m)/F(m)``, each but the first two the
        ``exp`` of a difference of the logarithms or of a logarithm) for ``m``
        from ``mlo``; ``consts``: ``log p``, ``log(1 + p)``,
        ``log((1 - p)/(1 + p))``, ``log(1 - p)``, ``log(1 - p^2)``.
    """
    tf = float(t)
    lp = -1.0 / tf
    log1p_p = math.log1p(math.exp(lp))
    log_norm = math.log(-math.expm1(lp)) - log1p_p
    mlo = -(int(spread) + int(k) + 2)
    mhi = int(spread) + int(k) + 1
    m = np.arange(mlo - 1, mhi + 2, dtype=np.float64)      # one more on each side for the ratios
    logF = np.empty_like(m)
    neg = m <= -1
    logF[neg] = (-m[neg]) * lp - log1p_p
    logF[~neg] = np.log1p(-np.exp((m[~neg] + 1.0) * lp - log1p_p))
    logf = log_norm - np.abs(m) / tf
    mid = slice(1, -1)
    tab = np.concatenate([logF[mid], logf[mid],
                          np.exp(logF[2:] - logF[mid]), np.exp(logF[:-2] - logF[mid]),
                          np.exp(logf[2:] - logf[mid]), np.exp(logf[:-2] - logf[mid]),
                          np.exp(logF[mid]), np.exp(logf[mid] - logF[mid])])
    consts = np.array([lp, log1p_p, log_norm, math.log(-math.expm1(lp)), math.log(-math.expm1(2.0 * lp))])
    return np.ascontiguousarray(tab), mlo, consts


def _logaddexp(x, y):
    m = x if x > y else y
    if m == -math.inf:
        return -math.inf
    return m + math.log1p(math.exp(-abs(x - y)))


def _lse_skip(x, skip):
    m = -math.inf
    for i, v in enumerate(x):
        if i != skip and v > m:
            m = v
    if m == -math.inf:
        return -math.inf
    s = 0.0
    for i, v in enumerate(x):
        if i != skip:
            s += math.exp(v - m)
    return m + math.log(s)


def _dot2(x, y):
    s = [0.0, 0.0, 0.0, 0.0]
    for i in range(len(x)):
        s[i % 4] += x[i] * y[i]
    return (s[0] + s[1]) + (s[2] + s[3])


def _discrete_log_miss(n, a, b, s, hi, lo, k, consts):
    lp, log1p_p, log_norm, l1mp, l1mp2 = consts
    C = len(n)
    v = [n[j] - (1 if j == a else 0) + (1 if j == b else 0) for j in range(C)]
    vtop, vlow = max(v), min(v)
    ups = []
    for j in range(C):
        if j == s:
            continue
        up = log_norm + float(vtop + k + 1 - v[j]) * lp - l1mp
        down = log_norm + float(vtop + v[j] - 2 * (vlow - k - 1)) * lp - log1p_p - l1mp2
        ups.append((up, down))
    m = -math.inf
    for up, down in ups:
        if up > m:
            m = up
        if down > m:
            m = down
    st = 0.0
    for up, down in ups:
        st += math.exp(up - m) + math.exp(down - m)
    tails = m + math.log(st)
    return _lse_skip(hi, s) + math.exp(tails - _lse_skip(lo, s))


def order_chain(orders):
    """(sidx, steps, sfrom): each order reached from the previous one by a tabulated step, where exact.

    ``steps`` are the distinct differences ``orders[k] - orders[k - 1]`` that
    are exact (as rationals, and ``orders[k - 1] + step == orders[k]``), by
    increasing magnitude; ``sidx[k]`` indexes the step of order ``k`` (``-1``:
    evaluated directly, always for ``k = 0``); ``sfrom[i]`` is the index of an
    earlier step of half ``steps[i]`` and magnitude at least 1/8 (its factor
    is squared), or ``-1``. When more than half the orders would need their
    own step, no chain is used (every ``sidx`` is ``-1``).
    """
    orders = [float(x) for x in orders]
    found = []
    for i in range(1, len(orders)):
        d = orders[i] - orders[i - 1]
        ok = Fraction(orders[i]) - Fraction(orders[i - 1]) == Fraction(d) and orders[i - 1] + d == orders[i]
        found.append(d if ok else None)
    steps = sorted({d for d in found if d is not None}, key=lambda d: (abs(d), d))
    if 2 * len(steps) > len(orders):
        return np.full(len(orders), -1, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
    sidx = [-1] + [-1 if d is None else steps.index(d) for d in found] if orders else []
    sfrom = [next((j for j in range(i) if steps[i] == 2.0 * steps[j] and abs(steps[j]) >= 0.125), -1)
             for i in range(len(steps))]
    return (np.array(sidx, dtype=np.int64), np.array(steps, dtype=np.float64),
            np.array(sfrom, dtype=np.int64))


def _reference_shift(h, l):
    """``(r, d_r, shifts, largest)``: the outcome ``r`` of largest ``h``, ``d_r = h_r - l_r``,
    the shifts ``(h_o - l_o) - d_r`` and their largest magnitude."""
    r = 0
    for o in range(len(h)):
        if h[o] > h[r]:
            r = o
    dr = h[r] - l[r]
    delta = [(h[o] - l[o]) - dr for o in range(len(h))]
    dm = 0.0
    for v in delta:
        if abs(v) > dm:
            dm = abs(v)
    return r, dr, delta, dm


def _moments_update(h, l, orders, sidx, steps, sfrom, nd, lam_max, best1, best2):
    C = len(h)
    r, dr, delta, dm = _reference_shift(h, l)
    if nd > 0 and dm * lam_max <= 600.0:
        A = [math.exp(h[o] - h[r]) for o in range(C)]
        chain = []
        for si, st in enumerate(steps):
            if sfrom[si] >= 0:
                f = chain[sfrom[si]]
                chain.append([f[o] * f[o] for o in range(C)])
            else:
                chain.append([math.exp(float(st) * delta[o]) for o in range(C)])
        B = [0.0] * C
        for kk, lam in enumerate(orders):
            if kk == 0 or sidx[kk] < 0:
                B = [math.exp(lam * delta[o]) for o in range(C)]
            else:
                f = chain[sidx[kk]]
                B = [B[o] * f[o] for o in range(C)]
            S = _dot2(A, B)
            er = (lam + 1.0) * h[r] - lam * l[r]
            if er + (S - 1.0) > best1[kk]:
                a = er + math.log(S)
                if a > best1[kk]:
                    best1[kk] = a
                if best2 is not None and a > best2[kk]:
                    best2[kk] = a
        return
    for kk, lam in enumerate(orders):
        e = [(lam + 1.0) * h[o] - lam * l[o] for o in range(C)]
        mx = max(e)
        S = 0.0
        for o in range(C):
            S += math.exp(e[o] - mx)
        a = mx + math.log(S)
        if a > best1[kk]:
            best1[kk] = a
        if best2 is not None and a > best2[kk]:
            best2[kk] = a


#: Most anchor orders of the pruned log-moments (more: every move is evaluated in full).
MAX_ANCHORS = 64


def order_anchors(orders):
    """(anc, asq, wk): the anchor orders of the pruned log-moments, or None (no pruning).

    ``orders[0]`` and every later order equal to it times a power of two
    (``anc`` their indices, ``asq`` the doublings from the previous anchor,
    ``wk`` the weight ``(lambda_k - lambda_g0) / (lambda_g1 - lambda_g0)`` of
    each order between anchors ``g0 < g1``, 0 at the anchors). None unless
    ``orders[0] > 0``, the orders increase strictly, the last one is an
    anchor and there are 2 to :data:`MAX_ANCHORS` anchors: then every order
    is an anchor or lies strictly between two. Twin of ``_order_anchors`` in
    ``refdp/_lnmax.pyx`` (docs/theory/pate_discrete.rst, "Pruned moves").
    """
    K = len(orders)
    if K < 2 or not (orders[0] > 0.0):
        return None
    anc, asq = [0], [0]
    v = orders[0]
    for kk in range(1, K):
        if not (orders[kk] > orders[kk - 1]):
            return None
        c, sq = v * 2.0, 1
        while c < orders[kk] and sq < 2100:
            c, sq = c * 2.0, sq + 1
        if c == orders[kk]:
            if len(anc) == MAX_ANCHORS:
                return None
            anc.append(kk)
            asq.append(sq)
            v = c
    if anc[-1] != K - 1:
        return None
    wk = [0.0] * K
    for g0, g1 in zip(anc[:-1], anc[1:]):
        for kk in range(g0 + 1, g1):
            wk[kk] = (orders[kk] - orders[g0]) / (orders[g1] - orders[g0])
    return anc, asq, wk


def _anchor_bounds(h, l, orders, anchors, lam_max, big):
    """Upper bounds of the exact log-moments of (h, l) at the anchor orders (+inf: not available)."""
    anc, asq, _ = anchors
    C = len(h)
    r, dr, F, dm = _reference_shift(h, l)
    if not (dm * lam_max <= 600.0):
        return [math.inf] * len(anc)
    A = [math.exp(h[o] - h[r]) for o in range(C)]
    lam0 = orders[anc[0]]
    F = [math.exp(lam0 * d) for d in F]
    u = []
    for i, g in enumerate(anc):
        if i > 0:
            for _ in range(asq[i]):
                F = [f * f for f in F]
        lam = orders[g]
        S = _dot2(A, F)
        ls = S - 1.0 if S <= 1.00390625 else math.log(S)
        v = ((lam + 1.0) * h[r] - lam * l[r]) + ls
        e = (U_ROUND * ((32.0 * lam + 16.0) * (1.0 + big) + 4.0 * (lam / lam0) + 2.0 * C + 16.0)
             + 4.0 * U_ROUND * (abs(v) + abs(ls)))
        u.append(v + e)
    return u


def _below(c, b, lt):
    return b > -math.inf and c <= b - (2.0 * lt + 32.0 * U_ROUND * (abs(b) + abs(c)))


def _covered(u, anchors, ltk, best):
    anc, _, wk = anchors
    nA = len(anc)
    for i in range(nA):
        g0 = anc[i]
        if not _below(u[i], best[g0], ltk[g0]):
            return False
        if i + 1 < nA:
            g1 = anc[i + 1]
            d = u[i + 1] - u[i]
            slack = 8.0 * U_ROUND * (abs(u[i]) + abs(u[i + 1]))
            for kk in range(g0 + 1, g1):
                c = (u[i] + wk[kk] * d) + slack
                if not _below(c, best[kk], ltk[kk]):
                    return False
    return True


def _moments_pruned(hi, lo, nm, orders, sidx, steps, sfrom, nd, lam_max, big, ltk, anchors, fwd, both):
    """The loop of :func:`_moments_update` over the moves, skipping the calls provably below the maximum."""
    nA = len(anchors[0])
    ubd = []
    for mv in range(1, 1 + nm):
        ubd.append(_anchor_bounds(hi[0], lo[mv], orders, anchors, lam_max, big))
        ubd.append(_anchor_bounds(hi[mv], lo[0], orders, anchors, lam_max, big))
    umax = [[max(ubd[c][i] for c in range(d, 2 * nm, 2)) for i in range(nA)] for d in range(2)]
    done = [False] * (2 * nm)
    for d in range(2):
        best = fwd if d == 0 else both
        for sweep in range(2):
            for mv in range(1, 1 + nm):
                c = 2 * (mv - 1) + d
                if done[c]:
                    continue
                u = ubd[c]
                if sweep == 0:
                    if not any(u[i] >= umax[d][i] for i in range(nA)):
                        continue
                elif _covered(u, anchors, ltk, best):
                    continue
                done[c] = True
                if d == 0:
                    _moments_update(hi[0], lo[mv], orders, sidx, steps, sfrom, nd, lam_max, fwd, both)
                else:
                    _moments_update(hi[mv], lo[0], orders, sidx, steps, sfrom, nd, lam_max, both, None)


def discrete_exact_query(n, k, tab, mlo, consts, margin, orders, chain=None, *, prune=True):
    """Twin of the compiled ``discrete_exact_query``: (log q, two-sided log q, forward, both).

    ``tab, mlo, consts`` from :func:`discrete_tables`; ``margin`` the rounding
    margin of the log-laws (subtracted from the lower, added to the upper
    bounds); ``chain`` the ``(sidx, steps)`` of :func:`order_chain` (default:
    computed from ``orders``). docs/theory/pate_discrete.rst, "Compiled
    evaluation". ``prune=False`` evaluates every move in full (no anchor
    bounds, :func:`order_anchors`): the same doubles, more slowly (a reference
    for the tests).
    """
    n = [int(c) for c in n]
    C = len(n)
    K = len(orders)
    tlen = len(tab) // 8
    tab = [float(x) for x in tab]
    lp, log1p_p, log_norm, l1mp, l1mp2 = (float(c) for c in consts)

    one_m = one_p = mlo + tlen                   # the F-ratio tables' runs of 1.0 at the end
    while one_m > mlo and tab[DT_RMF * tlen + one_m - 1 - mlo] == 1.0:
        one_m -= 1
    while one_p > mlo and tab[DT_RPF * tlen + one_p - 1 - mlo] == 1.0:
        one_p -= 1
    top, low = max(n) + 1, min(n) - 1
    y0 = low - k
    Y = (top + k) - y0 + 1
    moves = [(a, b) for a in range(C) if n[a] >= 1 for b in range(C) if b != a]
    nm = len(moves)
    lo = [[0.0] * C for _ in range(1 + nm)]
    hi = [[0.0] * C for _ in range(1 + nm)]
    spread = max(n) - min(n)
    linear = (float(C * (spread + 3) + spread + k + 2) * (-lp) + float(C) * log1p_p - log_norm) < 600.0
    if linear:
        Tot = [1.0] * Y
        Qb = [1.0] * Y
        for i in range(C):
            off = DT_FL * tlen + y0 - n[i] - mlo
            for yi in range(k, Y):
                Tot[yi] = Tot[yi] * tab[off + yi]
    for j in range(C):
        g = n[j]
        for i in range(C):
            if i != j and n[i] + (1 if i < j else 0) - 1 < g:
                g = n[i] + (1 if i < j else 0) - 1
        G = max(g - y0, 0)
        T = [0.0] * Y
        w = [0.0] * Y
        Pw = [0.0] * (Y + 1)
        if linear:
            off = DT_GL * tlen + y0 - n[j] - mlo
            mxl = 0.0
            for yi in range(G, Y):
                T[yi] = (Tot[yi] * Qb[yi]) * tab[off + yi]
                if T[yi] > mxl:
                    mxl = T[yi]
            sw = 0.0
            if G > 0:
                sw = (T[G] / mxl) * (math.exp(float(C) * lp) * (-math.expm1(float(C * G) * lp))
                                     / (-math.expm1(float(C) * lp)))
            Pw[G] = sw
            for yi in range(G, Y):
                w[yi] = T[yi] / mxl
                sw += w[yi]
                Pw[yi + 1] = sw
            lmx = math.log(mxl)
            body0 = lmx + math.log(sw)
            off = DT_RPF * tlen + y0 - n[j] - mlo
            for yi in range(k, Y):
                Qb[yi] = Qb[yi] * tab[off + yi]
        else:
            for i in range(C):
                if i < j:
                    base, which = y0 - n[i] - 1, DT_LF
                elif i > j:
                    base, which = y0 - n[i], DT_LF
                else:
                    base, which = y0 - n[j], DT_LFD
                off = which * tlen + base - mlo
                for yi in range(G, Y):
                    T[yi] += tab[off + yi]
            mx = max(T[G:])
            sw = 0.0
            if G > 0:
                sw = math.exp(T[G] - mx) * (math.exp(float(C) * lp) * (-math.expm1(float(C * G) * lp))
                                            / (-math.expm1(float(C) * lp)))
            Pw[G] = sw
            for yi in range(G, Y):
                w[yi] = math.exp(T[yi] - mx)
                sw += w[yi]
                Pw[yi + 1] = sw
            lmx = mx
            body0 = lmx + math.log(sw)
        lo[0][j] = body0
        cval = [n[i] + (1 if i < j else 0) for i in range(C)]
        # suffix sums of the weights, from the smallest hc on (every hc >= ca + one_m, cb + one_p)
        others = [cval[i] for i in range(C) if i != j]
        lim = Y if not others else min(min(others) + max(one_m, one_p) - y0, Y)
        lim = max(lim, G)
        Sw = [0.0] * (Y + 1)
        for yi in range(Y - 1, lim - 1, -1):
            Sw[yi] = Sw[yi + 1] + w[yi]
        rep = [next((i2 for i2 in range(i) if i2 != j and cval[i2] == cval[i]), i) if i != j else i
               for i in range(C)]
        memo = {}
        for mv, (a, b) in enumerate(moves):
            key = (rep[a], C if b == j else rep[b])     # a = j: b's row alone (rep[a] != j for a != j)
            if key in memo:
                lo[1 + mv][j] = memo[key]
                continue
            if a == j:
                wa, ca, thr_a = DT_RMD, n[j], n[j] - 1
            else:
                ca = n[a] + (1 if a < j else 0)
                wa, thr_a = DT_RMF, ca - 2
            if b == j:
                wb, cb, thr_b = DT_RPD, n[j], n[j]
            else:
                cb = n[b] + (1 if b < j else 0)
                wb, thr_b = DT_RPF, cb - 1
            ci = min(max(min(thr_a, thr_b) - y0 + 1, 0), Y)
            oa = wa * tlen + y0 - ca - mlo
            ob = wb * tlen + y0 - cb - mlo
            hc = Y
            if a != j and b != j:
                hc = min(max(max(ca + one_m, cb + one_p) - y0, ci), Y)
            S = (Pw[ci] + _dot2([w[yi] * tab[oa + yi] for yi in range(ci, hc)], tab[ob + ci:ob + hc])) + Sw[hc]
            lo[1 + mv][j] = lmx + math.log(S)
            memo[key] = lo[1 + mv][j]
    big = 0.0
    for r in range(1 + nm):
        a, b = (-1, -1) if r == 0 else moves[r - 1]
        v = [n[i] - (1 if i == a else 0) + (1 if i == b else 0) for i in range(C)]
        for j in range(C):
            vother = -1
            for i in range(C):
                if i != j and v[i] > vother:
                    vother = v[i]
            x = log_norm + float(top + k + 1 - v[j]) * lp - l1mp
            if C == 1:
                lt = log_norm + float(v[j] - low + k + 1) * lp - l1mp
            else:
                lt = log_norm + float(v[j] + vother - 2 * (low - k - 1)) * lp - log1p_p - l1mp2
            body = lo[r][j]
            hi[r][j] = _logaddexp(body, _logaddexp(x, lt)) + margin
            lo[r][j] = body - margin
            big = max(big, abs(lo[r][j]), abs(hi[r][j]))
    s = max(range(C), key=lambda i: (n[i], -i))
    if C == 1:
        log_q = log_q2 = -math.inf
    else:
        runner = max((i for i in range(C) if i != s), key=lambda i: (n[i], -i))
        if n[s] - n[runner] < 3:
            log_q = log_q2 = math.inf
        else:
            log_q = _discrete_log_miss(n, -1, -1, s, hi[0], lo[0], k, (lp, log1p_p, log_norm, l1mp, l1mp2))
            log_q2 = -math.inf
            for mv, (a, b) in enumerate(moves):
                if a == s:
                    x = _discrete_log_miss(n, a, b, s, hi[1 + mv], lo[1 + mv], k,
                                           (lp, log1p_p, log_norm, l1mp, l1mp2))
                    if x > log_q2:
                        log_q2 = x
    sidx, steps, sfrom = order_chain(orders) if chain is None else chain
    nd = len(steps)
    orders = [float(x) for x in orders]
    lam_max = max((abs(x) for x in orders), default=0.0)
    fwd = [-math.inf] * K
    both = [-math.inf] * K
    ltk = []
    x = 0.0
    for kk, lam in enumerate(orders):
        x += abs(lam) if kk == 0 or sidx[kk] < 0 else abs(steps[sidx[kk]])
        ltk.append(8.0 * U_ROUND * (2.0 * lam + 2.0) * (1.0 + big)
                   + U_ROUND * ((20.0 * x + 4.0) * (1.0 + big) + 4.0 * kk + 2.0 * C + 12.0))
    anchors = order_anchors(orders) if nm > 0 and prune else None
    if anchors is not None:
        _moments_pruned(hi, lo, nm, orders, sidx, steps, sfrom, nd, lam_max, big, ltk, anchors, fwd, both)
    else:
        for mv in range(1, 1 + nm):
            _moments_update(hi[0], lo[mv], orders, sidx, steps, sfrom, nd, lam_max, fwd, both)
            _moments_update(hi[mv], lo[0], orders, sidx, steps, sfrom, nd, lam_max, both, None)
    for kk, lam in enumerate(orders):
        if nm == 0:
            fwd[kk] = both[kk] = 0.0
            continue
        lt = ltk[kk]
        af = fwd[kk]
        fwd[kk] = (af if af > 0.0 else 0.0) + lt + 16.0 * U_ROUND * abs(af)
        ar = both[kk] if both[kk] > 0.0 else 0.0
        both[kk] = ar + lt + 16.0 * U_ROUND * ar
    return log_q, log_q2, fwd, both
