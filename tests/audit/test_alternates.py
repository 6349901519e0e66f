"""Rarer events tested beside the chosen one when the selection outputs cannot tell them apart.

On SVT4's two best outcomes (ratios 0.1725 and 0.1433) the selection's guard
chooses their union on small tune samples (``test_selection_guard.py``); the
audit then also tests the single best outcome at the held-out stage, and
every tested event counts in the Bonferroni correction. The expected-count
tests are deterministic; the audits use fixed seeds.
"""
import numpy as np
import pytest

from refdp.audit import audit_black_box
from refdp.audit._sampling import Sample
from refdp.audit.blackbox import _alternate
from refdp.audit.clopper_pearson import lower_unchecked, upper_unchecked
from refdp.audit.events import build_scores, conditional_bound, select_events

from tests._support.svt4_expected import BETA, BUDGET, OBJ, P, Q
from tests._support.svt4_expected import expected_sample as _sample


def _outcomes(candidate):
    probe = Sample(np.array([[0.0], [1.0], [2.0]]))
    return tuple(int(i) for i in np.flatnonzero(candidate.event.contains(probe)))


def _chosen_and_alternates(n_tune):
    a, b = _sample(P, n_tune), _sample(Q, n_tune)
    scores = build_scores(a, b, (), rng=np.random.default_rng(0))
    n_project = BUDGET - 2 * n_tune
    best = select_events(scores, a, b, OBJ, BETA, n_project=n_project)
    alts = _alternate(scores, a, b, a, b, OBJ, BETA, n_project, "binomial", best)
    return best[0], alts[0]


def test_the_single_best_outcome_is_tested_beside_the_union_the_guard_chooses():
    for n_tune in (160_000, 320_000):
        chosen, alts = _chosen_and_alternates(n_tune)
        assert _outcomes(chosen) == (0, 1)
        assert (0,) in [_outcomes(a) for a in alts]
        assert len(alts) <= 2
        # every alternative is rarer than the chosen event on the tune samples
        for a in alts:
            assert a.tune_counts[0] + a.tune_counts[2] < chosen.tune_counts[0] + chosen.tune_counts[2]


def test_no_alternative_once_the_tune_samples_tell_the_events_apart():
    chosen, alts = _chosen_and_alternates(2_560_000)
    assert _outcomes(chosen) == (0,)
    assert alts == []


_THREE = {0: np.array([0.0668, 0.0544]), 1: np.array([0.0668, 0.0544]) * np.exp([-0.1725, -0.1433])}


def three_outcomes(d, n, rng):
    p = _THREE[d]
    return rng.choice(3, size=n, p=np.append(p, 1.0 - p.sum())).astype(np.float64)


def _audit(seed, **kw):
    return audit_black_box(three_outcomes, [(0, 1)], 0.1, n_samples=400_000, initial_samples=4_000, rng=seed,
                           progress=False, **kw)


def _seed_with_alternatives(**kw):
    for seed in range(40):
        r = _audit(seed, **kw)
        if r.pairs[0].alternates:
            return seed, r
    pytest.fail("no seed in 0..39 tested a rarer event")


@pytest.mark.parametrize("test", ["binomial", "auto"])
def test_every_tested_event_counts_in_the_bonferroni_correction(test):
    seed, r = _seed_with_alternatives(holdout_test=test)
    extra = r.pairs[0].alternates["epsilon"]
    row = r.pairs[0].held_out["epsilon"]
    assert r.tests == 1 + len(extra) and row["events_tested"] == r.tests
    assert r.beta == pytest.approx((1 - 0.95) / (2 * r.tests), rel=1e-15)
    rows = [row] + row["other_events"]
    assert len(rows) == r.tests
    # each bound is recomputed from its counts at the corrected error, and the largest is reported
    for x in rows:
        if x["test"] == "binomial":
            lo = float(lower_unchecked(x["k"], x["n"], r.beta))
            hi = float(upper_unchecked(x["k_other"], x["n_other"], r.beta))
            assert x["p_lower"] == lo and x["p_upper"] == hi
            assert x["bound"] == max(0.0, float(OBJ[0].value(lo, hi)))
        else:
            assert x["bound"] == max(0.0, conditional_bound(x["k"], x["k_other"], 2 * r.beta))
    assert r.epsilon_lower == max(x["bound"] for x in rows)
    assert r.epsilon_lower == row["bound"] and r.event == row["event"]
    assert r.as_dict()["pairs"][0]["alternates"] == r.pairs[0].alternates
    assert f"{r.tests} events tested on this pair" in r.summary()
    # the run is reproducible for its seed
    again = _audit(seed, holdout_test=test)
    assert again.epsilon_lower == r.epsilon_lower and again.pairs[0].alternates == r.pairs[0].alternates


def test_a_clear_choice_tests_one_event():
    # randomised response: one telling outcome per direction; nothing rarer to test
    def rr(bit, n, rng):
        return np.where(rng.random(n) < 0.75, bit, 1 - bit)
    r = audit_black_box(rr, [(0, 1)], 1.0, n_samples=200_000, rng=5, progress=False)
    assert r.pairs[0].alternates == {} and r.tests == 1 and "events_tested" not in r.pairs[0].held_out["epsilon"]
    assert "events tested" not in r.summary()
