"""Output perturbation: the sensitivity method for regularised ERM (Algorithm 1).

Chaudhuri, Monteleoni and Sarwate (2011), Algorithm 1 and Theorem 1: the
minimiser ``f* = argmin_f J(f, D)`` of ``J(f, D) = (1/n) sum_i l(y_i f^T x_i)
+ (Lambda/2) ||f||^2`` has L2 sensitivity at most ``2 / (n Lambda)`` over
replace-one neighbours when ``l`` is convex and differentiable with ``|l'| <=
1`` and ``||x_i|| <= 1`` (Corollary 1). Releasing ``f* + b`` with ``b`` of
density proportional to ``exp(-beta ||b||)``, ``beta = n Lambda epsilon / 2``,
is epsilon-DP.

The computed minimiser is within ``tol / Lambda`` of ``f*``
(:mod:`refdp.utils.solver`), so the *released* function of the data has
sensitivity at most ``2 / (n Lambda) + 2 tol / Lambda``; refdp calibrates
``beta`` to that bound, which makes the guarantee hold for the numbers
actually computed (up to the floating-point sampling caveat of
:func:`refdp.mechanisms.spherical_laplace`).

Under zero-concentrated DP (:func:`output_perturbation_zcdp`) the same
sensitivity bound ``S`` calibrates Gaussian noise ``N(0, sigma^2 I)``, ``sigma
= S / sqrt(2 rho)`` rounded up: the Gaussian mechanism is rho-zCDP ([BS16]_
Proposition 1.6). Wang, Kifer and Lee ([WKL19]_) use this release for their
confidence intervals.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Algorithm 1,
   Theorem 1 and Corollary 1.
.. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds", TCC 2016, Proposition 1.6.
.. [WKL19] Y. Wang, D. Kifer and J. Lee, "Differentially Private Confidence
   Intervals for Empirical Risk Minimization", Journal of Privacy and
   Confidentiality 9(1), 2019.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..utils.constraints import FLAG, RNG, Checked, SameLength, constrained
from ..utils.validation import Interval, parameter_error
from ..utils.rounding import ceil_fraction, floor_fraction, upward_gaussian_sigma
from ..mechanisms import gaussian_mechanism, spherical_laplace
from ..mechanisms.float_safe import gaussian_grid, l2_laplace_grid
from ._constraints import BINARY_CLASSES, LOSS, SIGNED_LABELS, UNIT_BALL_ROWS
from ._data import prepare_data
from ..utils.solver import minimise
from .result import PrivateERMResult
from ..utils.validation import POSITIVE

__all__ = ["output_perturbation", "release_output_perturbation", "output_perturbation_sensitivity",
           "output_perturbation_rate", "output_perturbation_sigma", "output_perturbation_zcdp",
           "release_output_perturbation_zcdp"]

NONNEGATIVE = Interval(float, 0, None, closed="left")
COUNT = Interval(int, 1, None)
DEFAULT_TOL = 1e-8


#: The features and labels of the public releases: validated together with
#: ``norm_bound``, ``clip`` and ``classes`` by :func:`refdp.erm._data.prepare_data`.
FEATURES = Checked("rows with ||x|| <= norm_bound unless clip (refdp.erm._data.unit_ball_rows)",
                   invalid=("abc", None, np.zeros((0, 2)), np.zeros(3), np.array([[134.0, 0.0]]),
                            np.array([[np.nan, 0.0]])))
LABELS = Checked("labels among the declared classes (refdp.erm._data.signed_labels)",
                 invalid=(None, np.array([5, 5, 5, 5]), np.array([1.0, np.nan, 1.0, -1.0]), np.zeros(0)))
#: The common constraints of the four releases on validated rows.
RELEASE = dict(Z=UNIT_BALL_ROWS, ys=SIGNED_LABELS, loss=LOSS, regularization=POSITIVE, tol=POSITIVE,
               rng=RNG, norm_bound=POSITIVE, clip=FLAG, secure=FLAG)


def _exact_sensitivity(n, regularization, tol):
    """``2/(n Lambda) + 2 tol/Lambda`` as a Fraction (arguments validated by the caller)."""
    lam = Fraction(regularization)
    return Fraction(2, n) / lam + 2 * Fraction(tol) / lam


@constrained(n=COUNT, regularization=POSITIVE, tol=NONNEGATIVE)
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
    return ceil_fraction(_exact_sensitivity(n, regularization, tol))


@constrained(epsilon=POSITIVE, n=COUNT, regularization=POSITIVE, tol=NONNEGATIVE)
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
        The largest double at most the exact value (the largest double if
        the exact value exceeds it).

    Raises
    ------
    ValueError
        If the exact rate is below the smallest positive double (rounding it
        up would add less noise than the guarantee needs).

    Examples
    --------
    >>> from refdp.erm import output_perturbation_rate
    >>> output_perturbation_rate(1.0, 100, 0.1)
    5.0
    """
    rate = floor_fraction(Fraction(epsilon) / _exact_sensitivity(n, regularization, tol))
    if not rate > 0.0:
        # was raised to 5e-324, above the exact rate: less noise than epsilon requires
        raise parameter_error("epsilon", "output_perturbation_rate", "large enough that the noise rate "
                              "epsilon / (2/(n Lambda) + 2 tol/Lambda) is at least the smallest positive double",
                              epsilon)
    return rate if rate < math.inf else 1.7976931348623157e308


def _finite_sensitivity(n, regularization, tol, owner):
    """The rounded-up sensitivity, refused when it is not a finite double (tiny Lambda, huge tol)."""
    s = output_perturbation_sensitivity.__wrapped__(n, regularization, tol)
    if math.isinf(s):
        raise parameter_error("regularization", owner, f"large enough, for n = {n} and 'tol' = {tol!r}, that the "
                              "sensitivity 2/(n Lambda) + 2 tol/Lambda is a finite double", regularization)
    return s


@constrained(X=FEATURES, y=LABELS, loss=LOSS, epsilon=POSITIVE, regularization=POSITIVE, tol=POSITIVE,
             norm_bound=POSITIVE, clip=FLAG, rng=RNG, secure=FLAG, classes=BINARY_CLASSES)
def output_perturbation(X, y, loss, *, epsilon, regularization, tol=DEFAULT_TOL, norm_bound=1.0,
                        clip=False, rng=None, secure=True, classes=(-1, 1)):
    """Release ``argmin_f J(f, D) + b`` with spherical Laplace noise ([CMS11]_ Algorithm 1).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features; every row must satisfy ``||x|| <= norm_bound`` unless
        ``clip`` is True (see :mod:`refdp.erm._data`).
    y : array_like, shape (n,)
        Labels among the declared ``classes``.
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
    secure : bool, default True
        True: the noise is added by :func:`refdp.mechanisms.spherical_laplace`'s
        float-safe release (``docs/theory/secure_noise.rst``, Theorem 3):
        the minimiser is rounded to a grid ``g <= S / 2**10`` and each
        coordinate gets exact discrete Laplace noise for the L1 bound
        ``sqrt(d) S``, epsilon-DP for the returned doubles; per coordinate
        the noise standard deviation is ``sqrt(2 d / (d + 1))`` times that of
        the spherical law (equal for ``d = 1``, below ``sqrt 2``) times
        ``1 + 2**-10``. False: ``f_hat + b`` with the spherical law sampled
        in doubles, **not private as implemented** (Mironov 2012), for
        comparison only.

    classes : pair of labels, keyword-only, default (-1, 1)
        The declared labels, as for the estimators: ``classes[0]`` is mapped
        to -1 and ``classes[1]`` to +1 (``classes=(0, 1)`` for 0/1 labels).
        Never inferred from ``y``.
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
    >>> res = output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.5, rng=0)
    >>> res.method, res.noise_rate == output_perturbation_rate(1.0, 4, 0.5, 1e-8)
    ('output', True)
    """
    Z, ys = prepare_data("output_perturbation", X, y, norm_bound=norm_bound, clip=clip, classes=classes)
    return release_output_perturbation.__wrapped__(Z, ys, loss, epsilon, regularization, tol=tol, rng=rng,
                                       norm_bound=norm_bound, clip=clip, secure=secure)


@constrained(epsilon=POSITIVE, relations=(SameLength(("Z", "ys")),), **RELEASE)
def release_output_perturbation(Z, ys, loss, epsilon, regularization, *, tol, rng, norm_bound=1.0,
                                clip=False, secure=True):
    """Algorithm 1 on rows already in the unit ball and labels +-1.0.

    See :func:`output_perturbation`, which maps the features with
    ``norm_bound`` and ``clip`` and then calls this release; here
    ``norm_bound`` and ``clip`` are only recorded in the result.

    Raises
    ------
    ValueError
        If a row of ``Z`` has exact Euclidean norm above 1 (decided in exact
        arithmetic, so a row whose float norm rounds down to 1 is refused),
        a label is not -1.0 or +1.0, the lengths differ, or any other
        parameter is out of range: the privacy guarantee stamped on the
        result holds only under these conditions.
    """
    n, d = Z.shape
    owner = "release_output_perturbation"
    s_float = _finite_sensitivity(n, regularization, tol, owner)
    beta = output_perturbation_rate.__wrapped__(epsilon, n, regularization, tol)
    # beta' S_float <= epsilon exactly, with S_float >= the exact sensitivity
    # rounded down; beyond the doubles (Lambda = 1e308 gave inf) the largest double
    rate = min(floor_fraction(Fraction(epsilon) / Fraction(s_float)), 1.7976931348623157e308)
    if not rate > 0.0:
        raise parameter_error("epsilon", owner, "large enough that the noise rate epsilon / sensitivity is a "
                              "positive double", epsilon)
    sol = minimise(loss, Z, ys, regularization, tol=tol)
    if secure:
        theta = spherical_laplace(d, rate, value=sol.theta, sensitivity=s_float, rng=rng)
        grid = l2_laplace_grid(Fraction(rate) * Fraction(s_float), s_float, d)   # the recipe it used
    else:
        theta = sol.theta + spherical_laplace(d, beta, rng=rng)
        grid = None
    return PrivateERMResult(theta=theta, method="output", loss=loss, epsilon=epsilon,
                            regularization=regularization, n=n, d=d, noise_rate=beta,
                            sensitivity=output_perturbation_sensitivity.__wrapped__(n, regularization, tol),
                            epsilon_prime=None, extra_regularization=0.0, tol=tol,
                            norm_bound=float(norm_bound), clip=bool(clip), grid_noise=grid)


@constrained(rho=POSITIVE, n=COUNT, regularization=POSITIVE, tol=NONNEGATIVE)
def output_perturbation_sigma(rho, n, regularization, tol=0.0):
    """Gaussian noise scale ``sigma = S / sqrt(2 rho)``, ``S = 2/(n Lambda) + 2 tol/Lambda``, rounded up.

    Parameters
    ----------
    rho : float > 0
        zCDP parameter.
    n : int >= 1
    regularization : float > 0
        ``Lambda``.
    tol : float >= 0, default 0.0
        Solver tolerance (0 for the exact minimiser).

    Returns
    -------
    float
        A double at least the exact value: the sensitivity is rounded up
        (:func:`output_perturbation_sensitivity`), then the smallest double
        ``s`` with ``2 rho s**2 >= sensitivity**2`` is taken ([BS16]_
        Proposition 1.6). ``inf`` if that exceeds the largest double.

    Examples
    --------
    >>> from refdp.erm import output_perturbation_sigma
    >>> output_perturbation_sigma(0.5, 100, 0.1)        # S = 0.2, sqrt(2 rho) = 1
    0.2
    """
    sensitivity = ceil_fraction(_exact_sensitivity(n, regularization, tol))
    return upward_gaussian_sigma(sensitivity, rho)


@constrained(X=FEATURES, y=LABELS, loss=LOSS, rho=POSITIVE, regularization=POSITIVE, tol=POSITIVE,
             norm_bound=POSITIVE, clip=FLAG, rng=RNG, secure=FLAG, classes=BINARY_CLASSES)
def output_perturbation_zcdp(X, y, loss, *, rho, regularization, tol=DEFAULT_TOL, norm_bound=1.0,
                             clip=False, rng=None, secure=True, classes=(-1, 1)):
    """Release ``argmin_f J(f, D) + b`` with Gaussian noise ``b ~ N(0, sigma^2 I)``: rho-zCDP.

    The zCDP counterpart of :func:`output_perturbation` ([WKL19]_): the computed minimiser has L2 sensitivity at most ``S =
    2/(n Lambda) + 2 tol/Lambda`` ([CMS11]_ Corollary 1 plus the solver
    term), and ``sigma = S / sqrt(2 rho)`` (rounded up) makes the Gaussian
    mechanism rho-zCDP ([BS16]_ Proposition 1.6).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features; every row must satisfy ``||x|| <= norm_bound`` unless
        ``clip`` is True.
    y : array_like, shape (n,)
        Labels among the declared ``classes``.
    loss : MarginLoss
        Convex, differentiable, ``|l'| <= 1``.
    rho : float > 0
        zCDP parameter (replace-one neighbours).
    regularization : float > 0
        ``Lambda``.
    tol : float > 0, default 1e-8
        Gradient-norm tolerance of the solver; enters the sensitivity.
    norm_bound : float > 0, default 1.0
    clip : bool, default False
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.
    secure : bool, default True
        True: the noise is added by :func:`refdp.mechanisms.gaussian_mechanism`'s
        float-safe release (discrete Gaussian on a grid ``g <= S /
        2**10``, ``docs/theory/secure_noise.rst``, Theorem 2), rho-zCDP for
        the returned doubles; noise standard deviation at most ``sigma (1 +
        2**-10)`` per coordinate. False: ``f_hat + N(0, sigma^2 I)`` in
        doubles, **not private as implemented**, for comparison only.

    classes : pair of labels, keyword-only, default (-1, 1)
        The declared labels, as for the estimators: ``classes[0]`` is mapped
        to -1 and ``classes[1]`` to +1 (``classes=(0, 1)`` for 0/1 labels).
        Never inferred from ``y``.
    Returns
    -------
    PrivateERMResult
        ``theta = f_hat + b``, ``privacy="zcdp"``, ``noise="gaussian"``,
        ``noise_scale = sigma = output_perturbation_sigma(rho, n, Lambda,
        tol)``; ``epsilon`` and ``noise_rate`` are None.

    Raises
    ------
    ValueError
        On invalid parameters (``rho`` not in ``(0, inf)``, ...), NaN
        features, labels outside ``{-1, +1}``, rows outside the ball without
        ``clip``, or a ``sigma`` that overflows.

    Notes
    -----
    rho-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every
    ``delta > 0`` (:func:`refdp.accounting.zcdp_to_dp`). The noise is drawn
    with :meth:`numpy.random.Generator.normal` in double precision, with the
    caveat of :func:`refdp.mechanisms.gaussian_mechanism`. The check
    ``wang_kifer_lee.output_perturbation_zcdp_renyi`` computes the Renyi
    divergences of the two Gaussian output laws at the worst neighbour pairs
    of small datasets.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import LogisticLoss, output_perturbation_zcdp
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    >>> y = np.array([1, -1, 1, -1])
    >>> res = output_perturbation_zcdp(X, y, LogisticLoss(), rho=0.5, regularization=0.5, rng=0)
    >>> res.privacy, res.noise, res.epsilon, res.noise_scale == output_perturbation_sigma(0.5, 4, 0.5, 1e-8)
    ('zcdp', 'gaussian', None, True)
    """
    owner = "output_perturbation_zcdp"
    Z, ys = prepare_data(owner, X, y, norm_bound=norm_bound, clip=clip, classes=classes)
    return _release_zcdp(Z, ys, loss, rho, regularization, tol=tol, rng=rng, norm_bound=norm_bound,
                         clip=clip, owner=owner, secure=secure)


@constrained(rho=POSITIVE, relations=(SameLength(("Z", "ys")),), **RELEASE)
def release_output_perturbation_zcdp(Z, ys, loss, rho, regularization, *, tol, rng, norm_bound=1.0,
                                     clip=False, secure=True):
    """:func:`output_perturbation_zcdp` on rows already in the unit ball and labels +-1.0.

    ``norm_bound`` and ``clip`` are only recorded in the result.

    Raises
    ------
    ValueError
        As :func:`release_output_perturbation`: rows of exact norm above 1,
        labels other than +-1.0, mismatched lengths or out-of-range
        parameters.
    """
    return _release_zcdp(Z, ys, loss, rho, regularization, tol=tol, rng=rng, norm_bound=norm_bound,
                         clip=clip, secure=secure, owner="release_output_perturbation_zcdp")


def _release_zcdp(Z, ys, loss, rho, regularization, *, tol, rng, norm_bound, clip, secure, owner):
    """The body of :func:`release_output_perturbation_zcdp`; ``owner`` names the public caller."""
    n, d = Z.shape
    _finite_sensitivity(n, regularization, tol, owner)
    sigma = output_perturbation_sigma.__wrapped__(rho, n, regularization, tol)
    if math.isinf(sigma):
        raise parameter_error("rho", owner, "large enough that the noise scale S / sqrt(2 rho) is finite", rho)
    sol = minimise(loss, Z, ys, regularization, tol=tol)
    if secure:
        s_float = output_perturbation_sensitivity.__wrapped__(n, regularization, tol)
        theta = np.atleast_1d(gaussian_mechanism(sol.theta, rho, sensitivity=s_float, rng=rng))
        grid = gaussian_grid(rho, s_float, d)                                    # the recipe it used
    else:
        theta = sol.theta + rng.normal(0.0, sigma, size=d)
        grid = None
    return PrivateERMResult(theta=theta, method="output", loss=loss, epsilon=None,
                            regularization=regularization, n=n, d=d, noise_rate=None,
                            sensitivity=output_perturbation_sensitivity.__wrapped__(n, regularization, tol),
                            epsilon_prime=None, extra_regularization=0.0, tol=tol,
                            norm_bound=float(norm_bound), clip=bool(clip), privacy="zcdp", rho=rho,
                            noise="gaussian", noise_scale=sigma, grid_noise=grid)
