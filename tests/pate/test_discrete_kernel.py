"""The compiled exact analysis of the float-safe LNMax (discrete noise): twin, safety against the evaluation it replaced, threads.

* the compiled kernel (``refdp.core.discrete_exact_rows``) and its pure-Python
  twin give the same doubles;
* on a fixed set of vote histograms every value is at least the value the
  NumPy evaluation gave before the kernel (``tests/_support/discrete_exact_before.json``,
  written by that evaluation) and at least the NumPy evaluation kept for the
  cases outside the kernel's range, and above them by no more than the
  documented margins (and, under ``-m slow``, on 400 random count vectors);
* the result does not depend on the number of threads nor on other threads
  running (one of them changing mpmath's global precision).
"""
from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

from refdp import core
from refdp.pate import exact_analysis
from refdp.pate.discrete_analysis import (TAIL_SCALES, _numpy_exact_log_moments, compiled_law_margins,
                                          discrete_exact_log_q, lnmax_scale)
from tests._support.paths import ROOT
from tests._support.threads import run_beside_global_precision_changes

BEFORE = json.loads((ROOT / "tests" / "_support" / "discrete_exact_before.json").read_text())


def _k(t):
    return math.ceil(TAIL_SCALES * float(t)) + 2


@pytest.mark.parametrize("gamma,counts", [
    (2.0, [[5, 1, 0], [3, 3, 1], [4, 0, 0], [1, 0, 0]]),
    (1.0, [[6, 2, 2, 1], [0, 3, 0, 0]]),
    (3.0, [[7, 0], [2, 2]]),
    (2.5, [[6], [1]]),
    (60.0, [[15, 3, 2], [9, 9, 0]]),         # products below exp(-600): the log-space terms
])
def test_compiled_kernel_equals_python_twin(gamma, counts):
    pytest.importorskip("refdp._lnmax")
    arr = np.array(counts, dtype=np.int64)
    t = lnmax_scale(gamma)
    orders = np.array([0.25, 1.0, 8.0, 64.0])
    margins = compiled_law_margins(arr, t)
    got = core.discrete_exact_rows(arr, t, _k(t), margins, orders, n_threads=1)
    want = core.discrete_exact_rows(arr, t, _k(t), margins, orders, use_compiled=False)
    for g, w in zip(got, want):
        assert g.shape == w.shape and np.array_equal(g, w)


def _values(rows):
    orders = np.array(BEFORE["orders"])
    new = [exact_analysis([r["counts"]], r["gamma"], orders, noise="discrete") for r in rows]
    old = [(float.fromhex(r["log_q"]), float.fromhex(r["log_q_two_sided"]),
            np.array([float.fromhex(v) for v in r["forward"]]), np.array([float.fromhex(v) for v in r["both"]]))
           for r in rows]
    return orders, new, old


def _above_within(new, old, allowed):
    new, old = np.atleast_1d(new), np.atleast_1d(old)
    fin = np.isfinite(old)
    assert np.array_equal(np.isfinite(new), fin) and np.array_equal(new[~fin], old[~fin])
    assert np.all(new[fin] >= old[fin]), (new, old)
    assert np.all(new[fin] - old[fin] <= allowed[fin] if np.ndim(allowed) else new[fin] - old[fin] <= allowed)


def test_every_value_is_at_least_the_replaced_evaluation_and_close_to_it():
    orders, new, old = _values(BEFORE["rows"])
    assert len(new) == 26
    for r, (lq, lq2, fwd, both) in zip(new, old):
        # log q: the extra over the single-law evaluation is the difference of margins, about
        # 2 FAST_MARGIN (1 + W), below 1e-8 at these sizes
        _above_within(r.log_q, lq, 1e-8 * (1 + abs(lq)) if math.isfinite(lq) else 0.0)
        _above_within(r.log_q_two_sided, lq2, 1e-8 * (1 + abs(lq2)) if math.isfinite(lq2) else 0.0)
        # log-moments: the law margins enter (2 lambda + 1) times
        allowed = 1e-8 * (2 * orders + 2) * (1 + np.abs(both))
        _above_within(r.log_moments_forward[0], fwd, allowed)
        _above_within(r.log_moments[0], both, allowed)


def test_at_least_the_numpy_evaluation_on_the_benchmark_histograms():
    rng = np.random.default_rng(5)
    p = np.full((6, 10), 0.1 / 9)
    p[np.arange(6), rng.integers(0, 10, 6)] = 0.9
    arr = np.array([rng.multinomial(250, row) for row in p], dtype=np.int64)
    orders = np.array([0.5, 2.0, 16.0, 128.0])
    r = exact_analysis(arr, 0.05, orders)
    fwd, both = _numpy_exact_log_moments(arr, lnmax_scale(0.05), orders)
    assert np.all(r.log_moments_forward >= fwd) and np.all(r.log_moments >= both)
    assert np.all(r.log_moments - both <= 1e-8 * (2 * orders + 2) * (1 + both))
    for two, got in ((False, r.log_q), (True, r.log_q_two_sided)):
        ref = discrete_exact_log_q(arr, 0.05, two_sided=two)
        _above_within(got, ref, 1e-8 * (1 + np.abs(np.where(np.isfinite(ref), ref, 0.0))))


def test_threads_do_not_change_the_result():
    rng = np.random.default_rng(8)
    arr = np.array([rng.multinomial(40, rng.dirichlet(np.ones(5))) for _ in range(40)], dtype=np.int64)
    orders = np.array([1.0, 8.0, 32.0])
    ref = exact_analysis(arr, 0.3, orders, n_threads=1)
    two = exact_analysis(arr, 0.3, orders, n_threads=2)
    results = []

    def run():
        results.append(exact_analysis(arr, 0.3, orders, n_threads=2))

    errors = run_beside_global_precision_changes([run] * 3)
    assert errors == [None] * 3 and len(results) == 3
    for r in [two] + results:
        for name in ("log_q", "log_q_two_sided", "log_moments_forward", "log_moments"):
            assert np.array_equal(getattr(r, name), getattr(ref, name)), name


@pytest.mark.slow
def test_at_least_the_numpy_evaluation_on_random_vectors():
    # 400 random count vectors (2 to 12 classes, 1 to 120 teachers, gamma from 2**-6 to 60): every
    # value at least the NumPy evaluation's, above it by at most a few of its margins
    rng = np.random.default_rng(123)
    orders = np.array([0.25, 0.5, 1.0, 2.0, 3.5, 8.0, 16.0, 64.0, 256.0])
    done = 0
    while done < 400:
        C, T = int(rng.integers(2, 13)), int(rng.integers(1, 121))
        gamma = float(np.exp(rng.uniform(np.log(2.0**-6), np.log(60.0))))
        if gamma * T > 8192:
            continue
        arr = rng.multinomial(T, rng.dirichlet(np.full(C, rng.choice([0.2, 1.0, 5.0]))))[None, :].astype(np.int64)
        r = exact_analysis(arr, gamma, orders)
        fwd, both = _numpy_exact_log_moments(arr, lnmax_scale(gamma), orders)
        pairs = [(r.log_moments_forward, fwd), (r.log_moments, both),
                 (r.log_q, discrete_exact_log_q(arr, gamma, two_sided=False)),
                 (r.log_q_two_sided, discrete_exact_log_q(arr, gamma))]
        for new, old in pairs:
            _above_within(new, old, 1e-4 * (1 + np.abs(np.where(np.isfinite(old), old, 0.0))))
        done += 1
