"""Private confidence intervals for private ERM releases (Wang, Kifer and Lee 2019).

A private ERM release ``theta_priv`` (:class:`refdp.erm.PrivateERMResult`)
differs from the population parameter for two reasons: sampling and privacy
noise. To first order,

* output perturbation: ``theta_priv = theta_hat + b``;
* objective perturbation: ``theta_priv = theta_hat - H^{-1} b / n`` (``b``
  enters the objective as ``b^T f / n``);
* in both cases ``theta_hat - theta* ~ N(0, H^{-1} C H^{-1} / n)`` by the
  central limit theorem applied to the first-order condition, with ``H`` the
  Hessian and ``C`` the covariance of the per-record gradients of the
  regularised objective at ``theta*``.

**The target** ``theta*`` is the minimiser of the *population* version of the
objective the mechanism minimises::

    theta* = argmin_f E[l(y f^T x)] + (mu / 2) ||f||^2,

with ``x`` the preprocessed feature vector (divided by ``norm_bound``,
clipped if ``clip``), ``mu = Lambda`` for output perturbation and ``mu =
Lambda + Delta`` for objective perturbation (``Delta`` is public and recorded
in the release). It is not the unregularised minimiser.

``H`` and ``C`` are estimated privately at ``theta_priv``
(:mod:`refdp.erm.private_matrices`): ``H_hat = H_0 + mu I`` and ``G_hat =
(1/n) sum_i l'(m_i)^2 x_i x_i^T``; the per-record gradient of the regularised
objective is ``l'(m_i) y_i x_i + mu f`` and has mean zero at ``theta*``, so
its covariance is ``E[l'^2 x x^T] - mu^2 theta* theta*^T``, estimated by
``C_hat = floor_0(G_hat - mu^2 theta_priv theta_priv^T)`` (post-processing).
Per coordinate the interval is ``theta_priv_j +- q_j`` with ``q_j`` the
``level`` quantile of ``|T_j|``, ``T = N(0, V) + P``, ``V = H_hat^{-1} C_hat
H_hat^{-1} / n`` and ``P`` the privacy term (``b`` or ``-H_hat^{-1} b / n``,
``b`` drawn from the release's public noise law -- for a float-safe output
perturbation the grid law it actually used, ``step`` times i.i.d. discrete
Laplace or discrete Gaussian integers), by Monte Carlo; when
``b`` is Gaussian ``T_j`` is Gaussian and the closed form ``q_j = z sqrt(V_jj
+ sigma^2)`` (output; ``sigma`` the grid's ``step sigma_Z`` for a float-safe
release, an upper bound on its standard deviation) or ``z sqrt(V_jj + sigma^2 [H_hat^{-2}]_jj / n^2)``
(objective) is used, ``z`` the ``(1 + level)/2`` normal quantile.

This is an asymptotic construction, derived for refdp (the source text stops
before the paper's own derivation); its coverage is measured, not assumed
(``docs/erm_inference.rst``).

References
----------
.. [WKL19] Y. Wang, D. Kifer and J. Lee, "Differentially Private Confidence
   Intervals for Empirical Risk Minimization", Journal of Privacy and
   Confidentiality 9(1), 2019, Sections 4 (objective perturbation) and 5
   (output perturbation).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from fractions import Fraction

import math
from types import MappingProxyType

import numpy as np
import scipy.stats

from ..utils.validation import Described, Interval, Options, check_scalar, parameter_error
from ..accounting import basic_composition, zcdp_composition, zcdp_to_dp
from ..utils.rounding import floor_fraction
from ..mechanisms import spherical_laplace
from ..utils.constraints import FLAG, RNG, Checked, InstanceOf, Nullable, constrained, constrained_fields
from ..mechanisms.discrete import discrete_gaussian, discrete_laplace
from ._constraints import (BINARY_CLASSES, LOSS, PRIVACY_KIND, REPORTED_COUNT, REPORTED_POSITIVE)
from ._data import PM1, prepare_data, signed_labels, unit_ball_rows
from .output_perturbation import DEFAULT_TOL, FEATURES, LABELS
from .private_matrices import (PrivateMatrix, check_privacy, floor_eigenvalues, release_private_gradient_covariance,
                               release_private_hessian, symmetric_part)
from .result import PrivateERMResult
from ..utils.validation import POSITIVE

__all__ = ["PrivateConfidenceIntervals", "confidence_intervals", "private_confidence_intervals",
           "split_budget", "DEFAULT_SPLIT"]

LEVEL = Interval(float, 0, 1, closed="neither")
SHARE = Interval(float, 0, 1, closed="neither")
DELTA = Interval(float, 0, 1, closed="neither")
#: Monte Carlo draws: at most 2**24 (n_samples = 1e308 failed allocating in NumPy).
SAMPLES = Interval(int, 100, 2**24)
SHARE_SUM_TOLERANCE = 1e-9

#: Default ``split`` of :func:`private_confidence_intervals`: shares of the
#: total budget spent on ``theta``, on the Hessian and on the gradient
#: covariance.
DEFAULT_SPLIT = (0.8, 0.1, 0.1)
#: The parameters shared by the two interval functions.
COMMON = dict(level=LEVEL, delta=Nullable(DELTA), monte_carlo=FLAG, n_samples=SAMPLES, rng=RNG, secure=FLAG)


@constrained_fields(level=Interval(float, 0, 1, closed="neither"), method=Options(("output", "objective")),
                    privacy=PRIVACY_KIND, regularization=REPORTED_POSITIVE, budget_theta=REPORTED_POSITIVE,
                    budget_hessian=REPORTED_POSITIVE, budget_gradient=REPORTED_POSITIVE, total=REPORTED_POSITIVE,
                    delta=Nullable(Interval(float, 0, 1, closed="neither")),
                    epsilon_dp=Nullable(REPORTED_POSITIVE),
                    monte_carlo=FLAG, n_samples=REPORTED_COUNT,
                    unchecked="the intervals, matrices and release, as the computation made them")
@dataclass(frozen=True)
class PrivateConfidenceIntervals:
    """Per-coordinate confidence intervals for a private ERM release, and what they cost.

    Attributes
    ----------
    lower, upper : ndarray, shape (d,)
        Interval end points, in the space of the preprocessed rows (like
        ``theta``; divide by ``norm_bound`` for the coefficients of the raw
        features).
    theta : ndarray, shape (d,)
        The release ``theta_priv`` the intervals are centred on.
    level : float
        Nominal coverage of each interval (per coordinate, not joint).
    method : {"output", "objective"}
    privacy : {"pure", "zcdp"}
    regularization : float
        ``mu``: the target is ``argmin_f E[l(y f^T x)] + (mu/2) ||f||^2``
        (``Lambda`` for output, ``Lambda + Delta`` for objective perturbation).
    hessian : PrivateMatrix
        Private ``H_hat`` (eigenvalues at least ``mu``).
    gradient_covariance : PrivateMatrix
        Private ``G_hat`` (positive semidefinite).
    covariance : ndarray, shape (d, d)
        ``V = H_hat^{-1} C_hat H_hat^{-1} / n``, the estimated sampling
        covariance of ``theta_hat`` (post-processing).
    privacy_variance : ndarray, shape (d,) or None
        Per-coordinate variance of the privacy term when it is Gaussian
        (closed form), else None.
    budget_theta, budget_hessian, budget_gradient : float
        epsilon (pure) or rho (zCDP) spent on each part.
    total : float
        The whole release (``theta``, ``H_hat``, ``G_hat``), composed by the
        accountant: :func:`refdp.accounting.basic_composition` (epsilon) or
        :func:`refdp.accounting.zcdp_composition` (rho), rounded up.
    delta : float or None
        For zCDP, the delta at which ``epsilon_dp`` is stated.
    epsilon_dp : float or None
        zCDP only: the whole release is ``(epsilon_dp, delta)``-DP
        (:func:`refdp.accounting.zcdp_to_dp`).
    monte_carlo : bool
        Whether the quantiles were computed by Monte Carlo.
    n_samples : int
        Monte Carlo draws (used only when ``monte_carlo``).
    release : PrivateERMResult
        The model release the intervals are for.
    """

    lower: np.ndarray
    upper: np.ndarray
    theta: np.ndarray
    level: float
    method: str
    privacy: str
    regularization: float
    hessian: PrivateMatrix
    gradient_covariance: PrivateMatrix
    covariance: np.ndarray
    privacy_variance: np.ndarray | None
    budget_theta: float
    budget_hessian: float
    budget_gradient: float
    total: float
    delta: float | None
    epsilon_dp: float | None
    monte_carlo: bool
    n_samples: int
    release: PrivateERMResult

    @property
    def width(self) -> np.ndarray:
        """``upper - lower`` per coordinate."""
        return self.upper - self.lower

    def covers(self, value) -> np.ndarray:
        """Boolean array: ``lower <= value <= upper`` per coordinate."""
        v = np.asarray(value, dtype=np.float64)
        return (self.lower <= v) & (v <= self.upper)


# -- validation ----------------------------------------------------------------

def _model_release(model, owner):
    """The :class:`PrivateERMResult` of ``model`` and the declared classes."""
    if isinstance(model, PrivateERMResult):
        release, classes = model, PM1
    elif hasattr(model, "get_params") and hasattr(model, "fit") and hasattr(model, "method"):
        if not isinstance(getattr(model, "result_", None), PrivateERMResult):
            raise parameter_error("model", owner, "a PrivateERMResult or a fitted PrivateLogisticRegression "
                                  "/ PrivateHuberSVM (this estimator is not fitted: call fit first)",
                                  Described(f"an unfitted {type(model).__name__}"))
        release, classes = model.result_, np.asarray(model.classes_)
    else:
        raise parameter_error("model", owner, "a PrivateERMResult or a fitted PrivateLogisticRegression / "
                              "PrivateHuberSVM", Described(f"an object of type {type(model).__name__}"))
    privacy = getattr(release, "privacy", "pure")
    noise = getattr(release, "noise", "spherical_laplace")
    supported = (release.method in ("output", "objective")
                 and (privacy, noise) in (("pure", "spherical_laplace"), ("zcdp", "gaussian")))
    if supported and privacy == "pure":
        supported = release.epsilon is not None and release.noise_rate is not None
    if supported and privacy == "zcdp":
        supported = getattr(release, "rho", None) is not None and getattr(release, "noise_scale", None) is not None
    if not supported:
        raise parameter_error("model", owner, "a release of output or objective perturbation with spherical "
                              "Laplace (pure DP) or Gaussian (zCDP) noise",
                              Described(f"method={release.method!r}, privacy={privacy!r}, noise={noise!r}"))
    return release, classes


def _release_budget(release):
    return release.epsilon if getattr(release, "privacy", "pure") == "pure" else release.rho


def _element(values, i, name, owner, interval):
    """``values[i]`` checked against ``interval``; the message names ``name`` and the position."""
    try:
        return check_scalar(values[i], name, owner, interval)
    except ValueError:
        what = "a sequence of floats each in the range" + interval.describe().split("range", 1)[1]
        raise parameter_error(name, owner, what, Described(f"{values[i]!r} at position ({i},)")) from None


def _sized(value) -> bool:
    """A sequence with a length (not a str, not a 0-d array, whose len() raises)."""
    return not isinstance(value, (str, bytes)) and hasattr(value, "__len__") and np.ndim(value) >= 1


def _check_pair(value, name, owner, expected):
    if not _sized(value) or len(value) != 2:
        raise parameter_error(name, owner, expected, value)
    return value


def split_budget(total, shares, owner="split_budget", name="split"):
    """Split ``total`` by ``shares`` into parts whose exact sum is at most ``total``.

    Parameters
    ----------
    total : float > 0
    shares : sequence of float
        Each in ``(0, 1)``; they must sum to 1 (within ``1e-9``, so that
        decimal shares such as ``(0.3, 0.7)`` are accepted).

    Returns
    -------
    tuple of float
        Every part but the first is ``share * total`` rounded down; the first
        is ``total`` minus the others, rounded down. So the parts are
        positive, within a few units in the last place of ``share * total``,
        and their exact sum (in rational arithmetic) does not exceed
        ``total``: with decimal shares the first part may end one unit in the
        last place below the decimal value, as in the example, where the
        doubles nearest 0.8, 0.1 and 0.1 add up to more than 1.

    Raises
    ------
    ValueError
        If a share is not in ``(0, 1)``, the shares do not sum to 1, or a
        part rounds to 0.

    Examples
    --------
    >>> from refdp.erm import split_budget
    >>> split_budget(1.0, (0.8, 0.1, 0.1))
    (0.7999999999999999, 0.1, 0.1)
    """
    for label, text in (("owner", owner), ("name", name)):
        if not isinstance(text, str):
            raise parameter_error(label, "split_budget", "a str (a name used in error messages)", text)
    total = check_scalar(total, "total", owner, POSITIVE)
    if not _sized(shares) or len(shares) < 2:
        raise parameter_error(name, owner, "a sequence of at least two shares in (0, 1) summing to 1", shares)
    vals = [_element(shares, i, name, owner, SHARE) for i in range(len(shares))]
    s = sum(map(Fraction, vals), Fraction(0))
    if abs(s - 1) > Fraction(SHARE_SUM_TOLERANCE):
        raise parameter_error(name, owner, "shares summing to 1", Described(f"{tuple(vals)!r} (sum {float(s)!r})"))
    T = Fraction(total)
    rest = [floor_fraction(Fraction(v) * T) for v in vals[1:]]
    first = floor_fraction(T - sum(map(Fraction, rest), Fraction(0)))
    parts = (first, *rest)
    if not all(p > 0.0 for p in parts):
        raise parameter_error("total", owner, "large enough that every part is a positive double", total)
    return parts


# split_budget checks its own arguments (its ``owner`` parameter is named like the
# decorator's); the declaration is attached for the generated tests.
split_budget.__constraints__ = MappingProxyType({
    "total": POSITIVE,
    "shares": Checked("a sequence of at least two shares in (0, 1) summing to 1 (checked in the body)",
                      invalid=("ab", None, (0.5,), (0.5, 0.6), (1.0, 0.0), (math.nan, 0.5))),
    "owner": InstanceOf((str,), "a str (a name used in error messages)"),
    "name": InstanceOf((str,), "a str (a name used in error messages)"),
})


def _parts(release, budget, total, owner):
    """``(theta part, H part, G part)`` in the release's unit, validated."""
    spent = _release_budget(release)
    unit = "epsilon" if getattr(release, "privacy", "pure") == "pure" else "rho"
    if total is None:
        _check_pair(budget, "budget", owner, f"a pair ({unit}_H, {unit}_G) of floats in (0, inf) "
                    "(or, with total, a pair of shares summing to 1)")
        a_h, a_g = (_element(budget, i, "budget", owner, POSITIVE) for i in (0, 1))
        return spent, a_h, a_g
    total = check_scalar(total, "total", owner, POSITIVE)
    if not Fraction(total) > Fraction(spent):
        raise parameter_error("total", owner, f"a float above the model's own {unit} = {spent!r} (the total "
                              "covers theta, H and G)", total)
    _check_pair(budget, "budget", owner, "a pair (share_H, share_G) of floats in (0, 1) summing to 1 "
                "(shares of total minus the model's budget)")
    remainder = floor_fraction(Fraction(total) - Fraction(spent))
    a_h, a_g = split_budget(remainder, budget, owner, "budget")
    return spent, a_h, a_g


# -- the interval --------------------------------------------------------------

def _intervals(release, H, G, level, monte_carlo, n_samples, rng):
    theta, n, d = release.theta, release.n, release.d
    mu = H.floor
    with np.errstate(over="ignore", invalid="ignore"):
        shift = (mu * mu) * np.outer(theta, theta)
    if not np.all(np.isfinite(shift)):             # mu**2 overflows (a regularisation near 1e154 or above)
        shift = np.outer(mu * theta, mu * theta)
    C = floor_eigenvalues(G.matrix - shift, 0.0)
    Hinv = np.linalg.inv(H.matrix)
    Hinv = symmetric_part(Hinv)
    V = Hinv @ C @ Hinv / n
    V = symmetric_part(V)
    gaussian = getattr(release, "noise", "spherical_laplace") == "gaussian"
    objective = release.method == "objective"
    grid = getattr(release, "grid_noise", None)     # float-safe output perturbation: the law actually used
    if gaussian:
        # the discrete Gaussian's variance is at most (step sigma_Z)**2 (Canonne, Kamath and Steinke
        # 2020, Corollary 9): the normal approximation uses that upper bound
        s2 = release.noise_scale ** 2 if grid is None else grid.noise_scale ** 2
        pvar = s2 * np.einsum("ij,ij->i", Hinv, Hinv) / n ** 2 if objective else np.full(d, s2)
    else:
        pvar = None
    if gaussian and not monte_carlo:
        z = scipy.stats.norm.ppf(0.5 + level / 2.0)
        q = z * np.sqrt(np.diag(V) + pvar)
        return q, V, pvar
    w, U = np.linalg.eigh(V)
    root = U * np.sqrt(np.maximum(w, 0.0))
    T = rng.standard_normal((n_samples, d)) @ root.T
    if grid is not None:
        draw = discrete_gaussian if grid.law == "gaussian" else discrete_laplace
        b = grid.step * np.asarray(draw(grid.parameter, size=(n_samples, d), rng=rng), dtype=np.float64)
    elif gaussian:
        b = rng.normal(0.0, release.noise_scale, size=(n_samples, d))
    else:
        b = spherical_laplace(d, release.noise_rate, size=n_samples, rng=rng)
    T += -(b @ Hinv) / n if objective else b
    q = np.quantile(np.abs(T), level, axis=0)
    return q, V, pvar


def _finish(owner, release, Z, ys, parts, level, delta, monte_carlo, n_samples, rng, secure=True):
    privacy = getattr(release, "privacy", "pure")
    spent, a_h, a_g = parts
    mu = release.regularization + (release.extra_regularization if release.method == "objective" else 0.0)
    H = release_private_hessian(Z, ys, release.loss, release.theta, mu, privacy, a_h, rng=rng, owner=owner,
                                secure=secure)
    G = release_private_gradient_covariance(Z, ys, release.loss, release.theta, privacy, a_g, rng=rng,
                                            owner=owner, secure=secure)
    q, V, pvar = _intervals(release, H, G, level, monte_carlo, n_samples, rng)
    if privacy == "pure":
        total = basic_composition([spent, a_h, a_g]).epsilon
        eps_dp = None
    else:
        total = zcdp_composition([spent, a_h, a_g])
        eps_dp = zcdp_to_dp(total, delta) if delta is not None else None
    gaussian = getattr(release, "noise", "spherical_laplace") == "gaussian"
    return PrivateConfidenceIntervals(
        lower=release.theta - q, upper=release.theta + q, theta=release.theta.copy(), level=level,
        method=release.method, privacy=privacy, regularization=float(mu), hessian=H, gradient_covariance=G,
        covariance=V, privacy_variance=pvar, budget_theta=spent, budget_hessian=a_h, budget_gradient=a_g,
        total=total, delta=delta, epsilon_dp=eps_dp, monte_carlo=bool(monte_carlo or not gaussian),
        n_samples=n_samples, release=release)


@constrained(model=Checked("a PrivateERMResult or a fitted PrivateLogisticRegression / PrivateHuberSVM",
                           invalid=("abc", None, 1.5, object())),
             X=FEATURES, y=LABELS,
             budget=Checked("a pair of budgets or of shares (checked against the release in the body)",
                            invalid=("ab", None, 1.5, (1.0,), (math.nan, 0.5))),
             total=Nullable(POSITIVE), **COMMON)
def confidence_intervals(model, X, y, budget, *, total=None, level=0.95, delta=None, monte_carlo=False,
                         n_samples=10000, rng=None, secure=True):
    """Private per-coordinate confidence intervals for a private ERM release ([WKL19]_).

    Spends a further privacy budget on private estimates of the Hessian and
    of the gradient covariance at the released ``theta`` (public), then
    combines them with the release's public noise law (module docstring).

    Parameters
    ----------
    model : PrivateERMResult, PrivateLogisticRegression or PrivateHuberSVM
        The release (an estimator must be fitted; its ``result_`` is used).
        Output or objective perturbation, pure DP (spherical Laplace) or
        zCDP (Gaussian noise).
    X : array_like of float, shape (n, d)
        The training features the model was fitted on (same ``n`` and
        ``d``); preprocessed as the fit did, with the release's
        ``norm_bound`` and ``clip``.
    y : array_like, shape (n,)
        The training labels: the estimator's ``classes_``, or ``{-1, +1}``
        for a bare :class:`PrivateERMResult`.
    budget : pair of float
        Without ``total``: the amounts ``(a_H, a_G)`` spent on the Hessian
        and on the gradient covariance, in the release's unit (epsilon for a
        pure-DP release, rho for a zCDP release). With ``total``: shares
        ``(s_H, s_G)`` (each in ``(0, 1)``, summing to 1) of ``total`` minus
        the release's own budget.
    total : float > 0, optional
        The declared budget of the whole release (``theta``, ``H_hat``,
        ``G_hat``), in the release's unit; must exceed the model's budget.
        The parts are rounded down so that the accountant's composition
        never exceeds it.
    level : float in (0, 1), default 0.95
        Nominal per-coordinate coverage.
    delta : float in (0, 1), optional
        zCDP only: also report the whole release as ``(epsilon_dp,
        delta)``-DP.
    monte_carlo : bool, default False
        Use Monte Carlo quantiles even when the closed form applies
        (Gaussian noise). Laplace noise always uses Monte Carlo.
    n_samples : int in [100, 2**24], default 10000
        Monte Carlo draws.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Noise of the two matrix releases, then the Monte Carlo draws;
        normalised with :func:`numpy.random.default_rng`. Deterministic for
        a seed.
    secure : bool, default True
        True: the two matrices are released with the float-safe grid
        construction (:func:`refdp.erm.private_hessian`), private for the
        doubles returned. False: continuous noise in floating point, **not
        private as implemented**; kept for comparison only.

    Returns
    -------
    PrivateConfidenceIntervals

    Raises
    ------
    ValueError
        If ``model`` is not a supported release or an unfitted estimator;
        ``X`` has another number of rows or columns than the release, NaN
        entries or rows outside the ball without ``clip``; ``y`` has labels
        outside the classes; ``budget``, ``total``, ``level``, ``delta`` or
        ``n_samples`` is outside its range; the shares do not sum to 1.

    Notes
    -----
    **Target.** ``theta* = argmin_f E[l(y f^T x)] + (mu/2) ||f||^2`` with
    ``mu = Lambda`` (output) or ``Lambda + Delta`` (objective perturbation).

    **Privacy.** The Hessian and gradient-covariance releases are ``a_H``-
    and ``a_G``-DP (or zCDP) in ``(X, y)``; the intervals are
    post-processing of them and of the release. The whole (``theta`` and
    the intervals) is ``total``-DP (basic composition) or ``total``-zCDP;
    ``total`` is computed by :mod:`refdp.accounting`. Proofs:
    ``docs/theory/erm_inference.rst``; checks
    ``wang_kifer_lee.matrix_sensitivity`` and
    ``wang_kifer_lee.interval_budget_composition``.

    **Validity.** Asymptotic (first-order expansion, central limit theorem,
    consistency of the private matrices); measured coverage is in
    ``docs/erm_inference.rst``.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import LogisticLoss, confidence_intervals, output_perturbation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.7, 0.7, size=(2000, 2))
    >>> y = np.where(rng.random(2000) < 1 / (1 + np.exp(-2 * X[:, 0])), 1, -1)
    >>> fit = output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.1, rng=1)
    >>> ci = confidence_intervals(fit, X, y, (0.25, 0.25), rng=2)
    >>> ci.total, bool(np.all(ci.lower < ci.upper))
    (1.5, True)
    """
    owner = "confidence_intervals"
    release, classes = _model_release(model, owner)
    parts = _parts(release, budget, total, owner)
    Z = unit_ball_rows(X, owner, norm_bound=release.norm_bound, clip=release.clip)
    if Z.shape != (release.n, release.d):
        raise parameter_error("X", owner, f"an array of shape ({release.n}, {release.d}), the data the "
                              "model was fitted on", Z)
    ys = signed_labels(y, classes, Z.shape[0], owner)
    return _finish(owner, release, Z, ys, parts, level, delta, monte_carlo, n_samples, rng, secure)


def _fit(owner, Z, ys, loss, regularization, privacy, value, method, improved, tol, norm_bound, clip, rng,
         secure=True):
    objective_module = importlib.import_module(".objective_perturbation", __package__)
    output_module = importlib.import_module(".output_perturbation", __package__)

    if privacy == "pure":
        if method == "output":
            return output_module.release_output_perturbation(Z, ys, loss, value, regularization, tol=tol,
                                                             rng=rng, norm_bound=norm_bound, clip=clip,
                                                             secure=secure)
        kwargs = {"improved": True} if improved else {}
        budget = objective_module.objective_perturbation_budget(value, loss.curvature, Z.shape[0],
                                                                regularization, **kwargs)
        return objective_module.release_objective_perturbation(Z, ys, loss, regularization, budget, tol=tol,
                                                               rng=rng, norm_bound=norm_bound, clip=clip,
                                                               secure=secure)
    if method == "output":
        return output_module.release_output_perturbation_zcdp(Z, ys, loss, value, regularization, tol=tol,
                                                              rng=rng, norm_bound=norm_bound, clip=clip,
                                                              secure=secure)
    try:
        zcdp_module = importlib.import_module(".objective_perturbation_zcdp", __package__)
    except ImportError:
        zcdp_module = None
    if zcdp_module is None or not hasattr(zcdp_module, "release_objective_perturbation_zcdp"):
        raise parameter_error("method", owner, "'output' when rho is given (objective perturbation "
                              "under zCDP is not available)", method)
    budget = zcdp_module.objective_perturbation_zcdp_budget(value, loss.curvature, Z.shape[0], regularization,
                                                            improved=improved)
    return zcdp_module.release_objective_perturbation_zcdp(Z, ys, loss, regularization, budget, tol=tol, rng=rng,
                                                           norm_bound=norm_bound, clip=clip, secure=secure)


@constrained(X=FEATURES, y=LABELS, loss=LOSS, regularization=POSITIVE, epsilon=Nullable(POSITIVE),
             rho=Nullable(POSITIVE), method=Options(("objective", "output")), improved=FLAG,
             split=Checked("a triple (share_theta, share_H, share_G) of floats in (0, 1) summing to 1",
                           invalid=("ab", None, (0.5, 0.5), (0.8, 0.1, 0.2), (math.nan, 0.5, 0.5))),
             tol=POSITIVE, norm_bound=POSITIVE, clip=FLAG, classes=BINARY_CLASSES, **COMMON)
def private_confidence_intervals(X, y, loss, *, regularization, epsilon=None, rho=None, method="objective",
                                 improved=True, split=DEFAULT_SPLIT, level=0.95, delta=None, tol=DEFAULT_TOL,
                                 norm_bound=1.0, clip=False, monte_carlo=False, n_samples=10000, rng=None,
                                 secure=True, classes=(-1, 1)):
    """Fit privately and release confidence intervals, within one total budget ([WKL19]_).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Rows with ``||x|| <= norm_bound`` (or any rows with ``clip=True``).
    y : array_like, shape (n,)
        Labels among the declared ``classes``.
    loss : MarginLoss
        E.g. :class:`LogisticLoss` or :class:`HuberHingeLoss`.
    regularization : float > 0
        ``Lambda``.
    epsilon : float > 0, optional
        Total budget of an epsilon-DP release (spherical Laplace noise
        everywhere).
    rho : float > 0, optional
        Total budget of a rho-zCDP release (Gaussian noise everywhere).
        Exactly one of ``epsilon`` and ``rho``.
    method : {"objective", "output"}, default "objective"
        Objective perturbation (Algorithm 2, improved budget when
        ``improved``) or output perturbation (Algorithm 1).
    improved : bool, default True
        Objective perturbation with the single-factor Jacobian bound of
        [WKL19]_ (less noise for the same epsilon).
    split : triple of float, default (0.8, 0.1, 0.1)
        Shares of the total spent on ``theta``, the Hessian and the gradient
        covariance; each in ``(0, 1)``, summing to 1. The default gives most
        of the budget to the model, whose noise usually dominates the
        interval width (see ``docs/erm_inference.rst``).
    level : float in (0, 1), default 0.95
    delta : float in (0, 1), optional
        zCDP only: also report ``(epsilon_dp, delta)``-DP.
    tol : float > 0, default 1e-8
        Solver tolerance.
    norm_bound : float > 0, default 1.0
    clip : bool, default False
    monte_carlo : bool, default False
    n_samples : int in [100, 2**24], default 10000
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        One stream: the model's noise, the two matrix releases, then the
        Monte Carlo draws.
    secure : bool, default True
        True: the matrices and ``theta`` are released float-safe, private for
        the doubles returned (``docs/theory/secure_noise.rst``: Theorems 2
        and 3 for the matrices and output perturbation, Theorem 7 for
        objective perturbation). False: continuous noise in floating point,
        **not private as implemented**; kept for comparison only.

    classes : pair of labels, keyword-only, default (-1, 1)
        The declared labels, as for the estimators: ``classes[0]`` is mapped
        to -1 and ``classes[1]`` to +1 (``classes=(0, 1)`` for 0/1 labels).
        Never inferred from ``y``.
    Returns
    -------
    PrivateConfidenceIntervals
        ``release`` is the fitted model; ``total`` (the accountant's
        composition of the three parts) is at most ``epsilon`` (or ``rho``).

    Raises
    ------
    ValueError
        On both or neither of ``epsilon`` and ``rho``, an unknown ``method``,
        ``method="objective"`` with ``rho`` when objective perturbation under
        zCDP is not available, shares outside ``(0, 1)`` or not summing to
        1, ``level`` outside ``(0, 1)``, and the data errors of
        :func:`refdp.erm.output_perturbation`.

    Notes
    -----
    The parts are ``split[1] * total`` and ``split[2] * total`` rounded down
    and ``theta``'s part is the remainder rounded down, so the exact sum
    never exceeds the declared total. Target, privacy and validity as in
    :func:`confidence_intervals`.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import LogisticLoss, private_confidence_intervals
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.7, 0.7, size=(2000, 2))
    >>> y = np.where(rng.random(2000) < 1 / (1 + np.exp(-2 * X[:, 0])), 1, -1)
    >>> ci = private_confidence_intervals(X, y, LogisticLoss(), regularization=0.1, epsilon=2.0, rng=1)
    >>> ci.total <= 2.0, (ci.budget_theta, ci.budget_hessian, ci.budget_gradient)
    (True, (1.5999999999999999, 0.2, 0.2))
    """
    owner = "private_confidence_intervals"
    privacy, value = check_privacy(epsilon, rho, owner)
    if not _sized(split) or len(split) != 3:
        raise parameter_error("split", owner, "a triple (share_theta, share_H, share_G) of floats in (0, 1) "
                              "summing to 1", split)
    try:
        parts = split_budget(value, split, owner, "split")
    except ValueError as exc:
        if not str(exc).startswith("The 'total' parameter"):
            raise
        # the total split here is epsilon or rho (epsilon = 5e-324 was reported as 'total')
        raise parameter_error("epsilon" if privacy == "pure" else "rho", owner, "large enough that every part "
                              "of the split is a positive double", value) from None
    Z, ys = prepare_data(owner, X, y, norm_bound=norm_bound, clip=clip, classes=classes)
    release = _fit(owner, Z, ys, loss, regularization, privacy, parts[0], method, improved, tol, norm_bound,
                   clip, rng, secure)
    return _finish(owner, release, Z, ys, parts, level, delta, monte_carlo, n_samples, rng, secure)
