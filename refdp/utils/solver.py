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
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from .rounding import UNIT_ROUNDOFF as _U, gamma as _gamma

__all__ = ["SolverResult", "minimise", "gradient", "rounding_bound", "UnreachableTolerance", "pass_value_gradient",
           "quasi_newton_point", "newton_passes", "two_loop"]


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
    pass_blocks : ndarray or None
        The per-block gradient sums of the compiled pass at ``theta`` (blocks
        of :data:`PASS_BLOCK` rows; ``None`` when no such pass ran), for a
        caller that certifies ``theta`` with the same sums.
    factor : tuple or None
        The Cholesky factor (:func:`scipy.linalg.cho_factor`) of the last
        Newton matrix :func:`newton_passes` used, for a caller that continues
        with Newton corrections (``None`` elsewhere).
    pairs : tuple
        The secant pairs ``(s, y, 1 / s^T y)`` that corrected that matrix in
        the last steps (``secant`` of :func:`newton_passes`; empty elsewhere).
    """

    theta: np.ndarray
    gradient_norm: float
    iterations: int
    pass_blocks: object = field(default=None, repr=False, compare=False)
    factor: object = field(default=None, repr=False, compare=False)
    pairs: tuple = field(default=(), repr=False, compare=False)


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


#: From this dimension the product of :func:`newton_matrix_of` is formed in single precision (about
#: half the time of the O(n d^2) product); the matrix only steers the start point's steps.
SINGLE_PRECISION_MIN_DIM = 32


def newton_matrix_of(X, curvatures, mu):
    """:func:`newton_matrix` over every row from ``l''`` at each row's margin (``curvatures``, from a pass).

    From :data:`SINGLE_PRECISION_MIN_DIM` columns the product ``S^T S`` (``S``
    the rows scaled by ``sqrt(l''/n)``) is formed in single precision, where
    ``mu`` exceeds ``2**-10`` times its largest diagonal entry (its rounding
    error, about ``2**-24`` of that entry per term, then stays far below the
    ``mu I`` that keeps the matrix positive definite); elsewhere in double
    precision. Any positive definite matrix gives a descent direction, and
    nothing certified depends on it.
    """
    n, d = X.shape
    w = curvatures / n
    np.sqrt(w, out=w)                                                                  # l'' >= 0
    matrix = None
    if d >= SINGLE_PRECISION_MIN_DIM:
        scaled = np.empty((n, d), dtype=np.float32)
        np.multiply(X, w[:, None], out=scaled, casting="unsafe")
        matrix = (scaled.T @ scaled).astype(np.float64)
        if not mu >= 2.0**-10 * float(np.max(np.diagonal(matrix))):
            matrix = None
    if matrix is None:
        scaled = X * w[:, None]
        matrix = scaled.T @ scaled
    matrix.flat[::d + 1] += mu
    return matrix


def minimise(loss, X, y, mu, g=None, *, tol, max_iter=200, start=None):
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
    start : ndarray, shape (d,), optional
        The first point (zero if None; up to ``HESSIAN_ROWS`` records only:
        beyond, the solver makes its own start).

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
    quadratic, at ``O(n d)`` per step plus one ``O((n / k) d^2)`` matrix
    (factored once, at the first point, and again only after a shortened
    step). For the logistic and Huber-hinge losses each trial point costs
    one compiled pass over the rows (:func:`pass_value_gradient`: value and
    gradient together, blocks split among threads); other losses use NumPy,
    with the line search reusing ``X @ step``. The stopping rule, and so the
    certificate, is the same: the full gradient's computed norm plus its
    rounding bound (the compiled pass computes the margins, ``l'`` and the
    sums within the errors that bound assumes). The large-``n`` path starts
    from the minimiser of the objective on the strided rows, reached by
    L-BFGS steps (:func:`quasi_newton_point`) and finished by Newton steps.
    """
    n, d = X.shape
    if n > HESSIAN_ROWS:
        return _minimise_large(loss, X, y, mu, g, tol=tol, max_iter=max_iter)
    g = np.zeros(d) if g is None else np.asarray(g, dtype=np.float64)
    f = np.zeros(d) if start is None else np.array(start, dtype=np.float64)
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


def pass_value_gradient(loss, X, y, mu, g, f, *, lanes=False, values=True, curvatures=None):
    """``(F(f), grad F(f), block sums)`` with one pass over the rows (the compiled pass when it applies), or None.

    ``lanes``: the compiled pass's lane order (:func:`refdp.core.margin_pass_blocks`);
    with ``values=False`` (lane order only) the loss is not evaluated and
    ``F(f)`` is returned as None. ``curvatures`` (lane order only): an array
    of length n that receives ``l''`` at every row's margin.
    """
    from .. import core

    values = values or not lanes
    fused = (core.margin_pass_blocks(loss, X, y, f, PASS_BLOCK, lanes=lanes, values=values,
                                     curvatures=curvatures if lanes else None)
             if X.flags.c_contiguous else None)
    if fused is None:
        return None
    blocks, sums = fused
    n = X.shape[0]
    value = float(np.sum(sums)) / n + 0.5 * mu * float(f @ f) + float(g @ f) if values else None
    return value, np.sum(blocks, axis=0) / n + mu * f + g, blocks


def pass_at_zero(loss, X, y, mu, g, *, curvatures=None):
    """:func:`pass_value_gradient` at ``f = 0`` without a pass over the rows, or None (no compiled pass).

    Every margin is 0 there, so ``F(0) = l(0)`` and ``grad F(0) = l'(0) X^T y
    / n + g`` (one matrix-vector product); ``curvatures``, if given, is filled
    with ``l''(0)``. The block sums are None: this evaluation only starts a
    solve (nothing certified uses it).
    """
    from .. import core

    if (core.MARGIN_PASS_LOSSES.get(getattr(loss, "name", None)) is None
            or type(loss).__module__ != "refdp.utils.losses" or not X.flags.c_contiguous):
        return None
    zero = np.zeros(1)
    if curvatures is not None:
        curvatures[:] = float(loss.second_derivative(zero)[0])
    slope = float(loss.derivative(zero)[0])
    return float(loss.value(zero)[0]), (X.T @ y) * (slope / X.shape[0]) + g, None


#: Smallest dimension at which :func:`quasi_newton_point` replaces the
#: first Newton steps (below it the Newton matrix costs a few passes only).
QUASI_NEWTON_MIN_DIM = 32
#: ... and rows (below, the passes' fixed costs outweigh the Newton matrices saved).
QUASI_NEWTON_MIN_ROWS = 5000


def quasi_newton_point(loss, X, y, mu, g, *, gtol=1e-7, lanes=False, last=None):
    """A point near the minimiser from L-BFGS steps in ``O(n d)`` each, or None (a starting point only).

    Used where the Newton matrix (``O(n d^2)``) costs more than the
    passes of a quasi-Newton phase: ``d >= QUASI_NEWTON_MIN_DIM``, ``n >=
    QUASI_NEWTON_MIN_ROWS`` and a loss with a compiled pass. The certified Newton steps of :func:`minimise`
    (or the cell search) then start from it; nothing is certified here.
    ``lanes``: the compiled pass's lane order. ``last``: a list that receives
    ``(point, pass, curvatures)`` of the last evaluation (``curvatures``: ``l''``
    per row in lane order up to :data:`HESSIAN_ROWS` rows, else None), so
    that a caller continuing from the returned point need not repeat that
    pass. The evaluation at 0 needs no pass (:func:`pass_at_zero`).

    The steps are L-BFGS (Nocedal and Wright, Numerical Optimization,
    Algorithm 7.4 and 7.5) with the last :data:`LBFGS_PAIRS` pairs and the
    initial matrix ``(s^T y / y^T y) I`` (the first step scaled to length at
    most 1). The line search needs no value of ``F`` (the passes skip the
    loss's logarithms): ``F`` is convex, so along the direction ``p`` the
    function ``phi(t) = F(x + t p)`` has an increasing slope and ``phi(t) -
    phi(0) <= t phi'(t)``; a step with ``phi'(t) <= 1e-4 phi'(0)`` therefore
    satisfies Armijo's condition. A step past the minimum along ``p``
    (``phi'(t) > 0``) is shortened to the zero of the secant of ``phi'``
    (between 0.1 and 0.9 times), a step short of it but not steep enough
    halved. They stop at a largest gradient entry at most ``gtol`` or when
    the line search fails; the returned pass carries no value of ``F``.
    """
    n, d = X.shape
    if d < QUASI_NEWTON_MIN_DIM or n < QUASI_NEWTON_MIN_ROWS or not X.flags.c_contiguous:
        return None
    # in lane order each pass also returns l'' per row, for the Newton matrix at the last point
    weighted = lanes and n <= HESSIAN_ROWS
    x = np.zeros(d)
    curv = np.empty(n) if weighted else None
    result = pass_at_zero(loss, X, y, mu, g, curvatures=curv)
    if result is None:
        return None
    grad = result[1]
    state = (x, result, curv)
    pairs = []
    for _ in range(LBFGS_MAX_ITER):
        if not float(np.max(np.abs(grad))) > gtol:
            break
        direction = -_lbfgs_direction(pairs, grad)
        slope = float(grad @ direction)
        if not slope < 0.0:                     # not a descent direction (rounding): restart from -grad
            if not pairs:
                break
            pairs = []
            continue
        t, moved = 1.0, False
        for _ in range(LBFGS_MAX_HALVINGS):
            cand = x + t * direction
            cand_curv = np.empty(n) if weighted else None
            cand_result = pass_value_gradient(loss, X, y, mu, g, cand, lanes=lanes, values=not lanes,
                                              curvatures=cand_curv)
            cand_slope = float(cand_result[1] @ direction)
            if cand_slope <= 1e-4 * slope:      # Armijo's condition, by convexity (docstring)
                moved = True
                break
            t *= max(0.1, min(0.9, slope / (slope - cand_slope))) if cand_slope > 0.0 else 0.5
        if not moved:
            break
        s_, y_ = cand - x, cand_result[1] - grad
        sy = float(s_ @ y_)
        if sy > 1e-12 * float(y_ @ y_):         # curvature condition: keeps the inverse positive definite
            pairs = (pairs + [(s_, y_, 1.0 / sy)])[-LBFGS_PAIRS:]
        x, grad = cand, cand_result[1]
        state = (x, cand_result, cand_curv)
    if last is not None:
        last[:] = [state]
    return x if np.all(np.isfinite(x)) else None


#: Pairs kept by the L-BFGS phase, its iterations and the halvings of one line search.
LBFGS_PAIRS = 8
LBFGS_MAX_ITER = 500
LBFGS_MAX_HALVINGS = 40


def _two_loop(pairs, grad, initial):
    """``H grad`` for the L-BFGS inverse ``H`` of ``pairs`` ``(s, y, 1 / s^T y)`` (two-loop recursion),
    ``initial(q)`` applying the initial matrix (it may overwrite ``q``)."""
    q = np.array(grad, dtype=np.float64)
    alphas = []
    for s_, y_, rho in reversed(pairs):
        a = rho * float(s_ @ q)
        alphas.append(a)
        q -= a * y_
    r = initial(q)
    for (s_, y_, rho), a in zip(pairs, reversed(alphas)):
        r += s_ * (a - rho * float(y_ @ r))
    return r


def _lbfgs_direction(pairs, grad):
    """``H grad`` for the L-BFGS inverse ``H`` of ``pairs``, the initial matrix a multiple of the identity."""
    def initial(q):
        if pairs:
            s_, y_, rho = pairs[-1]
            q *= 1.0 / (rho * float(y_ @ y_))       # s^T y / y^T y
        else:
            q *= min(1.0, 1.0 / float(np.linalg.norm(q)))
        return q

    return _two_loop(pairs, grad, initial)


#: Rows per block of the solver's compiled pass (the per-block sums are then added by NumPy).
PASS_BLOCK = 256


def _minimise_large(loss, X, y, mu, g, *, tol, max_iter):
    """:func:`minimise` for ``n > HESSIAN_ROWS``: strided Newton matrix, one pass over the rows per trial point."""
    n, d = X.shape
    g = np.zeros(d) if g is None else np.asarray(g, dtype=np.float64)
    stride = -(-n // HESSIAN_ROWS)
    Xh, yh = np.ascontiguousarray(X[::stride]), np.ascontiguousarray(y[::stride])
    # warm start: the minimiser of the same objective on the strided rows (a
    # starting point only; the certificate below is on every row)
    try:
        f = minimise(loss, Xh, yh, mu, g, tol=max(tol, 1e-6), start=quasi_newton_point(loss, Xh, yh, mu, g)).theta
    except RuntimeError:
        f = np.zeros(d)
    first = pass_value_gradient(loss, X, y, mu, g, f)
    if first is None:
        return _minimise_large_numpy(loss, X, y, mu, g, f, tol=tol, max_iter=max_iter)
    return newton_passes(loss, X, y, mu, g, f, first, tol=tol, max_iter=max_iter, certify=True,
                         reuse_matrix=True)


def newton_passes(loss, X, y, mu, g, f, first, *, tol, max_iter, certify, reuse_matrix, lanes=False,
                  factor=None, value_slope=1e-10, secant=0, first_curvatures=None):
    """Damped Newton steps from ``f``, one compiled pass (:func:`pass_value_gradient`) per trial point.

    ``first`` is that pass at ``f``. With ``certify`` the steps stop when the
    computed gradient norm plus :func:`rounding_bound` is at most ``tol`` (the
    certificate of :func:`minimise`) and raise RuntimeError if they cannot;
    without, they stop at a computed norm at most ``tol`` or when no step
    makes progress, and return the last point (a starting point for a
    certificate made elsewhere). ``reuse_matrix``: factor the Newton matrix of
    the first point once (again only after a shortened step) instead of at
    every step.

    Options of the uncertified use (a start point for the float-safe cell
    search, whose release does not depend on the path): ``lanes`` runs the
    passes in the compiled lane order; ``factor`` is a Cholesky factor of a
    Newton matrix to start with, and the result carries the last factor
    used (even where ``reuse_matrix`` is False); the line search compares ``F`` (Armijo) while the slope is above
    ``value_slope (1 + |F|)``, and the gradient norm below (where, in lane
    order, the loss is no longer evaluated). ``secant`` > 0 (with a reused
    matrix): the steps are L-BFGS steps whose initial matrix is the Newton
    matrix, with the last ``secant`` pairs of steps and gradient changes
    (pairs with a positive curvature ``s^T y`` only; cleared when the matrix is
    refactored): the pairs correct the matrix's sampling error in the
    directions the steps explore.

    In lane order up to :data:`HESSIAN_ROWS` rows each trial pass also
    returns ``l''`` at every margin, and the Newton matrix at an accepted
    point is formed from those (:func:`newton_matrix_of`: no second pass for
    the margins); ``first_curvatures``, if given, are those of ``first``.
    """
    n, d = X.shape
    value, grad, blocks = first
    gn = math.inf
    last = factor
    pairs = []
    weighted = lanes and n <= HESSIAN_ROWS and X.flags.c_contiguous
    curv = first_curvatures if weighted else None
    for it in range(max_iter + 1):
        gn = float(np.linalg.norm(grad))
        if (gn + rounding_bound(loss, n, d, mu, g, f) if certify else gn) <= tol:
            return SolverResult(f, gn, it, blocks, factor if factor is not None else last,
                                tuple(pairs) if factor is not None else ())
        if it == max_iter:
            break
        # with reuse_matrix, the Newton matrix of the first point, factored once: near the
        # minimiser it changes far less than its sampling error, and any positive definite
        # matrix gives a descent direction (a step that fails the line search refactors)
        if factor is None:
            matrix = newton_matrix_of(X, curv, mu) if curv is not None else newton_matrix(loss, X, y, mu, f)
            factor = cholesky(matrix)
            pairs = []
        last = factor
        step = two_loop(factor, pairs, grad) if pairs else cholesky_solve(factor, grad)
        slope = float(grad @ step)
        armijo = value is not None and slope > value_slope * (1.0 + abs(value))
        t, moved = 1.0, False
        for _ in range(60):
            cand = f - t * step
            cand_curv = np.empty(n) if weighted else None
            cand_value, cand_grad, cand_blocks = pass_value_gradient(loss, X, y, mu, g, cand, lanes=lanes,
                                                                     values=armijo, curvatures=cand_curv)
            if armijo:
                ok = cand_value < value - 1e-4 * t * slope
            else:                                   # F cannot resolve the decrease: lower the gradient norm
                ok = float(np.linalg.norm(cand_grad)) < gn
            if ok:
                moved = True
                break
            t *= 0.5
        if not moved:
            break
        if t < 1.0 or not reuse_matrix:
            factor = None
        elif secant > 0 and not certify:
            s_, y_ = cand - f, cand_grad - grad
            curvature = float(s_ @ y_)
            if curvature > 0.0:
                pairs = (pairs + [(s_, y_, 1.0 / curvature)])[-secant:]
        f, value, grad, blocks, curv = cand, cand_value, cand_grad, cand_blocks, cand_curv
    if not certify:
        return SolverResult(f, gn, it, blocks, factor if factor is not None else last,
                            tuple(pairs) if factor is not None else ())
    raise _unreachable(tol, gn, rounding_bound(loss, n, d, mu, g, f))


def cholesky(matrix):
    """:func:`scipy.linalg.cho_factor` of a finite symmetric positive definite matrix (upper), LAPACK called directly."""
    c, info = scipy.linalg.lapack.dpotrf(matrix, lower=0, clean=0)
    if info != 0:
        raise np.linalg.LinAlgError(f"the Newton matrix is not positive definite (potrf info {info})")
    return c, False


def cholesky_solve(factor, b):
    """:func:`scipy.linalg.cho_solve` for a factor of :func:`cholesky` (or of ``cho_factor``), LAPACK called directly."""
    c, lower = factor
    x, info = scipy.linalg.lapack.dpotrs(c, b, lower=int(lower))
    if info != 0:
        raise ValueError(f"potrs: illegal argument {-info}")
    return x


def two_loop(factor, pairs, grad):
    """``H grad`` for the L-BFGS inverse ``H`` with initial matrix ``factor`` (Cholesky) and ``pairs`` ``(s, y, 1/s^T y)``."""
    return _two_loop(pairs, grad, lambda q: cholesky_solve(factor, q))


def _minimise_large_numpy(loss, X, y, mu, g, f, *, tol, max_iter):
    """:func:`_minimise_large` with NumPy passes (losses without a compiled pass, non-contiguous rows)."""
    n, d = X.shape
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
