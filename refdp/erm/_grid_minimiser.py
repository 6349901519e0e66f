"""The grid cell of the exact minimiser of a perturbed ERM objective, certified.

Objective perturbation releases ``theta*(b) = argmin F_b``,

    ``F_b(theta) = (1/n) sum_i l(y_i theta^T x_i) + (mu/2) ||theta||^2 + b^T theta / n``,

for a continuous noise vector ``b``. The float-safe release
(``docs/theory/secure_noise.rst``, Theorem 7) returns ``g * round(theta*(b) / g)``
for an exact draw ``b`` of the continuous law and a public power-of-two grid
step ``g``: a deterministic function of the exact real-valued output, so the
privacy proof of the real-valued mechanism applies unchanged to the doubles
returned. This module decides that grid cell without ever knowing ``b`` or
``theta*(b)`` exactly:

* ``b`` is a :mod:`refdp.utils.lazy_noise` draw, known as a box ``B`` of
  rational intervals that shrinks when more digits are drawn;
* ``F_b`` is ``mu``-strongly convex, so for any ``theta`` and every ``b`` in
  ``B``: ``||theta - theta*(b)|| <= sup_{b in B} ||grad F_b(theta)|| / mu``;
* the supremum is bounded above by a computed gradient plus a certified
  rounding-error bound (float stage) or by interval arithmetic on exact
  rational margins (exact stage, used only when the float stage cannot decide);
* when the ball of that radius around ``theta`` lies inside one grid cell in
  every coordinate, the cell is the released value. Otherwise ``b`` is refined,
  ``theta`` improved, and the test repeated. The cell boundaries have
  probability zero, so this ends with probability one.

Float-stage rounding bound (``u = 2**-53``, ``gamma_k = k u / (1 - k u)``;
rows satisfy ``|x_ij| <= 1`` and ``|l'| <= 1``): a computed margin is off by
at most ``gamma_d ||theta||_1``, so a computed ``l'`` by at most ``e_v = c
gamma_d ||theta||_1`` plus the evaluation error of ``l'``
(:meth:`~refdp.utils.losses.MarginLoss.derivative_rounding`: ``8 u``, more for
a narrow Huber hinge); the sum over records is formed in blocks of ``BLOCK``
rows (any order inside a block: ``gamma_BLOCK`` times the sum of the absolute
terms) and the block sums are added by :func:`math.fsum` (correctly
rounded). The bound is therefore independent of ``n``, unlike the a-priori
bound of :mod:`refdp.utils.solver`, which is what makes the cell decidable in
double precision at large ``n``. For the logistic and Huber-hinge losses the
margins, ``l'`` and the block sums come from one compiled pass over the rows
(:func:`refdp.core.margin_pass_blocks` in its lane order: the dot products in
any order and ``l'`` within its :meth:`derivative_rounding`, the same error
terms), and the first certificate reuses the start point's last pass at the
same point.

Speed (where the time goes at large ``n``): every step of the search and of
its start point (:func:`start_point`) is one such pass, so the work is the
number of passes. The start point solves the problem on every ``k``-th row
first (``k = ceil(n / HESSIAN_ROWS)``), then takes Newton steps on every row
with that sample's Newton matrix, factored once (each step divides the
gradient by about 30 at ``d = 50``, the sampling error of the matrix), to
a gradient of ``mu g 2**-START_TOL_BITS``; the search reuses the factor for
its own corrections. At ``n d >= PRE_REFINE_SIZE`` the digits of ``b`` that
the search would request after its first passes are drawn before the solve,
so that no pass is spent at a box centre that then moves.

Up to ``HESSIAN_ROWS`` rows (the sizes where fixed costs matter) the start
point evaluates ``F`` at 0 without a pass (every margin is 0), forms each
Newton matrix from the ``l''`` weights that the pass at the accepted point
returns, starts at ``-g / mu`` where the noise's pull exceeds the data's,
and in high dimension hands its L-BFGS phase over at a gradient of
``QUASI_HANDOVER_GTOL`` to Newton steps with one factored matrix.

Speed does not change the release: the draw's digits are requested in fixed
chunks (``START_BITS``, then ``REFINE_BITS`` for every coordinate at once),
so the exact ``b`` is the same function of the bit stream however many
rounds the search takes, and every correct certificate returns the cell of
the same ``theta*(b)``. ``tests/erm/test_float_safe_releases.py`` checks the
releases of a fixed set of seeds and problems against their record.
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import scipy.linalg

from .. import core
from ..utils.precision import raw_to_fraction
from ..utils.rounding import EXACT_INT_LIMIT, UNIT_ROUNDOFF as _U, gamma as _gamma, interval_context
from ..mechanisms.float_safe import grid_step
from ..utils.solver import (HESSIAN_ROWS, PASS_BLOCK, QUASI_NEWTON_MIN_DIM, QUASI_NEWTON_MIN_ROWS, minimise,
                            newton_matrix, newton_passes, pass_at_zero, pass_value_gradient, quasi_newton_point,
                            two_loop)

__all__ = ["GridMinimiser", "grid_cell_minimiser"]

#: Rows per block of the certified gradient sum (each block summed in any
#: order with error gamma_(BLOCK+2) of its absolute sum).
BLOCK = 256


def _up(x: float, k: int = 2) -> float:
    for _ in range(k):
        x = math.nextafter(x, math.inf)
    return x


class GridMinimiser:
    """One objective: data, strong convexity ``mu`` and grid step ``g`` (all validated by the caller)."""

    def __init__(self, loss, Z, ys, mu: float, step: float):
        self.loss, self.Z, self.ys = loss, Z, ys
        self.n, self.d = Z.shape
        self.mu = float(mu)
        self.step = float(step)
        # C_j >= sum_i |x_ij|: a float sum of n non-negative terms is at least
        # (1 - gamma_n) times the exact one, in any order (one compiled pass, rows in order)
        col = core.column_abs_sums(Z)
        self.col_abs = col * (1.0 + 2.0 * _gamma(self.n + 2)) * (1.0 + 4 * _U)
        self._exact_rows = None
        #: (theta, block sums of the compiled pass at theta) handed over by the solver, or None
        self.known_blocks = None
        self.factor, self.factor_reused = None, False
        #: secant pairs correcting a reused factor (:func:`refdp.utils.solver.two_loop`)
        self.pairs = []
        self.stage_counts = {"float": 0, "exact": 0}

    # ------------------------------------------------------------------ float stage
    def float_gradient(self, theta, g):
        """(computed grad F_g(theta), per-coordinate bound of its error) for a float vector ``g``."""
        loss, Z, ys, n, d = self.loss, self.Z, self.ys, self.n, self.d
        e_v = loss.curvature * _gamma(d + 1) * float(np.sum(np.abs(theta))) + loss.derivative_rounding()
        # one compiled pass over the rows (margins, l', block sums), or the NumPy path for other losses
        known = self.known_blocks
        if known is not None and np.array_equal(known[0], theta):
            blocks = known[1]                   # the last pass at this very point (the solver's, or this one's)
        elif (fused := core.margin_pass_blocks(loss, Z, ys, theta, BLOCK, lanes=True, values=False)
                if Z.flags.c_contiguous else None) is not None:
            blocks = fused[0]
            self.known_blocks = (np.array(theta, dtype=np.float64), blocks)
        else:
            m = ys * (Z @ theta)
            v = ys * loss.derivative(m)
            full = (n // BLOCK) * BLOCK
            blocks = np.einsum("bkd,bk->bd", Z[:full].reshape(-1, BLOCK, d), v[:full].reshape(-1, BLOCK))
            if full < n:
                blocks = np.vstack([blocks, Z[full:].T @ v[full:]])
        T = np.array([math.fsum(col) for col in blocks.T.tolist()])
        grad = T / n + self.mu * theta + g
        err_T = (_gamma(BLOCK + 2) * (1.0 + e_v) + e_v) * self.col_abs * (1.0 + 4 * _U) + 2 * _U * np.abs(T)
        err = (err_T / n) * (1.0 + 4 * _U) + 4 * _U * (np.abs(T) / n + np.abs(self.mu * theta) + np.abs(g))
        err = err * (1.0 + 8 * _U) + sys.float_info.min
        return grad, err

    def newton_step(self, theta, grad):
        """``theta - H^-1 grad`` with the Newton matrix of the first point of the search, factored once.

        Any positive definite matrix gives a correction; the certificate never
        depends on it. :attr:`factor_reused` says whether the matrix came from
        an earlier point, so that the search can refactor when a reused one
        stops halving the gradient bound.
        """
        self.factor_reused = self.factor is not None
        if self.factor is None:
            self.factor = scipy.linalg.cho_factor(newton_matrix(self.loss, self.Z, self.ys, self.mu, theta))
            self.pairs = []
        if self.pairs:                          # the start point's secant corrections of the same matrix
            return theta - two_loop(self.factor, self.pairs, grad)
        return theta - scipy.linalg.cho_solve(self.factor, grad)

    # ------------------------------------------------------------------ exact stage
    def data_gradient_sums(self, theta_q, iv):
        """Enclosures of ``sum_i l'(y_i theta^T x_i) y_i x_ij`` for rational ``theta_q`` (exact margins)."""
        if self._exact_rows is None:
            self._exact_rows = [[Fraction(float(x)) for x in row] for row in self.Z]
        acc = [iv.mpf(0) for _ in range(self.d)]
        for row, y in zip(self._exact_rows, self.ys):
            margin = Fraction(int(y)) * sum(x * t for x, t in zip(row, theta_q))
            dv = self.loss.derivative_exact(margin, iv) * int(y)
            for j in range(self.d):
                if row[j]:
                    acc[j] += dv * iv.mpf(row[j].numerator) / row[j].denominator
        return acc

    def exact_gradient_bound(self, theta_q, box, dps=40):
        """Upper bound of ``sup_{b in box} ||grad F_b(theta)||`` for rational ``theta_q``, by interval arithmetic."""
        n, d = self.n, self.d
        with interval_context(int(dps * 3.33) + 8) as iv:
            acc = self.data_gradient_sums(theta_q, iv)
            mu = Fraction(self.mu)
            total = iv.mpf(0)
            for j in range(d):
                lo, hi = Fraction(box[j][0]), Fraction(box[j][1])
                mt = mu * theta_q[j]
                gj = acc[j] / n + iv.mpf(mt.numerator) / mt.denominator
                blo = iv.mpf(lo.numerator) / (lo.denominator * n)
                bhi = iv.mpf(hi.numerator) / (hi.denominator * n)
                span = gj + iv.mpf([blo.a, bhi.b])          # every value of coordinate j over the box
                bound = iv.mpf(max(abs(span.a), abs(span.b)))
                total += bound * bound
            return raw_to_fraction(iv.sqrt(total)._mpi_[1])

    # ------------------------------------------------------------------ the decision
    def cells(self, centre, radius: Fraction):
        """Grid indices fixed by the ball ``(centre, radius)`` in every coordinate, or None.

        The index of a real ``t`` is ``floor(t / g + 1/2)`` (round half up; the
        cell boundaries have probability zero).
        """
        # floor((c -+ r) / g + 1/2) over integers: c = cn / cd, r = rn / rd, g = gn / gd
        gn, gd = self.step.as_integer_ratio()
        rn, rd = radius.as_integer_ratio()
        out = []
        for c in centre:
            cn, cd = c.as_integer_ratio()           # exact: a double or a Fraction
            den = 2 * cd * rd * gn
            a, b = cn * rd * 2 * gd, rn * cd * 2 * gd
            half = cd * rd * gn
            lo = (a - b + half) // den
            if lo != (a + b + half) // den:
                return None
            out.append(lo)
        return out


def _box_gap(box, g, n) -> Fraction:
    """An upper bound of ``sup_{b in box} ||b / n - g||_2``, within ``(sqrt(d) + 1) 2**-64`` of it.

    ``box``: pairs of rationals (:func:`_integer_boxes` of them, :func:`_box_gap_ints`).
    """
    return _box_gap_ints(_integer_boxes(box), g, n)


def _integer_boxes(box):
    """Pairs of rationals as ``(lo_num, lo_den, hi_num, hi_den)`` (the form of ``integer_bounds()`` of a lazy draw)."""
    out = []
    for lo, hi in box:
        lo, hi = Fraction(lo), Fraction(hi)
        out.append((lo.numerator, lo.denominator, hi.numerator, hi.denominator))
    return out


def _noise_boxes(noise):
    """The boxes of a lazy draw as integer quadruples (its ``integer_bounds()``, or its ``bounds()`` converted)."""
    integer_bounds = getattr(noise, "integer_bounds", None)
    return integer_bounds() if integer_bounds is not None else _integer_boxes(noise.bounds())


def _box_gap_ints(box, g, n) -> Fraction:
    """:func:`_box_gap` of a box of integer quadruples ``(lo_num, lo_den, hi_num, hi_den)``, denominators > 0.

    Integer arithmetic: each coordinate's larger distance ``p / q`` (exact)
    is rounded up to ``D / 2**64`` (``D = ceil(2**64 p / q)``), and the root of
    ``sum D**2`` is rounded up. Every step rounds up, so the result is at least
    the exact supremum; each ``D`` exceeds ``2**64 p / q`` by less than 1, so it
    is above it by at most ``(sqrt(d) + 1) 2**-64``. (Summing the exact squares
    on one common denominator costs a time quadratic in ``d``.)
    """
    total = 0
    for (ln, ld, hn, hd), gj in zip(box, np.asarray(g, dtype=np.float64).tolist()):
        gn, gd = gj.as_integer_ratio()
        a_n, a_d = abs(ln * gd - n * ld * gn), n * ld * gd
        b_n, b_d = abs(hn * gd - n * hd * gn), n * hd * gd
        p, q = (a_n, a_d) if a_n * b_d >= b_n * a_d else (b_n, b_d)
        D = -(-(p << 64) // q)
        total += D * D
    return Fraction(math.isqrt(total) + 1, 1 << 64) if total else Fraction(0)


def _sqrt_up(q: Fraction) -> Fraction:
    return _sqrt_up_ratio(q.numerator, q.denominator)


def _sqrt_up_ratio(num: int, den: int) -> Fraction:
    """``(isqrt(ceil(2^128 num / den)) + 1) / 2^64 >= sqrt(num / den)`` (0 for 0), ``num >= 0``, ``den > 0``."""
    if num == 0:
        return Fraction(0)
    r = math.isqrt(-(-num * (1 << 128) // den))
    return Fraction(r + 1, 1 << 64)


#: Digits of every noise coordinate drawn before the first solve, and at each refinement.
START_BITS = 24
REFINE_BITS = 16


def _centre(box, n):
    """The float linear term ``mid(box) / n`` the solver uses for a box of ``b`` (pairs of rationals)."""
    return _centre_ints(_integer_boxes(box), n)


def _centre_ints(box, n):
    """:func:`_centre` of a box of integer quadruples ``(lo_num, lo_den, hi_num, hi_den)``, denominators > 0."""
    # the double nearest (lo + hi) / 2: int / int true division is correctly rounded, so an
    # unreduced quadruple gives the same double as the reduced fractions
    return np.array([(ln * hd + hn * ld) / (2 * ld * hd) for ln, ld, hn, hd in box]) / n


def grid_cell_minimiser(problem: GridMinimiser, noise, theta0, *, refine_bits=REFINE_BITS, max_rounds=200,
                        first_box=None):
    """The exact ``round(theta*(b) / g)`` for the lazy draw ``noise`` (module docstring).

    Parameters
    ----------
    problem : GridMinimiser
    noise
        A lazy vector draw with ``bounds()`` (list of rational intervals) and
        ``refine(k)``.
    theta0 : ndarray
        A starting point (e.g. the float solver's output at the box centre).
    first_box : tuple, optional
        ``(boxes, centre)`` of ``noise`` as it is now (:func:`_noise_boxes`,
        :func:`_centre_ints`), if the caller has them: the first round uses
        them instead of forming them again.

    Returns
    -------
    list of int
        The grid indices of the exact minimiser.
    """
    n, d, mu = problem.n, problem.d, problem.mu
    theta = np.array(theta0, dtype=np.float64)
    last_grad = math.inf
    for _ in range(max_rounds):
        if first_box is not None:
            (box, g), first_box = first_box, None
        else:
            box = _noise_boxes(noise)
            g = _centre_ints(box, n)
        gap = _box_gap_ints(box, g, n)
        grad, err = problem.float_gradient(theta, g)
        grad_ub = _up(float(np.linalg.norm(np.abs(grad) + err)) * (1.0 + 4 * (d + 2) * _U))
        radius = (Fraction(grad_ub) + gap) / Fraction(mu)
        cells = problem.cells(theta, radius)
        if cells is not None:
            problem.stage_counts["float"] += 1
            return cells
        if gap > Fraction(grad_ub):
            noise.refine(refine_bits)
            last_grad = math.inf                # the centre moved: Newton steps start afresh
            continue
        if grad_ub < 0.5 * last_grad:
            last_grad = grad_ub
            theta = problem.newton_step(theta, grad)
            continue
        if problem.factor_reused:               # the reused Newton matrix stalled: refactor here
            problem.factor = None
            last_grad = grad_ub
            theta = problem.newton_step(theta, grad)
            continue
        break                                   # float precision exhausted: exact stage
    return _exact_stage(problem, noise, theta, refine_bits=refine_bits, max_rounds=max_rounds)


def _exact_stage(problem, noise, theta, *, refine_bits, max_rounds):
    n, mu = problem.n, Fraction(problem.mu)
    theta_q = [Fraction(float(t)) for t in theta]
    dps = 40
    for _ in range(max_rounds):
        box = noise.bounds()
        bound = problem.exact_gradient_bound(theta_q, box, dps=dps)
        radius = bound / mu
        cells = problem.cells(theta_q, radius)
        if cells is not None:
            problem.stage_counts["exact"] += 1
            return cells
        widths = max(Fraction(hi) - Fraction(lo) for lo, hi in box) / n
        if widths * 4 > bound:
            noise.refine(refine_bits)
            continue
        # a Newton correction from a float Hessian and the exact gradient at the box centre
        centre = [(Fraction(lo) + Fraction(hi)) / 2 for lo, hi in box]
        grad = _exact_gradient_midpoint(problem, theta_q, centre, dps)
        hess = newton_matrix(problem.loss, problem.Z, problem.ys, problem.mu, np.array([float(t) for t in theta_q]))
        step = np.linalg.solve(hess, np.array([float(x) for x in grad]))
        theta_q = [t - Fraction(float(s_)) for t, s_ in zip(theta_q, step)]
        dps += 10
    raise RuntimeError("the grid cell of the minimiser was not decided within max_rounds refinements")


def _exact_gradient_midpoint(problem, theta_q, centre, dps):
    """``grad F_b(theta)`` at the rational ``b = centre`` (midpoints of an interval evaluation)."""
    n, d = problem.n, problem.d
    with interval_context(int(dps * 3.33) + 8) as iv:
        acc = problem.data_gradient_sums(theta_q, iv)
        mu = Fraction(problem.mu)
        out = []
        for j in range(d):
            v = acc[j] / n + iv.mpf((mu * theta_q[j]).numerator) / (mu * theta_q[j]).denominator \
                + iv.mpf(centre[j].numerator) / (centre[j].denominator * n)
            out.append(raw_to_fraction(v.mid._mpi_[0]))
        return out


#: From this many entries (n d) the release draws, before its first solve, the digits of b that
#: bring the box's effect on the gradient below mu g 2**-PRE_REFINE_BITS.
PRE_REFINE_SIZE = 1 << 20
PRE_REFINE_BITS = 12

#: The start point of the cell search is solved to a gradient norm of mu * g * 2**-START_TOL_BITS.
START_TOL_BITS = 8

#: Secant pairs that correct the strided Newton matrix in the start point's steps beyond HESSIAN_ROWS.
SECANT_PAIRS = 5

#: Gradient norm to which the strided warm start of a large problem is solved.
WARM_TOL = 1e-5
#: Stride of the warm start below HESSIAN_ROWS rows (in high dimension, from
#: WARM_STRIDE * QUASI_NEWTON_MIN_ROWS rows on).
WARM_STRIDE = 4

#: Slope below which the start point's line search compares gradient norms instead of the
#: objective (and its lane-order passes skip the loss): near the minimiser, where Newton
#: corrections lower the gradient norm, the loss's logarithms are not needed.
START_VALUE_SLOPE = 1e-7

#: Gradient norm at which the start point's L-BFGS phase hands over to Newton steps (on every
#: row, up to HESSIAN_ROWS rows). Those steps factor the Newton matrix once and correct it with
#: secant pairs: near the minimiser one O(n d^2) matrix and a pass per step finish the solve.
QUASI_HANDOVER_GTOL = 3e-4


#: From this norm of the linear term g (the noise's pull; the data's is at most 1), the Newton steps
#: of a start point without an L-BFGS phase start at -g / mu instead of at 0.
NOISE_START_NORM = 1.0


def start_point(loss, Z, ys, mu, g, *, tol, gtol=None, reuse_after_quasi=True):
    """An uncertified point near the minimiser of ``F_g``, from compiled lane-order passes, or None.

    Up to :data:`~refdp.utils.solver.HESSIAN_ROWS` rows: L-BFGS steps where
    they pay (:func:`~refdp.utils.solver.quasi_newton_point`; from
    ``WARM_STRIDE`` times as many rows, the same on every ``WARM_STRIDE``-th
    row instead), then damped Newton steps with the exact Newton matrix.
    Beyond: the same on every
    ``k``-th row (``k = ceil(n / HESSIAN_ROWS)``) as a warm start (to a gradient of
    :data:`WARM_TOL`: on every row its gradient is about ``sqrt(d k / n)`` larger anyway), then Newton
    steps on every row with the strided Newton matrix, factored once and
    handed to the cell search (its corrections reuse it). None if the loss
    has no compiled pass (the caller then uses :func:`~refdp.utils.solver.minimise`).
    The release does not depend on this point: the cell search certifies
    the cell of the exact minimiser from wherever it starts.

    ``gtol``: where the L-BFGS phase stops (default
    :data:`QUASI_HANDOVER_GTOL`); after it, with ``reuse_after_quasi``, the
    Newton matrix is factored once and corrected by
    :data:`SECANT_PAIRS` secant pairs (refactored after a shortened step).
    The warm start of a large problem keeps its own settings
    (:data:`WARM_TOL`, a matrix per step on the strided rows).
    """
    n, d = Z.shape
    factor = first = curvatures = None
    if gtol is None:
        gtol = QUASI_HANDOVER_GTOL
    if n > HESSIAN_ROWS or (n >= WARM_STRIDE * QUASI_NEWTON_MIN_ROWS and d >= QUASI_NEWTON_MIN_DIM):
        stride = -(-n // HESSIAN_ROWS) if n > HESSIAN_ROWS else WARM_STRIDE
        warm = start_point(loss, np.ascontiguousarray(Z[::stride]), np.ascontiguousarray(ys[::stride]), mu, g,
                           tol=max(tol, WARM_TOL), gtol=WARM_TOL, reuse_after_quasi=False)
        f = np.zeros(d) if warm is None else warm.theta
        # from the warm start, the Newton steps lower the gradient norm: the line search
        # compares norms and the passes skip the loss; beyond HESSIAN_ROWS the Newton matrix
        # is the strided one, which the warm start has factored already (the same rows)
        reuse, values = n > HESSIAN_ROWS, warm is None
        if reuse and warm is not None:
            factor = warm.factor
    else:
        last = []
        quick = quasi_newton_point(loss, Z, ys, mu, g, lanes=True, gtol=gtol, last=last)
        f = np.zeros(d) if quick is None else quick
        if quick is None and float(np.linalg.norm(g)) >= NOISE_START_NORM:
            # |l'| <= 1 and ||x|| <= 1 bound the data's gradient by 1, so the minimiser lies within
            # 1 / mu of -g / mu: where the noise's pull is larger, start there instead of at 0
            f = -g / mu
        reuse, values = reuse_after_quasi and quick is not None, True
        if last and np.array_equal(last[0][0], f):
            first, curvatures = last[0][1], last[0][2]      # L-BFGS's last pass was at this point
    if first is None:
        curvatures = np.empty(n) if n <= HESSIAN_ROWS else None      # l'' for the first Newton matrix
        if not np.any(f):                       # at 0 every margin is 0: no pass needed
            first = pass_at_zero(loss, Z, ys, mu, g, curvatures=curvatures)
            if first is not None and not values:
                first = (None, first[1], None)
        else:
            first = pass_value_gradient(loss, Z, ys, mu, g, f, lanes=True, values=values, curvatures=curvatures)
    if first is None:
        return None
    return newton_passes(loss, Z, ys, mu, g, f, first, tol=tol, max_iter=200, certify=False, reuse_matrix=reuse,
                         lanes=True, factor=factor, value_slope=START_VALUE_SLOPE if values else math.inf,
                         secant=SECANT_PAIRS if reuse else 0, first_curvatures=curvatures)


def secure_minimiser(loss, Z, ys, mu, noise, unit_scale, *, tol):
    """The float-safe release ``g * round(theta*(b) / g)`` of a lazy noise draw (Theorem 7).

    Parameters
    ----------
    loss, Z, ys
        Validated data (rows with ``||x|| <= 1``, labels in ``{-1, +1}``).
    mu : float
        The solver's strong convexity ``Lambda + Delta`` (the exact value the
        privacy budget was checked against).
    noise
        A lazy draw of ``b`` (:class:`refdp.utils.lazy_noise.LazySphericalLaplace`
        or :class:`~refdp.utils.lazy_noise.LazyGaussianVector`).
    unit_scale : float
        A public scale of the noise's effect on ``theta`` (``1 / (n mu beta)``
        or ``sigma / (n mu)``); the grid step is the largest power of two at
        most ``unit_scale / 2**GRID_BITS``.
    tol : float
        Tolerance of the first float solve (a starting point only).

    Returns
    -------
    theta : ndarray of float, shape (d,)
        ``g`` times the certified grid indices, clamped to ``+-(2**53 - 1)``
        (post-processing: every returned double is exact).
    step : float
        The grid step ``g``.
    """
    n, d = Z.shape
    step = grid_step(unit_scale, 1)
    noise.refine(START_BITS)
    box = _noise_boxes(noise)
    g = _centre_ints(box, n)
    if n * d >= PRE_REFINE_SIZE:
        # where a pass over the rows costs more than drawing digits, draw the digits the search
        # would draw after its first passes now (the same chunks: the same b), so that its
        # Newton steps are not restarted when the box centre moves
        target = Fraction(mu) * Fraction(step) / 2**PRE_REFINE_BITS
        while _box_gap_ints(box, g, n) > target:
            noise.refine(REFINE_BITS)
            box = _noise_boxes(noise)
            g = _centre_ints(box, n)
    problem = GridMinimiser(loss, Z, ys, mu, step)
    try:
        # the cell search needs a gradient well below mu * step (every coordinate's distance to
        # its cell's edge, times mu); the start point goes to mu * step * 2**-START_TOL_BITS, where
        # the first certificate usually decides, and the search's own Newton rounds take over
        start = start_point(loss, Z, ys, mu, g, tol=min(tol, problem.mu * step * 2.0**-START_TOL_BITS))
        if start is None:
            start = minimise(loss, Z, ys, mu, g, tol=tol)
        theta0 = start.theta
        if start.pass_blocks is not None and PASS_BLOCK == BLOCK:
            problem.known_blocks = (theta0.copy(), start.pass_blocks)
        if start.factor is not None:            # the start's Newton matrix, for the search's corrections
            problem.factor, problem.pairs = start.factor, list(start.pairs)
    except RuntimeError:                      # a starting point only: the certificate is below
        theta0 = np.zeros(d)
    cells = grid_cell_minimiser(problem, noise, theta0, first_box=(box, g))     # the noise is as it was at g
    limit = min(EXACT_INT_LIMIT, math.floor(Fraction(sys.float_info.max) / Fraction(step)))
    cells = [max(-limit, min(limit, k)) for k in cells]
    return np.array([float(k) * step for k in cells]), step
