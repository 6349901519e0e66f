"""Claim 9.10 on a grid: the hard threshold datasets, group privacy and the packing bound, exactly.

Claim
    Lecture notes (Y.-X. Wang, "DPML I", Claim 9.10, Eqs. (9.8)-(9.13);
    refdp's finite form and proof in docs/theory/learning.rst). On the grid
    of m points with the m + 1 thresholds j/m and the hard datasets D_i
    (ceil(n/2) copies of (x_i, 0), floor(n/2) of (x_{i+1}, 1)):
    (a) only threshold i is consistent with D_i and every other threshold
    errs on at least floor(n/2) records, and the exponential-mechanism
    learner outputs threshold i with probability
    1 / (1 + i e^{-eps ceil(n/2)/2} + (m - i) e^{-eps floor(n/2)/2})
    (``threshold_learner_success``);
    (b) group privacy, the step (9.12): the learner's laws on any two hard
    datasets (which differ in all n records) have max divergence <= eps n;
    (c) the packing bound: the learner's worst success probability is at most
    1 / (1 + (m - 2) e^{-eps n}), the bound every eps-DP learner obeys.
Setting
    (a), (b): every m in 2..6 and n in 2..5 (full: m in 2..9, n in 2..7), eps
    in {0.5, 1, 2}, every i and every pair (i, j); the learner's law from
    ``grid_threshold_errors`` and ``exponential_mechanism_learner_distribution``.
    (c): m in {3, 4, 2^4, 2^8, ..., 2^40}, n in {2, 5, 10, 20, 40, 80} (full:
    also 160, 320), eps in {0.25, 0.5, 1, 2}.
Precision
    (a) error counts are integers; the closed form and the learner's law are
    compared in interval arithmetic by ``refdp.verify.decide_leq_interval``
    (|difference| <= 1e-25) at 30 digits; (b) max divergences enclosed in mpmath.iv by
    ``refdp.verify.check_pairs``; (c) decided in the equivalent form
    ln(K/(1 + K)) <= ln(S/(1 + S)) on the failure probabilities,
    K = (m - 2)e^{-eps n}, S = e^{-eps ceil(n/2)/2} + (m - 1)e^{-eps floor(n/2)/2},
    which keeps its precision when both successes are within 1e-30 of 1, by
    ``decide_leq_interval`` at 30 digits. All three are certified. UNDECIDED fails.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath

from refdp.learning import (
    exponential_mechanism_learner_distribution,
    grid_threshold_errors,
    hard_threshold_dataset,
    threshold_learner_success,
)
from refdp.verify.check import check_pairs, summarise
from refdp.verify.registry import CheckResult, combined_method, register
from refdp.utils.precision import ctx_rational
from refdp.verify.verdict import Verdict, decide_leq_interval, lower, upper, worst_verdict

DPS = 30
EPSILONS = (0.5, 1.0, 2.0)
COVERS = ("refdp.learning.thresholds_impossibility.threshold_learner_success",
          "refdp.learning.thresholds_impossibility.packing_success_bound",
          "refdp.learning.thresholds_impossibility.grid_threshold_errors",
          "refdp.learning.thresholds_impossibility.hard_threshold_dataset")


def hard_errors(m, n, i):
    """Error counts of the m + 1 grid thresholds on D_i."""
    return [int(e) for e in grid_threshold_errors(*hard_threshold_dataset(m, n, i), m)]


def learner_law(m, n, epsilon):
    """(dataset index i, ctx) -> exact law of the learner on D_i, computed in the mpmath context ``ctx``.

    Follows the context protocol of :func:`refdp.verify.check_pairs` (an
    interval ``ctx`` gives enclosures, hence certified verdicts).
    """

    def dist(i, ctx):
        risks = [Fraction(e, n) for e in hard_errors(m, n, i)]
        return exponential_mechanism_learner_distribution(risks, epsilon, n_samples=n, ctx=ctx)

    return dist


def structure_and_closed_form(grid_sizes, sizes):
    """(a): consistent threshold unique, others >= floor(n/2) errors, closed form = law."""
    verdicts, worst, count = [], None, 0
    tol_q = Fraction(1, 10**25)
    tol = mpmath.mpf("1e-25")
    for m, n, eps in itertools.product(grid_sizes, sizes, EPSILONS):
        law = learner_law(m, n, eps)
        for i in range(1, m):
            errors = hard_errors(m, n, i)
            shape_ok = errors[i] == 0 and all(e >= n // 2 for j, e in enumerate(errors) if j != i)
            verdict, diff, _ = decide_leq_interval(
                lambda c: abs(law(i, c)[i] - threshold_learner_success(m, n, eps, i, ctx=c)),
                lambda c: ctx_rational(c, tol_q), dps=DPS)
            diff = upper(diff)
            if not shape_ok:
                verdict = Verdict.FAILS
            verdicts.append(verdict)
            count += 1
            if worst is None or (not verdict.passed, diff) > worst[0]:
                worst = ((not verdict.passed, diff), diff,
                         f"m={m}, n={n}, eps={eps}, i={i}: errors {errors}, |law - closed form| = "
                         f"{mpmath.nstr(diff, 5)} ({verdict})")
    return CheckResult(worst[1], tol, worst_verdict(verdicts), DPS,
                       f"{count} hard datasets; largest difference at {worst[2]}", method="certified")


def group_privacy(grid_sizes, sizes):
    """(b): max divergence between the laws on D_i and D_j is <= eps n, for all i != j."""
    results, labels = [], []
    for m, n, eps in itertools.product(grid_sizes, sizes, EPSILONS):
        if m < 3:
            continue
        pairs = list(itertools.combinations(range(1, m), 2))
        results.append(check_pairs(learner_law(m, n, eps), pairs, eps * n, dps=DPS,
                                   relation="hard datasets D_i, D_j (n records apart)"))
        labels.append(f"m={m}, n={n}, eps={eps}, bound eps n = {eps * n}")
    return summarise(results, labels)


def log_failures(m, n, epsilon, c):
    """(ln EM failure on D_1, ln packing lower bound on any learner's failure), no cancellation.

    Failure = 1 - success: ``S / (1 + S)`` with ``S = e^{-eps ceil(n/2)/2} +
    (m - 1) e^{-eps floor(n/2)/2}`` for the learner and ``K / (1 + K)`` with
    ``K = (m - 2) e^{-eps n}`` for the packing bound; ``-inf`` when ``m = 2``.
    Computed in the interval context ``c`` (enclosures; ``epsilon`` at its
    exact binary value).
    """
    e = ctx_rational(c, Fraction(epsilon))
    half = e / 2
    s = c.exp(-half * ((n + 1) // 2)) + (m - 1) * c.exp(-half * (n // 2))
    log_learner = c.log(s) - c.log(1 + s)
    if m == 2:
        return log_learner, c.mpf("-inf")
    log_k = c.log(m - 2) - e * n
    return log_learner, log_k - c.log(1 + c.exp(log_k))


def packing(grid_sizes, sizes, epsilons):
    """(c): the learner's worst success <= 1 / (1 + (m - 2) e^{-eps n}).

    Decided in the equivalent form ln(packing failure) <= ln(learner failure),
    which keeps its precision when both successes are within 10**-30 of 1.
    """
    verdicts, worst = [], None
    for m, n, eps in itertools.product(grid_sizes, sizes, epsilons):
        verdict, lhs, rhs = decide_leq_interval(lambda c: log_failures(m, n, eps, c)[1],
                                                lambda c: log_failures(m, n, eps, c)[0], dps=DPS)
        lhs, rhs = upper(lhs), lower(rhs)
        verdicts.append(verdict)
        key = (not verdict.passed, lhs - rhs)
        if worst is None or key > worst[0]:
            worst = (key, lhs, rhs,
                     f"m={m}, n={n}, eps={eps}: learner success "
                     f"{mpmath.nstr(threshold_learner_success(m, n, eps), 8)}, packing bound "
                     f"{mpmath.nstr(-mpmath.expm1(lhs), 8)}; failures {mpmath.nstr(mpmath.exp(rhs), 8)} "
                     f"(learner) >= {mpmath.nstr(mpmath.exp(lhs), 8)} (packing) ({verdict})")
    _, lhs, rhs, text = worst
    return CheckResult(lhs, rhs, worst_verdict(verdicts), DPS, method="certified", detail=
                       f"{len(verdicts)} (m, n, eps) decided on logs of the failure probabilities; "
                       f"closest (largest packing failure / learner failure) at {text}")


PACKING_GRIDS = (3, 4) + tuple(2**k for k in range(4, 41, 4))


@register("lecture_notes.claim_9_10_hard_datasets_and_success",
          "on the grid hard datasets D_i only threshold i is consistent, the others err on >= floor(n/2) "
          "records, and threshold_learner_success equals the learner's exact law (m <= 6, n <= 5)",
          covers=COVERS)
def structure_quick():
    return structure_and_closed_form(range(2, 7), range(2, 6))


@register("lecture_notes.claim_9_10_group_privacy_hard_pairs",
          "the learner's laws on two hard datasets (n records apart) have max divergence <= eps n "
          "(step (9.12)); all pairs, m <= 6, n <= 5, eps in {0.5, 1, 2}",
          covers=COVERS)
def group_privacy_quick():
    return group_privacy(range(3, 7), range(2, 6))


@register("lecture_notes.claim_9_10_packing_bound",
          "the exponential-mechanism learner's worst success on the hard datasets is <= "
          "1 / (1 + (m - 2) e^{-eps n}), the packing bound of every eps-DP learner (m up to 2^40)",
          covers=COVERS)
def packing_quick():
    return packing(PACKING_GRIDS, (2, 5, 10, 20, 40, 80), (0.25, 0.5, 1.0, 2.0))


@register("lecture_notes.claim_9_10_full",
          "as the three claim_9_10 checks with m <= 9, n <= 7 for (a) and (b) and n up to 320 for (c)",
          covers=COVERS, quick=False)
def full():
    parts = [structure_and_closed_form(range(2, 10), range(2, 8)),
             group_privacy(range(3, 10), range(2, 8)),
             packing(PACKING_GRIDS, (2, 5, 10, 20, 40, 80, 160, 320), (0.25, 0.5, 1.0, 2.0))]
    verdict = worst_verdict(p.verdict for p in parts)
    k = next(i for i, p in enumerate(parts) if p.verdict is verdict)
    return CheckResult(parts[k].measured, parts[k].bound, verdict, DPS,
                       " | ".join(f"({'abc'[i]}) {p.verdict}: {p.detail}" for i, p in enumerate(parts)),
                       method=combined_method(parts))
