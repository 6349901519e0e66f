"""The soft majority of teachers on a random partition is epsilon-DP for every epsilon > 0, proved exactly.

Claim
    Dwork & Feldman 2018, Theorem 4.1, with refdp's partition rule (proof in
    docs/theory/soft_majority.rst): answering with label y with probability
    exp(eps n_y / 2) / sum_y' exp(eps n_y' / 2)
    (``refdp.prediction.soft_majority_probabilities``), n_y the votes of the
    teachers trained on the k parts of a random partition, is eps-DP for
    replace-one and add/remove neighbours.
Setting
    As dwork_feldman.soft_majority_privacy_exhaustive: the exact mixture over all k**n
    assignments of records to parts (vote-count law from
    :mod:`proofs_checks.dwork_feldman.partition_votes`, the library's teacher training,
    learner PointMajority), binary labels on 2 points with datasets of size
    <= 3 and three classes on 2 points with size <= 2 (quick; full: <= 4 and
    <= 3), k in {2, 3}, both
    relations, query at the first point. The law is written in
    t = e^(eps/2) (m = 2): P[y] = sum_c F(c) t^(c_y) / sum_y' t^(c_y').
Precision
    Exact, for every epsilon at once: ``refdp.verify.prove_for_all_epsilon``
    (real-root isolation over QQ; docs/theory/algebraic_verdicts.rst). The
    classic exp(eps n_y) fails; the test suite checks that.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

from proofs_checks.dwork_feldman.partition_votes import VoteLaw, representative_neighbours, representative_pairs
from refdp.verify.algebraic import prove_for_all_epsilon, summarise_proofs
from refdp.verify.neighbours import labelled_domain
from refdp.verify.registry import register

QUICK = (((0, 1), (0, 1), 3), ((0, 1), (0, 1, 2), 2))
FULL = (((0, 1), (0, 1), 4), ((0, 1), (0, 1, 2), 3))
KS = (2, 3)
RELATIONS = ("replace", "add_remove")


def law(votes, k, q, power=1):
    """The mixture law in t = e^(eps/2); ``power=2`` is exp(eps n_y)."""

    def soft_majority(dataset, t):
        total, items = votes.law(dataset, k, q)
        acc = [0] * votes.n_classes
        for counts, ways in items:
            weights = [t ** (power * c) for c in counts]
            z = sum(weights)
            for y, w in enumerate(weights):
                acc[y] += Fraction(ways, total) * w / z
        return acc

    return soft_majority


def proofs(configs=QUICK, power=1):
    results, labels = [], []
    for points, labels_, max_size in configs:
        votes = VoteLaw(points, range(len(labels_)))
        domain = labelled_domain(points, labels_)
        for k, relation in itertools.product(KS, RELATIONS):
            q = 0
            reps, n_pairs = representative_pairs(votes, domain, max_size, k, relation, q)
            results.append(prove_for_all_epsilon(law(votes, k, q, power), [d for d, _ in reps], m=2,
                                                 neighbours=representative_neighbours(reps, relation)))
            labels.append(f"C={len(labels_)}, n<={max_size}, k={k}, {relation}: {n_pairs} neighbour pairs, "
                          f"{len(reps)} distinct law pairs")
    return results, labels


@register("dwork_feldman.soft_majority_all_epsilon",
          "soft majority exp(eps n_y/2) on a random partition is eps-DP for every eps > 0 (replace-one and "
          "add/remove; binary labels n <= 3, 3 classes n <= 2, k in {2, 3}; exact: root isolation)",
          covers=("refdp.prediction.soft_majority.SoftMajority.predict",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"))
def all_epsilon():
    return summarise_proofs(*proofs())


@register("dwork_feldman.soft_majority_all_epsilon_full",
          "as dwork_feldman.soft_majority_all_epsilon, binary labels n <= 4, 3 classes n <= 3",
          covers=("refdp.prediction.soft_majority.SoftMajority.predict",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"),
          quick=False)
def all_epsilon_full():
    return summarise_proofs(*proofs(FULL))
