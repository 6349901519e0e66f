"""Equal output values are one outcome in the black-box audit's default events."""
from fractions import Fraction

import numpy as np
import pytest

from refdp.audit import audit_black_box
from refdp.audit.canonical import canonical_output


@pytest.mark.parametrize("a, b", [
    (-0.0, 0.0),
    (np.int64(3), 3),
    (np.float32(0.5), 0.5),
    (3.0, 3),
    (True, 1),
    (("x", np.int64(3), -0.0), ("x", 3, 0.0)),
    ([np.float32(0.25), 2], [0.25, np.int8(2)]),
    (np.array([1.0, -0.0]), np.array([1, 0])),
])
def test_equal_values_have_one_canonical_form(a, b):
    assert canonical_output(a) == canonical_output(b)
    assert repr(canonical_output(a)) == repr(canonical_output(b))


@pytest.mark.parametrize("a, b", [
    (0.1, np.float32(0.1)),          # different values: float32(0.1) is not 0.1
    ((1, 2), [1, 2]),                # a tuple is not equal to a list
    ("3", 3),
    (np.array([1, 2]), np.array([[1, 2]])),
])
def test_different_values_stay_different(a, b):
    assert repr(canonical_output(a)) != repr(canonical_output(b))


def test_numbers_keep_their_exact_value():
    third = np.longdouble(1) / np.longdouble(3)
    n, d = third.as_integer_ratio()
    assert canonical_output(third) == Fraction(int(n), int(d))   # no bit of a long double lost
    assert canonical_output(2.5) == 2.5 and canonical_output(-4.0) == -4


def _constant(on_d, on_e):
    def mechanism(dataset, n, rng):
        value = on_d if dataset == 0 else on_e
        return [value for _ in range(n)]
    return mechanism


@pytest.mark.parametrize("on_d, on_e", [
    (("tag", -0.0), ("tag", 0.0)),
    (("tag", np.int64(3)), ("tag", 3)),
    (("tag", np.float32(0.5)), ("tag", 0.5)),
])
def test_a_zero_dp_mechanism_is_not_flagged(on_d, on_e):
    # the mechanism releases the same value on both datasets: it is 0-DP
    r = audit_black_box(_constant(on_d, on_e), [(0, 1)], claimed_epsilon=0.0, n_samples=4000, rng=0)
    assert not r.violation
    assert r.epsilon_lower == 0.0


def test_different_values_are_still_told_apart():
    # the same shapes of output with a real difference is found (exactly infinite epsilon)
    r = audit_black_box(_constant(("tag", 1), ("tag", 2)), [(0, 1)], claimed_epsilon=1.0,
                        n_samples=4000, rng=0)
    assert r.violation and r.epsilon_lower > 1.0
