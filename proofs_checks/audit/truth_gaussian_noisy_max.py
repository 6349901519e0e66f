"""Report-noisy-max with Gaussian noise: the certified index law is a law, and its exact epsilon.

Claim
    With ``N(0, 20^2)`` noise on five answers (the Laplace variant's scale
    2/eps at eps = 0.1, Ding et al. CCS 2018, Algorithms 5 and 7): the
    enclosed index probabilities of every StatDP pattern input sum to an
    interval containing 1; the released index has exact epsilon in
    [0.119, 0.1191] on (1,...,1) vs (0,2,...,2), above the 0.1 the Laplace
    variant guarantees; the released value is not private at any epsilon
    on (0,1,...,1) vs (1,...,1) (the density ratio grows like
    ``v (sum a - sum a') / sigma^2`` as ``v -> -inf``, Mills' inequality).
Precision
    :mod:`refdp.audit.truth.gaussian`: Taylor-model quadrature (boxes of
    sigma/2, degree 16) in a private interval context of 60 digits; the
    verdicts are decided from the enclosures (HOLDS only if the whole
    enclosure satisfies the property).
"""
from __future__ import annotations

from fractions import Fraction

from refdp.utils.precision import iv_context
from refdp.audit.truth import exact_epsilon
from refdp.audit.truth.exact_epsilon import interval_ends
from refdp.audit.truth.gaussian import index_law
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

INDEX = "ReportNoisyMax (Gaussian), index"
VALUE = "ReportNoisyMax (Gaussian), value"


@register("audit.truth_gaussian_noisy_max",
          "Gaussian report-noisy-max (sigma = 20, five answers): certified index laws sum to 1; index epsilon "
          "in [0.119, 0.1191] on (1,...,1) vs (0,2,...,2); released value infinite on (0,1,...,1) vs (1,...,1)",
          covers=("refdp.audit.truth.gaussian.index_law", "refdp.audit.truth.gaussian.value_epsilon"),
          quick=False, cost=6.0)
def truth_gaussian_noisy_max() -> CheckResult:
    ctx = iv_context(30)
    rows, verdicts = [], []
    for answers in ((1, 1, 1, 1, 1), (0, 2, 2, 2, 2), (2, 0, 0, 0, 0), (1, 1, 0, 0, 0)):
        lo, hi = interval_ends(sum(index_law(ctx, answers, 20), ctx.mpf(0)))
        ok = lo <= 1 <= hi and hi - lo < Fraction(1, 10 ** 10)
        verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
        rows.append(f"sum of P[argmax = i] on {answers}: [{float(lo):.15g}, {float(hi):.15g}]")
    p = exact_epsilon(INDEX, (1.0,) * 5, (0.0,) + (2.0,) * 4)
    ok = Fraction(119, 1000) < p.lower and p.upper < Fraction(1191, 10000)
    verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
    rows.append(f"index epsilon on (1,...,1) vs (0,2,...,2): [{float(p.lower):.12g}, {float(p.upper):.12g}]")
    v = exact_epsilon(VALUE, (0.0,) + (1.0,) * 4, (1.0,) * 5)
    verdicts.append(Verdict.HOLDS if v.infinite else Verdict.FAILS)
    rows.append(f"value: {'infinite' if v.infinite else 'finite'} ({v.witness})")
    return CheckResult(float(p.lower), 0.1191, worst_verdict(verdicts), 30, "; ".join(rows), method="certified")
