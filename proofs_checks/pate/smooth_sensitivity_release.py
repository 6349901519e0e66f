"""The smooth-sensitivity release of PATE's data-dependent epsilon is (epsilon_r, delta_r)-DP.

Claim
    (1) ``refdp.pate.smooth_sensitivity`` returns a beta-smooth upper bound
    of the local sensitivity of the released log-moment (Nissim,
    Raskhodnikova and Smith 2007, Definition 2.2): checked exhaustively on
    every dataset of T teachers' votes on Q queries (a dataset is a multiset
    of T rows of votes; a neighbour replaces one row): for each dataset D,
    ``S(D) >= max_k exp(-beta k) max_{D'' within k} LS(D'')`` with the true
    local sensitivity LS of the released float value, and
    ``S(D) <= exp(beta) S(D')`` for every neighbour D'. Quick: C = 2 classes,
    T = 6, Q = 2 and C = 3, T = 5, Q = 1; both statistics (Lemma 4, exact
    q), one- and two-sided, order 8. Full: order 2 on C = 3, T = 3, Q = 2
    with gamma = 1.5; C = 2, T = 6, Q = 2 with gamma = 0.5; C = 3, T = 5, Q = 1
    (continuous-noise statistics, ``noise="continuous"``). The same for the
    discrete-noise statistics of ``lnmax_labels(secure=True)``
    (``noise="discrete"``; docs/theory/pate_discrete.rst): quick C = 2, T = 3,
    Q = 2, gamma = 1 and C = 3, T = 5, Q = 1, gamma = 2 at order 8; full
    order 2 on C = 3, T = 3, Q = 2, gamma = 1.5; C = 2, T = 6, Q = 2,
    gamma = 0.5; C = 3, T = 7, Q = 1, gamma = 2.
    (2) Laplace noise is admissible: for ``a, beta =
    smooth_laplace_parameters(eps_r, delta_r)``, the laws
    ``f + (S/a) Lap(1)`` at neighbours with ``|f - f'| <= min(S, S')`` and
    ``S'/S`` in ``[exp(-beta), exp(beta)]`` have hockey-stick divergence at
    ``eps_r`` at most ``delta_r`` in both directions, on a grid of shifts and
    ratios including the extremes, for four (eps_r, delta_r).
Precision
    (1) exact rational arithmetic on the floats and interval arithmetic
    with outward rounding for the exponentials (decide_leq_interval at 30
    digits; the smoothness inequalities with exp(beta) enclosed at 50 digits;
    certified; undecided fails). (2) the hockey-stick divergence of two Laplace laws in closed
    form (piecewise exponential integrals between the breakpoints of the
    log-density ratio), decided at 30 and 70 digits; fail closed.
"""
from __future__ import annotations

import itertools
from collections import deque
from fractions import Fraction

import mpmath
import numpy as np

from refdp.pate import smooth_laplace_parameters, smooth_sensitivity
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import ctx_rational, iv_context, raw_to_fraction
from refdp.verify.verdict import (Verdict, decide_enclosures, decide_leq, decide_leq_interval, lower, upper,
                                  worst_verdict)

DPS = 30
#: Interval context of the smoothness decisions (never modified, so shared).
IV = iv_context(50)


def _datasets(teachers, queries, classes):
    rows = list(itertools.product(range(classes), repeat=queries))
    return [tuple(c) for c in itertools.combinations_with_replacement(rows, teachers)], rows


def _counts(dataset, queries, classes):
    out = np.zeros((queries, classes), dtype=np.int64)
    for row in dataset:
        for q, v in enumerate(row):
            out[q, v] += 1
    return out


def _neighbours(dataset, rows):
    out = set()
    for i in range(len(dataset)):
        for r in rows:
            if r != dataset[i]:
                out.add(tuple(sorted(dataset[:i] + (r,) + dataset[i + 1:])))
    return out


def smoothness(teachers, queries, classes, gamma, order, beta, statistic, two_sided, noise="continuous"):
    """(verdicts, worst ratio true/S) over every dataset."""
    datasets, rows = _datasets(teachers, queries, classes)
    ss = {d: smooth_sensitivity(_counts(d, queries, classes), gamma, order, beta,
                                statistic=statistic, two_sided=two_sided, noise=noise) for d in datasets}
    nbrs = {d: _neighbours(d, rows) for d in datasets}
    f = {d: Fraction(ss[d].log_moment) for d in datasets}          # exact values of the floats
    ls = {d: max(abs(f[d] - f[e]) for e in nbrs[d]) for d in datasets}
    verdicts, worst = [], Fraction(0)
    e_beta = IV.exp(IV.mpf(beta))                                  # an enclosure of e^beta
    for d in datasets:
        # BFS distances from d; best[k] = max LS within distance k
        dist = {d: 0}
        queue = deque([d])
        while queue:
            x = queue.popleft()
            for y in nbrs[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        radius = max(dist.values())
        within = [Fraction(0)] * (radius + 1)
        for x, k in dist.items():
            within[k] = max(within[k], ls[x])
        for k in range(1, radius + 1):
            within[k] = max(within[k], within[k - 1])

        def true_smooth(c, within=within):
            # an enclosure of max_k e^(-beta k) v_k: the maxima of the end points
            terms = [c.exp(-c.mpf(beta) * k) * ctx_rational(c, v) for k, v in enumerate(within)]
            return c.mpf([max(lower(t) for t in terms), max(upper(t) for t in terms)])

        v, lhs, rhs = decide_leq_interval(true_smooth, lambda c, d=d: ss[d].value, DPS)
        verdicts.append(v)
        if ss[d].value > 0:
            worst = max(worst, raw_to_fraction(lhs._mpi_[1]) / Fraction(ss[d].value))
        for e in nbrs[d]:
            verdicts.append(_leq_exp_beta(ss[d].value, ss[e].value, e_beta))
    return verdicts, worst


def _leq_exp_beta(x, y, e_beta):
    """Decide x <= e^beta y for floats x, y, with e^beta an interval enclosure (fail closed)."""
    return decide_enclosures(x, e_beta * IV.mpf(y))


def sweep(configs, orders, noise="continuous"):
    verdicts, worst, where = [], Fraction(0), ""
    a, beta = smooth_laplace_parameters(1.0, 1e-6)
    for teachers, queries, classes, gamma in configs:
        for statistic in ("lemma4", "exact"):
            for two_sided in (True, False):
                for order in orders:
                    v, w = smoothness(teachers, queries, classes, gamma, order, beta, statistic, two_sided,
                                      noise)
                    verdicts += v
                    if w > worst:
                        worst, where = w, (f"T={teachers}, Q={queries}, C={classes}, gamma={gamma}, "
                                           f"{statistic}, two_sided={two_sided}, order={order}")
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions (upper bound and beta-smoothness, beta = {beta:.6g}); "
                       f"largest true smooth sensitivity / refdp's bound <= {float(worst):.4g} at {where}", method="certified")


@register("pate.smooth_sensitivity_bound_exhaustive",
          "smooth_sensitivity(noise='continuous') is >= the true smooth sensitivity of the released "
          "log-moment and beta-smooth, on every vote matrix (T <= 6, Q <= 2, C <= 3)",
          covers=("refdp.pate.release_epsilon", "refdp.pate.smooth_sensitivity"), cost=2)
def bound_quick():
    return sweep([(6, 2, 2, 1.0), (5, 1, 3, 1.0)], (8.0,))


@register("pate.smooth_sensitivity_bound_exhaustive_full",
          "as pate.smooth_sensitivity_bound_exhaustive at order 2 on T = 3, Q = 2, C = 3, gamma = 1.5; "
          "T = 6, Q = 2, C = 2, gamma = 0.5; T = 5, Q = 1, C = 3",
          covers=("refdp.pate.release_epsilon",), quick=False)
def bound_full():
    return sweep([(3, 2, 3, 1.5), (6, 2, 2, 0.5), (5, 1, 3, 1.0)], (2.0,))


@register("pate.smooth_sensitivity_bound_exhaustive_discrete",
          "smooth_sensitivity (noise='discrete', for lnmax_labels(secure=True)) is >= the true smooth "
          "sensitivity of the released log-moment and beta-smooth, on every vote matrix (T = 3, Q = 2, "
          "C = 2, gamma = 1 and T = 5, Q = 1, C = 3, gamma = 2)",
          covers=("refdp.pate.release_epsilon", "refdp.pate.smooth_sensitivity"), cost=2)
def bound_discrete_quick():
    return sweep([(3, 2, 2, 1.0), (5, 1, 3, 2.0)], (8.0,), noise="discrete")


@register("pate.smooth_sensitivity_bound_exhaustive_discrete_full",
          "as pate.smooth_sensitivity_bound_exhaustive_discrete at order 2 on T = 3, Q = 2, C = 3, "
          "gamma = 1.5; T = 6, Q = 2, C = 2, gamma = 0.5; T = 7, Q = 1, C = 3, gamma = 2",
          covers=("refdp.pate.release_epsilon",), quick=False, cost=3)
def bound_discrete_full():
    return sweep([(3, 2, 3, 1.5), (6, 2, 2, 0.5), (7, 1, 3, 2.0)], (2.0,), noise="discrete")


def laplace_hockey_stick(m1, b1, m2, b2, epsilon):
    """sum over x of max(0, p1(x) - e^eps p2(x)) for Laplace(m1, b1), Laplace(m2, b2) (mpmath, closed form).

    log p1 - log p2 - eps is piecewise linear with breakpoints m1, m2; on each
    piece the set where it is positive is an interval, found exactly, and both
    densities integrate in closed form there.
    """
    m1, b1, m2, b2 = (mpmath.mpf(v) for v in (m1, b1, m2, b2))
    eps = mpmath.mpf(epsilon)
    inf = mpmath.inf

    def logratio(x):
        return (-abs(x - m1) / b1 - mpmath.log(2 * b1)) - (-abs(x - m2) / b2 - mpmath.log(2 * b2)) - eps

    def cdf(x, m, b):
        if x == inf:
            return mpmath.mpf(1)
        if x == -inf:
            return mpmath.mpf(0)
        return mpmath.exp((x - m) / b) / 2 if x < m else 1 - mpmath.exp(-(x - m) / b) / 2

    def mass(lo, hi):
        return (cdf(hi, m1, b1) - cdf(lo, m1, b1)) - mpmath.exp(eps) * (cdf(hi, m2, b2) - cdf(lo, m2, b2))

    cuts = sorted({m1, m2})
    pieces = [(-inf, cuts[0])] + list(zip(cuts, cuts[1:])) + [(cuts[-1], inf)]
    total = mpmath.mpf(0)
    for lo, hi in pieces:
        # slope and a point of the linear function on the piece
        probe = (lo + hi) / 2 if lo > -inf and hi < inf else (hi - 1 if lo == -inf else lo + 1)
        s1 = -1 / b1 if probe > m1 else 1 / b1
        s2 = -1 / b2 if probe > m2 else 1 / b2
        slope = s1 - s2
        val = logratio(probe)
        if slope == 0:
            if val > 0:
                total += mass(lo, hi)
            continue
        root = probe - val / slope
        if slope > 0:
            a, b = max(lo, root), hi
        else:
            a, b = lo, min(hi, root)
        if a < b:
            total += mass(a, b)
    return total


@register("pate.smooth_laplace_noise_admissible",
          "f + (S/a) Lap(1) with a, beta from smooth_laplace_parameters is (eps_r, delta_r)-DP for every "
          "sliding |f - f'| <= min(S, S') and dilation S'/S in [e^-beta, e^beta] on a grid",
          covers=("refdp.pate.release_epsilon", "refdp.pate.smooth_laplace_parameters"))
def laplace_admissible():
    verdicts, worst, where = [], mpmath.mpf(0), ""
    for eps_r, delta_r in ((1.0, 1e-6), (0.5, 1e-5), (2.0, 1e-3), (0.1, 1e-8)):
        a, beta = smooth_laplace_parameters(eps_r, delta_r)
        for r_exp in (-1.0, -0.5, 0.0, 0.5, 1.0):
            for shift in (-1.0, -0.5, 0.0, 0.5, 1.0):
                def pair(r_exp=r_exp, shift=shift, a=a, beta=beta):
                    ratio = mpmath.exp(mpmath.mpf(beta) * r_exp)
                    s2 = ratio                                   # S = 1 at D, S' at D'
                    d = mpmath.mpf(shift) * min(1, s2)           # |f - f'| <= min(S, S')
                    return (0, 1 / mpmath.mpf(a), d, s2 / mpmath.mpf(a))

                for forward in (True, False):
                    def hs(pair=pair, forward=forward, eps_r=eps_r):
                        m1, b1, m2, b2 = pair()
                        if forward:
                            return laplace_hockey_stick(m1, b1, m2, b2, eps_r)
                        return laplace_hockey_stick(m2, b2, m1, b1, eps_r)

                    v, lhs, _ = decide_leq(hs, lambda d=delta_r: mpmath.mpf(d), DPS)
                    verdicts.append(v)
                    ratio = lhs / delta_r
                    if ratio > worst:
                        worst, where = ratio, f"eps_r={eps_r}, delta_r={delta_r}, log(S'/S)={r_exp} beta, shift={shift}"
    return CheckResult(worst, 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest hockey-stick / delta_r = {mpmath.nstr(worst, 4)} at {where}", method="estimated")


def discrete_laplace_hockey_stick(c, k1, t1, k2, t2, epsilon):
    """sum over integers y of max(0, p1(y) - e^eps p2(y)), p_i discrete Laplace centred k_i of scale t_i.

    ``p(y) = tanh(1 / (2 t)) exp(-|y - k| / t)`` (Canonne, Kamath and Steinke
    2020, Definition 2 with their normalisation). Between and beyond the
    integer centres ``log p1 - log p2 - eps`` is linear in ``y``; on each
    piece the integers where it is positive form a range, summed as geometric
    series in closed form; the integers within 2 of the root are added one by
    one, so rounding the root cannot drop a positive term. Computed in the
    mpmath context ``c``.
    """
    k1, k2 = int(k1), int(k2)
    t1, t2, eps = (c.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in (t1, t2, epsilon))
    q1, q2 = c.exp(-1 / t1), c.exp(-1 / t2)
    n1, n2 = c.tanh(1 / (2 * t1)), c.tanh(1 / (2 * t2))
    e = c.exp(eps)

    def pmf(y, k, q, n):
        return n * q ** abs(y - k)

    def series(u, v, k, q, n):
        """sum of pmf over integers u..v (v may be +inf, u may be -inf), all on one side of k."""
        if u is not None and v is not None and u > v:
            return c.mpf(0)
        if u is not None and u >= k:
            top = 0 if v is None else q ** (v - k + 1)
            return n * (q ** (u - k) - top) / (1 - q)
        bot = 0 if u is None else q ** (k - u + 1)
        return n * (q ** (k - v) - bot) / (1 - q)

    def logratio(y):
        return c.log(pmf(y, k1, q1, n1)) - c.log(pmf(y, k2, q2, n2)) - eps

    lo, hi = min(k1, k2), max(k1, k2)
    pieces = [(None, lo), (lo + 1, hi), (hi + 1, None)]
    total = c.mpf(0)
    for u, v in pieces:
        if u is not None and v is not None and u > v:
            continue
        a = (u if u is not None else v - 1)
        b = a + 1 if (v is None or a + 1 <= v) else a
        if a == b:   # a single integer
            total += max(0, pmf(a, k1, q1, n1) - e * pmf(a, k2, q2, n2))
            continue
        la, lb = logratio(a), logratio(b)
        slope = (lb - la) / (b - a)
        if slope == 0:
            if la > 0:
                total += series(u, v, k1, q1, n1) - e * series(u, v, k2, q2, n2)
            continue
        root = a - la / slope
        r = int(c.floor(root))
        near = [y for y in range(r - 2, r + 4) if (u is None or y >= u) and (v is None or y <= v)]
        for y in near:
            total += max(0, pmf(y, k1, q1, n1) - e * pmf(y, k2, q2, n2))
        if slope > 0:          # positive beyond the root
            s, w = max(r + 4, u) if u is not None else r + 4, v
        else:                  # positive before the root
            s, w = u, min(r - 3, v) if v is not None else r - 3
        if (s is None or w is None or s <= w):
            total += series(s, w, k1, q1, n1) - e * series(s, w, k2, q2, n2)
    return total


@register("pate.smooth_discrete_laplace_noise_admissible",
          "secure release: k + Z_t, Z_t discrete Laplace with a from smooth_laplace_parameters and beta for "
          "the lowered delta, is (eps_r, delta_r)-DP for integer shifts |k - k'| <= a min(t, t') and "
          "t'/t in [e^-beta, e^beta], exact hockey-stick sums",
          covers=("refdp.pate.release_epsilon",))
def discrete_laplace_admissible():
    import math
    from refdp.mechanisms.float_safe import SMOOTH_BETA_MARGIN
    verdicts, worst, where = [], mpmath.mpf(0), ""
    for eps_r, delta_r in ((1.0, 1e-6), (0.5, 1e-5), (2.0, 1e-3), (0.1, 1e-8)):
        a = eps_r / 2
        # the parameters release_epsilon(secure=True) uses
        _, beta = smooth_laplace_parameters(eps_r, delta_r * (1.0 + math.exp(-a)) / 2.0 * (1.0 - 2.0**-40))
        beta_t = Fraction(beta)       # the scale t is beta-smooth (S at beta - margin, then rounding)
        for s_over_g in (0, 3, 40):
            t = (Fraction(s_over_g) + 1) / Fraction(a)
            for r_exp in (-1, 0, 1):
                # t' = t e^(r_exp beta), rounded toward t (inside the admissible ratio range)
                ratio = Fraction(math.exp(float(beta_t) * r_exp)) * (1 - Fraction(r_exp, 2**40))
                t2 = t * ratio
                dk_max = math.floor(Fraction(a) * min(t, t2))
                for dk in sorted({0, dk_max // 2, dk_max}):
                    for forward in (True, False):
                        def hs(c, t=t, t2=t2, dk=dk, forward=forward, eps_r=eps_r):
                            if forward:
                                return discrete_laplace_hockey_stick(c, 0, t, dk, t2, eps_r)
                            return discrete_laplace_hockey_stick(c, dk, t2, 0, t, eps_r)

                        v, lhs, _ = decide_leq(hs, lambda c, d=delta_r: c.mpf(d), DPS)
                        verdicts.append(v)
                        if lhs / delta_r > worst:
                            worst = lhs / delta_r
                            where = (f"eps_r={eps_r}, delta_r={delta_r}, S/g={s_over_g}, "
                                     f"log(t'/t)={r_exp} beta, k'-k={dk}")
    return CheckResult(worst, 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest hockey-stick / delta_r = {mpmath.nstr(worst, 4)} "
                       f"at {where}", method="estimated")
