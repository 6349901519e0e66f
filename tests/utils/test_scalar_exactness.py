"""Real parameters a double does not hold are refused, not rounded to the nearest double.

A ``delta`` of ``np.longdouble(1) / 30000`` was rounded to the nearest double;
when that double lies above the value given, ``privacy_profile_epsilon`` reported
the epsilon of a larger delta (smaller than the one asked for), and an ``epsilon``
rounded up calibrates less noise than asked for.
"""
from fractions import Fraction

import numpy as np
import pytest

from refdp.accounting import Laplace, privacy_profile_epsilon
from refdp.utils.validation import Interval, check_scalar

POS = Interval(float, 0, None, closed="neither")


@pytest.mark.parametrize("value", [np.longdouble(1) / 3, Fraction(1, 3), 3 ** 40, np.int64(2 ** 62 + 1),
                                   np.uint64(2 ** 64 - 1), np.longdouble("1e4000")])
def test_inexact_values_are_refused_with_the_nearest_double_named(value):
    with pytest.raises(ValueError, match=r"'x' parameter of f .*exactly representable as a double"):
        check_scalar(value, "x", "f", POS)


@pytest.mark.parametrize("value, expected", [(Fraction(3, 4), 0.75), (np.longdouble("0.5"), 0.5), (2 ** 60, 2.0 ** 60),
                                             (np.float32(0.1), float(np.float32(0.1))), (np.int64(7), 7.0),
                                             (np.float16(-0.0) + 1, 1.0)])
def test_exact_values_are_accepted_unchanged(value, expected):
    got = check_scalar(value, "x", "f", POS)
    assert type(got) is float and got == expected


def test_range_errors_keep_their_message_for_infinities_and_nan():
    for v in (np.longdouble("inf"), np.longdouble("nan"), float("inf")):
        with pytest.raises(ValueError) as info:
            check_scalar(v, "x", "f", POS)
        assert "exactly representable" not in str(info.value)


def test_a_public_entry_refuses_an_inexact_delta():
    delta = np.longdouble(1) / np.longdouble(30000)
    assert Fraction(*delta.as_integer_ratio()) != Fraction(float(delta))
    with pytest.raises(ValueError, match="'delta' parameter of privacy_profile_epsilon"):
        privacy_profile_epsilon([(Laplace(1.0), 2)], delta)
    # the double the message names is accepted
    privacy_profile_epsilon([(Laplace(1.0), 2)], float(delta))


@pytest.mark.parametrize("epsilons", [[np.longdouble(1) / 3] * 2, np.array([1, 2], dtype=np.longdouble) / 3,
                                      np.array([2 ** 53 + 1, 1]),
                                      [Fraction(1, 3)] * 2, np.array([2 ** 60 + 1])])
def test_arrays_of_privacy_parameters_refuse_inexact_entries(epsilons):
    # before: basic_composition([1/3 as long double] * 2) reported 0.6666666666666666 < 2/3
    from refdp.accounting import basic_composition
    with pytest.raises(ValueError, match=r"'epsilons' parameter of basic_composition .*position \(0,\)"):
        basic_composition(epsilons)


def test_arrays_a_double_holds_are_accepted():
    from refdp.accounting import basic_composition
    assert basic_composition([Fraction(1, 2), np.longdouble("0.25"), 2]).epsilon == 2.75
    assert basic_composition(np.array([0.5, 0.25], dtype=np.longdouble)).epsilon == 0.75


@pytest.mark.parametrize("epsilons", [[1.0, np.uint64(2 ** 64 - 1)], [0.5, 2 ** 53 + 1], (0.5, np.longdouble(1) / 3),
                                      [[1.0], [Fraction(1, 3)]]])
def test_mixed_lists_are_read_entry_by_entry(epsilons):
    # before: NumPy converted the whole list to float64 first, so the rounded entry passed unseen
    from refdp.utils.validation import check_array
    with pytest.raises(ValueError, match=r"'e' parameter of f .*exactly representable as doubles.*position \(1,"):
        check_array(epsilons, "e", "f")


@pytest.mark.parametrize("value", [["1.0", 2.0], np.array(["1.0", "2.0"]), [b"1"], np.array([1.0, "2"], dtype=object)])
def test_strings_are_not_numbers(value):
    from refdp.utils.validation import check_array
    with pytest.raises(ValueError, match=r"'e' parameter of f must be an array of real numbers"):
        check_array(value, "e", "f")


def test_plain_and_exact_mixed_lists_pass_unchanged():
    from refdp.utils.validation import check_array
    got = check_array([1, 0.5, np.float32(0.25), 2 ** 53, np.int64(-3), Fraction(1, 8), [2.0][0]], "e", "f")
    assert got.tolist() == [1.0, 0.5, 0.25, 2.0 ** 53, -3.0, 0.125, 2.0]
    assert check_array([[1, 2.5], [np.int8(3), 4.0]], "e", "f").tolist() == [[1.0, 2.5], [3.0, 4.0]]


@pytest.mark.parametrize("value", [np.longdouble(1) / 3, Fraction(1, 3), 2 ** 53 + 1, np.uint64(2 ** 64 - 1)])
def test_a_scalar_given_where_an_array_is_read_is_checked_too(value):
    # before: laplace_mechanism(np.longdouble(1) / 3, ...) released noise around the rounded value
    from refdp.mechanisms import laplace_mechanism
    with pytest.raises(ValueError, match=r"'value' parameter of laplace_mechanism .*exactly representable"):
        laplace_mechanism(value, 1.0, rng=0)
    assert laplace_mechanism(0.25, 1.0, rng=0) == laplace_mechanism(Fraction(1, 4), 1.0, rng=0)
