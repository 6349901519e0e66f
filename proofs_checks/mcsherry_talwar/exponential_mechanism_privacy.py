"""The exponential mechanism is epsilon-DP, checked exactly on every small dataset.

Claim
    McSherry & Talwar 2007, Theorem 6 (Dwork & Roth 2014, Theorem 3.10): for a
    utility of sensitivity Delta, P[h] prop. to exp(eps u(D, h) / (2 Delta)) is
    eps-DP; when every neighbour moves all utilities in the same direction,
    exp(eps u / Delta) suffices (McSherry and Talwar 2007, Thm. 6).
Setting
    Datasets are multisets over a domain of m records, m = 1..4; the
    candidates are the domain elements and the utility is the histogram count
    u(D, h) = #{records equal to h} (sensitivity 1). Replace-one moves one count
    down and another up (two-sided): checked with the general scale
    (``monotone=False``). Add/remove moves one count in one direction: checked
    with the monotone scale (``monotone=True``). Every neighbour of every
    dataset of size <= 3 for eps in {1, 2} (quick) or of size <= 4 for
    eps in {0.5, 1, 2} (full) is examined.
Precision
    ``refdp.mechanisms.exponential_mechanism_distribution(..., exact=True)``
    evaluated at 30 and 70 digits, max divergence enclosed in mpmath.iv
    intervals (``refdp.verify.check_mechanism``); UNDECIDED fails.
Sampler
    A second check draws from ``exponential_mechanism`` (fixed seed) and
    accepts when every output count lies in its exact binomial acceptance
    interval; the false-failure rate is at most 1e-6 (Bonferroni over outputs).
"""
from __future__ import annotations

import numpy as np

from proofs_checks.common.histogram_sweep import sweep
from proofs_checks.common.sampler_law import sampler_check
from refdp.mechanisms import exponential_mechanism, exponential_mechanism_distribution
from refdp.verify.check import summarise
from refdp.verify.registry import register

EPSILONS = (0.5, 1.0, 2.0)   # full sweep
QUICK_EPSILONS = (1.0,)  # --quick subset (the full run adds 0.5 and 2)
SEED = 20070
ALPHA = 1e-6  # false-failure rate of the sampler check


@register("mcsherry_talwar.exponential_mechanism_privacy_exhaustive",
          "exp(eps u/(2 Delta)) is eps-DP (replace-one) and exp(eps u/Delta) is eps-DP for monotone u "
          "(add/remove): exact max divergence over all neighbours, datasets of size <= 3, domain <= 4, "
          "eps = 1",
          covers=("refdp.mechanisms.exponential_mechanism",
                  "refdp.mechanisms.exponential_mechanism_distribution"))
def privacy_quick():
    return summarise(*sweep(exponential_mechanism_distribution, 3, QUICK_EPSILONS))


@register("mcsherry_talwar.exponential_mechanism_privacy_exhaustive_full",
          "as mcsherry_talwar.exponential_mechanism_privacy_exhaustive, datasets of size <= 4, eps in {0.5, 1, 2}",
          covers=("refdp.mechanisms.exponential_mechanism",
                  "refdp.mechanisms.exponential_mechanism_distribution"),
          quick=False)
def privacy_full():
    return summarise(*sweep(exponential_mechanism_distribution, 4, EPSILONS))


@register("mcsherry_talwar.exponential_mechanism_sampler_matches_law",
          "exponential_mechanism samples agree with exponential_mechanism_distribution "
          "(exact binomial test, false-failure rate 1e-6)",
          covers=("refdp.mechanisms.exponential_mechanism",))
def sampler():
    scores, eps, n = [0.0, 1.0, 3.0, 3.0, -2.0], 1.0, 10000
    rng = np.random.default_rng(SEED)
    draws = [exponential_mechanism(scores, eps, rng=rng) for _ in range(n)]
    probs = exponential_mechanism_distribution(scores, eps, exact=True, dps=30)
    return sampler_check(draws, probs, ALPHA, SEED, f"scores {scores}, eps {eps}")
