"""The continuous exact analysis evaluates its log-moments along the chain of orders: safe and at least the values before.

* on fixed vote histograms every value is at least the value of the direct
  evaluation it replaced (``tests/_support/continuous_exact_before.json``,
  written by that evaluation), and above it by no more than the added
  rounding margins, also with other threads running (one of them changing
  mpmath's global precision);
* the compiled kernel and its twin give the same values along the chain;
* against the brute-force mpmath reference, at the 63 default orders (the
  chain in use), every log-moment is an upper bound within the margins.
"""
from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from proofs_checks.pate import reference as R
from refdp import core
from refdp.accounting import DEFAULT_ORDERS
from refdp.pate import exact_analysis
from refdp.twins.lnmax import order_chain
from tests._support.paths import ROOT
from tests._support.threads import run_beside_global_precision_changes

BEFORE = json.loads((ROOT / "tests" / "_support" / "continuous_exact_before.json").read_text())
ORDERS = np.array(BEFORE["orders"])


def _old(row):
    return (float.fromhex(row["log_q"]), float.fromhex(row["log_q_two_sided"]),
            np.array([float.fromhex(v) for v in row["forward"]]), np.array([float.fromhex(v) for v in row["both"]]))


def _check_rows(rows):
    for row in rows:
        counts = np.array([row["counts"]], dtype=np.int64)
        new = exact_analysis(counts, row["gamma"], ORDERS, noise="continuous")
        lq, lq2, fwd, both = _old(row)
        # the laws are computed as before: log q is unchanged
        assert new.log_q[0] == lq and new.log_q_two_sided[0] == lq2
        big = core.lnmax_exact_rows(counts, row["gamma"], ORDERS)[4][0]
        for got, old in ((new.log_moments_forward[0], fwd), (new.log_moments[0], both)):
            assert np.all(got >= old), (row, got - old)
            allowed = 2.0**-46 * ((2 * ORDERS + 2) * (1 + big) + np.abs(old))
            assert np.all(got - old <= allowed), (row, (got - old) / allowed)


def test_at_least_the_direct_evaluation_and_close_to_it():
    assert len(BEFORE["rows"]) == 35
    assert order_chain(ORDERS.tolist())[1].size > 0          # the chain is in use at these orders
    _check_rows(BEFORE["rows"])


def test_same_values_with_other_threads_running():
    rows = BEFORE["rows"]
    errors = run_beside_global_precision_changes([lambda i=i: _check_rows(rows[i::3]) for i in range(3)])
    assert errors == [None] * 3, [e for e in errors if e is not None][0]


@pytest.mark.skipif(not core.LNMAX_COMPILED, reason="refdp._lnmax is not built")
def test_compiled_chain_equals_twin():
    rng = np.random.default_rng(11)
    counts = np.ascontiguousarray(rng.multinomial(60, rng.dirichlet(np.full(6, 0.5)), size=6), dtype=np.int64)
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    a = core.lnmax_exact_rows(counts, 0.1, orders, use_compiled=True)
    b = core.lnmax_exact_rows(counts, 0.1, orders, use_compiled=False)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("counts,gamma", [([4, 3, 1], 0.5), ([9, 0], 0.5), ([2, 2, 1], 1.0)])
def test_upper_bounds_of_the_mpmath_reference_at_the_default_orders(counts, gamma):
    orders = [float(v) for v in DEFAULT_ORDERS]
    with mpmath.workdps(30):
        fwd, both = R.worst_log_moments(counts, gamma, orders)
    r = exact_analysis([counts], gamma, orders, noise="continuous")
    for k, lam in enumerate(orders):
        tol = 1e-9 * (1 + abs(both[k])) + (2 * lam + 4) * 1e-11
        assert both[k] <= r.log_moments[0, k] <= both[k] + tol
        assert fwd[k] <= r.log_moments_forward[0, k] <= fwd[k] + tol


@pytest.mark.skipif(not core.LNMAX_COMPILED, reason="refdp._lnmax is not built")
@pytest.mark.parametrize("noise", ["continuous", "discrete"])
def test_moves_on_both_branches_of_the_chain(noise):
    # gamma = 2: some moves have max |delta| * 256 > 600 (the direct log-sum-exp), others not (the
    # chain); the factors shared by the forward moves must survive the direct ones in between
    import math

    from refdp.pate.discrete_analysis import TAIL_SCALES, compiled_law_margins, lnmax_scale

    counts = np.array([[6, 1, 0, 0, 2], [5, 5, 0, 1, 0], [9, 0, 1, 0, 0]], dtype=np.int64)
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    if noise == "continuous":
        a = core.lnmax_exact_rows(counts, 2.0, orders, use_compiled=True)
        b = core.lnmax_exact_rows(counts, 2.0, orders, use_compiled=False)
    else:
        t = lnmax_scale(2.0)
        k = math.ceil(TAIL_SCALES * float(t)) + 2
        m = compiled_law_margins(counts, t)
        a = core.discrete_exact_rows(counts, t, k, m, orders, n_threads=1)
        b = core.discrete_exact_rows(counts, t, k, m, orders, use_compiled=False)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
