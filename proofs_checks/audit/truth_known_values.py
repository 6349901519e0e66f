"""The exact epsilon of the audit benchmarks agrees with the privacy properties proved for them.

Claim
    On StatDP's pattern pairs (claimed epsilon 0.1 throughout):
    Balcer and Vadhan (Theorem 4.7): the truncated geometric mechanism is
    ``ln(1 + 2^-3) = ln(9/8)``-DP, attained on 2 vs 1; Dwork and Roth (Claim
    3.9) and Ding et al.: report-noisy-max releasing the index (Laplace or
    exponential noise of scale 2/eps) is eps-DP; Lyu, Su and Li (Table 1):
    SVT1 and SVT2 are eps-DP, SVT4 is ``(1 + 6c) eps / 4 = 0.175``-DP (c = 1)
    and SVT5 is not private; the released noisy maximum of five Laplace(20)
    answers on 0 vs 1 has density ratio sup ``e^(5/20)``; Laplace vectors have
    sup ``sum |a_i - a'_i| / b``.
Precision
    :func:`refdp.audit.truth.exact_epsilon` in a 30-digit interval context;
    each property is decided from the enclosure (HOLDS only if the whole
    enclosure satisfies it; an equality holds if the enclosure contains the
    value and is narrower than 1e-20). ReportNoisyMax2 attains its claim
    exactly on (1,...,1) vs (0,2,...,2), so it is checked as an equality.
"""
from __future__ import annotations

import math
from fractions import Fraction

from refdp.audit.truth import exact_epsilon, pattern_pairs
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

EPS = Fraction(1, 10)
ONE, HALF = (1.0,) * 10, (2.0,) * 5 + (0.0,) * 5
X = ((1.0,) * 5 + (0.0,) * 5, (0.0,) * 5 + (1.0,) * 5)


def _worst(name, pairs):
    return max((exact_epsilon(name, d, e) for d, e in pairs), key=lambda p: p.lower)


def _equal(p, value, width=Fraction(1, 10 ** 20)):
    return p.lower <= value <= p.upper and p.upper - p.lower < width


@register("audit.truth_known_values",
          "exact epsilon of the benchmark mechanisms on StatDP's patterns: truncated geometric = ln(9/8), "
          "noisy-max index <= eps (= eps with exponential noise), SVT1/2 <= eps, eps < SVT4 <= 0.175, SVT5 infinite, noisy-max value = 1/4 "
          "on 0 vs 1, Laplace vectors sum |a - a'| / b",
          covers=("refdp.audit.truth.exact_epsilon",), quick=True)
def truth_known_values() -> CheckResult:
    rows, verdicts = [], []

    def record(name, ok, p):
        verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
        rows.append(f"{name}: [{float(p.lower):.9g}, {float(p.upper):.9g}] {'ok' if ok else 'FAILS'}")
    geo = _worst("TruncatedGeometricMechanism", pattern_pairs(1, False, 0, 5, as_float=False))
    ln98 = Fraction(math.log(9 / 8))
    record("TruncatedGeometric = ln(9/8)", abs(geo.lower - ln98) < Fraction(1, 10 ** 15)
           and geo.upper - geo.lower < Fraction(1, 10 ** 20), geo)
    p = _worst("ReportNoisyMax1", pattern_pairs(5, True, -10, 10))
    record("ReportNoisyMax1 <= 0.1", p.upper <= EPS, p)
    # exponential noise attains the claim on (1,...,1) vs (0,2,...,2): the enclosure contains 0.1
    p = _worst("ReportNoisyMax2", pattern_pairs(5, True, -10, 10))
    record("ReportNoisyMax2 = 0.1 (tight)", _equal(p, EPS), p)
    for name in ("SparseVectorTechnique1", "SparseVectorTechnique2"):
        p = max((exact_epsilon(name, d, e) for d, e in (X, X[::-1], (ONE, HALF), (HALF, ONE))),
                key=lambda q: q.lower)
        record(f"{name} <= 0.1", p.upper <= EPS, p)
    p = max((exact_epsilon("SparseVectorTechnique4", d, e) for d, e in ((ONE, HALF), (HALF, ONE))),
            key=lambda q: q.lower)
    record("0.1 < SVT4 <= 0.175", EPS < p.lower and p.upper <= Fraction(7, 40), p)
    p = exact_epsilon("SparseVectorTechnique5", HALF, ONE)
    record("SVT5 infinite", p.infinite, p)
    p = exact_epsilon("ReportNoisyMax3", (0.0,) * 5, (1.0,) * 5)
    record("ReportNoisyMax3 = 1/4 on 0 vs 1", p.lower <= Fraction(1, 4) <= p.upper and p.upper - p.lower < 1e-8, p)
    p = exact_epsilon("NoisyHist2", (1,) * 5, (0, 1, 1, 1, 1))
    record("NoisyHist2 = 10", _equal(p, 10), p)
    p = exact_epsilon("PrefixSum", ONE, (0.0,) * 10)
    record("PrefixSum = 1 on 1 vs 0", _equal(p, 1), p)
    return CheckResult(float(geo.lower), float(ln98), worst_verdict(verdicts), 30, "; ".join(rows),
                       method="certified")
