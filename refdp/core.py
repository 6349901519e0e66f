r"""The Python side of refdp's compiled code: the one layer between it and the rest of refdp.

Every compiled module ``refdp/_<name>.pyx`` (``_core``, ``_lnmax``, ``_fft``)
is imported here and nowhere else in the package; its pure-Python twin is
``refdp/twins/<name>.py``, with each twin function named as the kernel it
mirrors (``docs/kernels.rst`` lists kernel, twin, wrapper, users and the
test that compares them).

The public functions (``__all__``) check their arguments (one message shape,
see :mod:`refdp.utils.validation`), arrange memory (contiguity, sorting of
queries) and call the kernels in :mod:`refdp._core`, which run with the GIL
released. They contain no loops over data. The same kernels are available to
Cython code via ``cimport refdp._core`` (see ``refdp/_core.pxd``).

The functions after them (not in ``__all__``) serve refdp's own modules,
which validate first: the exact integer samplers, the LNMax law and the FFT.
Each runs the compiled kernel, or its twin where the twin is the reference
(parameters beyond the kernel's fixed width, a build without the extension,
or a caller asking for it); kernel and twin give the same results.

References
----------
.. [DF18] C\. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018, Sec. 5.
.. [PATE17] N\. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Theorems 1-3 and Lemma 4.
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _core, _fft
from .twins import core as _core_twin
from .twins import erm as _erm_twin
from .twins import fft as _fft_twin
from .twins import lnmax as _lnmax_twin

try:  # pragma: no cover - depends on the build
    from . import _lnmax
except ImportError:  # pragma: no cover
    _lnmax = None
try:  # pragma: no cover - depends on the build
    from . import _erm
except ImportError:  # pragma: no cover
    _erm = None
from .utils.validation import Described, Interval, check_array, check_scalar, parameter_error
from .utils.validation import POSITIVE

__all__ = [
    "projected_walk_log_odds",
    "count_votes",
    "laplace_difference_tail",
    "lemma4_log_q",
    "accountant_log_moments",
    "logsumexp",
]

_POSITIVE = POSITIVE
_REAL = Interval(float, None, None)


def projected_walk_log_odds(x, steps, queries, *, lower, upper, start=0.0):
    """Final log-odds of the exponential projected walk for many queries in one sweep.

    Implements the sweep of [DF18]_ Sec. 5: for each query v,
    start at ``start`` and, for each training record i with ``x[i] <= v`` in the
    given order, set ``l = clip(l + steps[i], lower, upper)``. The queries are
    sorted once, so the cost is O(n + q log q) rather than O(n q).

    Parameters
    ----------
    x : array_like of float, shape (n,)
        Training points, sorted ascending (ties in the order the caller's tie
        rule fixes; the kernel never reorders them).
    steps : array_like of float, shape (n,)
        Signed step of each record (e.g. ``s * (2 y - 1)``).
    queries : array_like of float, shape (q,)
        Query points in any order.
    lower, upper : float
        The projection interval of the log-odds, ``lower <= start <= upper``.
    start : float, default 0.0
        Initial log-odds.

    Returns
    -------
    ndarray of float, shape (q,)
        Log-odds per query, in the order of ``queries``.
    """
    owner = "projected_walk_log_odds"
    x = check_array(x, "x", owner, ndim=1)
    steps = check_array(steps, "steps", owner, shape=(x.shape[0],))
    queries = check_array(queries, "queries", owner, ndim=1)
    lower = check_scalar(lower, "lower", owner, _REAL)
    upper = check_scalar(upper, "upper", owner, Interval(float, lower, None))
    start = check_scalar(start, "start", owner, Interval(float, lower, upper))
    if x.size > 1 and np.any(x[1:] < x[:-1]):
        i = int(np.argmax(x[1:] < x[:-1])) + 1
        raise parameter_error("x", owner, "sorted in ascending order",
                              Described(f"{x[i]!r} after {x[i - 1]!r} at position {i}"))
    order = np.argsort(queries)  # equal queries get equal answers: stability is not needed
    sorted_out = _core._py_projected_walk_log_odds(
        np.ascontiguousarray(x), np.ascontiguousarray(steps),
        np.ascontiguousarray(queries[order]), start, lower, upper)
    out = np.empty_like(sorted_out)
    out[order] = sorted_out
    return out


def count_votes(votes, n_classes):
    """Count teacher votes per query and class.

    Parameters
    ----------
    votes : array_like of int, shape (n_teachers, n_queries)
        ``votes[t, q]`` is teacher t's label for query q; any integer dtype.
    n_classes : int
        Number of classes C; every vote must lie in ``[0, C)``.

    Returns
    -------
    ndarray of int64, shape (n_queries, n_classes)
        ``counts[q, c] = #{t : votes[t, q] == c}`` ([PATE17]_ Sec. 2.1).

    Raises
    ------
    ValueError
        If a vote lies outside ``[0, n_classes)``; the message names the first
        such position in C order, ``(teacher, query)``.
    """
    return _count_votes(votes, n_classes, "count_votes", "votes")


def _count_votes(votes, n_classes, owner, name):
    """:func:`count_votes` with errors naming the caller's ``owner`` and parameter ``name``."""
    n_classes = check_scalar(n_classes, "n_classes", owner, Interval(int, 1, None))
    raw = np.asarray(votes)
    if raw.dtype.kind == "u" and raw.ndim == 2 and raw.size and int(raw.max()) >= n_classes:
        # unsigned votes are compared as they are (uint64 labels beyond int64 are out of range
        # labels, reported like any other, not int64 overflows)
        t, q = divmod(int(np.argmax(raw.ravel() >= n_classes)), raw.shape[1])
        raise parameter_error(
            name, owner, f"an array of labels in [0, {n_classes})",
            Described(f"{raw[t, q].item()} at position (teacher={t}, query={q})"))
    votes = check_array(votes, name, owner, ndim=2, dtype="integer")
    votes = np.ascontiguousarray(votes)
    if votes.dtype.byteorder not in ("=", "|"):
        votes = votes.astype(votes.dtype.newbyteorder("="))
    counts, bad = _core._py_count_votes(votes, n_classes)
    if bad >= 0:
        t, q = divmod(int(bad), votes.shape[1])
        raise parameter_error(
            name, owner, f"an array of labels in [0, {n_classes})",
            Described(f"{votes[t, q].item()} at position (teacher={t}, query={q})"))
    return counts


def laplace_difference_tail(gap, gamma, *, log=False):
    """Exact tail P[Y - X > gap] for X, Y i.i.d. Laplace(1/gamma) and gap >= 0.

    Equals ``(2 + gamma * gap) / (4 * exp(gamma * gap))`` ([PATE17]_ Lemma 4).

    Parameters
    ----------
    gap : array_like of float, gap >= 0
    gamma : float > 0
        Inverse Laplace scale.
    log : bool, default False
        Return the natural log of the tail.
    """
    owner = "laplace_difference_tail"
    gamma = check_scalar(gamma, "gamma", owner, _POSITIVE)
    g = check_array(gap, "gap", owner, interval=Interval(float, 0, None))
    lt = _core._py_laplace_difference_log_tail(np.ascontiguousarray(g.ravel()), gamma).reshape(g.shape)
    out = lt if log else np.exp(lt)
    return out if out.ndim else float(out)


def lemma4_log_q(counts, gamma):
    """Log of PATE Lemma 4's bound q on P[LNMax(counts) != argmax counts], per row.

    q = sum_{j != j*} (2 + gamma (n_{j*} - n_j)) / (4 exp(gamma (n_{j*} - n_j)))
    ([PATE17]_ Lemma 4), computed in log space and rounded upward so that the
    returned value is never below the exact one.

    Parameters
    ----------
    counts : array_like of int, shape (n_queries, n_classes)
    gamma : float > 0

    Returns
    -------
    ndarray of float, shape (n_queries,)
        ``log q`` (``-inf`` when there is a single class).
    """
    owner = "lemma4_log_q"
    gamma = check_scalar(gamma, "gamma", owner, _POSITIVE)
    counts = check_array(counts, "counts", owner, ndim=2, dtype="integer",
                         interval=Interval(int, 0, None))
    if counts.shape[1] < 1:
        raise parameter_error("counts", owner, "an array with at least one class column", counts)
    if counts.size and not np.isfinite(gamma * float(counts.max())):
        # gamma * gap would overflow to inf and the kernel's log-tail to NaN
        raise parameter_error("gamma", owner, "such that gamma * max(counts) is finite",
                              Described(f"{gamma!r} with max(counts) = {int(counts.max())}"))
    return _core._py_lemma4_log_q(np.ascontiguousarray(counts, dtype=np.int64), gamma)


def accountant_log_moments(log_q, orders, gamma):
    """Composed log-moment bound of T LNMax queries, per order ([PATE17]_ Thm 1-3).

    For each order lambda returns an upper bound (rounded upward) of
    ``sum_i min(2 gamma^2 lambda (lambda + 1), 2 gamma lambda, Thm3(q_i, lambda))``
    where Theorem 3,
    ``ln((1 - q)((1 - q)/(1 - e^{2 gamma} q))^lambda + q e^{2 gamma lambda})``,
    is applied only within its validity range ``q < (e^{2 gamma} - 1)/(e^{4 gamma} - 1)``.

    Parameters
    ----------
    log_q : array_like of float, shape (n_queries,)
        Log of a valid upper bound q_i on P[M(d) != o*] for each query
        (e.g. from :func:`lemma4_log_q`); ``-inf`` allowed, and values
        ``>= 0`` (a vacuous q >= 1, as Lemma 4 gives for ties) simply fall
        outside Theorem 3's range.
    orders : array_like of float, shape (n_orders,)
        Positive moment orders lambda.
    gamma : float > 0
        LNMax noise parameter (Laplace scale 1/gamma).

    Returns
    -------
    ndarray of float, shape (n_orders,)
    """
    owner = "accountant_log_moments"
    gamma = check_scalar(gamma, "gamma", owner, _POSITIVE)
    log_q = check_array(log_q, "log_q", owner, ndim=1, finite=False)
    if np.isnan(log_q).any():
        i = int(np.argmax(np.isnan(log_q)))
        raise parameter_error("log_q", owner, "an array of logs of upper bounds q_i (not NaN)",
                              Described(f"nan at position ({i},)"))
    orders = check_array(orders, "orders", owner, ndim=1, min_size=1,
                         interval=POSITIVE)
    return _core._py_accountant_log_moments(np.ascontiguousarray(log_q),
                                            np.ascontiguousarray(orders), gamma)


def logsumexp(x):
    """Numerically stable ``log(sum(exp(x)))`` in one compiled pass.

    Returns ``-inf`` for empty input or all ``-inf``, ``inf`` if any entry is
    ``inf`` and NaN if any entry is NaN.
    """
    x = check_array(x, "x", "logsumexp", finite=False).ravel()
    return float(_core._py_logsumexp(np.ascontiguousarray(x)))


# ---------------------------------------------------------------------------
# Entry points for refdp's own modules (not public API: the caller validates).
# ---------------------------------------------------------------------------

def _over_slices(cuts, run):
    """``run(a, b)`` for each pair of consecutive ``cuts``, one thread each; each output concatenated in row order.

    The compiled kernels treat every row (or block of rows) independently, so
    the result does not depend on the cuts.
    """
    with ThreadPoolExecutor(max_workers=len(cuts) - 1) as pool:
        parts = list(pool.map(lambda ab: run(*ab), zip(cuts[:-1], cuts[1:])))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(len(parts[0])))


# PATE accountant (refdp/_core.pyx sections 3 and 4; twins in refdp/twins/core.py), for callers
# that validated their arguments (counts: int64 (Q, C), C >= 1; gamma finite > 0; log_q without
# NaN; orders finite > 0, non-empty).

def lemma4_log_q_of(counts, gamma, *, compiled=True):
    """:func:`lemma4_log_q` without its argument checks (the caller made them)."""
    if not compiled:
        return _core_twin.lemma4_log_q(counts, gamma)
    return _core._py_lemma4_log_q(np.ascontiguousarray(counts, dtype=np.int64), gamma)


def lemma4_log_q_pair(counts, gamma, *, compiled=True):
    """(Lemma 4's log q, its two-sided counterpart) per row, in one pass over the counts.

    The second is Lemma 4 at the row with one vote moved from the plurality
    class to the runner-up when their gap is at least 3, ``+inf`` for gaps
    0..2, ``-inf`` for one class (:func:`refdp.pate.accountant.lemma4_two_sided_log_q`).
    """
    if not compiled:
        return _core_twin.lemma4_log_q_pair(counts, gamma)
    return _core._py_lemma4_log_q_pair(np.ascontiguousarray(counts, dtype=np.int64), gamma)


def accountant_log_moments_of(log_q, orders, gamma, *, compiled=True):
    """:func:`accountant_log_moments` without its argument checks (the caller made them)."""
    if not compiled:
        return _core_twin.accountant_log_moments(log_q, orders, gamma)
    return _core._py_accountant_log_moments(np.ascontiguousarray(log_q, dtype=np.float64),
                                            np.ascontiguousarray(orders, dtype=np.float64), gamma)


# Exact integer samplers (refdp/_core.pyx section 5; twins in refdp/twins/core.py).

_U64 = 1 << 64
_U128 = 1 << 128
_INT64_MAX = (1 << 63) - 1

#: The twins' word source (``next_uint64`` words of a bit generator as Python ints).
word_source = _core_twin.word_source


def uniform_below_draw(bit_generator, n):
    """One uniform integer on ``[0, n)``, ``n >= 1``: the kernel below ``2**128``, else the twin."""
    if n < _U128:
        return int(_core._py_uniform_below(bit_generator, n, 1)[0])
    return _core_twin.uniform_below(word_source(bit_generator), n)


def bernoulli_exp_draw(bit_generator, num, den):
    """One Bernoulli(exp(-num / den)) draw, ``num >= 0``, ``den >= 1``, exactly."""
    if num < _U64 and den < _U64:
        return int(_core._py_bernoulli(bit_generator, num, den, 1, True)[0])
    return _core_twin.bernoulli_exp(word_source(bit_generator), num, den)


def geometric_exp_draw(bit_generator, num, den):
    """One ``Y >= 0`` with ``P[Y = y]`` proportional to ``exp(-y num / den)``, ``num, den >= 1``."""
    if num < _U64 and den < _U64:
        return int(_core._py_geometric_exp(bit_generator, num, den, 1)[0])
    return _core_twin.geometric_exp(word_source(bit_generator), num, den)


def discrete_laplace_draws(bit_generator, s, t, n):
    """``n`` i.i.d. draws of Lap_Z(t/s) (``s, t >= 1`` ints): int64, or object array of ints."""
    if s < _U64 and t < _U64:
        return _core._py_discrete_laplace(bit_generator, s, t, n)
    words = word_source(bit_generator)
    return compact_integers([_core_twin.discrete_laplace(words, s, t) for _ in range(n)])


def discrete_gaussian_draws(bit_generator, a, b, n):
    """``n`` i.i.d. draws of N_Z(0, a/b) (``a, b >= 1`` ints): int64, or object array of ints."""
    t = math.isqrt(a // b) + 1
    if b * t < _U64 and 2 * a * b * t * t < _U128:
        return _core._py_discrete_gaussian(bit_generator, a, b, t, n)
    words = word_source(bit_generator)
    return compact_integers([_core_twin.discrete_gaussian(words, a, b) for _ in range(n)])


def compact_integers(values) -> np.ndarray:
    """A 1-D int64 array if every value fits, else an object array of Python ints."""
    if all(-_INT64_MAX <= v <= _INT64_MAX for v in values):
        return np.array(values, dtype=np.int64).reshape(len(values))
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


# LNMax law and exact analysis (refdp/_lnmax.pyx; twin refdp/twins/lnmax.py).

#: True when the compiled LNMax kernels are available (otherwise the twin runs,
#: about a thousand times slower).
LNMAX_COMPILED = _lnmax is not None
#: Relative error assumed on every probability the LNMax kernels compute.
LNMAX_ETA = _lnmax_twin.ETA

_GL_FALLBACK = tuple(np.asarray(v, dtype=np.float64) for v in _lnmax_twin.gl_rule(_lnmax_twin.GL_M))
_GL_RIGHT = {}


def lnmax_gl_tables(n_classes):
    """(fallback nodes, weights, right-piece nodes, weights) for ``n_classes`` classes."""
    m = (int(n_classes) + 1) // 2
    if m not in _GL_RIGHT:
        _GL_RIGHT[m] = tuple(np.asarray(v, dtype=np.float64) for v in _lnmax_twin.gl_rule(max(m, 1)))
    return _GL_FALLBACK + _GL_RIGHT[m]


def lnmax_log_law_rows(counts, gamma, *, use_compiled=None):
    """Log-probabilities of LNMax for every row of a validated int64 (Q, C) array."""
    use = LNMAX_COMPILED if use_compiled is None else use_compiled
    if use:
        return _lnmax._py_lnmax_log_law(counts, gamma, *lnmax_gl_tables(counts.shape[1]))
    rule = _lnmax_twin.gl_rule(_lnmax_twin.GL_M)
    return np.array([_lnmax_twin.lnmax_log_law(row, gamma, rule) for row in counts.tolist()],
                    dtype=np.float64).reshape(counts.shape)


def lnmax_exact_rows(counts, gamma, orders, *, n_threads=None, use_compiled=None):
    """Per row: (log_q, log_q2, alpha_forward, alpha_both, max_abs_log), not rounded.

    The log-moments are evaluated along the chain of orders
    (``refdp.twins.lnmax.order_chain``; their margin is
    ``refdp.pate.exact._chain_margin``). The compiled path splits the rows among ``n_threads`` threads (default:
    the number of CPUs); each row is computed independently, so the result
    does not depend on the split.
    """
    use = LNMAX_COMPILED if use_compiled is None else use_compiled
    n, K = counts.shape[0], orders.shape[0]
    chain = _lnmax_twin.order_chain(orders.tolist())      # the log-moments along the chain of orders
    if not use:
        rule = _lnmax_twin.gl_rule(_lnmax_twin.GL_M)
        out = [_lnmax_twin.lnmax_exact_query(row, gamma, orders.tolist(), rule, chain)
               for row in counts.tolist()]
        return (np.array([o[0] for o in out], dtype=np.float64),
                np.array([o[1] for o in out], dtype=np.float64),
                np.array([o[2] for o in out], dtype=np.float64).reshape(n, K),
                np.array([o[3] for o in out], dtype=np.float64).reshape(n, K),
                np.array([o[4] for o in out], dtype=np.float64))
    tables = lnmax_gl_tables(counts.shape[1])
    threads = (os.cpu_count() or 1) if n_threads is None else int(n_threads)
    threads = max(1, min(threads, n // 32 + 1))
    if threads == 1:
        return _lnmax._py_lnmax_exact(counts, gamma, orders, *tables, *chain)
    return _over_slices(np.linspace(0, n, threads + 1).astype(np.int64), lambda a, b: _lnmax._py_lnmax_exact(
        np.ascontiguousarray(counts[a:b]), gamma, orders, *tables, *chain))


def discrete_exact_rows(counts, t, k, margins, orders, *, n_threads=None, use_compiled=None, prune=True):
    """Float-safe LNMax (discrete noise of scale ``t``): per row (log_q, log_q2, forward, both), rounded up.

    ``counts`` a validated int64 (Q, C) array, ``k`` the window beyond the
    counts, ``margins`` each row's log-law margin (float64, shape (Q,)). The
    compiled path splits the rows among ``n_threads`` threads (default: the
    number of CPUs); each row is computed independently, so the result does
    not depend on the split. ``use_compiled=False`` runs the twin
    (refdp.twins.lnmax.discrete_exact_query, same operations). ``prune=False``
    evaluates the log-moments of every move in full instead of skipping those
    provably below the maximum: the same doubles, more slowly (for tests and
    benchmarks).
    """
    use = LNMAX_COMPILED if use_compiled is None else use_compiled
    n, K = counts.shape[0], orders.shape[0]
    spread = int((counts.max(axis=1) - counts.min(axis=1)).max()) if n else 0
    tab, mlo, consts = _lnmax_twin.discrete_tables(t, spread, k)
    sidx, steps, sfrom = _lnmax_twin.order_chain(orders.tolist())
    if not use:
        out = [_lnmax_twin.discrete_exact_query(row, k, tab, mlo, consts, float(m), orders.tolist(), (sidx, steps, sfrom),
                                                prune=prune)
               for row, m in zip(counts.tolist(), margins.tolist())]
        return (np.array([o[0] for o in out], dtype=np.float64),
                np.array([o[1] for o in out], dtype=np.float64),
                np.array([o[2] for o in out], dtype=np.float64).reshape(n, K),
                np.array([o[3] for o in out], dtype=np.float64).reshape(n, K))
    threads = (os.cpu_count() or 1) if n_threads is None else int(n_threads)
    threads = max(1, min(threads, n // 8 + 1))
    if threads == 1:
        return _lnmax._py_discrete_exact(counts, tab, mlo, k, consts, margins, orders, sidx, steps, sfrom, prune)
    return _over_slices(np.linspace(0, n, threads + 1).astype(np.int64), lambda a, b: _lnmax._py_discrete_exact(
        np.ascontiguousarray(counts[a:b]), tab, mlo, k, consts, np.ascontiguousarray(margins[a:b]), orders,
        sidx, steps, sfrom, prune))


# Radix-2 FFT (refdp/_fft.pyx; twin refdp/twins/fft.py).

def fft_inplace(re, im, wr, wi, perm, *, compiled=True):
    """Forward FFT of the float64 arrays ``re + i im`` in place; returns ``(re, im)``.

    ``perm`` is the bit-reversal permutation (int64) and ``wr + i wi`` the
    twiddle factors ``exp(-2 pi i j / n)``, ``j < n / 2``. ``compiled=False``
    runs the twin (identical results).
    """
    if not compiled:
        return _fft_twin.fft_inplace(re, im, wr, wi, perm)
    _fft.fft_inplace(re, im, np.ascontiguousarray(wr), np.ascontiguousarray(wi),
                     np.ascontiguousarray(perm, dtype=np.int64))
    return re, im


def pair_products(zar, zai, zbr, zbi, qr, qi, *, compiled=True):
    """``qr + i qi = conj(A1 B1 + i A2 B2)`` from the transforms of ``a1 + i a2`` and ``b1 + i b2``.

    The middle step of the paired convolution of :mod:`refdp.utils.fftconv`:
    float64 arrays of one length, ``qr`` and ``qi`` written in place; returns
    ``(qr, qi)``. ``compiled=False`` runs the twin (identical results).
    """
    if not compiled:
        return _fft_twin.pair_products(zar, zai, zbr, zbi, qr, qi)
    _fft.pair_products(zar, zai, zbr, zbi, qr, qi)
    return qr, qi


def power_products(z1r, z1i, z2r, z2i, m, qr, qi, *, compiled=True):
    """``qr + i qi = conj(X1**m X2 + i Y1**m Y2)`` from the transforms of ``x1 + i y1`` and ``x2 + i y2``.

    The middle step of the paired transform power of :mod:`refdp.utils.fftconv`:
    float64 arrays of one length (``z2r``, ``z2i`` empty for no second
    operand), ``m >= 1``, ``qr`` and ``qi`` written in place; returns
    ``(qr, qi)``. ``compiled=False`` runs the twin (identical results).
    """
    if not compiled:
        return _fft_twin.power_products(z1r, z1i, z2r, z2i, m, qr, qi)
    _fft.power_products(z1r, z1i, z2r, z2i, m, qr, qi)
    return qr, qi


# One blocked pass of a margin loss (refdp/_erm.pyx; twin refdp/twins/erm.py).

#: The losses the compiled pass implements, by ``MarginLoss.name``: kernel code.
MARGIN_PASS_LOSSES = {"logistic": 0, "huber_hinge": 1}


#: Rows from which the compiled pass splits the blocks among threads by default.
MARGIN_PASS_PARALLEL_ROWS = 1 << 17


def margin_pass_blocks(loss, X, y, theta, block, *, compiled=True, n_threads=None, lanes=False, values=True,
                       curvatures=None):
    """Per-block gradient sums ``sum_i y_i l'(m_i) x_i`` and loss sums of one pass, or None.

    ``X`` is a validated C-contiguous float64 ``(n, d)`` array, ``y`` the
    labels in ``{-1.0, +1.0}``, ``theta`` a float64 ``(d,)`` array; ``loss`` a
    logistic or Huber-hinge loss (None for any other loss: the caller uses
    its NumPy path). Returns ``(blocks, values)`` of shapes ``(ceil(n /
    block), d)`` and ``(ceil(n / block),)``.

    The compiled path splits the blocks among ``n_threads`` threads (default:
    the number of CPUs from ``MARGIN_PASS_PARALLEL_ROWS`` rows on, else
    one); each block is summed by one thread in row order, so the result does
    not depend on the split.

    ``lanes=True`` runs the lane-order pass (the module docstring of
    ``refdp/_erm.pyx``: the dot products in four lanes, one exponential per
    row; several times faster at d = 50), which the float-safe cell search and
    its start point use; ``values=False`` skips its loss sums (zeros).
    ``curvatures`` (lane order only): a writeable float64 array of length
    ``n`` that receives ``l''`` at every row's margin (the Newton matrix's
    weights, from the pass's own exponential).
    """
    kind = MARGIN_PASS_LOSSES.get(getattr(loss, "name", None))
    if kind is None or type(loss).__module__ != "refdp.utils.losses":
        return None
    h = float(getattr(loss, "h", 1.0))
    if not compiled or _erm is None:
        return _erm_twin.margin_pass(X, y, theta, kind, h, int(block), lanes=bool(lanes), values=bool(values),
                                     curvatures=curvatures)
    y = np.ascontiguousarray(y, dtype=np.float64)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    block = int(block)
    n = X.shape[0]
    n_blocks = -(-n // block)
    if n_threads is None:
        threads = (os.cpu_count() or 1) if n >= MARGIN_PASS_PARALLEL_ROWS else 1
    else:
        threads = int(n_threads)
    threads = max(1, min(threads, n_blocks))
    lanes, values = bool(lanes), bool(values)
    if threads == 1:
        return _erm._py_margin_pass(X, y, theta, kind, h, block, lanes, values, curvatures)
    cuts = [int(c) * block for c in np.linspace(0, n_blocks, threads + 1).astype(np.int64)]
    cuts[-1] = n
    return _over_slices(cuts, lambda a, b: _erm._py_margin_pass(
        X[a:b], y[a:b], theta, kind, h, block, lanes, values, None if curvatures is None else curvatures[a:b]))


def row_norm_sign(X, radius, *, compiled=True):
    """Per row of ``X``: the sign of ``||x||**2 - radius**2`` (+1, -1), or 0 where a compensated sum cannot decide it.

    ``X`` is a validated float64 ``(n, d)`` array, ``radius`` a float; for a
    radius outside ``[2**-480, 2**500]`` (the exact range of the split of
    the squares) every row is undecided. The kernel (``refdp/_erm.pyx``,
    ``row_norm_sign``) and its twin (:func:`refdp.twins.erm.row_norm_sign`)
    give the same signs; ``refdp.erm._data.rows_above`` decides the rows
    left at 0 exactly.
    """
    n = X.shape[0]
    radius = float(radius)
    if not 2.0 ** -480 <= radius <= 2.0 ** 500:
        return np.zeros(n, dtype=np.int64)
    if not compiled or _erm is None:
        return _erm_twin.row_norm_sign(X, radius)
    return _erm._py_row_norm_sign(np.ascontiguousarray(X, dtype=np.float64), radius)


def lazy_normal_draws(bit_generator, count, buffer, left, *, compiled=True):
    """``count`` exact standard normal draws (Karney's Algorithm N) for a lazy draw's bit buffer, or None.

    The draws of :func:`refdp.utils.lazy_noise.lazy_normal`, in the same
    order from the same bits: ``(buffer, left)`` is the buffer of a
    :class:`~refdp.utils.lazy_noise.BitSource` on ``bit_generator``.
    Returns ``(buffer, left, draws)`` with ``draws`` a list of ``(negative,
    k, m, length)`` (sign, integer part, the fraction's first ``length``
    digits ``m``), or None for a bit generator whose raw words are not its
    64-bit words (MT19937) or a draw beyond the kernel's 64-digit uniforms
    (the generator's state is then restored: the caller draws with
    :func:`~refdp.utils.lazy_noise.lazy_normal`). The kernel
    (``refdp/_erm.pyx``, ``lazy_normals``) and its twin
    (:func:`refdp.twins.erm.lazy_normals`) give the same draws.
    """
    if type(bit_generator) not in _erm_twin.RAW_IS_UINT64:
        return None
    state = bit_generator.state
    if compiled and _erm is not None:
        ok, buffer, left, neg, ks, ms, lengths = _erm._py_lazy_normals(bit_generator, count, buffer, left)
    else:
        ok, buffer, left, neg, ks, ms, lengths = _erm_twin.lazy_normals(bit_generator, count, buffer, left)
    if not ok:
        bit_generator.state = state
        return None
    return buffer, left, list(zip(neg, ks, ms, lengths))


def geometric_exp_draws(bit_generator, num, den, size):
    """``size`` draws of :func:`geometric_exp_draw` in one call (the same draws, in order), as a list of ints."""
    if num < _U64 and den < _U64:
        return _core._py_geometric_exp(bit_generator, num, den, size)
    return [geometric_exp_draw(bit_generator, num, den) for _ in range(size)]


def column_abs_sums(X, *, compiled=True):
    """``sum_i |x_ij|`` per column of a validated float64 ``(n, d)`` array, the rows added in order.

    The kernel (``refdp/_erm.pyx``, ``column_abs_sums``) and its twin
    (:func:`refdp.twins.erm.column_abs_sums`) give the same doubles; the
    cell search of :mod:`refdp.erm._grid_minimiser` bounds any order of
    this sum.
    """
    if not compiled or _erm is None:
        return _erm_twin.column_abs_sums(X)
    return _erm._py_column_abs_sums(np.ascontiguousarray(X, dtype=np.float64))
