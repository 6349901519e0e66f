"""The discrete exact analysis skips the moves whose log-moments are provably below the largest.

* ``order_anchors`` finds the anchor orders (the first order times powers of
  two) and refuses order lists the chords cannot cover;
* with pruning, the compiled kernel and its twin give the same doubles as the
  twin evaluating every move in full (``prune=False``), on the benchmark's
  agreeing histograms, on random vote vectors (several orders lists, gamma
  from 2**-5 to 40) and with other threads changing mpmath's precision;
* on agreeing histograms most moves are skipped (the pruning is in use);
* the anchor bounds are upper bounds of the log-moments of the same laws,
  computed with mpmath at 40 digits.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from refdp import core
from refdp.accounting import DEFAULT_ORDERS
from refdp.pate.discrete_analysis import TAIL_SCALES, compiled_law_margins, lnmax_scale
from refdp.twins import lnmax as tl
from tests._support.threads import run_beside_global_precision_changes


def _setup(arr, gamma):
    t = lnmax_scale(gamma)
    k = math.ceil(TAIL_SCALES * float(t)) + 2
    spread = int((arr.max(axis=1) - arr.min(axis=1)).max())
    tab, mlo, consts = tl.discrete_tables(t, spread, k)
    return t, k, tab, mlo, consts, compiled_law_margins(arr, t)


def _twin(arr, gamma, orders, prune):
    _, k, tab, mlo, consts, margins = _setup(arr, gamma)
    chain = tl.order_chain(list(orders))
    return [tl.discrete_exact_query(r, k, tab, mlo, consts, float(m), list(orders), chain, prune=prune)
            for r, m in zip(arr.tolist(), margins.tolist())]


def _same(rows_a, rows_b):
    for a, b in zip(rows_a, rows_b):
        assert a[0] == b[0] and a[1] == b[1], (a[:2], b[:2])
        assert np.array_equal(np.asarray(a[2]), np.asarray(b[2])) and np.array_equal(np.asarray(a[3]),
                                                                                       np.asarray(b[3]))


def _agreeing(q, seed):
    rng = np.random.default_rng(seed)
    p = np.full((q, 10), 0.1 / 9)
    p[np.arange(q), rng.integers(0, 10, q)] = 0.9
    return np.array([rng.multinomial(250, row) for row in p], dtype=np.int64)


def test_order_anchors():
    anc, asq, wk = tl.order_anchors([float(v) for v in DEFAULT_ORDERS])
    lam = [float(v) for v in DEFAULT_ORDERS]
    assert [lam[i] for i in anc] == [0.25 * 2.0**e for e in range(11)] and asq == [0] + [1] * 10
    assert all(wk[i] == 0.0 for i in anc)
    i = lam.index(1.5)                                   # between the anchors 1 and 2
    assert wk[i] == 0.5
    assert tl.order_anchors([1.0, 3.0, 8.0]) == ([0, 2], [0, 3], [0.0, 2.0 / 7.0, 0.0])
    for bad in ([1.0], [1.0, 3.0], [2.0, 1.0, 4.0], [1.0, 1.0, 2.0], [0.0, 1.0, 2.0], [-1.0, 2.0],
                [2.0**e for e in range(tl.MAX_ANCHORS + 1)]):
        assert tl.order_anchors(bad) is None, bad


@pytest.mark.skipif(not core.LNMAX_COMPILED, reason="refdp._lnmax is not built")
def test_pruned_equals_every_move_on_agreeing_histograms():
    arr = _agreeing(6, 3)
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    full = _twin(arr, 0.05, orders, prune=False)
    _same(_twin(arr, 0.05, orders, prune=True), full)
    t, k, _, _, _, margins = _setup(arr, 0.05)
    got = core.discrete_exact_rows(arr, t, k, margins, orders, n_threads=1)
    _same([tuple(x[r] for x in got) for r in range(arr.shape[0])], full)


@pytest.mark.skipif(not core.LNMAX_COMPILED, reason="refdp._lnmax is not built")
@pytest.mark.parametrize("orders", [[float(v) for v in DEFAULT_ORDERS], [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 8.0, 12.0, 16.0],
                                    [1.0, 2.0, 3.0, 8.0, 64.0], [0.3, 2.0, 7.0]])
def test_pruned_equals_every_move_on_random_vectors(orders):
    rng = np.random.default_rng(len(orders))
    orders = np.array(orders)
    done = 0
    while done < 12:
        C, T = int(rng.integers(2, 8)), int(rng.integers(1, 60))
        gamma = float(np.exp(rng.uniform(np.log(2.0**-5), np.log(40.0))))
        if gamma * T > 8192:
            continue
        arr = rng.multinomial(T, rng.dirichlet(np.full(C, rng.choice([0.2, 1.0, 5.0]))))[None, :].astype(np.int64)
        full = _twin(arr, gamma, orders, prune=False)
        t, k, _, _, _, margins = _setup(arr, gamma)
        got = core.discrete_exact_rows(arr, t, k, margins, orders, n_threads=1)
        _same([tuple(x[0] for x in got)], full)
        done += 1


@pytest.mark.skipif(not core.LNMAX_COMPILED, reason="refdp._lnmax is not built")
def test_pruned_kernel_beside_global_precision_changes():
    arr = _agreeing(40, 4)
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    t, k, _, _, _, margins = _setup(arr, 0.05)
    ref = core.discrete_exact_rows(arr, t, k, margins, orders, n_threads=1)
    full = _twin(arr[:3], 0.05, orders, prune=False)
    _same([tuple(x[r] for x in ref) for r in range(3)], full)
    results = []

    def run():
        results.append(core.discrete_exact_rows(arr, t, k, margins, orders, n_threads=2))

    assert run_beside_global_precision_changes([run] * 3) == [None] * 3
    for r in results:
        assert all(np.array_equal(a, b) for a, b in zip(r, ref))


def test_most_moves_are_skipped_on_agreeing_histograms(monkeypatch):
    arr = _agreeing(4, 5)
    orders = [float(v) for v in DEFAULT_ORDERS]
    calls = []
    real = tl._moments_update
    monkeypatch.setattr(tl, "_moments_update", lambda *a: (calls.append(1), real(*a))[1])
    _twin(arr, 0.05, orders, prune=True)
    pruned = len(calls)
    calls.clear()
    _twin(arr, 0.05, orders, prune=False)
    assert len(calls) == 2 * 9 * int((arr >= 1).sum())    # every move, both directions
    assert pruned < 0.3 * len(calls), (pruned, len(calls))


@pytest.mark.parametrize("counts,gamma", [([6, 1, 0], 0.5), ([12, 3, 3, 1], 0.2)])
def test_anchor_bounds_are_upper_bounds(counts, gamma, monkeypatch):
    # the laws of the kernel (hi of n, lo of each neighbour): the anchor bounds of every call are at
    # least the log-moments of the same doubles computed at 40 digits
    arr = np.array([counts], dtype=np.int64)
    _, k, tab, mlo, consts, margins = _setup(arr, gamma)
    orders = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    anchors = tl.order_anchors(orders)
    seen = []
    real = tl._anchor_bounds

    def spy(h, l, orders_, anchors_, lam_max, big):
        u = real(h, l, orders_, anchors_, lam_max, big)
        seen.append((list(h), list(l), u))
        return u

    monkeypatch.setattr(tl, "_anchor_bounds", spy)
    tl.discrete_exact_query(counts, k, tab, mlo, consts, float(margins[0]), orders)
    assert len(seen) == 2 * sum(len(counts) - 1 for c in counts if c >= 1)
    ctx = mpmath.mp.clone()
    ctx.dps = 40
    finite = 0
    for h, l, u in seen:
        for i, g in enumerate(anchors[0]):
            lam = ctx.mpf(orders[g])
            exact = ctx.log(ctx.fsum(ctx.exp((lam + 1) * ctx.mpf(a) - lam * ctx.mpf(b)) for a, b in zip(h, l)))
            assert u[i] >= exact
            finite += math.isfinite(u[i])
            # above by at most (S - 1)**2 / 2 <= 2**-17 (S - 1 standing for log S) and the rounding terms
            assert not math.isfinite(u[i]) or u[i] - exact < 2.0**-17 + 1e-9 * (1 + abs(float(exact)))
    assert finite > 0


def test_compiled_law_margins_equal_the_per_row_formula():
    from refdp.pate.discrete_analysis import COMPILED_MARGIN_FACTOR, FAST_MARGIN, fast_magnitude

    rng = np.random.default_rng(2)
    for gamma in (2.0**-6, 0.05, 1.0, 30.0):
        arr = rng.integers(0, 400, size=(50, 7)).astype(np.int64)
        t = lnmax_scale(gamma)
        k = math.ceil(TAIL_SCALES * float(t)) + 2
        want = [COMPILED_MARGIN_FACTOR * FAST_MARGIN * (1.0 + fast_magnitude(int(r.sum()), 7, t))
                + 2.0**-52 * (int(r.max() - r.min()) + 2 * k + 3 + 7 + 16) for r in arr]
        assert compiled_law_margins(arr, t).tolist() == want


@pytest.mark.skipif(not core.LNMAX_COMPILED, reason="refdp._lnmax is not built")
@pytest.mark.parametrize("gamma", [0.05, 0.5, 3.0])
def test_compiled_pruned_equals_compiled_every_move(gamma):
    rng = np.random.default_rng(int(gamma * 100))
    arr = np.vstack([_agreeing(150, 6)[:, :], rng.multinomial(250, rng.dirichlet(np.ones(10)), size=150)])
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    t, k, _, _, _, margins = _setup(arr, gamma)
    a = core.discrete_exact_rows(arr, t, k, margins, orders, n_threads=2)
    b = core.discrete_exact_rows(arr, t, k, margins, orders, n_threads=2, prune=False)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
