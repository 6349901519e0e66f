"""PATE's data-dependent analyses hold for the float-safe LNMax (exact discrete Laplace noise).

Claim
    For the law of ``lnmax_labels(counts, gamma)`` (``secure=True``, the
    default: discrete Laplace of scale t = lnmax_scale(gamma) on the integer
    counts, lowest index among the noisy maxima), docs/theory/pate_discrete.rst:
    (1) discrete Lemma 4 and the exact discrete q bound P[M(n) != j*]; their
    two-sided forms bound P[M(n') != j*] at n and at every neighbour n';
    (2) the per-query log-moment bounds of ``PATEAccountant(noise="discrete")``
    (``theorem3`` and ``theorem3_exact_q``, two-sided, and the worst case of
    its ``exact`` analysis, ``discrete_exact_log_moments``) bound the exact
    log-moments alpha(lambda; n, n') and alpha(lambda; n', n) of the
    discrete law for every neighbour n' (one-sided: the forward direction);
    (3) the step lemma: the computed statistic log min(q, tau) moves by at
    most ``statistic_step(gamma, statistic, two_sided)`` plus its rounding
    slack when one vote moves (the constant the smooth sensitivity uses).
Setting
    Every count vector of T teachers over C classes. Quick: T <= 5, C <= 3,
    gamma in {0.5, 2}; orders {1, 4, 16}. Full: T <= 8 for C = 2, T <= 6
    for C = 3, T <= 4 for C = 4, gamma in {0.05, 0.5, 2}; orders {0.5, 4, 32}.
Precision
    Exact laws enclosed in interval arithmetic at 30 digits
    (``discrete_argmax_law``); each bound (a double, as computed by default:
    the exact q in double precision with its rounding margin) is compared
    with the enclosure (certified; UNDECIDED fails). The step lemma compares
    doubles exactly.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from refdp import core
from refdp.utils.precision import iv_context
from refdp.mechanisms.discrete_argmax import discrete_argmax_law
from refdp.pate import PATEAccountant
from refdp.pate.discrete_analysis import (discrete_exact_log_moments, discrete_exact_log_q, discrete_lemma4_log_q,
                                          discrete_lemma4_two_sided_log_q, lnmax_scale, statistic_slack)
from refdp.pate.smooth_sensitivity import statistic_step
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_enclosures, worst_verdict

DPS = 30


def vectors(teachers, classes):
    """Every count vector of ``teachers`` votes over ``classes`` classes."""
    out = []
    for cut in itertools.combinations(range(teachers + classes - 1), classes - 1):
        edges = (-1,) + cut + (teachers + classes - 1,)
        out.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(classes)))
    return out


def neighbours(n):
    """Every vector with one vote moved from a class a (n_a >= 1) to a class b != a."""
    out = []
    for a, b in itertools.permutations(range(len(n)), 2):
        if n[a] >= 1:
            m = list(n)
            m[a] -= 1
            m[b] += 1
            out.append(tuple(m))
    return out


class Laws:
    """Exact discrete LNMax laws, enclosed in an interval context owned by this object."""

    def __init__(self, gamma):
        self.ctx = iv_context(DPS)
        self.t = lnmax_scale(gamma)
        self._cache = {}

    def __call__(self, n):
        if n not in self._cache:
            self._cache[n] = discrete_argmax_law(list(n), self.t, self.ctx)
        return self._cache[n]

    def log_miss(self, n, star):
        law = self(n)
        return self.ctx.log(self.ctx.fsum(law[j] for j in range(len(n)) if j != star))

    def log_moment(self, p, q, lam):
        """An enclosure of log sum_o p_o (p_o / q_o)**lam."""
        c = self.ctx
        L = c.mpf(float(lam))                    # a double: exact
        return c.log(c.fsum(a * c.exp(L * (c.log(a) - c.log(b))) for a, b in zip(p, q)))


def _leq(lhs, rhs):
    """Decide lhs <= rhs for an enclosure lhs and a double rhs (+inf: a vacuous bound, which holds)."""
    if rhs == math.inf:
        return Verdict.HOLDS
    return decide_enclosures(lhs, rhs)


def _ratio(lhs, rhs):
    """exp(upper(lhs) - rhs) as a float (lhs an enclosure of a log, rhs a double); 0 for rhs = +inf."""
    if rhs == math.inf:
        return 0.0
    return math.exp(min(700.0, float(lhs.b) - rhs))


class Setting:
    """Every count vector of one (teachers, classes, gamma), its four statistics and its exact laws."""

    def __init__(self, teachers, classes, gamma):
        self.gamma = gamma
        self.vs = vectors(teachers, classes)
        self.index = {n: i for i, n in enumerate(self.vs)}
        arr = np.array(self.vs, dtype=np.int64)
        self.arr = arr
        self.laws = Laws(gamma)
        self.teachers, self.classes = teachers, classes
        # the statistics as computed by default (the exact q in double precision with its margin)
        self.stats = {("lemma4", False): discrete_lemma4_log_q(arr, gamma),
                      ("lemma4", True): discrete_lemma4_two_sided_log_q(arr, gamma),
                      ("exact", False): discrete_exact_log_q(arr, gamma, two_sided=False),
                      ("exact", True): discrete_exact_log_q(arr, gamma, two_sided=True)}


def settings(configs, gammas):
    return [Setting(t, c, g) for g in gammas for t, c in configs]


def q_bounds(sets):
    """(verdicts, largest exact / bound, where) for claim (1)."""
    verdicts, worst, where = [], 0.0, ""
    for st in sets:
        laws = st.laws
        for i, n in enumerate(st.vs):
            star = int(np.argmax(n))
            here = laws.log_miss(n, star)
            around = [here] + [laws.log_miss(m, star) for m in neighbours(n)]
            for (statistic, two), b in st.stats.items():
                for lhs in (around if two else [here]):
                    verdicts.append(_leq(lhs, float(b[i])))
                    r = _ratio(lhs, float(b[i]))
                    if r > worst:
                        worst, where = r, f"{statistic}, two_sided={two} at n = {n}, gamma = {st.gamma}"
    return verdicts, worst, where


_ANALYSIS = {"lemma4": "theorem3", "exact": "theorem3_exact_q", "worst case": "exact"}


def moment_bounds(sets, orders):
    """(verdicts, largest exact / bound on the log-moments, where, informative) for claim (2)."""
    verdicts, worst, where, informative, total = [], 0.0, "", 0, 0
    for st in sets:
        gamma, laws = st.gamma, st.laws
        indep = PATEAccountant(gamma, orders=orders).add_counts(st.arr[:1]).log_moments("data_independent")
        # the accountant's per-query bounds: its log_moments are sums of these over the queries
        # (tests/pate/test_discrete.py checks PATEAccountant against them)
        per = {key: [core.accountant_log_moments(lq[i:i + 1], orders, gamma) for i in range(len(st.vs))]
               for key, lq in st.stats.items()}
        # the "exact" analysis: worst-case log-moments per vector (before the minimum with B_lambda)
        fwd, both = discrete_exact_log_moments(st.arr, gamma, orders)
        per[("worst case", True)] = list(both)
        per[("worst case", False)] = list(fwd)
        for i, n in enumerate(st.vs):
            p = laws(n)
            for m in neighbours(n):
                pm = laws(m)
                for k, lam in enumerate(orders):
                    fwd = laws.log_moment(p, pm, lam)
                    rev = laws.log_moment(pm, p, lam)
                    for (statistic, two), rows in per.items():
                        b = float(rows[i][k])
                        for lhs in ((fwd, rev) if two else (fwd,)):
                            verdicts.append(_leq(lhs, b))
                            if b > 0 and float(lhs.b) / b > worst:
                                worst = float(lhs.b) / b
                                where = (f"{_ANALYSIS[statistic]}, two_sided={two}, n = {n}, n' = {m}, "
                                         f"lambda = {lam}, gamma = {gamma}")
            for rows in per.values():
                total += len(orders)
                informative += int(np.sum(rows[i] < indep))
    return verdicts, worst, where, (informative, total)


def step_lemma(sets):
    """(verdicts, largest |change| / (step + slack), where) for claim (3), exact comparisons of doubles."""
    verdicts, worst, where = [], Fraction(0), ""
    for st in sets:
        gamma = st.gamma
        log_tau_up = math.log(1.0 / (math.exp(2.0 * gamma) + 1.0)) + 1e-12      # >= log tau
        for (statistic, two), lq in st.stats.items():
            sigma = np.minimum(lq, log_tau_up)
            finite = [abs(float(v)) for v in sigma if np.isfinite(v)]
            span = abs(log_tau_up) + (max(finite) if finite else 0.0)
            allowed = Fraction(statistic_step(gamma, statistic, two)) + \
                Fraction(statistic_slack(statistic, st.teachers, st.classes, gamma, span))
            for n in st.vs:
                for m in neighbours(n):
                    a, b = float(sigma[st.index[n]]), float(sigma[st.index[m]])
                    if a == b:
                        change = Fraction(0)
                    elif math.isinf(a) or math.isinf(b):
                        change = None                    # -inf on one side only: impossible for C >= 2
                    else:
                        change = abs(Fraction(a) - Fraction(b))
                    ok = change is not None and change <= allowed
                    verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
                    ratio = change / allowed if change is not None else Fraction(10**9)
                    if ratio > worst:
                        worst, where = ratio, f"{statistic}, two_sided={two}, {n} -> {m}, gamma = {gamma}"
    return verdicts, float(worst), where


def _result(verdicts, worst, where, what, extra=""):
    return CheckResult(worst, 1.0, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; {what} {worst:.6g} at {where}{extra}", method="certified")


QUICK = [(t, c) for c in (2, 3) for t in range(1, 6)]
FULL = [(t, 2) for t in range(1, 9)] + [(t, 3) for t in range(1, 7)] + [(t, 4) for t in range(1, 5)]
QUICK_ORDERS = [1.0, 4.0, 16.0]
FULL_ORDERS = [0.5, 4.0, 32.0]


def _moments(sets, orders):
    v, w, where, (informative, total) = moment_bounds(sets, orders)
    return v, w, where, (f"; the data-dependent bound is below the data-independent one in "
                         f"{informative} of {total} (vector, analysis, order) cases")


@register("pate.discrete_lnmax_analyses",
          "for lnmax_labels(secure=True) on every count vector of T <= 5 teachers, C <= 3 classes, gamma in "
          "{0.5, 2}: discrete Lemma 4 and the exact discrete q bound P[M != j*] (two-sided: at every "
          "neighbour); PATEAccountant(noise='discrete') bounds the exact log-moments (orders 1, 4, 16); "
          "the statistics move by at most statistic_step",
          covers=("refdp.pate.lnmax_labels", "refdp.pate.release_epsilon"), cost=2)
def quick():
    sets = settings(QUICK, (0.5, 2.0))
    mv, mw, mwhere, extra = _moments(sets, QUICK_ORDERS)
    parts = [q_bounds(sets) + ("largest exact q / bound", ""),
             (mv, mw, mwhere, "largest exact log-moment / bound", extra),
             step_lemma(sets) + ("largest change / allowed step", "")]
    verdicts = [v for p in parts for v in p[0]]
    detail = " | ".join(f"{p[3]} {p[1]:.6g} at {p[2]}{p[4]}" for p in parts)
    return CheckResult(max(p[1] for p in parts), 1.0, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; {detail}", method="certified")


@register("pate.discrete_lemma4_and_exact_q_bound_discrete_law_full",
          "for lnmax_labels(secure=True): discrete Lemma 4 and the exact discrete q bound P[M(n) != j*], "
          "their two-sided forms at every neighbour (every count vector, T <= 8, 6, 4 for C = 2, 3, 4, "
          "gamma in {0.05, 0.5, 2})",
          covers=("refdp.pate.lnmax_labels",), quick=False, cost=4)
def q_full():
    return _result(*q_bounds(settings(FULL, (0.05, 0.5, 2.0))), "largest exact q / bound")


@register("pate.discrete_theorem_3_bounds_exact_moments_full",
          "PATEAccountant(noise='discrete') per-query log-moments (theorem3, theorem3_exact_q; one- and "
          "two-sided) bound the exact log-moments of the discrete LNMax law over every neighbour "
          "(T <= 8, 6, 4 for C = 2, 3, 4, gamma in {0.05, 0.5, 2}, orders {0.5, 4, 32})",
          covers=("refdp.pate.lnmax_labels",), quick=False, cost=8)
def moments_full():
    v, w, where, extra = _moments(settings(FULL, (0.05, 0.5, 2.0)), FULL_ORDERS)
    return _result(v, w, where, "largest exact log-moment / bound", extra)


@register("pate.discrete_statistic_step_full",
          "the discrete statistics log min(q, tau) move by at most statistic_step(...) (+ rounding slack) "
          "when one vote moves (every neighbouring pair, T <= 8, 6, 4 for C = 2, 3, 4, gamma in {0.05, 0.5, 2})",
          covers=("refdp.pate.release_epsilon",), quick=False, cost=3)
def step_full():
    return _result(*step_lemma(settings(FULL, (0.05, 0.5, 2.0))), "largest change / allowed step")
