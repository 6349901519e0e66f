"""The learner's excess empirical risk exceeds (2/(n eps))(ln|H| + ln(1/beta)) w.p. <= beta: exact.

Claim
    Lecture notes (Y.-X. Wang, "DPML I", Eq. (9.6), with the sensitivity 1/n;
    proof in docs/theory/learning.rst): for every dataset,
    the exponential-mechanism learner's output h satisfies
    P[R(h) - min R > (2/(n eps))(ln|H| + ln(1/beta))] <= beta.
Setting
    The failure probability is computed exactly from the learner's exact law
    (it is a finite sum), not estimated by sampling. (1) Simulated data: grid
    thresholds (m = 16 points, |H| = 17) on points drawn uniformly from the
    grid, labelled by the threshold 0.4 with 20% of the labels flipped; quick:
    n in {20, 200}, eps in {0.5, 1, 2}, beta in {0.05, 0.2}, 5 seeds; full:
    n in {20, 60, 200, 600, 2000}, eps in {0.5, 1, 2}, beta in {0.01, 0.05,
    0.2}, 10 seeds. There the failure probability is far below beta (most
    hypotheses are far from the best). (2) The adversarial risk profile that
    makes the bound nearly tight: one hypothesis with risk 0 and |H| - 1 with
    the smallest risk k/n above the bound; quick: |H| in {2, 17, 1000}, n in
    {50, 1000}; full: also n in {200, 5000}; eps in {0.5, 1, 2}, beta in
    {0.01, 0.05, 0.2}. There the failure probability reaches about 0.9 beta
    (it stays below beta by the factor (|H| - 1)/|H| and by the rounding of
    the bound up to the next multiple of 1/n).
Precision
    The bound is enclosed in mpmath.iv intervals; a hypothesis counts as a
    failure when its excess risk (an exact fraction) is above the upper end,
    as a success when at or below the lower end, and an overlap is UNDECIDED.
    The failure probability, a sum of probabilities from
    ``exponential_mechanism_learner_distribution(..., exact=True)``, is
    enclosed in interval arithmetic with outward rounding and compared with
    beta by ``refdp.verify.decide_leq_interval`` at 30 digits (certified);
    UNDECIDED fails.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np

from refdp.learning import exponential_mechanism_learner_distribution, grid_threshold_errors
from refdp.learning.finite_class import _utility_bound_enclosure
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import ctx_rational, mp_context, raw_to_fraction
from refdp.verify.verdict import Verdict, decide_leq_interval, upper, worst_verdict

DPS = 30
GRID = 16
EPSILONS = (0.5, 1.0, 2.0)
BETAS = (0.01, 0.05, 0.2)
CLASSES = (2, 17, 1000)
COVERS = ("refdp.learning.finite_class.exponential_mechanism_learner_utility_bound",
          "refdp.learning.finite_class.exponential_mechanism_learner")


def failing_hypotheses(errors, n, epsilon, beta):
    """Indices whose excess risk is above the bound, or None if one cannot be decided."""
    lo, hi = _utility_bound_enclosure(n, len(errors), epsilon, beta)
    best = min(errors)
    out = []
    for h, e in enumerate(errors):
        excess = Fraction(e - best, n)
        if excess > hi:
            out.append(h)
        elif not excess <= lo:
            return None
    return out


def failure_probability(errors, n, epsilon, failing, ctx=None):
    """P[output in failing] in the mpmath context ``ctx`` (an interval context gives an enclosure).

    Default: a real context at 50 digits.
    """
    ctx = mp_context(50) if ctx is None else ctx
    probs = exponential_mechanism_learner_distribution([Fraction(e, n) for e in errors], epsilon, n_samples=n, ctx=ctx)
    return ctx.fsum(probs[h] for h in failing) if failing else ctx.mpf(0)


def decide(errors, n, epsilon, beta):
    """(verdict, P_fail, what) for one risk profile."""
    failing = failing_hypotheses(errors, n, epsilon, beta)
    if failing is None:
        return Verdict.UNDECIDED, mpmath.mpf("nan"), "bound not separated from an excess risk"
    b = Fraction(beta)
    verdict, lhs, _ = decide_leq_interval(lambda c: failure_probability(errors, n, epsilon, failing, c),
                                          lambda c: ctx_rational(c, b), dps=DPS)
    return verdict, upper(lhs), f"{len(failing)} of {len(errors)} hypotheses above the bound"


def simulated_errors(n, seed):
    """Error counts of the 17 grid thresholds on noisy threshold data (points on the grid)."""
    rng = np.random.default_rng(seed)
    x = (2 * rng.integers(1, GRID + 1, size=n) - 1) / (2 * GRID)
    y = ((x >= 0.4) ^ (rng.random(n) < 0.2)).astype(np.int64)
    return [int(e) for e in grid_threshold_errors(x, y, GRID)]


def adversarial_errors(n_hypotheses, n, epsilon, beta):
    """One hypothesis with 0 errors, the others with the fewest errors k whose risk k/n exceeds the bound.

    Returns None when that k exceeds n (the profile does not exist).
    """
    _, hi = _utility_bound_enclosure(n, n_hypotheses, epsilon, beta)
    k = math.floor(raw_to_fraction(hi._mpf_) * n) + 1
    return None if k > n else [0] + [k] * (n_hypotheses - 1)


def run(cases):
    """Decide every (label, errors, n, eps, beta) case; report the largest P_fail / beta."""
    verdicts, worst = [], None
    for label, errors, n, eps, beta in cases:
        verdict, p_fail, what = decide(errors, n, eps, beta)
        verdicts.append(verdict)
        ratio = raw_to_fraction(p_fail._mpf_) / Fraction(beta) if mpmath.isfinite(p_fail) else math.inf
        key = (not verdict.passed, ratio)
        if worst is None or key > worst[0]:
            worst = (key, p_fail, beta, f"{label}, n={n}, eps={eps}, beta={beta}: {what}; "
                                        f"P_fail={mpmath.nstr(p_fail, 10)} ({verdict})")
    _, p_fail, beta, text = worst
    return CheckResult(p_fail, beta, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} risk profiles decided exactly; largest P_fail/beta at {text}", method="certified")


def simulated_cases(sizes, epsilons, betas, seeds):
    for n, eps, beta, seed in itertools.product(sizes, epsilons, betas, seeds):
        yield f"grid thresholds |H|={GRID + 1}, seed {seed}", simulated_errors(n, seed), n, eps, beta


def adversarial_cases(classes, sizes, epsilons, betas):
    for h, n, eps, beta in itertools.product(classes, sizes, epsilons, betas):
        errors = adversarial_errors(h, n, eps, beta)
        if errors is not None:
            yield f"adversarial |H|={h}", errors, n, eps, beta


@register("lecture_notes.exponential_mechanism_learner_utility_bound_simulated",
          "P[excess empirical risk > (2/(n eps))(ln|H| + ln(1/beta))] <= beta, computed exactly from the "
          "learner's law on noisy grid-threshold data (n in {20, 200}, eps in {0.5, 1, 2}, "
          "beta in {0.05, 0.2}, 5 seeds)",
          covers=COVERS)
def simulated_quick():
    return run(simulated_cases((20, 200), EPSILONS, (0.05, 0.2), range(5)))


@register("lecture_notes.exponential_mechanism_learner_utility_bound_adversarial",
          "P[excess > bound] <= beta exactly on the nearly tight risk profile (one risk 0, |H| - 1 just "
          "above the bound), |H| in {2, 17, 1000}, n in {50, 1000}, eps in {0.5, 1, 2}, "
          "beta in {0.01, 0.05, 0.2}",
          covers=COVERS)
def adversarial_quick():
    return run(adversarial_cases(CLASSES, (50, 1000), EPSILONS, BETAS))


@register("lecture_notes.exponential_mechanism_learner_utility_bound_full",
          "as the two utility-bound checks on the full grids: simulated n in {20, 60, 200, 600, 2000}, "
          "beta in {0.01, 0.05, 0.2}, 10 seeds; adversarial n in {50, 200, 1000, 5000}",
          covers=COVERS, quick=False)
def full():
    cases = itertools.chain(
        simulated_cases((20, 60, 200, 600, 2000), EPSILONS, BETAS, range(10)),
        adversarial_cases(CLASSES, (50, 200, 1000, 5000), EPSILONS, BETAS))
    return run(cases)


