"""Exhaustive replace-one searches for the prediction-stability rates of Section 4.4.

Shared by the checks of Theorem 4.9 (regularised ERM), Theorem 4.12 (one-pass
projected SGD), Lemma 4.5 (privacy of the stability wrapper, on the worst pair
found here) and Lemma 4.6 (averaging).

Setting
    Records ``(x, y)`` with ``x`` on a small grid of the ball ``||x|| <= R``
    (``R = 1``; 1-D grid ``{-1, -1/2, 0, 1/2, 1}``, 2-D grid ``{-5/8, 0,
    5/8}**2``) and labels ``y in {-1, +1}``. Every dataset of ``n`` records over
    that alphabet is trained (multisets for ERM, whose output does not depend
    on the order; sequences for SGD, whose output does) and every replace-one
    neighbour of every dataset is compared. The quantity bounded by the rate
    is ``sup_{||x|| <= R} |<w_S - w_S', x>| = R ||w_S - w_S'||``; in 1-D it is
    attained at the grid queries ``x = +-R``, in 2-D the grid maximum is
    reported beside it.

Exact arithmetic
    * Huber ERM in 1-D is solved exactly in rationals: the derivative of the
      objective is piecewise linear and increasing, so the exact minimiser is
      found between two consecutive breakpoints. In 2-D the active set is read
      from the library's solver and the linear system solved and verified
      exactly (an unverifiable active set makes the check fail).
    * Logistic ERM is solved in floating point and certified: for the
      ``lam``-strongly convex objective, ``|w_hat - w*| <= ||grad F(w_hat)|| /
      lam``, and the gradient is enclosed in interval arithmetic (a context of this module); the compared
      quantity is the exact upper bound ``R (||w_S - w_S'|| + r_S + r_S')``.
    * Huber SGD runs in rationals (the derivative ``clip(z - y, -delta,
      delta)`` is rational; 1-D projection onto ``[-W, W]`` is a clip).
    * Logistic SGD runs in interval arithmetic at 160 bits (a context of this module); the
      compared quantity is the upper end of the enclosure of the difference.
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from mpmath.ctx_iv import MPIntervalContext

from refdp.prediction.convex import HuberLoss, LogisticLoss, ProjectedSGD, RegularizedERM
from refdp.verify.verdict import Verdict, enclose

F = Fraction
R = F(1)
GRID_1D = (F(-1), F(-1, 2), F(0), F(1, 2), F(1))
GRID_2D = tuple((a, b) for a in (F(-5, 8), F(0), F(5, 8)) for b in (F(-5, 8), F(0), F(5, 8)))
LABELS = (F(-1), F(1))
IV_PREC = 160

#: The interval context of these computations, at IV_PREC bits. It is never
#: modified (mpmath's interval exp and arithmetic only read its precision), so
#: it is shared; the global mpmath.iv is not used.
IV = MPIntervalContext()
IV.prec = IV_PREC


def records_1d():
    return tuple(((x,), y) for x in GRID_1D for y in LABELS)


def records_2d():
    return tuple((x, y) for x in GRID_2D for y in LABELS)


def to_fraction(raw) -> Fraction:
    """Exact rational value of an mpmath raw ``(sign, man, exp, bc)`` tuple."""
    sign, man, exp, _ = raw
    v = F(man) * (F(2) ** exp)
    return -v if sign else v


def iv_bounds(x):
    a, b = x._mpi_
    return to_fraction(a), to_fraction(b)


@dataclass
class SearchResult:
    """Worst replace-one difference found, with where it was found."""

    worst: Fraction                 # exact upper bound of R ||w_S - w_S'|| over all pairs
    beta: Fraction                  # the proven rate (exact)
    pair: tuple                     # (S, S') as tuples of record indices
    values: tuple                   # (w_S, w_S') as tuples of Fractions (centres)
    pairs: int                      # number of neighbouring pairs compared
    grid_worst: Fraction            # max over grid queries (2-D: below `worst`)
    verdict: Verdict
    label: str
    extra: dict = field(default_factory=dict)

    def ratio(self) -> float:
        return float(self.worst / self.beta) if self.beta else float("inf")


# ---------------------------------------------------------------------------
# Regularised ERM
# ---------------------------------------------------------------------------

def _huber_grad(w, data, lam, delta):
    n = len(data)
    g = [lam * wi for wi in w]
    for x, y in data:
        r = sum(wi * xi for wi, xi in zip(w, x)) - y
        d = max(-delta, min(delta, r))
        for j, xj in enumerate(x):
            g[j] += d * xj / n
    return g


def huber_erm_exact_1d(data, lam, delta):
    """Exact minimiser of (1/n) sum huber(w x_i - y_i) + lam w^2 / 2 over w in R (rationals).

    The derivative G(w) is continuous, piecewise linear and increasing, with
    breakpoints where w x_i - y_i = +-delta; a binary search over the sorted
    breakpoints finds the piece where G changes sign, and the linear equation
    on that piece is solved exactly (the result is verified: G(w) == 0).
    """
    pts = {F(0)}
    for (x,), y in data:
        if x != 0:
            pts.add((y + delta) / x)
            pts.add((y - delta) / x)
    pts = sorted(pts)
    grad = lambda w: _huber_grad((w,), data, lam, delta)[0]   # noqa: E731  increasing in w
    # extend with points beyond the extreme breakpoints where G has the right sign
    lo, hi = pts[0] - 1, pts[-1] + 1
    while grad(lo) > 0:
        lo = 2 * lo - pts[-1]
    while grad(hi) < 0:
        hi = 2 * hi - pts[0]
    pts = [lo] + pts + [hi]
    i, j = 0, len(pts) - 1           # invariant: G(pts[i]) <= 0 <= G(pts[j])
    while j - i > 1:
        k = (i + j) // 2
        if grad(pts[k]) <= 0:
            i = k
        else:
            j = k
    g0, g1 = grad(pts[i]), grad(pts[j])
    if g0 == 0:
        return pts[i]
    w = pts[i] - g0 * (pts[j] - pts[i]) / (g1 - g0)
    if grad(w) != 0:
        raise ArithmeticError("exact Huber ERM solve did not verify")
    return w


def huber_erm_exact(data, lam, delta, w_guess):
    """Exact minimiser from the active set of ``w_guess`` (any d <= 2); None if not verified."""
    d = len(data[0][0])
    n = len(data)
    A = [[lam if i == j else F(0) for j in range(d)] for i in range(d)]
    b = [F(0)] * d
    for x, y in data:
        r = float(sum(F(float(wi)) * xi for wi, xi in zip(w_guess, x)) - y)
        if abs(r) <= float(delta):
            for i in range(d):
                b[i] += y * x[i] / n
                for j in range(d):
                    A[i][j] += x[i] * x[j] / n
        else:
            s = 1 if r > 0 else -1
            for i in range(d):
                b[i] -= s * delta * x[i] / n
    if d == 1:
        w = (b[0] / A[0][0],)
    else:
        det = A[0][0] * A[1][1] - A[0][1] * A[1][0]
        w = ((b[0] * A[1][1] - A[0][1] * b[1]) / det, (A[0][0] * b[1] - A[1][0] * b[0]) / det)
    if any(gi != 0 for gi in _huber_grad(w, data, lam, delta)):
        return None
    return w


_ENCLOSURES = {}


def q(x):
    """Enclosure of a rational (or float) at IV_PREC bits (cached)."""
    key = (type(x), x)
    v = _ENCLOSURES.get(key)
    if v is None:
        v = _ENCLOSURES[key] = enclose(x, IV)
    return v


def _logistic_grad_iv(w, data, lam):
    """Enclosure of grad F(w) for the logistic loss (w given as floats, exact inputs)."""
    iv = IV
    n = len(data)
    g = [q(lam) * q(float(wi)) for wi in w]
    for x, y in data:
        z = sum(q(float(wi)) * q(xi) for wi, xi in zip(w, x))
        dl = -q(y) / (1 + iv.exp(q(y) * z))
        for j, xj in enumerate(x):
            g[j] += dl * q(xj) / n
    return g


def _certified_radius(w, data, lam):
    """Exact rational upper bound of ||grad F(w)|| / lam (logistic)."""
    g = _logistic_grad_iv(w, data, lam)
    sq = sum(max(abs(a), abs(b)) ** 2 for a, b in (iv_bounds(gi) for gi in g))
    # sqrt upper bound in rationals: smallest dyadic s with s^2 >= sq, from a float guess
    return norm_upper(sq) / lam


def _erm_float_1d(datasets, lam, loss, delta=0.25):
    """Vectorised bisection on the increasing derivative (float), one w per dataset."""
    X = np.array([[float(r[0][0]) for r in ds] for ds in datasets])
    Y = np.array([[float(r[1]) for r in ds] for ds in datasets])
    n = X.shape[1]
    lo = np.full(len(datasets), -4.0 / lam - 1)
    hi = -lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        z = mid[:, None] * X
        if loss == "logistic":
            dl = -Y / (1 + np.exp(Y * z))
        else:
            dl = np.clip(z - Y, -delta, delta)
        g = np.sum(dl * X, axis=1) / n + lam * mid
        pos = g > 0
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
    return 0.5 * (lo + hi)


def worst_pairs(values, radii, datasets, m, n, beta):
    """Every replace-one pair of multisets, decided exactly; returns (all hold, worst pair, count).

    Two multisets are replace-one neighbours iff they share a sub-multiset
    ("rest") of size n - 1; each unordered pair shares exactly one, so
    iterating over the rests and over pairs of completions visits every pair
    once. A pair holds when ``R (||w_a - w_c|| + r_a + r_c) <= beta``. It is
    screened in floating point (the floats of the exact rationals are accurate
    to about 1e-16 relative; a pair below beta by a relative margin of 1e-6
    holds) and otherwise decided exactly, as ``||w_a - w_c||**2 <= (beta / R -
    r_a - r_c)**2`` in rationals.
    """
    index = {ds: i for i, ds in enumerate(datasets)}
    fvals = np.array([[float(v) for v in val] for val in values])
    frad = np.array([float(r) for r in radii])
    screen = float(beta / R) * (1 - 1e-6)
    holds, best, arg, count = True, None, None, 0
    for rest in itertools.combinations_with_replacement(range(m), n - 1):
        group = [index[tuple(sorted(rest + (r,)))] for r in range(m)]
        for a, c in itertools.combinations(group, 2):
            count += 1
            key = float(np.sqrt(np.sum((fvals[a] - fvals[c]) ** 2))) + frad[a] + frad[c]
            if best is None or key > best:
                best, arg = key, (datasets[a], datasets[c], a, c)
            if key <= screen:
                continue
            sq = sum((u - v) ** 2 for u, v in zip(values[a], values[c]))
            slack = beta / R - radii[a] - radii[c]
            if slack < 0 or sq > slack * slack:
                holds = False
    return holds, arg, count


def norm_upper(sq):
    """Rational upper bound of sqrt(sq): exact for squares of rationals, else two Newton steps."""
    if sq == 0:
        return F(0)
    rn, rd = _isqrt_exact(sq.numerator), _isqrt_exact(sq.denominator)
    if rn is not None and rd is not None:
        return F(rn, rd)
    s = F(float(np.sqrt(float(sq))))
    for _ in range(2):
        s = (s + sq / s) / 2        # >= sqrt(sq) by the AM-GM inequality
    return s


def _isqrt_exact(k):
    import math
    r = math.isqrt(k)
    return r if r * r == k else None


def _grid_max(wa, wb, grid):
    return max(abs(sum((u - v) * xi for u, v, xi in zip(wa, wb, x))) for x in grid)


@functools.lru_cache(maxsize=None)
def erm_search(loss: str, lam: Fraction, n: int, dim: int = 1, delta: Fraction = F(1, 4)):
    """Exhaustive search for regularised ERM (see the module docstring)."""
    recs = records_1d() if dim == 1 else records_2d()
    grid = [(x,) for x in GRID_1D] if dim == 1 else list(GRID_2D)
    m = len(recs)
    datasets = list(itertools.combinations_with_replacement(range(m), n))
    L = F(1) if loss == "logistic" else delta
    beta = 2 * L * R * R / (lam * n)
    values, radii = [], []
    verdict = Verdict.HOLDS
    if loss == "huber" and dim == 1:
        guesses = _erm_float_1d([[recs[i] for i in ds] for ds in datasets], float(lam), "huber",
                                float(delta))
        for ds, guess in zip(datasets, guesses):
            data = [recs[i] for i in ds]
            w = huber_erm_exact(data, lam, delta, (guess,))   # verified, or None
            values.append(w if w is not None else (huber_erm_exact_1d(data, lam, delta),))
            radii.append(F(0))
    elif loss == "huber":
        erm = RegularizedERM(HuberLoss(float(delta)), float(lam), 1.0, tol=1e-13)
        for ds in datasets:
            X = np.array([[float(c) for c in recs[i][0]] for i in ds])
            y = np.array([float(recs[i][1]) for i in ds])
            w = huber_erm_exact([recs[i] for i in ds], lam, delta, erm(X, y).w)
            if w is None:
                verdict = Verdict.UNDECIDED
                w = tuple(F(float(v)) for v in erm(X, y).w)
            values.append(w)
            radii.append(F(0))
    elif dim == 1:
        ws = _erm_float_1d([[recs[i] for i in ds] for ds in datasets], float(lam), "logistic")
        for ds, w in zip(datasets, ws):
            values.append((F(float(w)),))
            radii.append(_certified_radius((float(w),), [recs[i] for i in ds], lam))
    else:
        erm = RegularizedERM(LogisticLoss(), float(lam), 1.0, tol=1e-13)
        for ds in datasets:
            X = np.array([[float(c) for c in recs[i][0]] for i in ds])
            y = np.array([float(recs[i][1]) for i in ds])
            w = erm(X, y).w
            values.append(tuple(F(float(v)) for v in w))
            radii.append(_certified_radius(tuple(float(v) for v in w), [recs[i] for i in ds], lam))
    holds, (sa, sb, a, c), count = worst_pairs(values, radii, datasets, m, n, beta)
    sq = sum((u - v) ** 2 for u, v in zip(values[a], values[c]))
    worst = R * (norm_upper(sq) + radii[a] + radii[c])
    grid_worst = _grid_max(values[a], values[c], grid) + R * (radii[a] + radii[c])
    if not holds:
        verdict = Verdict.FAILS
    return SearchResult(worst, beta, (sa, sb), (values[a], values[c]), count, grid_worst, verdict,
                        f"ERM {loss}, lam={lam}, n={n}, {dim}-D, {len(datasets)} datasets",
                        {"records": recs, "max_radius": max(radii)})


# ---------------------------------------------------------------------------
# One-pass projected SGD
# ---------------------------------------------------------------------------

def huber_step(state, rec, eta, delta, W):
    w, total = state
    x, y = rec
    total = tuple(t + wi for t, wi in zip(total, w))
    r = sum(wi * xi for wi, xi in zip(w, x)) - y
    g = max(-delta, min(delta, r))
    w = tuple(wi - eta * g * xi for wi, xi in zip(w, x))
    if W is not None:               # 1-D only: projection onto [-W, W]
        w = tuple(max(-W, min(W, wi)) for wi in w)
    return w, total


def _logistic_step(state, rec, eta, delta, W):
    iv = IV
    w, total = state
    x, y = rec
    total = tuple(t + wi for t, wi in zip(total, w))
    z = sum(wi * q(xi) for wi, xi in zip(w, x))
    dl = -q(y) / (1 + iv.exp(q(y) * z))
    w = tuple(wi - q(eta) * dl * q(xi) for wi, xi in zip(w, x))
    return w, total


def all_runs(recs, n, step, zero, eta, delta, W):
    """Averaged iterate (1/n) sum_{t<n} w_t of every sequence of n records, sharing prefixes."""
    d = len(recs[0][0])
    out = {}
    stack = [((), ((zero,) * d, (zero,) * d))]
    while stack:
        prefix, state = stack.pop()
        if len(prefix) == n:
            out[prefix] = tuple(t / n for t in state[1])
            continue
        for i, rec in enumerate(recs):
            stack.append((prefix + (i,), step(state, rec, eta, delta, W)))
    return out


@functools.lru_cache(maxsize=None)
def psgd_search(loss: str, eta: Fraction, n: int, dim: int = 1, delta: Fraction = F(1, 4),
                projection: Fraction | None = None):
    """Exhaustive search for one-pass SGD over all sequences (see the module docstring).

    Replace-one neighbours of sequences differ at one position ``i``; the
    sequences that agree off ``i`` form a group of ``m`` (one per record), and
    the largest difference in a group bounds every neighbouring pair in it.
    In 1-D that is ``max upper - min lower`` of the enclosures; in 2-D the
    pairs are compared one by one, with the squared norm of the coordinate-wise
    upper bounds of ``|w_a - w_b|`` against ``(beta / R)**2``.
    """
    recs = records_1d() if dim == 1 else records_2d()
    grid = [(x,) for x in GRID_1D] if dim == 1 else list(GRID_2D)
    m = len(recs)
    L = F(1) if loss == "logistic" else delta
    beta = 2 * eta * L * R * R * F(n - 1, n)
    if loss == "huber":
        raw = all_runs(recs, n, huber_step, F(0), eta, delta, projection)
        out = {s: tuple((v, v) for v in val) for s, val in raw.items()}
    else:
        raw = all_runs(recs, n, _logistic_step, IV.mpf(0), eta, delta, None)
        out = {s: tuple(iv_bounds(v) for v in val) for s, val in raw.items()}
    best, count, holds = None, 0, True
    bound_sq = (beta / R) ** 2
    for s in out:
        for i in range(n):
            if s[i] != 0:
                continue            # each group once, from its member with record 0 at i
            group = [s[:i] + (r,) + s[i + 1:] for r in range(m)]
            count += m * (m - 1) // 2
            if dim == 1:
                hi_s = max(group, key=lambda g: out[g][0][1])
                lo_s = min(group, key=lambda g: out[g][0][0])
                sq = (out[hi_s][0][1] - out[lo_s][0][0]) ** 2
                cand = [(sq, hi_s, lo_s)]
            else:
                cand = []
                for a, b in itertools.combinations(group, 2):
                    diff = [max(ua - lb, ub - la) for (la, ua), (lb, ub) in zip(out[a], out[b])]
                    cand.append((sum(c * c for c in diff), a, b))
            for sq, a, b in cand:
                if sq > bound_sq:
                    holds = False
                if best is None or sq > best[0]:
                    best = (sq, a, b)
    sq, a, b = best
    worst = R * norm_upper(sq)
    centre = lambda s: tuple((lo + hi) / 2 for lo, hi in out[s])   # noqa: E731
    grid_worst = _grid_max(centre(a), centre(b), grid)
    verdict = Verdict.HOLDS if holds else Verdict.FAILS
    label = (f"SGD {loss}, eta={eta}, n={n}, {dim}-D, {len(out)} sequences"
             + (f", projection onto [-{projection}, {projection}]" if projection is not None else ""))
    width = max(hi - lo for v in out.values() for lo, hi in v)
    return SearchResult(worst, beta, (a, b), (centre(a), centre(b)), count, grid_worst, verdict,
                        label, {"records": recs, "exact": out, "max_width": width})


def implementation_agreement(result: SearchResult, loss: str, eta: Fraction, delta=F(1, 4),
                             projection=None, sample=300, seed=0):
    """Largest |w_impl - w_exact| of the library's ProjectedSGD over the worst pair and a sample."""
    recs = result.extra["records"]
    exact = result.extra["exact"]
    lossobj = HuberLoss(float(delta)) if loss == "huber" else LogisticLoss()
    sgd = ProjectedSGD(lossobj, float(eta), 1.0,
                       projection_radius=None if projection is None else float(projection))
    seqs = list(exact)
    rng = np.random.default_rng(seed)
    chosen = [result.pair[0], result.pair[1]] + [seqs[i] for i in rng.choice(len(seqs), sample)]
    worst = 0.0
    for s in chosen:
        X = np.array([[float(c) for c in recs[i][0]] for i in s])
        y = np.array([float(recs[i][1]) for i in s])
        w = sgd(X, y).w
        for wi, (lo, hi) in zip(w, exact[s]):
            worst = max(worst, float(max(abs(F(float(wi)) - lo), abs(F(float(wi)) - hi))))
    return worst
