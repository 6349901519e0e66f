"""The exact checks pass the learner and the posterior sample, and flag their mis-scaled variants.

Each wrong variant is checked with refdp.verify and must FAIL; the reported
worst pair is then re-derived without refdp.verify: it must be a genuine
neighbour pair (multiset difference written here) and its divergence,
recomputed with a plain mpmath loop at 60 digits, must equal the reported
value and exceed the claimed epsilon.
"""
from collections import Counter

import mpmath
import pytest

from proofs_checks.lecture_notes.exponential_mechanism_learner_privacy import (
    CLASSES,
    DOMAIN,
    learner_law,
    total_losses,
)
from proofs_checks.lecture_notes.one_posterior_sample_privacy import RECORDS, loss_table, posterior_law
from refdp.utils.precision import mp_context
from refdp.learning import posterior_temperature
from refdp.verify import Verdict, all_datasets, check_mechanism, replace_one_neighbours

LABELINGS = CLASSES["labelings, 0/1 loss"]


def plain_max_divergence(law, d, e):
    """max_o |ln P_d(o) - ln P_e(o)| at 60 digits with a plain loop."""
    with mpmath.workdps(60):
        p, q = law(d, mp_context(60)), law(e, mp_context(60))
        return max(abs(mpmath.log(a) - mpmath.log(b)) for a, b in zip(p, q))


def replace_one(d, e):
    """True when the multisets d, e have the same size and differ in exactly one record."""
    return len(d) == len(e) and sum((Counter(d) - Counter(e)).values()) == 1


def add_remove(d, e):
    return abs(len(d) - len(e)) == 1 and sum(((Counter(d) - Counter(e)) + (Counter(e) - Counter(d))).values()) == 1


def assert_flagged(result, law, epsilon, relation):
    assert result.verdict is Verdict.FAILS
    d, e = result.worst_pair
    assert relation(d, e)
    value = plain_max_divergence(law, d, e)
    with mpmath.workdps(60):
        assert value > epsilon
        assert abs(value - result.divergence) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_learner_with_exp_minus_eps_n_r_is_flagged(epsilon):
    # exp(-eps n R) instead of exp(-eps n R / 2): the law at 2 eps, claimed eps-DP
    datasets = list(all_datasets(DOMAIN, 3, min_size=1))
    wrong = learner_law(LABELINGS, epsilon, scale=2)
    result = check_mechanism(wrong, datasets, epsilon, neighbours="replace", domain=DOMAIN)
    assert_flagged(result, wrong, epsilon, replace_one)
    right = check_mechanism(learner_law(LABELINGS, epsilon), datasets, epsilon, neighbours="replace",
                            domain=DOMAIN)
    assert right.verdict is Verdict.HOLDS
    # the correct scale is not loose: it is not eps/2-DP (measured: 0.31, 0.72 and 1.74
    # for eps = 0.5, 1, 2 on these datasets; it approaches eps with more hypotheses and records)
    assert right.divergence > epsilon / 2


def test_learner_neighbour_moves_total_losses_by_at_most_one():
    # the sensitivity the proof uses: |n R(h; D) - n R(h; D')| <= 1 for replace-one neighbours
    for hyps in CLASSES.values():
        totals = {d: total_losses(hyps, d) for d in all_datasets(DOMAIN, 3, min_size=1)}
        for d in totals:
            for e in replace_one_neighbours(d, DOMAIN):
                assert replace_one(d, e)
                assert max(abs(a - b) for a, b in zip(totals[d], totals[e])) <= 1


@pytest.mark.parametrize("bound", [0.5, 1.0])
def test_posterior_tempered_for_add_remove_is_flagged_under_replace(bound):
    # t = eps / B is right for add/remove and wrong (2 eps) for replace-one
    eps = 1.0
    datasets = list(all_datasets(RECORDS, 3))
    prior = (0, 8, 0, 0)
    wrong = posterior_law(bound, prior, temperature=posterior_temperature(eps, bound, "add_remove"))
    result = check_mechanism(wrong, datasets, eps, neighbours="replace", domain=RECORDS)
    assert_flagged(result, wrong, eps, replace_one)
    right = posterior_law(bound, prior, epsilon=eps, neighbours="add_remove")
    assert check_mechanism(right, datasets, eps, neighbours="add_remove", domain=RECORDS).verdict is Verdict.HOLDS


def test_posterior_claimed_b_dp_is_flagged_and_2b_is_nearly_attained():
    # the untempered posterior is 2B-DP (replace-one) and not B-DP; with the prior (0, 8, 0, 0)
    # the divergence comes within 1e-3 of 2B, so the factor 2 cannot be dropped
    datasets = list(all_datasets(RECORDS, 3))
    law = posterior_law(1.0, (0, 8, 0, 0))
    wrong = check_mechanism(law, datasets, 1.0, neighbours="replace", domain=RECORDS)
    assert_flagged(wrong, law, 1.0, replace_one)
    right = check_mechanism(law, datasets, 2.0, neighbours="replace", domain=RECORDS)
    assert right.verdict is Verdict.HOLDS and right.divergence > 2.0 - 1e-3
    add = check_mechanism(law, datasets, 1.0, neighbours="add_remove", domain=RECORDS)
    assert add.verdict is Verdict.HOLDS and add.divergence > 1.0 - 1e-3
    wrong_add = check_mechanism(law, datasets, 0.9, neighbours="add_remove", domain=RECORDS)
    assert_flagged(wrong_add, law, 0.9, add_remove)


def test_posterior_loss_table_is_within_bound():
    for b in (0.5, 1.0, 2.0):
        assert all(0 <= v <= b for row in loss_table(b) for v in row)
