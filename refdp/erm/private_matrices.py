"""Private Hessian and gradient-covariance estimates at a released parameter (Wang, Kifer and Lee).

A confidence interval for a private ERM release needs two matrices of the
data, evaluated at the released (public) parameter ``theta`` with margins
``m_i = y_i theta^T x_i``:

* the data part of the Hessian, ``H_0 = (1/n) sum_i l''(m_i) x_i x_i^T``; the
  Hessian of the objective the mechanism minimised is ``H_0 + mu I`` with
  ``mu = Lambda`` (output perturbation) or ``Lambda + Delta`` (objective
  perturbation);
* the second moment of the per-record loss gradients ``l'(m_i) y_i x_i``,
  ``G = (1/n) sum_i l'(m_i)^2 x_i x_i^T``.

Each is released with symmetric noise calibrated to its replace-one Frobenius
sensitivity: a replaced record changes one term ``s x x^T / n`` (``0 <= s <=
c`` with ``c`` the curvature bound for ``H_0``, ``0 <= s <= 1`` for ``G``)
into another, and the difference of two such rank-one positive semidefinite
matrices has Frobenius norm at most ``sqrt(2) c / n`` (proof in
``docs/theory/erm_inference.rst``; the bound is attained for ``d >= 2``).
The noise is drawn on the vectorisation ``vec_F(M) = (M_jj; sqrt(2) M_jk, j <
k)`` of the upper triangle, which is an isometry from the symmetric matrices
with the Frobenius norm to ``R^{d(d+1)/2}`` with the Euclidean norm:

* epsilon-DP: spherical Laplace noise of rate ``beta = epsilon / S``
  (:func:`refdp.mechanisms.spherical_laplace`), ``S`` the sensitivity;
* rho-zCDP: Gaussian noise of standard deviation ``sigma = S / sqrt(2 rho)``
  per coordinate of ``vec_F`` (:func:`refdp.mechanisms.gaussian_sigma_zcdp`),
  i.e. ``N(0, sigma^2)`` on the diagonal and ``N(0, sigma^2 / 2)`` off it.

By default (``secure=True``) the noise is the float-safe grid construction
of ``docs/theory/secure_noise.rst`` applied to the computed ``vec_F`` of the
data part (``docs/theory/erm_inference.rst``, "Float-safe release"): i.i.d.
discrete Laplace per coordinate (epsilon-DP, Theorem 3 there) or discrete
Gaussian per coordinate (rho-zCDP, Theorem 2), so the guarantee holds for the
doubles released; ``mu I`` is added afterwards. ``secure=False`` keeps the
continuous noise drawn and added in floating point, which is **not private
as implemented** (Mironov 2012).

The noisy symmetric matrix is then projected onto ``{M : M >= floor I}`` by
flooring its eigenvalues (``mu`` for the Hessian, since the true Hessian is at
least ``mu I``; 0 for ``G``). The projection is post-processing.

Numerics. ``S`` includes the floating-point error of the computed sums:
every entry of ``(1/n) sum_i s_i x_ij x_ik`` is computed with relative error
at most ``gamma_{n+2}`` of ``(1/n) sum_i s_i |x_ij x_ik|`` (any summation
order), whose Frobenius norm is at most ``c``, so the computed matrices of
two neighbours differ by at most ``sqrt(2) c / n + 2 gamma_{n+2} c``. ``S`` is
that value rounded up, ``beta`` is rounded down and ``sigma`` up. The weights
``s_i`` are clipped to ``[0, c]`` after evaluation. The secure release adds
``2 (2u + u**2)(1 + gamma_{n+2}) c`` for the rounding of ``sqrt(2) M_jk``
(:func:`vec_f_sensitivity`).

References
----------
.. [WKL19] Y. Wang, D. Kifer and J. Lee, "Differentially Private Confidence
   Intervals for Empirical Risk Minimization", Journal of Privacy and
   Confidentiality 9(1), 2019, Sections 4 and 5 (private estimates of the
   Hessian and of the gradient covariance). The construction here is the
   project's derived version, proved in
   ``docs/theory/erm_inference.rst``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..utils.validation import Interval, check_array, check_rng, check_scalar, parameter_error
from ..utils.rounding import UNIT_ROUNDOFF, ceil_fraction, ceil_interval, floor_fraction, interval_context
from ..mechanisms import gaussian_sigma_zcdp, spherical_laplace
from ..utils.constraints import FLAG, RNG, Checked, Nullable, constrained, constrained_fields
from ..mechanisms.float_safe import gaussian_grid, l2_laplace_grid, release
from ._data import signed_labels, unit_ball_rows
from ._constraints import (BINARY_CLASSES, LOSS, PRIVACY_KIND, REPORTED_COUNT, REPORTED_NONNEGATIVE,
                           REPORTED_POSITIVE)
from .output_perturbation import FEATURES, LABELS
from ..utils.validation import POSITIVE

__all__ = ["PrivateMatrix", "hessian_matrix", "gradient_covariance_matrix", "frobenius_sensitivity",
           "vec_f_sensitivity", "symmetric_noise", "secure_symmetric_release", "floor_eigenvalues", "private_hessian", "private_gradient_covariance",
           "release_private_hessian", "release_private_gradient_covariance", "check_privacy"]

NONNEGATIVE = Interval(float, 0, None, closed="left")
COUNT = Interval(int, 1, None)
_U = Fraction(UNIT_ROUNDOFF)


@constrained_fields(floor=REPORTED_NONNEGATIVE, sensitivity=REPORTED_POSITIVE, privacy=PRIVACY_KIND,
                    epsilon=Nullable(REPORTED_POSITIVE), rho=Nullable(REPORTED_POSITIVE),
                    noise_rate=Nullable(REPORTED_POSITIVE), noise_scale=Nullable(REPORTED_POSITIVE),
                    n=REPORTED_COUNT, secure=FLAG, unchecked="the released matrices, as the release made them")
@dataclass(frozen=True)
class PrivateMatrix:
    """One private release of a symmetric matrix of the data.

    Attributes
    ----------
    matrix : ndarray, shape (d, d)
        The released estimate after projection: symmetric, eigenvalues at
        least ``floor`` (up to rounding of the reconstruction).
    noisy : ndarray, shape (d, d)
        The symmetric noisy matrix before projection (also private: the
        projection is post-processing of it).
    floor : float
        Eigenvalue floor of the projection.
    sensitivity : float
        Replace-one Frobenius sensitivity the noise is calibrated to
        (rounding term included, rounded up).
    privacy : {"pure", "zcdp"}
    epsilon, rho : float or None
        The guarantee: epsilon-DP (``privacy == "pure"``) or rho-zCDP.
    noise_rate : float or None
        ``beta`` of the spherical Laplace noise on ``vec_F`` (pure DP).
    noise_scale : float or None
        ``sigma`` of the Gaussian noise on ``vec_F`` (zCDP).
    n : int
        Number of records.
    secure : bool
        True: float-safe grid release (the noise of ``vec_F`` is discrete
        Laplace / discrete Gaussian per coordinate on a grid,
        ``noise_rate`` / ``noise_scale`` its nominal parameters); False: the
        continuous noise in floating point, not private as implemented.
    """

    matrix: np.ndarray
    noisy: np.ndarray
    floor: float
    sensitivity: float
    privacy: str
    epsilon: float | None
    rho: float | None
    noise_rate: float | None
    noise_scale: float | None
    n: int
    secure: bool = False

    @property
    def budget(self) -> float:
        """``epsilon`` (pure DP) or ``rho`` (zCDP)."""
        return self.epsilon if self.privacy == "pure" else self.rho


def check_privacy(epsilon, rho, owner):
    """Exactly one of ``epsilon`` (pure DP) and ``rho`` (zCDP); returns ``(privacy, value)``.

    Raises
    ------
    ValueError
        If both or neither are given, or the given one is not in ``(0, inf)``.
    """
    if (epsilon is None) == (rho is None):
        which = "both" if epsilon is not None else "neither"
        raise parameter_error("epsilon", owner, "given when 'rho' is None and None when 'rho' is given "
                              f"(exactly one of epsilon and rho; {which} given)", epsilon)
    if epsilon is not None:
        return "pure", check_scalar(epsilon, "epsilon", owner, POSITIVE)
    return "zcdp", check_scalar(rho, "rho", owner, POSITIVE)


def _weighted_second_moment(Z, s):
    """``(1/n) sum_i s_i x_i x_i^T``, upper triangle computed, mirrored (exactly symmetric)."""
    M = Z.T @ (s[:, None] * Z) / Z.shape[0]
    return np.triu(M) + np.triu(M, 1).T


def _margins(Z, ys, theta):
    return ys * (Z @ np.asarray(theta, dtype=np.float64))


def hessian_matrix(Z, ys, loss, theta):
    """``(1/n) sum_i l''(m_i) x_i x_i^T`` at ``theta`` (no regularisation term; not private).

    Parameters
    ----------
    Z : ndarray, shape (n, d)
        Rows with ``||x|| <= 1``.
    ys : ndarray, shape (n,)
        Labels in ``{-1.0, +1.0}``.
    loss : MarginLoss
    theta : ndarray, shape (d,)

    Returns
    -------
    ndarray, shape (d, d)
        Exactly symmetric; the weights ``l''(m_i)`` are clipped to ``[0,
        loss.curvature]`` (a no-op up to rounding for an admissible loss).
    """
    s = np.clip(loss.second_derivative(_margins(Z, ys, theta)), 0.0, loss.curvature)
    return _weighted_second_moment(Z, s)


def gradient_covariance_matrix(Z, ys, loss, theta):
    """``(1/n) sum_i l'(m_i)^2 x_i x_i^T`` at ``theta`` (not private).

    The per-record gradient of the loss is ``l'(m_i) y_i x_i``; this is the
    mean of its outer products (``y_i^2 = 1``). Weights are clipped to ``[0,
    loss.lipschitz**2]``.
    """
    g = loss.derivative(_margins(Z, ys, theta))
    s = np.clip(g * g, 0.0, _gradient_bound(loss))
    return _weighted_second_moment(Z, s)


def _gradient_bound(loss):
    L = Fraction(loss.lipschitz)
    return ceil_fraction(L * L)


@constrained(n=COUNT, bound=POSITIVE)
def frobenius_sensitivity(n, bound=1.0):
    """Replace-one Frobenius sensitivity of ``(1/n) sum_i s_i x_i x_i^T`` with ``0 <= s_i <= bound``.

    ``sqrt(2) bound / n`` (the difference of two rank-one PSD terms of
    Frobenius norm at most ``bound / n`` with a non-negative inner product)
    plus ``2 gamma_{n+2} bound`` for the rounding of the computed sums
    (``gamma_k = k u / (1 - k u)``, ``u = 2**-53``), rounded up.

    Parameters
    ----------
    n : int >= 1
    bound : float > 0, default 1.0
        ``c`` (curvature) for the Hessian, ``1`` for the gradient covariance.

    Returns
    -------
    float
        The smallest double at least the exact value.

    Examples
    --------
    >>> from refdp.erm import frobenius_sensitivity
    >>> round(frobenius_sensitivity(100, 0.25), 12)   # sqrt(2) / 400
    0.003535533906
    """
    b = Fraction(bound)
    k = n + 2
    gamma = k * _U / (1 - k * _U)
    rounding = 2 * gamma * b
    with interval_context() as iv:
        value = iv.sqrt(2) * iv.mpf(b.numerator) / b.denominator / n \
            + iv.mpf(rounding.numerator) / rounding.denominator
        return ceil_interval(value)


@constrained(n=COUNT, bound=POSITIVE)
def vec_f_sensitivity(n, bound=1.0):
    """L2 sensitivity of the *computed* ``vec_F`` of ``(1/n) sum_i s_i x_i x_i^T``, ``0 <= s_i <= bound``.

    :func:`frobenius_sensitivity` ``(n, bound)`` plus ``2 (2u + u**2)(1 +
    gamma_{n+2}) bound`` (``u = 2**-53``): each off-diagonal coordinate
    ``fl(fl(sqrt 2) M_jk)`` is within ``sqrt(2) |M_jk| (2u + u**2)`` of
    ``sqrt(2) M_jk``, and the computed matrix has Frobenius norm at most
    ``(1 + gamma_{n+2}) bound`` (proof: ``docs/theory/erm_inference.rst``,
    "Float-safe release"). Rounded up.
    """
    b = Fraction(bound)
    k = n + 2
    gamma = k * _U / (1 - k * _U)
    extra = 2 * (2 * _U + _U * _U) * (1 + gamma) * b
    return ceil_fraction(Fraction(frobenius_sensitivity(n, bound)) + extra)


def _vec_f(M):
    """Computed ``vec_F(M) = (M_jj; fl(sqrt 2) M_jk, j < k)`` in ``triu_indices`` order."""
    iu = _upper_index(M.shape[0])
    v = M[iu]
    return np.where(iu[0] != iu[1], v * math.sqrt(2.0), v)


def _unvec_f(v, d):
    """The symmetric matrix with ``vec_F`` equal to ``v`` (off-diagonal entries ``v / sqrt 2``)."""
    iu = _upper_index(d)
    vals = np.where(iu[0] != iu[1], v / math.sqrt(2.0), v)
    E = np.zeros((d, d))
    E[iu] = vals
    E[(iu[1], iu[0])] = vals
    return E


def secure_symmetric_release(M, sensitivity, privacy, value, rng, owner="secure_symmetric_release"):
    """Float-safe release of a symmetric matrix whose computed ``vec_F`` has L2 sensitivity ``sensitivity``.

    ``vec_F(M)`` as computed is released with the grid construction
    (``docs/theory/secure_noise.rst``): discrete Laplace per coordinate,
    epsilon-DP for ``privacy == "pure"`` (Theorem 3, ``epsilon = value``), or
    discrete Gaussian per coordinate, rho-zCDP for ``"zcdp"`` (Theorem 2,
    ``rho = value``); the matrix is rebuilt from the noisy vector
    (post-processing).

    Returns
    -------
    ndarray, shape (d, d)
        Exactly symmetric.
    """
    d = M.shape[0]
    k = d * (d + 1) // 2
    noise = (l2_laplace_grid(Fraction(value), sensitivity, k) if privacy == "pure"
             else gaussian_grid(value, sensitivity, k))
    return _unvec_f(release(_vec_f(M), noise, rng, owner, "the matrix"), d)


def _upper_index(d):
    return np.triu_indices(d)


def symmetric_noise(d, *, noise_rate=None, noise_scale=None, rng=None):
    """A symmetric ``d x d`` noise matrix ``E`` with ``vec_F(E)`` spherical Laplace or Gaussian.

    ``vec_F(E) = (E_jj; sqrt(2) E_jk for j < k)`` has ``||vec_F(E)|| =
    ||E||_F``. With ``noise_rate = beta`` the vector ``vec_F(E)`` has density
    proportional to ``exp(-beta ||v||)`` on ``R^{d(d+1)/2}``; with
    ``noise_scale = sigma`` it is ``N(0, sigma^2 I)``. Exactly one must be
    given.

    Parameters
    ----------
    d : int >= 1
    noise_rate, noise_scale : float > 0
    rng : None, int, SeedSequence, BitGenerator or Generator, optional

    Returns
    -------
    ndarray, shape (d, d)
        Exactly symmetric.
    """
    owner = "symmetric_noise"
    d = check_scalar(d, "d", owner, COUNT)
    if (noise_rate is None) == (noise_scale is None):
        raise parameter_error("noise_rate", owner, "given when noise_scale is None and None otherwise",
                              noise_rate)
    rng = check_rng(rng)
    k = d * (d + 1) // 2
    if noise_rate is not None:
        v = spherical_laplace(k, noise_rate, rng=rng)
    else:
        sigma = check_scalar(noise_scale, "noise_scale", owner, POSITIVE)
        v = rng.normal(0.0, sigma, size=k)
    iu = _upper_index(d)
    E = np.zeros((d, d))
    off = iu[0] != iu[1]
    vals = np.where(off, v / math.sqrt(2.0), v)
    E[iu] = vals
    E[(iu[1], iu[0])] = vals
    return E


def floor_eigenvalues(M, floor):
    """Project a symmetric matrix onto ``{A : A >= floor I}`` in the Frobenius norm.

    The projection replaces each eigenvalue ``lambda`` by ``max(lambda,
    floor)`` and keeps the eigenvectors; the result is symmetrised.

    Parameters
    ----------
    M : ndarray, shape (d, d)
        Symmetric.
    floor : float

    Returns
    -------
    ndarray, shape (d, d)
    """
    w, V = np.linalg.eigh(M)
    A = (V * np.maximum(w, floor)) @ V.T
    return symmetric_part(A)


def symmetric_part(A):
    """``(A + A^T) / 2``, without overflow when entries are near the largest double.

    Halving is exact in the normal range, so where ``A + A^T`` is finite this is
    the plain formula bit for bit; otherwise each term is halved first.
    """
    with np.errstate(over="ignore"):
        S = A + A.T
    if np.all(np.isfinite(S)) or not np.all(np.isfinite(A)):
        return S / 2.0
    return A / 2.0 + A.T / 2.0


def _calibrate(privacy, value, sensitivity, owner):
    """``(noise_rate, noise_scale)`` for a sensitivity: ``beta = eps / S`` down, ``sigma`` up."""
    if privacy == "pure":
        rate = floor_fraction(Fraction(value) / Fraction(sensitivity))
        if not rate > 0.0:
            raise parameter_error("epsilon", owner, "large enough that epsilon / sensitivity is a positive "
                                  "double", value)
        # beyond the doubles (epsilon = 1e308 gave inf): the largest double, still rounded down
        return min(rate, 1.7976931348623157e308), None
    sigma = gaussian_sigma_zcdp(value, sensitivity)
    if math.isinf(sigma):
        raise parameter_error("rho", owner, "large enough that sensitivity / sqrt(2 rho) is finite", value)
    return None, sigma


def _release(M, n, bound, floor, privacy, value, rng, owner, secure=True, shift=0.0):
    """Noisy ``M + shift I`` and its projection; ``M`` is the data part, ``shift`` public."""
    d = M.shape[0]
    if secure:
        sens = vec_f_sensitivity(n, bound)
        rate, sigma = _calibrate(privacy, value, sens, owner)
        noisy = secure_symmetric_release(M, sens, privacy, value, rng, owner) + shift * np.eye(d)
    else:
        sens = frobenius_sensitivity(n, bound)
        rate, sigma = _calibrate(privacy, value, sens, owner)
        noisy = (M + shift * np.eye(d)) + symmetric_noise(d, noise_rate=rate, noise_scale=sigma, rng=rng)
    return PrivateMatrix(matrix=floor_eigenvalues(noisy, floor), noisy=noisy, floor=float(floor),
                         sensitivity=sens, privacy=privacy,
                         epsilon=value if privacy == "pure" else None,
                         rho=value if privacy == "zcdp" else None,
                         noise_rate=rate, noise_scale=sigma, n=n, secure=bool(secure))


def release_private_hessian(Z, ys, loss, theta, regularization, privacy, value, *, rng,
                            owner="private_hessian", secure=True):
    """:func:`private_hessian` on validated inputs (``privacy`` is ``"pure"`` or ``"zcdp"``).

    ``secure=True`` releases the data part on the grid and adds ``mu I``
    afterwards; ``secure=False`` adds continuous noise to ``H_0 + mu I`` in
    floating point (**not private as implemented**).
    """
    rng = check_rng(rng)
    mu = float(regularization)
    M = hessian_matrix(Z, ys, loss, theta)
    return _release(M, Z.shape[0], loss.curvature, mu, privacy, value, rng, owner, secure, shift=mu)


def release_private_gradient_covariance(Z, ys, loss, theta, privacy, value, *, rng,
                                        owner="private_gradient_covariance", secure=True):
    """:func:`private_gradient_covariance` on validated inputs (``secure`` as for the Hessian)."""
    rng = check_rng(rng)
    M = gradient_covariance_matrix(Z, ys, loss, theta)
    return _release(M, Z.shape[0], _gradient_bound(loss), 0.0, privacy, value, rng, owner, secure)


def _validate(owner, X, y, loss, theta, norm_bound, clip, classes):
    """The data of the public matrix releases (loss, norm_bound, clip and classes declared and checked)."""
    Z = unit_ball_rows(X, owner, norm_bound=norm_bound, clip=clip)
    ys = signed_labels(y, classes, Z.shape[0], owner)
    theta = check_array(theta, "theta", owner, ndim=1, shape=(Z.shape[1],))
    return Z, ys, loss, theta


THETA = Checked("a 1-dimensional array of finite floats, one per column of X",
                invalid=("abc", None, np.zeros(0), np.array([np.nan, 0.0]), np.zeros((2, 2))))
#: epsilon and rho: exactly one is given (checked in the body by check_privacy).
BUDGETS = dict(epsilon=Nullable(POSITIVE), rho=Nullable(POSITIVE))


@constrained(X=FEATURES, y=LABELS, loss=LOSS, theta=THETA, regularization=NONNEGATIVE, norm_bound=POSITIVE,
             clip=FLAG, classes=BINARY_CLASSES, rng=RNG, secure=FLAG, **BUDGETS)
def private_hessian(X, y, loss, theta, regularization, *, epsilon=None, rho=None, norm_bound=1.0,
                    clip=False, classes=(-1, 1), rng=None, secure=True):
    """Private ``H = (1/n) sum_i l''(m_i) x_i x_i^T + mu I`` at a public ``theta`` ([WKL19]_).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Rows with ``||x|| <= norm_bound`` (or any rows with ``clip=True``);
        preprocessed as the ERM mechanisms do (:mod:`refdp.erm._data`).
    y : array_like, shape (n,)
        Labels among ``classes``.
    loss : MarginLoss
        ``0 <= l'' <= loss.curvature``.
    theta : array_like of float, shape (d,)
        The point, public (e.g. an ERM release); margins ``m_i = y_i
        theta^T x_i`` use the preprocessed rows.
    regularization : float >= 0
        ``mu``: ``Lambda`` for output perturbation, ``Lambda + Delta`` for
        objective perturbation (the Hessian of the objective the mechanism
        minimised). Public; it is added after the noise and is the
        eigenvalue floor.
    epsilon : float > 0, optional
        epsilon-DP release (spherical Laplace noise on ``vec_F``).
    rho : float > 0, optional
        rho-zCDP release (Gaussian noise on ``vec_F``). Exactly one of
        ``epsilon`` and ``rho``.
    norm_bound : float > 0, default 1.0
    clip : bool, default False
    classes : pair of labels, default (-1, 1)
        ``classes[0]`` is mapped to -1, ``classes[1]`` to +1.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
    secure : bool, default True
        True: the float-safe grid release, private for the doubles returned
        (``docs/theory/erm_inference.rst``, "Float-safe release"). False:
        continuous noise drawn and added in floating point, **not private as
        implemented** (Mironov 2012); kept for comparison and teaching only.

    Returns
    -------
    PrivateMatrix
        ``matrix`` has eigenvalues at least ``mu``.

    Raises
    ------
    ValueError
        On both or neither of ``epsilon`` and ``rho``, values outside their
        ranges, NaN features, rows outside the ball without ``clip``, labels
        outside ``classes`` or a ``theta`` of the wrong shape.

    Notes
    -----
    epsilon-DP (or rho-zCDP) in ``(X, y)`` for replace-one neighbours, with
    Frobenius sensitivity :func:`frobenius_sensitivity` ``(n, c)``. Proof:
    ``docs/theory/erm_inference.rst``; check
    ``wang_kifer_lee.matrix_sensitivity``.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import LogisticLoss, private_hessian
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    >>> y = np.array([1, -1, 1, -1])
    >>> H = private_hessian(X, y, LogisticLoss(), np.zeros(2), 0.1, epsilon=1.0, rng=0)
    >>> bool(np.all(np.linalg.eigvalsh(H.matrix) >= 0.1 - 1e-12))
    True
    """
    owner = "private_hessian"
    privacy, value = check_privacy(epsilon, rho, owner)
    mu = regularization
    Z, ys, loss, theta = _validate(owner, X, y, loss, theta, norm_bound, clip, classes)
    return release_private_hessian(Z, ys, loss, theta, mu, privacy, value, rng=rng, owner=owner, secure=secure)


@constrained(X=FEATURES, y=LABELS, loss=LOSS, theta=THETA, norm_bound=POSITIVE, clip=FLAG,
             classes=BINARY_CLASSES, rng=RNG, secure=FLAG, **BUDGETS)
def private_gradient_covariance(X, y, loss, theta, *, epsilon=None, rho=None, norm_bound=1.0, clip=False,
                                classes=(-1, 1), rng=None, secure=True):
    """Private ``G = (1/n) sum_i l'(m_i)^2 x_i x_i^T`` at a public ``theta`` ([WKL19]_).

    Parameters
    ----------
    X, y, loss, theta, epsilon, rho, norm_bound, clip, classes, rng, secure
        As in :func:`private_hessian`; ``|l'| <= loss.lipschitz <= 1``.
        ``secure=False`` is **not private as implemented**.

    Returns
    -------
    PrivateMatrix
        ``matrix`` is positive semidefinite (eigenvalue floor 0).

    Raises
    ------
    ValueError
        As :func:`private_hessian`.

    Notes
    -----
    Frobenius sensitivity ``sqrt(2) / n`` plus rounding
    (:func:`frobenius_sensitivity` ``(n, 1)``); see
    ``docs/theory/erm_inference.rst`` and the check
    ``wang_kifer_lee.matrix_sensitivity``.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import HuberHingeLoss, private_gradient_covariance
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    >>> y = np.array([1, -1, 1, -1])
    >>> G = private_gradient_covariance(X, y, HuberHingeLoss(0.5), np.zeros(2), rho=2.0, rng=0)
    >>> G.privacy, G.matrix.shape
    ('zcdp', (2, 2))
    """
    owner = "private_gradient_covariance"
    privacy, value = check_privacy(epsilon, rho, owner)
    Z, ys, loss, theta = _validate(owner, X, y, loss, theta, norm_bound, clip, classes)
    return release_private_gradient_covariance(Z, ys, loss, theta, privacy, value, rng=rng, owner=owner,
                                               secure=secure)
