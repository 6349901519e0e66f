"""Report-noisy-max is epsilon-DP, checked exactly on every small dataset.

Claim
    Dwork & Roth 2014, Claim 3.9: the index of the largest of counts plus
    i.i.d. Lap(1/eps) noise is eps-DP when every neighbour moves all counts in
    the same direction by at most 1 (counting queries under add/remove); with
    Lap(2/eps) it is eps-DP when each count may move by 1 in either direction
    (replace-one). PATE's LNMax is this mechanism on vote counts
    (Papernot et al. 2017, Sec. 2.1).
Setting
    The float-safe version (grid indices, exact discrete Laplace noise,
    lowest-index ties; docs/theory/secure_noise.rst Theorem 5) is checked the
    same way on its own exact law (``secure=True``).
    Datasets are multisets over a domain of m records, m = 1..4; the scores
    are the histogram counts. Replace-one (one count down, one up) is checked
    with ``monotone=False`` (scale 2/eps), add/remove with ``monotone=True``
    (scale 1/eps). Every neighbour of every dataset of size <= 3 (quick) or
    <= 4 (full) is examined, for eps in {1, 2} (quick) or {0.5, 1, 2} (full).
Precision
    ``refdp.mechanisms.report_noisy_max_distribution(..., exact=True)`` (closed
    form of the piecewise-exponential integral) at 30 and 70 digits, max
    divergence enclosed in mpmath.iv intervals (``refdp.verify.check_mechanism``);
    UNDECIDED fails.
Sampler
    A second check draws from ``report_noisy_max`` (fixed seed) and accepts
    when every output count lies in its exact binomial acceptance interval;
    the false-failure rate is at most 1e-6 per configuration (Bonferroni over
    outputs), 2e-6 for the check.
"""
from __future__ import annotations

import numpy as np

from proofs_checks.common.histogram_sweep import sweep
from proofs_checks.common.sampler_law import sampler_check
from refdp.mechanisms import report_noisy_max, report_noisy_max_distribution
from refdp.verify.check import summarise
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import worst_verdict

EPSILONS = (0.5, 1.0, 2.0)   # full sweep
QUICK_EPSILONS = (1.0,)  # --quick subset (the full run adds 0.5 and 2)
SEED = 20140
ALPHA = 1e-6  # false-failure rate of each sampler configuration


@register("dwork_roth.report_noisy_max_privacy_exhaustive",
          "argmax of counts + Lap(2/eps) is eps-DP (replace-one) and + Lap(1/eps) is eps-DP "
          "(add/remove): exact max divergence over all neighbours, datasets of size <= 3, domain <= 4, "
          "eps = 1",
          covers=("refdp.mechanisms.report_noisy_max",
                  "refdp.mechanisms.report_noisy_max_distribution"))
def privacy_quick():
    return summarise(*sweep(report_noisy_max_distribution, 3, QUICK_EPSILONS))


@register("dwork_roth.report_noisy_max_privacy_exhaustive_full",
          "as dwork_roth.report_noisy_max_privacy_exhaustive, datasets of size <= 4, eps in {0.5, 1, 2}",
          covers=("refdp.mechanisms.report_noisy_max",
                  "refdp.mechanisms.report_noisy_max_distribution"),
          quick=False)
def privacy_full():
    return summarise(*sweep(report_noisy_max_distribution, 4, EPSILONS))


@register("dwork_roth.report_noisy_max_sampler_matches_law",
          "report_noisy_max(secure=False) samples agree with report_noisy_max_distribution "
          "(exact binomial test, false-failure rate 2e-6)",
          covers=("refdp.mechanisms.report_noisy_max",))
def sampler():
    scores, n = [0.0, 1.0, 3.0, 3.0, -2.0], 200_000
    rng = np.random.default_rng(SEED)
    parts = []
    for eps, monotone in ((1.0, False), (1.0, True)):  # Laplace scales 2 and 1
        draws = report_noisy_max(scores, eps, monotone=monotone, rng=rng, size=n, secure=False)
        probs = report_noisy_max_distribution(scores, eps, monotone=monotone, exact=True, dps=30)
        parts.append(sampler_check(draws, probs, ALPHA, SEED,
                                   f"scores {scores}, eps {eps}, monotone={monotone}"))
    verdict = worst_verdict(p.verdict for p in parts)
    return CheckResult(sum(p.measured for p in parts), 0, verdict, 0,
                       " | ".join(p.detail for p in parts), method="statistical")


def _secure_law(scores, epsilon, *, monotone, ctx):
    return report_noisy_max_distribution(scores, epsilon, monotone=monotone, ctx=ctx, secure=True)


@register("dwork_roth.report_noisy_max_secure_privacy_exhaustive",
          "float-safe report-noisy-max (grid indices + exact discrete Laplace, lowest-index ties) is eps-DP: "
          "exact max divergence of its law over all neighbours, datasets of size <= 3, domain <= 4, eps = 1",
          covers=("refdp.mechanisms.report_noisy_max",
                  "refdp.mechanisms.report_noisy_max_distribution"), cost=2)
def secure_privacy_quick():
    return summarise(*sweep(_secure_law, 3, QUICK_EPSILONS))


@register("dwork_roth.report_noisy_max_secure_privacy_exhaustive_full",
          "as dwork_roth.report_noisy_max_secure_privacy_exhaustive, datasets of size <= 4, eps in {0.5, 1, 2}",
          covers=("refdp.mechanisms.report_noisy_max",
                  "refdp.mechanisms.report_noisy_max_distribution"),
          quick=False)
def secure_privacy_full():
    return summarise(*sweep(_secure_law, 4, EPSILONS))


@register("dwork_roth.report_noisy_max_secure_sampler_matches_law",
          "report_noisy_max(secure=True) samples agree with report_noisy_max_distribution(secure=True) "
          "(exact binomial test, false-failure rate 3e-6)",
          covers=("refdp.mechanisms.report_noisy_max",))
def secure_sampler():
    n = 200_000
    rng = np.random.default_rng(SEED + 1)
    parts = []
    for scores, eps, monotone in (([0.0, 1.0, 3.0, 3.0, -2.0], 1.0, False),
                                  ([0.0, 1.0, 3.0, 3.0, -2.0], 1.0, True),
                                  ([0.25, 0.0, 0.0009765625], 50.0, False)):   # ties on the grid
        draws = report_noisy_max(scores, eps, monotone=monotone, rng=rng, size=n)
        probs = report_noisy_max_distribution(scores, eps, monotone=monotone, exact=True, dps=30, secure=True)
        parts.append(sampler_check(draws, probs, ALPHA, SEED + 1,
                                   f"scores {scores}, eps {eps}, monotone={monotone}, secure"))
    verdict = worst_verdict(p.verdict for p in parts)
    return CheckResult(sum(p.measured for p in parts), 0, verdict, 0,
                       " | ".join(p.detail for p in parts), method="statistical")
