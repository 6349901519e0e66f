"""Valid example calls of refdp.mechanisms for the generated fuzz test."""
from fractions import Fraction

import numpy as np

from refdp.mechanisms import (
    GaussianCalibration, discrete_gaussian, discrete_gaussian_mechanism, discrete_gaussian_sigma2,
    discrete_laplace, discrete_laplace_mechanism, discrete_laplace_scale, exponential_mechanism,
    exponential_mechanism_distribution, gaussian_calibration_approx, gaussian_mechanism,
    gaussian_mechanism_approx, gaussian_sigma_approx, gaussian_sigma_zcdp, laplace_mechanism,
    laplace_scale, report_noisy_max, report_noisy_max_distribution, spherical_laplace,
)

P = "refdp.mechanisms."

EXAMPLES = {
    P + "laplace_scale": lambda: (laplace_scale, dict(epsilon=1.0, sensitivity=1.0)),
    P + "laplace_mechanism": lambda: (laplace_mechanism, dict(
        value=np.array([1.0, 2.0]), epsilon=1.0, sensitivity=1.0, rng=0, secure=True)),
    P + "gaussian_sigma_zcdp": lambda: (gaussian_sigma_zcdp, dict(rho=0.5, sensitivity=1.0)),
    P + "gaussian_mechanism": lambda: (gaussian_mechanism, dict(
        value=np.array([1.0, 2.0]), rho=0.5, sensitivity=1.0, rng=0, secure=True)),
    P + "gaussian_sigma_approx": lambda: (gaussian_sigma_approx, dict(epsilon=1.0, delta=1e-5, sensitivity=1.0)),
    P + "gaussian_calibration_approx": lambda: (gaussian_calibration_approx, dict(
        epsilon=1.0, delta=1e-5, sensitivity=1.0, dim=2, secure=True)),
    P + "gaussian_mechanism_approx": lambda: (gaussian_mechanism_approx, dict(
        value=np.array([1.0, 2.0]), epsilon=1.0, delta=1e-5, sensitivity=1.0, rng=0, secure=True)),
    P + "GaussianCalibration": lambda: (GaussianCalibration, dict(
        epsilon=1.0, delta=1e-5, sensitivity=1.0, dim=1, secure=False, sigma=3.8, sigma_failing=3.7,
        delta_enclosure=(9e-6, 1e-5), method="analytic", step=None, integer_sensitivity=None,
        integer_sigma=None, rho=None, order=None)),
    P + "exponential_mechanism": lambda: (exponential_mechanism, dict(
        scores=np.array([0.0, 3.0, 1.0]), epsilon=1.0, sensitivity=1.0, monotone=False, rng=0)),
    P + "exponential_mechanism_distribution": lambda: (exponential_mechanism_distribution, dict(
        scores=np.array([0.0, 3.0, 1.0]), epsilon=1.0, sensitivity=1.0, monotone=False, exact=False,
        dps=20, ctx=None)),
    P + "report_noisy_max": lambda: (report_noisy_max, dict(
        scores=np.array([0.0, 3.0, 1.0]), epsilon=1.0, sensitivity=1.0, monotone=False, rng=0, size=None,
        secure=True)),
    P + "report_noisy_max_distribution": lambda: (report_noisy_max_distribution, dict(
        scores=np.array([0.0, 3.0, 1.0]), epsilon=1.0, sensitivity=1.0, monotone=False, exact=False,
        dps=20, ctx=None, secure=False)),
    P + "spherical_laplace": lambda: (spherical_laplace, dict(
        dim=2, beta=1.0, size=None, rng=0, value=np.array([0.5, 0.5]), sensitivity=1.0, secure=True)),
    P + "discrete_laplace": lambda: (discrete_laplace, dict(scale=Fraction(3, 2), size=3, rng=0)),
    P + "discrete_gaussian": lambda: (discrete_gaussian, dict(sigma=Fraction(3, 2), size=3, rng=0)),
    P + "discrete_laplace_scale": lambda: (discrete_laplace_scale, dict(sensitivity=1, epsilon=Fraction(1, 2))),
    P + "discrete_gaussian_sigma2": lambda: (discrete_gaussian_sigma2, dict(sensitivity=1, rho=Fraction(1, 2))),
    P + "discrete_laplace_mechanism": lambda: (discrete_laplace_mechanism, dict(
        value=np.array([3, 4]), sensitivity=1, epsilon=1, rng=0)),
    P + "discrete_gaussian_mechanism": lambda: (discrete_gaussian_mechanism, dict(
        value=np.array([3, 4]), sensitivity=1, rho=Fraction(1, 2), rng=0)),
}
