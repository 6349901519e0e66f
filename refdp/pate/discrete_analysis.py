r"""PATE's data-dependent analyses for the float-safe LNMax (exact discrete Laplace noise).

``lnmax_labels(counts, gamma)`` (``secure=True``, the default) releases the
lowest index among the maxima of :math:`n_j + Z_j`, with :math:`Z_j` i.i.d.
exact discrete Laplace of scale :math:`t` (:math:`1/\gamma` rounded up to a
48-bit dyadic rational, :func:`lnmax_scale`), :math:`P[Z = z] =
\frac{1 - p}{1 + p} p^{|z|}`, :math:`p = e^{-1/t}`. Papernot et al. (2017)
state Lemma 4 and the data-dependent analysis for continuous Laplace noise;
this module gives their counterparts for the law actually sampled (proofs in
docs/theory/pate_discrete.rst):

* **Difference law.** For :math:`D = Z' - Z`, :math:`P[D = k] =
  \big(\frac{1-p}{1+p}\big)^2 p^{|k|}\big(|k| + \frac{1+p^2}{1-p^2}\big)`
  and, for every integer :math:`g \ge 0`,

  .. math::

     P[D \ge g] = \frac{p^{g}\,\big(g(1 - p^2) + 1 + p + 2p^2\big)}{(1 + p)^3}
     =: t_d(g).

* **Discrete Lemma 4.** :math:`P[M(n) \ne j^*] \le q_d(n) = \sum_{j \ne j^*}
  t_d(n_{j^*} - n_j)` (:func:`discrete_lemma4_log_q`; ties counted as losses,
  whatever the index order).
* **Exact q.** :math:`P[M(n) \ne j^*]` from the exact law of the discrete
  noisy argmax (:func:`discrete_exact_log_q`: a double-precision sum of
  positive terms with a proved rounding margin, or interval arithmetic with
  ``certified=True``).
* **Exact worst-case log-moments** over every neighbour
  (:func:`discrete_exact_log_moments`; the neighbours' laws by low-rank
  updates of one law, :func:`neighbour_log_law_bounds`).
* **Two-sided.** The largest of these over :math:`n` and all its neighbours:
  Lemma 4 at :math:`n^- = n - e_{j^*} + e_{\text{runner-up}}` (top-two gap
  at least 3), the exact q as a maximum over the moves :math:`j^* \to b`.

Theorem 3 of the paper holds for every :math:`2\gamma`-DP mechanism, so
these :math:`q` feed it unchanged (:class:`refdp.pate.PATEAccountant` with
``noise="discrete"``, the default).

Rounding. Every returned ``log q`` and log-moment is an upper bound: the
Lemma 4 tails are enclosed in interval arithmetic
(:func:`refdp.utils.precision.iv_context`, owned by the call) and rounded up to
doubles, the per-row sums raised by :data:`LOG_Q_MARGIN` (relative); the
double-precision laws are moved outward by :data:`FAST_MARGIN` ``(1 + W)``
(:func:`fast_magnitude`). No global mpmath state is read or set.

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Lemma 4 and Theorem 3.
.. [CKS20] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020 (exact discrete Laplace sampling).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ..utils.precision import iv_context
from ..utils.rounding import MACHINE_EPSILON, UNIT_ROUNDOFF, ceil_interval, up_dyadic
from ..utils.constraints import FLAG, constrained
from ..utils.validation import Options, check_option, parameter_error
from ..mechanisms.discrete_argmax import discrete_argmax_law
from ..utils.exact import to_mpf
from .. import core
from ._constraints import COUNT_ROWS, GAMMA, ORDERS
from ..utils.votes import check_gamma_votes
from ._args import check_discrete_gamma

__all__ = ["NOISES", "check_noise", "lnmax_scale", "difference_tail", "difference_pmf",
           "discrete_lemma4_log_q", "discrete_lemma4_two_sided_log_q", "discrete_exact_log_q",
           "LOG_Q_MARGIN", "MIN_GAP", "FAST_MARGIN", "fast_log_miss_up", "fast_magnitude",
           "statistic_slack", "exact_log_q_rows", "fast_log_law_bounds", "neighbour_log_law_bounds",
           "discrete_exact_log_moments", "discrete_exact_analysis", "compiled_law_margins",
           "MAX_COMPILED_CLASSES", "MAX_COMPILED_GAMMA", "COMPILED_MARGIN_FACTOR"]

#: Noise laws of LNMax answers the analyses know: the exact discrete Laplace of
#: ``lnmax_labels(secure=True)`` and the real-valued Laplace of ``secure=False``.
NOISES = ("discrete", "continuous")
_NOISE = Options(NOISES)
#: Upper bound on ``computed log q - exact log q`` beyond the enclosures
#: (the float log-sum-exp of a row, rounded upward): ``LOG_Q_MARGIN (1 + |log q|)``.
LOG_Q_MARGIN = 2.0**-40
#: The exact statistics are reported only for queries whose top-two gap is at
#: least this (smaller gaps: +inf, i.e. the data-independent bound).
MIN_GAP = 3
_DPS = 30


def check_noise(noise, owner):
    """The noise law of the analysed LNMax answers: ``"discrete"`` or ``"continuous"``."""
    return check_option(noise, "noise", owner, _NOISE)


def lnmax_scale(gamma) -> Fraction:
    """The exact scale ``t`` of the discrete Laplace noise of ``lnmax_labels(secure=True)``.

    ``1/gamma`` (gamma at its exact binary value) rounded up to a 48-bit
    dyadic rational, so ``1/t <= gamma``.
    """
    return up_dyadic(1 / Fraction(float(gamma)))


def _p(t, ctx):
    return ctx.exp(-1 / to_mpf(Fraction(t), ctx))


def difference_pmf(k, t, ctx):
    """``P[Z' - Z = k]`` for i.i.d. discrete Laplace ``Z, Z'`` of scale ``t``, in context ``ctx``."""
    p = _p(t, ctx)
    k = abs(int(k))
    return ((1 - p) / (1 + p)) ** 2 * p ** k * (k + (1 + p * p) / (1 - p * p))


def difference_tail(g, t, ctx, *, log=False):
    """``P[Z' - Z >= g]`` for an integer ``g >= 0`` (closed form, module docstring), in context ``ctx``.

    With ``log=True`` its natural logarithm, computed without forming ``p**g``.
    """
    g = int(g)
    if g < 0:
        raise ValueError("difference_tail needs g >= 0")
    tm = to_mpf(Fraction(t), ctx)
    p = ctx.exp(-1 / tm)
    body = g * (1 - p * p) + 1 + p + 2 * p * p
    if log:
        return -ctx.mpf(g) / tm + ctx.log(body) - 3 * ctx.log(1 + p)
    return ctx.exp(-ctx.mpf(g) / tm) * body / (1 + p) ** 3


_TAILS: dict = {}
_TAILS_MAX = 1 << 18


def _log_tails_up(gaps, t: Fraction) -> list:
    """Doubles >= log t_d(g) for each gap (interval enclosures rounded up; one context per batch).

    The values are a pure function of ``(g, t)`` and are kept in a bounded cache.
    """
    out, missing = {}, []
    for g in gaps:
        v = _TAILS.get((g, t))
        if v is None:
            missing.append(g)
        else:
            out[g] = v
    if missing:
        ctx = iv_context(_DPS)
        for g in missing:
            out[g] = ceil_interval(difference_tail(g, t, ctx, log=True))
        if len(_TAILS) > _TAILS_MAX:
            _TAILS.clear()                    # another thread may clear too: results come from ``out``
        _TAILS.update(((g, t), out[g]) for g in missing)
    return [out[g] for g in gaps]


def _rows_lemma4(arr, t):
    """Rounded-up log of sum_{j != j*} t_d(n_{j*} - n_j) per row (vectorised log-sum-exp)."""
    q, c = arr.shape
    if c == 1:
        return np.full(q, -math.inf)
    rows = np.arange(q)
    star = np.argmax(arr, axis=1)
    gaps = arr[rows, star][:, None] - arr
    uniq, inv = np.unique(gaps, return_inverse=True)
    table = np.array(_log_tails_up([int(g) for g in uniq.tolist()], t))
    logs = table[inv.reshape(gaps.shape)]
    logs[rows, star] = -np.inf
    m = logs.max(axis=1)
    # np.exp is within a few ulps, the sum of c - 1 terms in [0, 1] within (c + 1) ulps of it:
    # the factor and the final margin (LOG_Q_MARGIN relative) cover both and the log's rounding.
    s = np.exp(logs - m[:, None]).sum(axis=1) * (1.0 + (c + 8) * MACHINE_EPSILON)
    out = m + np.log(s)
    return out + LOG_Q_MARGIN * (1.0 + np.abs(out))


def _top_two(arr):
    """(j*, runner-up, gap) per row (runner-up -1 and gap -1 for one class)."""
    star = np.argmax(arr, axis=1)
    if arr.shape[1] == 1:
        return star, np.full(arr.shape[0], -1), np.full(arr.shape[0], -1)
    rows = np.arange(arr.shape[0])
    others = arr.copy()
    others[rows, star] = -1
    runner = np.argmax(others, axis=1)
    return star, runner, arr[rows, star] - arr[rows, runner]


@constrained(counts=COUNT_ROWS, gamma=GAMMA)
def discrete_lemma4_log_q(counts, gamma):
    """Upper bound on ``log P[M(n) != j*]`` for the float-safe LNMax (discrete Lemma 4), per row.

    ``q_d(n) = sum_{j != j*} t_d(n_{j*} - n_j)`` with ``t_d`` the tail of the
    difference of two discrete Laplace draws of the scale actually used
    (:func:`lnmax_scale`); ``j*`` the first largest count.

    Parameters
    ----------
    counts : array_like of int, shape (Q, C) or (C,)
    gamma : float > 0

    Returns
    -------
    ndarray of float, shape (Q,)
        Rounded upward; ``-inf`` for one class.
    """
    return _rows_lemma4(counts, lnmax_scale(gamma))


@constrained(counts=COUNT_ROWS, gamma=GAMMA)
def discrete_lemma4_two_sided_log_q(counts, gamma):
    """Discrete Lemma 4 at the worst neighbour ``n^-`` (top-two gap >= 3); ``+inf`` for gaps <= 2.

    The largest discrete Lemma 4 ``q`` over ``n`` and all its neighbours
    (docs/theory/pate_discrete.rst, Lemma D3).
    """
    arr = counts
    star, runner, gap = _top_two(arr)
    moved = arr.copy()
    ok = gap >= MIN_GAP
    rows = np.flatnonzero(ok)
    moved[rows, star[rows]] -= 1
    moved[rows, runner[rows]] += 1
    out = _rows_lemma4(moved, lnmax_scale(gamma))
    out[(gap >= 0) & ~ok] = math.inf
    return out


@functools.lru_cache(maxsize=4096)
def _log_miss_up(row: tuple, star: int, t: Fraction) -> float:
    """A double >= log P[M(row) != star] for the exact discrete law (an interval context per call)."""
    ctx = iv_context(_DPS)
    p = discrete_argmax_law(list(row), t, ctx)
    miss = ctx.fsum(p[j] for j in range(len(row)) if j != star)
    return -math.inf if miss == 0 else ceil_interval(ctx.log(miss))


#: Rounding margin of the double-precision evaluation of the exact discrete law
#: (:func:`fast_log_miss_up`, :func:`fast_log_law_bounds`), applied as
#: ``FAST_MARGIN (1 + W)`` with ``W`` a public bound on the magnitude of every
#: logarithm summed: each term is formed with at most ``C + 10`` roundings of
#: numbers below ``W`` and the sums and logarithm add ``log2(Y) + 4`` more, so
#: the error is below ``(C + log2(Y) + 14) 2**-53 (1 + W)``, which this covers
#: for ``C <= MAX_FAST_CLASSES`` (docs/theory/pate_discrete.rst, "Evaluation").
FAST_MARGIN = 2.0**-40
#: Most classes for the double-precision path (above: the interval evaluation).
MAX_FAST_CLASSES = 4096
#: Truncation of the sum over the noisy maximum: ``K = ceil(TAIL_SCALES t) + 2``
#: values beyond the counts on each side (the truncated mass is bounded and added).
TAIL_SCALES = 45


def fast_magnitude(teachers: int, classes: int, t: Fraction) -> float:
    """Public bound ``W`` on |every logarithm| :func:`fast_log_miss_up` sums (a function of T, C and t)."""
    tf = float(t)
    k = math.ceil(TAIL_SCALES * tf) + 2
    return (teachers + 2 * k + 4) / tf * (classes + 2) + (classes + 2) * (2.0 + math.log(1.0 + 2.0 * tf))


def fast_log_miss_up(row: tuple, star: int, t: Fraction) -> float:
    """An upper bound on ``log P[M(row) != star]`` for the discrete LNMax law, in double precision.

    ``P[j wins] = sum_y f(y - n_j) prod_{i<j} F(y - n_i - 1) prod_{i>j} F(y - n_i)``
    with ``f(z) = N p^|z|`` and ``F(m) = P[Z <= m]`` (closed forms), summed
    over ``y`` within ``K`` of the counts (every term positive, in log
    space); the truncated mass is bounded in closed form and added. The
    result is raised by ``FAST_MARGIN (1 + W)`` (:func:`fast_magnitude`),
    far above the rounding of the O(C) operations per term and of the sums
    (docs/theory/pate_discrete.rst, "Evaluation"). Checked against the
    interval evaluation by ``pate.discrete_lnmax_analyses``.
    """
    a = np.asarray(row, dtype=np.float64)
    C = a.size
    tf = float(t)                                   # a 48-bit dyadic: exact
    inv = 1.0 / tf
    lp = -inv                                       # log p
    p = math.exp(lp)
    log1p_p = math.log1p(p)
    log_norm = math.log(-math.expm1(lp)) - log1p_p  # log N = log((1 - p)/(1 + p))
    top, low = float(a.max()), float(a.min())
    k = math.ceil(TAIL_SCALES * tf) + 2
    y = np.arange(low - k, top + k + 1.0)           # exact small integers

    def log_cdf(m):                                 # log P[Z <= m] for integer m (array)
        neg = m <= -1
        out = np.empty_like(m)
        out[neg] = (-m[neg]) * lp - log1p_p         # p^{-m} / (1 + p)
        mp = m[~neg]
        out[~neg] = np.log1p(-np.exp((mp + 1.0) * lp - log1p_p))
        return out

    G = np.stack([log_cdf(y - a[i]) for i in range(C)])          # F(y - n_i): i after the winner
    H = np.stack([log_cdf(y - a[i] - 1.0) for i in range(C)])    # F(y - n_i - 1): i before the winner
    zero = np.zeros((1, y.size))
    before = np.concatenate([zero, np.cumsum(H, axis=0)])        # sum_{i < j} H_i = before[j]
    after = np.concatenate([np.cumsum(G[::-1], axis=0)[::-1], zero])   # sum_{i >= j} G_i = after[j]
    terms, tails = [], []
    for j in range(C):
        if j == star:
            continue
        terms.append(log_norm - np.abs(y - a[j]) * inv + before[j] + after[j + 1])
        # truncated mass: above, f alone; below, f times the factor of the top class
        up = log_norm + (top + k + 1.0 - a[j]) * lp - math.log(-math.expm1(lp))
        down = (log_norm + (top + a[j] - 2.0 * (low - k - 1.0)) * lp - log1p_p
                - math.log(-math.expm1(2.0 * lp)))
        tails += [up, down]
    allv = np.concatenate(terms + [np.array(tails)])
    m = float(allv.max())
    if m == -math.inf:
        return -math.inf
    out = m + math.log(float(np.exp(allv - m).sum()))
    return out + FAST_MARGIN * (1.0 + fast_magnitude(int(a.sum()), C, t))


def _lower_tail(V, low, k, lp, log_norm, log1p_p):
    """Log of a bound on the mass of winner j's terms at y < low - k, for each row and winner of V.

    With the largest other count ``m_j = max_{i != j} n_i`` (C >= 2), the term
    is at most f(y - n_j) F(y - m_j) <= N p^{n_j - y} p^{m_j - y} / (1 + p)
    (``low`` <= every count, so y - m_j <= -1); summed over y: a geometric
    series of ratio p^2. With one class the term is f(y - n_j) alone.
    """
    if V.shape[1] == 1:
        return log_norm + (V - low + k + 1.0) * lp - math.log(-math.expm1(lp))
    rows = np.arange(V.shape[0])
    idx = np.argmax(V, axis=1)
    rest = V.copy()
    rest[rows, idx] = -np.inf
    other = np.repeat(V.max(axis=1)[:, None], V.shape[1], axis=1)
    other[rows, idx] = rest.max(axis=1)                 # max over i != j
    return (log_norm + (V + other - 2.0 * (low - k - 1.0)) * lp - log1p_p
            - math.log(-math.expm1(2.0 * lp)))


def fast_log_law_bounds(vectors, t: Fraction):
    """Lower and upper bounds on ``log P[M(n) = j]`` for each row ``n`` of ``vectors`` (discrete law).

    The double-precision sum of :func:`fast_log_miss_up` for every winner,
    vectorised over the rows (which share one window of ``y``): the lower
    bound leaves out the truncated mass, the upper bound adds its closed-form
    bound, and both are moved outward by ``FAST_MARGIN (1 + W)``.

    Parameters
    ----------
    vectors : ndarray of int64, shape (m, C)
        Count vectors with the same total.
    t : Fraction
        The noise scale (:func:`lnmax_scale`).

    Returns
    -------
    (lo, hi) : ndarrays of float, shape (m, C)
    """
    V = np.asarray(vectors, dtype=np.float64)
    m, C = V.shape
    tf = float(t)
    lp = -1.0 / tf
    log1p_p = math.log1p(math.exp(lp))
    log_norm = math.log(-math.expm1(lp)) - log1p_p
    top, low = float(V.max()), float(V.min())
    k = math.ceil(TAIL_SCALES * tf) + 2
    y = np.arange(low - k, top + k + 1.0)

    def log_cdf(mm):
        out = np.empty_like(mm)
        neg = mm <= -1
        out[neg] = (-mm[neg]) * lp - log1p_p
        out[~neg] = np.log1p(-np.exp((mm[~neg] + 1.0) * lp - log1p_p))
        return out

    D = y[None, None, :] - V[:, :, None]                         # (m, C, Y)
    G = log_cdf(D)
    H = log_cdf(D - 1.0)
    zero = np.zeros((m, 1, y.size))
    before = np.concatenate([zero, np.cumsum(H, axis=1)], axis=1)                 # sum_{i<j} H_i
    after = np.concatenate([np.cumsum(G[:, ::-1], axis=1)[:, ::-1], zero], axis=1)  # sum_{i>=j} G_i
    terms = log_norm - np.abs(D) / tf + before[:, :C] + after[:, 1:]
    mx = terms.max(axis=2)
    body = mx + np.log(np.exp(terms - mx[:, :, None]).sum(axis=2))
    up = log_norm + (top + k + 1.0 - V) * lp - math.log(-math.expm1(lp))
    hi = np.logaddexp(body, np.logaddexp(up, _lower_tail(V, low, k, lp, log_norm, log1p_p)))
    margin = FAST_MARGIN * (1.0 + fast_magnitude(int(V[0].sum()), C, t))
    return body - margin, hi + margin


def neighbour_log_law_bounds(row, t: Fraction):
    """:func:`fast_log_law_bounds` of ``row`` and of every neighbour of it, by low-rank updates.

    A neighbour moves one vote from ``a`` to ``b``; for a winner ``j`` its
    log-term at ``y`` is ``row``'s plus the change of ``a``'s factor and of
    ``b``'s factor (each a shift by one of the same closed forms). With
    ``w_j(y)`` the weights of ``row``'s terms (scaled by their maximum) and
    ``R-_a(y)``, ``R+_b(y)`` the two factors' ratios (between ``p`` and
    ``1/p``), ``sum_y w_j R-_a R+_b`` is entry ``(a, b)`` of the matrix
    product ``R- diag(w_j) R+^T``: every term positive, as in the direct sum.

    Returns
    -------
    moves : list of (a, b)
    lo, hi : ndarrays, shape (1 + len(moves), C)
        Row 0 is ``row`` itself, row ``1 + k`` the neighbour of ``moves[k]``.
    """
    n = np.asarray(row, dtype=np.float64)
    C = n.size
    tf = float(t)
    lp = -1.0 / tf
    log1p_p = math.log1p(math.exp(lp))
    log_norm = math.log(-math.expm1(lp)) - log1p_p
    top, low = float(n.max()) + 1.0, float(n.min()) - 1.0
    k = math.ceil(TAIL_SCALES * tf) + 2
    y = np.arange(low - k, top + k + 1.0)
    moves = [(a, b) for a in range(C) for b in range(C) if a != b and n[a] >= 1]

    def log_cdf(mm):
        out = np.empty_like(mm)
        neg = mm <= -1
        out[neg] = (-mm[neg]) * lp - log1p_p
        out[~neg] = np.log1p(-np.exp((mm[~neg] + 1.0) * lp - log1p_p))
        return out

    D = y[None, :] - n[:, None]                                  # (C, Y)
    # log F(y - n_i - s) for s = -1, 0, 1, 2: G = F(y - n_i), H = F(y - n_i - 1); a count one
    # lower shifts the argument up by one, one higher shifts it down
    Fs = {s: log_cdf(D - s) for s in (-1, 0, 1, 2)}
    logf = {s: log_norm - np.abs(D - s) / tf for s in (-1, 0, 1)}
    lo = np.empty((1 + len(moves), C))
    hi = np.empty((1 + len(moves), C))
    margin = FAST_MARGIN * (1.0 + fast_magnitude(int(n.sum()), C, t))
    ia = np.array([a for a, _ in moves], dtype=np.int64)
    ib = np.array([b for _, b in moves], dtype=np.int64)
    for j in range(C):
        before = np.arange(C) < j
        L = np.where(before[:, None], Fs[1], Fs[0])              # factor of i (i != j) at the row
        L[j] = logf[0][j]                                        # the winner's own density
        T = L.sum(axis=0)
        m = float(T.max())
        w = np.exp(T - m)
        # ratios when a loses a vote (argument y - (n_a - 1)) and when b gains one
        Lminus = np.where(before[:, None], Fs[0], Fs[-1])
        Lminus[j] = logf[-1][j]
        Lplus = np.where(before[:, None], Fs[2], Fs[1])
        Lplus[j] = logf[1][j]
        Rm = np.exp(Lminus - L)
        Rp = np.exp(Lplus - L)
        M = (Rm * w[None, :]) @ Rp.T                             # (C, C): sum_y w R-_a R+_b
        body0 = m + math.log(float(w.sum()))
        lo[0, j], hi[0, j] = body0, body0
        if moves:
            body = m + np.log(M[ia, ib])
            lo[1:, j], hi[1:, j] = body, body
    # truncated mass, added to the upper bounds (as in fast_log_law_bounds)
    V = np.vstack([n[None, :]] + [n + np.eye(C)[b] - np.eye(C)[a] for a, b in moves])
    up = log_norm + (top + k + 1.0 - V) * lp - math.log(-math.expm1(lp))
    hi = np.logaddexp(hi, np.logaddexp(up, _lower_tail(V, low, k, lp, log_norm, log1p_p)))
    return moves, lo - margin, hi + margin


@constrained(counts=COUNT_ROWS, gamma=GAMMA, orders=ORDERS)
def discrete_exact_log_moments(counts, gamma, orders=None):
    """Exact worst-case log-moments of float-safe LNMax answers over every neighbour, rounded upward.

    For each query with counts ``n`` and every neighbour ``n'`` (one vote
    moved), ``alpha(lambda; n, n') = log sum_o P(o) (P(o)/P'(o))**lambda``
    and the reverse, with ``P, P'`` the discrete LNMax laws (lower and upper
    bounds on each ``log P``; each exponent is formed from the upper bound of
    the numerator's and the lower bound of the denominator's log). No move is
    merged (the tie rule makes the classes' positions matter). Computed by the
    compiled kernel (:func:`discrete_exact_analysis`) up to
    ``MAX_COMPILED_CLASSES`` classes and ``gamma <= MAX_COMPILED_GAMMA``,
    otherwise by :func:`neighbour_log_law_bounds` in NumPy.

    Parameters
    ----------
    counts : array_like of int, shape (Q, C) or (C,)
    gamma : float > 0
    orders : array_like of float > 0, optional

    Returns
    -------
    (forward, both) : ndarrays, shape (Q, K)
        ``max_{n'} alpha(lambda; n, n')`` and the maximum over both directions.
    """
    return discrete_exact_analysis(counts, gamma, orders, owner="discrete_exact_log_moments")[2:]


#: Most classes and largest gamma of the compiled evaluation (beyond: NumPy, or the
#: interval evaluation above MAX_FAST_CLASSES classes).
MAX_COMPILED_CLASSES = 128
MAX_COMPILED_GAMMA = 256.0
#: The compiled evaluation raises its log-laws by ``COMPILED_MARGIN_FACTOR * FAST_MARGIN (1 + W)
#: + 2**-52 (Y + C + 16)`` (docs/theory/pate_discrete.rst, "Compiled evaluation").
COMPILED_MARGIN_FACTOR = 3.0


def compiled_law_margins(arr, t: Fraction):
    """Per row of a checked (Q, C) int64 array: the margin of the compiled log-law bounds."""
    C = arr.shape[1]
    tf = float(t)
    k = math.ceil(TAIL_SCALES * tf) + 2
    # fast_magnitude(T, C, t) of every row, the same operations in the same order (integers below
    # 2**53 convert exactly), so the same doubles as the per-row formula
    totals = arr.sum(axis=1) + (2 * k + 4)
    spreads = (arr.max(axis=1) - arr.min(axis=1)) + (2 * k + 3 + C + 16)
    mag = totals.astype(np.float64) / tf * (C + 2) + (C + 2) * (2.0 + math.log(1.0 + 2.0 * tf))
    return COMPILED_MARGIN_FACTOR * FAST_MARGIN * (1.0 + mag) + 2.0**-52 * spreads.astype(np.float64)


def discrete_exact_analysis(arr, gamma, orders, *, n_threads=None, owner="exact_analysis"):
    """(log_q, log_q_two_sided, forward, both) of checked counts, every value rounded upward.

    The exact analyses of the float-safe LNMax in one pass per query: the
    laws of ``n`` and of all its neighbours (:func:`refdp.core.discrete_exact_rows`,
    compiled, nogil, rows split among ``n_threads`` threads), ``log q`` and its
    two-sided counterpart (``+inf`` where the top-two gap is below
    ``MIN_GAP``, ``-inf`` for one class), and the worst-case log-moments
    forward and in both directions. Each value is at least the value of the
    evaluation it replaced (:func:`neighbour_log_law_bounds` and
    :func:`discrete_exact_log_q`; docs/theory/pate_discrete.rst, "Compiled
    evaluation"). Outside the kernel's range (more than
    ``MAX_COMPILED_CLASSES`` classes, ``gamma > MAX_COMPILED_GAMMA``) the
    NumPy evaluation runs.
    """
    check_gamma_votes(gamma, arr, owner)
    check_discrete_gamma(gamma, owner)
    if arr.shape[1] > MAX_FAST_CLASSES:
        raise parameter_error("counts", owner, f"an array with at most {MAX_FAST_CLASSES} classes", arr)
    t = lnmax_scale(gamma)
    if arr.shape[1] > MAX_COMPILED_CLASSES or gamma > MAX_COMPILED_GAMMA:
        fwd, both = _numpy_exact_log_moments(arr, t, orders)
        lq = exact_log_q_rows(arr, False, lambda n, s: _fast_cached(n, s, t))
        lq2 = exact_log_q_rows(arr, True, lambda n, s: _fast_cached(n, s, t))
        return lq, lq2, fwd, both
    k = math.ceil(TAIL_SCALES * float(t)) + 2
    return core.discrete_exact_rows(arr, t, k, compiled_law_margins(arr, t), orders, n_threads=n_threads)


def _numpy_exact_log_moments(arr, t, orders):
    """The NumPy evaluation of the worst-case log-moments (:func:`neighbour_log_law_bounds` per row)."""
    lam = orders[None, None, :]
    fwd = np.zeros((arr.shape[0], orders.size))
    both = np.zeros((arr.shape[0], orders.size))
    u = UNIT_ROUNDOFF
    for r, row in enumerate(arr.tolist()):
        moves, lo, hi = neighbour_log_law_bounds(row, t)
        if not moves:
            continue
        big = float(np.max(np.abs(np.concatenate([lo, hi]))))
        # exponents (lambda + 1) log P(o) - lambda log P'(o), upper bounds, shape (moves, C, K)
        e_f = (lam + 1.0) * hi[0][None, :, None] - lam * lo[1:][:, :, None]
        e_r = (lam + 1.0) * hi[1:][:, :, None] - lam * lo[0][None, :, None]
        a_f = _lse(e_f)
        a_r = _lse(e_r)
        margin = 8.0 * u * (2.0 * orders + 2.0) * (1.0 + big)
        f = np.maximum(a_f.max(axis=0), 0.0) + margin + 16.0 * u * np.abs(a_f.max(axis=0))
        b = np.maximum(np.maximum(a_f, a_r).max(axis=0), 0.0)
        fwd[r] = f
        both[r] = b + margin + 16.0 * u * b
    return fwd, both


def _lse(e):
    """log sum exp over axis 1 of an array (moves, C, K)."""
    mx = e.max(axis=1)
    return mx + np.log(np.exp(e - mx[:, None, :]).sum(axis=1))


def statistic_slack(statistic, teachers, classes, gamma, span):
    """Public bound on how much rounding can add to the change of a computed discrete statistic.

    Every computed ``log q`` exceeds the exact one by at most
    ``LOG_Q_MARGIN (1 + |log q|)`` (Lemma 4, and the enclosures) plus, for the
    exact statistic, ``FAST_MARGIN (1 + W)``; after clamping to a range of
    magnitude at most ``span`` the change between two vote vectors is
    therefore larger than the exact change by at most the returned value.
    """
    out = 4.0 * LOG_Q_MARGIN * (1.0 + 2.0 * span)
    if statistic == "exact":
        out += 2.0 * FAST_MARGIN * (1.0 + fast_magnitude(int(teachers), int(classes), lnmax_scale(gamma)))
    return out


@functools.lru_cache(maxsize=65536)
def _fast_cached(row: tuple, star: int, t: Fraction) -> float:
    return fast_log_miss_up(row, star, t)


def exact_log_q_rows(arr, two_sided, log_miss):
    """:func:`discrete_exact_log_q` on a checked (Q, C) int64 array.

    ``log_miss(n, s)`` returns a double >= ``log P[M(n) != s]`` for a tuple
    ``n`` of counts (so that callers can supply their own enclosures).
    """
    star, _, gap = _top_two(arr)
    out = np.empty(arr.shape[0])
    for r, row in enumerate(arr.tolist()):
        s = int(star[r])
        if gap[r] < 0:
            out[r] = -math.inf
            continue
        if gap[r] < MIN_GAP:
            out[r] = math.inf
            continue
        if not two_sided:
            out[r] = log_miss(tuple(row), s)
            continue
        best, seen = -math.inf, set()
        for b in range(len(row)):
            if b == s or (row[b], b < s) in seen:
                continue
            seen.add((row[b], b < s))                    # classes on one side of j* with equal counts are exchangeable
            moved = list(row)
            moved[s] -= 1
            moved[b] += 1
            best = max(best, log_miss(tuple(moved), s))
        out[r] = best
    return out


@constrained(counts=COUNT_ROWS, gamma=GAMMA, two_sided=FLAG, certified=FLAG)
def discrete_exact_log_q(counts, gamma, *, two_sided=True, certified=False):
    """``log P[M(n) != j*]`` from the exact law of the float-safe LNMax, rounded upward, per row.

    Parameters
    ----------
    counts : array_like of int, shape (Q, C) or (C,)
    gamma : float > 0
    two_sided : bool, default True
        ``max`` over ``n`` and its neighbours: the maximum over the moves of one
        vote from ``j*`` to each other class ``b`` (docs/theory/pate_discrete.rst,
        Lemma D5).
    certified : bool, default False
        Enclose each law in interval arithmetic (``discrete_argmax_law``,
        about 0.1 s per law at C = 10) instead of the double-precision sum
        with a rounding margin (:func:`fast_log_miss_up`, about 1 ms; used
        for at most ``MAX_FAST_CLASSES`` classes).

    Returns
    -------
    ndarray of float, shape (Q,)
        ``+inf`` where the top-two gap is at most 2 (the analyses then use the
        data-independent bound), ``-inf`` for one class.

    Notes
    -----
    Cost: one law per row (one-sided) or one per distinct (count, side of
    ``j*``) of the other classes (two-sided). The rounded-up values are
    cached per (counts, class, scale): a pure function of its arguments.
    """
    check_gamma_votes(gamma, counts, "discrete_exact_log_q")
    check_discrete_gamma(gamma, "discrete_exact_log_q")
    t = lnmax_scale(gamma)
    miss = _log_miss_up if certified or counts.shape[1] > MAX_FAST_CLASSES else _fast_cached
    return exact_log_q_rows(counts, two_sided, lambda n, s: miss(n, s, t))
