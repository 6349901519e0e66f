r"""Validated Python entry points to refdp's compiled kernels.

These wrappers check their arguments (one message shape, see
:mod:`refdp.utils.validation`), arrange memory (contiguity, sorting of queries) and
call the kernels in :mod:`refdp._core`, which run with the GIL released. They
contain no loops over data. The same kernels are available to Cython code via
``cimport refdp._core`` (see ``refdp/_core.pxd``).

References
----------
.. [DF18] C\. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018, Sec. 5.
.. [PATE17] N\. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Theorems 1-3 and Lemma 4.
"""
from __future__ import annotations

import numpy as np

from . import _core
from .utils.validation import Described, Interval, check_array, check_scalar, parameter_error

__all__ = [
    "projected_walk_log_odds",
    "count_votes",
    "laplace_difference_tail",
    "lemma4_log_q",
    "accountant_log_moments",
    "logsumexp",
]

_POSITIVE = Interval(float, 0, None, closed="neither")
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
                         interval=Interval(float, 0, None, closed="neither"))
    return _core._py_accountant_log_moments(np.ascontiguousarray(log_q),
                                            np.ascontiguousarray(orders), gamma)


def logsumexp(x):
    """Numerically stable ``log(sum(exp(x)))`` in one compiled pass.

    Returns ``-inf`` for empty input or all ``-inf``, ``inf`` if any entry is
    ``inf`` and NaN if any entry is NaN.
    """
    x = check_array(x, "x", "logsumexp", finite=False).ravel()
    return float(_core._py_logsumexp(np.ascontiguousarray(x)))
