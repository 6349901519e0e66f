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

from .._precision import iv_context, raw_to_fraction
from .._validation import Described, Interval, check_scalar, parameter_error
from ..accounting.profiles import _atoms, _conv, _delta_at
from ..mechanisms import report_noisy_max_distribution
from ..mechanisms._discrete_argmax import discrete_argmax_law
from ._args import check_counts, check_gamma
from .discrete_analysis import check_noise, lnmax_scale

__all__ = ["ExactDelta", "exact_delta"]

_OWNER = "exact_delta"
_DPS = 30


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
    return _atoms(losses_hi, masses, ctx, h)[0], _atoms(losses_lo, masses, ctx, h)[1]


def exact_delta(counts, gamma, epsilon, *, grid_step=1e-3, max_combinations=4096, noise="discrete"):
    """Enclosure of the exact data-dependent delta(epsilon) of T LNMax answers on given counts.

    Parameters
    ----------
    counts : array_like of int, shape (T, C)
        Vote counts of each query (non-negative, at least one vote per row).
    gamma : float > 0
        LNMax's inverse Laplace scale.
    epsilon : float >= 0
    grid_step : float in (0, 1), default 1e-3
        Privacy-loss grid of the composition (the enclosure's width shrinks with it).
    max_combinations : int >= 1, default 4096
        Most neighbour combinations enumerated.
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
    counts = check_counts(counts, _OWNER)
    if counts.ndim == 1:
        counts = counts[None, :]
    gamma = check_gamma(gamma, _OWNER)
    epsilon = check_scalar(epsilon, "epsilon", _OWNER, Interval(float, 0, None, closed="left"))
    grid_step = check_scalar(grid_step, "grid_step", _OWNER, Interval(float, 0, 1, closed="neither"))
    max_combinations = check_scalar(max_combinations, "max_combinations", _OWNER, Interval(int, 1, None))
    noise = check_noise(noise, _OWNER)
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
    for n in counts:
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
                options[key] = ((a, b), _plds(ctx, p, q, h), _plds(ctx, q, p, h))
        if not options:
            raise parameter_error("counts", _OWNER, "rows of at least two classes",
                                  Described(f"a row {n.tolist()} with no possible vote change"))
        per_query.append(list(options.values()))
    total = math.prod(len(o) for o in per_query)
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
                up = pu if up is None else _conv(up, pu, True)
                lo = pl if lo is None else _conv(lo, pl, False)
            du = _delta_at(up, epsilon, ctx, h, float(h), True)
            dl = _delta_at(lo, epsilon, ctx, h, float(h), False)
            lower_best = max(lower_best, dl)
            if best is None or du > best[0]:
                best = (du, tuple(opt[0] for opt in combo), direction)
    return ExactDelta(epsilon, lower_best, best[0], best[1], best[2], total, grid_step)
