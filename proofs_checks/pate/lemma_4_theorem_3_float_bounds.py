"""The kernels' float bounds for PATE Lemma 4 and Theorems 2-3 never undercut the exact values.

Claim
    For count vectors with ties, near-ties, unanimous votes and many classes,
    ``refdp.core.lemma4_log_q`` is >= the exact log of Lemma 4's q, and
    ``refdp.core.accountant_log_moments`` is >= the exact sum over queries of
    min(Theorem 2, 2 gamma lambda, Theorem 3 within its validity range), each
    evaluated in mpmath; and neither exceeds the exact value by more than
    1e-12 relative (so the upward rounding is safe and tight).
Preconditions
    Lemma 4 and Theorem 3 as stated in PATE (Papernot et al. 2017); Theorem 3
    applied only for q < (e^{2 gamma} - 1)/(e^{4 gamma} - 1).
Precision
    Interval arithmetic with outward rounding at 40 digits
    (decide_leq_interval; certified; fail closed).
"""
import mpmath
import numpy as np

from refdp import core
from refdp.verify import reference as ref
from refdp.verify.registry import CheckResult, register
from fractions import Fraction

from refdp.utils.precision import ctx_rational, iv_context
from refdp.verify.verdict import Verdict, decide_leq_interval, upper

DPS = 40
REL = Fraction(1, 10**12)


def _counts():
    rng = np.random.default_rng(4)
    rows = [
        [250, 0, 0, 0, 0, 0, 0, 0, 0, 0],      # unanimous
        [125, 125, 0, 0, 0, 0, 0, 0, 0, 0],    # tie
        [126, 124, 0, 0, 0, 0, 0, 0, 0, 0],    # near tie
        [240, 10],                              # two classes
        [1] * 100,                              # many classes, all tied
        [3] + [2] * 99,                         # many classes, near tie
        [7],                                    # one class
    ]
    rows += [list(r) for r in rng.multinomial(250, rng.dirichlet(np.full(10, 0.2)), size=6)]
    return rows


def _decide(lower_exact, upper_float, rel):
    """HOLDS iff exact <= float <= exact + rel * (1 + |exact|), decided in interval arithmetic at DPS digits.

    ``lower_exact(ctx)`` encloses the exact value in the interval context ``ctx``.
    """
    v1, _, _ = decide_leq_interval(lower_exact, lambda c: upper_float, DPS)
    v2, _, _ = decide_leq_interval(lambda c: upper_float,
                                   lambda c: lower_exact(c) + ctx_rational(c, rel) * (1 + abs(lower_exact(c))),
                                   DPS)
    if v1 is Verdict.HOLDS and v2 is Verdict.HOLDS:
        return Verdict.HOLDS
    if Verdict.FAILS in (v1, v2):
        return Verdict.FAILS
    return Verdict.UNDECIDED


@register("pate.lemma4_log_q_float_upper_bound",
          "float log q >= exact log(Lemma 4 q), and within 1e-12 relative of it",
          covers=("refdp.core.lemma4_log_q",))
def lemma4():
    worst, where, verdicts = mpmath.mpf(-1), "", []
    for gamma in (0.01, 0.05, 1.0, 20.0):
        for row in _counts():
            lq = float(core.lemma4_log_q([row], gamma)[0])
            if lq == -np.inf:
                verdicts.append(Verdict.HOLDS if ref.lemma4_q(row, gamma) == 0 else Verdict.FAILS)
                continue
            exact = lambda c, row=row, gamma=gamma: c.log(ref.lemma4_q(row, gamma, c))  # noqa: E731
            verdicts.append(_decide(exact, lq, REL))
            iv = iv_context(DPS)
            excess = upper((lq - exact(iv)) / (1 + abs(exact(iv))))
            if excess > worst:
                worst, where = excess, f"gamma={gamma}, counts={row[:4]}..."
    verdict = (Verdict.FAILS if Verdict.FAILS in verdicts else
               Verdict.UNDECIDED if Verdict.UNDECIDED in verdicts else Verdict.HOLDS)
    return CheckResult(worst, mpmath.mpf("1e-12"), verdict, DPS,
                       f"largest relative excess over exact (an upper bound) at {where}", method="certified")


@register("pate.accountant_float_upper_bound",
          "float composed log-moment >= exact sum of min(Thm 2, 2*gamma*lambda, Thm 3), within 1e-12 rel.",
          covers=("refdp.core.accountant_log_moments",))
def accountant():
    gamma = 0.05
    rows = _counts()
    rows10 = [r for r in rows if len(r) == 10]
    orders = [0.25, 1.0, 2.5, 8.0, 32.0, 200.0]
    verdicts, worst, where = [], mpmath.mpf(-1), ""
    lq = core.lemma4_log_q(rows10, gamma)
    got = core.accountant_log_moments(lq, orders, gamma)
    for k, lam in enumerate(orders):
        def exact(c, lam=lam):
            return c.fsum(ref.per_query_bound(ref.lemma4_q(r, gamma, c), lam, gamma, c) for r in rows10)
        verdicts.append(_decide(exact, float(got[k]), REL))
        iv = iv_context(DPS)
        excess = upper((float(got[k]) - exact(iv)) / (1 + abs(exact(iv))))
        if excess > worst:
            worst, where = excess, f"lambda={lam}"
    verdict = (Verdict.FAILS if Verdict.FAILS in verdicts else
               Verdict.UNDECIDED if Verdict.UNDECIDED in verdicts else Verdict.HOLDS)
    return CheckResult(worst, mpmath.mpf("1e-12"), verdict, DPS,
                       f"largest relative excess over exact (an upper bound) at {where} ({len(rows10)} queries)",
                       method="certified")
