"""refdp.utils.losses: the declared constants of the margin losses, float against mpmath."""
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, strategies as st

from refdp.erm import HuberHingeLoss, LogisticLoss, MarginLoss, check_loss
from refdp.verify.verdict import ivworkdps, lower, upper

LOSSES = [LogisticLoss(), HuberHingeLoss(0.5), HuberHingeLoss(0.1), HuberHingeLoss(3.0)]


def _mp_value(loss, m):
    m = mpmath.mpf(m)
    if isinstance(loss, LogisticLoss):
        return mpmath.log1p(mpmath.exp(-m))
    h = mpmath.mpf(loss.h)
    if m > 1 + h:
        return mpmath.mpf(0)
    if m < 1 - h:
        return 1 - m
    return (1 + h - m) ** 2 / (4 * h)


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_declared_constants_hold_on_a_dense_grid(loss):
    m = np.linspace(-40, 40, 200001)
    d1, d2 = loss.derivative(m), loss.second_derivative(m)
    assert np.all(np.abs(d1) <= loss.lipschitz) and loss.lipschitz <= 1.0
    assert np.all(d2 >= 0.0) and np.all(d2 <= loss.curvature)
    assert np.all(np.diff(d1) >= 0.0)             # convex: l' non-decreasing
    # the declared c is attained (the bound is tight): at m = 0 (logistic), on the quadratic zone (Huber)
    assert np.max(d2) == loss.curvature or np.isclose(np.max(d2), loss.curvature, rtol=1e-15)


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
@given(m=st.floats(-20, 20))
def test_float_derivatives_match_mpmath(loss, m):
    with mpmath.workdps(40):
        f = lambda t: _mp_value(loss, t)         # noqa: E731
        h = getattr(loss, "h", None)
        near_kink = h is not None and min(abs(m - 1 - h), abs(m - 1 + h)) < 1e-6
        assert abs(float(loss.value(m)) - float(f(m))) <= 1e-12 * max(1.0, abs(m))
        if not near_kink:
            assert abs(float(loss.derivative(m)) - float(mpmath.diff(f, m))) <= 1e-12
            assert abs(float(loss.second_derivative(m)) - float(mpmath.diff(f, m, 2))) <= 1e-10


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
@given(num=st.integers(-2000, 2000), den=st.integers(1, 97))
def test_exact_derivatives_enclose_the_float_ones(loss, num, den):
    m = Fraction(num, den * 10)
    with mpmath.workdps(40):
        d1 = loss.derivative_exact(m, mpmath.mp)
        d2 = loss.second_derivative_exact(m, mpmath.mp)
    with ivworkdps(40):
        e1 = loss.derivative_exact(m, mpmath.iv)
        e2 = loss.second_derivative_exact(m, mpmath.iv)
    assert lower(e1) <= d1 <= upper(e1) and lower(e2) <= d2 <= upper(e2)
    assert -1 <= lower(e1) and upper(e1) <= 0
    assert 0 <= lower(e2) and upper(e2) <= loss.curvature
    # the float functions receive float(m), which differs from m; at a kink
    # (m = 1 + h, say) the two lie in different zones, so compare with the
    # exact derivatives at the float's own value
    mf = float(m)
    with mpmath.workdps(40):
        d1f = loss.derivative_exact(Fraction(mf), mpmath.mp)
        d2f = loss.second_derivative_exact(Fraction(mf), mpmath.mp)
    assert abs(float(d1f) - float(loss.derivative(mf))) <= 1e-15
    assert abs(float(d2f) - float(loss.second_derivative(mf))) <= 1e-15


def test_huber_hinge_zones_and_kink_convention():
    loss = HuberHingeLoss(0.5)
    assert loss.curvature == 1.0
    assert loss.value([2.0, 1.5, 0.5, 0.0]).tolist() == [0.0, 0.0, 0.5, 1.0]
    assert loss.second_derivative([1.5, 0.5]).tolist() == [1.0, 1.0]     # closed quadratic zone
    assert loss.second_derivative_exact(Fraction(3, 2)) == 1
    # c is an upper bound of l'' even when 1/(2h) is not a double
    loss = HuberHingeLoss(0.3)
    assert Fraction(loss.curvature) >= 1 / (2 * Fraction(0.3))


@pytest.mark.parametrize("h", [0.0, -1.0, float("nan"), float("inf"), "a", True])
def test_huber_width_validation(h):
    with pytest.raises(ValueError, match=r"The 'h' parameter of HuberHingeLoss must be a float in the "
                                         r"range \(0, inf\)"):
        HuberHingeLoss(h)


def test_check_loss_rejects_undeclared_losses():
    with pytest.raises(ValueError, match="The 'loss' parameter of f must be a MarginLoss instance"):
        check_loss("logistic", "f")

    class Steep(MarginLoss):
        curvature = 1.0
        lipschitz = 2.0

    with pytest.raises(ValueError, match=r"The 'loss.lipschitz' parameter of f must be a float in the "
                                         r"range \(0, 1\]. Got 2.0"):
        check_loss(Steep(), "f")

    class Flat(MarginLoss):
        curvature = 0.0

    with pytest.raises(ValueError, match="The 'loss.curvature' parameter of f"):
        check_loss(Flat(), "f")


def test_losses_compare_by_value():
    assert HuberHingeLoss(0.5) == HuberHingeLoss(0.5) != HuberHingeLoss(0.25)
    assert LogisticLoss() == LogisticLoss() and hash(LogisticLoss()) == hash(LogisticLoss())
