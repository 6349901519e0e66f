"""Differentially private mechanisms (docs/theory/mechanisms.rst), one per module.

Releasing mechanisms take ``rng=None`` (normalised with
:func:`numpy.random.default_rng`); the ``*_distribution`` functions return
their exact output laws, in doubles or in mpmath, for verification.

==================================  ==========================================
``laplace_mechanism``               epsilon-DP for L1 sensitivity
``gaussian_mechanism``              rho-zCDP for L2 sensitivity
``gaussian_mechanism_approx``       (epsilon, delta)-DP for L2 sensitivity,
                                    analytic calibration
``exponential_mechanism``           epsilon-DP selection from finitely many
``report_noisy_max``                epsilon-DP argmax with Laplace noise
``spherical_laplace``               noise with density ~ exp(-beta ||b||)
``discrete_laplace_mechanism``      epsilon-DP for integer queries, exact noise
``discrete_gaussian_mechanism``     rho-zCDP for integer queries, exact noise
``discrete_laplace``                exact discrete Laplace samples
``discrete_gaussian``               exact discrete Gaussian samples
==================================  ==========================================
"""
from .discrete import (
    discrete_gaussian,
    discrete_gaussian_mechanism,
    discrete_gaussian_sigma2,
    discrete_laplace,
    discrete_laplace_mechanism,
    discrete_laplace_scale,
)
from .exponential import exponential_mechanism, exponential_mechanism_distribution
from .gaussian import gaussian_mechanism, gaussian_sigma_zcdp
from .gaussian_approx import (GaussianCalibration, gaussian_calibration_approx, gaussian_mechanism_approx,
                              gaussian_sigma_approx)
from .laplace import laplace_mechanism, laplace_scale
from .noisy_max import report_noisy_max, report_noisy_max_distribution
from .spherical import spherical_laplace

__all__ = [
    "laplace_scale",
    "laplace_mechanism",
    "gaussian_sigma_zcdp",
    "gaussian_mechanism",
    "gaussian_sigma_approx",
    "gaussian_calibration_approx",
    "gaussian_mechanism_approx",
    "GaussianCalibration",
    "exponential_mechanism",
    "exponential_mechanism_distribution",
    "report_noisy_max",
    "report_noisy_max_distribution",
    "spherical_laplace",
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_laplace_scale",
    "discrete_gaussian_sigma2",
    "discrete_laplace_mechanism",
    "discrete_gaussian_mechanism",
    "PRIVATE_MECHANISMS",
]

#: Fully qualified names of the public functions that release private output;
#: each must be covered by a registered check in ``proofs_checks``.
PRIVATE_MECHANISMS = (
    "refdp.mechanisms.laplace_mechanism",
    "refdp.mechanisms.gaussian_mechanism",
    "refdp.mechanisms.gaussian_mechanism_approx",
    "refdp.mechanisms.exponential_mechanism",
    "refdp.mechanisms.report_noisy_max",
    "refdp.mechanisms.spherical_laplace",
    "refdp.mechanisms.discrete_laplace_mechanism",
    "refdp.mechanisms.discrete_gaussian_mechanism",
)
