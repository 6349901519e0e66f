"""Independent mpmath references for the PATE checks (not a check module itself).

Everything here is a plain transcription, evaluated at the current
``mpmath.mp`` precision from exact inputs (integers and binary floats), so
that :func:`refdp.verify.verdict.decide_leq` can refine it:

* the LNMax law, by :func:`refdp.mechanisms.report_noisy_max_distribution`
  (exact piecewise-exponential integration, independent of the float kernel);
* the worst-case log-moments over **every** neighbouring count vector (all
  ``C (C - 1)`` single-vote moves, no symmetry reduction), in both directions,
  with :func:`refdp.verify.log_moment`;
* Lemma 4, Theorem 3 and the per-query minimum (:mod:`refdp.verify.reference`).
"""
from __future__ import annotations

import itertools

import mpmath
import numpy as np

from refdp.mechanisms import report_noisy_max_distribution
from refdp.verify import log_moment
from refdp.verify import reference as ref

__all__ = ["law", "neighbours", "worst_log_moments", "exact_q", "lemma4_two_sided_q",
           "per_query_bound", "adversarial_histograms", "random_histograms"]

_LAWS: dict = {}


def law(counts, gamma, ctx=None):
    """Exact LNMax law, cached per context kind and precision.

    In the mpmath context ``ctx`` (an interval context gives enclosures), or
    without one at the current global precision (for callers that refine it
    with :func:`refdp.verify.verdict.decide_leq`).
    """
    kind = "global" if ctx is None else type(ctx).__name__
    prec = mpmath.mp.prec if ctx is None else ctx.prec
    key = (tuple(int(c) for c in counts), float(gamma), kind, prec)
    if key not in _LAWS:
        if ctx is None:
            _LAWS[key] = report_noisy_max_distribution(list(key[0]), 2.0 * float(gamma), exact=True,
                                                       dps=mpmath.mp.dps)
        else:
            _LAWS[key] = report_noisy_max_distribution(list(key[0]), 2.0 * float(gamma), ctx=ctx)
    return _LAWS[key]


def neighbours(counts):
    """Every count vector one vote away: -1 in a class with a vote, +1 in another."""
    n = [int(c) for c in counts]
    for a, b in itertools.permutations(range(len(n)), 2):
        if n[a] >= 1:
            m = list(n)
            m[a] -= 1
            m[b] += 1
            yield m


def top(counts):
    """First index of the largest count."""
    return max(range(len(counts)), key=lambda j: (counts[j], -j))


def exact_q(counts, gamma):
    """P[M(n) != j*] from the exact law."""
    P = law(counts, gamma)
    j = top(counts)
    return mpmath.fsum(P[i] for i in range(len(P)) if i != j)


def exact_q_two_sided(counts, gamma):
    """max over n and all its neighbours n' of P[M(n') != j*(n)] (brute force)."""
    j = top(counts)
    best = exact_q(counts, gamma)
    for m in neighbours(counts):
        P = law(m, gamma)
        best = max(best, mpmath.fsum(P[i] for i in range(len(P)) if i != j))
    return best


def lemma4_two_sided_q(counts, gamma):
    """max of Lemma 4's q over n and all its neighbours (brute force); None when n's top-two gap is <= 2.

    With a gap of at least 3, every neighbour keeps the same plurality class,
    so Lemma 4 applies to each of them as stated.
    """
    s = sorted(counts, reverse=True)
    if len(s) > 1 and s[0] - s[1] <= 2:
        return None
    best = ref.lemma4_q(list(counts), gamma)
    for m in neighbours(counts):
        best = max(best, ref.lemma4_q(m, gamma))
    return best


def worst_log_moments(counts, gamma, orders):
    """(forward, both) worst-case log-moments over all neighbours, per order (mpmath)."""
    P = law(counts, gamma)
    fwd = [mpmath.mpf(0)] * len(orders)
    both = [mpmath.mpf(0)] * len(orders)
    for m in neighbours(counts):
        Q = law(m, gamma)
        for k, lam in enumerate(orders):
            f = log_moment(P, Q, lam)
            r = log_moment(Q, P, lam)
            fwd[k] = max(fwd[k], f)
            both[k] = max(both[k], f, r)
    return fwd, both


def per_query_bound(q, lam, gamma):
    """min(Theorem 2, 2 gamma lambda, Theorem 3 where valid), or the first two when q is None."""
    if q is None:
        return ref.per_query_bound(1, lam, gamma)
    return ref.per_query_bound(q, lam, gamma)


def adversarial_histograms():
    """(counts, gamma) pairs: ties, near-ties, unanimous, two classes, many classes, large gamma."""
    return [
        ([6, 0, 0], 1.0),            # unanimous
        ([3, 3, 0], 1.0),            # tie at the top
        ([4, 3, 0], 1.0),            # near tie
        ([5, 4, 0], 1.0),            # gap 1, Theorem 3 out of range
        ([9, 0], 0.5),               # two classes
        ([0, 9], 2.0),               # large gamma: the reverse direction exceeds one-sided Thm 3
        ([8, 1, 1, 0], 0.7),
        ([2, 2, 2, 2, 1], 0.3),      # many classes, near ties
        ([7, 0, 0, 0, 0, 0], 1.5),   # many empty classes
        ([12, 2, 1], 0.25),
    ]


def random_histograms(n, seed, max_classes=5, max_teachers=15):
    """Random vote histograms (Dirichlet-multinomial) with gamma log-uniform in [0.05, 3]."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        c = int(rng.integers(2, max_classes + 1))
        t = int(rng.integers(1, max_teachers + 1))
        counts = rng.multinomial(t, rng.dirichlet(np.full(c, 0.4))).tolist()
        gamma = float(np.exp(rng.uniform(np.log(0.05), np.log(3.0))))
        out.append((counts, gamma))
    return out
