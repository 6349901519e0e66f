"""PATE 2017's published epsilon (reproduced) against the exact delta of the same LNMax answers."""
import math
import re

import numpy as np
import pytest

from refdp.utils.precision import iv_context
from refdp.accounting import lnmax_neighbour_delta, pate2017_epsilon
from refdp.accounting import pate2017 as mod
from refdp.pate import lnmax_distribution

P = "The '{}' parameter of {} must be"


def _script(rows, gamma, delta, moments=8):
    # the script's arithmetic, written out independently for one histogram
    eps = 2 * gamma
    total = np.zeros(moments)
    for row in rows:
        w = int(np.argmax(row))
        q = sum((gamma * (row[w] - c) + 2) / (4 * math.exp(gamma * (row[w] - c)))
                for j, c in enumerate(row) if j != w)
        q = min(q, 1 - 1 / len(row))
        for i, l in enumerate(range(1, moments + 1)):
            if q < 0.5:
                t = (1 - q) * ((1 - q) / (1 - math.exp(eps) * q)) ** l + q * math.exp(eps * l)
                lt = math.log(t) if t > 0 else eps * l
            else:
                lt = eps * l
            total[i] += min(0.5 * eps * eps * l * (l + 1), lt, eps * l)
    return min((total - math.log(delta)) / np.arange(1, moments + 1))


@pytest.mark.parametrize("row, gamma", [([50, 49] + [0] * 8, 1.0), ([50, 49, 45] + [0] * 7, 0.5),
                                        ([240, 6, 4], 0.05), ([30, 25, 20, 0], 0.2)])
def test_reproduces_the_script(row, gamma):
    r = pate2017_epsilon([row] * 7, gamma, 1e-5)
    assert r.epsilon == pytest.approx(_script([row] * 7, gamma, 1e-5), rel=1e-12)


def test_outside_range_and_negative_epsilon_are_reported():
    r = pate2017_epsilon([[50, 49, 45] + [0] * 7] * 100, 0.5, 1e-5)
    assert r.outside_range == 100 and r.negative_terms > 0 and r.epsilon < 0
    ok = pate2017_epsilon([[240, 6, 4]] * 10, 0.05, 1e-5)
    assert ok.outside_range == 0 and ok.negative_terms == 0 and ok.epsilon > 0
    crash = pate2017_epsilon([[50, 48] + [0] * 8], 1.0, 1e-5)   # e^2 q rounds to 1
    assert crash.script_error.startswith("ZeroDivisionError") and math.isnan(crash.epsilon)


def _hockey(p, q, eps):
    return sum(max(0.0, a - math.exp(eps) * b) for a, b in zip(p, q))


@pytest.mark.parametrize("row, gamma, eps", [([5, 4, 1], 0.5, 0.3), ([50, 49] + [0] * 8, 1.0, 0.5),
                                             ([3, 3, 0], 0.7, 0.0)])
def test_single_answer_matches_the_hockey_stick_of_the_laws(row, gamma, eps):
    want = 0.0
    for moved in mod._moves(row):
        p = lnmax_distribution(row, gamma, exact=True, dps=40)
        q = lnmax_distribution(list(moved), gamma, exact=True, dps=40)
        p, q = [float(x) for x in p], [float(x) for x in q]
        want = max(want, _hockey(p, q, eps), _hockey(q, p, eps))
    enc = lnmax_neighbour_delta([row], gamma, eps)
    assert enc.lower - 1e-14 <= want <= enc.upper + 1e-14
    assert enc.width <= 1e-12


def test_exact_multinomial_path_agrees_with_the_grid_path():
    row, gamma, T, eps = (6, 5, 1, 0), 0.5, 12, 2.0
    exact = lnmax_neighbour_delta([list(row)] * T, gamma, eps)
    grid = mod._grid_delta({row: T}, gamma, eps, 1e-3, iv_context(30))
    assert exact.width <= 1e-12 and grid.width < 0.1 * grid.upper
    assert grid.lower <= exact.lower <= exact.upper <= grid.upper


def test_published_pair_is_refuted():
    # gamma = 1, 100 answers of (50, 49, 0, ...): the script publishes about 54.3 at delta 1e-5
    r = pate2017_epsilon([[50, 49] + [0] * 8] * 100, 1.0, 1e-5)
    assert r.epsilon == pytest.approx(54.2972, abs=1e-4) and r.order == 1
    enc = lnmax_neighbour_delta([[50, 49] + [0] * 8] * 100, 1.0, r.epsilon)
    assert enc.lower > 0.07


def test_bad_input():
    with pytest.raises(ValueError, match=re.escape(P.format("delta", "pate2017_epsilon"))):
        pate2017_epsilon([[3, 1]], 0.5, 1.0)
    with pytest.raises(ValueError, match=re.escape(P.format("moments", "pate2017_epsilon"))):
        pate2017_epsilon([[3, 1]], 0.5, 1e-5, moments=0)
    with pytest.raises(ValueError, match=re.escape(P.format("epsilon", "lnmax_neighbour_delta"))):
        lnmax_neighbour_delta([[3, 1]], 0.5, -1.0)
    with pytest.raises(ValueError, match=re.escape(P.format("gamma", "lnmax_neighbour_delta"))):
        lnmax_neighbour_delta([[3, 1]], 0.0, 1.0)


def test_neighbour_delta_needs_two_classes():
    # the neighbour moves a vote from the plurality to the runner-up: one class has none
    with pytest.raises(ValueError, match=r"^The 'counts' parameter of lnmax_neighbour_delta .*two classes"):
        lnmax_neighbour_delta([5], 0.2, 0.5)
