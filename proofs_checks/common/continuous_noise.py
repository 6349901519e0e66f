"""Shared pieces of the checks of the continuous noise mechanisms.

* :func:`ks_result`: Kolmogorov-Smirnov tests of samples against exact CDFs,
  Bonferroni-combined at a stated family-wise false-failure rate.
* :func:`decide_exact_leq`: a fail-closed decision of ``lhs <= rhs`` for exact
  dyadic rationals (the comparisons the privacy checks reduce to), through
  :func:`refdp.verify.verdict.decide_leq_interval`. Both sides are point
  intervals when the working precision holds them exactly, so a bound that is
  attained (as the Laplace bound is, on a half-line) is decided as HOLDS; if
  a side were not exact its enclosure would have positive width and an
  attained bound would come out UNDECIDED, i.e. fail closed.
  (:func:`refdp.verify.verdict.decide_leq` compares two mpmath evaluations
  and cannot decide an equality, so it is not used for attained bounds.)
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.stats

from refdp.verify.registry import CheckResult
from refdp.verify.verdict import Verdict, decide_enclosures, decide_leq_interval, worst_verdict

#: Family-wise false-failure rate of every statistical check (over random seeds).
ALPHA = 1e-6


def dyadic_bits(x: Fraction) -> int:
    """Bits needed to hold the dyadic rational ``x`` exactly (``None`` if not dyadic)."""
    d = x.denominator
    if d & (d - 1):
        return None
    return max(abs(x.numerator).bit_length(), 1)


def decide_exact_leq(lhs: Fraction, rhs: Fraction) -> Verdict:
    """Decide ``lhs <= rhs`` for dyadic rationals, fail closed.

    The interval precision is chosen so that both sides are point intervals.
    """
    bits = [dyadic_bits(lhs), dyadic_bits(rhs)]
    prec_bits = max((b for b in bits if b is not None), default=53) + 64
    dps = int(prec_bits * 0.30103) + 10
    verdict, _, _ = decide_leq_interval(lambda ctx: lhs, lambda ctx: rhs, dps)
    return verdict


def ks_result(tests, seed, alpha=ALPHA) -> CheckResult:
    """Run KS tests ``(label, samples, cdf)`` at family-wise level ``alpha``.

    Each test uses level ``alpha / len(tests)`` (Bonferroni), with critical
    value ``scipy.stats.kstwo.isf(alpha / len(tests), n)``, the upper quantile
    of the exact law of the two-sided statistic ``D_n`` under the null. The
    result reports ``max D_n / critical`` against the bound 1.
    """
    level = alpha / len(tests)
    verdicts, worst, where = [], -1.0, ""
    for label, samples, cdf in tests:
        samples = np.asarray(samples, dtype=np.float64).ravel()
        stat = float(scipy.stats.ks_1samp(samples, cdf, method="asymp").statistic)
        crit = float(scipy.stats.kstwo.isf(level, samples.size))
        verdicts.append(decide_enclosures(stat, crit))
        if stat / crit > worst:
            worst, where = stat / crit, f"{label}: D_n = {stat:.5f}, critical {crit:.5f}, n = {samples.size}"
    detail = (f"{len(tests)} KS tests, each at level {level:.3g} (family-wise {alpha:g}), "
              f"seed {seed}; worst {where}")
    return CheckResult(worst, 1.0, worst_verdict(verdicts), 0, detail, method="statistical")
