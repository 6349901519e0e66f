"""LNMax labels are (2 gamma, 0)-DP per query, and refdp's samplers draw from the exact law.

Claim
    (1) Papernot et al. 2017, Sec. 2.1 / Theorem 2: the law of
    ``argmax_j (n_j + Lap(1/gamma))`` on two vote vectors that differ by one
    vote moved between two classes has max divergence at most 2 gamma. Checked
    exactly on every pair of count vectors of T <= 4 teachers over C <= 3
    classes (quick; T <= 5, C <= 4 in the full run), gamma in {0.25, 1}.
    (2) ``refdp.pate.lnmax_labels`` and ``refdp.pate.PATETeachers.noisy_labels``
    with ``secure=False`` (the textbook path; the default ``secure=True`` is
    checked in ``pate_lnmax_secure_privacy.py``) draw from that exact law: counts of seeded draws lie in their exact
    binomial acceptance intervals (false-failure rate 1e-6 per
    configuration, 3e-6 for the check).
    (3) The teachers' partition meets the privacy precondition: on tiny data,
    every replace-one neighbour (same seed) changes the training part of
    exactly one teacher; with group keys, changing the records of one group
    (keeping its key) or removing the group changes exactly one teacher's part.
Precision
    (1) ``report_noisy_max_distribution(exact=True)`` at 30 and 70 digits, max
    divergence enclosed in mpmath.iv (``refdp.verify.check_pairs``); UNDECIDED
    fails. (2) exact binomial tails (scipy). (3) exact integer comparison.
"""
from __future__ import annotations

import itertools
import warnings

import mpmath
import numpy as np

from proofs_checks.pate.reference import neighbours
from proofs_checks.common.sampler_law import sampler_check
from refdp.mechanisms import report_noisy_max_distribution
from refdp.pate import PATETeachers, lnmax_labels
from refdp.verify.check import check_pairs, summarise
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

DPS = 30
SEED = 20170
ALPHA = 1e-6


def compositions(total, parts):
    """Every count vector of ``parts`` non-negative ints summing to ``total``."""
    for cut in itertools.combinations(range(total + parts - 1), parts - 1):
        prev, out = -1, []
        for c in cut + (total + parts - 1,):
            out.append(c - prev - 1)
            prev = c
        yield tuple(out)


def law_fn(gamma):
    def dist(counts, ctx):    # context protocol: enclosures in the checker's interval context
        return report_noisy_max_distribution(list(counts), 2.0 * gamma, ctx=ctx)
    return dist


def privacy(max_teachers, max_classes):
    results, labels = [], []
    for gamma in (0.25, 1.0):
        for c in range(2, max_classes + 1):
            for t in range(1, max_teachers + 1):
                pairs = [(n, tuple(m)) for n in compositions(t, c) for m in neighbours(n)]
                results.append(check_pairs(law_fn(gamma), pairs, 2.0 * gamma, dps=DPS,
                                           relation="one vote moved"))
                labels.append(f"gamma={gamma}, C={c}, T={t}")
    return summarise(results, labels)


@register("pate.lnmax_labels_privacy_exhaustive",
          "LNMax law max divergence <= 2 gamma for every pair of vote vectors one vote apart "
          "(T <= 4, C <= 3, gamma in {0.25, 1})",
          covers=("refdp.pate.lnmax_labels", "refdp.pate.lnmax_distribution",
                  "refdp.pate.PATETeachers.noisy_labels"))
def privacy_quick():
    return privacy(4, 3)


@register("pate.lnmax_labels_privacy_exhaustive_full",
          "as pate.lnmax_labels_privacy_exhaustive with T <= 5, C <= 4",
          covers=("refdp.pate.lnmax_labels",), quick=False)
def privacy_full():
    return privacy(5, 4)


class _Nearest:
    """Deterministic 1-nearest-neighbour teacher (ties: lowest index)."""

    def fit(self, X, y):
        self.X_, self.y_ = np.asarray(X, float), np.asarray(y)
        return self

    def predict(self, X):
        d = np.abs(np.asarray(X, float)[:, None, 0] - self.X_[None, :, 0])
        return self.y_[np.argmin(d, axis=1)]


@register("pate.lnmax_samplers_match_law",
          "lnmax_labels and PATETeachers.noisy_labels draws with secure=False follow the exact LNMax law "
          "of continuous Laplace noise (exact binomial test, false-failure rate 3e-6)",
          covers=("refdp.pate.lnmax_labels", "refdp.pate.PATETeachers.noisy_labels"))
def samplers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # the textbook path's TextbookNoiseWarning
        return _samplers()


def _samplers():
    rng = np.random.default_rng(SEED)
    parts = []
    for counts, gamma in (([6, 5, 3, 0], 0.5), ([20, 18, 1, 1], 0.1)):
        n = 100_000
        draws = lnmax_labels(np.tile(counts, (n, 1)), gamma, rng=rng, secure=False)
        probs = report_noisy_max_distribution(counts, 2.0 * gamma, exact=True, dps=30)
        parts.append(sampler_check(draws, probs, ALPHA, SEED, f"lnmax_labels counts {counts}, gamma {gamma}"))
    # through an ensemble: 12 teachers on 36 labelled points, one query point
    X = np.linspace(0.0, 1.0, 36)[:, None]
    y = (np.arange(36) % 3)
    ens = PATETeachers(12, _Nearest, classes=3, rng=SEED).fit(X, y)
    xq = np.array([[0.5]])
    counts = ens.vote_counts(xq)[0].tolist()
    n = 60_000
    draws = ens.noisy_labels(np.repeat(xq, n, axis=0), 0.5, rng=rng, secure=False)
    probs = report_noisy_max_distribution(counts, 1.0, exact=True, dps=30)
    parts.append(sampler_check(draws, probs, ALPHA, SEED, f"PATETeachers.noisy_labels counts {counts}"))
    verdict = worst_verdict(p.verdict for p in parts)
    return CheckResult(sum(p.measured for p in parts), 0, verdict, 0, " | ".join(p.detail for p in parts), method="statistical")


@register("pate.teachers_partition_changes_one_teacher",
          "replacing one record, or changing or removing one group's records, changes exactly one "
          "teacher's part",
          covers=("refdp.pate.PATETeachers.noisy_labels",))
def partition():
    rng = np.random.default_rng(SEED)
    bad, checked = 0, 0
    for n, k in ((6, 3), (7, 2), (5, 5)):
        X = rng.normal(size=(n, 1))
        y = rng.integers(0, 2, n)
        base = PATETeachers(k, _Nearest, rng=11).fit(X, y)
        for i in range(n):
            for new_x, new_y in ((9.0, 0), (-9.0, 1)):
                X2, y2 = X.copy(), y.copy()
                X2[i, 0], y2[i] = new_x, new_y
                other = PATETeachers(k, _Nearest, rng=11).fit(X2, y2)
                changed = sum(
                    not (np.array_equal(X[base.assignment_ == j], X2[other.assignment_ == j])
                         and np.array_equal(y[base.assignment_ == j], y2[other.assignment_ == j]))
                    for j in range(k))
                checked += 1
                bad += changed != 1
    groups = np.array([3, 3, 7, 7, 7, 1, 5, 5])
    X = rng.normal(size=(8, 1))
    y = rng.integers(0, 2, 8)
    base = PATETeachers(3, _Nearest, rng=5).fit(X, y, groups=groups)

    def parts(ens, Xa, ya, key):
        return [sorted(zip(Xa[ens.assignment_ == j, 0].tolist(), ya[ens.assignment_ == j].tolist(),
                           key[ens.assignment_ == j].tolist())) for j in range(3)]

    before = parts(base, X, y, groups)
    for g in np.unique(groups):
        sel = groups == g
        # the group's records changed, its key kept
        X2, y2 = X.copy(), y.copy()
        X2[sel, 0] = 9.0
        y2[sel] = 1 - y2[sel]
        other = PATETeachers(3, _Nearest, rng=5).fit(X2, y2, groups=groups)
        changed = sum(a != b for a, b in zip(before, parts(other, X2, y2, groups)))
        checked += 1
        bad += changed != 1
        # the group removed
        keep = ~sel
        other = PATETeachers(3, _Nearest, rng=5).fit(X[keep], y[keep], groups=groups[keep])
        changed = sum(a != b for a, b in zip(before, parts(other, X[keep], y[keep], groups[keep])))
        checked += 1
        bad += changed != 1
    verdict = Verdict.HOLDS if bad == 0 else Verdict.FAILS
    return CheckResult(bad, 0, verdict, 0,
                       f"{checked} neighbouring datasets (one record replaced; one group's records changed "
                       f"or removed); neighbours whose teachers' parts differ in other than one teacher: {bad}", method="certified")
