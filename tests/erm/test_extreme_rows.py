"""Rows and norm bounds at the ends of the float range: decided exactly, mapped without a hang.

Before: with ``clip=True`` a row whose float sum of squares overflows (``[1e200, 1]``)
became zeros (division by an infinite norm); a bound whose square underflows
(``norm_bound=1e-320``) accepted every row in the float screen (``0 <= 0``), so a
row above it was divided by the bound and the shrink loop ran for ever; a bound
whose square overflows accepted rows above it (``inf <= inf``).
"""
import faulthandler
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refdp.erm._data import rows_above, unit_ball_rows


def _exact_norm_sq(row):
    return sum(F(float(v)) ** 2 for v in row)


@pytest.mark.parametrize("row, bound, direction", [
    ([1e200, 1.0], 1.0, [1.0, 1e-200]),
    ([1e308, -1e308, 1e308], 1.0, [3 ** -0.5, -(3 ** -0.5), 3 ** -0.5]),
    ([1e-310, 0.0], 1e-320, [1.0, 0.0]),
    ([3e-200, 4e-200], 1e-300, [0.6, 0.8]),
    ([-1.5e308, 0.0], 1e308, [-1.0, 0.0]),
])
def test_clipping_keeps_the_direction_at_extreme_magnitudes(row, bound, direction):
    faulthandler.dump_traceback_later(120, exit=True)     # the old loop never ended: fail, not hang
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")        # no overflow / invalid RuntimeWarning either
            Z = unit_ball_rows(np.array([row]), "t", norm_bound=bound, clip=True)
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert np.all(np.isfinite(Z))
    assert _exact_norm_sq(Z[0]) <= 1
    assert np.allclose(Z[0], direction, rtol=1e-12, atol=0)


def test_rows_inside_an_overflowing_or_underflowing_bound_are_kept():
    Z = unit_ball_rows(np.array([[1e307, 0.0], [0.0, -5e307]]), "t", norm_bound=1e308)
    assert np.allclose(Z, [[0.1, 0.0], [0.0, -0.5]], rtol=1e-15, atol=0)
    Z = unit_ball_rows(np.array([[5e-321, 0.0]]), "t", norm_bound=1e-320)
    assert _exact_norm_sq(Z[0]) <= 1 and Z[0, 0] > 0.4


def test_error_message_names_a_finite_norm_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"norm_bound.*Got a row of norm 1e\+200 at position 0"):
            unit_ball_rows(np.array([[1e200, 1.0]]), "t")
        with pytest.raises(ValueError, match=r"Got a row of norm 1e-310"):
            unit_ball_rows(np.array([[0.0, 1e-310]]), "t", norm_bound=1e-320)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6),
       st.sampled_from([5e-324, 1e-320, 2.0 ** -500, 1e-160, 1e160, 2.0 ** 520, 1e300, 1.7976931348623157e308]),
       st.sampled_from([1e-3, 0.5, 1.0, 1 + 2.0 ** -52, 1 - 2.0 ** -52, 2.0, 1e3]))
def test_rows_above_is_exact_for_any_radius(seed, d, radius, scale):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(8, d))
    X /= np.linalg.norm(X, axis=1)[:, None]
    with np.errstate(over="ignore", under="ignore"):
        X = X * (radius * scale)
    X = X[np.all(np.isfinite(X), axis=1)]
    r2 = F(radius) ** 2
    assert rows_above(X, radius).tolist() == [i for i, row in enumerate(X) if _exact_norm_sq(row) > r2]
