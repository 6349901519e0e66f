"""Output perturbation: the sensitivity method for regularised ERM (Algorithm 1).

Chaudhuri, Monteleoni and Sarwate (2011), Algorithm 1 and Theorem 1: the
minimiser ``f* = argmin_f J(f, D)`` of ``J(f, D) = (1/n) sum_i l(y_i f^T x_i)
+ (Lambda/2) ||f||^2`` has L2 sensitivity at most ``2 / (n Lambda)`` over
replace-one neighbours when ``l`` is convex and differentiable with ``|l'| <=
1`` and ``||x_i|| <= 1`` (Corollary 1). Releasing ``f* + b`` with ``b`` of
density proportional to ``exp(-beta ||b||)``, ``beta = n Lambda epsilon / 2``,
is epsilon-DP.

The computed minimiser is within ``tol / Lambda`` of ``f*``
(:mod:`refdp.erm._solver`), so the *released* function of the data has
sensitivity at most ``2 / (n Lambda) + 2 tol / Lambda``; refdp calibrates
``beta`` to that bound, which makes the guarantee hold for the numbers
actually computed (up to the floating-point sampling caveat of
:func:`refdp.mechanisms.spherical_laplace`).

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Algorithm 1,
   Theorem 1 and Corollary 1.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .._validation import Interval, check_rng, check_scalar
from ..accounting._rounding import ceil_fraction
from ..mechanisms import spherical_laplace
from ._data import prepare
from ._solver import minimise
from .result import PrivateERMResult

__all__ = ["output_perturbation", "release_output_perturbation", "output_perturbation_sensitivity",
           "output_perturbation_rate"]

POSITIVE = Interval(float, 0, None, closed="neither")
NONNEGATIVE = Interval(float, 0, None, closed="left")
COUNT = Interval(int, 1, None)
DEFAULT_TOL = 1e-8


def _exact_sensitivity(owner, n, regularization, tol):
    """Validate ``n``, ``Lambda``, ``tol``; return ``2/(n Lambda) + 2 tol/Lambda`` as a Fraction."""
    n = check_scalar(n, "n", owner, COUNT)
    lam = Fraction(check_scalar(regularization, "regularization", owner, POSITIVE))
    tol = check_scalar(tol, "tol", owner, NONNEGATIVE)
    return Fraction(2, n) / lam + 2 * Fraction(tol) / lam


def output_perturbation_sensitivity(n, regularization, tol=0.0):
    """L2 sensitivity of the computed ERM minimiser: ``2/(n Lambda) + 2 tol/Lambda``, rounded up.

    [CMS11]_ Corollary 1 gives ``2 / (n Lambda)`` for the exact minimiser; a
    solver stopped at gradient norm ``tol`` adds ``tol / Lambda`` on each side.

    Parameters
    ----------
    n : int >= 1
    regularization : float > 0
        ``Lambda``.
    tol : float >= 0, default 0.0
        Solver tolerance (0 for the exact minimiser).

    Returns
    -------
    float
        The smallest double at least the exact value.

    Examples
    --------
    >>> from refdp.erm import output_perturbation_sensitivity
    >>> output_perturbation_sensitivity(100, 0.1)
    0.2
    """
    return ceil_fraction(_exact_sensitivity("output_perturbation_sensitivity", n, regularization, tol))


def output_perturbation_rate(epsilon, n, regularization, tol=0.0):
    """Noise rate ``beta = epsilon / (2/(n Lambda) + 2 tol/Lambda)``, rounded down.

    With ``tol = 0`` this is ``n Lambda epsilon / 2`` ([CMS11]_ Algorithm 1).
    A smaller rate means more noise, so rounding down is the safe direction.

    Parameters
    ----------
    epsilon : float > 0
    n : int >= 1
    regularization : float > 0
    tol : float >= 0, default 0.0

    Returns
    -------
    float
        The largest double at most the exact value (at least the smallest
        positive double).

    Examples
    --------
    >>> from refdp.erm import output_perturbation_rate
    >>> output_perturbation_rate(1.0, 100, 0.1)
    5.0
    """
    owner = "output_perturbation_rate"
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    rate = -ceil_fraction(-Fraction(epsilon) / _exact_sensitivity(owner, n, regularization, tol))
    return max(rate, 5e-324) if rate < math.inf else 1.7976931348623157e308


def output_perturbation(X, y, loss, epsilon, regularization, *, tol=DEFAULT_TOL, norm_bound=1.0,
                        clip=False, rng=None):
    """Release ``argmin_f J(f, D) + b`` with spherical Laplace noise ([CMS11]_ Algorithm 1).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features; every row must satisfy ``||x|| <= norm_bound`` unless
        ``clip`` is True (see :mod:`refdp.erm._data`).
    y : array_like, shape (n,)
        Labels in ``{-1, +1}``.
    loss : MarginLoss
        Convex, differentiable, ``|l'| <= 1`` (e.g. :class:`LogisticLoss`,
        :class:`HuberHingeLoss`).
    epsilon : float > 0
        Privacy parameter (replace-one neighbours).
    regularization : float > 0
        ``Lambda``.
    tol : float > 0, default 1e-8
        Gradient-norm tolerance of the solver; enters the sensitivity.
    norm_bound : float > 0, default 1.0
        Public bound ``B``; rows are divided by it.
    clip : bool, default False
        Project rows with ``||x|| > B`` onto the sphere of radius ``B``.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of the noise, normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    PrivateERMResult
        ``theta = f_hat + b`` with ``b`` of density proportional to
        ``exp(-beta ||b||)``, ``beta = output_perturbation_rate(epsilon, n,
        Lambda, tol)``.

    Raises
    ------
    ValueError
        On invalid parameters, NaN features, labels outside ``{-1, +1}`` or
        rows outside the ball without ``clip``.

    Notes
    -----
    epsilon-DP for replace-one neighbours ([CMS11]_ Theorem 1), with the
    solver's distance to the exact minimiser included in the sensitivity.
    The proof is in ``docs/theory/erm.rst``; the check
    ``chaudhuri.output_perturbation_sensitivity`` computes the minimisers of
    all neighbouring pairs of small datasets and bounds their distance.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import LogisticLoss, output_perturbation
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    >>> y = np.array([1, -1, 1, -1])
    >>> res = output_perturbation(X, y, LogisticLoss(), 1.0, 0.5, rng=0)
    >>> res.method, res.noise_rate == output_perturbation_rate(1.0, 4, 0.5, 1e-8)
    ('output', True)
    """
    owner = "output_perturbation"
    Z, ys, loss, epsilon, regularization, tol = prepare(
        owner, X, y, loss, epsilon, regularization, tol=tol, norm_bound=norm_bound, clip=clip)
    return release_output_perturbation(Z, ys, loss, epsilon, regularization, tol=tol, rng=rng,
                                       norm_bound=norm_bound, clip=clip)


def release_output_perturbation(Z, ys, loss, epsilon, regularization, *, tol, rng, norm_bound=1.0,
                                clip=False):
    """Algorithm 1 on validated inputs (rows in the unit ball, labels +-1.0).

    See :func:`output_perturbation`; ``norm_bound`` and ``clip`` are only
    recorded in the result.
    """
    rng = check_rng(rng)
    n, d = Z.shape
    beta = output_perturbation_rate(epsilon, n, regularization, tol)
    sol = minimise(loss, Z, ys, regularization, tol=tol)
    theta = sol.theta + spherical_laplace(d, beta, rng=rng)
    return PrivateERMResult(theta=theta, method="output", loss=loss, epsilon=epsilon,
                            regularization=regularization, n=n, d=d, noise_rate=beta,
                            sensitivity=output_perturbation_sensitivity(n, regularization, tol),
                            epsilon_prime=None, extra_regularization=0.0, tol=tol,
                            norm_bound=float(norm_bound), clip=bool(clip))
