"""The float LNMax law agrees with its exact mpmath twin and sums to 1.

Claim
    For random and adversarial vote vectors (ties, near-ties, unanimous votes,
    two classes, many classes, large and small gamma, probabilities far below
    the double range), every log-probability returned by
    ``refdp.pate.lnmax_distribution(..., log=True)`` is within
    ``1e-12 + 4 u |log P|`` of the exact one (u = 2**-53; so each probability
    within about 1e-12 relative, the second term being the spacing of doubles
    near ``log P``), and the
    float probabilities sum to 1 within 1e-13 (when none underflows).
Reference
    ``refdp.mechanisms.report_noisy_max_distribution(counts, 2 gamma,
    exact=True)``: the closed form of the piecewise-exponential integral in
    rational and mpmath arithmetic, independent of the float kernel's
    algorithm (closed form with running error bound, positive series,
    Gauss-Legendre fallback; docs/theory/pate.rst).
Precision
    The exact law is enclosed in interval arithmetic with outward rounding
    at 30 digits and compared by decide_leq_interval (certified; fail
    closed). The sums are formed exactly from the float probabilities.
"""
from fractions import Fraction

import numpy as np

from proofs_checks.pate.reference import law
from refdp.pate import lnmax_distribution
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import ctx_rational, raw_to_fraction
from refdp.verify.verdict import Verdict, decide_leq_interval, worst_verdict

DPS = 30
LOG_TOL = Fraction(1, 10**12)
SUM_TOL = Fraction(1, 10**13)


def vectors(full):
    """(counts, gamma) pairs."""
    out = [
        ([250] + [0] * 9, 0.05), ([125, 125] + [0] * 8, 0.05), ([126, 124] + [0] * 8, 0.05),
        ([225, 6, 5, 4, 3, 3, 2, 1, 1, 0], 0.05), ([60, 50, 40, 30, 20, 10, 5, 3, 2, 0], 0.05),
        ([240, 10], 20.0), ([3] + [2] * 19, 0.05), ([1] * 24, 0.05), ([7], 0.1), ([1, 0], 0.05),
        ([5, 4, 3, 2, 1, 0] * 3, 0.5), (list(range(16)), 0.3), ([0] * 12 + [1] * 8, 0.05),
        ([10] * 12, 3.0), ([250, 0, 0, 0, 0, 0, 0, 0, 0, 0], 1.0), ([2, 1, 0], 0.01),
    ]
    rng = np.random.default_rng(2017)
    for _ in range(40 if full else 10):
        c = int(rng.choice([2, 3, 5, 10, 20]))
        t = int(rng.choice([1, 5, 50, 250, 1000]))
        counts = rng.multinomial(t, rng.dirichlet(np.full(c, rng.choice([0.1, 1.0, 10.0])))).tolist()
        out.append((counts, float(rng.choice([0.01, 0.05, 0.3, 1.0, 5.0]))))
    if full:
        out += [([3] + [2] * 49, 0.05), ([1] * 60, 0.05), ([200] + [1] * 39, 0.01),
                (list(np.arange(50) % 7), 1.0)]
    return out


def run(full):
    verdicts, worst, where, worst_sum = [], Fraction(-1), "", Fraction(0)
    for counts, gamma in vectors(full):
        lp = lnmax_distribution(counts, gamma, log=True)
        for j, v in enumerate(lp):
            def diff(c, j=j, v=v, counts=counts, gamma=gamma):
                exact = c.log(law(counts, gamma, c)[j])
                return abs(float(v) - exact) - 4 * c.ldexp(c.mpf(1), -53) * abs(exact)

            verdict, lhs, _ = decide_leq_interval(diff, lambda c: ctx_rational(c, LOG_TOL), DPS)
            verdicts.append(verdict)
            hi = raw_to_fraction(lhs._mpi_[1])
            if hi > worst:
                worst, where = hi, f"counts={counts[:6]}{'...' if len(counts) > 6 else ''}, gamma={gamma}, j={j}"
        p = np.exp(lp)
        if np.all(p > 1e-300):
            s = abs(sum(Fraction(float(x)) for x in p) - 1)     # exact
            worst_sum = max(worst_sum, s)
            verdicts.append(Verdict.HOLDS if s <= SUM_TOL else Verdict.FAILS)
    return CheckResult(float(worst), float(LOG_TOL), worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest |log P_float - log P| - 4u|log P| <= {float(worst):.3g} "
                       f"at {where}; largest |sum - 1| = {float(worst_sum):.3g} (bound 1e-13)", method="certified")


@register("pate.lnmax_float_law_matches_mpmath",
          "float LNMax law within 1e-12 + 4u|log P| of mpmath in log, sums to 1 within 1e-13 "
          "(26 random and adversarial vectors, up to 24 classes)",
          covers=("refdp.pate.lnmax_distribution",))
def quick():
    return run(False)


@register("pate.lnmax_float_law_matches_mpmath_full",
          "as pate.lnmax_float_law_matches_mpmath on 60 vectors, up to 60 classes",
          covers=("refdp.pate.lnmax_distribution",), quick=False)
def full():
    return run(True)
