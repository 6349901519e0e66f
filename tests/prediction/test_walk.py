"""ProjectedWalk: validation, tie rule, exactness, privacy check flags a wrong step, error bound."""
import math

import mpmath
import numpy as np
import pytest

from proofs_checks.dwork_feldman.section_5_walk_privacy import walk_privacy
from proofs_checks.dwork_feldman.section_5_walk_error import empirical_error
from refdp.prediction import ProjectedWalk, walk_empirical_error_bound, walk_step
from refdp.prediction.walk import exact_walk_log_odds, exact_walk_state
from refdp.verify.verdict import Verdict


def test_step_per_relation():
    assert walk_step(1.0, "replace") == 0.5
    assert walk_step(1.0, "add_remove") == 1.0


@pytest.mark.parametrize("kwargs, fit_args, match", [
    (dict(epsilon=0.0, alpha=0.1), ([0.0], [1]), "'epsilon' parameter of ProjectedWalk .* \\(0, inf\\)"),
    (dict(epsilon=np.nan, alpha=0.1), ([0.0], [1]), "'epsilon' parameter"),
    (dict(epsilon=1.0, alpha=0.5), ([0.0], [1]), "'alpha' parameter .* \\(0, 0.5\\)"),
    (dict(epsilon=1.0, alpha=0.0), ([0.0], [1]), "'alpha' parameter"),
    (dict(epsilon=1.0, alpha=0.1, neighbours="swap"), ([0.0], [1]), "'neighbours' parameter"),
    (dict(epsilon=1.0, alpha=0.1), ([np.nan], [1]), "'x' parameter .* finite"),
    (dict(epsilon=1.0, alpha=0.1), ([np.inf], [1]), "'x' parameter .* finite"),
    (dict(epsilon=1.0, alpha=0.1), ([0.0, 1.0], [1, 2]), "'y' parameter .* declared 'classes' \\[0, 1\\]. Got 2 at position \\(1,\\)"),
    (dict(epsilon=1.0, alpha=0.1), ([0.0, 1.0], [1]), "'y' parameter .* shape"),
    (dict(epsilon=1.0, alpha=0.1), ([], []), "'x' parameter .* at least 1"),
    (dict(epsilon=1.0, alpha=0.1), ([[0.0, 1.0]], [1]), r"'x' parameter .* shape \(n,\) or \(n, 1\)"),
])
def test_bad_input(kwargs, fit_args, match):
    with pytest.raises(ValueError, match=match):
        ProjectedWalk(**kwargs).fit(*fit_args)


def test_bad_queries_and_unfitted():
    w = ProjectedWalk(1.0, 0.1)
    with pytest.raises(ValueError, match="not fitted"):
        w.predict_proba([0.0])
    w.fit([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match=r"'x_query' parameter .* shape \(n,\) or \(n, 1\)"):
        w.predict_proba([[0.0, 1.0]])
    with pytest.raises(ValueError, match="'x_query' parameter .* finite"):
        w.predict([np.nan])
    w.set_params(epsilon=2.0)
    with pytest.raises(ValueError, match="changed after fit"):
        w.predict_proba([0.0])


def test_tie_rule_makes_output_independent_of_input_order():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=40).astype(float)
    y = rng.integers(0, 2, size=40)
    q = np.arange(-1, 6, 0.5)
    p = ProjectedWalk(1.0, 0.05).fit(x, y).predict_proba(q)[:, 1]
    for _ in range(5):
        perm = rng.permutation(40)
        np.testing.assert_array_equal(ProjectedWalk(1.0, 0.05).fit(x[perm], y[perm]).predict_proba(q)[:, 1], p)


def test_sort_by_tie_rule_equals_lexsort():
    from refdp.prediction.walk import _sort_by_tie_rule
    rng = np.random.default_rng(12)
    for n, levels in ((1, 3), (2, 1), (50, 3), (1000, 20), (1000, 10**6)):
        x = rng.integers(0, levels, size=n).astype(float)
        y = rng.integers(0, 2, size=n)
        order = np.lexsort((y, x))
        xs, ys = _sort_by_tie_rule(x, y)
        np.testing.assert_array_equal(xs, x[order])
        np.testing.assert_array_equal(ys, y[order])


def test_tie_rule_orders_label_zero_first():
    # Two records at x = 0 with labels 1 and 0; s = 1 > B = ln 1.5, so order matters:
    # label 0 first: 0 -> clip(-1) = -B -> clip(-B + 1) = +B;
    # label 1 first would give 0 -> +B -> clip(B - 1) = -B.
    w = ProjectedWalk(epsilon=2.0, alpha=0.4).fit([0.0, 0.0], [1, 0])
    assert w.log_odds([0.0])[0] == pytest.approx(math.log(1.5), rel=1e-15)


def test_float_probabilities_match_exact():
    rng = np.random.default_rng(11)
    x = np.round(rng.random(300), 2)
    y = (rng.random(300) < np.where(x > 0.4, 0.9, 0.2)).astype(int)
    q = np.linspace(-0.1, 1.1, 61)
    w = ProjectedWalk(0.3, 0.02).fit(x, y)
    exact = w.exact_proba(q, dps=40)
    np.testing.assert_allclose(w.predict_proba(q)[:, 1], [float(e) for e in exact], rtol=1e-12)


def test_integer_walk_equals_direct_mpmath_walk():
    rng = np.random.default_rng(2)
    with mpmath.workdps(50):
        for _ in range(50):
            n = int(rng.integers(0, 30))
            recs = list(zip(rng.integers(0, 5, n).tolist(), rng.integers(0, 2, n).tolist()))
            step = mpmath.mpf(rng.choice(["0.05", "0.5", "1", "3"]))
            big_b = mpmath.log(mpmath.mpf(rng.choice(["1.5", "9", "99"])))
            for xq in range(-1, 6):
                l = mpmath.mpf(0)
                for xi, yi in sorted(recs):
                    if xi <= xq:
                        l = min(max(l + (step if yi else -step), -big_b), big_b)
                assert abs(exact_walk_log_odds(recs, xq, step, big_b) - l) < mpmath.mpf(10) ** -40


def test_predict_is_deterministic_and_matches_probabilities():
    x = np.linspace(0, 1, 200)
    w = ProjectedWalk(1.0, 0.1).fit(x, (x > 0.5).astype(int))
    q = np.full(20_000, 0.52)
    a, b = w.predict(q, rng=7), w.predict(q, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    p = w.predict_proba(q[:1])[0, 1]
    # Two-sided binomial check with false-failure rate 1e-6: |mean - p| <= z sqrt(p(1-p)/N),
    # z = 4.892 (normal quantile 1 - 0.5e-6); N = 20000 makes the normal approximation accurate.
    assert abs(a.mean() - p) <= 4.892 * math.sqrt(p * (1 - p) / q.size)


def test_privacy_check_flags_step_epsilon_under_replace_one():
    res = walk_privacy(epsilon="1", alpha="0.1", walk_relation="add_remove", relation="replace", max_size=3)
    assert res.verdict is Verdict.FAILS
    assert res.measured > 1
    ok = walk_privacy(epsilon="1", alpha="0.1", walk_relation="replace", relation="replace", max_size=3)
    assert ok.verdict is Verdict.HOLDS and ok.measured <= 1


def test_simpler_bound_counterexample_and_corrected_bound():
    # Realizable threshold, eps = 0.1 (s = 0.05), alpha = 0.01, n = 2000 with the
    # threshold in the middle: the simpler alpha + (B/s + 1)/n of
    # docs/theory/projected_walk_error.rst is exceeded; the proved
    # bound alpha + (B + ln 2)/(s n) is not.
    n, eps, alpha = 2000, 0.1, 0.01
    x = np.arange(n, dtype=float)
    y = (x >= n // 2).astype(int)
    err = empirical_error(ProjectedWalk(eps, alpha).fit(x, y), x, y)
    big_b, s = math.log((1 - alpha) / alpha), eps / 2
    assert err > alpha + (big_b / s + 1) / n
    assert err <= walk_empirical_error_bound(n, eps, alpha)


def test_error_bound_validation():
    with pytest.raises(ValueError, match="'n' parameter"):
        walk_empirical_error_bound(0, 1.0, 0.1)
    with pytest.raises(ValueError, match="'opt' parameter"):
        walk_empirical_error_bound(10, 1.0, 0.1, opt=1.5)
    with pytest.raises(ValueError, match="'n_boundaries' parameter"):
        walk_empirical_error_bound(10, 1.0, 0.1, n_boundaries=-1)


def test_scikit_learn_conventions():
    # One-column 2-D inputs are accepted; predict_proba has one column per class
    # in the order of classes_; score is the expected accuracy of predict.
    rng = np.random.default_rng(4)
    x = rng.random(300)
    y = (x > 0.4).astype(int)
    a = ProjectedWalk(1.0, 0.05).fit(x, y)
    b = ProjectedWalk(1.0, 0.05).fit(x[:, None], y)
    q = np.linspace(0, 1, 11)
    pa, pb = a.predict_proba(q), b.predict_proba(q[:, None])
    np.testing.assert_array_equal(pa, pb)
    assert pa.shape == (11, 2) and a.classes_.tolist() == [0, 1]
    np.testing.assert_allclose(pa.sum(axis=1), 1.0, rtol=1e-15)
    np.testing.assert_array_equal(pa[:, 1], 1 / (1 + np.exp(-a.log_odds(q))))
    np.testing.assert_array_equal(a.predict(q, rng=3), b.predict(q[:, None], rng=3))
    want = np.mean([pa[i, int(q[i] > 0.4)] for i in range(11)])
    assert a.score(q, (q > 0.4).astype(int)) == pytest.approx(want, rel=1e-15)
    with pytest.raises(ValueError, match=r"'x' parameter of ProjectedWalk must be an array of shape \(n,\) or"):
        ProjectedWalk(1.0, 0.05).fit(np.zeros((3, 2)), [0, 1, 0])
    with pytest.raises(ValueError, match="'y' parameter of ProjectedWalk"):
        a.score(q, np.full(11, 2))
