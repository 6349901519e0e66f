"""The exact privacy profile delta(epsilon) of T LNMax answers on given vote counts.

PATE answers each query with LNMax, ``argmax_j (n_j + Lap(1/gamma))``
(Papernot et al. 2017, Eq. 1), on the teachers' vote counts ``n^(t)``. A
neighbouring dataset changes the data of one teacher, so on every query its
vote may move from a class ``a`` (with ``n_a >= 1``) to a class ``b != a``:
the counts become ``n - e_a + e_b``. For a neighbour ``D'`` the privacy
profile of the T answers is the hockey-stick divergence of the product laws,

``delta_{D,D'}(eps) = sum_o max(0, P_D(o) - e^eps P_D'(o)) = E_{P_D}[(1 - e^(eps - L))_+]``

with ``L = sum_t ln P_t(o_t) / P'_t(o_t)`` the privacy loss of the
composition (Balle, Barthe and Gaboardi 2018, Thm. 1), and the
data-dependent profile at the given counts is its maximum over the
neighbours, in both directions.

What is computed
    Each query's law is the exact LNMax law in interval arithmetic
    (:func:`refdp.mechanisms.report_noisy_max_distribution` with an interval
    context). Its privacy-loss atoms are placed on the grid ``i h`` rounded
    up (pessimistic) and down (optimistic), composed by convolution with
    outward-rounded floating point (the machinery of
    :func:`refdp.accounting.privacy_profile_delta`), so the result is an
    enclosure ``[lower, upper]`` of the exact delta that tightens as ``h``
    decreases.
Which neighbours
    Only the counts are known, not which teacher cast which vote, so every
    combination of per-query moves ``(a_t -> b_t)`` is a candidate (a
    superset of the true neighbours when the votes are known: the maximum is
    then an upper bound for them). A query on which the teacher's vote does
    not change contributes nothing and is dominated (dropping a component of
    a product never increases the hockey-stick divergence), so each query
    moves. Moves that give the same pair of laws up to relabelling the
    classes are merged; the remaining combinations are enumerated, at most
    ``max_combinations`` of them.
Noise law
    ``noise="discrete"`` (the default) is the law of ``lnmax_labels`` with
    its default ``secure=True``: exact discrete Laplace of scale ``t``
    (:func:`refdp.pate.discrete_analysis.lnmax_scale`) on the integer counts,
    lowest index among the noisy maxima, enclosed by
    ``discrete_argmax_law`` (finite sums of geometric series). The tie rule
    makes the classes' positions matter, so no moves are merged for it.
    ``noise="continuous"`` is the law of ``secure=False`` answers.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from ..utils.precision import iv_context, raw_to_fraction
from ..utils.constraints import PROBABILITY_RESULT, Options, Ordered, Reported, constrained, constrained_fields
from ..utils.validation import Described, Interval, parameter_error
from ..utils.pld import convolve, delta_at, pld_atoms
from ..mechanisms import report_noisy_max_distribution
from ..mechanisms.discrete_argmax import discrete_argmax_law
from ._constraints import COUNTS, FINITE_PRIVACY, GAMMA
from .discrete_analysis import NOISES, lnmax_scale
from ..utils.votes import check_gamma_votes

__all__ = ["ExactDelta", "exact_delta"]

_OWNER = "exact_delta"
#: The privacy-loss grid step: below 1e-6 the grids of ordinary compositions no longer fit in memory.
GRID_STEP = Interval(float, 1e-6, 1, closed="left")
_DPS = 30


@constrained_fields(epsilon=FINITE_PRIVACY, lower=PROBABILITY_RESULT, upper=Reported(),
                    relations=(Ordered(("lower", "upper")),), unchecked="what exact_delta examined")
@dataclass
class ExactDelta:
    """Result of :func:`exact_delta`.

    Attributes
    ----------
    epsilon : float
    lower, upper : float
        The exact data-dependent delta(epsilon) lies in ``[lower, upper]``.
    worst_moves : tuple
        Per query ``(a, b)``: the worst neighbour moves one vote from class
        ``a`` to class ``b``.
    worst_direction : str
        ``"D -> D'"`` or ``"D' -> D"``.
    combinations : int
        Neighbour combinations examined.
    grid_step : float
    """

    epsilon: float
    lower: float
    upper: float
    worst_moves: tuple
    worst_direction: str
    combinations: int
    grid_step: float

    def __str__(self):
        return (f"delta({self.epsilon:g}) in [{self.lower:.6g}, {self.upper:.6g}] (exact LNMax laws; "
                f"worst neighbour moves {list(self.worst_moves)}, {self.worst_direction}; "
                f"{self.combinations} neighbour combinations)")


def _law(ctx, counts, gamma):
    return report_noisy_max_distribution([int(c) for c in counts], gamma, monotone=True, ctx=ctx)


def _canonical(n, m):
    return tuple(sorted(zip((int(x) for x in n), (int(x) for x in m))))


def _plds(ctx, p, q, h):
    """(pessimistic, optimistic) PLDs of the loss ln p/q under p."""
    losses_hi, losses_lo, masses = [], [], []
    for a, b in zip(p, q):
        lr = ctx.ln(a) - ctx.ln(b)
        losses_lo.append(raw_to_fraction(lr._mpi_[0]))
        losses_hi.append(raw_to_fraction(lr._mpi_[1]))
        masses.append(a)
    return pld_atoms(losses_hi, masses, ctx, h)[0], pld_atoms(losses_lo, masses, ctx, h)[1]


def _float_up(x):
    return math.nextafter(float(x), math.inf)


def _hockey_stick_points(pairs, alphas):
    """Upper bounds of ``max_m sum_o (a_mo - alpha b_mo)_+`` at each alpha, over pairs ``(a_m, b_m)``.

    Each law is an interval vector; ``a`` is rounded up and ``b`` down to
    floats. Each term ``a - alpha b`` is computed with an absolute error of
    at most ``2^-52 (a + alpha b)`` (one product, one difference), so that
    much is added per term, whether the term was kept or clipped at 0, and
    the float sum gets a relative margin of 1e-12 (far above the rounding
    error of a sum of a few non-negative terms): each value is an upper
    bound, returned as an exact Fraction.
    """
    import numpy as np
    x = np.asarray([float(v) for v in alphas])
    out = np.zeros(len(alphas))
    for a, b in pairs:
        a_hi = np.array([_float_up(raw_to_fraction(v._mpi_[1])) for v in a])
        b_lo = np.array([math.nextafter(float(raw_to_fraction(v._mpi_[0])), 0.0) for v in b])
        terms = np.maximum(a_hi[None, :] - x[:, None] * b_lo[None, :], 0.0).sum(axis=1)
        slack = 2.0 ** -50 * (a_hi.sum() + x * b_lo.sum())
        out = np.maximum(out, terms + slack)
    return [Fraction(float(v) * (1 + 1e-12) + 1e-300) for v in out]


def _lower_hull(points):
    """Vertices of the lower convex hull of points sorted by x (exact Fractions)."""
    hull = []
    for x, y in points:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (y2 - y1) * (x - x1) >= (y - y1) * (x2 - x1):
                hull.pop()
            else:
                break
        hull.append((x, y))
    return hull


def _dominating_pld(ctx, pairs, h, points=2000):
    """Pessimistic PLD of a pair (P*, Q*) that dominates every pair ``(a_m, b_m)`` of ``pairs``.

    ``H_alpha(P || Q) = sum_o (P(o) - alpha Q(o))_+`` is convex in ``alpha``;
    so is its maximum over the pairs. Upper bounds of that maximum at a grid
    of ``alpha`` in ``[0, alpha_max]`` (``alpha_max`` above every likelihood
    ratio, where it is 0) and their lower convex hull give a piecewise linear
    convex function above the maximum (a chord of a convex function lies
    above it). It is the hockey-stick curve of the discrete pair with, at each
    hull vertex ``alpha_j``, an outcome of ``Q*``-mass equal to the slope's
    increase there and ``P*``-mass ``alpha_j`` times it (exact rationals, and
    an outcome of ``P*``-mass 0 holding the rest of ``Q*``), so
    ``H_alpha(P* || Q*) >= H_alpha(a_m || b_m)`` for every ``alpha >= 0`` and
    every pair: (P*, Q*) dominates each pair, so by Blackwell's theorem each
    pair is a post-processing of it, and products of dominating pairs
    dominate the products (Zhu, Dong and Wang, AISTATS 2022, Thm. 10).
    """
    import numpy as np
    ratios = [_float_up(raw_to_fraction(x._mpi_[1])) / math.nextafter(float(raw_to_fraction(y._mpi_[0])), 0.0)
              for a, b in pairs for x, y in zip(a, b)]
    a_max = Fraction(_float_up(max(ratios) * (1 + 1e-12)))
    # below the smallest ratio every term is positive and the curve is linear: no grid point is needed there
    low = math.nextafter(min(ratios) * (1 - 1e-12), 0.0)
    inner = np.exp(np.linspace(math.log(low), math.log(float(a_max)), points))[:-1]
    grid = sorted({Fraction(0), a_max} | {Fraction(float(v)) for v in inner if v < a_max})
    ups = _hockey_stick_points(pairs, grid)
    ups[0] = Fraction(1)                         # H_0 = total mass of the first law, exactly 1
    ups[-1] = Fraction(0)                        # alpha_max exceeds every ratio (outward rounded)
    hull = _lower_hull(list(zip(grid, ups)))
    slopes = [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in zip(hull, hull[1:])] + [Fraction(0)]
    losses, masses = [], []
    for j in range(1, len(hull)):
        qmass = slopes[j] - slopes[j - 1]
        if qmass <= 0:
            continue
        alpha = hull[j][0]
        losses.append(raw_to_fraction(ctx.ln(ctx.mpf(alpha.numerator) / alpha.denominator)._mpi_[1]))
        pm = alpha * qmass
        masses.append(ctx.mpf(pm.numerator) / pm.denominator)
    return pld_atoms(losses, masses, ctx, h)[0]


@constrained(counts=COUNTS, gamma=GAMMA, epsilon=Interval(float, 0, None, closed="left"),
             grid_step=GRID_STEP, max_combinations=Interval(int, 1, None),
             method=Options(("enumerate", "dominating", "auto")), noise=Options(NOISES))
def exact_delta(counts, gamma, epsilon, *, grid_step=1e-3, max_combinations=4096, method="enumerate",
                noise="discrete"):
    """Enclosure of the exact data-dependent delta(epsilon) of T LNMax answers on given counts.

    Parameters
    ----------
    counts : array_like of int, shape (T, C)
        Vote counts of each query (non-negative, at least one vote per row).
    gamma : float > 0
        LNMax's inverse Laplace scale.
    epsilon : float >= 0
    grid_step : float in [1e-6, 1), default 1e-3
        Privacy-loss grid of the composition (the enclosure's width shrinks with it).
    max_combinations : int >= 1, default 4096
        Most neighbour combinations enumerated.
    method : {"enumerate", "dominating", "auto"}, default "enumerate"
        ``"enumerate"``: every combination of moves (exact up to the grid).
        ``"dominating"``: for many queries. The upper end composes, per
        direction, one pair per query that dominates all of its moves (the
        convex hull of their hockey-stick curves, see
        :func:`_dominating_pld`), so it is valid for every combination at
        once but may exceed the enumerated maximum; the lower end is the
        exact value of one combination (each query's move with the largest
        hockey-stick divergence at ``e^(epsilon / T)``). Cost linear in the
        number of distinct count rows. ``"auto"``: enumerate when the
        combinations are at most ``max_combinations``, else dominate.
    noise : {"discrete", "continuous"}, default "discrete"
        Noise law of the answers (module docstring): ``"discrete"`` for
        ``lnmax_labels(secure=True)``, its default; ``"continuous"`` for
        ``secure=False``.

    Returns
    -------
    ExactDelta

    Raises
    ------
    ValueError
        Bad parameters, or more neighbour combinations than ``max_combinations``.

    Examples
    --------
    One query, three teachers all voting class 0, gamma = 1:

    >>> r = exact_delta([[3, 0]], 1.0, 1.0, noise="continuous")
    >>> round(r.lower, 4), round(r.upper, 4)
    (0.1067, 0.1069)
    """
    check_gamma_votes(gamma, counts, _OWNER)
    ctx = iv_context(_DPS)
    h = Fraction(grid_step)
    if noise == "discrete":
        t = lnmax_scale(gamma)

        def law(ctx, counts, g):
            return discrete_argmax_law([int(c) for c in counts], t, ctx)
    else:
        law = _law
    g = Fraction(gamma)
    per_query = []
    laws = []
    row_cache = {}
    for n in counts:
        key_row = tuple(int(x) for x in n)
        if key_row in row_cache:
            per_query.append(row_cache[key_row][0])
            laws.append(row_cache[key_row][1])
            continue
        p = law(ctx, n, g)
        options = {}
        C = len(n)
        for a in range(C):
            if n[a] < 1:
                continue
            for b in range(C):
                if b == a:
                    continue
                m = n.copy()
                m[a] -= 1
                m[b] += 1
                key = _canonical(n, m) if noise == "continuous" else (a, b)
                if key in options:
                    continue
                q = law(ctx, m, g)
                options[key] = ((a, b), _plds(ctx, p, q, h), _plds(ctx, q, p, h), q)
        if not options:
            raise parameter_error("counts", _OWNER, "rows of at least two classes",
                                  Described(f"a row {n.tolist()} with no possible vote change"))
        per_query.append(list(options.values()))
        laws.append(p)
        row_cache[key_row] = (per_query[-1], p)
    total = math.prod(len(o) for o in per_query)
    if method == "dominating" or (method == "auto" and total > max_combinations):
        return _dominated(ctx, counts, per_query, laws, epsilon, h, total, grid_step)
    if total > max_combinations:
        raise parameter_error("max_combinations", _OWNER,
                              f"an int >= the {total} neighbour combinations of these counts",
                              max_combinations)
    best = None
    lower_best = 0.0
    for combo in itertools.product(*per_query):
        for direction, idx in (("D -> D'", 1), ("D' -> D", 2)):
            up = lo = None
            for opt in combo:
                pu, pl = opt[idx]
                up = pu if up is None else convolve(up, pu, True)
                lo = pl if lo is None else convolve(lo, pl, False)
            du = delta_at(up, epsilon, ctx, h, float(h), True)
            dl = delta_at(lo, epsilon, ctx, h, float(h), False)
            lower_best = max(lower_best, dl)
            if best is None or du > best[0]:
                best = (du, tuple(opt[0] for opt in combo), direction)
    return ExactDelta(epsilon, lower_best, best[0], best[1], best[2], total, grid_step)


def _dominated(ctx, counts, per_query, laws, epsilon, h, total, grid_step):
    """``method="dominating"``: a dominating pair per query (upper end), one combination (lower end)."""
    T = len(per_query)
    dom_cache = {}
    best_upper, best_dir = None, None
    for direction, idx in (("D -> D'", 1), ("D' -> D", 2)):
        up = None
        for t, (opts, p) in enumerate(zip(per_query, laws)):
            key = (tuple(int(x) for x in counts[t]), idx)
            if key not in dom_cache:
                pairs = [(p, o[3]) if idx == 1 else (o[3], p) for o in opts]
                dom_cache[key] = _dominating_pld(ctx, pairs, h)
            pu = dom_cache[key]
            up = pu if up is None else convolve(up, pu, True)
        du = delta_at(up, epsilon, ctx, h, float(h), True)
        if best_upper is None or du > best_upper:
            best_upper, best_dir = du, direction
    # lower end: one combination, each query's move with the largest divergence at e^(epsilon / T)
    alpha = math.exp(epsilon / T)
    lower_best, moves = 0.0, None
    for direction, idx in (("D -> D'", 1), ("D' -> D", 2)):
        lo, chosen = None, []
        for opts, p in zip(per_query, laws):
            def score(o):
                q = o[3]
                a, b = (p, q) if idx == 1 else (q, p)
                return sum(max(0.0, float(x.mid) - alpha * float(y.mid)) for x, y in zip(a, b))
            o = max(opts, key=score)
            chosen.append(o[0])
            pl = o[idx][1]
            lo = pl if lo is None else convolve(lo, pl, False)
        dl = delta_at(lo, epsilon, ctx, h, float(h), False)
        if moves is None or dl > lower_best:
            lower_best, moves = dl, tuple(chosen)
    return ExactDelta(epsilon, lower_best, best_upper, moves, best_dir, total, grid_step)

