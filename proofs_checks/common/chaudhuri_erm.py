"""Exact minimisers of small regularised ERM problems, shared by the Chaudhuri et al. checks.

Records are ``(x, y)`` with ``x`` a tuple of rationals (``||x|| <= 1``) and
``y = +-1``. The objective is ``F(f) = (1/n) sum_i l(y_i f^T x_i) + (mu/2)
||f||^2`` with a margin loss from :mod:`refdp.utils.losses`.

* :func:`certified_radius`: an exact rational upper bound of ``||grad F(f)||
  / mu`` at a float point ``f`` (the gradient is enclosed in interval arithmetic
  at 160 bits: margins are exact rationals, ``l'`` is evaluated in interval
  arithmetic). By ``mu``-strong convexity the exact minimiser lies within
  that distance of ``f``.
* :func:`huber_hinge_exact`: the exact rational minimiser for the Huber hinge
  loss, which is piecewise quadratic: the zone of every record is read from a
  float solution, the linear first-order system of that zone pattern is solved
  in rationals (``d <= 2``), and the result is accepted only if every record's
  exact margin lies in its zone and the exact gradient is zero.
* :func:`exact_minimiser`: the library solver (``refdp.utils.solver.minimise``),
  then the exact Huber solution or the certified radius.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from proofs_checks.common.stability_search import IV, IV_PREC, norm_upper, iv_bounds, q
from refdp.utils.solver import minimise
from refdp.utils.losses import HuberHingeLoss
from refdp.verify.verdict import enclose

F = Fraction
TIGHT_TOL = 1e-12


def ball_rows(points):
    """Float rows for rational points of the closed unit ball, each of exact norm at most 1.

    A point such as (3/5, 4/5) has norm 1, but its nearest doubles do not
    (0.6**2 + 0.8**2 > 1 in exact arithmetic), and the releases refuse rows
    outside the ball. Coordinates of such a row are moved one ulp toward 0
    until its exact norm is at most 1. Returns the float array and the exact
    rational rows it holds, so a check reasons about the data released.
    """
    rows = []
    for point in points:
        row = [float(c) for c in point]
        while sum(Fraction(v) ** 2 for v in row) > 1:
            row = [float(np.nextafter(v, 0.0)) for v in row]
        rows.append(row)
    return np.array(rows, dtype=np.float64), [tuple(Fraction(v) for v in row) for row in rows]


def as_arrays(data):
    X = np.array([[float(c) for c in x] for x, _ in data])
    y = np.array([float(v) for _, v in data])
    return X, y


def margin(f, x, y):
    return y * sum(F(fi) * xi for fi, xi in zip(f, x))


def gradient_bounds(loss, data, mu, f, g=None):
    """Rational enclosures ``(lo_j, hi_j)`` of the coordinates of ``grad F(f)`` (``g``: linear term)."""
    n, d = len(data), len(data[0][0])
    f = [F(float(v)) for v in f]
    base = [F(mu) * fj + (g[j] if g is not None else 0) for j, fj in enumerate(f)]
    if isinstance(loss, HuberHingeLoss):            # l' is rational at rational margins: exact
        for x, y in data:
            dl = huber_derivative(margin(f, x, y), F(loss.h))
            for j in range(d):
                base[j] += dl * y * x[j] / n
        return [(v, v) for v in base]
    grad = [enclose(v, IV) for v in base]
    for x, y in data:
        dl = loss.derivative_exact(margin(f, x, y), IV)
        for j in range(d):
            if x[j]:
                grad[j] += dl * q(y * x[j] / n)
    return [iv_bounds(gj) for gj in grad]


def gradient_norm_upper(loss, data, mu, f, g=None):
    """Rational upper bound of ``||grad F(f)||``."""
    sq = sum(max(abs(a), abs(b)) ** 2 for a, b in gradient_bounds(loss, data, mu, f, g))
    return norm_upper(sq)


def certified_radius(loss, data, mu, f, g=None):
    """Rational upper bound of ``||grad F(f)|| / mu``: the distance to the exact minimiser."""
    return gradient_norm_upper(loss, data, mu, f, g) / F(mu)


def huber_derivative(m, h):
    """``l'(m)`` of the Huber hinge loss at a rational margin, in rationals."""
    return F(0) if m > 1 + h else F(-1) if m < 1 - h else -(1 + h - m) / (2 * h)


def _zone(m, h):
    if m > 1 + h:
        return "zero"
    if m < 1 - h:
        return "linear"
    return "quadratic"


def huber_hinge_exact(loss, data, mu, guess):
    """Exact minimiser (tuple of rationals) for the Huber hinge loss, or None if not verified."""
    h, mu = F(loss.h), F(mu)
    n, d = len(data), len(data[0][0])
    zones = [_zone(F(float(y * sum(float(gi) * float(xi) for gi, xi in zip(guess, x)))), h)
             for x, y in data]
    A = [[mu if i == j else F(0) for j in range(d)] for i in range(d)]
    b = [F(0)] * d
    for (x, y), z in zip(data, zones):
        if z == "quadratic":       # l'(m) = (m - 1 - h) / (2h), m = y x^T f, y^2 = 1
            for i in range(d):
                b[i] += (1 + h) * y * x[i] / (2 * h * n)
                for j in range(d):
                    A[i][j] += x[i] * x[j] / (2 * h * n)
        elif z == "linear":        # l'(m) = -1
            for i in range(d):
                b[i] += y * x[i] / n
    if d == 1:
        f = (b[0] / A[0][0],)
    else:
        det = A[0][0] * A[1][1] - A[0][1] * A[1][0]
        f = ((b[0] * A[1][1] - A[0][1] * b[1]) / det, (A[0][0] * b[1] - A[1][0] * b[0]) / det)
    for (x, y), z in zip(data, zones):
        m = y * sum(fi * xi for fi, xi in zip(f, x))
        if z == "zero" and not m >= 1 + h or z == "linear" and not m <= 1 - h \
                or z == "quadratic" and not abs(1 - m) <= h:
            return None
    grad = [mu * fj for fj in f]
    for x, y in data:
        dl = huber_derivative(y * sum(fi * xi for fi, xi in zip(f, x)), h)
        for j in range(d):
            grad[j] += dl * y * x[j] / n
    return f if all(gj == 0 for gj in grad) else None


def exact_minimiser(loss, data, mu, tol=TIGHT_TOL):
    """Exact minimiser and the library's point.

    Returns
    -------
    values : tuple of Fraction
        Centre of a ball holding the exact minimiser.
    radius : Fraction
        Its radius (0 when the minimiser is an exact rational).
    theta : ndarray
        The library solver's point at tolerance ``tol``.
    gradient_norm : Fraction
        Exact upper bound of ``||grad F(theta)||``.
    """
    X, y = as_arrays(data)
    theta = minimise(loss, X, y, float(mu), tol=tol).theta
    gn = gradient_norm_upper(loss, data, mu, theta)
    if isinstance(loss, HuberHingeLoss):
        f = huber_hinge_exact(loss, data, mu, theta)
        if f is not None:
            return f, F(0), theta, gn
    return tuple(F(float(v)) for v in theta), gn / F(mu), theta, gn


def grid_release_verdict(loss, data, mu, res, noise, bits=160):
    """The float-safe release is ``g * round(theta*(b) / g)`` for the replayed exact draw ``b``.

    ``noise`` is a fresh lazy draw on the release's seed: the release refines
    it by ``START_BITS`` digits and then ``REFINE_BITS`` at a time, so refining the replay the same way
    extends the very digits the release used. With ``b`` known to ``bits``
    digits, a float minimiser at the box centre is certified by this module's
    exact gradient bound (rational margins, independent of the library's
    certificate): every coordinate's ball must lie in the released cell.
    Returns UNDECIDED when the ball straddles a cell boundary at this
    precision.
    """
    from refdp.erm._grid_minimiser import REFINE_BITS, START_BITS
    from refdp.verify.verdict import Verdict
    Z, ys = as_arrays(data)
    n, d = Z.shape
    noise.refine(START_BITS)
    done = START_BITS
    while done < bits:
        noise.refine(REFINE_BITS)
        done += REFINE_BITS
    box = noise.bounds()
    centre = [(Fraction(lo) + Fraction(hi)) / 2 for lo, hi in box]
    lin = [c / n for c in centre]
    half = max(Fraction(hi) - Fraction(lo) for lo, hi in box) / 2
    try:
        start = minimise(loss, Z, ys, float(mu), np.array([float(v) for v in lin]), tol=1e-12).theta
    except RuntimeError:
        start = res.theta
    radius = (gradient_norm_upper(loss, data, Fraction(mu), start, lin) + half * d / n) / Fraction(mu)
    g = Fraction(res.grid_step)
    verdict = Verdict.HOLDS
    for t, released in zip(start, res.theta):
        t = Fraction(float(t))
        lo = (t - radius) / g + Fraction(1, 2)
        hi = (t + radius) / g + Fraction(1, 2)
        k = Fraction(float(released)) / g
        if lo.__floor__() != hi.__floor__():
            verdict = Verdict.UNDECIDED if verdict is Verdict.HOLDS else verdict
        elif k != lo.__floor__():
            return Verdict.FAILS
    return verdict
