"""Exhaustive sweep shared by the checks of mechanisms that select a histogram cell.

The exponential mechanism and report-noisy-max are both checked on the same
family: datasets are multisets over ``range(m)``, the candidates are the
domain elements and the scores are the histogram counts (sensitivity 1).
Replace-one moves one count down and another up (general scale,
``monotone=False``); add/remove moves one count (``monotone=True``).
"""
from __future__ import annotations

import mpmath

from refdp.verify.check import check_mechanism
from refdp.verify.neighbours import all_datasets

DPS = 30


def histogram_law(distribution, m, epsilon, monotone):
    """(dataset, ctx) -> law of ``distribution(scores, epsilon, ...)`` on its histogram over range(m).

    Follows the context protocol of :func:`refdp.verify.check_mechanism`: the
    law is computed in the interval context ``ctx`` the checker gives, so its
    probabilities are rigorous enclosures and the verdicts certified.
    """

    def dist(dataset, ctx):
        scores = [dataset.count(h) for h in range(m)]
        return distribution(scores, epsilon, monotone=monotone, ctx=ctx)

    return dist


def sweep(distribution, max_size, epsilons, domain_sizes=(1, 2, 3, 4)):
    """Exact worst-case checks over all neighbours; returns (results, labels)."""
    results, labels = [], []
    for eps in epsilons:
        for m in domain_sizes:
            datasets = list(all_datasets(range(m), max_size))
            relations = (("add_remove", True),) if m == 1 else (("replace", False), ("add_remove", True))
            for relation, monotone in relations:
                results.append(check_mechanism(histogram_law(distribution, m, eps, monotone), datasets,
                                               eps, neighbours=relation, dps=DPS, domain=range(m)))
                labels.append(f"eps={eps}, m={m}, {relation}, monotone={monotone}")
    return results, labels
