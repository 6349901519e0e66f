"""Teachers' votes and their counts, as PATE and its accountants read them.

Papernot et al., "Semi-supervised Knowledge Transfer for Deep Learning from
Private Training Data" (ICLR 2017), Sec. 2: ``n_j(x)`` is the number of
teachers voting class ``j`` at query ``x``. :func:`counts_from_votes` counts a
(teachers x queries) label array; :func:`check_counts` validates given counts.
Both the PATE package and the accounting of PATE 2017's published analysis
(:mod:`refdp.accounting.pate2017`) read counts through them.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .validation import Described, Interval, check_array, check_scalar, parameter_error

__all__ = ["check_counts", "counts_from_votes", "two_sided_counts", "MAX_GAMMA_VOTES", "check_gamma_votes"]

_COUNT = Interval(int, 0, None)
_CLASSES = Interval(int, 1, None)
_TEACHERS = Interval(int, 1, None)
_INT64_MAX = 2**63 - 1


def check_counts(counts, owner, *, n_teachers=None, name="counts", one_row=False):
    """Vote counts of LNMax queries, returned as a C-contiguous int64 array of shape (Q, C).

    Parameters
    ----------
    counts : array_like of int, shape (Q, C) (or (C,) with ``one_row=True``)
        ``counts[q, j]`` is the number of teachers voting class j at query q.
    n_teachers : int >= 1, optional
        If given, every row must sum to it (the declared number of teachers).
    one_row : bool
        Accept a single count vector of shape (C,) (returned as shape (1, C)).

    Raises
    ------
    ValueError
        Empty input, negative or non-integral counts, a row summing to 0 (no
        teacher), or a row whose total differs from ``n_teachers``.
    """
    if (type(counts) is np.ndarray and counts.dtype == np.int64 and counts.ndim == 2 and counts.size
            and counts.flags.c_contiguous and n_teachers is None and counts.min() >= 0
            and counts.max() <= _INT64_MAX // counts.shape[1] and counts.sum(axis=1).min() >= 1):
        # already a valid C-contiguous int64 array: the checks below would return it as it is
        return counts
    arr = check_array(counts, name, owner, ndim=(1, 2) if one_row else 2, dtype="integer",
                      min_size=1, interval=_COUNT)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.shape[1] < 1:
        raise parameter_error(name, owner, "an array with at least one class column", arr)
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if int(arr.max()) > _INT64_MAX // arr.shape[1]:
        # a row total could exceed int64 (the kernels sum rows in int64): sum exactly
        for i, row in enumerate(arr.tolist()):
            if sum(row) > _INT64_MAX:
                raise parameter_error(name, owner, "an array whose rows each sum to at most 2**63 - 1",
                                      Described(f"a row summing to {sum(row)} at position ({i},)"))
    totals = arr.sum(axis=1)
    if n_teachers is not None:
        n_teachers = check_scalar(n_teachers, "n_teachers", owner, _TEACHERS)
        bad = np.flatnonzero(totals != n_teachers)
        if bad.size:
            i = int(bad[0])
            raise parameter_error(name, owner, f"an array whose rows each sum to n_teachers = {n_teachers}",
                                  Described(f"a row summing to {int(totals[i])} at position ({i},)"))
    else:
        bad = np.flatnonzero(totals < 1)
        if bad.size:
            i = int(bad[0])
            raise parameter_error(name, owner, "an array whose rows each count at least one vote",
                                  Described(f"a row summing to 0 at position ({i},)"))
    return arr


def counts_from_votes(votes, n_classes, owner, name="votes"):
    """Count a (teachers x queries) label array with :func:`refdp.core.count_votes`.

    Raises
    ------
    ValueError
        Empty votes, a vote outside ``[0, n_classes)`` (through
        :func:`refdp.core.count_votes`), or ``n_classes < 1``.
    """
    n_classes = check_scalar(n_classes, "n_classes", owner, _CLASSES)
    votes = check_array(votes, name, owner, ndim=2, dtype="integer", min_size=1)
    from .. import core      # here: refdp.core's twins import this module

    return np.ascontiguousarray(core._count_votes(votes, n_classes, owner, name), dtype=np.int64)


#: Largest ``gamma * T`` (``T`` the votes of a query) for which the LNMax law and
#: its analyses are computed: every exponent the double-precision kernel forms is
#: a sum of terms of magnitude at most ``gamma T + C log 2``, so its rounding
#: adds at most about ``4 u gamma T <= 3.7e-12`` to ``log P`` (within the
#: ``ETA = 1e-11`` the analyses assume), and the numerical fallback integrates
#: at most ``gamma T / 2 + C log(C) / 4 + log2(8 C) + 3`` mesh intervals per
#: piece (docs/theory/pate.rst, "Range of gamma").
MAX_GAMMA_VOTES = 8192


def check_gamma_votes(gamma, counts, owner):
    """Require ``gamma * T <= MAX_GAMMA_VOTES`` for the largest row total ``T`` of validated counts.

    Beyond it LNMax answers the plurality class with probability at least
    ``1 - C exp(-MAX_GAMMA_VOTES / T)`` per unit gap and the double-precision
    law loses its accuracy (``gamma * T`` terms cancel), so the law and the
    analyses built on it refuse such ``gamma`` with the standard ValueError.
    The comparison is exact (``gamma`` at its binary value).
    """
    total = int(counts.sum(axis=1).max()) if counts.size else 0
    if total and Fraction(gamma) * total > MAX_GAMMA_VOTES:
        limit = MAX_GAMMA_VOTES / total
        if Fraction(limit) * total > MAX_GAMMA_VOTES:      # the largest double accepted
            limit = math.nextafter(limit, 0.0)
        raise parameter_error(
            "gamma", owner,
            f"a float in the range (0, {limit!r}] (gamma times the {total} votes of a query at most "
            f"{MAX_GAMMA_VOTES}, where the LNMax law is computed)", gamma)
    return gamma


def two_sided_counts(counts):
    """For each row: the vote vector with one vote moved from the plurality class to the runner-up.

    Returns ``(moved, gap)``: ``moved`` (Q, C) and the top-two gap per row
    (``-1`` for a single class, where nothing moves). ``j*`` is the first
    largest count and the runner-up the first largest among the others (the
    neighbour of the two-sided Lemma 4 bound of PATE's accountant and of its
    compiled kernel's twin).
    """
    counts = np.asarray(counts, dtype=np.int64)
    q, c = counts.shape
    moved = counts.copy()
    if c == 1:
        return moved, np.full(q, -1, dtype=np.int64)
    rows = np.arange(q)
    top = np.argmax(counts, axis=1)
    others = counts.copy()
    others[rows, top] = -1
    runner = np.argmax(others, axis=1)
    gap = counts[rows, top] - counts[rows, runner]
    moved[rows, top] -= 1
    moved[rows, runner] += 1
    return moved, gap
