"""The averaged prediction with Laplace noise is epsilon-DP, checked exactly.

Claim
    Dwork & Feldman 2018, Corollary 4.7 with Lemmas 4.5-4.6:
    with v(x) the fraction of the k teachers (trained on the parts of a random
    partition) that predict 1, the bit that is 1 with probability
    p = clip(v(x) + Lap(1/(eps k)), 0, 1) is eps-DP, for replace-one and
    add/remove neighbours, with refdp's partition rule (proof in
    docs/theory/soft_majority.rst).
Setting
    The released bit is 1 with probability g(v) = E[clip(v + Z, 0, 1)], the
    closed form computed by
    :func:`refdp.prediction.clipped_laplace_mean` (its agreement with direct
    numerical integration is checked by
    dwork_feldman_corollary_4_7_averaging_error). The exact output law is the
    mixture of g(n_1/k) over all k**n assignments of records to parts (vote-count
    law from :mod:`proofs_checks.dwork_feldman.partition_votes`, learner
    :class:`proofs_checks.dwork_feldman.partition_votes.PointMajority`, binary labels).
    Every neighbouring pair of datasets (multisets) is examined, pairs with the
    same two vote-count laws decided once. Full sweep: 4 points, every dataset
    of size <= 6, k in {2, 3}, eps in {0.5, 1, 2}, both relations, query at
    the first point (the learner treats all points alike, so one query point
    covers all). Quick sweep: 2 points, size <= 4, eps = 1.
Precision
    Probabilities evaluated at 30 and 70 digits; max divergence over the two
    outputs enclosed in mpmath.iv intervals and decided by
    ``refdp.verify.check_pairs`` (UNDECIDED fails).
Sampler
    AveragedPrediction.predict draws from the exact law g(v): exact binomial
    acceptance intervals, false-failure rate 1e-6.
"""
from __future__ import annotations

import itertools
import time
from fractions import Fraction

import mpmath
import numpy as np

from proofs_checks.dwork_feldman.partition_votes import VoteLaw, representative_pairs
from proofs_checks.common.sampler_law import sampler_check
from refdp.prediction import AveragedPrediction, clipped_laplace_mean
from refdp.utils.precision import mp_context
from refdp.verify.check import check_pairs, summarise
from refdp.verify.neighbours import labelled_domain
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

DPS = 30
ALPHA = 1e-6  # false-failure rate of the sampler check
SEED = 4707


def correct_scale(epsilon, k):
    """Corollary 4.7's Laplace scale 1 / (eps k), exact."""
    return 1 / (Fraction(epsilon) * k)


def bit_law(law, epsilon, k, scale=correct_scale, cache=None, ctx=None):
    """Output law {0: 1 - P1, 1: P1} with P1 = sum_c (F[c]/total) g(c_1 / k).

    Computed in the mpmath context ``ctx`` (an interval context gives
    enclosures; default: a real context at 30 digits).
    """
    ctx = mp_context(DPS) if ctx is None else ctx
    total, items = law
    b = scale(epsilon, k)
    acc = ctx.mpf(0)
    for counts, ways in items:
        key = (counts[1], k, b, type(ctx).__name__, ctx.prec)
        if cache is None or key not in cache:
            g = clipped_laplace_mean(Fraction(counts[1], k), b, ctx=ctx)
            if cache is not None:
                cache[key] = g
        else:
            g = cache[key]
        acc += ways * g
    p1 = acc / total
    return {0: 1 - p1, 1: p1}


def sweep(configs, epsilons, relations=("replace", "add_remove"), ks=(2, 3), scale=correct_scale):
    """Exact checks for every configuration ``(points, max_size)``; returns (results, labels)."""
    results, names = [], []
    cache: dict = {}
    for points, max_size in configs:
        votes = VoteLaw(points, (0, 1))
        domain = labelled_domain(points, (0, 1))
        for k, relation in itertools.product(ks, relations):
            reps, n_pairs = representative_pairs(votes, domain, max_size, k, relation, 0)
            for eps in epsilons:
                def dist(d, ctx, eps=eps, k=k):    # context protocol (certified)
                    return bit_law(votes.law(d, k, 0), eps, k, scale, cache, ctx)

                results.append(check_pairs(
                    dist, reps, eps, dps=DPS,
                    relation=f"{relation}, multisets; {n_pairs} neighbour pairs, "
                             f"{len(reps)} distinct law pairs"))
                names.append(f"points={len(points)}, n<={max_size}, k={k}, eps={eps}, {relation}, "
                             f"query x={points[0]}")
    return results, names


QUICK = (((0, 1), 4),)
FULL = (((0, 1, 2, 3), 6),)


@register("dwork_feldman.averaging_privacy_exhaustive",
          "averaged prediction, bit ~ Bernoulli(clip(v + Lap(1/(eps k)), 0, 1)), is eps-DP "
          "(replace-one and add/remove): exact mixture over all assignments, every neighbour of every "
          "dataset of size <= 4 on 2 points, k in {2, 3}, eps = 1",
          covers=("refdp.prediction.averaging.AveragedPrediction.predict",
                  "refdp.prediction.averaging.clipped_laplace_mean"))
def privacy_quick():
    return summarise(*sweep(QUICK, (1.0,)))


@register("dwork_feldman.averaging_privacy_exhaustive_full",
          "as dwork_feldman.averaging_privacy_exhaustive: 4 points, datasets of size <= 6, eps in {0.5, 1, 2}",
          covers=("refdp.prediction.averaging.AveragedPrediction.predict",
                  "refdp.prediction.averaging.clipped_laplace_mean"),
          quick=False)
def privacy_full():
    return summarise(*sweep(FULL, (0.5, 1.0, 2.0)))


class _Threshold:
    """Learns the smallest point labelled 1 and predicts 1 at and above it."""

    def fit(self, X, y):
        ones = X[y == 1, 0]
        self.t = ones.min() if ones.size else np.inf
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= self.t).astype(np.int64)


@register("dwork_feldman.averaging_predict_law",
          "AveragedPrediction.predict outputs 1 with probability g(v(x)) (k = 8, eps = 0.5, threshold "
          "learner on noisy labels; exact binomial test per query, Bonferroni over queries, "
          "false-failure rate 1e-6)",
          covers=("refdp.prediction.averaging.AveragedPrediction.predict",))
def predict_law():
    k, eps, n_draws = 8, 0.5, 4000
    rng = np.random.default_rng(SEED)
    X = np.arange(48, dtype=float)[:, None]
    y = ((X[:, 0] >= 24) ^ (rng.random(48) < 0.2)).astype(int)
    ap = AveragedPrediction(eps, k, _Threshold, rng=rng).fit(X, y)
    queries = np.array([[0.0], [12.0], [20.0], [24.0], [30.0], [47.0]])
    exact = ap.exact_prob_one(queries, dps=DPS)
    draws = ap.predict(np.repeat(queries, n_draws, axis=0), rng=rng).reshape(len(queries), n_draws)
    votes = ap.vote_counts(queries)[:, 1]
    parts, failing = [], 0
    for j, p1 in enumerate(exact):
        r = sampler_check(draws[j], [1 - p1, p1], ALPHA / len(queries), SEED,
                          f"x = {queries[j, 0]:g}, v = {votes[j]}/{k}")
        failing += not r.verdict.passed
        parts.append(r.detail)
    verdict = Verdict.HOLDS if failing == 0 else Verdict.FAILS
    return CheckResult(failing, 0, verdict, 0,
                       f"{len(queries)} queries x {n_draws} draws, queries failing: {failing}; "
                       + " | ".join(parts), method="statistical")


if __name__ == "__main__":  # pragma: no cover - timing aid
    for fn in (privacy_quick, privacy_full, predict_law):
        t0 = time.perf_counter()
        r = fn()
        print(fn.__name__, r.verdict, r.measured, f"{time.perf_counter() - t0:.1f}s")
        print(r.detail[:800])
