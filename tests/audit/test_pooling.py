"""Pooled conditional tests over several pairs (``pool_pairs``).

The validity lemma is checked exactly: for small totals, the probability
that the pooled bound exceeds epsilon is summed over every outcome of the
independent binomial counts. The selection of pools is checked on
constructed tune counts; the audits use fixed seeds.
"""
import math

import numpy as np
import pytest
from scipy import stats

from refdp.audit import audit_black_box
from refdp.audit.clopper_pearson import lower_unchecked, upper_unchecked
from refdp.audit.events import Candidate, Objective, cannot_tell, conditional_bound
from refdp.audit.pooling import Pool, choose_pools, pooled_row

_OBJ = Objective("epsilon", 0.0)


def _pmf(s, theta):
    return stats.binom.pmf(np.arange(s + 1), s, theta)


@pytest.mark.parametrize("totals", [(5, 7), (3, 4, 6), (12, 1)])
@pytest.mark.parametrize("error", [0.05, 0.2])
def test_the_summed_count_bound_exceeds_epsilon_with_probability_at_most_the_error(totals, error):
    # pairs at the claim (theta(eps)) and below it: the sum is a sum of binomials of unequal
    # probabilities, each at most theta(eps)
    eps = 0.7
    top = math.exp(eps) / (1 + math.exp(eps))
    for thetas in ([top] * len(totals), [top] + [top * f for f in (0.5, 0.9)][: len(totals) - 1]):
        law = np.array([1.0])
        for s, th in zip(totals, thetas):
            law = np.convolve(law, _pmf(s, th))
        k = np.arange(law.size)
        bounds = conditional_bound(k.astype(float), (sum(totals) - k).astype(float), error)
        p_false = float(law[bounds > eps].sum())
        assert p_false <= error
    # and the test is not vacuous: well above the claim it fires
    law = np.array([1.0])
    for s in totals:
        law = np.convolve(law, _pmf(s, 0.97))
    k = np.arange(law.size)
    assert float(law[conditional_bound(k.astype(float), (sum(totals) - k).astype(float), error) > eps].sum()) > error


def _cand(k, n, k2, n2, direction=0, text="e"):
    return Candidate(_OBJ, None, direction, 0.0, text, (k, n, k2, n2), "conditional")


def test_two_pairs_of_the_same_ratio_are_pooled():
    n = 200_000
    a = _cand(3_400, n, 2_860, n, text="a")          # ratio about 0.173 on pair 0
    b = _cand(3_700, n, 3_110, n, text="b")          # about the same on pair 1
    pools = choose_pools({0: [a], 1: [b]}, {0: 9_000_000, 1: 9_000_000}, 0.05)
    assert pools[0].pairs == (0, 1)
    assert [c.description for _, c in pools[0].members] == ["a", "b"]
    # the pool projects more than either event alone
    singles = choose_pools({0: [a]}, {0: 9_000_000}, 0.05)[0].value, choose_pools({1: [b]}, {1: 9_000_000}, 0.05)[0].value
    assert pools[0].value > max(singles)
    assert len(pools) <= 3


def test_a_pair_without_the_violation_is_left_out():
    n = 200_000
    a = _cand(3_400, n, 2_860, n, text="a")          # ratio 0.173
    b = _cand(20_000, n, 19_800, n, text="b")        # ratio 0.01
    pools = choose_pools({0: [a], 1: [b]}, {0: 9_000_000, 1: 9_000_000}, 0.05)
    assert pools[0].pairs == (0,)
    assert all(p.pairs != (1,) for p in pools)


def test_the_better_event_of_a_pair_is_the_one_pooled():
    n = 200_000
    union = _cand(6_000, n, 5_300, n, text="union")   # ratio 0.124, twice as frequent
    best = _cand(3_400, n, 2_860, n, text="best")     # ratio 0.173
    other = _cand(3_700, n, 3_110, n, text="other")
    pools = choose_pools({0: [union, best], 1: [other]}, {0: 9_000_000, 1: 9_000_000}, 0.05)
    assert [c.description for _, c in pools[0].members] == ["best", "other"]


def test_pooled_row_sums_the_counts_in_each_members_direction():
    a, b = _cand(1, 2, 1, 2, 0, "a"), _cand(1, 2, 1, 2, 1, "b")
    pool = Pool(((0, a), (3, b)), 0.1)
    row = pooled_row(pool, [(500, 400), (410, 520)], {0: (1000, 1001), 3: (990, 1010)},
                     {0: False, 3: False}, 0.025, ["p0", "p1", "p2", "p3"])
    assert (row["k"], row["k_other"], row["n"], row["n_other"]) == (500 + 520, 400 + 410, 1000 + 1010, 1001 + 990)
    assert row["bound"] == pytest.approx(max(0.0, conditional_bound(1020, 810, 0.05)), rel=0, abs=0)
    assert [m["pair_label"] for m in row["members"]] == ["p0", "p3"]
    assert row["p_lower"] == float(lower_unchecked(1020, 2010, 0.025))
    assert row["p_upper"] == float(upper_unchecked(810, 1991, 0.025))
    over = pooled_row(pool, [(500, 400), (410, 520)], {0: (1000, 1001), 3: (990, 1010)},
                      {0: False, 3: True}, 0.025, ["p0", "p1", "p2", "p3"])
    assert over["bound"] == 0.0


def rr_two_pairs(d, n, rng):
    """Randomised response on a bit: datasets 0 and 1, and 2 and 3 (two pairs of the same law)."""
    bit = d % 2
    keep = rng.random(n) < 0.75      # ln 3
    return np.where(keep, bit, 1 - bit).astype(np.float64) + 2 * (d // 2)


_PAIRS = [(0, 1, "first"), (2, 3, "second")]


def test_a_pooled_audit_adds_the_two_pairs_counts():
    r = audit_black_box(rr_two_pairs, _PAIRS, 1.0, n_samples=200_000, rng=5, progress=False,
                        holdout_test="conditional", pool_pairs=2)
    assert r.violation and r.epsilon_lower < math.log(3)
    assert len(r.pooled) == 2 and r.pair_label == "first + second"
    k = sum(m["k"] for m in r.pooled)
    k2 = sum(m["k_other"] for m in r.pooled)
    assert r.counts[0] == k and r.counts[2] == k2
    assert r.epsilon_lower == max(0.0, conditional_bound(k, k2, 2 * r.beta))
    # every pool tested counts in the correction, and only they (one objective)
    row = next(p.held_out["epsilon"] for p in r.pairs if p.held_out)
    assert r.tests == row["events_tested"] == 1 + len(row["other_events"])
    assert r.beta == pytest.approx((1 - 0.95) / (2 * r.tests), rel=1e-15)
    single = audit_black_box(rr_two_pairs, _PAIRS, 1.0, n_samples=200_000, rng=5, progress=False,
                             holdout_test="conditional")
    assert single.pooled == ()
    # twice the outputs: the pooled bound sits closer to ln 3 here
    assert r.epsilon_lower > single.epsilon_lower
    assert "summed over 2 pairs" in r.summary()
    d = r.as_dict()
    assert [m["pair_label"] for m in d["pooled"]] == ["first", "second"]
    again = audit_black_box(rr_two_pairs, _PAIRS, 1.0, n_samples=200_000, rng=5, progress=False,
                            holdout_test="conditional", pool_pairs=2)
    assert again.epsilon_lower == r.epsilon_lower and again.counts == r.counts


def test_pool_pairs_one_is_the_audit_without_pooling():
    kw = dict(n_samples=100_000, rng=7, progress=False, holdout_test="auto")
    a = audit_black_box(rr_two_pairs, _PAIRS, 1.0, **kw)
    b = audit_black_box(rr_two_pairs, _PAIRS, 1.0, pool_pairs=1, **kw)
    assert (a.epsilon_lower, a.counts, a.tests, a.samples) == (b.epsilon_lower, b.counts, b.tests, b.samples)


def test_a_correct_claim_is_rarely_refuted_by_the_pool():
    # randomised response claimed at its exact ln 3 on both pairs: a false alarm has probability
    # at most 1 - confidence = 0.2 per audit; over 30 seeds more than 14 would have probability
    # below 1e-3 (binomial tail), so the check fails only if the pooled test is invalid
    alarms = sum(audit_black_box(rr_two_pairs, _PAIRS, math.log(3), n_samples=20_000, rng=s, progress=False,
                                 confidence=0.8, holdout_test="conditional", pool_pairs=2).violation
                 for s in range(30))
    assert stats.binom.sf(alarms - 1, 30, 0.2) > 1e-3


@pytest.mark.parametrize("kw", [
    dict(pool_pairs=2),                                         # the binomial test cannot pool
    dict(pool_pairs=2, holdout_test="auto", claimed_delta=0.1),
    dict(pool_pairs=0, holdout_test="auto"),
    dict(pool_pairs=5, holdout_test="auto"),
    dict(pool_pairs=2.5, holdout_test="auto"),
])
def test_bad_pool_pairs_is_refused_by_name(kw):
    with pytest.raises(ValueError, match="pool_pairs"):
        audit_black_box(rr_two_pairs, _PAIRS, 1.0, n_samples=1_000, rng=1, progress=False, **kw)



def test_cannot_tell_is_one_standard_error_of_the_difference():
    # best 0.20 (0.18 at one standard error), runner-up 0.17 (0.16): sd of the difference
    # sqrt(0.02**2 + 0.01**2) = 0.0224 < 0.03, so they are told apart; at 0.185 they are not
    assert not cannot_tell(0.20, 0.18, 0.17, 0.16)
    assert cannot_tell(0.20, 0.18, 0.185, 0.175)
    for bad in (math.inf, -math.inf, math.nan):
        assert not cannot_tell(0.20, 0.18, bad, 0.175)
        assert not cannot_tell(bad, 0.18, 0.185, 0.175)
