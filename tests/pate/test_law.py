"""The exact LNMax law: float kernel vs mpmath twin, normalisation, Monte Carlo, kernel vs Python twin."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from refdp import core
from refdp.mechanisms import report_noisy_max_distribution
from refdp import core as _kernels
from refdp.pate import lnmax_distribution, lnmax_labels
from refdp.twins import lnmax as _law_twin
from refdp.pate.aggregation import TextbookNoiseWarning

counts_strategy = st.lists(st.integers(0, 40), min_size=1, max_size=8).filter(lambda c: sum(c) > 0)
gammas = st.sampled_from([0.01, 0.05, 0.3, 1.0, 4.0])


def mp_log_law(counts, gamma, dps=40):
    with mpmath.workdps(dps):
        return [mpmath.log(p) for p in report_noisy_max_distribution(list(counts), 2.0 * gamma, exact=True,
                                                                       dps=dps)]


@settings(max_examples=80)
@given(counts_strategy, gammas)
def test_float_law_matches_mpmath(counts, gamma):
    lp = lnmax_distribution(counts, gamma, log=True)
    exact = mp_log_law(counts, gamma)
    for v, e in zip(lp, exact):
        # 1e-12 relative on each probability, plus the spacing of doubles near log P
        assert abs(mpmath.mpf(v) - e) <= 1e-12 + 4 * 2.0**-53 * abs(e)


@settings(max_examples=100)
@given(counts_strategy, gammas)
def test_probabilities_sum_to_one(counts, gamma):
    p = lnmax_distribution(counts, gamma)
    if np.all(p > 1e-300):
        assert abs(math.fsum(p) - 1.0) <= 1e-13


@pytest.mark.parametrize("counts,gamma", [
    ([250] + [0] * 9, 0.05), ([125, 125] + [0] * 8, 0.05), ([3] + [2] * 29, 0.05), ([1] * 40, 0.05),
    ([240, 10], 20.0), (list(range(25)), 0.3), ([0] * 12 + [1] * 8, 0.05), ([10] * 12, 3.0),
])
def test_adversarial_vectors(counts, gamma):
    lp = lnmax_distribution(counts, gamma, log=True)
    exact = mp_log_law(counts, gamma)
    assert max(float(abs(mpmath.mpf(v) - e) - 4 * 2.0**-53 * abs(e)) for v, e in zip(lp, exact)) <= 1e-12


def test_two_classes_is_the_laplace_difference_tail():
    # C = 2: P[loser] = (2 + gamma g) / (4 exp(gamma g)), PATE Lemma 4's tail
    for g, gamma in ((0, 0.1), (7, 0.05), (30, 1.0)):
        p = lnmax_distribution([g + 2, 2], gamma)
        assert p[1] == pytest.approx(core.laplace_difference_tail(g, gamma), rel=1e-13)


def test_one_class_and_ties_and_shapes():
    assert lnmax_distribution([5], 0.3).tolist() == [1.0]
    p = lnmax_distribution([4, 4, 4], 0.2)
    assert np.allclose(p, 1 / 3, rtol=1e-14)
    batch = lnmax_distribution([[5, 1], [1, 5]], 0.5)
    assert batch.shape == (2, 2) and batch[0, 0] == pytest.approx(batch[1, 1], rel=1e-15)
    exact = lnmax_distribution([3, 1], 0.5, exact=True, dps=25)
    assert len(exact) == 2 and isinstance(exact[0], mpmath.mpf)
    both = lnmax_distribution([[3, 1], [1, 1]], 0.5, exact=True, log=True, dps=25)
    assert len(both) == 2 and both[1][0] == both[1][1]


def test_permuting_classes_permutes_the_law():
    rng = np.random.default_rng(5)
    counts = rng.multinomial(60, rng.dirichlet(np.ones(7)))
    perm = rng.permutation(7)
    assert np.array_equal(lnmax_distribution(counts[perm], 0.2), lnmax_distribution(counts, 0.2)[perm])


def test_tiny_probabilities_keep_relative_accuracy_in_log_space():
    lp = lnmax_distribution([1000, 0, 0], 5.0, log=True)
    exact = mp_log_law([1000, 0, 0], 5.0, dps=60)
    assert lp[1] < -4990 and abs(lp[1] - float(exact[1])) <= 1e-12 + 4 * 2.0**-53 * 5000


@pytest.mark.skipif(not _kernels.LNMAX_COMPILED, reason="refdp._lnmax is not built")
def test_compiled_kernel_equals_python_twin():
    rng = np.random.default_rng(11)
    for _ in range(60):
        c = int(rng.choice([1, 2, 3, 5, 10, 20]))
        counts = rng.multinomial(int(rng.choice([1, 10, 250])), rng.dirichlet(np.full(c, 0.5)))
        gamma = float(rng.choice([0.01, 0.05, 0.5, 3.0]))
        arr = np.ascontiguousarray(counts[None, :], dtype=np.int64)
        compiled = _kernels.lnmax_log_law_rows(arr, gamma, use_compiled=True)
        twin = _kernels.lnmax_log_law_rows(arr, gamma, use_compiled=False)
        np.testing.assert_allclose(compiled, twin, rtol=0, atol=1e-12)


def test_twin_uses_every_integration_path(monkeypatch):
    calls = {"closed": 0, "series": 0, "numeric": 0}
    for name, key in (("_piece_closed", "closed"), ("_piece_series", "series"), ("_piece_numeric", "numeric")):
        original = getattr(_law_twin, name)

        def spy(*args, original=original, key=key):
            calls[key] += 1
            return original(*args)

        monkeypatch.setattr(_law_twin, name, spy)
    for counts in ([225, 6, 5, 4, 3, 3, 2, 1, 1, 0], [60, 50, 40, 30, 20, 10, 5, 3, 2, 0],
                   [20] + [0] * 10):               # a medium piece above ten tied classes: numerical
        lp = _law_twin.lnmax_log_law(counts, 0.05)
        exact = mp_log_law(counts, 0.05)
        assert max(abs(float(v - e)) for v, e in zip(lp, exact)) <= 1e-12
    assert calls["closed"] > 0 and calls["series"] > 0 and calls["numeric"] > 0


def test_lnmax_labels_follow_the_law():
    # False-failure rate: each of the 4 class counts is tested against its exact
    # Binomial(n, p_j) law with two-sided tails of 1e-6 / 4 each (Bonferroni),
    # so a correct sampler fails with probability at most 1e-6.
    counts, gamma, n = [7, 6, 2, 0], 0.4, 200_000
    with pytest.warns(TextbookNoiseWarning, match="not private as implemented"):
        draws = lnmax_labels(np.tile(counts, (n, 1)), gamma, rng=123, secure=False)
    p = lnmax_distribution(counts, gamma)
    observed = np.bincount(draws, minlength=4)
    a = 1e-6 / 4
    for o, pj in zip(observed, p):
        lo, hi = stats.binom.ppf(a / 2, n, pj), stats.binom.isf(a / 2, n, pj)
        assert lo <= o <= hi


def test_lnmax_labels_shapes_and_determinism():
    c = np.array([[240, 10, 0], [3, 4, 243]])
    assert lnmax_labels(c, 0.05, rng=7).tolist() == lnmax_labels(c, 0.05, rng=7).tolist()
    assert isinstance(lnmax_labels([5, 0], 0.1, rng=1), int)
    assert lnmax_labels(c, 0.05, rng=np.random.default_rng(3)).dtype == np.int64


@pytest.mark.parametrize("kwargs,name", [
    ({"counts": [[1, 2]], "gamma": 0.0}, "gamma"),
    ({"counts": [[1, 2]], "gamma": -1.0}, "gamma"),
    ({"counts": [[1, 2]], "gamma": float("nan")}, "gamma"),
    ({"counts": [], "gamma": 0.1}, "counts"),
    ({"counts": [[1, -2]], "gamma": 0.1}, "counts"),
    ({"counts": [[0, 0]], "gamma": 0.1}, "counts"),
    ({"counts": [[0.5, 1]], "gamma": 0.1}, "counts"),
])
def test_bad_input_is_rejected(kwargs, name):
    for fn in (lnmax_distribution, lnmax_labels):
        with pytest.raises(ValueError, match=f"The '{name}' parameter of {fn.__name__}"):
            fn(**kwargs)
