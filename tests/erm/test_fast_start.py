"""The float-safe release does not depend on how its start point is found; the data checks' fast paths.

The cell search certifies the grid cell of the exact minimiser of the
perturbed objective from any start point, and the noise digits are drawn in
fixed chunks, so the lane-order start point (``refdp.erm._grid_minimiser.start_point``:
strided warm starts, the warm start's Newton factor handed on, digits drawn
up front at large n) must release exactly what the certified solver's start
point releases. The recorded releases (``test_float_safe_releases.py``) do
not reach the high-dimensional warm-start paths (n >= 20,000 at d >= 32),
so they are compared here against the start of
:func:`refdp.utils.solver.minimise`.
"""
from __future__ import annotations

import numpy as np
import pytest

from refdp.erm import HuberHingeLoss, LogisticLoss, objective_perturbation
from refdp.erm import _data
from refdp.erm import _grid_minimiser as gm
from refdp.erm.objective_perturbation_zcdp import objective_perturbation_zcdp
from refdp.utils import solver


def _data_set(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= 1.01 * np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.ones(d) + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _release(X, y, loss, privacy, seed):
    if privacy == "dp":
        return objective_perturbation(X, y, loss, epsilon=10.0, regularization=1e-3, rng=seed)
    return objective_perturbation_zcdp(X, y, loss, rho=2.0, regularization=1e-3, rng=seed)


@pytest.mark.parametrize("n,d,loss,privacy", [
    (20_000, 32, LogisticLoss(), "dp"),          # warm start on every 4th row, then exact Newton steps
    (60_000, 33, LogisticLoss(), "zcdp"),        # strided rows, their warm start, the handed-on factor
    (60_000, 32, HuberHingeLoss(0.5), "dp"),
])
def test_release_equals_the_certified_solvers_start(monkeypatch, n, d, loss, privacy):
    X, y = _data_set(n, d, n + d)
    calls = {"start": 0}
    real = gm.start_point

    def counted(*a, **k):
        calls["start"] += 1
        return real(*a, **k)

    monkeypatch.setattr(gm, "start_point", counted)
    fast = [_release(X, y, loss, privacy, seed).theta for seed in range(2)]
    assert calls["start"] >= 2 * 2             # each release and its warm start used this path
    assert not np.array_equal(fast[0], fast[1])  # the seeds give different releases
    monkeypatch.setattr(gm, "start_point", lambda *a, **k: None)
    slow = _release(X, y, loss, privacy, 1).theta
    assert [t.hex() for t in fast[1].tolist()] == [t.hex() for t in slow.tolist()]


def test_start_point_reaches_its_tolerance_and_hands_on_a_factor():
    X, y = _data_set(60_000, 32, 3)
    g = np.random.default_rng(0).normal(size=32) * 1e-3
    start = gm.start_point(LogisticLoss(), X, y, 2e-3, g, tol=1e-11)
    grad = solver.gradient(LogisticLoss(), X, y, 2e-3, g, start.theta)
    assert np.linalg.norm(grad) <= 2e-11
    assert start.factor is not None and start.pass_blocks.shape == (-(-60_000 // gm.BLOCK), 32)
    # a loss without a compiled pass has no start point here (the caller uses the certified solver)
    class Other(LogisticLoss):
        pass
    assert gm.start_point(Other(), X[:100], y[:100], 2e-3, g, tol=1e-8) is None


def test_pre_refinement_draws_the_same_digits_the_search_would():
    """At n d >= PRE_REFINE_SIZE the digits are drawn before the solve; the release is the same without."""
    X, y = _data_set(40_000, 27, 8)
    assert X.size >= gm.PRE_REFINE_SIZE
    base = [objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=1e-3, rng=s).theta
            for s in range(2)]
    saved = gm.PRE_REFINE_SIZE
    try:
        gm.PRE_REFINE_SIZE = 1 << 62
        late = [objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=1e-3, rng=s).theta
                for s in range(2)]
    finally:
        gm.PRE_REFINE_SIZE = saved
    for a, b in zip(base, late):
        assert np.array_equal(a, b)


# ---------------------------------------------------------------- data checks

def test_finiteness_from_the_row_squares_gives_the_same_errors():
    X = np.full((4, 3), 0.1)
    for bad, where in ((np.nan, (2, 1)), (np.inf, (0, 2)), (-np.inf, (3, 0))):
        Y = X.copy()
        Y[where] = bad
        with pytest.raises(ValueError, match=rf"finite numbers.*{bad} at position \({where[0]}, {where[1]}\)"):
            _data.unit_ball_rows(Y, "owner")
    # finite entries whose squares overflow are finite: decided as rows outside the ball
    Y = X.copy()
    Y[1, 1] = 1e200
    with pytest.raises(ValueError, match="norm at most 'norm_bound'"), np.errstate(over="ignore"):
        _data.unit_ball_rows(Y, "owner")           # (the message's float norm overflows to inf)


@pytest.mark.parametrize("classes", [np.array([0, 1]), np.array([1, 0]), np.array([-1, 1]), np.array([2.5, -3.0])])
def test_two_class_labels_match_the_general_mapping(classes):
    rng = np.random.default_rng(1)
    for dtype in (np.int64, np.float64, np.int8):
        y = classes[rng.integers(0, 2, size=50)].astype(dtype)
        if not np.array_equal(y, classes[rng.integers(0, 2, size=0)].astype(dtype)) and \
                not np.all(np.isin(y, classes)):
            continue                            # a class not representable in dtype
        got = _data.signed_labels(y, classes, 50, "owner")
        want = np.where(_data.labels_to_indices(y, classes, "y", "owner") == 1, 1.0, -1.0)
        assert np.array_equal(got, want)
    y = np.array([classes[0], classes[1], 7.0])
    with pytest.raises(ValueError, match=r"7.0 at position \(2,\)"):
        _data.signed_labels(y, classes, 3, "owner")
    assert np.array_equal(_data.signed_labels(np.array([True, False]), np.array([0, 1]), 2, "owner"), [1.0, -1.0])


def test_box_gap_bounds_the_exact_supremum_within_its_stated_slack():
    """``_box_gap`` is at least the exact ``sup ||b/n - g||`` and at most ``(sqrt(d) + 1) 2**-64`` above it."""
    import math
    from fractions import Fraction

    from refdp.utils import lazy_noise

    for d, n in ((1, 7), (5, 300), (50, 10_000)):
        src = lazy_noise.BitSource(np.random.default_rng(d).bit_generator)
        noise = lazy_noise.LazySphericalLaplace(src, d, Fraction(1, 3))
        for bits in (gm.START_BITS, gm.REFINE_BITS, gm.REFINE_BITS):
            noise.refine(bits)
            box = noise.bounds()
            g = gm._centre(box, n)
            sq = sum(max((Fraction(lo) / n - Fraction(float(gj))) ** 2, (Fraction(hi) / n - Fraction(float(gj))) ** 2)
                     for (lo, hi), gj in zip(box, g))
            got = gm._box_gap(box, g, n)
            assert got * got >= sq                                      # an upper bound
            slack = Fraction(math.isqrt(d) + 2, 1 << 64)
            assert (got - slack) ** 2 <= sq or got <= slack              # and a tight one
    assert gm._box_gap([(Fraction(1), Fraction(1))], np.array([1.0]), 1) == 0


def test_two_loop_is_the_lbfgs_inverse_of_its_pairs():
    """With no pairs it solves with the factor; with pairs it satisfies the secant equation ``H y_k = s_k``."""
    import scipy.linalg

    rng = np.random.default_rng(2)
    A = rng.normal(size=(6, 6))
    M = A @ A.T + 6 * np.eye(6)
    factor = scipy.linalg.cho_factor(M)
    v = rng.normal(size=6)
    assert np.array_equal(solver.two_loop(factor, [], v), scipy.linalg.cho_solve(factor, v))
    H = M + np.diag(rng.random(6))              # the "true" Hessian the pairs come from
    pairs = []
    for _ in range(3):
        s_ = rng.normal(size=6)
        y_ = H @ s_
        pairs.append((s_, y_, 1.0 / float(s_ @ y_)))
    got = solver.two_loop(factor, pairs, pairs[-1][1])
    assert np.allclose(got, pairs[-1][0], rtol=1e-12, atol=1e-12)
    assert not np.allclose(scipy.linalg.cho_solve(factor, pairs[-1][1]), pairs[-1][0], rtol=1e-3)
