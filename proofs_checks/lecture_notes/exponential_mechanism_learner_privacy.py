"""The exponential-mechanism learner over a finite class is epsilon-DP, checked exactly.

Claim
    Lecture notes (Y.-X. Wang, "DPML I", Sec. 9.1.2; proof in
    docs/theory/learning.rst): for a loss with values in [0, 1], sampling h
    with probability proportional to exp(-eps n R(h) / 2), R the empirical
    risk on n records, is eps-DP for replace-one neighbours.
Setting
    Records are labelled points (x, y), x in {0, 1, 2}, y in {0, 1} (6
    records). Two classes: all 8 labelings of {0, 1, 2} with the 0/1 loss, and
    the 27 "soft" predictors h: {0, 1, 2} -> {0, 1/2, 1} with the loss
    |h(x) - y| in {0, 1/2, 1}. Every replace-one neighbour of every multiset of
    1..3 records (quick: eps in {1, 2}, for the exact law with the risks as
    fractions and for the double-precision law the sampler uses, risks
    errors/n as doubles) or 1..4 records (full: eps in {0.5, 1, 2}, exact
    law) is examined.
Precision
    ``exponential_mechanism_learner_distribution(..., exact=True)`` at 30 and
    70 digits and the float law taken as the exact binary numbers it holds;
    max divergence enclosed in mpmath.iv intervals by
    ``refdp.verify.check_mechanism``; UNDECIDED fails.
Sampler
    A second check draws from ``exponential_mechanism_learner`` (fixed seed)
    and accepts when every output count lies in its exact binomial acceptance
    interval; false-failure rate at most 1e-6 (Bonferroni over outputs).
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np

from proofs_checks.common.sampler_law import inversion_law, sampler_check
from refdp.learning import exponential_mechanism_learner, exponential_mechanism_learner_distribution
from refdp.verify.check import check_mechanism, summarise
from refdp.verify.neighbours import all_datasets, labelled_domain
from refdp.verify.registry import register

XS = (0, 1, 2)
DOMAIN = labelled_domain(XS)
DPS = 30
SEED = 20190
ALPHA = 1e-6  # false-failure rate of the sampler check
COVERS = ("refdp.learning.finite_class.exponential_mechanism_learner",
          "refdp.learning.finite_class.exponential_mechanism_learner_distribution")


def labelings():
    """All 8 hypotheses {0, 1, 2} -> {0, 1}, as tuples of predictions."""
    return list(itertools.product((0, 1), repeat=len(XS)))


def soft_predictors():
    """All 27 hypotheses {0, 1, 2} -> {0, 1/2, 1}."""
    return list(itertools.product((Fraction(0), Fraction(1, 2), Fraction(1)), repeat=len(XS)))


CLASSES = {"labelings, 0/1 loss": labelings(), "soft predictors, |h(x) - y|": soft_predictors()}


def total_losses(hypotheses, dataset):
    """Exact total loss sum_i |h(x_i) - y_i| of every hypothesis."""
    return [sum((abs(Fraction(h[x]) - y) for x, y in dataset), Fraction(0)) for h in hypotheses]


def learner_law(hypotheses, epsilon, *, exact=True, scale=1):
    """Dataset -> law of the learner; ``scale=2`` gives the wrong exp(-eps n R) variant."""

    def dist(dataset, ctx):    # context protocol: the exact law is enclosed in ctx's intervals
        n = len(dataset)
        if exact:
            risks = [t / n for t in total_losses(hypotheses, dataset)]
            return exponential_mechanism_learner_distribution(risks, scale * epsilon, n_samples=n, ctx=ctx)
        risks = np.array([float(t) for t in total_losses(hypotheses, dataset)]) / n
        return inversion_law(exponential_mechanism_learner_distribution(risks, scale * epsilon, n_samples=n))

    return dist


def sweep(max_size, epsilons, exact_kinds=(True, False)):
    """Exact worst-case checks over all replace-one neighbours; returns (results, labels)."""
    datasets = list(all_datasets(DOMAIN, max_size, min_size=1))
    results, labels = [], []
    for eps in epsilons:
        for name, hyps in CLASSES.items():
            for exact in exact_kinds:
                results.append(check_mechanism(learner_law(hyps, eps, exact=exact), datasets, eps,
                                               neighbours="replace", dps=DPS, domain=DOMAIN))
                labels.append(f"eps={eps}, {name}, {'exact' if exact else 'float'} law")
    return results, labels


@register("lecture_notes.exponential_mechanism_learner_privacy_exhaustive",
          "exp(-eps n R(h)/2) over a finite class, loss in [0, 1], is eps-DP (replace-one): exact max "
          "divergence over all neighbours of datasets of 1..3 labelled records, 8 labelings and 27 soft "
          "predictors, eps = 1, exact and float laws (eps in {0.5, 1, 2} and 4 records in the full run)",
          covers=COVERS)
def privacy_quick():
    return summarise(*sweep(3, (1.0,)))


@register("lecture_notes.exponential_mechanism_learner_privacy_exhaustive_full",
          "as lecture_notes.exponential_mechanism_learner_privacy_exhaustive, datasets of 1..4 records, "
          "eps in {0.5, 1, 2}, exact law",
          covers=COVERS, quick=False)
def privacy_full():
    return summarise(*sweep(4, (0.5, 1.0, 2.0), exact_kinds=(True,)))


@register("lecture_notes.exponential_mechanism_learner_sampler_matches_law",
          "exponential_mechanism_learner samples agree with its exact law (exact binomial test, "
          "false-failure rate 1e-6)",
          covers=("refdp.learning.finite_class.exponential_mechanism_learner",))
def sampler():
    risks, n, eps, draws_n = [0.5, 0.25, 0.75, 0.25, 0.0, 1.0], 8, 1.0, 10000
    rng = np.random.default_rng(SEED)
    draws = [exponential_mechanism_learner(risks, eps, n_samples=n, rng=rng) for _ in range(draws_n)]
    probs = exponential_mechanism_learner_distribution(risks, eps, n_samples=n, exact=True, dps=30)
    return sampler_check(draws, probs, ALPHA, SEED, f"risks {risks}, n {n}, eps {eps}")
