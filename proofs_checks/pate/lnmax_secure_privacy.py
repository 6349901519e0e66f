"""The float-safe LNMax label (lnmax_labels(..., secure=True)) is (2 gamma)-DP, and the sampler follows its law.

Claim
    Report-noisy-max on the integer vote counts with exact discrete Laplace
    noise of scale t (``1/gamma`` rounded up to a 48-bit dyadic rational) and
    lowest-index ties is (2 gamma)-DP when one changed record moves one vote
    (docs/theory/secure_noise.rst, Theorem 5).
Setting
    Vote histograms of T <= 4 teachers over C <= 4 classes; neighbours move
    one vote (replace-one on the multiset of votes); gamma in {0.5, 1}.
    The exact law is ``discrete_argmax_law`` (closed-form geometric sums).
Precision
    Max divergence enclosed in interval arithmetic by
    ``refdp.verify.check_mechanism`` at 30 digits (certified; UNDECIDED
    fails). The sampler check is an exact binomial test per output with a
    false-failure rate of at most 1e-6 per vote vector (Bonferroni), 4e-6 in
    all; the fourth vector is drawn through ``PATETeachers.noisy_labels`` with
    its default (secure) noise.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from proofs_checks.common.sampler_law import sampler_check
from refdp.utils.precision import mp_context
from refdp.mechanisms.discrete_argmax import discrete_argmax_law
from refdp.utils.rounding import up_dyadic
from refdp.pate import PATETeachers, lnmax_labels
from refdp.verify.check import check_mechanism, summarise
from refdp.verify.neighbours import all_datasets
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import worst_verdict

DPS = 30
SEED = 20172
ALPHA = 1e-6


class _Nearest:
    """Deterministic 1-nearest-neighbour teacher (ties: lowest index)."""

    def fit(self, X, y):
        self.X_, self.y_ = np.asarray(X, float), np.asarray(y)
        return self

    def predict(self, X):
        d = np.abs(np.asarray(X, float)[:, None, 0] - self.X_[None, :, 0])
        return self.y_[np.argmin(d, axis=1)]


def _law(classes, gamma):
    t = up_dyadic(1 / Fraction(gamma))

    def dist(dataset, ctx):
        return discrete_argmax_law([dataset.count(h) for h in range(classes)], t, ctx)

    return dist


@register("pate.lnmax_secure_privacy_exhaustive",
          "lnmax_labels(secure=True) is (2 gamma)-DP: exact max divergence of its discrete law over every "
          "vote histogram of <= 4 teachers, <= 4 classes, one vote moved, gamma in {0.5, 1}",
          covers=("refdp.pate.lnmax_labels",))
def privacy():
    results, labels = [], []
    for gamma in (0.5, 1.0):
        for classes in (2, 3, 4):
            datasets = [d for d in all_datasets(range(classes), 4) if len(d) >= 1]
            results.append(check_mechanism(_law(classes, gamma), datasets, 2 * gamma, neighbours="replace",
                                           dps=DPS, domain=range(classes)))
            labels.append(f"gamma={gamma}, C={classes}, replace")
    return summarise(results, labels)


@register("pate.lnmax_secure_sampler_matches_law",
          "lnmax_labels(secure=True) and PATETeachers.noisy_labels (default) samples agree with the exact "
          "discrete law (exact binomial test, false-failure rate 4e-6)",
          covers=("refdp.pate.lnmax_labels", "refdp.pate.PATETeachers.noisy_labels"))
def sampler():
    rng = np.random.default_rng(SEED)
    parts, n = [], 100_000
    for counts, gamma in (([5, 5, 1], 0.5), ([10, 8, 7, 0], 0.3), ([3, 4], 2.0)):
        draws = lnmax_labels(np.tile(counts, (n, 1)), gamma, rng=rng, secure=True)
        probs = discrete_argmax_law(counts, up_dyadic(1 / Fraction(gamma)), mp_context(DPS))
        parts.append(sampler_check(draws, probs, ALPHA, SEED, f"counts {counts}, gamma {gamma}, secure"))
    # the ensemble's default: 12 teachers on 36 labelled points, one query point
    X = np.linspace(0.0, 1.0, 36)[:, None]
    ens = PATETeachers(12, _Nearest, classes=3, rng=SEED).fit(X, np.arange(36) % 3)
    xq = np.array([[0.5]])
    counts = ens.vote_counts(xq)[0].tolist()
    draws = ens.noisy_labels(np.repeat(xq, 60_000, axis=0), 0.5, rng=rng)
    probs = discrete_argmax_law(counts, up_dyadic(1 / Fraction(0.5)), mp_context(DPS))
    parts.append(sampler_check(draws, probs, ALPHA, SEED, f"PATETeachers.noisy_labels counts {counts}, default"))
    return CheckResult(sum(p.measured for p in parts), 0, worst_verdict(p.verdict for p in parts), 0,
                       " | ".join(p.detail for p in parts), method="statistical")
