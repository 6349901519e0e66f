"""The soft majority of teachers on a random partition is epsilon-DP, checked exactly.

Claim
    Dwork & Feldman 2018, Theorem 4.1: answering a query with
    label y with probability proportional to exp(eps n_y / 2), where n_y counts
    the teachers trained on the k parts of a random partition that predict y,
    is eps-DP, for replace-one and for add/remove neighbours, with refdp's
    partition rule (each record independently uniform over the k parts; proof
    in docs/theory/soft_majority.rst).
Setting
    The exact output law is the mixture over all k**n assignments of records
    to parts (not a worst case over assignments): the law of the vote counts
    is computed in exact integers by :mod:`proofs_checks.dwork_feldman.partition_votes`
    with the library's teacher training, and each count vector's output law
    by :func:`refdp.prediction.soft_majority_probabilities` (exact). The
    learner is :class:`proofs_checks.dwork_feldman.partition_votes.PointMajority`. Every
    neighbouring pair of datasets (multisets) is examined; pairs whose two
    vote-count laws coincide with those of an earlier pair are decided once
    (the output law is a function of the vote-count law). Full sweep: binary
    labels on 4 points, every dataset of size <= 6; three classes on 2 points,
    size <= 5; k in {2, 3}; eps in {0.5, 1, 2}; both relations; query at the
    first point (PointMajority treats all points alike, so renaming points
    carries the check to every query point). Quick sweep: 2 points, size <= 4
    (binary) and <= 3 (three classes), eps = 1.
    The same sweep run with exp(eps n_y) (the classic 2 eps error) fails; the
    test suite checks that.
Precision
    Probabilities evaluated at 30 and 70 digits; the max divergence of every
    pair is enclosed in mpmath.iv intervals and decided by
    ``refdp.verify.check_pairs`` (UNDECIDED fails).
Sampler
    Two further checks: the partition rule draws the uniform law on
    assignments, and SoftMajority's fit-and-predict, repeated with fresh
    partitions, follows the exact mixture law (exact binomial acceptance
    intervals, false-failure rate 1e-6 each).
"""
from __future__ import annotations

import itertools
import time
from fractions import Fraction

import mpmath
import numpy as np

from proofs_checks.dwork_feldman.partition_votes import PointMajority, VoteLaw, representative_pairs
from proofs_checks.common.sampler_law import sampler_check
from refdp.prediction import SoftMajority, soft_majority_probabilities
from refdp.utils.partition import random_partition
from refdp.utils.precision import mp_context
from refdp.verify.check import check_pairs, summarise
from refdp.verify.neighbours import labelled_domain
from refdp.verify.registry import register

DPS = 30
ALPHA = 1e-6  # false-failure rate of each sampler check
SEED = 4101


def correct_probabilities(counts, epsilon, ctx):
    """Theorem 4.1's law exp(eps n_y / 2) / Z (the library's function, in the context ``ctx``)."""
    return soft_majority_probabilities(list(counts), epsilon, ctx=ctx)


def mixture(law, epsilon, probabilities=correct_probabilities, cache=None, ctx=None):
    """Output law {class index: P} given the vote-count law ``(total, items)``.

    ``P[y] = sum_c (F[c] / total) * probabilities(c)[y]`` in the mpmath
    context ``ctx`` (an interval context gives enclosures; default: a real
    context at 30 digits); ``cache`` (a dict) memoises ``probabilities`` per
    count vector and context precision.
    """
    ctx = mp_context(DPS) if ctx is None else ctx
    total, items = law
    n_classes = len(items[0][0])
    acc = [ctx.mpf(0)] * n_classes
    for counts, ways in items:
        key = (counts, epsilon, type(ctx).__name__, ctx.prec)
        if cache is None or key not in cache:
            p = probabilities(counts, epsilon, ctx)
            if cache is not None:
                cache[key] = p
        else:
            p = cache[key]
        for y in range(n_classes):
            acc[y] += ways * p[y]
    return {y: acc[y] / total for y in range(n_classes)}


def sweep(configs, epsilons, relations=("replace", "add_remove"), ks=(2, 3), queries=None,
          probabilities=correct_probabilities):
    """Exact checks for every configuration ``(points, labels, max_size)``; returns (results, labels).

    ``queries`` (default: the first point only) are the query points checked.
    PointMajority treats all points alike, so renaming the points maps the
    mechanism at query x on D to the mechanism at query pi(x) on pi(D) and
    neighbours to neighbours: one query point covers them all.
    """
    results, names = [], []
    cache: dict = {}
    for points, labels, max_size in configs:
        votes = VoteLaw(points, range(len(labels)))
        domain = labelled_domain(points, labels)
        for x, k, relation in itertools.product(queries or points[:1], ks, relations):
            q = votes.queries.index(x)
            reps, n_pairs = representative_pairs(votes, domain, max_size, k, relation, q)
            for eps in epsilons:
                def dist(d, ctx, eps=eps, k=k, q=q):    # context protocol (certified)
                    return mixture(votes.law(d, k, q), eps, probabilities, cache, ctx)

                results.append(check_pairs(
                    dist, reps, eps, dps=DPS,
                    relation=f"{relation}, multisets; {n_pairs} neighbour pairs, "
                             f"{len(reps)} distinct law pairs"))
                names.append(f"C={len(labels)}, points={len(points)}, n<={max_size}, k={k}, eps={eps}, "
                             f"{relation}, query x={x}")
    return results, names


QUICK = (((0, 1), (0, 1), 4), ((0, 1), (0, 1, 2), 3))
FULL = (((0, 1, 2, 3), (0, 1), 6), ((0, 1), (0, 1, 2), 5))


@register("dwork_feldman.soft_majority_privacy_exhaustive",
          "soft majority exp(eps n_y/2) on a random partition is eps-DP (replace-one and add/remove): "
          "exact mixture over all assignments, every neighbour of every dataset of size <= 4 (binary) "
          "or <= 3 (3 classes) on 2 points, k in {2, 3}, eps = 1",
          covers=("refdp.prediction.soft_majority.SoftMajority.predict",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"))
def privacy_quick():
    return summarise(*sweep(QUICK, (1.0,)))


@register("dwork_feldman.soft_majority_privacy_exhaustive_full",
          "as dwork_feldman.soft_majority_privacy_exhaustive: binary labels on 4 points with datasets of size <= 6, "
          "3 classes on 2 points with size <= 5, eps in {0.5, 1, 2}, every query point",
          covers=("refdp.prediction.soft_majority.SoftMajority.predict",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"),
          quick=False)
def privacy_full():
    return summarise(*sweep(FULL, (0.5, 1.0, 2.0)))


@register("dwork_feldman.soft_majority_partition_law",
          "random_partition assigns records independently and uniformly: the joint law of the "
          "assignment of 3 records to 3 parts is uniform on the 27 assignments (exact binomial test, "
          "false-failure rate 1e-6)",
          covers=("refdp.prediction.soft_majority.SoftMajority.predict",))
def partition_law():
    rng = np.random.default_rng(SEED)
    draws = [int(a @ np.array([9, 3, 1])) for a in (random_partition(3, 3, rng) for _ in range(27000))]
    return sampler_check(draws, [Fraction(1, 27)] * 27, ALPHA, SEED, "n = 3 records, k = 3 parts")


@register("dwork_feldman.soft_majority_fit_predict_law",
          "SoftMajority fit + predict, repeated with fresh partitions, follows the exact mixture law "
          "(PointMajority learner, k = 3, eps = 1; exact binomial test, false-failure rate 1e-6)",
          covers=("refdp.prediction.soft_majority.SoftMajority.predict",))
def fit_predict_law():
    data = ((0, 1), (0, 1), (0, 0), (1, 2), (1, 0))
    k, eps, query, n_draws = 3, 1.0, 0, 3000
    votes = VoteLaw((0, 1), (0, 1, 2))
    probs = mixture(votes.law(data, k, 0), eps)
    X = np.array([[float(r[0])] for r in data])
    y = np.array([r[1] for r in data])
    rng = np.random.default_rng(SEED)
    draws = []
    sm = SoftMajority(eps, k, PointMajority, classes=3, rng=rng)
    for _ in range(n_draws):
        sm.fit(X, y)  # a fresh partition from the same stream at every call
        draws.append(int(sm.predict([[float(query)]], rng=rng)[0]))
    return sampler_check(draws, [probs[j] for j in range(3)], ALPHA, SEED,
                         f"dataset {data}, query x = {query}, k = {k}, eps = {eps}")


if __name__ == "__main__":  # pragma: no cover - timing aid
    for fn in (privacy_quick, privacy_full):
        t0 = time.perf_counter()
        r = fn()
        print(fn.__name__, r.verdict, mpmath.nstr(r.measured, 12), f"{time.perf_counter() - t0:.1f}s")
        print(r.detail)
