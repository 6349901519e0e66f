"""The float-safe releases (refdp/mechanisms/float_safe.py) and the exact integer samplers."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats

from refdp.audit import audit_black_box
from refdp.mechanisms import gaussian_mechanism, laplace_mechanism, spherical_laplace
from refdp.mechanisms.discrete import discrete_gaussian, discrete_laplace
from refdp.mechanisms.float_safe import laplace_grid, release

# Statistical tests fail for a correct sampler with probability at most ALPHA each.
ALPHA = 1e-6


def _laplace_pmf(z, t):
    p = math.exp(-1.0 / t)
    return (1 - p) / (1 + p) * p ** np.abs(z)


@pytest.mark.parametrize("scale", [1, Fraction(1, 3), 2.5, 40])
def test_discrete_laplace_law_chi_square(scale):
    x = discrete_laplace(scale, size=40_000, rng=5)
    t = float(scale)
    edge = int(4 * t) + 2
    z = np.arange(-edge, edge + 1)
    exp = _laplace_pmf(z, t) * x.size
    obs = np.array([(x == v).sum() for v in z])
    tail = x.size - exp.sum()
    stat = ((obs - exp) ** 2 / exp).sum() + ((x.size - obs.sum() - tail) ** 2 / tail)
    assert stat < scipy.stats.chi2.ppf(1 - ALPHA, df=z.size)


@pytest.mark.parametrize("sigma", [1, 3.7, Fraction(25, 2)])
def test_discrete_gaussian_law_chi_square(sigma):
    x = discrete_gaussian(sigma, size=40_000, rng=6)
    s = float(sigma)
    edge = int(5 * s) + 2
    big = np.arange(-20 * edge, 20 * edge + 1)
    w = np.exp(-big.astype(float) ** 2 / (2 * s * s))
    w /= w.sum()
    z = np.arange(-edge, edge + 1)
    exp = w[(z + 20 * edge)] * x.size
    obs = np.array([(x == v).sum() for v in z])
    tail = x.size - exp.sum()
    stat = ((obs - exp) ** 2 / exp).sum() + ((x.size - obs.sum() - tail) ** 2 / tail)
    assert stat < scipy.stats.chi2.ppf(1 - ALPHA, df=z.size)


def test_sampler_signatures_and_types():
    assert isinstance(discrete_laplace(2), int) and isinstance(discrete_gaussian(2, rng=1), int)
    a = discrete_laplace(Fraction(7, 2), size=(2, 3), rng=0)
    assert a.dtype == np.int64 and a.shape == (2, 3)
    with pytest.raises(ValueError, match="'scale' parameter of discrete_laplace"):
        discrete_laplace(0)
    with pytest.raises(ValueError, match="'sigma' parameter of discrete_gaussian"):
        discrete_gaussian(-1.0)


def test_outputs_lie_on_the_grid_and_follow_the_seed():
    x = laplace_mechanism(np.linspace(-3, 3, 7), 0.5, rng=3)
    g = laplace_grid(0.5, 1.0, 7).step
    assert np.array_equal(x, np.round(x / g) * g)
    assert np.array_equal(x, laplace_mechanism(np.linspace(-3, 3, 7), 0.5, rng=3))
    y = gaussian_mechanism(1.0, 0.5, rng=3)
    assert y == round(y * 1024) / 1024


@pytest.mark.parametrize("fn", [lambda v, **k: laplace_mechanism(v, 1.0, **k),
                                lambda v, **k: gaussian_mechanism(v, 1.0, **k)])
def test_magnitude_and_non_finite_values_are_errors(fn):
    with pytest.raises(ValueError, match=r"The 'value' parameter of .* must be finite with every entry of "
                                         r"magnitude at most .* Got 1e\+17 instead\."):
        fn(1e17)
    with pytest.raises(ValueError, match="'value' parameter"):
        fn([0.0, math.inf])
    assert fn(1e17, secure=False) == 1e17  # the textbook path loses the noise, as documented


def test_extreme_sensitivities_release_exact_grid_values():
    assert math.isfinite(laplace_mechanism(1e300, 1.0, sensitivity=1e300, rng=0))
    tiny = laplace_mechanism(0.0, 1.0, sensitivity=1e-310, rng=0)
    assert tiny == 0.0 or abs(tiny) >= 5e-324


def test_spherical_release_arguments():
    with pytest.raises(ValueError, match="'sensitivity' parameter of spherical_laplace"):
        spherical_laplace(2, 1.0, value=[0.0, 0.0])
    with pytest.raises(ValueError, match="'value' parameter of spherical_laplace"):
        spherical_laplace(2, 1.0, value=[0.0, 0.0, 0.0], sensitivity=1.0)
    with pytest.raises(ValueError, match="'sensitivity' parameter of spherical_laplace"):
        spherical_laplace(2, 1.0, sensitivity=1.0)


def _laplace_batch(secure):
    noise = laplace_grid(0.1, 1.0, 1)

    def mech(value, n, rng):
        v = np.full(n, float(value))
        return release(v, noise, rng, "laplace_mechanism") if secure else v + rng.laplace(0.0, 10.0, n)
    return mech


def test_batch_path_is_the_public_release():
    for seed in range(3):
        assert _laplace_batch(True)(0.5, 1, np.random.default_rng(seed))[0] == \
            laplace_mechanism(0.5, 0.1, rng=seed)


def test_float_bits_audit_passes_the_secure_laplace_and_flags_the_textbook_path():
    # Each audit reports a violation of a true claim with probability at most
    # 1 - confidence = 1e-3 (docs/audit.rst); the secure law is 0.1-DP exactly.
    pair = [(0.0, 1.0)]
    ok = audit_black_box(_laplace_batch(True), pair, 0.1, n_samples=100_000, float_bits=True,
                         confidence=0.999, tolerance=0, rng=17, progress=False)
    assert not ok.violation
    bad = audit_black_box(_laplace_batch(False), pair, 0.1, n_samples=100_000, float_bits=True,
                          confidence=0.999, tolerance=0, rng=17, progress=False)
    assert bad.violation and bad.epsilon_lower > 3


def test_gaussian_grid_l2_index_sensitivity_counterexample():
    """The L2 distance of grid indices can exceed floor(r) + ceil(sqrt(d)); Delta_Z covers it."""
    from refdp.mechanisms.float_safe import _index, gaussian_grid
    sensitivity = 2037.895885515254 * 2.0**-11
    noise = gaussian_grid(0.5, sensitivity, 2)
    g = noise.step
    x = np.full(2, (0.5 - 1e-6) * g)
    x2 = x + sensitivity / math.sqrt(2) * (1 - 1e-12)
    assert sum((Fraction(float(a)) - Fraction(float(b))) ** 2 for a, b in zip(x, x2)) <= Fraction(sensitivity) ** 2
    dk = _index(x2, g, "t", "x") - _index(x, g, "t", "x")
    r = Fraction(sensitivity) / Fraction(g)
    assert int((dk ** 2).sum()) > (math.floor(r) + 2) ** 2          # the old bound is exceeded
    assert int((dk ** 2).sum()) <= noise.integer_sensitivity ** 2
    assert gaussian_grid(0.5, sensitivity, 1).integer_sensitivity == math.floor(Fraction(sensitivity)
                                                                            / Fraction(gaussian_grid(0.5, sensitivity, 1).step)) + 1
