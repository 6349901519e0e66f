"""Minimiser of the (perturbed) regularised ERM objective, to a certified tolerance.

Both algorithms of Chaudhuri, Monteleoni and Sarwate (2011) release a
function of the *exact* minimiser of a strongly convex objective

    ``F(f) = (1/n) sum_i l(y_i f^T x_i) + (mu/2) ||f||^2 + g^T f``

(``mu = Lambda`` and ``g = 0`` for output perturbation, ``mu = Lambda +
Delta`` and ``g = b / n`` for objective perturbation). A computer returns an
approximation. :func:`minimise` runs damped Newton steps (exact Hessian,
backtracking on ``F``) and stops only when the gradient norm it computed,
plus an a-priori bound of the rounding error of that computation, is at most
``tol``. Since ``F`` is ``mu``-strongly convex, ``||grad F(f)|| <= tol``
implies ``||f - f*|| <= tol / mu`` for the exact minimiser ``f*``. How each
mechanism accounts for that distance is stated in its docstring.

Rounding-error bound. Rows satisfy ``||x_i|| <= 1`` (so ``|x_ij| <= 1``) and
``|l'| <= 1``. With ``u = 2**-53`` and ``gamma_k = k u / (1 - k u)``, the
computed margin has error at most ``gamma_d ||f||_1``, which moves ``l'`` by
at most ``c`` times that (``l'`` is ``c``-Lipschitz) plus a few ulps of its
evaluation (:meth:`~refdp.utils.losses.MarginLoss.derivative_rounding`: ``8 u``, more for a
narrow Huber hinge); the sum over ``n`` records adds ``gamma_n`` (any summation order)
and the other terms a few ulps each. The bound used is twice the sum of these
terms, times ``sqrt(d)`` for the Euclidean norm.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .rounding import UNIT_ROUNDOFF as _U, gamma as _gamma

__all__ = ["SolverResult", "minimise", "gradient", "rounding_bound", "UnreachableTolerance"]


class UnreachableTolerance(ValueError, RuntimeError):
    """The solver stopped above ``tol``: a ValueError naming ``tol`` (and a RuntimeError, as before)."""


def _unreachable(tol, gn, bound):
    # the standard message shape (refdp.utils.validation.parameter_error), naming 'tol'
    return UnreachableTolerance(
        f"The 'tol' parameter of the ERM solver must be reachable: the ERM solver did not reach the gradient "
        f"tolerance tol = {tol!r} (reached {gn!r}, rounding bound {bound!r}); increase tol. "
        f"Got {tol!r} instead.")


@dataclass(frozen=True)
class SolverResult:
    """Outcome of :func:`minimise`.

    Attributes
    ----------
    theta : ndarray, shape (d,)
        The returned point.
    gradient_norm : float
        Computed ``||grad F(theta)||`` (not a released quantity).
    iterations : int
        Newton steps taken.
    """

    theta: np.ndarray
    gradient_norm: float
    iterations: int


def objective(loss, X, y, mu, g, f):
    """``F(f)`` in floating point."""
    return float(np.mean(loss.value(y * (X @ f)))) + 0.5 * mu * float(f @ f) + float(g @ f)


def gradient(loss, X, y, mu, g, f):
    """``grad F(f) = (1/n) sum_i l'(m_i) y_i x_i + mu f + g``."""
    m = y * (X @ f)
    return X.T @ (y * loss.derivative(m)) / X.shape[0] + mu * f + g


def rounding_bound(loss, n, d, mu, g, f):
    """A-priori bound of ``||computed grad F(f) - grad F(f)||`` (see the module docstring)."""
    per = (_gamma(n + 2) + loss.curvature * _gamma(d + 1) * float(np.sum(np.abs(f))) + loss.derivative_rounding()
           + 4 * _U * (mu * float(np.max(np.abs(f))) + float(np.max(np.abs(g)))))
    return 2.0 * per * math.sqrt(d)


#: Above this many records the Newton matrix is formed on every k-th row
#: only (k = ceil(n / HESSIAN_ROWS)); the gradient, and so the certificate,
#: always uses every row.
HESSIAN_ROWS = 50_000


def newton_matrix(loss, X, y, mu, f):
    """``(1/m) sum_i l''(y_i f^T x_i) x_i x_i^T + mu I`` over every row, or every k-th row beyond ``HESSIAN_ROWS``.

    Any positive definite matrix gives a descent direction; the certificate
    (the full gradient) never depends on it.
    """
    stride = max(1, -(-X.shape[0] // HESSIAN_ROWS))
    Xh, yh = (X, y) if stride == 1 else (X[::stride], y[::stride])
    scaled = Xh * np.sqrt(loss.second_derivative(yh * (Xh @ f)) / Xh.shape[0])[:, None]    # l'' >= 0
    return scaled.T @ scaled + mu * np.eye(X.shape[1])


def minimise(loss, X, y, mu, g=None, *, tol, max_iter=200):
    """Minimise ``F`` until the certified gradient norm is at most ``tol``.

    Parameters
    ----------
    loss : MarginLoss
    X : ndarray, shape (n, d)
        Rows with ``||x|| <= 1``.
    y : ndarray, shape (n,)
        Labels in ``{-1.0, +1.0}``.
    mu : float > 0
        Coefficient of ``||f||^2 / 2`` (strong convexity).
    g : ndarray, shape (d,), optional
        Linear term (zero if None).
    tol : float > 0
        Required bound of ``||grad F||`` at the returned point, rounding
        errors included.
    max_iter : int
        Newton steps before giving up.

    Returns
    -------
    SolverResult

    Raises
    ------
    UnreachableTolerance (a ValueError and a RuntimeError)
        If the tolerance is not reached (``tol`` below the rounding error of
        the gradient for this ``n``, or no progress).

    Notes
    -----
    Up to ``HESSIAN_ROWS`` records the steps are exact damped Newton steps.
    Beyond, each step solves with the Newton matrix of every ``k``-th row
    (``k = ceil(n / HESSIAN_ROWS)``, a fixed, data-independent stride) plus
    ``mu I``, which is positive definite, so the step is still a descent
    direction; convergence is then linear with a small rate instead of
    quadratic, at ``O(n d + (n / k) d^2)`` per step instead of ``O(n d^2)``,
    and the line search reuses ``X @ step``. The stopping rule, and so the
    certificate, is the same: the full gradient's computed norm plus its
    rounding bound. The large-``n`` path starts from the minimiser of the
    objective on the strided rows.
    """
    n, d = X.shape
    if n > HESSIAN_ROWS:
        return _minimise_large(loss, X, y, mu, g, tol=tol, max_iter=max_iter)
    g = np.zeros(d) if g is None else np.asarray(g, dtype=np.float64)
    f = np.zeros(d)
    grad = gradient(loss, X, y, mu, g, f)
    gn = float(np.linalg.norm(grad))
    value = objective(loss, X, y, mu, g, f)
    for it in range(max_iter + 1):
        if gn + rounding_bound(loss, n, d, mu, g, f) <= tol:
            return SolverResult(f, gn, it)
        if it == max_iter:
            break
        step = np.linalg.solve(newton_matrix(loss, X, y, mu, f), grad)
        slope = float(grad @ step)
        if slope <= 1e-10 * (1.0 + abs(value)):
            # near the minimiser F cannot resolve the decrease: damp the Newton
            # step until it lowers the gradient norm instead
            t, moved = 1.0, False
            for _ in range(30):
                cand = f - t * step
                if float(np.linalg.norm(gradient(loss, X, y, mu, g, cand))) < gn:
                    moved = True
                    break
                t *= 0.5
            if not moved:
                break
            cand_value = objective(loss, X, y, mu, g, cand)
        else:
            t, moved = 1.0, False
            for _ in range(60):                  # backtracking (Armijo) on F
                cand = f - t * step
                cand_value = objective(loss, X, y, mu, g, cand)
                if cand_value < value - 1e-4 * t * slope:
                    moved = True
                    break
                t *= 0.5
            if not moved:
                break
        f, value = cand, cand_value
        grad = gradient(loss, X, y, mu, g, f)
        gn = float(np.linalg.norm(grad))
    raise _unreachable(tol, gn, rounding_bound(loss, n, d, mu, g, f))


def _minimise_large(loss, X, y, mu, g, *, tol, max_iter):
    """:func:`minimise` for ``n > HESSIAN_ROWS``: strided Newton matrix, margins reused in the line search."""
    n, d = X.shape
    g = np.zeros(d) if g is None else np.asarray(g, dtype=np.float64)
    stride = -(-n // HESSIAN_ROWS)
    Xh, yh = X[::stride], y[::stride]
    # warm start: the minimiser of the same objective on the strided rows (a
    # starting point only; the certificate below is on every row)
    try:
        f = minimise(loss, Xh, yh, mu, g, tol=max(tol, 1e-6)).theta
    except RuntimeError:
        f = np.zeros(d)
    margins = y * (X @ f)
    gn = math.inf

    def value_at(m, point):
        return float(np.mean(loss.value(m))) + 0.5 * mu * float(point @ point) + float(g @ point)

    value = value_at(margins, f)
    for it in range(max_iter + 1):
        grad = X.T @ (y * loss.derivative(margins)) / n + mu * f + g
        gn = float(np.linalg.norm(grad))
        if gn + rounding_bound(loss, n, d, mu, g, f) <= tol:
            return SolverResult(f, gn, it)
        if it == max_iter:
            break
        step = np.linalg.solve(newton_matrix(loss, X, y, mu, f), grad)
        slope = float(grad @ step)
        direction = None
        t, moved = 1.0, False
        for _ in range(60):
            cand = f - t * step
            if t == 1.0:
                cand_margins = y * (X @ cand)
                full_step = cand_margins
            else:                               # y * (X @ step), from the full step's margins
                if direction is None:
                    direction = margins - full_step
                cand_margins = margins - t * direction
            if slope > 1e-10 * (1.0 + abs(value)):
                cand_value = value_at(cand_margins, cand)
                ok = cand_value < value - 1e-4 * t * slope
            else:                                   # F cannot resolve the decrease: lower the gradient norm
                cand_grad = X.T @ (y * loss.derivative(cand_margins)) / n + mu * cand + g
                ok = float(np.linalg.norm(cand_grad)) < gn
                cand_value = value
            if ok:
                moved = True
                break
            t *= 0.5
        if not moved:
            break
        f, value = cand, cand_value
        # the certificate's margins are y * (X @ f) as computed (not the line search's update)
        margins = cand_margins if t == 1.0 else y * (X @ f)
    raise _unreachable(tol, gn, rounding_bound(loss, n, d, mu, g, f))
