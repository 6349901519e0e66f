"""The compiled margin-loss pass equals its twin bit for bit, and the NumPy formulas to rounding.

``refdp.core.margin_pass_blocks`` runs ``refdp/_erm.pyx`` (or, with
``compiled=False``, the twin ``refdp/twins/erm.py``): per block of rows the
sums of ``y_i l'(m_i) x_i`` and of ``l(m_i)``. The cell search certifies its
gradient with these sums, so the kernel must also agree with the losses'
own formulas (within the rounding its error bound allows).
"""
from __future__ import annotations

import numpy as np
import pytest

from refdp import core
from refdp.erm import HuberHingeLoss, LogisticLoss


def _rows(n, d, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= 1.01 * np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, y, rng.normal(size=d) * scale


LOSSES = [LogisticLoss(), HuberHingeLoss(0.5), HuberHingeLoss(0.01)]


@pytest.mark.parametrize("loss", LOSSES, ids=["logistic", "huber", "huber-narrow"])
@pytest.mark.parametrize("n,d,block", [(0, 3, 4), (1, 1, 1), (7, 3, 2), (257, 5, 256), (600, 13, 64), (50, 0, 8)])
def test_kernel_equals_twin(loss, n, d, block):
    for scale in (0.1, 3.0, 800.0):             # 800: margins beyond exp's range
        X, y, theta = _rows(n, d, n + d, scale)
        got = core.margin_pass_blocks(loss, X, y, theta, block)
        want = core.margin_pass_blocks(loss, X, y, theta, block, compiled=False)
        assert got[0].shape == want[0].shape == (-(-n // block), d)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_split_among_threads_equals_one_thread(threads):
    for loss in LOSSES:
        for n in (1, 255, 1000, 1029):
            X, y, theta = _rows(n, 9, n, 1.5)
            one = core.margin_pass_blocks(loss, X, y, theta, 64, n_threads=1)
            split = core.margin_pass_blocks(loss, X, y, theta, 64, n_threads=threads)
            assert np.array_equal(one[0], split[0]) and np.array_equal(one[1], split[1])


@pytest.mark.parametrize("loss", LOSSES, ids=["logistic", "huber", "huber-narrow"])
def test_pass_agrees_with_the_loss_formulas(loss):
    X, y, theta = _rows(1000, 6, 3, 2.0)
    blocks, values = core.margin_pass_blocks(loss, X, y, theta, 256)
    m = y * (X @ theta)
    grad = X.T @ (y * loss.derivative(m))
    assert np.allclose(blocks.sum(axis=0), grad, rtol=0, atol=1e-11)
    assert abs(values.sum() - loss.value(m).sum()) <= 1e-10 * max(1.0, loss.value(m).sum())
    # per block: the block's own rows
    for b in range(4):
        rows = slice(256 * b, 256 * (b + 1))
        assert np.allclose(blocks[b], X[rows].T @ (y[rows] * loss.derivative(m[rows])), rtol=0, atol=1e-12)


def test_other_losses_take_the_numpy_path():
    class Squared(LogisticLoss):           # a user loss: not the kernel's formula, even with the same name
        pass
    X, y, theta = _rows(10, 2, 0)
    assert core.margin_pass_blocks(Squared(), X, y, theta, 4) is None


# ---------------------------------------------------------------- the lane order

@pytest.mark.parametrize("loss", LOSSES, ids=["logistic", "huber", "huber-narrow"])
@pytest.mark.parametrize("n,d,block", [(0, 3, 4), (1, 1, 1), (7, 3, 2), (257, 5, 256), (600, 13, 64), (50, 0, 8),
                                       (33, 50, 7), (9, 4, 3), (130, 8, 256)])
def test_lane_order_kernel_equals_twin(loss, n, d, block):
    for scale in (0.1, 3.0, 800.0):             # 800: margins far beyond exp's range on both sides
        X, y, theta = _rows(n, d, 7 * n + d, scale)
        for values in (True, False):
            got = core.margin_pass_blocks(loss, X, y, theta, block, lanes=True, values=values)
            want = core.margin_pass_blocks(loss, X, y, theta, block, compiled=False, lanes=True, values=values)
            assert got[0].shape == want[0].shape == (-(-n // block), d)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            if not values:
                assert not np.any(got[1])


def test_lane_order_differs_from_row_order_and_both_match_the_formulas():
    """The two orders are different computations (so the twin comparison above can fail), equal to rounding."""
    loss = LogisticLoss()
    X, y, theta = _rows(1000, 50, 11, 2.0)
    rows = core.margin_pass_blocks(loss, X, y, theta, 256)
    lanes = core.margin_pass_blocks(loss, X, y, theta, 256, lanes=True)
    assert not np.array_equal(rows[0], lanes[0])
    m = y * (X @ theta)
    grad = X.T @ (y * loss.derivative(m))
    for blocks, values in (rows, lanes):
        assert np.allclose(blocks.sum(axis=0), grad, rtol=0, atol=1e-11)
        assert abs(values.sum() - loss.value(m).sum()) <= 1e-10 * loss.value(m).sum()


@pytest.mark.parametrize("threads", [2, 3])
def test_lane_order_split_among_threads_equals_one_thread(threads):
    for loss in LOSSES:
        X, y, theta = _rows(1029, 37, 5, 1.5)
        one = core.margin_pass_blocks(loss, X, y, theta, 64, n_threads=1, lanes=True)
        split = core.margin_pass_blocks(loss, X, y, theta, 64, n_threads=threads, lanes=True)
        assert np.array_equal(one[0], split[0]) and np.array_equal(one[1], split[1])


def test_lane_order_derivative_within_the_certified_rounding():
    """``l'`` of the shared-exponential formula is within ``derivative_rounding()`` of the exact value.

    One row with one feature equal to 1 gives the block sum ``y l'(m)`` for
    ``m = y theta``; it is compared with ``l'`` evaluated in 60-digit interval
    arithmetic at the same double margin.
    """
    from refdp.utils.precision import iv_context

    loss = LogisticLoss()
    bound = loss.derivative_rounding()
    rng = np.random.default_rng(4)
    margins = np.concatenate([rng.normal(size=300) * 5, rng.normal(size=100) * 40, [0.0, -0.0, 1e-300, -745.0,
                                                                                     709.0, 37.0, -37.0]])
    iv = iv_context(60)
    worst = 0.0
    for m in margins.tolist():
        for yv in (1.0, -1.0):
            blocks, _ = core.margin_pass_blocks(loss, np.array([[1.0]]), np.array([yv]), np.array([yv * m]),
                                                1, lanes=True)
            exact = -1 / (1 + iv.exp(iv.mpf(m)))
            got = yv * float(blocks[0, 0])
            err = abs(exact - got)
            worst = max(worst, float(err.b))
            assert float(err.b) <= bound, (m, got)
    assert worst > 0.0                          # the comparison saw rounding errors


@pytest.mark.parametrize("loss", LOSSES, ids=["logistic", "huber", "huber-narrow"])
def test_lane_order_curvatures_equal_twin_and_the_second_derivative(loss):
    """The lane pass's ``l''`` per row (the Newton matrix's weights): kernel == twin, == the loss's formula."""
    for n, d, threads in ((1, 1, 1), (37, 5, 1), (600, 13, 1), (1029, 9, 3)):
        for scale in (0.1, 3.0, 800.0):
            X, y, theta = _rows(n, d, 5 * n + d, scale)
            got, want = np.full(n, np.nan), np.full(n, np.nan)
            a = core.margin_pass_blocks(loss, X, y, theta, 64, lanes=True, curvatures=got, n_threads=threads)
            b = core.margin_pass_blocks(loss, X, y, theta, 64, compiled=False, lanes=True, curvatures=want)
            assert np.array_equal(got, want) and np.array_equal(a[0], b[0])
            m = y * (X @ theta)
            ref = loss.second_derivative(m)
            inside = np.abs(np.abs(m - 1.0) - getattr(loss, "h", np.inf)) > 1e-9   # off the Huber kinks
            assert np.allclose(got[inside], ref[inside], rtol=1e-12, atol=1e-300)
    with pytest.raises(ValueError, match="curvatures"):
        core.margin_pass_blocks(LOSSES[0], X, y, theta, 64, curvatures=np.empty(X.shape[0]))
