"""Objective perturbation: noise added to the ERM objective before minimising (Algorithm 2).

Chaudhuri, Monteleoni and Sarwate (2011), Algorithm 2 and Theorem 2. With
``c`` the curvature bound of the loss (``l'' <= c``):

1. ``epsilon' = epsilon - ln(1 + 2c/(n Lambda) + c^2/(n^2 Lambda^2))``;
2. if ``epsilon' > 0``: ``Delta = 0``; otherwise ``Delta = c / (n (e^{epsilon/4}
   - 1)) - Lambda`` and ``epsilon' = epsilon / 2``;
3. draw ``b`` with density proportional to ``exp(-beta ||b||)``, ``beta =
   epsilon' / 2``;
4. release ``argmin_f J(f, D) + b^T f / n + Delta ||f||^2 / 2``.

The release is epsilon-DP for replace-one neighbours when ``l`` is convex,
twice differentiable, ``|l'| <= 1``, ``l'' <= c`` and ``||x_i|| <= 1``
(Theorem 2; for the Huber hinge loss, whose second derivative jumps at two
margins, Corollary 4). The privacy proof reasons about the density of the
output: ``b`` is recovered from the output ``f`` through the first-order
condition ``b = -n (grad J(f, D) + Delta f)``, and the output density is the
noise density at that ``b`` times the Jacobian determinant of ``f -> b``;
``epsilon - epsilon'`` pays for the ratio of the determinants (at most
``(1 + c/(n (Lambda + Delta)))^2``) and ``2 beta`` for the noise.

The ``epsilon'`` formula lives in one place (:func:`objective_perturbation_budget`);
:func:`release_objective_perturbation` performs the release for any budget, so
a variant with a different slack reuses it unchanged.

Numerics. Every budget number is rounded toward safety: ``epsilon'`` and
``beta`` down, ``Delta`` up (more regularisation only shrinks the
determinant ratio), and the regularisation the solver uses, ``Lambda + Delta``
in floating point, is checked in rational arithmetic to be at least the
exact requirement. The proof assumes the exact minimiser; the solver returns
a point within ``tol / (Lambda + Delta)`` of it (:mod:`refdp.utils.solver`).
That displacement is a deterministic, data-dependent function of the exact
output and is *not* covered by the proof: the guarantee is stated for the
exact minimiser, and ``tol`` (default ``1e-8``) bounds how far the released
point can be from it. Sampling ``b`` in floating point carries the caveat of
:func:`refdp.mechanisms.spherical_laplace`.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Algorithm 2,
   Theorem 2 and Corollary 4.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import NamedTuple

from ..utils.constraints import FLAG, RNG, InstanceOf, SameLength, constrained, constrained_fields
from ..utils.validation import Described, Interval, parameter_error
from ..utils.rounding import IV_PREC, ceil_fraction, ceil_interval, floor_fraction, floor_interval
from ..utils.precision import shared_interval_context
from ..mechanisms import spherical_laplace
from ..utils.lazy_noise import BitSource, LazySphericalLaplace
from ._constraints import BINARY_CLASSES, LOSS, REPORTED_NONNEGATIVE, REPORTED_POSITIVE
from ._data import prepare_data
from ._grid_minimiser import secure_minimiser
from ..utils.solver import minimise
from .output_perturbation import DEFAULT_TOL, FEATURES, LABELS, RELEASE
from .result import PrivateERMResult
from ..utils.validation import POSITIVE

__all__ = ["ObjectivePerturbationBudget", "objective_perturbation_budget",
           "release_objective_perturbation", "objective_perturbation"]

COUNT = Interval(int, 1, None)

#: Chaudhuri et al. bound the ratio of the Jacobian determinants by
#: ``(1 + c/(n mu))**JACOBIAN_POWER`` (two rank-one changes of the Hessian).
JACOBIAN_POWER = 2
#: The single-factor bound ``1 + c/(n mu)`` (matrix determinant lemma; Wang,
#: Kifer and Lee), used with ``improved=True``.
IMPROVED_POWER = 1


@constrained_fields(epsilon=REPORTED_POSITIVE, epsilon_prime=REPORTED_POSITIVE,
                    extra_regularization=REPORTED_NONNEGATIVE, noise_rate=REPORTED_POSITIVE,
                    total_regularization=REPORTED_POSITIVE, improved=FLAG)
class ObjectivePerturbationBudget(NamedTuple):
    """The parameters of one run of Algorithm 2.

    Attributes
    ----------
    epsilon : float
        Target privacy parameter.
    epsilon_prime : float
        ``epsilon'``, the part of ``epsilon`` spent on the noise.
    extra_regularization : float
        ``Delta`` (0.0 in the ``epsilon' > 0`` branch).
    noise_rate : float
        ``beta = epsilon' / 2`` (rounded down).
    total_regularization : float
        ``Lambda + Delta`` as the solver uses it (a double at least the value
        the proof requires).
    improved : bool, default False
        Whether the single-factor Jacobian bound was used (``improved=True``
        of :func:`objective_perturbation_budget`).
    """

    epsilon: float
    epsilon_prime: float
    extra_regularization: float
    noise_rate: float
    total_regularization: float
    improved: bool = False


def extra_regularization(target: Fraction, regularization: float) -> float:
    """Smallest ``Delta >= 0`` (near it) with the solver's double ``Lambda + Delta >= target`` exactly."""
    delta = max(0.0, ceil_fraction(target - Fraction(regularization)))
    while Fraction(regularization + delta) < target:        # the sum the solver uses
        delta = math.nextafter(delta, math.inf)
    return delta


def _budget(epsilon, curvature, n, regularization, power, owner="objective_perturbation_budget"):
    """Algorithm 2's budget with a determinant bound ``(1 + c/(n mu))**power``.

    A deterministic function of its arguments: for plain floats and ints it
    is remembered (:func:`_remembered_budget`, a bounded cache), so that
    refitting the same setting does not repeat the interval evaluation.
    """
    args = (epsilon, curvature, n, regularization, power)
    if all(type(v) is float or type(v) is int for v in args):
        # the key keeps the types: 1 and 1.0 are computed (and stored) apart
        found = _remembered_budget(*args, tuple(type(v) is int for v in args))
    else:
        found = _compute_budget(*args)
    if isinstance(found, str):
        raise parameter_error("epsilon", owner, found, epsilon)
    return found


@functools.lru_cache(maxsize=256)
def _remembered_budget(epsilon, curvature, n, regularization, power, int_types):
    return _compute_budget(epsilon, curvature, n, regularization, power)


def _compute_budget(epsilon, curvature, n, regularization, power):
    """:func:`_budget`, or the allowed range (a str) of an epsilon for which it does not exist."""
    eps, c, lam = Fraction(epsilon), Fraction(curvature), Fraction(regularization)
    iv = shared_interval_context(IV_PREC)
    q = iv.mpf(c.numerator) / c.denominator / n / (iv.mpf(lam.numerator) / lam.denominator)
    eps_iv = iv.mpf(eps.numerator) / eps.denominator
    eps_prime = eps_iv - power * iv.log(1 + q)
    first = floor_interval(eps_prime)
    if first > 0.0 and first / 2.0 > 0.0:
        beta = floor_fraction(Fraction(first) / 2)
        return ObjectivePerturbationBudget(float(epsilon), first, 0.0, beta, float(regularization),
                                           power == IMPROVED_POWER)
    # Delta branch: Lambda + Delta >= c / (n (e^{eps / (2 power)} - 1)), eps' = eps / 2
    target_iv = iv.mpf(c.numerator) / c.denominator / n / (iv.exp(eps_iv / (2 * power)) - 1)
    target = ceil_interval(target_iv)
    if not math.isfinite(target):
        # epsilon = 5e-324 needed Lambda + Delta beyond the doubles (an OverflowError before)
        return "large enough that Lambda + Delta of Algorithm 2 is a finite double"
    target = Fraction(target)
    delta = extra_regularization(target, regularization)
    eps_prime = floor_fraction(eps / 2)
    beta = floor_fraction(eps / 4)
    if not beta > 0.0:
        return "large enough that the noise rate epsilon / 4 is a positive double"
    return ObjectivePerturbationBudget(float(epsilon), eps_prime, delta, beta, regularization + delta,
                                       power == IMPROVED_POWER)


def budget_within(budget, references, owner, *, rate="noise_rate", larger_is_safer=False):
    """Refuse a budget that is less safe than every reference budget computed for the release.

    A budget is accepted if, for one of ``references`` (the budgets the
    paper's and the improved analysis give for the budget's own target, the
    loss's curvature, ``n`` and ``Lambda``), its noise parameter ``rate`` is at
    least as noisy (``noise_rate`` at most the reference's; ``noise_scale`` at
    least, with ``larger_is_safer``) and its ``total_regularization`` at least
    the reference's. Both quantities only enter the privacy bound
    monotonically (``docs/theory/erm.rst``), so such a budget keeps the target
    stamped on the result.
    """
    mine, total = getattr(budget, rate), budget.total_regularization
    for ref in references:
        theirs = getattr(ref, rate)
        noisy = mine >= theirs if larger_is_safer else mine <= theirs
        if noisy and total >= ref.total_regularization and math.isfinite(total):
            return budget
    raise parameter_error(
        "budget", owner, "a budget computed for this loss, number of rows and 'regularization' (e.g. by "
        "objective_perturbation_budget), or one adding at least as much noise and regularization",
        Described(f"{rate} = {mine!r} and total_regularization = {total!r}"))


def _check_budget(budget, loss, n, regularization, owner):
    """The budget of a pure-DP release: finite target, at least as safe as the analyses give."""
    eps = budget.epsilon
    if not (isinstance(eps, (int, float)) and not isinstance(eps, bool) and math.isfinite(eps) and eps > 0):
        raise parameter_error("budget", owner, "a budget whose epsilon is a float in the range (0, inf)",
                              Described(f"epsilon = {eps!r}"))
    if not (isinstance(budget.noise_rate, float) and budget.noise_rate > 0):
        raise parameter_error("budget", owner, "a budget whose noise_rate is a float in the range (0, inf)",
                              Described(f"noise_rate = {budget.noise_rate!r}"))
    refs = [_budget(eps, loss.curvature, n, regularization, p) for p in (IMPROVED_POWER, JACOBIAN_POWER)]
    return budget_within(budget, refs, owner)


class BudgetFor:
    """A relation: ``budget`` is valid for ``loss``, the rows of ``Z`` and ``regularization``.

    ``check`` is the budget test of one release (:func:`_check_budget` or its
    zCDP counterpart); it runs once, at the public entry.
    """

    def __init__(self, check):
        self.test = check

    def check(self, arguments, owner):
        self.test(arguments["budget"], arguments["loss"], arguments["Z"].shape[0], arguments["regularization"],
                  owner)


@constrained(epsilon=POSITIVE, curvature=POSITIVE, n=COUNT, regularization=POSITIVE, improved=FLAG)
def objective_perturbation_budget(epsilon, curvature, n, regularization, *, improved=True):
    """``epsilon'``, ``Delta`` and ``beta`` of Algorithm 2 ([CMS11]_), rounded toward safety.

    Parameters
    ----------
    epsilon : float > 0
    curvature : float > 0
        ``c``, the loss's bound on ``l''`` (``loss.curvature``).
    n : int >= 1
        Number of records.
    regularization : float > 0
        ``Lambda``.
    improved : bool, default True
        False: the paper's budget (Jacobian ratio bounded by ``(1 + c/(n
        Lambda))^2``), to reproduce Algorithm 2 as published. True (the
        default of every refdp entry point): the improved budget of Wang, Kifer and Lee
        ([WKL19]_), which pays a single factor: ``epsilon' = epsilon - ln(1 +
        c/(n Lambda))``; if that is not positive, ``Lambda + Delta >= c / (n
        (e^{epsilon/2} - 1))`` and ``epsilon' = epsilon / 2``; ``beta =
        epsilon' / 2`` in both cases. The proof (matrix determinant lemma) is
        in ``docs/theory/erm_inference_mechanisms.rst``.

    Returns
    -------
    ObjectivePerturbationBudget

    Notes
    -----
    ``epsilon' = epsilon - ln(1 + 2c/(n Lambda) + c^2/(n Lambda)^2) = epsilon
    - 2 ln(1 + c/(n Lambda))`` is enclosed in interval arithmetic; the
    ``Delta = 0`` branch is taken only when the enclosure is positive (and
    ``epsilon'`` is then its lower end rounded down). Otherwise ``Delta`` is
    the upper end of ``c / (n (e^{epsilon/4} - 1)) - Lambda`` rounded up
    (never below 0, which only happens when the enclosure straddles 0 and
    keeps the proof valid) and ``epsilon' = epsilon / 2``. With
    ``improved=True`` the same holds with ``ln(1 + c/(n Lambda))`` and
    ``e^{epsilon/2}``.

    References
    ----------
    .. [WKL19] Y. Wang, D. Kifer and J. Lee, "Differentially Private
       Confidence Intervals for Empirical Risk Minimization", Journal of
       Privacy and Confidentiality 9(1), 2019.

    Examples
    --------
    >>> from refdp.erm import objective_perturbation_budget
    >>> b = objective_perturbation_budget(1.0, 0.25, 100, 0.1, improved=False)
    >>> round(b.epsilon_prime, 6), b.extra_regularization, round(b.noise_rate, 6)
    (0.950615, 0.0, 0.475307)
    >>> b = objective_perturbation_budget(0.1, 0.25, 100, 0.01, improved=False)   # epsilon' <= 0
    >>> b.epsilon_prime, b.noise_rate, round(b.extra_regularization, 6)
    (0.05, 0.025, 0.088755)
    >>> b = objective_perturbation_budget(1.0, 0.25, 100, 0.1, improved=True)
    >>> round(b.epsilon_prime, 6), b.extra_regularization, b.improved
    (0.975307, 0.0, True)
    """
    return _budget(epsilon, curvature, n, regularization, IMPROVED_POWER if improved else JACOBIAN_POWER)


@constrained(budget=InstanceOf((ObjectivePerturbationBudget,), "an ObjectivePerturbationBudget"),
             relations=(SameLength(("Z", "ys")), BudgetFor(_check_budget)), **RELEASE)
def release_objective_perturbation(Z, ys, loss, regularization, budget, *, tol=DEFAULT_TOL, rng=None,
                                   norm_bound=1.0, clip=False, secure=True):
    """Steps 3 and 4 of Algorithm 2 for a given budget, on rows already in the unit ball.

    Parameters
    ----------
    Z : ndarray, shape (n, d)
        Rows with ``||x|| <= 1`` (as returned by the validation of
        :func:`objective_perturbation`).
    ys : ndarray, shape (n,)
        Labels in ``{-1.0, +1.0}``.
    loss : MarginLoss
    regularization : float
        ``Lambda``.
    budget : ObjectivePerturbationBudget
        ``epsilon'``, ``Delta``, ``beta`` and ``Lambda + Delta``; the privacy
        guarantee is whatever the budget was computed to give.
    tol : float, default 1e-8
    rng : numpy.random.Generator or seed
    norm_bound, clip
        Recorded in the result.
    secure : bool, default True
        True: the float-safe release of :func:`objective_perturbation`
        (Theorem 7 of ``docs/theory/secure_noise.rst``). False: the textbook
        path (float noise, computed minimiser), not private as implemented.

    Returns
    -------
    PrivateERMResult

    Raises
    ------
    ValueError
        If a row of ``Z`` has exact norm above 1, a label is not +-1.0, the
        lengths differ, or the budget is less safe than the one
        :func:`objective_perturbation_budget` computes for its epsilon, the
        loss's curvature, ``n`` and ``Lambda`` (more noise and more
        regularization are accepted): the epsilon stamped on the result holds
        only under these conditions.
    """
    n, d = Z.shape
    mu = budget.total_regularization
    step = None
    if secure:
        noise = LazySphericalLaplace(BitSource(rng.bit_generator), d, Fraction(budget.noise_rate))
        theta, step = secure_minimiser(loss, Z, ys, mu, noise, 1.0 / (n * mu * budget.noise_rate), tol=tol)
    else:
        b = spherical_laplace(d, budget.noise_rate, rng=rng, secure=False)
        theta = minimise(loss, Z, ys, mu, b / n, tol=tol).theta
    return PrivateERMResult(theta=theta, method="objective", loss=loss, epsilon=budget.epsilon,
                            regularization=regularization, n=n, d=d, noise_rate=budget.noise_rate,
                            sensitivity=None, epsilon_prime=budget.epsilon_prime,
                            extra_regularization=budget.extra_regularization, tol=tol,
                            norm_bound=float(norm_bound), clip=bool(clip),
                            improved=bool(getattr(budget, "improved", False)), grid_step=step)


@constrained(X=FEATURES, y=LABELS, loss=LOSS, epsilon=POSITIVE, regularization=POSITIVE, tol=POSITIVE,
             norm_bound=POSITIVE, clip=FLAG, rng=RNG, improved=FLAG, classes=BINARY_CLASSES, secure=FLAG)
def objective_perturbation(X, y, loss, *, epsilon, regularization, tol=DEFAULT_TOL, norm_bound=1.0,
                           clip=False, rng=None, improved=True, classes=(-1, 1),
                           secure=True):
    """Release the minimiser of the noisy objective ([CMS11]_ Algorithm 2).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features; every row must satisfy ``||x|| <= norm_bound`` unless
        ``clip`` is True.
    y : array_like, shape (n,)
        Labels among the declared ``classes``.
    loss : MarginLoss
        Convex, ``|l'| <= 1``, ``l'' <= loss.curvature``.
    epsilon : float > 0
        Privacy parameter (replace-one neighbours).
    regularization : float > 0
        ``Lambda``.
    tol : float > 0, default 1e-8
        Gradient-norm tolerance of the solver: the released point is within
        ``tol / (Lambda + Delta)`` of the exact minimiser.
    norm_bound : float > 0, default 1.0
    clip : bool, default False
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.
    improved : bool, default True
        Use the improved budget of Wang, Kifer and Lee (single Jacobian
        factor; see :func:`objective_perturbation_budget`), the default of
        every refdp entry point. False reproduces the paper's Algorithm 2.

    classes : pair of labels, keyword-only, default (-1, 1)
        The declared labels, as for the estimators: ``classes[0]`` is mapped
        to -1 and ``classes[1]`` to +1 (``classes=(0, 1)`` for 0/1 labels).
        Never inferred from ``y``.
    secure : bool, default True
        True: the float-safe release (``docs/theory/secure_noise.rst``,
        Theorem 7): ``b`` is an exact draw of its continuous law, kept as
        intervals whose digits are drawn only as needed, and the release is
        ``g * round(theta*(b) / g)`` for the exact minimiser ``theta*(b)``,
        with ``g`` (``result.grid_step``) the largest power of two at most
        ``2**-10`` times the noise's unit effect on ``theta``; the grid cell
        is certified by strong convexity and interval bounds. The privacy
        proof of the real-valued mechanism then holds for the doubles
        returned (post-processing). Cost: at most ``g / 2`` per coordinate
        of extra error, and a few extra gradient evaluations. False: the
        textbook float path (see Warnings).

    Returns
    -------
    PrivateERMResult

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
    epsilon-DP ([CMS11]_ Theorem 2, Corollary 4 for the Huber hinge) for the
    exact minimiser; see the module docstring for the solver tolerance. The
    check ``chaudhuri.objective_perturbation_density_ratio`` evaluates the
    output densities on neighbouring datasets exactly (``d <= 2``);
    ``wang_kifer_lee.improved_objective_perturbation_density_ratio`` does the
    same for ``improved=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import HuberHingeLoss, objective_perturbation
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    >>> y = np.array([1, -1, 1, -1])
    >>> res = objective_perturbation(X, y, HuberHingeLoss(0.5), epsilon=0.5, regularization=0.5, rng=0)
    >>> res.improved, res.extra_regularization          # ln(1 + c/(n Lambda)) = ln 1.5 < epsilon
    (True, 0.0)

    The paper's Algorithm 2 (``improved=False``) pays the Jacobian factor
    twice, and here enters its Delta branch:

    >>> res = objective_perturbation(X, y, HuberHingeLoss(0.5), epsilon=0.5, regularization=0.5, rng=0,
    ...                              improved=False)
    >>> res.epsilon_prime, res.extra_regularization > 0   # Delta branch: epsilon' = epsilon / 2
    (0.25, True)
    >>> res = objective_perturbation(X, y, HuberHingeLoss(0.5), epsilon=2.0, regularization=0.5, rng=0,
    ...                              improved=False)
    >>> res.method, res.extra_regularization          # 2 ln(1 + c/(n Lambda)) < epsilon
    ('objective', 0.0)
    """
    Z, ys = prepare_data("objective_perturbation", X, y, norm_bound=norm_bound, clip=clip, classes=classes)
    budget = _budget(epsilon, loss.curvature, Z.shape[0], regularization,
                     IMPROVED_POWER if improved else JACOBIAN_POWER, "objective_perturbation")
    return release_objective_perturbation.__wrapped__(Z, ys, loss, regularization, budget, tol=tol, rng=rng,
                                          norm_bound=norm_bound, clip=clip, secure=secure)
