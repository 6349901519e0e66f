"""Tests of the worked example of Claim 9.10 (refdp.learning.thresholds_impossibility)."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from refdp.learning import (
    exponential_mechanism_learner,
    exponential_mechanism_learner_distribution,
    grid_threshold_errors,
    grid_thresholds,
    hard_threshold_dataset,
    packing_sample_size,
    packing_success_bound,
    threshold_learner_sample_size,
    threshold_learner_success,
)


@given(st.integers(2, 12), st.lists(st.tuples(st.integers(0, 40), st.integers(0, 1)), max_size=25))
def test_grid_errors_match_brute_force(m, records):
    x = np.array([k / 40 for k, _ in records], dtype=float)
    y = np.array([label for _, label in records], dtype=np.int64)
    _, thresholds = grid_thresholds(m)
    want = [int(np.sum((x >= t).astype(int) != y)) for t in thresholds]
    assert grid_threshold_errors(x, y, m).tolist() == want


def test_grid():
    points, thresholds = grid_thresholds(4)
    assert points.tolist() == [0.125, 0.375, 0.625, 0.875]
    assert thresholds.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize("m,n", [(2, 2), (5, 3), (9, 8), (30, 11)])
def test_hard_datasets(m, n):
    for i in range(1, m):
        x, y = hard_threshold_dataset(m, n, i)
        assert len(x) == n and y.sum() == n // 2
        errors = grid_threshold_errors(x, y, m)
        assert errors[i] == 0
        assert errors[:i].tolist() == [(n + 1) // 2] * i           # thresholds left of x_i: (x_i, 0) wrong
        assert errors[i + 1:].tolist() == [n // 2] * (m - i)       # thresholds right of x_{i+1}: (x_{i+1}, 1) wrong


def test_success_equals_the_learners_law():
    for m, n, eps, i in [(5, 4, 1.0, 1), (5, 4, 1.0, 3), (7, 5, 0.5, 2), (3, 2, 2.0, 2)]:
        errors = grid_threshold_errors(*hard_threshold_dataset(m, n, i), m)
        law = exponential_mechanism_learner_distribution([Fraction(int(e), n) for e in errors], eps, n_samples=n,
                                                         exact=True, dps=40)
        assert abs(law[i] - threshold_learner_success(m, n, eps, i, dps=40)) < mpmath.mpf(10) ** -38


def test_success_degrades_with_the_grid_and_the_hardest_dataset_is_the_first():
    values = [threshold_learner_success(2**k, 20, 1.0) for k in range(2, 41, 2)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert values[-1] < 1e-6
    m, n = 9, 5
    per_i = [threshold_learner_success(m, n, 1.0, i) for i in range(1, m)]
    assert min(per_i) == per_i[0]
    assert [threshold_learner_success(64, n, 1.0) for n in range(2, 40)] == \
        sorted(threshold_learner_success(64, n, 1.0) for n in range(2, 40))


def test_sampled_success_on_the_hard_dataset():
    # Successes among N draws ~ Binomial(N, p), p exact; accept inside the two-sided interval of
    # probability 1 - 1e-6 (false-failure rate 1e-6; interval from scipy's exact binomial quantiles).
    from scipy import stats
    m, n, eps, draws = 64, 12, 1.0, 3000
    x, y = hard_threshold_dataset(m, n, 1)
    risks = grid_threshold_errors(x, y, m) / n
    p = float(threshold_learner_success(m, n, eps))
    rng = np.random.default_rng(9)
    count = sum(exponential_mechanism_learner(risks, eps, n_samples=n, rng=rng) == 1 for _ in range(draws))
    assert stats.binom.ppf(0.5e-6, draws, p) <= count <= stats.binom.isf(0.5e-6, draws, p)


@given(st.integers(2, 2**40), st.integers(2, 400), st.floats(1e-3, 10.0))
def test_packing_bound_is_rounded_up(m, n, eps):
    got = packing_success_bound(m, n, eps)
    with mpmath.workdps(80):
        exact = 1 / (1 + (m - 2) * mpmath.exp(-mpmath.mpf(eps) * n))
        assert mpmath.mpf(got) >= exact
        assert mpmath.mpf(math.nextafter(got, 0)) < exact


@given(st.integers(2, 2**40), st.floats(1e-3, 10.0), st.floats(1e-6, 0.999))
def test_packing_sample_size_is_rounded_down(m, eps, beta):
    got = packing_sample_size(m, eps, beta)
    with mpmath.workdps(80):
        arg = (m - 2) * (1 - mpmath.mpf(beta)) / mpmath.mpf(beta)
        exact = max(mpmath.mpf(0), mpmath.log(arg) / mpmath.mpf(eps)) if m > 2 else mpmath.mpf(0)
        assert mpmath.mpf(got) <= exact
        assert got == 0.0 or mpmath.mpf(math.nextafter(got, math.inf)) > exact


@pytest.mark.parametrize("m,eps,beta", [(3, 1.0, 0.05), (1000, 0.5, 0.1), (10**9, 1.0, 0.01), (2**40, 2.0, 0.2)])
def test_learner_sample_size_is_minimal_and_respects_the_lower_bound(m, eps, beta):
    n = threshold_learner_sample_size(m, eps, beta)
    assert threshold_learner_success(m, n, eps) >= 1 - beta
    assert n == 2 or threshold_learner_success(m, n - 1, eps) < 1 - beta
    # the learner is eps-DP, so it cannot beat the packing bound: it needs at least as many records
    assert n >= packing_sample_size(m, eps, beta)
    assert threshold_learner_success(m, n, eps) <= packing_success_bound(m, n, eps)


def test_both_sample_sizes_grow_like_log_m():
    eps, beta = 1.0, 0.05
    small = [packing_sample_size(10**k, eps, beta) for k in (3, 6, 12)]
    em = [threshold_learner_sample_size(10**k, eps, beta) for k in (3, 6, 12)]
    # packing: exactly (ln(m - 2) + ln 19) / eps
    assert small[1] - small[0] == pytest.approx(math.log((10**6 - 2) / (10**3 - 2)), rel=1e-12)
    assert small[2] - small[1] == pytest.approx(math.log((10**12 - 2) / (10**6 - 2)), rel=1e-12)
    # the learner needs about 4 ln(m)/eps: four times the lower bound's slope, up to rounding of n
    assert (em[2] - em[1]) / (6 * math.log(10)) == pytest.approx(4.0, abs=0.2)


@pytest.mark.parametrize("call", [
    lambda: grid_thresholds(1),
    lambda: grid_threshold_errors([0.5, 1.5], [0, 1], 4),
    lambda: grid_threshold_errors([0.5, 0.2], [0, 2], 4),
    lambda: grid_threshold_errors([0.5], [0, 1], 4),
    lambda: hard_threshold_dataset(4, 1, 1),
    lambda: hard_threshold_dataset(4, 3, 4),
    lambda: threshold_learner_success(4, 3, 0.0),
    lambda: packing_success_bound(4, 3, math.nan),
    lambda: packing_sample_size(4, 1.0, 1.0),
    lambda: threshold_learner_sample_size(4, -1.0, 0.1),
])
def test_bad_inputs(call):
    with pytest.raises(ValueError, match="The '.*' parameter of .* must be"):
        call()
