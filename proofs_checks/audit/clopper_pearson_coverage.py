"""The auditor's own honesty: exact Clopper--Pearson coverage, and the false-alarm rate.

Claim
    (1) Clopper & Pearson 1934: the one-sided bounds of
    refdp.audit.clopper_pearson_lower / _upper at error beta cover the true
    proportion with probability at least 1 - beta for every p, as the floats
    refdp returns (after rounding), not only as real numbers. (2) docs/theory/audit.rst:
    refdp.audit.audit_black_box reports an epsilon lower bound
    above the true epsilon of the pair with probability at most
    1 - confidence (sample splitting plus Bonferroni), with the binomial
    held-out test and with the conditional one (Poisson-sized held-out
    samples: given the sum of the two counts the first is binomial, and its
    Clopper--Pearson lower bound is the one checked in (1)).
Setting
    (1) For the lower bound, coverage as a function of p is a step function
    whose infimum is 1 - max_k P_{p_L(k)}[X >= k] (the probability just left
    of each jump p_L(k)); likewise for the upper bound with
    P_{p_U(k)}[X <= k]. Every k of every n in 1..40 (quick) or 1..60 (full),
    beta in {0.2, 0.05, 0.0125, 0.001}. (2) Three mechanisms with known
    epsilon, audited at confidence 0.8 over seeded repetitions (50 each,
    quick; 300 each, full; 4000 outputs per dataset each): randomised response reporting the bit with
    probability 3/4 (exactly ln 3, the event {bit} attains it); Laplace noise
    of scale 1 on f = 0 vs f = 1 (exactly 1, attained by the tails); and a
    uniform law on 1000 outcomes, the same for both datasets (exactly 0: any
    event the selection picks is noise, the case an auditor without sample
    splitting gets wrong). A repetition exceeds when its bound is above the
    true epsilon (compared in mpmath).
Precision
    (1) Exact: each float bound and each beta is a dyadic rational m / 2**e;
    the binomial tail times 2**(e n) is an integer sum, so the comparison with
    beta is an integer comparison without any rounding (HOLDS or FAILS, never
    undecided). (2) Statistical: the
    number X of exceedances is Binomial(R, q) with q <= 0.2 if the claim
    holds; the check fails when X >= c, c the smallest count with
    P[Binomial(R, 0.2) >= c] <= 1e-6 / 3 (exact binomial tail), so the
    false-failure rate of the check is at most 1e-6 (Bonferroni over the
    three mechanisms).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from scipy import stats

from refdp.audit import audit_black_box, clopper_pearson_lower, clopper_pearson_upper
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

BETAS = (0.2, 0.05, 0.0125, 0.001)
CONFIDENCE = 0.8
ALPHA = 1e-6  # false-failure rate of the statistical check
SEED = 19340


def _dyadic(x: float):
    """(m, e) with x = m / 2**e exactly (x a finite double in [0, 1])."""
    num, den = x.as_integer_ratio()
    return num, den.bit_length() - 1


def _tail_ge_scaled(k, n, m, e):
    """2**(e n) P[Binomial(n, m / 2**e) >= k], an exact integer."""
    q = (1 << e) - m
    return sum(math.comb(n, j) * m ** j * q ** (n - j) for j in range(k, n + 1))


def coverage(max_n, betas=BETAS):
    """CheckResult: largest (exact miscoverage / beta) over all n, k, beta and both bounds.

    Each float bound p = m / 2**e and each float beta = b / 2**f are exact
    dyadic rationals; ``P_p[miss] <= beta`` is decided as the integer
    inequality ``2**f * 2**(e n) P_p[miss] <= b * 2**(e n)``.
    """
    worst, where = Fraction(0), ""
    for beta in betas:
        b, f = _dyadic(beta)
        for n in range(1, max_n + 1):
            lows = clopper_pearson_lower(np.arange(n + 1), n, beta)
            ups = clopper_pearson_upper(np.arange(n + 1), n, beta)
            for kind, ks in (("lower", range(1, n + 1)), ("upper", range(0, n))):
                for k in ks:    # the lower bound at k = 0 is 0 and the upper at k = n is 1: no miss
                    if kind == "lower":
                        m, e = _dyadic(float(lows[k]))
                        miss = _tail_ge_scaled(k, n, m, e)                   # P[X >= k], scaled
                    else:
                        m, e = _dyadic(float(ups[k]))
                        miss = (1 << (e * n)) - _tail_ge_scaled(k + 1, n, m, e)  # P[X <= k], scaled
                    ratio = Fraction(miss << f, b << (e * n))               # miss / beta, exactly
                    if ratio > worst:
                        worst, where = ratio, f"{kind} bound, n = {n}, k = {k}, beta = {beta}"
    verdict = Verdict.HOLDS if worst <= 1 else Verdict.FAILS
    detail = (f"sup over p of P[bound misses p] / beta, exactly in integer arithmetic, n = 1..{max_n}, "
              f"beta in {list(betas)}: largest {float(worst):.12f} at {where} "
              f"(below 1 by the outward rounding of the floats)")
    return CheckResult(mpmath.mpf(worst.numerator) / worst.denominator, 1, verdict, 0, detail, method="certified")


def _rr(bit, n, rng):
    return np.where(rng.random(n) < 0.75, bit, 1 - bit)


def _laplace(value, n, rng):
    return value + rng.laplace(0.0, 1.0, size=n)


def _uniform(_, n, rng):
    return rng.integers(0, 1000, size=n)


MECHANISMS = (
    ("randomised response 3/4", _rr, (0, 1), mpmath.log(3)),
    ("Laplace(1), f = 0 vs 1", _laplace, (0.0, 1.0), mpmath.mpf(1)),
    ("uniform on 1000 outcomes, same law", _uniform, (0, 1), mpmath.mpf(0)),
)


def false_alarms(reps, holdout_test="binomial"):
    """CheckResult: exceedances of the true epsilon over seeded repetitions (binomial test).

    ``holdout_test`` is passed to the audit: ``"conditional"`` checks the
    conditional held-out test (Poisson-sized samples, one bound on
    ``p / (p + p')``) the same way.
    """
    a = 1 - CONFIDENCE
    crit = int(stats.binom.isf(ALPHA / len(MECHANISMS), reps, a)) + 1  # smallest c with P[X >= c] <= ALPHA/3
    while stats.binom.sf(crit - 2, reps, a) <= ALPHA / len(MECHANISMS):
        crit -= 1
    seeds = np.random.SeedSequence(SEED).spawn(len(MECHANISMS) * reps)
    parts, worst, verdict = [], 0, Verdict.HOLDS
    for m, (name, mech, pair, truth) in enumerate(MECHANISMS):
        exceed, top = 0, 0.0
        for r in range(reps):
            res = audit_black_box(mech, [pair], float(truth), confidence=CONFIDENCE, n_samples=4000,
                                  initial_samples=1000, tolerance=0, rng=seeds[m * reps + r], progress=False,
                                  holdout_test=holdout_test)
            top = max(top, res.epsilon_lower)
            with mpmath.workdps(30):
                exceed += mpmath.mpf(res.epsilon_lower) > truth
        worst = max(worst, exceed)
        if exceed >= crit:
            verdict = Verdict.FAILS
        parts.append(f"{name}: {exceed}/{reps} above the true epsilon {mpmath.nstr(truth, 6)} "
                     f"(largest bound {top:.4f})")
    detail = (f"held-out test {holdout_test}; "
              f"confidence {CONFIDENCE}, so at most {a:.1f} of the repetitions may exceed; fails if any "
              f"mechanism has >= {crit} of {reps} (P[Binomial({reps}, {a:.1f}) >= {crit}] <= "
              f"{ALPHA / len(MECHANISMS):.2g}; false-failure rate {ALPHA:g}); " + "; ".join(parts))
    return CheckResult(worst, crit - 1, verdict, 0, detail, method="statistical")


@register("audit.clopper_pearson_exact_coverage",
          "the float Clopper-Pearson bounds of refdp.audit cover p with probability >= 1 - beta for "
          "every p (exact rational binomial tails, n = 1..40, four betas)",
          covers=("refdp.audit.clopper_pearson_lower", "refdp.audit.clopper_pearson_upper"))
def coverage_quick():
    return coverage(40)


@register("audit.clopper_pearson_exact_coverage_full",
          "as audit.clopper_pearson_exact_coverage, n = 1..60",
          covers=("refdp.audit.clopper_pearson_lower", "refdp.audit.clopper_pearson_upper"), quick=False)
def coverage_full():
    return coverage(60)


@register("audit.black_box_false_alarm_rate",
          "audit_black_box's epsilon lower bound exceeds the true epsilon at most at rate 1 - confidence "
          "(three mechanisms of known epsilon, 50 seeded audits each, binomial test at 1e-6)",
          covers=("refdp.audit.audit_black_box",))
def false_alarms_quick():
    return false_alarms(50)


@register("audit.black_box_false_alarm_rate_full",
          "as audit.black_box_false_alarm_rate, 300 seeded audits per mechanism",
          covers=("refdp.audit.audit_black_box",), quick=False)
def false_alarms_full():
    return false_alarms(300)


@register("audit.black_box_false_alarm_rate_conditional",
          "as audit.black_box_false_alarm_rate with the conditional held-out test (Poisson-sized held-out "
          "samples, one Clopper-Pearson bound on p / (p + p'))",
          covers=("refdp.audit.audit_black_box",))
def false_alarms_conditional_quick():
    return false_alarms(50, "conditional")


@register("audit.black_box_false_alarm_rate_conditional_full",
          "as audit.black_box_false_alarm_rate_conditional, 300 seeded audits per mechanism",
          covers=("refdp.audit.audit_black_box",), quick=False)
def false_alarms_conditional_full():
    return false_alarms(300, "conditional")
