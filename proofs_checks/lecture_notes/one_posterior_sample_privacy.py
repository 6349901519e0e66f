"""One (tempered) posterior sample with a loss in [0, B] is 2tB-DP (replace-one), tB-DP (add/remove).

Claim
    Lecture notes (Y.-X. Wang, "DPML I", Sec. 9.2; proof in
    docs/theory/learning.rst): sampling theta with probability proportional
    to exp(-t sum_i loss(z_i, theta) + r(theta)), 0 <= loss <= B, r fixed, is
    2tB-DP for replace-one and tB-DP for add/remove neighbours; t = 1 is the
    posterior (2B-DP), and t = posterior_temperature(eps, B) reaches eps.
Setting
    Records z in {0, 1, 2}; four parameters with the loss table
    loss(z, theta) = B * [(0, 1, 1/2), (1, 0, 1/2), (1/2, 1/2, 0), (0, 0, 1)]
    (rows theta, columns z), and two log-priors: (0, 3, -1, 1/2) and
    (0, 8, 0, 0). The second puts almost all prior mass on a parameter whose
    loss moves opposite to that of theta_0, so the divergence comes within
    1e-3 of 2tB: the bound is nearly attained. Every neighbour of every
    multiset of at most 3 records (quick: B = 1, t = 1 and eps = 1) or 4
    records (full: B in {0.5, 1, 2}, t = 1 and eps in {0.25, 1, 4}) is
    examined, for both relations, for the exact and the float law. The
    bound is ``posterior_epsilon(B, t, relation)``, and for a target eps
    also eps itself.
Precision
    ``one_posterior_sample_distribution(..., exact=True)`` at 30 and 70
    digits, and the float law as the exact binary numbers it holds; max
    divergence enclosed in mpmath.iv intervals by
    ``refdp.verify.check_mechanism``; UNDECIDED fails.
Sampler
    A second check draws from ``one_posterior_sample`` (fixed seed) and
    accepts when every output count lies in its exact binomial acceptance
    interval; false-failure rate at most 1e-6 (Bonferroni over outputs).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from proofs_checks.common.sampler_law import inversion_law, sampler_check
from refdp.learning import (
    one_posterior_sample,
    one_posterior_sample_distribution,
    posterior_epsilon,
    posterior_temperature,
)
from refdp.verify.check import check_mechanism, summarise
from refdp.verify.neighbours import all_datasets
from refdp.verify.registry import register

RECORDS = (0, 1, 2)
SHAPE = ((0, 1, Fraction(1, 2)), (1, 0, Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 2), 0), (0, 0, 1))
PRIORS = ((0, 3, -1, Fraction(1, 2)), (0, 8, 0, 0))
DPS = 30
SEED = 20191
ALPHA = 1e-6  # false-failure rate of the sampler check
COVERS = ("refdp.learning.posterior.one_posterior_sample",
          "refdp.learning.posterior.one_posterior_sample_distribution",
          "refdp.learning.posterior.posterior_temperature",
          "refdp.learning.posterior.posterior_epsilon")


def loss_table(loss_bound):
    """loss(z, theta) for the four parameters (rows) and three records (columns)."""
    return [[Fraction(loss_bound) * v for v in row] for row in SHAPE]


def posterior_law(loss_bound, prior, *, exact=True, **tempering):
    """Dataset -> law of one posterior sample (``tempering``: epsilon= or temperature=, neighbours=)."""
    table = loss_table(loss_bound)

    def dist(dataset, ctx):    # context protocol: the exact law is enclosed in ctx's intervals
        losses = [[row[z] for z in dataset] for row in table]
        if exact:
            return one_posterior_sample_distribution(losses, loss_bound, log_prior=list(prior), ctx=ctx,
                                                     **tempering)
        arr = np.array([[float(v) for v in row] for row in losses]).reshape(len(table), len(dataset))
        p = one_posterior_sample_distribution(arr, loss_bound, log_prior=[float(r) for r in prior],
                                              **tempering)
        return inversion_law(p)

    return dist


def sweep(max_size, bounds, epsilons):
    """Exact checks over all neighbours; returns (results, labels)."""
    datasets = list(all_datasets(RECORDS, max_size))
    results, labels = [], []
    for b in bounds:
        for relation in ("replace", "add_remove"):
            settings = [({"temperature": 1.0}, posterior_epsilon(b, 1.0, relation), "t=1")]
            for eps in epsilons:
                t = posterior_temperature(eps, b, relation)
                settings.append(({"epsilon": eps}, min(eps, posterior_epsilon(b, t, relation)),
                                 f"eps={eps} (t={t!r})"))
            for tempering, bound, what in settings:
                for prior in PRIORS:
                    for exact in (True, False):
                        law = posterior_law(b, prior, exact=exact, neighbours=relation, **tempering)
                        results.append(check_mechanism(law, datasets, bound, neighbours=relation, dps=DPS,
                                                       domain=RECORDS))
                        labels.append(f"B={b}, {relation}, {what}, prior {tuple(str(r) for r in prior)}, "
                                      f"{'exact' if exact else 'float'} law")
    return results, labels


@register("lecture_notes.one_posterior_sample_privacy_exhaustive",
          "one posterior sample with loss in [0, B] is 2tB-DP (replace-one) and tB-DP (add/remove); "
          "t = posterior_temperature(eps, B) is eps-DP: exact max divergence over all neighbours of "
          "datasets of <= 3 records, B = 1, t = 1 and eps = 1, exact and float laws",
          covers=COVERS)
def privacy_quick():
    return summarise(*sweep(3, (1.0,), (1.0,)))


@register("lecture_notes.one_posterior_sample_privacy_exhaustive_full",
          "as lecture_notes.one_posterior_sample_privacy_exhaustive, datasets of <= 4 records, B in {0.5, 1, 2}, "
          "t = 1 and eps in {0.25, 1, 4}",
          covers=COVERS, quick=False)
def privacy_full():
    return summarise(*sweep(4, (0.5, 1.0, 2.0), (0.25, 1.0, 4.0)))


@register("lecture_notes.one_posterior_sample_sampler_matches_law",
          "one_posterior_sample draws agree with its exact law (exact binomial test, false-failure "
          "rate 1e-6)",
          covers=("refdp.learning.posterior.one_posterior_sample",))
def sampler():
    losses = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.5], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    prior, draws_n = [0.0, 1.0, -1.0, 0.5], 10000
    rng = np.random.default_rng(SEED)
    draws = [one_posterior_sample(losses, 1.0, log_prior=prior, epsilon=1.0, rng=rng) for _ in range(draws_n)]
    probs = one_posterior_sample_distribution(losses, 1.0, log_prior=prior, epsilon=1.0, exact=True, dps=30)
    return sampler_check(draws, probs, ALPHA, SEED, f"losses {losses.tolist()}, log-prior {prior}, eps 1")
