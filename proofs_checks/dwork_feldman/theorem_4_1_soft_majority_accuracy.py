"""The soft majority with k = soft_majority_k(eps, alpha, C) errs w.p. <= alpha/2 at good points.

Claim
    (Derived; proof in docs/theory/soft_majority.rst.) With
    k = ceil(4 ln(2 (C - 1) / alpha) / eps) teachers, at every point where at
    most k/4 of the votes are wrong, the soft majority of Dwork & Feldman 2018,
    Theorem 4.1 outputs a wrong label with probability at most alpha/2. For
    C = 2 this is k = ceil(4 ln(2/alpha)/eps); for C > 2 the factor
    C - 1 is needed (the test suite shows the binary k failing for C = 10).
Setting
    Constructed vote patterns: for every (eps, alpha, C) of a grid (quick:
    eps in {0.5, 1, 4}, alpha in {0.05, 0.3}, C in {2, 3, 6}; full: eps in
    {0.25, 0.5, 1, 2, 4}, alpha in {0.01, 0.05, 0.1, 0.3}, C in {2, 3, 4, 6}), every count
    vector with at most floor(k/4) wrong votes, spread over the C - 1 wrong
    classes in every possible way (up to the order of the wrong classes, which
    does not change the error), has its error probability computed from
    :func:`refdp.prediction.soft_majority_probabilities`, enclosed at 20
    digits; every pattern that may be within a relative 1e-15 of the largest
    is then decided exactly. Learned
    example: a SoftMajority of threshold learners trained on realizable data
    (k from the helper); every query point where at most k/4 teachers are wrong
    is checked with :meth:`refdp.prediction.SoftMajority.exact_proba`, and the
    float :meth:`~refdp.prediction.SoftMajority.predict_proba` is checked too.
Precision
    The error probabilities are enclosed in interval arithmetic with outward
    rounding; the largest is compared with alpha/2 by
    ``refdp.verify.decide_leq_interval`` at 30 digits (certified; UNDECIDED
    fails); the float probabilities are compared exactly as the binary
    numbers they are.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np

from refdp.prediction import SoftMajority, soft_majority_k, soft_majority_probabilities
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import ctx_rational, iv_context, mp_context, raw_to_fraction
from refdp.verify.verdict import Verdict, decide_enclosures, decide_leq_interval, lower, upper, worst_verdict

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


def error_probability(counts, epsilon, ctx, probabilities=soft_majority_probabilities):
    """P[output != class 0] for the vote counts, in the mpmath context ``ctx``.

    ``ctx`` is a context (an interval context gives an enclosure) or a number
    of digits (a real context at that precision).
    """
    if isinstance(ctx, int):
        ctx = mp_context(ctx)
    p = probabilities(list(counts), epsilon, ctx=ctx)
    return ctx.fsum(p[1:])


def near_worst_patterns(epsilon, alpha, n_classes):
    """(k, patterns, count): every pattern whose error may be within 1e-15 of the largest.

    The errors are enclosed at 20 digits; a pattern is dropped only when the
    upper end of its enclosure is below ``(1 - 1e-15)`` times the largest
    lower end, so it is certainly below some kept pattern, and deciding the
    kept patterns decides them all.
    """
    k = soft_majority_k(epsilon, alpha, n_classes)
    iv = iv_context(20)
    values = [(error_probability(c, epsilon, iv), c) for c in good_patterns(k, n_classes)]
    top = max(raw_to_fraction(v._mpi_[0]) for v, _ in values)
    near = [c for v, c in values if raw_to_fraction(v._mpi_[1]) >= top * (1 - Fraction(1, 10**15))]
    return k, near, len(values)


def decide_pattern(epsilon, alpha, counts):
    """Decide P_err(counts) <= alpha/2 at DPS digits."""
    half = Fraction(alpha) / 2
    verdict, lhs, rhs = decide_leq_interval(lambda c: error_probability(counts, epsilon, c),
                                            lambda c: ctx_rational(c, half), dps=DPS)
    return verdict, upper(lhs), lower(rhs)


def grid_result(epsilons, alphas, classes):
    """Decide the accuracy claim on every grid point; CheckResult at the point closest to the bound."""
    verdicts, worst, n_patterns = [], None, 0
    for eps, alpha, c in itertools.product(epsilons, alphas, classes):
        k, near, count = near_worst_patterns(eps, alpha, c)
        n_patterns += count
        for pattern in near:
            verdict, lhs, rhs = decide_pattern(eps, alpha, pattern)
            verdicts.append(verdict)
            key = (not verdict.passed, raw_to_fraction(lhs._mpf_) / raw_to_fraction(rhs._mpf_))
            if worst is None or key > worst[0]:
                worst = (key, lhs, rhs,
                         f"eps={eps}, alpha={alpha}, C={c}: k={k}, worst pattern {pattern}, "
                         f"P_err={mpmath.nstr(lhs, 12)} vs alpha/2={mpmath.nstr(rhs, 12)} ({verdict})")
    _, lhs, rhs, text = worst
    return CheckResult(lhs, rhs, worst_verdict(verdicts), DPS,
                       f"{len(epsilons) * len(alphas) * len(classes)} grid points, {n_patterns} vote patterns "
                       f"with <= k/4 wrong votes, {len(verdicts)} decided exactly; closest to the bound "
                       f"(largest P_err/(alpha/2)): {text}", method="certified")


@register("dwork_feldman.soft_majority_accuracy_vote_patterns",
          "with k = soft_majority_k(eps, alpha, C), every vote pattern with at most k/4 wrong votes gives "
          "error probability <= alpha/2 (eps in {0.5, 1, 4}, alpha in {0.05, 0.3}, C in {2, 3, 6}; exact)",
          covers=("refdp.prediction.soft_majority.soft_majority_k",
                  "refdp.prediction.soft_majority.soft_majority_probabilities"))
def accuracy_vote_patterns():
    return grid_result((0.5, 1.0, 4.0), (0.05, 0.3), (2, 3, 6))


@register("dwork_feldman.soft_majority_accuracy_vote_patterns_full",
          "as dwork_feldman.soft_majority_accuracy_vote_patterns on the grid eps in {0.25, 0.5, 1, 2, 4}, "
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
    iv = iv_context(DPS)
    exact = sm.exact_proba(queries[good], ctx=iv)     # enclosures of every good query's law
    floats = sm.predict_proba(queries[good])
    half = Fraction(alpha) / 2
    errors = [1 - exact[j][truth[good[j]]] for j in range(len(good))]
    verdict = worst_verdict(decide_enclosures(e, ctx_rational(iv, half)) for e in errors)
    worst_i = max(range(len(good)), key=lambda j: raw_to_fraction(errors[j]._mpi_[1]))
    i = good[worst_i]
    l_val, r_val = upper(errors[worst_i]), lower(ctx_rational(iv, half))
    float_err = max(Fraction(float(1 - floats[j][truth[good[j]]])) for j in range(len(good)))
    float_ok = float_err <= half
    if not float_ok:
        verdict = Verdict.FAILS
    detail = (f"eps={epsilon}, alpha={alpha}, k={k}, n={n}: {len(good)} of {len(queries)} query points have "
              f"<= k/4 wrong votes; largest exact P_err {mpmath.nstr(l_val, 12)} at x={queries[i, 0]:g} "
              f"(votes {counts[i].tolist()}) vs alpha/2 = {float(half)}; largest float P_err "
              f"{float(float_err):.6g} ({'<=' if float_ok else '>'} alpha/2)")
    return CheckResult(l_val, r_val, verdict, DPS, detail, method="certified")


@register("dwork_feldman.soft_majority_accuracy_learned_example",
          "SoftMajority of threshold learners (k from soft_majority_k): at every query point with at most "
          "k/4 wrong votes, exact_proba and predict_proba give error probability <= alpha/2",
          covers=("refdp.prediction.soft_majority.soft_majority_k",
                  "refdp.prediction.soft_majority.SoftMajority.predict"))
def accuracy_learned_example():
    return learned_example()
