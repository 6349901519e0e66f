"""PATE's data-dependent bounds, as refdp computes them, dominate the exact worst-case log-moment.

Claim
    For random and adversarial vote vectors (ties, near-ties, unanimous votes,
    two classes, many classes, large gamma) and orders lambda in
    {0.5, 2, 8, 32, 128}:

    (1) the two-sided Lemma 4 log q of ``refdp.pate.PATEAccountant`` (Lemma 4 at
        the vector with one vote moved from the plurality class to the
        runner-up) is >= the largest Lemma 4 q over the vector and all its
        neighbours (brute force), within 1e-12 relative, and is +inf
        exactly when the top-two gap is <= 2;
    (2) the per-query bound the accountant composes, min(Theorem 2,
        2 gamma lambda, Theorem 3), is >= the exact worst-case log-moment
        over all neighbours: in both directions for the two-sided bounds
        (Lemma 4 q and exact q), in the forward direction for the paper's
        one-sided bound;
    (3) ``refdp.pate.exact_analysis`` returns log-moments >= the exact
        worst case (both directions and forward) and within 1e-9 relative
        (+1e-9 absolute) of it, and exact q's >= the exact ones, within
        1e-10 relative.

    The detail also reports where the paper's one-sided bound falls below
    the exact two-sided worst case (a finding, not a failure).
Reference
    ``proofs_checks.pate.reference``: the LNMax law by exact integration
    (``report_noisy_max_distribution``), every single-vote neighbour
    (no symmetry reduction), ``refdp.verify.log_moment`` for both
    directions, Lemma 4 and Theorem 3 from ``refdp.verify.reference``.
Precision
    mpmath at 30 digits, confirmed at 70 (decide_leq; fail closed).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from proofs_checks.pate import reference as R
from refdp import core
from refdp.pate import exact_analysis
from refdp.pate.accountant import lemma4_two_sided_log_q
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_leq, worst_verdict

DPS = 30
ORDERS = [0.5, 2.0, 8.0, 32.0, 128.0]
_CACHE: dict = {}


def _worst(counts, gamma):
    key = (tuple(counts), gamma, mpmath.mp.prec)
    if key not in _CACHE:
        _CACHE[key] = R.worst_log_moments(counts, gamma, ORDERS)
    return _CACHE[key]


def _per_query(log_q, lam, gamma):
    """The accountant's per-query bound for one query (the compiled kernel, one order)."""
    return float(core.accountant_log_moments([log_q], [lam], gamma)[0])


def _close_above(exact, value, rel, absolute=0):
    """exact <= value <= exact + rel |exact| + absolute, decided at DPS digits."""
    v1, lhs, _ = decide_leq(exact, lambda: mpmath.mpf(value), DPS)
    v2, _, _ = decide_leq(lambda: mpmath.mpf(value),
                          lambda: exact() + rel * abs(exact()) + absolute, DPS)
    return worst_verdict([v1, v2]), lhs


def run(cases):
    verdicts, notes = [], []
    gap_one_sided = (mpmath.mpf(0), "")
    worst_excess = mpmath.mpf(0)
    for counts, gamma in cases:
        arr = np.array([counts], dtype=np.int64)
        lq1 = float(core.lemma4_log_q(arr, gamma)[0])
        lq2 = float(lemma4_two_sided_log_q(arr, gamma)[0])
        ex = exact_analysis(arr, gamma, ORDERS, noise="continuous")
        # (1) two-sided Lemma 4 q
        with mpmath.workdps(DPS):
            ref_q2 = R.lemma4_two_sided_q(counts, gamma)
        if ref_q2 is None:
            verdicts.append(Verdict.HOLDS if lq2 == math.inf else Verdict.FAILS)
        else:
            v, _ = _close_above(lambda: mpmath.log(R.lemma4_two_sided_q(counts, gamma)), lq2,
                                mpmath.mpf("1e-12"))
            verdicts.append(v)
            if v is not Verdict.HOLDS:
                notes.append(f"two-sided Lemma 4 q {counts}, gamma={gamma}: {v}")
        # exact q's
        for value, fn in ((ex.log_q[0], R.exact_q), (ex.log_q_two_sided[0], R.exact_q_two_sided)):
            if len(counts) > 1:
                v, _ = _close_above(lambda fn=fn: mpmath.log(fn(counts, gamma)), float(value),
                                    mpmath.mpf("1e-10"), mpmath.mpf("1e-10"))
                verdicts.append(v)
                if v is not Verdict.HOLDS:
                    notes.append(f"exact q {fn.__name__} {counts}, gamma={gamma}: {v}")
        # (2) and (3), per order
        for k, lam in enumerate(ORDERS):
            both = lambda k=k: _worst(counts, gamma)[1][k]      # noqa: E731
            fwd = lambda k=k: _worst(counts, gamma)[0][k]       # noqa: E731
            for bound, target in ((_per_query(lq2, lam, gamma), both),
                                  (_per_query(float(ex.log_q_two_sided[0]), lam, gamma), both),
                                  (_per_query(lq1, lam, gamma), fwd)):
                v, _, _ = decide_leq(target, lambda b=bound: mpmath.mpf(b), DPS)
                verdicts.append(v)
                if v is not Verdict.HOLDS:
                    notes.append(f"bound {bound} {counts}, gamma={gamma}, lambda={lam}: {v}")
            for value, target in ((ex.log_moments[0, k], both), (ex.log_moments_forward[0, k], fwd)):
                # the rounding margin of exact_analysis is (2 lambda + 2) ETA + ..., ETA = 1e-11
                v, lhs = _close_above(target, float(value), mpmath.mpf("1e-9"),
                                      mpmath.mpf("1e-9") + (2 * lam + 4) * mpmath.mpf("1e-11"))
                if v is not Verdict.HOLDS:
                    notes.append(f"exact_analysis {counts}, gamma={gamma}, lambda={lam}: {v}")
                verdicts.append(v)
                with mpmath.workdps(DPS):
                    allowed = mpmath.mpf("1e-9") * (1 + abs(lhs)) + (2 * lam + 4) * mpmath.mpf("1e-11")
                    worst_excess = max(worst_excess, (mpmath.mpf(float(value)) - lhs) / allowed)
            one_sided = _per_query(lq1, lam, gamma)
            with mpmath.workdps(DPS):
                shortfall = both() - mpmath.mpf(one_sided)
            if shortfall > gap_one_sided[0]:
                gap_one_sided = (shortfall, f"counts={counts}, gamma={gamma}, lambda={lam}")
    detail = (f"{len(cases)} vote vectors, {len(verdicts)} decisions; largest excess of exact_analysis "
              f"over the exact log-moment, as a fraction of the allowed 1e-9 (1 + |alpha|) + "
              f"(2 lambda + 4) 1e-11: {mpmath.nstr(worst_excess, 3)}")
    if notes:
        detail += "; NOT HOLDING: " + "; ".join(notes[:5])
    if gap_one_sided[0] > 0:
        detail += (f"; the paper's one-sided bound is below the exact two-sided worst case by up to "
                   f"{mpmath.nstr(gap_one_sided[0], 4)} ({gap_one_sided[1]})")
    return CheckResult(worst_excess, 1, worst_verdict(verdicts), DPS, detail, method="estimated")


@register("pate.theorem_3_bounds_exact_worst_case",
          "two-sided Thm 3 (Lemma 4 q, exact q) >= exact worst-case log-moment in both directions, "
          "one-sided >= forward, exact_analysis tight and above (the 10 adversarial vectors, C <= 6; "
          "random vectors in the full run)",
          covers=("refdp.pate.PATEAccountant.log_moments", "refdp.pate.exact_analysis",
                  "refdp.pate.pate_analysis"), cost=4)
def quick():
    return run(R.adversarial_histograms())


@register("pate.theorem_3_bounds_exact_worst_case_full",
          "as pate.theorem_3_bounds_exact_worst_case on 40 random vectors (C <= 6, T <= 30) and a "
          "250-teacher, 10-class vector",
          covers=("refdp.pate.PATEAccountant.log_moments", "refdp.pate.exact_analysis"), quick=False)
def full():
    cases = R.adversarial_histograms() + R.random_histograms(30, 11, max_classes=6, max_teachers=30)
    cases.append(([229, 7, 5, 3, 2, 2, 1, 1, 0, 0], 0.05))
    return run(cases)
