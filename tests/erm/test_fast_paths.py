"""The fast paths of the objective-perturbation release compute the same values as their definitions.

* the box centre and gap on the lazy draw's unreduced integer boxes equal the
  values on the reduced rational boxes (the centre: the correctly rounded
  midpoint over ``n``);
* a remembered budget is the budget computed afresh, and the refusals of
  out-of-range epsilons still name the caller.
"""
from __future__ import annotations

import importlib
from fractions import Fraction

import numpy as np
import pytest

from refdp.erm import _grid_minimiser as gm
from refdp.utils import lazy_noise as ln

op = importlib.import_module("refdp.erm.objective_perturbation")   # the module, not the function


@pytest.mark.parametrize("dim", [1, 3, 31])
def test_integer_boxes_give_the_centre_and_gap_of_the_rational_boxes(dim):
    for seed in range(10):
        noise = ln.LazySphericalLaplace(ln.BitSource(np.random.PCG64(seed)), dim, Fraction(3, 7))
        for bits in (24, 16, 16):
            noise.refine(bits)
            ints, box = noise.integer_bounds(), noise.bounds()
            assert [(Fraction(a, b), Fraction(c, d)) for a, b, c, d in ints] == box
            assert all(b > 0 and d > 0 for _, b, _, d in ints)
            n = 1000 + seed
            centre = gm._centre_ints(ints, n)
            want = np.array([float((lo + hi) / 2) for lo, hi in box]) / n
            assert np.array_equal(centre, want)
            assert gm._box_gap_ints(ints, centre, n) == gm._box_gap(box, centre, n)


def test_gaussian_integer_boxes_are_its_boxes():
    noise = ln.LazyGaussianVector(ln.BitSource(np.random.PCG64(4)), 5, Fraction(5, 3))
    noise.refine(9)
    assert [(Fraction(a, b), Fraction(c, d)) for a, b, c, d in noise.integer_bounds()] == noise.bounds()


def test_a_remembered_budget_is_the_budget_computed_afresh():
    for args in [(1.0, 0.25, 398, 1e-3, 2), (0.1, 0.25, 10_000, 1e-3, 2), (10.0, 0.25, 1000, 1e-3, 1),
                 (1, 0.25, 100, 0.1, 1)]:
        first = op._budget(*args)
        assert first == op._compute_budget(*args)
        assert op._budget(*args) is first                    # remembered
    # int and float epsilons are remembered apart and stamp the same float
    assert op._budget(2, 0.25, 50, 0.01, 2) == op._budget(2.0, 0.25, 50, 0.01, 2)
    for _ in range(2):                                        # a refusal is recomputed, naming its caller
        with pytest.raises(ValueError, match="'epsilon' parameter of my_caller"):
            op._budget(5e-324, 0.25, 10, 1e-3, 2, "my_caller")


@pytest.mark.parametrize("h", [None, 0.5, 1.5])
def test_the_evaluation_at_zero_equals_a_pass_at_zero(h):
    """``pass_at_zero`` (no pass over the rows) gives the value, gradient and l'' of a lane pass at f = 0."""
    from refdp.erm import HuberHingeLoss, LogisticLoss
    from refdp.utils import solver

    loss = LogisticLoss() if h is None else HuberHingeLoss(h)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(700, 9))
    X /= 1.01 * np.linalg.norm(X, axis=1)[:, None]
    y = np.where(rng.random(700) < 0.4, 1.0, -1.0)
    g = rng.normal(size=9) * 1e-2
    got_c, want_c = np.full(700, np.nan), np.full(700, np.nan)
    value, grad, blocks = solver.pass_at_zero(loss, X, y, 1e-3, g, curvatures=got_c)
    v2, g2, b2 = solver.pass_value_gradient(loss, X, y, 1e-3, g, np.zeros(9), lanes=True, curvatures=want_c)
    assert blocks is None and b2 is not None
    assert abs(value - v2) <= 1e-13 * abs(v2) and np.array_equal(got_c, want_c)
    assert np.allclose(grad, g2, rtol=1e-13, atol=1e-16)

    class Other(LogisticLoss):
        pass

    assert solver.pass_at_zero(Other(), X, y, 1e-3, g) is None
