"""A synthetic population with a known regularised minimiser, for measuring interval coverage.

Population: ``x`` uniform on the unit disc of ``R^2`` (so ``||x|| <= 1``),
``P[y = +1 | x] = 1 / (1 + exp(-w^T x))``. For a margin loss ``l`` and
``mu > 0`` the target is

    ``theta*(mu) = argmin_f E[l(y f^T x)] + (mu / 2) ||f||^2``,

computed by Newton's method on the population objective, whose gradient and
Hessian are integrals over the disc evaluated by quadrature in polar
coordinates: the trapezoidal rule in the angle (periodic integrand) and
Gauss-Legendre in the radius on each piece between the radii where a Huber
hinge margin ``y r f^T u`` crosses ``1 - h`` or ``1 + h`` (so each radial
piece is smooth). :func:`population_minimiser` also returns the difference
from a second evaluation at twice the nodes in each direction, an estimate of
the quadrature error.
"""
from __future__ import annotations

import numpy as np
import scipy.special

from refdp.erm import HuberHingeLoss, LogisticLoss

W = np.array([3.0, -1.5])


def sample(n, rng, w=W):
    """``n`` records of the population: ``X`` of shape (n, 2) in the unit disc, ``y`` in {-1, +1}."""
    r = np.sqrt(rng.random(n))
    phi = rng.random(n) * (2.0 * np.pi)
    X = np.column_stack([r * np.cos(phi), r * np.sin(phi)])
    # the draw can land a few ulps outside the disc; shrink those rows (measure zero in the law)
    X *= np.minimum(1.0, (1.0 - 2.0 ** -50) / np.maximum(np.linalg.norm(X, axis=1), 1e-300))[:, None]
    y = np.where(rng.random(n) < scipy.special.expit(X @ w), 1.0, -1.0)
    return X, y


def _nodes(loss, theta, n_angle, n_radial):
    """Angles, radial nodes/weights (per angle, pieces split at the Huber kinks)."""
    phi = 2.0 * np.pi * np.arange(n_angle) / n_angle
    U = np.column_stack([np.cos(phi), np.sin(phi)])
    t = U @ theta
    breaks = [np.zeros(n_angle), np.ones(n_angle)]
    if isinstance(loss, HuberHingeLoss):
        with np.errstate(divide="ignore", invalid="ignore"):
            for y in (1.0, -1.0):
                for m in (1.0 - loss.h, 1.0 + loss.h):
                    r = m / (y * t)
                    breaks.append(np.where((r > 0) & (r < 1) & np.isfinite(r), r, 1.0))
    B = np.sort(np.column_stack(breaks), axis=1)
    g, gw = np.polynomial.legendre.leggauss(n_radial)
    a, b = B[:, :-1, None], B[:, 1:, None]
    R = (a + b) / 2 + (b - a) / 2 * g                    # (angles, pieces, nodes)
    Wr = (b - a) / 2 * gw * R                            # includes the Jacobian r
    return U, R.reshape(n_angle, -1), Wr.reshape(n_angle, -1) * (2.0 * np.pi / n_angle) / np.pi


def _moments(loss, theta, mu, n_angle, n_radial, w=W):
    """Population objective, gradient and Hessian at ``theta``."""
    U, R, Wt = _nodes(loss, theta, n_angle, n_radial)
    X = R[..., None] * U[:, None, :]                     # (angles, nodes, 2)
    p = scipy.special.expit(X @ w)
    m = X @ theta
    val = grad = 0.0
    hess = 0.0
    for y, py in ((1.0, p), (-1.0, 1.0 - p)):
        wt = Wt * py
        val = val + np.sum(wt * loss.value(y * m))
        grad = grad + np.einsum("an,ani->i", wt * loss.derivative(y * m) * y, X)
        hess = hess + np.einsum("an,ani,anj->ij", wt * loss.second_derivative(y * m), X, X)
    return val + mu * theta @ theta / 2, grad + mu * theta, hess + mu * np.eye(2)


def population_minimiser(loss, mu, *, n_angle=2048, n_radial=24, w=W):
    """``(theta*, error_estimate)``: the regularised population minimiser and a quadrature-error estimate."""
    def solve(na, nr):
        theta = np.zeros(2)
        value, g, H = _moments(loss, theta, mu, na, nr, w)
        for _ in range(200):
            step = np.linalg.solve(H, g)
            t = 1.0
            while True:                                   # backtracking on the objective
                cand = theta - t * step
                v, gc, Hc = _moments(loss, cand, mu, na, nr, w)
                if v <= value - 1e-4 * t * (g @ step) or t < 1e-12:
                    break
                t /= 2
            theta, value, g, H = cand, v, gc, Hc
            if np.linalg.norm(t * step) < 1e-14:
                break
        return theta

    a = solve(n_angle, n_radial)
    b = solve(2 * n_angle, 2 * n_radial)
    return b, float(np.max(np.abs(a - b)))


LOSSES = {"logistic": LogisticLoss(), "huber": HuberHingeLoss(0.5)}
