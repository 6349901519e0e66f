"""The soft majority with k = soft_majority_k(eps, alpha, C) errs w.p. <= alpha/2 at good points.

Claim
    (SPEC section 2, derived; proof in docs/theory/soft_majority.rst.) With
    k = ceil(4 ln(2 (C - 1) / alpha) / eps) teachers, at every point where at
    most k/4 of the votes are wrong, the soft majority of Dwork & Feldman 2018,
    Theorem 4.1 outputs a wrong label with probability at most alpha/2. For
    C = 2 this is SPEC's k = ceil(4 ln(2/alpha)/eps); for C > 2 the factor
    C - 1 is needed (the test suite shows the binary k failing for C = 10).
Setting
    Constructed vote patterns: for every (eps, alpha, C) of a grid (quick:
    eps in {0.5, 1, 4}, alpha in {0.05, 0.3}, C in {2, 3, 6}; full: eps in
    {0.25, 0.5, 1, 2, 4}, alpha in {0.01, 0.05, 0.1, 0.3}, C in {2, 3, 4, 6}), every count
    vector with at most floor(k/4) wrong votes, spread over the C - 1 wrong
    classes in every possible way (up to the order of the wrong classes, which
    does not change the error), has its error probability computed from
    :func:`refdp.prediction.soft_majority_probabilities` at 20 digits; every
    pattern within a relative 1e-15 of the largest is then decided exactly. Learned
    example: a SoftMajority of threshold learners trained on realizable data
    (k from the helper); every query point where at most k/4 teachers are wrong
    is checked with :meth:`refdp.prediction.SoftMajority.exact_proba`, and the
    float :meth:`~refdp.prediction.SoftMajority.predict_proba` is checked too.
Precision
    The largest error probability is compared with alpha/2 by
    ``refdp.verify.decide_leq`` at 30 and 70 digits (UNDECIDED fails); the float
    probabilities are compared exactly as the binary numbers they are.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np

from refdp.prediction import SoftMajority, soft_majority_k, soft_majority_probabilities
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_leq, worst_verdict

DPS = 30
EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)
ALPHAS = (0.01, 0.05, 0.1, 0.3)
CLASSES = (2, 3, 4, 6)


def partitions(total, parts, largest=None):
    """Non-increasing tuples of ``parts`` non-negative ints summing to ``total``."""
    largest = total if largest is None else largest
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(min(total, largest), -1, -1):
        if first * parts < total:
            break
        for rest in partitions(total - first, parts - 1, first):
            yield (first,) + rest


def good_patterns(k, n_classes):
    """Count vectors with class 0 correct and at most floor(k/4) wrong votes (up to symmetry)."""
    for wrong in range(k // 4 + 1):
        for spread in partitions(wrong, n_classes - 1):
            yield (k - wrong,) + spread


def error_probability(counts, epsilon, dps, probabilities=soft_majority_probabilities):
    """P[output != class 0] for the vote counts, exact at ``dps`` digits."""
    p = probabilities(list(counts), epsilon, exact=True, dps=dps)
    return mpmath.fsum(p[1:])


def near_worst_patterns(epsilon, alpha, n_classes):
    """(k, patterns, count): the patterns whose 20-digit error is within 1e-15 of the largest.

    Deciding all of them exactly (rather than only the argmax) keeps a
    rounding tie at 20 digits from hiding the true worst pattern.
    """
    k = soft_majority_k(epsilon, alpha, n_classes)
    with mpmath.workdps(20):
        values = [(error_probability(c, epsilon, 20), c) for c in good_patterns(k, n_classes)]
        top = max(v for v, _ in values)
        near = [c for v, c in values if v >= top * (1 - mpmath.mpf("1e-15"))]
    return k, near, len(values)


def decide_pattern(epsilon, alpha, counts):
    """Decide P_err(counts) <= alpha/2 at DPS digits."""
    half = Fraction(alpha) / 2
    return decide_leq(lambda: error_probability(counts, epsilon, mpmath.mp.dps),
                      lambda: mpmath.mpf(half.numerator) / half.denominator, dps=DPS)


def grid_result(epsilons, alphas, classes):
    """Decide the accuracy claim on every grid point; CheckResult at the point closest to the bound."""
    verdicts, worst, n_patterns = [], None, 0
    for eps, alpha, c in itertools.product(epsilons, alphas, classes):
        k, near, count = near_worst_patterns(eps, alpha, c)
        n_patterns += count
        for pattern in near:
            verdict, lhs, rhs = decide_pattern(eps, alpha, pattern)
            verdicts.append(verdict)
            key = (not verdict.passed, lhs / rhs)
            if worst is None or key > worst[0]:
                worst = (key, lhs, rhs,
                         f"eps={eps}, alpha={alpha}, C={c}: k={k}, worst pattern {pattern}, "
                         f"P_err={mpmath.nstr(lhs, 12)} vs alpha/2={mpmath.nstr(rhs, 12)} ({verdict})")
    _, lhs, rhs, text = worst
    return CheckResult(lhs, rhs, worst_verdict(verdicts), DPS,
                       f"{len(epsilons) * len(alphas) * len(classes)} grid points, {n_patterns} vote patterns "
                       f"with <= k/4 wrong votes, {len(verdicts)} decided exactly; closest to the bound "
                       f"(largest P_err/(alpha/2)): {text}", method="estimated")


@register("soft_majority.accuracy_vote_patterns",
          "with k = soft_majority_k(eps, alpha, C), every vote pattern with at most k/4 wrong votes gives "
          "error probability <= alpha/2 (eps in {0.5, 1, 4}, alpha in {0.05, 0.3}, C in {2, 3, 6}; exact)",
          covers=("refdp.prediction.soft_majority.soft_majority_k",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"))
def accuracy_vote_patterns():
    return grid_result((0.5, 1.0, 4.0), (0.05, 0.3), (2, 3, 6))


@register("soft_majority.accuracy_vote_patterns_full",
          "as soft_majority.accuracy_vote_patterns on the grid eps in {0.25, 0.5, 1, 2, 4}, "
          "alpha in {0.01, 0.05, 0.1, 0.3}, C in {2, 3, 4, 6}",
          covers=("refdp.prediction.soft_majority.soft_majority_k",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"),
          quick=False)
def accuracy_vote_patterns_full():
    return grid_result(EPSILONS, ALPHAS, CLASSES)


class Threshold:
    """Realizable 1-D thresholds: predicts 1 at and above the smallest point labelled 1."""

    def fit(self, X, y):
        ones = X[y == 1, 0]
        self.t = ones.min() if ones.size else np.inf
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= self.t).astype(np.int64)


def learned_example(epsilon=1.0, alpha=0.05, n=600, seed=41):
    """SoftMajority of thresholds on y = [x >= 0.3]; checks every good query point."""
    rng = np.random.default_rng(seed)
    k = soft_majority_k(epsilon, alpha)
    X = rng.random((n, 1))
    y = (X[:, 0] >= 0.3).astype(int)
    sm = SoftMajority(epsilon, k, Threshold, rng=rng).fit(X, y)
    queries = np.linspace(0, 1, 201)[:, None]
    truth = (queries[:, 0] >= 0.3).astype(int)
    counts = sm.vote_counts(queries)
    wrong = k - counts[np.arange(len(truth)), truth]
    good = np.flatnonzero(4 * wrong <= k)
    exact = sm.exact_proba(queries[good], dps=DPS)
    floats = sm.predict_proba(queries[good])
    half = Fraction(alpha) / 2
    worst_i = max(range(len(good)), key=lambda i: 1 - exact[i][truth[good[i]]])
    i = good[worst_i]

    def lhs():
        return 1 - sm.exact_proba(queries[i:i + 1], dps=mpmath.mp.dps)[0][truth[i]]

    verdict, l_val, r_val = decide_leq(lhs, lambda: mpmath.mpf(half.numerator) / half.denominator, dps=DPS)
    float_err = max(Fraction(float(1 - floats[j][truth[good[j]]])) for j in range(len(good)))
    float_ok = float_err <= half
    if not float_ok:
        verdict = Verdict.FAILS
    detail = (f"eps={epsilon}, alpha={alpha}, k={k}, n={n}: {len(good)} of {len(queries)} query points have "
              f"<= k/4 wrong votes; largest exact P_err {mpmath.nstr(l_val, 12)} at x={queries[i, 0]:g} "
              f"(votes {counts[i].tolist()}) vs alpha/2 = {float(half)}; largest float P_err "
              f"{float(float_err):.6g} ({'<=' if float_ok else '>'} alpha/2)")
    return CheckResult(l_val, r_val, verdict, DPS, detail, method="estimated")


@register("soft_majority.accuracy_learned_example",
          "SoftMajority of threshold learners (k from soft_majority_k): at every query point with at most "
          "k/4 wrong votes, exact_proba and predict_proba give error probability <= alpha/2",
          covers=("refdp.prediction.soft_majority.soft_majority_k",
                  "refdp.prediction.soft_majority.SoftMajority.predict"))
def accuracy_learned_example():
    return learned_example()
