"""The compiled data screens equal their twins and never contradict exact arithmetic.

``refdp.core.row_norm_sign`` decides the sign of ``||x||**2 - radius**2`` per
row with a compensated sum (``refdp/_erm.pyx``; twin
``refdp/twins/erm.py``), leaving 0 where it cannot; ``rows_above`` settles
those rows exactly. Kernel and twin must return the same signs, and every
decided sign must be the sign of the exact squared norm minus ``radius**2``
(computed in rational arithmetic). The same holds for the column sums of
``|x|`` that bound the cell search's rounding error (``column_abs_sums``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from refdp import core
from refdp.erm._data import _exact_sq_norm, rows_above


def _cases(seed):
    rng = np.random.default_rng(seed)
    for trial in range(40):
        n, d = int(rng.integers(1, 30)), int(rng.integers(1, 70))
        X = rng.normal(size=(n, d))
        mode = trial % 5
        if mode == 0:                                   # on the unit sphere up to rounding
            X /= np.linalg.norm(X, axis=1)[:, None]
        elif mode == 1:                                 # every scale the split handles, and beyond
            X *= 10.0 ** rng.integers(-300, 300, size=(n, 1))
        elif mode == 2:                                 # zeros among the entries
            X[rng.random((n, d)) < 0.3] = 0.0
            X /= np.maximum(np.linalg.norm(X, axis=1)[:, None], 1e-300)
        elif mode == 3:                                 # one entry non-finite, subnormal or huge
            X.flat[int(rng.integers(0, X.size))] = rng.choice([np.inf, -np.inf, np.nan, 1e-310, 1e-200,
                                                               1e200, 1e308])
        yield X


RADII = (1.0, 0.5, 3.0, 2.0**-480, 2.0**500, 0.7310585786300049)


@pytest.mark.parametrize("seed", range(3))
def test_kernel_equals_twin_and_decided_signs_are_exact(seed):
    decided = 0
    for X in _cases(seed):
        finite = np.all(np.isfinite(X), axis=1)
        exact = [None if not f else q for f, q in zip(finite, _exact_sq_norm(np.where(np.isfinite(X), X, 0.0)))]
        for r in RADII:
            got = core.row_norm_sign(X, r)
            assert np.array_equal(got, core.row_norm_sign(X, r, compiled=False))
            r2 = Fraction(r) ** 2
            for s, q in zip(got.tolist(), exact):
                if s:
                    assert q is not None and (q > r2) == (s > 0) and q != r2
                    decided += 1
    assert decided > 1000


def test_rows_on_the_sphere_are_decided_both_ways():
    # rows scaled to norm 1 in floating point land on both sides of 1 by rounding: the screen
    # decides most of them, and rows_above agrees with the exact squared norms
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 31))
    X /= np.linalg.norm(X, axis=1)[:, None]
    signs = core.row_norm_sign(X, 1.0)
    assert (signs > 0).sum() > 50 and (signs < 0).sum() > 50
    want = [i for i, q in enumerate(_exact_sq_norm(X)) if q > 1]
    assert rows_above(X).tolist() == want


def test_radius_outside_the_split_range_leaves_every_row_undecided():
    X = np.ones((3, 2))
    for r in (2.0**-481, 2.0**501):
        assert core.row_norm_sign(X, r).tolist() == [0, 0, 0]


def test_column_abs_sums_kernel_equals_twin_and_bounds_the_exact_sums():
    from refdp.erm import _grid_minimiser as gm
    from refdp.utils.rounding import gamma

    for seed in range(3):
        for X in _cases(seed):
            X = np.where(np.isfinite(X), X, 0.0)
            got = core.column_abs_sums(X)
            assert np.array_equal(got, core.column_abs_sums(X, compiled=False))
            exact = [sum(abs(Fraction(float(v))) for v in col) for col in X.T]
            # the cell search's bound: the float sum times (1 + 2 gamma_(n+2)) (1 + 4u) is at least the exact sum
            n = X.shape[0]
            bound = got * (1.0 + 2.0 * gamma(n + 2)) * (1.0 + 4 * 2.0**-53)
            assert all(Fraction(float(b)) >= e for b, e in zip(bound, exact) if np.isfinite(b))
    Z = np.asfortranarray(np.arange(12.0).reshape(4, 3) - 5.0)            # any memory order
    assert core.column_abs_sums(Z).tolist() == [12.0, 12.0, 12.0]
    assert gm.GridMinimiser(None, np.ascontiguousarray(Z) / 20, np.ones(4), 1.0, 1.0).col_abs.shape == (3,)
