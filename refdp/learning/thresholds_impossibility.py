r"""Why pure-DP learning of thresholds on [0, 1] fails: a computed example.

Lecture notes [W19]_ Claim 9.10 (after [CH11]_ and [BNS13]_): no
:math:`\varepsilon`-DP algorithm learns the thresholds
:math:`h_\theta(x) = \mathbb 1[x \ge \theta]` on :math:`[0, 1]` with a
sample size independent of the domain. refdp makes the statement finite and
exact on a grid of :math:`m` points (proofs in docs/theory/learning.rst):

* **Grid.** Points :math:`x_k = (2k - 1)/(2m)`, :math:`k = 1..m`, and the
  :math:`m + 1` thresholds :math:`\theta_j = j/m`, :math:`j = 0..m` (every
  threshold on :math:`[0, 1]` labels the grid like one of them).
* **Hard datasets.** For :math:`i = 1..m-1`, :math:`D_i` holds
  :math:`\lceil n/2 \rceil` copies of :math:`(x_i, 0)` and
  :math:`\lfloor n/2 \rfloor` copies of :math:`(x_{i+1}, 1)`. It is realizable,
  only :math:`\theta_i` has zero error on it, and every other threshold errs on
  at least :math:`\lfloor n/2 \rfloor` records; so for
  :math:`\alpha < \lfloor n/2 \rfloor / n` the :math:`\alpha`-good outputs on
  :math:`D_i` are exactly those in :math:`G_i = (x_i, x_{i+1}]`, and these sets
  are disjoint.
* **Packing bound.** Any two hard datasets differ in all :math:`n` records, so
  for any :math:`\varepsilon`-DP learner :math:`A` (replace-one),
  :math:`P[A(D_1) \in G_i] \ge e^{-\varepsilon n} P[A(D_i) \in G_i]`; summing
  over the disjoint :math:`G_i`,
  :math:`\min_i P[A(D_i) \in G_i] \le 1/(1 + (m - 2) e^{-\varepsilon n})`.
  Success probability :math:`1 - \beta` on every hard dataset needs
  :math:`n \ge \ln((m - 2)(1 - \beta)/\beta)/\varepsilon`; as :math:`m \to
  \infty` (the continuum :math:`[0, 1]`), no :math:`n` suffices.
* **The exponential-mechanism learner** over the :math:`m + 1` grid
  thresholds (:func:`refdp.learning.exponential_mechanism_learner`) succeeds
  on :math:`D_i` with probability exactly
  :math:`1/(1 + i e^{-\varepsilon \lceil n/2\rceil/2} + (m - i)
  e^{-\varepsilon \lfloor n/2 \rfloor/2})`, smallest at :math:`i = 1`.

None of the functions here releases private output: they compute the
example's exact quantities.

References
----------
.. [W19] Y.-X. Wang, "DPML I: Introduction and Posterior Sampling", lecture
   notes (Lecture 9), Claim 9.10, Eqs. (9.8)-(9.13).
.. [CH11] K. Chaudhuri and D. Hsu, "Sample Complexity Bounds for
   Differentially Private Learning", COLT 2011.
.. [BNS13] A. Beimel, K. Nissim and U. Stemmer, "Characterizing the Sample
   Complexity of Private Learners", ITCS 2013.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..utils.validation import Described, Interval, check_scalar, parameter_error
from ..utils.constraints import CONTEXT, DIGITS, POSITIVE, Array, constrained
from ..utils.precision import ctx_rational, iv_context, law_context, mpf_values, raw_to_fraction
from ..verify.verdict import lower, upper
from ..utils.rounding import float_at_least, float_at_most

__all__ = [
    "grid_thresholds",
    "grid_threshold_errors",
    "hard_threshold_dataset",
    "threshold_learner_success",
    "packing_success_bound",
    "packing_sample_size",
    "threshold_learner_sample_size",
]

_GRID = Interval(int, 2, None)
_SAMPLES = Interval(int, 2, None)
_BETA = Interval(float, 0, 1, closed="neither")
#: m of the functions returning arrays of m + 1 entries (2**24: 128 MiB of doubles).
_GRID_ARRAY = Interval(int, 2, 2**24)
_SAMPLES_ARRAY = Interval(int, 2, 2**24)
_INDEX = Interval(int, 1, None)      # at most m - 1: checked in the body


@constrained(m=_GRID_ARRAY)
def grid_thresholds(m):
    """The grid of ``m`` points and its ``m + 1`` thresholds.

    Parameters
    ----------
    m : int in [2, 2**24]

    Returns
    -------
    points : ndarray of float, shape (m,)
        ``x_k = (2k - 1) / (2m)``, ``k = 1..m``.
    thresholds : ndarray of float, shape (m + 1,)
        ``theta_j = j / m``, ``j = 0..m``; hypothesis ``j`` labels ``x`` with
        ``1`` when ``x >= theta_j``.

    Examples
    --------
    >>> from refdp.learning import grid_thresholds
    >>> [a.tolist() for a in grid_thresholds(2)]
    [[0.25, 0.75], [0.0, 0.5, 1.0]]
    """
    return (2 * np.arange(1, m + 1) - 1) / (2 * m), np.arange(m + 1) / m


@constrained(m=_GRID_ARRAY, x=Array(ndim=1, min_size=0, interval=Interval(float, 0, 1)),
             y=Array(ndim=1, min_size=0, dtype="integer", interval=Interval(int, 0, 1)))
def grid_threshold_errors(x, y, m):
    """Number of errors of each grid threshold ``1[x >= j/m]`` on labelled data.

    Parameters
    ----------
    x : array_like of float, shape (n,)
        Points in ``[0, 1]``.
    y : array_like of int, shape (n,)
        Labels in ``{0, 1}``.
    m : int in [2, 2**24]
        Grid size; the thresholds are those of :func:`grid_thresholds`.

    Returns
    -------
    ndarray of int64, shape (m + 1,)
        ``errors[j] = #{i : 1[x_i >= j/m] != y_i}``, in one pass over the data
        (a histogram of the first threshold above each point, then cumulative
        sums). Divide by ``n`` for the empirical risks, whose loss (0/1) lies
        in ``[0, 1]``.

    Examples
    --------
    >>> from refdp.learning import grid_threshold_errors
    >>> grid_threshold_errors([0.25, 0.75], [0, 1], 2).tolist()
    [1, 0, 1]
    """
    owner = "grid_threshold_errors"
    if y.shape != x.shape:
        raise parameter_error("y", owner, f"an array of shape ({x.shape[0]},), as many labels as 'x' has points", y)
    _, thresholds = grid_thresholds(m)
    # hypothesis j predicts 1 at x_i  <=>  j < c_i, with c_i = #{j : theta_j <= x_i}
    c = np.searchsorted(thresholds, x, side="right")
    ones_upto = np.cumsum(np.bincount(c[y == 1], minlength=m + 2))[:m + 1]   # ones with c_i <= j
    zeros_upto = np.cumsum(np.bincount(c[y == 0], minlength=m + 2))[:m + 1]  # zeros with c_i <= j
    return (ones_upto + (np.count_nonzero(y == 0) - zeros_upto)).astype(np.int64)


@constrained(m=_GRID, n=_SAMPLES_ARRAY, i=_INDEX)
def hard_threshold_dataset(m, n, i):
    """The hard dataset ``D_i``: ``ceil(n/2)`` copies of ``(x_i, 0)``, ``floor(n/2)`` of ``(x_{i+1}, 1)``.

    Parameters
    ----------
    m : int >= 2
    n : int in [2, 2**24]
    i : int in [1, m - 1]

    Returns
    -------
    x : ndarray of float, shape (n,)
    y : ndarray of int64, shape (n,)

    Examples
    --------
    >>> from refdp.learning import hard_threshold_dataset, grid_threshold_errors
    >>> x, y = hard_threshold_dataset(4, 3, 2)
    >>> x.tolist(), y.tolist()
    ([0.375, 0.375, 0.625], [0, 0, 1])
    >>> grid_threshold_errors(x, y, 4).tolist()     # only theta_2 = 1/2 is consistent
    [2, 2, 0, 1, 1]
    """
    owner = "hard_threshold_dataset"
    i = check_scalar(i, "i", owner, Interval(int, 1, m - 1))
    points, _ = grid_thresholds(m)
    lo, hi = (n + 1) // 2, n // 2
    x = np.concatenate([np.full(lo, points[i - 1]), np.full(hi, points[i])])
    y = np.concatenate([np.zeros(lo, dtype=np.int64), np.ones(hi, dtype=np.int64)])
    return x, y


@constrained(m=_GRID, n=_SAMPLES, epsilon=POSITIVE, i=_INDEX, dps=DIGITS, ctx=CONTEXT)
def threshold_learner_success(m, n, epsilon, i=1, *, dps=30, ctx=None):
    """Exact probability that the exponential-mechanism learner outputs the consistent threshold on ``D_i``.

    ``1 / (1 + i exp(-epsilon ceil(n/2) / 2) + (m - i) exp(-epsilon floor(n/2) / 2))``
    for :func:`refdp.learning.exponential_mechanism_learner` over the ``m + 1``
    grid thresholds on :func:`hard_threshold_dataset` ``(m, n, i)``: the
    probability of an ``alpha``-good output for every
    ``alpha < floor(n/2) / n``. The default ``i = 1`` is the hardest dataset.

    Parameters
    ----------
    m : int >= 2
    n : int >= 2
    epsilon : float > 0
        Used at its exact binary value.
    i : int in [1, m - 1], default 1
    dps : int >= 1, default 30
    ctx : mpmath context, optional
        Compute in this context (``dps`` is then ignored): with an interval
        context (:func:`refdp.utils.precision.iv_context`) the result is a
        rigorous enclosure computed with outward rounding. The context is not
        modified.

    Returns
    -------
    mpmath.mpf, or (interval ``ctx``) an interval

    Examples
    --------
    >>> from refdp.learning import threshold_learner_success
    >>> import mpmath
    >>> mpmath.nstr(threshold_learner_success(2**20, 40, 1.0), 6)   # 1 / (1 + 2**20 e**-10)
    '0.0205739'
    """
    owner = "threshold_learner_success"
    i = check_scalar(i, "i", owner, Interval(int, 1, m - 1))
    c = law_context(ctx, dps, 10)
    half = ctx_rational(c, Fraction(epsilon)) / 2
    value = 1 / (1 + i * c.exp(-half * ((n + 1) // 2)) + (m - i) * c.exp(-half * (n // 2)))
    return mpf_values([value], ctx, dps)[0]


def _packing_enclosure(m, n, epsilon, dps=40):
    """Enclosure of ``1 / (1 + (m - 2) exp(-epsilon n))`` in interval arithmetic."""
    iv = iv_context(dps)
    value = 1 / (1 + iv.mpf(m - 2) * iv.exp(-iv.mpf(epsilon) * n))
    return lower(value), upper(value)


@constrained(m=_GRID, n=_SAMPLES, epsilon=POSITIVE)
def packing_success_bound(m, n, epsilon):
    """Upper bound on the worst success probability of any epsilon-DP threshold learner.

    For every epsilon-DP (replace-one) learner ``A`` with outputs in
    ``[0, 1]``, ``min_i P[A(D_i) in G_i] <= 1 / (1 + (m - 2) exp(-epsilon n))``
    over the hard datasets ``D_1..D_{m-1}`` of :func:`hard_threshold_dataset`
    (the packing argument of [W19]_ Claim 9.10; proof in
    docs/theory/learning.rst).

    Parameters
    ----------
    m : int >= 2
    n : int >= 2
    epsilon : float > 0

    Returns
    -------
    float
        Rounded upward (never below the exact bound).

    Examples
    --------
    >>> from refdp.learning import packing_success_bound
    >>> round(packing_success_bound(2**20, 10, 1.0), 6)
    0.020574
    """
    return float_at_least(_packing_enclosure(m, n, epsilon)[1])


@constrained(m=_GRID, epsilon=POSITIVE, beta=_BETA)
def packing_sample_size(m, epsilon, beta):
    """Lower bound on ``n`` for an epsilon-DP learner that succeeds w.p. ``1 - beta`` on every hard dataset.

    ``max(0, ln((m - 2)(1 - beta) / beta) / epsilon)`` (from
    :func:`packing_success_bound` ``>= 1 - beta``).

    Parameters
    ----------
    m : int >= 2
    epsilon : float > 0
    beta : float in (0, 1)

    Returns
    -------
    float
        Rounded downward (never above the exact value): every learner that
        meets the requirement uses at least this many records.

    Examples
    --------
    >>> from refdp.learning import packing_sample_size
    >>> round(packing_sample_size(10**6, 1.0, 0.05), 4)
    16.7599
    """
    if m == 2:
        return 0.0
    iv = iv_context(40)
    value = iv.log(iv.mpf(m - 2) * (1 - iv.mpf(beta)) / iv.mpf(beta)) / iv.mpf(epsilon)
    return max(0.0, float_at_most(lower(value)))


@constrained(m=_GRID, epsilon=POSITIVE, beta=_BETA, dps=DIGITS)
def threshold_learner_sample_size(m, epsilon, beta, *, dps=30):
    """Smallest ``n`` at which the exponential-mechanism learner succeeds w.p. ``>= 1 - beta`` on every hard dataset.

    The smallest ``n >= 2`` with ``threshold_learner_success(m, n, epsilon, 1)
    >= 1 - beta`` (the success is non-decreasing in ``n``), found by
    bisection on the exact values at ``dps`` digits.

    Parameters
    ----------
    m : int >= 2
    epsilon : float > 0
    beta : float in (0, 1)
    dps : int >= 1, default 30

    Returns
    -------
    int

    Examples
    --------
    >>> from refdp.learning import threshold_learner_sample_size
    >>> threshold_learner_sample_size(10**6, 1.0, 0.05)
    68
    """
    owner = "threshold_learner_sample_size"
    target = 1 - Fraction(beta)

    def ok(n):
        value = threshold_learner_success(m, n, epsilon, 1, dps=dps + 10)
        return raw_to_fraction(value._mpf_) >= target

    hi = 2
    while not ok(hi):
        hi *= 2
        if hi > 2**62:
            raise parameter_error("epsilon", owner, "large enough for a sample size below 2**62",
                                  Described(repr(epsilon)))
    lo = max(2, hi // 2)
    if ok(lo):
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi
