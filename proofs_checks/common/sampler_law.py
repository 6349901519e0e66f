"""Shared statistical test: do a sampler's draws follow an exact finite law?

For each output j with exact probability p_j, the count of j among n
independent draws is Binomial(n, p_j). The acceptance interval [lo_j, hi_j]
is exact: ``lo_j`` is the smallest k with P[X <= k] >= a/2 and ``hi_j`` the
smallest k with P[X > k] <= a/2, so P[count outside] <= a. With a = alpha / k
for k outputs (Bonferroni), a correct sampler fails with probability at most
alpha, whatever the dependence between the counts.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy import stats

from refdp.verify.registry import CheckResult
from refdp.verify.verdict import Verdict

__all__ = ["binomial_acceptance", "sampler_check", "inversion_law"]


def binomial_acceptance(n, p, a):
    """Counts [lo, hi] with P[X < lo] + P[X > hi] <= a for X ~ Binomial(n, p)."""
    return int(stats.binom.ppf(a / 2, n, p)), int(stats.binom.isf(a / 2, n, p))


def sampler_check(draws, probs, alpha, seed, what):
    """CheckResult: number of outputs whose count leaves its acceptance interval (bound 0)."""
    draws = np.asarray(draws, dtype=np.int64).ravel()
    n = draws.size
    probs = [float(p) for p in probs]
    counts = np.bincount(draws, minlength=len(probs))
    k = len(probs)
    outside, rows = 0, []
    for j, (c, p) in enumerate(zip(counts, probs)):
        lo, hi = binomial_acceptance(n, p, alpha / k)
        outside += not (lo <= c <= hi)
        rows.append(f"{j}: {c} in [{lo}, {hi}]")
    verdict = Verdict.HOLDS if outside == 0 else Verdict.FAILS
    detail = (f"{what}: {n} draws, seed {seed}, false-failure rate <= {alpha:g}; "
              f"outputs outside their acceptance interval: {outside}; " + "; ".join(rows))
    return CheckResult(outside, 0, verdict, 0, detail, method="statistical")


def inversion_law(probabilities):
    """Exact law drawn by refdp's inversion sampler from computed (float) probabilities.

    :func:`refdp.utils.inversion.certified_inverse_cdf_index` returns
    the ``k`` whose interval ``[S_{k-1}/T, S_k/T)`` holds the uniform ``U``,
    for the exact running sums ``S_k`` of the doubles it is given and their
    exact total ``T``, reading further bits of ``U`` until they decide
    (docs/theory/learning.rst, Proposition 7). So output ``k`` has
    probability ``p_k / T`` exactly: this normalised law of the doubles is
    the law the sampler releases (the doubles rarely sum to exactly 1).
    """
    ps = [Fraction(float(p)) for p in probabilities]
    total = sum(ps)
    return [p / total for p in ps]
