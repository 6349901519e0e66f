"""The (epsilon, delta) Gaussian mechanism: calibration, exact profiles, law, rng, bad input."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats

from refdp.utils.precision import iv_context, mp_context
from refdp.accounting.discrete_gaussian_profile import discrete_gaussian_delta, discrete_gaussian_delta_sum
from refdp.accounting.conversions import rdp_to_dp
from refdp.mechanisms import (gaussian_calibration_approx, gaussian_mechanism_approx, gaussian_sigma_approx,
                              PRIVATE_MECHANISMS)
from refdp.prediction.stability import classical_gaussian_sigma


def _profile_mp(sigma, epsilon, sensitivity=1.0):
    """The continuous Gaussian profile at 50 digits in an owned context (independent of the enclosure code)."""
    mp = mp_context(50)
    mu = mp.mpf(sensitivity) / mp.mpf(sigma)
    return mp.ncdf(mu / 2 - epsilon / mu) - mp.exp(epsilon) * mp.ncdf(-mu / 2 - epsilon / mu)


@pytest.mark.parametrize("epsilon,delta,sensitivity", [(0.1, 1e-5, 1.0), (1.0, 1e-5, 1.0), (2.0, 1e-9, 3.0),
                                                       (8.0, 1e-3, 0.5)])
def test_analytic_sigma_is_minimal_and_valid(epsilon, delta, sensitivity):
    sigma = gaussian_sigma_approx(epsilon, delta, sensitivity)
    assert _profile_mp(sigma, epsilon, sensitivity) <= delta
    # a relative step of 1e-12 below already breaks the claim
    assert _profile_mp(sigma * (1 - 1e-12), epsilon, sensitivity) > delta
    cal = gaussian_calibration_approx(epsilon, delta, sensitivity, secure=False)
    assert cal.sigma == sigma and cal.method == "analytic"
    assert 0 < cal.relative_gap < 1e-14
    assert cal.delta_enclosure[0] <= float(_profile_mp(sigma, epsilon, sensitivity)) <= cal.delta_enclosure[1] <= delta


def test_analytic_sigma_known_value_and_below_classical():
    # Balle and Wang 2018 report sigma ~ 3.73 for epsilon = 1, delta = 1e-5 (Delta = 1)
    assert gaussian_sigma_approx(1.0, 1e-5) == pytest.approx(3.7306, abs=1e-4)
    for epsilon in (0.1, 0.5, 0.9):
        assert gaussian_sigma_approx(epsilon, 1e-5) < classical_gaussian_sigma(1.0, epsilon, 1e-5)
    # linear in the sensitivity (up to the bisection's last units)
    assert gaussian_sigma_approx(1.0, 1e-5, 4.0) == pytest.approx(4 * gaussian_sigma_approx(1.0, 1e-5), rel=1e-14)


@pytest.mark.parametrize("sigma,shift,epsilon", [(Fraction(3), 2, 0.5), (Fraction(7, 2), 5, 1.0),
                                                  (Fraction(50), 10, 0.3)])
def test_discrete_profile_enclosure_contains_the_term_by_term_sum(sigma, shift, epsilon):
    iv = iv_context(30)
    fast = discrete_gaussian_delta(sigma, shift, epsilon, iv)
    exact = discrete_gaussian_delta_sum(sigma, shift, epsilon, iv)
    assert exact.delta < 1e-25 * exact.b
    assert fast.a <= exact.a and exact.b <= fast.b


def test_discrete_profile_is_worst_at_the_largest_shift():
    # Theorem 6 of docs/theory/secure_noise.rst: a smaller grid-index shift is no worse
    iv = iv_context(30)
    for epsilon in (0.2, 1.0):
        values = [discrete_gaussian_delta_sum(Fraction(5, 2), m, epsilon, iv) for m in range(1, 7)]
        for a, b in zip(values, values[1:]):
            assert a.b < b.a


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_secure_calibration_is_certified_and_near_the_analytic_noise(epsilon):
    cal = gaussian_calibration_approx(epsilon, 1e-5)
    assert cal.secure and cal.method == "discrete exact" and cal.integer_sensitivity == 1025
    assert cal.step == 2.0 ** -10
    iv = iv_context(30)
    at = discrete_gaussian_delta(cal.integer_sigma, 1025, epsilon, iv)
    assert at.b <= 1e-5
    below = discrete_gaussian_delta(Fraction(cal.sigma_failing) / Fraction(cal.step), 1025, epsilon, iv)
    assert below.a > 1e-5
    assert cal.relative_gap < 1e-4
    # the cost of the grid: Delta_Z g / Delta = 1025/1024, plus the gap
    ratio = cal.sigma / gaussian_sigma_approx(epsilon, 1e-5)
    assert 1.0 < ratio < 1025 / 1024 * (1 + 2e-4)
    # sigma_Z has at most 24 significant bits (the compiled sampler takes it)
    assert cal.integer_sigma.denominator <= 2 ** 24 and cal.integer_sigma.numerator < 2 ** 25


def test_several_coordinates_use_a_certified_renyi_conversion():
    cal = gaussian_calibration_approx(1.0, 1e-5, 2.0, dim=4)
    assert cal.method == "renyi" and cal.dim == 4
    assert rdp_to_dp(cal.order, cal.order * cal.rho, 1e-5) <= 1.0
    assert cal.integer_sigma ** 2 * 2 * Fraction(cal.rho) >= cal.integer_sensitivity ** 2
    # valid but not minimal: above the one-coordinate analytic noise
    assert cal.sigma > gaussian_sigma_approx(1.0, 1e-5, 2.0)
    with pytest.raises(ValueError, match="secure=False has no grid"):
        gaussian_calibration_approx(1.0, 1e-5, secure=False).grid_noise()


def test_secure_release_law_on_the_grid():
    """KS test of 20,000 secure releases of 0 against N(0, sigma^2); false-failure rate 1e-6.

    The grid (step 2**-10, sigma about 3.73) moves the law by at most 2**-11 / (sigma sqrt(2 pi)) < 6e-5 in
    Kolmogorov distance, far below the critical value 0.0196 (sqrt(ln(2 / 1e-6) / 2) / sqrt(20000)).
    """
    cal = gaussian_calibration_approx(1.0, 1e-5)
    rng = np.random.default_rng(7)
    xs = np.array([gaussian_mechanism_approx(0.0, 1.0, 1e-5, rng=rng) for _ in range(20_000)])
    assert np.all(xs * 1024 == np.round(xs * 1024))
    d = scipy.stats.kstest(xs / float(cal.step * cal.integer_sigma), "norm").statistic
    assert d < math.sqrt(math.log(2 / 1e-6) / 2) / math.sqrt(20_000)
    # an array is one release of that many coordinates (L2 sensitivity over all of them)
    out = gaussian_mechanism_approx(np.zeros((3, 4)), 1.0, 1e-5, rng=12345)
    cal12 = gaussian_calibration_approx(1.0, 1e-5, dim=12)
    assert out.shape == (3, 4) and np.all(out / cal12.step == np.round(out / cal12.step))


def test_float_path_law_and_rng_determinism():
    sigma = gaussian_sigma_approx(1.0, 1e-5)
    a = gaussian_mechanism_approx(np.zeros(20_000), 1.0, 1e-5, rng=3, secure=False)
    b = np.random.default_rng(3).normal(0.0, sigma, size=20_000)
    assert np.array_equal(a, b)
    for secure in (True, False):
        x = gaussian_mechanism_approx([1.0, -2.0, 0.5], 0.5, 1e-6, sensitivity=2.0, rng=11, secure=secure)
        y = gaussian_mechanism_approx([1.0, -2.0, 0.5], 0.5, 1e-6, sensitivity=2.0, rng=11, secure=secure)
        z = gaussian_mechanism_approx([1.0, -2.0, 0.5], 0.5, 1e-6, sensitivity=2.0, rng=12, secure=secure)
        assert np.array_equal(x, y) and not np.array_equal(x, z)
        assert isinstance(gaussian_mechanism_approx(1.0, 0.5, 1e-6, rng=0, secure=secure), float)


@pytest.mark.parametrize("kwargs,name,expected", [
    (dict(epsilon=0.0), "epsilon", "a float in the range (0, 1000000]"),
    (dict(epsilon=-1.0), "epsilon", "a float in the range (0, 1000000]"),
    (dict(epsilon=float("nan")), "epsilon", "a float in the range (0, 1000000]"),
    (dict(epsilon=float("inf")), "epsilon", "a float in the range (0, 1000000]"),
    (dict(epsilon=1e10), "epsilon", "a float in the range (0, 1000000]"),
    (dict(delta=0.0), "delta", "a float in the range (0, 1)"),
    (dict(delta=1.0), "delta", "a float in the range (0, 1)"),
    (dict(delta=-1e-5), "delta", "a float in the range (0, 1)"),
    (dict(sensitivity=0.0), "sensitivity", "a float in the range (0, inf)"),
    (dict(sensitivity=-2.0), "sensitivity", "a float in the range (0, inf)"),
])
def test_bad_input_names_the_parameter(kwargs, name, expected):
    args = dict(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    args.update(kwargs)
    got = list(kwargs.values())[0]
    for call in (lambda: gaussian_mechanism_approx(0.0, args["epsilon"], args["delta"],
                                                   sensitivity=args["sensitivity"]),
                 lambda: gaussian_sigma_approx(args["epsilon"], args["delta"], args["sensitivity"]),
                 lambda: gaussian_calibration_approx(args["epsilon"], args["delta"], args["sensitivity"])):
        with pytest.raises(ValueError) as info:
            call()
        msg = str(info.value)
        assert msg.startswith(f"The '{name}' parameter of ") and expected in msg and f"Got {got!r}" in msg


def test_bad_value_secure_flag_and_dim():
    with pytest.raises(ValueError, match="'value' parameter of gaussian_mechanism_approx"):
        gaussian_mechanism_approx([0.0, float("nan")], 1.0, 1e-5)
    with pytest.raises(ValueError, match="'secure' parameter of gaussian_mechanism_approx"):
        gaussian_mechanism_approx(0.0, 1.0, 1e-5, secure="yes")
    with pytest.raises(ValueError, match="'dim' parameter of gaussian_calibration_approx"):
        gaussian_calibration_approx(1.0, 1e-5, dim=0)
    with pytest.raises(ValueError, match="'value' parameter of gaussian_mechanism_approx"):
        gaussian_mechanism_approx(1e300, 1.0, 1e-5)


def test_listed_as_a_private_mechanism():
    assert "refdp.mechanisms.gaussian_mechanism_approx" in PRIVATE_MECHANISMS


def test_registered_check_fails_on_a_noise_below_the_calibration(monkeypatch):
    import dataclasses

    from proofs_checks.balle_wang import analytic_gaussian_mechanism as check

    real = check.gaussian_calibration_approx

    def smaller(*args, **kwargs):
        cal = real(*args, **kwargs)
        if cal.method == "analytic":
            return dataclasses.replace(cal, sigma=cal.sigma * (1 - 1e-6))
        return dataclasses.replace(cal, integer_sigma=cal.integer_sigma * (1 - Fraction(1, 1000)))

    assert check.analytic_gaussian_result(check.CONTINUOUS[1:2], (), ()).verdict == "holds"
    monkeypatch.setattr(check, "gaussian_calibration_approx", smaller)
    assert check.analytic_gaussian_result(check.CONTINUOUS[1:2], (), ()).verdict == "fails"
    assert check.analytic_gaussian_result((), check.DISCRETE_QUICK, ()).verdict == "fails"
