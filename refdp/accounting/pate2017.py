"""PATE 2017's published analysis, reproduced, against the exact delta of the same LNMax answers.

The analysis script released with PATE (Papernot et al., ICLR 2017) bounds
the log-moment of each LNMax answer by
``min(2 gamma**2 l (l + 1), log_t, 2 gamma l)`` at the integer orders
``l = 1, ..., 8``, where ``log_t`` is Theorem 3,
``ln((1 - q)((1 - q)/(1 - e**(2 gamma) q))**l + q e**(2 gamma l))``, used
whenever ``q < 0.5`` (``q`` from Lemma 4, capped at ``1 - 1/C``), and
publishes ``epsilon = min_l (sum of log-moments - ln delta) / l``.
Theorem 3 holds only for ``q < (e**(2 gamma) - 1)/(e**(4 gamma) - 1) =
1/(e**(2 gamma) + 1)``; for ``q`` between that and 0.5 the script applies it
outside its range. When ``e**(2 gamma) q > 1`` (possible below 0.5 once
``gamma > ln(2)/2``) the base ``1 - e**(2 gamma) q`` is negative, the term is
negative at odd orders, and ``log_t`` can be a *negative* "log-moment"
(a real log-moment is never negative), which can make the published epsilon
small or negative. (When ``t <= 0`` the script falls back to ``2 gamma l``.)

:func:`pate2017_epsilon` reproduces that number in floats, as the script
computes it (it is a reproduction, not a bound).
:func:`lnmax_neighbour_delta` computes, for the same vote counts, the exact
delta at a given epsilon of the T LNMax answers against one neighbouring
vote vector per query (one vote moved between the plurality class and the
runner-up, both ways), as an enclosure: its lower end is a certified lower
bound of the delta of *any* valid data-dependent guarantee at these counts,
so ``lower > delta`` proves the published ``(epsilon, delta)`` false.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..utils.precision import iv_context, raw_to_fraction
from ..utils.constraints import Checked, InstanceOf, Optional, constrained, constrained_fields
from ..utils.validation import Interval, parameter_error
from ..utils.votes import check_gamma_votes
from ..utils.pld import convolve, delta_at, pld_atoms, power
from .profiles import Enclosure
from ..utils.validation import POSITIVE

__all__ = ["Pate2017Epsilon", "pate2017_epsilon", "lnmax_neighbour_delta"]

_POS = POSITIVE
_NONNEG = Interval(float, 0, None, closed="left")
_DELTA_OPEN = Interval(float, 0, 1, closed="neither")
_MOMENTS = Interval(int, 1, 10_000)
#: Any finite positive gamma: where the script's floats overflow (e**(2 gamma) beyond
#: gamma = 354.9), the result reports the script's OverflowError in ``script_error``.
_SCRIPT_GAMMA = POSITIVE
#: lnmax_neighbour_delta's exact laws: evaluation cost grows with gamma.
_EXACT_GAMMA = Interval(float, 0, 1e6, closed="right")
_STEP = Interval(float, 1e-6, 1.0, closed="both")


@dataclass(frozen=True)
class _ScriptEpsilon:
    """A relation: ``epsilon`` is a finite float, or NaN exactly when ``script_error`` is set."""

    def check(self, arguments: dict, owner: str) -> None:
        eps, error = arguments["epsilon"], arguments["script_error"]
        if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, np.floating, np.integer)):
            raise parameter_error("epsilon", owner, "a float", eps)
        if error is None and not math.isfinite(eps):
            raise parameter_error("epsilon", owner, "a finite float when 'script_error' is None", eps)
        if error is not None and not math.isnan(eps):
            raise parameter_error("epsilon", owner, "NaN when 'script_error' is set", eps)


_COUNT0 = Interval(int, 0, None)


@constrained_fields(
    epsilon=Checked("the script's value: finite (negative allowed, as the script prints it), "
                    "NaN exactly when 'script_error' is set", invalid=(math.inf, "1", None)),
    order=_COUNT0, log_moments=Checked("the per-order sums, as the script computes them"),
    outside_range=_COUNT0, negative_terms=_COUNT0,
    script_error=Optional(InstanceOf((str,), "a message")),
    relations=(_ScriptEpsilon(),),
)
@dataclass(frozen=True)
class Pate2017Epsilon:
    """The epsilon PATE 2017's analysis script would print, with what led to it.

    Attributes
    ----------
    epsilon : float
        ``min_l (sum_i log_mgf_i(l) - ln delta) / l`` (may be negative).
    order : int
        The order ``l`` attaining it.
    log_moments : ndarray, shape (moments,)
        The summed per-order values (may be negative).
    outside_range : int
        Queries with ``1/(e**(2 gamma) + 1) <= q < 0.5``: Theorem 3 applied
        outside its range.
    negative_terms : int
        (query, order) pairs where the script's per-query value is negative.
    script_error : str or None
        Set when the script itself would stop with an exception (a division
        by zero when ``e**(2 gamma) q`` rounds to exactly 1, or an overflow of
        ``math.exp`` when ``2 gamma`` or ``gamma`` times a gap exceeds about
        709.78, or 2 gamma itself is inf); ``epsilon`` is then NaN and ``order`` 0.
    """

    epsilon: float
    order: int
    log_moments: np.ndarray
    outside_range: int
    negative_terms: int
    script_error: str | None = None


def _script_q(row, gamma):
    """Lemma 4's q as the script computes it (floats), capped at ``1 - 1/C``."""
    w = int(np.argmax(row))
    q = 0.0
    for j, c in enumerate(row):
        if j != w:
            gap = gamma * (row[w] - c)
            q += (gap + 2.0) / (4.0 * math.exp(gap))
    return min(q, 1.0 - 1.0 / len(row))


def _script_log_mgf(q, eps, l):
    if q < 0.5:
        t = (1 - q) * math.pow((1 - q) / (1 - math.exp(eps) * q), l) + q * math.exp(eps * l)
        log_t = math.log(t) if t > 0 else eps * l        # the script's ValueError fallback
    else:
        log_t = eps * l
    return min(0.5 * eps * eps * l * (l + 1), log_t, eps * l)


_COUNTS = Checked("vote counts of one or more queries: non-negative integers, every row with a "
                  "positive total (checked by check_counts)",
                  invalid=([], [[]], [-1, 2], [0.5, 1.0], [0, 0], "abc", None, [[[1, 2]]]))


def _counts(counts, owner):
    from ..utils.votes import check_counts
    return check_counts(counts, owner, one_row=True)


@constrained(counts=_COUNTS, gamma=_SCRIPT_GAMMA, delta=_DELTA_OPEN, moments=_MOMENTS)
def pate2017_epsilon(counts, gamma, delta, moments=8):
    """The epsilon PATE 2017's published analysis script reports for these vote counts.

    A float reproduction of the script's computation (module docstring):
    Lemma 4's ``q`` per query, the per-order minimum of Theorem 2, Theorem 3
    (whenever ``q < 0.5``) and the pure-DP bound with ``eps = 2 gamma``, summed
    over queries, and Theorem 1's tail bound minimised over
    ``l = 1, ..., moments``. It is *not* a privacy bound: see
    :func:`lnmax_neighbour_delta`.

    Parameters
    ----------
    counts : array_like of int, shape (T, C) or (C,)
        Vote counts of the T answered queries.
    gamma : float in (0, inf)
        LNMax's inverse Laplace scale (the script computes ``e**(2 gamma)``
        in floats; where that overflows, ``script_error`` says so).
    delta : float in (0, 1)
    moments : int in [1, 10000], default 8
        The script's ``--moments`` (orders ``1..moments``).

    Returns
    -------
    Pate2017Epsilon

    Raises
    ------
    ValueError
        On invalid arguments.

    References
    ----------
    .. [1] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private
       Training Data", ICLR 2017, Theorems 1-3, Lemma 4, and its published
       analysis script.
    """
    arr = _counts(counts, "pate2017_epsilon")
    eps = 2.0 * gamma
    ls = np.arange(1, moments + 1, dtype=np.float64)
    total = np.zeros(moments)
    outside = negative = 0
    try:
        edge = 1.0 / (math.exp(eps) + 1.0)
    except OverflowError:               # the script's math.exp overflows as well
        return Pate2017Epsilon(math.nan, 0, total, 0, 0, f"OverflowError at exp({eps!r})")
    for row in arr.tolist():
        try:
            q = _script_q(row, gamma)
        except OverflowError:
            return Pate2017Epsilon(math.nan, 0, total, int(outside), negative,
                                   f"OverflowError in Lemma 4's exp(gamma gap) at counts {row}")
        outside += edge <= q < 0.5
        try:
            vals = np.array([_script_log_mgf(q, eps, l) for l in ls])
        except ZeroDivisionError:
            return Pate2017Epsilon(math.nan, 0, total, int(outside), negative,
                                   f"ZeroDivisionError at q = {q!r}")
        except OverflowError:           # the script's math.exp(eps * l) overflows as well
            return Pate2017Epsilon(math.nan, 0, total, int(outside), negative,
                                   f"OverflowError in the log-moment at q = {q!r}")
        negative += int(np.sum(vals < 0))
        total += vals
    e_list = (total - math.log(delta)) / ls
    i = int(np.argmin(e_list))
    if not math.isfinite(e_list[i]):    # 2 gamma itself overflows to inf in the script's floats
        return Pate2017Epsilon(math.nan, 0, total, int(outside), negative,
                               f"non-finite epsilon {float(e_list[i])!r} (2 gamma = {eps!r} in floats)")
    return Pate2017Epsilon(float(e_list[i]), i + 1, total, int(outside), negative)


def _pair(row, moved, gamma, iv, h):
    """Pessimistic and optimistic PLDs of LNMax(row) against LNMax(moved)."""
    from ..pate import lnmax_distribution
    lp = lnmax_distribution(row, gamma, log=True, ctx=iv)
    lq = lnmax_distribution(moved, gamma, log=True, ctx=iv)
    loss = [a - b for a, b in zip(lp, lq)]
    mass = [iv.exp(a) for a in lp]
    hi = [raw_to_fraction(x._mpi_[1]) for x in loss]
    lo = [raw_to_fraction(x._mpi_[0]) for x in loss]
    return pld_atoms(hi, mass, iv, h)[0], pld_atoms(lo, mass, iv, h)[1]


def _moves(row):
    """The neighbours of one query: a vote moved from the plurality to the runner-up, and back."""
    order = sorted(range(len(row)), key=lambda j: (-row[j], j))
    a, b = order[0], order[1]
    out = []
    for src, dst in ((a, b), (b, a)):
        if row[src] > 0:
            m = list(row)
            m[src] -= 1
            m[dst] += 1
            out.append(tuple(m))
    return out


_MAX_TYPES = 30_000


def _identical_rows_delta(row, moved, T, gamma, epsilon, iv):
    """Enclosure of delta(epsilon) of T i.i.d. answers LNMax(row) vs LNMax(moved), by the multinomial.

    The composed loss is ``sum_o n_o L_o`` with ``n`` multinomial over the
    classes. The K most likely classes (K as large as keeps at most
    ``_MAX_TYPES`` count vectors) are enumerated exactly in interval
    arithmetic; an answer in any other class is counted as loss ``+inf`` for
    the upper end (adding at most ``T p_rest``) and dropped for the lower end.
    """
    from ..pate import lnmax_distribution
    lp = lnmax_distribution(list(row), gamma, log=True, ctx=iv)
    lq = lnmax_distribution(list(moved), gamma, log=True, ctx=iv)
    by_mass = sorted(range(len(row)), key=lambda o: -float(lp[o].mid))
    K = 1
    while (K < len(row) and math.comb(T + K, K) <= _MAX_TYPES
           and T * math.exp(float(lp[by_mass[K]].mid)) > 1e-40):
        K += 1
    main = by_mass[:K]
    rest = iv.mpf(0)
    for o in by_mass[K:]:
        rest += iv.exp(lp[o])
    L = [lp[o] - lq[o] for o in main]
    logp = [lp[o] for o in main]
    logfact = [iv.mpf(0)]
    for i in range(1, T + 1):
        logfact.append(logfact[-1] + iv.log(i))
    e = iv.mpf(epsilon)
    lo = iv.mpf(0)
    hi = iv.mpf(0)

    def rec(i, left, n):
        nonlocal lo, hi
        if i == K - 1:
            n = n + [left]
            loss = sum((c * L[j] for j, c in enumerate(n) if c), iv.mpf(0))
            if loss.b <= epsilon:
                return
            logm = logfact[T] + sum((c * logp[j] - logfact[c] for j, c in enumerate(n)), iv.mpf(0))
            term = iv.exp(logm) * (1 - iv.exp(e - loss))
            if loss.a > epsilon:
                lo += term
            hi += iv.mpf([0, term.b])
            return
        for c in range(left + 1):
            rec(i + 1, left - c, n + [c])

    rec(0, T, [])
    upper = hi + T * rest
    return Enclosure(max(0.0, float(_down_f(lo.a))), min(1.0, float(_up_f(upper.b))))


def _down_f(x):
    return math.nextafter(float(x), -math.inf) if x > 0 else 0.0


def _up_f(x):
    return math.nextafter(float(x), math.inf)


@constrained(counts=_COUNTS, gamma=_EXACT_GAMMA, epsilon=_NONNEG, grid_step=_STEP)
def lnmax_neighbour_delta(counts, gamma, epsilon, grid_step=1e-3):
    """Enclosure of the exact delta(epsilon) of T LNMax answers against one neighbouring vote vector.

    For every query the neighbour moves one vote between the plurality class
    and the runner-up (the same teacher in every query; the first direction
    is tried, then the reverse move, and the larger delta is kept); both
    orders of the pair are evaluated (``M(d)`` against ``M(d')`` and back).
    Each answer's output law is enclosed exactly
    (:func:`refdp.pate.lnmax_distribution` in an interval context). When all
    T rows are equal the composition is enumerated exactly (the composed
    loss is a multinomial sum over the most likely classes, the rest bounded
    by ``T`` times their mass); otherwise the T answers are composed as
    privacy-loss distributions on the grid ``i * grid_step`` with certified
    pessimistic and optimistic bounds (``docs/theory/privacy_profiles.rst``).

    Since a data-dependent (epsilon, delta) guarantee at these counts must
    cover this neighbour, ``lower`` is a certified lower bound of every valid
    delta at ``epsilon``.

    Parameters
    ----------
    counts : array_like of int, shape (T, C) or (C,)
        Vote counts, ``C >= 2`` classes.
    gamma : float in (0, 1e6]
    epsilon : float in [0, inf)
    grid_step : float in [1e-6, 1], default 1e-3
        Loss grid of the general path (unused when all rows are equal).

    Returns
    -------
    Enclosure

    Raises
    ------
    ValueError
        On invalid arguments.
    """
    owner = "lnmax_neighbour_delta"
    arr = _counts(counts, owner)
    if arr.shape[1] < 2:
        # the neighbour moves a vote between the plurality and the runner-up: two classes at least
        raise parameter_error("counts", owner, "vote counts with at least two classes (columns)", arr)
    check_gamma_votes(gamma, arr, owner)
    iv = iv_context(30)
    groups: dict = {}
    for row in arr.tolist():
        groups[tuple(row)] = groups.get(tuple(row), 0) + 1
    if len(groups) == 1:
        (row, T), = groups.items()
        best = Enclosure(0.0, 0.0)
        for moved in _moves(row):
            for a, b in ((row, moved), (moved, row)):
                enc = _identical_rows_delta(a, b, T, gamma, epsilon, iv)
                best = Enclosure(max(best.lower, enc.lower), max(best.upper, enc.upper))
        return best
    return _grid_delta(groups, gamma, epsilon, grid_step, iv)


def _grid_delta(groups, gamma, epsilon, grid_step, iv):
    """The general path of :func:`lnmax_neighbour_delta`: certified PLDs on a loss grid."""
    h = Fraction(grid_step)
    best = Enclosure(0.0, 0.0)
    for direction in (0, 1):
        for forward in (True, False):
            upper = lower = None
            for row, count in groups.items():
                moves = _moves(row)
                moved = moves[min(direction, len(moves) - 1)]
                a, b = (row, moved) if forward else (moved, row)
                pess, opt = _pair(a, b, gamma, iv, h)
                pu, pl = power(pess, count, True), power(opt, count, False)
                upper = pu if upper is None else convolve(upper, pu, True)
                lower = pl if lower is None else convolve(lower, pl, False)
            enc = Enclosure(delta_at(lower, epsilon, iv, h, grid_step, False),
                            delta_at(upper, epsilon, iv, h, grid_step, True))
            best = Enclosure(max(best.lower, enc.lower), max(best.upper, enc.upper))
    return best
