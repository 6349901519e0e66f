"""Objective perturbation with Gaussian noise under zero-concentrated DP.

The release is the minimiser of ``J(f, D) + b^T f / n + Delta ||f||^2 / 2``
with ``b ~ N(0, sigma^2 I)`` (the noise law of Algorithm 2 of Chaudhuri,
Monteleoni and Sarwate replaced by a Gaussian; Wang, Kifer and Lee use it for
confidence intervals). With ``mu = Lambda + Delta``, ``q = c / (n mu)`` and
``k = 1`` (``improved=True``) or ``k = 2`` (the paper's Jacobian bound), the
release satisfies, for every order ``alpha > 1`` and replace-one neighbours,

    ``D_alpha(P_D || P_D') <= k ln(1 + q) + sqrt(2 pi) / sigma + 2 alpha / sigma^2``,

hence it is rho-zCDP with ``rho = k ln(1 + q) + sqrt(2 pi) / sigma + 2 /
sigma^2`` (**derived**; proof in
``docs/theory/erm_inference_mechanisms.rst``). The middle term is not the one a Gaussian mechanism with a fixed shift would
pay: the difference of the noise vectors that explain an output on ``D``
and on ``D'`` depends on that output, and is bounded through the norm of
the noise's projection on the plane spanned by the two differing records (a
Rayleigh variable). The constant ``sqrt(2 pi) = 2 sup_t (K(t) - t^2/2) / t``
comes from the cumulant generating function ``K`` of the Rayleigh law; the
supremum is its limit at ``t = 0``, ``2 E[R] = sqrt(2 pi)`` (log-concavity
of ``t -> e^{-t^2/2} E e^{tR}``).

Calibration (:func:`objective_perturbation_zcdp_budget`): ``rho' = rho - k
ln(1 + c/(n Lambda))``; if ``rho' > 0``, ``Delta = 0``; otherwise ``Lambda +
Delta >= c / (n (e^{rho/(2k)} - 1))`` and ``rho' = rho / 2`` (the branch of
Algorithm 2). Then ``sigma`` is the positive root of ``2/sigma^2 +
sqrt(2 pi)/sigma = rho'``, ``sigma = (sqrt(2 pi) + sqrt(2 pi + 8 rho')) /
(2 rho')``, rounded up.

The solver tolerance and floating-point caveats are those of
:mod:`refdp.erm.objective_perturbation`: the guarantee is for the exact
minimiser, and the computed point is within ``tol / (Lambda + Delta)`` of it.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Algorithm 2.
.. [WKL19] Y. Wang, D. Kifer and J. Lee, "Differentially Private Confidence
   Intervals for Empirical Risk Minimization", Journal of Privacy and
   Confidentiality 9(1), 2019.
.. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds", TCC 2016 (Definition 1.1,
   approximate zCDP Definition 1.2).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

from ..utils.constraints import FLAG, RNG, InstanceOf, SameLength, constrained, constrained_fields
from ..utils.validation import Described, Interval, parameter_error
from ..utils.rounding import IV_PREC, ceil_interval, floor_fraction, floor_interval
from ..utils.precision import shared_interval_context
from ._constraints import BINARY_CLASSES, LOSS, REPORTED_NONNEGATIVE, REPORTED_POSITIVE
from ._data import prepare_data
from ..utils.lazy_noise import BitSource, LazyGaussianVector
from ._grid_minimiser import secure_minimiser
from ..utils.solver import minimise
from .objective_perturbation import IMPROVED_POWER, JACOBIAN_POWER, BudgetFor, budget_within, extra_regularization
from .output_perturbation import DEFAULT_TOL, FEATURES, LABELS, RELEASE
from .result import PrivateERMResult
from ..utils.validation import POSITIVE

__all__ = ["ObjectivePerturbationZCDPBudget", "objective_perturbation_zcdp_budget",
           "release_objective_perturbation_zcdp", "objective_perturbation_zcdp"]

COUNT = Interval(int, 1, None)


@constrained_fields(rho=REPORTED_POSITIVE, rho_prime=REPORTED_POSITIVE, extra_regularization=REPORTED_NONNEGATIVE,
                    noise_scale=REPORTED_POSITIVE, total_regularization=REPORTED_POSITIVE, improved=FLAG,
                    xi=REPORTED_NONNEGATIVE, rho0=REPORTED_POSITIVE)
class ObjectivePerturbationZCDPBudget(NamedTuple):
    """The parameters of one Gaussian objective-perturbation release.

    Attributes
    ----------
    rho : float
        Target zCDP parameter.
    rho_prime : float
        ``rho'``, the part of ``rho`` left for the noise after the Jacobian
        term (rounded down).
    extra_regularization : float
        ``Delta`` (0.0 when ``rho' > 0`` at ``Delta = 0``).
    noise_scale : float
        ``sigma``: ``b ~ N(0, sigma^2 I)`` (rounded up).
    total_regularization : float
        ``Lambda + Delta`` as the solver uses it.
    improved : bool
        Single Jacobian factor ``1 + q`` (True) or its square (False).
    xi : float
        Upper bound of ``k ln(1 + c/(n (Lambda + Delta))) + sqrt(2 pi) /
        sigma``: the release is also ``(xi, rho0)``-approximately zCDP,
        ``D_alpha <= xi + rho0 alpha`` for every ``alpha > 1``.
    rho0 : float
        Upper bound of ``2 / sigma^2``.
    """

    rho: float
    rho_prime: float
    extra_regularization: float
    noise_scale: float
    total_regularization: float
    improved: bool
    xi: float
    rho0: float


def _exact(iv, v):
    v = Fraction(v)
    return iv.mpf(v.numerator) / v.denominator


def _noise_scale(iv, rho_prime):
    """Upper end of ``(sqrt(2 pi) + sqrt(2 pi + 8 rho')) / (2 rho')``, the root of ``2u^2 + sqrt(2 pi) u = rho'``."""
    r = _exact(iv, rho_prime)
    s2pi = iv.sqrt(2 * iv.pi)
    return ceil_interval((s2pi + iv.sqrt(2 * iv.pi + 8 * r)) / (2 * r))


def _zcdp_budget(rho, curvature, n, regularization, power, owner="objective_perturbation_zcdp_budget"):
    iv = shared_interval_context(IV_PREC)
    rho_iv, c, lam = _exact(iv, rho), _exact(iv, curvature), _exact(iv, regularization)
    first = floor_interval(rho_iv - power * iv.log(1 + c / n / lam))
    if first > 0.0:
        rho_prime, delta, mu = first, 0.0, float(regularization)
    else:
        # Delta branch: Lambda + Delta >= c / (n (e^{rho / (2 power)} - 1)), rho' = rho / 2
        target = ceil_interval(c / n / (iv.exp(rho_iv / (2 * power)) - 1))
        if not math.isfinite(target):
            # rho = 5e-324 needed Lambda + Delta beyond the doubles (an OverflowError before)
            raise parameter_error("rho", owner, "large enough that Lambda + Delta is a finite double", rho)
        target = Fraction(target)
        delta = extra_regularization(target, regularization)
        rho_prime, mu = floor_fraction(Fraction(rho) / 2), regularization + delta
    if not rho_prime > 0.0:
        raise parameter_error("rho", owner, "large enough that rho' = rho / 2 is a positive double", rho)
    sigma = _noise_scale(iv, rho_prime)
    if math.isinf(sigma):
        raise parameter_error("rho", owner, "large enough that the noise scale sigma is finite", rho)
    s = _exact(iv, sigma)
    # the proof's inequality, decided for the numbers used (sigma rounded up, mu the solver's)
    noise_part = 2 / s ** 2 + iv.sqrt(2 * iv.pi) / s
    if not noise_part.b <= _exact(iv, rho_prime):
        raise ArithmeticError("the Gaussian objective-perturbation budget could not be certified")
    jac = power * iv.log(1 + c / n / _exact(iv, mu))
    xi = ceil_interval(jac + iv.sqrt(2 * iv.pi) / s)
    rho0 = ceil_interval(2 / s ** 2)
    return ObjectivePerturbationZCDPBudget(float(rho), rho_prime, delta, sigma, mu, power == IMPROVED_POWER,
                                           xi, rho0)


def _check_budget(budget, loss, n, regularization, owner):
    """The budget of a zCDP release: finite target, at least as safe as the analyses give."""
    rho = budget.rho
    if not (isinstance(rho, (int, float)) and not isinstance(rho, bool) and math.isfinite(rho) and rho > 0):
        raise parameter_error("budget", owner, "a budget whose rho is a float in the range (0, inf)",
                              Described(f"rho = {rho!r}"))
    if not (isinstance(budget.noise_scale, float) and budget.noise_scale > 0):
        raise parameter_error("budget", owner, "a budget whose noise_scale is a float in the range (0, inf)",
                              Described(f"noise_scale = {budget.noise_scale!r}"))
    refs = []
    for power in (IMPROVED_POWER, JACOBIAN_POWER):
        try:
            refs.append(_zcdp_budget(rho, loss.curvature, n, regularization, power, owner))
        except ValueError:              # no finite budget exists for this rho
            continue
    return budget_within(budget, refs, owner, rate="noise_scale", larger_is_safer=True)


@constrained(rho=POSITIVE, curvature=POSITIVE, n=COUNT, regularization=POSITIVE, improved=FLAG)
def objective_perturbation_zcdp_budget(rho, curvature, n, regularization, *, improved=True):
    """``rho'``, ``Delta`` and ``sigma`` of Gaussian objective perturbation, rounded toward safety.

    Parameters
    ----------
    rho : float > 0
        Target zCDP parameter.
    curvature : float > 0
        ``c``, the loss's bound on ``l''``.
    n : int >= 1
    regularization : float > 0
        ``Lambda``.
    improved : bool, default True
        Pay ``ln(1 + q)`` for the Jacobian (True; [WKL19]_) or ``2 ln(1 +
        q)`` ([CMS11]_'s bound; False).

    Returns
    -------
    ObjectivePerturbationZCDPBudget

    Notes
    -----
    ``rho' = rho - k ln(1 + c/(n Lambda))`` is enclosed in interval
    arithmetic and rounded down; the ``Delta`` branch (``rho' = rho / 2``,
    ``Delta`` rounded up so that the solver's double ``Lambda + Delta`` is at
    least ``c / (n (e^{rho/(2k)} - 1))``) is taken when it is not positive.
    ``sigma`` is the upper end of the enclosure of ``(sqrt(2 pi) + sqrt(2 pi
    + 8 rho')) / (2 rho')`` rounded up, and ``2/sigma^2 + sqrt(2 pi)/sigma <=
    rho'`` is decided for the double returned (``ArithmeticError`` if it
    could not be, which does not happen for finite inputs).

    Examples
    --------
    >>> from refdp.erm import objective_perturbation_zcdp_budget
    >>> b = objective_perturbation_zcdp_budget(0.5, 0.25, 1000, 0.01)
    >>> round(b.rho_prime, 6), b.extra_regularization, round(b.noise_scale, 4)
    (0.475307, 0.0, 5.9776)
    >>> b = objective_perturbation_zcdp_budget(0.01, 0.25, 100, 0.01)   # rho' <= 0: Delta branch
    >>> b.rho_prime, round(b.extra_regularization, 6)
    (0.005, 0.488751)
    """
    return _zcdp_budget(rho, curvature, n, regularization, IMPROVED_POWER if improved else JACOBIAN_POWER,
                        "objective_perturbation_zcdp_budget")


@constrained(budget=InstanceOf((ObjectivePerturbationZCDPBudget,), "an ObjectivePerturbationZCDPBudget"),
             relations=(SameLength(("Z", "ys")), BudgetFor(_check_budget)), **RELEASE)
def release_objective_perturbation_zcdp(Z, ys, loss, regularization, budget, *, tol=DEFAULT_TOL, rng=None,
                                        norm_bound=1.0, clip=False, secure=True):
    """Draw ``b ~ N(0, sigma^2 I)`` and minimise the perturbed objective, on rows already in the unit ball.

    Parameters
    ----------
    Z : ndarray, shape (n, d)
        Rows with ``||x|| <= 1``.
    ys : ndarray, shape (n,)
        Labels in ``{-1.0, +1.0}``.
    loss : MarginLoss
    regularization : float
        ``Lambda``.
    budget : ObjectivePerturbationZCDPBudget
    tol : float, default 1e-8
    rng : numpy.random.Generator or seed
    norm_bound, clip
        Recorded in the result.
    secure : bool, default True
        True: the float-safe release (exact Gaussian draw, certified grid cell
        of the exact minimiser; Theorem 7 of ``docs/theory/secure_noise.rst``).
        False: the textbook path (float noise, computed minimiser), not
        private as implemented.

    Returns
    -------
    PrivateERMResult

    Raises
    ------
    ValueError
        If a row of ``Z`` has exact norm above 1, a label is not +-1.0, the
        lengths differ, or the budget adds less noise or regularization than
        :func:`objective_perturbation_zcdp_budget` computes for its rho, the
        loss's curvature, ``n`` and ``Lambda``: the rho stamped on the result
        holds only under these conditions.
    """
    n, d = Z.shape
    mu = budget.total_regularization
    step = None
    if secure:
        noise = LazyGaussianVector(BitSource(rng.bit_generator), d, Fraction(budget.noise_scale))
        theta, step = secure_minimiser(loss, Z, ys, mu, noise, budget.noise_scale / (n * mu), tol=tol)
    else:
        b = rng.normal(0.0, budget.noise_scale, size=d)
        theta = minimise(loss, Z, ys, mu, b / n, tol=tol).theta
    return PrivateERMResult(theta=theta, method="objective", loss=loss, epsilon=None,
                            regularization=regularization, n=n, d=d, noise_rate=None,
                            sensitivity=None, epsilon_prime=None,
                            extra_regularization=budget.extra_regularization, tol=tol,
                            norm_bound=float(norm_bound), clip=bool(clip), privacy="zcdp", rho=budget.rho,
                            noise="gaussian", noise_scale=budget.noise_scale, improved=budget.improved,
                            grid_step=step)


@constrained(X=FEATURES, y=LABELS, loss=LOSS, rho=POSITIVE, regularization=POSITIVE, improved=FLAG,
             tol=POSITIVE, norm_bound=POSITIVE, clip=FLAG, rng=RNG, classes=BINARY_CLASSES, secure=FLAG)
def objective_perturbation_zcdp(X, y, loss, *, rho, regularization, improved=True, tol=DEFAULT_TOL,
                                norm_bound=1.0, clip=False, rng=None, classes=(-1, 1), secure=True):
    """Release the minimiser of ``J(f) + b^T f / n + Delta ||f||^2 / 2``, ``b ~ N(0, sigma^2 I)``: rho-zCDP.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features; every row must satisfy ``||x|| <= norm_bound`` unless
        ``clip`` is True.
    y : array_like, shape (n,)
        Labels among the declared ``classes``.
    loss : MarginLoss
        Convex, ``|l'| <= 1``, ``l'' <= loss.curvature``.
    rho : float > 0
        zCDP parameter (replace-one neighbours).
    regularization : float > 0
        ``Lambda``.
    improved : bool, default True
        Single Jacobian factor (see :func:`objective_perturbation_zcdp_budget`).
    tol : float > 0, default 1e-8
        Solver tolerance: the released point is within ``tol / (Lambda +
        Delta)`` of the exact minimiser.
    norm_bound : float > 0, default 1.0
    clip : bool, default False
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.

    classes : pair of labels, keyword-only, default (-1, 1)
        The declared labels, as for the estimators: ``classes[0]`` is mapped
        to -1 and ``classes[1]`` to +1 (``classes=(0, 1)`` for 0/1 labels).
        Never inferred from ``y``.
    secure : bool, default True
        True: the float-safe release of :func:`refdp.erm.objective_perturbation`
        (``docs/theory/secure_noise.rst``, Theorem 7), with an exact Gaussian
        draw of ``b``. False: the textbook float path (see Warnings).

    Returns
    -------
    PrivateERMResult
        ``privacy="zcdp"``, ``noise="gaussian"``, ``noise_scale = sigma``;
        ``epsilon``, ``noise_rate`` and ``epsilon_prime`` are None.

    Raises
    ------
    ValueError
        On invalid parameters, NaN features, labels outside ``{-1, +1}`` or
        rows outside the ball without ``clip``.

    Warnings
    --------
    With ``secure=False`` the release is **not float-safe**: the noise
    vector ``b`` is drawn in double precision and the release is the
    computed minimiser, so the guarantee is a statement about the
    real-valued mechanism, not about the doubles returned (Mironov 2012;
    refdp's float-bits audit flags it). That path is kept for comparison
    and teaching only.

    Notes
    -----
    rho-zCDP for the exact minimiser (module docstring; proof in
    ``docs/theory/erm_inference_mechanisms.rst``). For a given ``rho`` the
    noise is far larger than a Gaussian mechanism on the gradient would need when ``rho``
    is small, because the proven bound has a term ``sqrt(2 pi) / sigma``
    linear in ``1/sigma``: ``sigma`` grows like ``sqrt(2 pi) / rho``, against
    ``sqrt(2 / rho)`` for a fixed shift of norm 2.
    :func:`output_perturbation_zcdp` is then usually the better choice. The
    check ``wang_kifer_lee.objective_perturbation_zcdp_renyi`` integrates the
    exact output densities of neighbouring 1-D datasets and compares their
    Renyi divergences with the bound.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import LogisticLoss, objective_perturbation_zcdp
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    >>> y = np.array([1, -1, 1, -1])
    >>> res = objective_perturbation_zcdp(X, y, LogisticLoss(), rho=2.0, regularization=0.5, rng=0)
    >>> res.method, res.privacy, res.noise, res.improved, res.extra_regularization
    ('objective', 'zcdp', 'gaussian', True, 0.0)
    """
    owner = "objective_perturbation_zcdp"
    Z, ys = prepare_data(owner, X, y, norm_bound=norm_bound, clip=clip, classes=classes)
    budget = _zcdp_budget(rho, loss.curvature, Z.shape[0], regularization,
                          IMPROVED_POWER if improved else JACOBIAN_POWER, owner)
    return release_objective_perturbation_zcdp.__wrapped__(Z, ys, loss, regularization, budget, tol=tol, rng=rng,
                                               norm_bound=norm_bound, clip=clip, secure=secure)
