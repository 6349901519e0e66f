"""Exact data-dependent analysis: exact q, worst-case log-moments over all neighbours, both directions."""
import math

import mpmath
import numpy as np
import pytest

from proofs_checks.pate import reference as R
from refdp import core
from refdp import core as _kernels
from refdp.pate import exact_analysis
from refdp.pate.accountant import lemma4_two_sided_log_q, two_sided_counts

ORDERS = [0.5, 2.0, 8.0, 64.0]


@pytest.mark.parametrize("counts,gamma", [
    ([6, 0, 0], 1.0), ([3, 3, 0], 1.0), ([4, 3, 1], 0.5), ([9, 0], 0.5), ([0, 9], 2.0),
    ([8, 1, 1, 0], 0.7), ([2, 2, 2, 2, 1], 0.3), ([7, 0, 0, 0, 0, 0], 1.5), ([1], 0.2),
])
def test_exact_analysis_matches_brute_force_mpmath(counts, gamma):
    r = exact_analysis([counts], gamma, ORDERS, noise="continuous")
    with mpmath.workdps(30):          # the reference runs at mpmath's global precision: restored on exit
        fwd, both = R.worst_log_moments(counts, gamma, ORDERS)
        q = mpmath.log(R.exact_q(counts, gamma)) if len(counts) > 1 else None
        q2 = mpmath.log(R.exact_q_two_sided(counts, gamma)) if len(counts) > 1 else None
    for k, lam in enumerate(ORDERS):
        tol = 1e-9 * (1 + abs(both[k])) + (2 * lam + 4) * 1e-11
        assert both[k] <= r.log_moments[0, k] <= both[k] + tol
        assert fwd[k] <= r.log_moments_forward[0, k] <= fwd[k] + tol
        assert r.log_moments_forward[0, k] <= r.log_moments[0, k]
    if len(counts) > 1:
        assert q <= r.log_q[0] <= q + 1e-10 and q2 <= r.log_q_two_sided[0] <= q2 + 1e-10
    else:
        assert r.log_q[0] == -math.inf and np.all(r.log_moments < 1e-8)


def test_reverse_direction_can_exceed_the_one_sided_theorem_3():
    # n = (0, 9), gamma = 2: the neighbour (1, 8) has a larger q; the reverse
    # log-moment exceeds Theorem 3 at n, which the two-sided q covers.
    counts, gamma = [[0, 9]], 2.0
    r = exact_analysis(counts, gamma, [8.0], noise="continuous")
    one_sided = core.accountant_log_moments(core.lemma4_log_q(counts, gamma), [8.0], gamma)[0]
    two_sided = core.accountant_log_moments(lemma4_two_sided_log_q(counts, gamma), [8.0], gamma)[0]
    assert r.log_moments_forward[0, 0] <= one_sided < r.log_moments[0, 0] <= two_sided


def test_two_sided_counts_moves_top_vote_to_runner_up():
    moved, gap = two_sided_counts(np.array([[5, 9, 2], [4, 4, 0], [7, 0, 7]]))
    assert moved.tolist() == [[6, 8, 2], [3, 5, 0], [6, 0, 8]] and gap.tolist() == [4, 0, 0]
    moved, gap = two_sided_counts(np.array([[3]]))
    assert moved.tolist() == [[3]] and gap.tolist() == [-1]
    lq2 = lemma4_two_sided_log_q(np.array([[5, 9, 2], [4, 3, 0]]), 0.5)
    assert lq2[1] == math.inf and np.isfinite(lq2[0])   # top-two gap 1: Theorem 3 out of range


def test_permutation_and_thread_invariance():
    rng = np.random.default_rng(2)
    counts = rng.multinomial(40, rng.dirichlet(np.ones(5)), size=3)
    perm = rng.permutation(5)
    a = exact_analysis(counts, 0.3, ORDERS, n_threads=1, noise="continuous")
    b = exact_analysis(counts[:, perm], 0.3, ORDERS, n_threads=2, noise="continuous")
    np.testing.assert_allclose(a.log_moments, b.log_moments, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.log_q, b.log_q, rtol=1e-12)


@pytest.mark.skipif(not _kernels.LNMAX_COMPILED, reason="refdp._lnmax is not built")
def test_compiled_exact_equals_python_twin():
    rng = np.random.default_rng(4)
    counts = np.ascontiguousarray(rng.multinomial(60, rng.dirichlet(np.full(6, 0.5)), size=8), dtype=np.int64)
    orders = np.array(ORDERS)
    a = _kernels.lnmax_exact_rows(counts, 0.1, orders, use_compiled=True)
    b = _kernels.lnmax_exact_rows(counts, 0.1, orders, use_compiled=False)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs,name", [
    ({"counts": [[3, 1]], "gamma": 0.0}, "gamma"),
    ({"counts": [[3, 1]], "gamma": 0.1, "orders": [1.0, -2.0]}, "orders"),
    ({"counts": [[3, 1]], "gamma": 0.1, "orders": []}, "orders"),
    ({"counts": [[3, 1]], "gamma": 0.1, "n_threads": 0}, "n_threads"),
    ({"counts": [[]], "gamma": 0.1}, "counts"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=f"The '{name}' parameter of exact_analysis"):
        exact_analysis(**kwargs)
