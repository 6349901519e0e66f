"""The released state of a private ERM fit: what was published, and with which parameters.

Everything a :class:`PrivateERMResult` holds is either the private release
itself (``theta``) or a public parameter of the mechanism (``epsilon``,
``regularization``, ``n``, the loss, the noise law and its rate, ``Delta``,
``epsilon'``, the solver tolerance, the preprocessing). The non-private
minimiser and the noise vector are *not* stored: releasing either would void
the guarantee. Downstream inference (for instance confidence intervals) can
therefore be computed from a result alone.

How ``theta`` relates to the noise ``b``: output perturbation releases
``theta = f* + b``; objective perturbation releases the minimiser of ``J(f)
+ b^T f / n + Delta ||f||^2 / 2``, so that ``theta - f_hat`` is close to
``-H^{-1} b / n`` with ``H = (1/n) sum_i l''(m_i) x_i x_i^T + (Lambda +
Delta) I``. ``b`` has density proportional to ``exp(-beta ||b||)``
(``noise == "spherical_laplace"``, ``noise_rate = beta``) or is
``N(0, sigma^2 I)`` (``noise == "gaussian"``, ``noise_scale = sigma``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..utils.constraints import FLAG, Nullable, Options, constrained_fields
from ..utils.losses import MarginLoss
from ._constraints import PRIVACY_KIND, REPORTED_COUNT, REPORTED_NONNEGATIVE, REPORTED_POSITIVE

__all__ = ["PrivateERMResult"]


@constrained_fields(method=Options(("output", "objective")), epsilon=Nullable(REPORTED_POSITIVE),
                    regularization=REPORTED_POSITIVE, n=REPORTED_COUNT, d=REPORTED_COUNT,
                    noise_rate=Nullable(REPORTED_POSITIVE), sensitivity=Nullable(REPORTED_POSITIVE),
                    epsilon_prime=Nullable(REPORTED_POSITIVE), extra_regularization=REPORTED_NONNEGATIVE,
                    tol=REPORTED_NONNEGATIVE, norm_bound=REPORTED_POSITIVE, clip=FLAG, privacy=PRIVACY_KIND,
                    rho=Nullable(REPORTED_POSITIVE), noise_scale=Nullable(REPORTED_POSITIVE), improved=FLAG,
                    unchecked="the released vector, the loss and the noise recipe, as the release made them")
@dataclass(frozen=True)
class PrivateERMResult:
    """One release of Algorithm 1 or 2 of Chaudhuri, Monteleoni and Sarwate (2011), or a variant.

    Attributes
    ----------
    theta : ndarray of float, shape (d,)
        The released parameter vector, in the space of the preprocessed rows
        (``||x|| <= 1``). The classifier is ``x -> sign(theta^T x')`` with
        ``x'`` the preprocessed row.
    method : {"output", "objective"}
        Algorithm 1 (output perturbation) or Algorithm 2 (objective
        perturbation).
    loss : MarginLoss
        The loss, with its declared curvature bound ``c``.
    epsilon : float or None
        The privacy parameter: the release is epsilon-DP (replace-one).
        None for a zCDP release (``privacy == "zcdp"``).
    regularization : float
        ``Lambda``.
    n, d : int
        Number of records and of features.
    noise_rate : float or None
        ``beta`` (None for Gaussian noise): the noise vector had density proportional to
        ``exp(-beta ||b||)`` on ``R^d`` (norm ``Gamma(d, 1/beta)``, uniform
        direction). Output perturbation: ``theta = f* + b``. Objective
        perturbation: ``theta`` minimises ``J(f) + b^T f / n + Delta ||f||^2 / 2``.
    sensitivity : float or None
        Output perturbation: the L2 sensitivity used, ``2/(n Lambda)`` plus
        the solver term ``2 tol / Lambda`` (so ``noise_rate = epsilon /
        sensitivity``, rounded down). None for objective perturbation.
    epsilon_prime : float or None
        Objective perturbation: ``epsilon'`` (``noise_rate = epsilon' / 2``).
    extra_regularization : float
        Objective perturbation: ``Delta`` (0 when ``epsilon' > 0`` in the
        first test of Algorithm 2). 0 for output perturbation.
    tol : float
        Solver tolerance: the computed minimiser ``theta_hat`` satisfies
        ``||theta_hat - theta_exact|| <= tol / (Lambda + Delta)``.
    norm_bound : float
        Public bound ``B`` the features were divided by.
    clip : bool
        Whether rows with ``||x|| > B`` were projected onto that sphere.
    privacy : {"pure", "zcdp"}, default "pure"
        ``"pure"``: epsilon-DP with spherical Laplace noise. ``"zcdp"``:
        rho-zCDP with Gaussian noise (``epsilon`` and ``noise_rate`` are None).
    rho : float or None, default None
        The zCDP parameter when ``privacy == "zcdp"``.
    noise : {"spherical_laplace", "gaussian"}, default "spherical_laplace"
        The law of ``b``.
    noise_scale : float or None, default None
        Gaussian noise: the per-coordinate standard deviation ``sigma`` of
        ``b ~ N(0, sigma^2 I)``.
    improved : bool, default False
        Objective perturbation calibrated with the single-factor Jacobian
        bound ``1 + c/(n (Lambda + Delta))`` (Wang, Kifer and Lee) instead of
        its square.
    grid_noise : GridNoise or None, default None
        Set by the float-safe output-perturbation releases
        (``docs/theory/secure_noise.rst``): the noise actually added was
        ``step * Z`` with ``Z`` i.i.d. discrete Laplace (pure DP, Theorem 3)
        or discrete Gaussian (zCDP, Theorem 2) of this recipe, after rounding
        the minimiser to the grid; ``noise``, ``noise_rate`` and
        ``noise_scale`` then describe the real-valued mechanism it stands
        for. None for the textbook path and for objective perturbation.
    grid_step : float or None, default None
        Set by the float-safe objective-perturbation releases
        (``docs/theory/secure_noise.rst``, Theorem 7): ``theta`` is exactly
        ``grid_step * round(theta_exact / grid_step)`` for the exact minimiser
        of the objective perturbed by an exact draw of the continuous noise
        (so within ``grid_step / 2`` of it in every coordinate; ``tol`` then
        only concerns the starting point of the certified search). None
        otherwise.
    """

    theta: np.ndarray
    method: str
    loss: MarginLoss
    epsilon: float
    regularization: float
    n: int
    d: int
    noise_rate: float
    sensitivity: float | None
    epsilon_prime: float | None
    extra_regularization: float
    tol: float
    norm_bound: float = 1.0
    clip: bool = False
    privacy: str = "pure"
    rho: float | None = None
    noise: str = "spherical_laplace"
    noise_scale: float | None = None
    improved: bool = False
    grid_noise: object | None = None
    grid_step: float | None = None

    @property
    def noise_mean_norm(self) -> float:
        """``E ||b||`` (public: a function of the parameters only).

        ``d / beta`` for spherical Laplace noise; ``sigma sqrt(2) Gamma((d +
        1)/2) / Gamma(d/2)`` for Gaussian noise.
        """
        if self.noise == "gaussian":
            return float(self.noise_scale * math.sqrt(2.0)
                         * math.exp(math.lgamma((self.d + 1) / 2) - math.lgamma(self.d / 2)))
        return self.d / self.noise_rate

    def decision_function(self, Z):
        """``Z @ theta`` for rows ``Z`` already preprocessed (not validated)."""
        return np.asarray(Z, dtype=np.float64) @ self.theta
