r"""Exact data-dependent analysis of LNMax answers (beyond the paper's union bound).

PATE's data-dependent analysis (Papernot et al. 2017, Sec. 3.3) bounds the
log-moment of each answer by Theorem 3, fed with Lemma 4's union bound on
:math:`q = P[M(d) \ne j^*]`. refdp also computes, from the exact LNMax law
(:mod:`refdp.pate.lnmax_law`):

* the exact :math:`q` (Theorem 3 holds for any :math:`q` at least the true
  probability, and its bound is non-decreasing in :math:`q`,
  docs/theory/floating_point.rst), and its *two-sided* counterpart
  :math:`q^- = P[M(n^-) \ne j^*]`, where :math:`n^-` moves one vote from the
  plurality class :math:`j^*` to the runner-up: the largest such probability
  over all neighbouring vote vectors (docs/theory/pate.rst), which makes
  Theorem 3 bound the log-moment in both directions;
* the exact worst-case log-moment of the answer over every neighbouring vote
  vector :math:`n'` (one teacher moving its vote between any two classes),

  .. math::

     \alpha(\lambda) = \max_{n'} \max\Big(
        \log \sum_o P(o)\big(P(o)/P'(o)\big)^{\lambda},\;
        \log \sum_o P'(o)\big(P'(o)/P(o)\big)^{\lambda}\Big),

  with :math:`P, P'` the LNMax laws at :math:`n, n'` (and the first term
  alone, "forward", for comparison with the paper's one-sided statement).

With ``noise="discrete"`` (the default: the law of ``lnmax_labels`` with
its default ``secure=True``) the same quantities are computed for the exact
discrete noise by :mod:`refdp.pate.discrete_analysis`
(docs/theory/pate_discrete.rst); the rest of this docstring describes the
continuous law (``noise="continuous"``) and its compiled kernel.

These are **data-dependent** quantities: they are functions of the sensitive
votes and must not be published as they are (see
:mod:`refdp.pate.smooth_sensitivity`).

Search over neighbours. A neighbour moves one vote from a class ``a`` (with
at least one vote) to a class ``b != a``. Classes with equal counts are
exchangeable (relabelling them permutes the outputs and leaves every sum
above unchanged), so one move per pair of count values is evaluated; no
other reduction is assumed.

Rounding. The kernel's values are estimates; every returned value is rounded
upward by a margin that covers a relative error of :data:`ETA` in every
computed probability plus the rounding of the final sums
(docs/theory/pate.rst, "Accuracy").

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Theorem 3 and Lemma 4.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..utils.rounding import UNIT_ROUNDOFF as _U
from ..utils.validation import Interval, check_scalar
from ..utils.votes import check_counts, check_gamma_votes
from ._args import check_discrete_gamma, check_gamma, check_orders
from ..utils.constraints import Nullable, Options, constrained, constrained_fields
from ._constraints import COUNT_ROWS, GAMMA, ORDERS
from .discrete_analysis import NOISES
from .discrete_analysis import check_noise, discrete_exact_analysis
from ..core import LNMAX_ETA as ETA
from ..core import lnmax_exact_rows as exact_rows
from ..twins.lnmax import order_chain

__all__ = ["ExactAnalysis", "exact_analysis", "ETA"]

_THREADS = Interval(int, 1, None)


@constrained_fields(orders=ORDERS, unchecked="the analysis' per-query values (log_q is -inf when q = 0)")
@dataclass(frozen=True)
class ExactAnalysis:
    """Per-query exact quantities of LNMax answers, each rounded upward.

    Attributes
    ----------
    orders : ndarray, shape (K,)
    log_q : ndarray, shape (Q,)
        ``log P[M(n) != j*]`` (exact law), ``j*`` the first largest count.
    log_q_two_sided : ndarray, shape (Q,)
        ``log P[M(n^-) != j*]``, the largest such probability over the
        neighbours (and ``n`` itself).
    log_moments_forward : ndarray, shape (Q, K)
        ``max_{n'} log sum_o P(o) (P(o)/P'(o))**lambda``.
    log_moments : ndarray, shape (Q, K)
        The worst case over neighbours and both directions.
    """

    orders: np.ndarray
    log_q: np.ndarray
    log_q_two_sided: np.ndarray
    log_moments_forward: np.ndarray
    log_moments: np.ndarray


def _round_log_q(lq):
    out = lq + (2.0 * ETA + 4.0 * _U * np.abs(np.where(np.isfinite(lq), lq, 0.0)))
    return np.where(np.isfinite(lq), out, lq)


def _chain_margin(alpha, orders, big, n_classes):
    """The part of the log-moments' margin due to their evaluation along the chain of orders.

    The rounding of the chained factors, ``u ((20 x_k + 4)(1 + b) + 4 k + 2 C + 12)``
    with ``x_k`` the chain's length up to order ``k`` (as in the discrete
    analysis), plus once more the rounding of a direct log-sum-exp, ``16 u
    (2 lambda + 2)(1 + b) + 48 u |alpha|``, so that each value is at least the
    direct evaluation's (docs/theory/pate.rst, "Log-moments").
    """
    sidx, steps, _ = order_chain(orders.tolist())
    x = np.empty(orders.size)
    acc = 0.0
    for k, lam in enumerate(orders.tolist()):
        acc += abs(lam) if k == 0 or sidx[k] < 0 else abs(float(steps[sidx[k]]))
        x[k] = acc
    b = 1.0 + big[:, None]
    chained = _U * ((20.0 * x[None, :] + 4.0) * b + 4.0 * np.arange(orders.size)[None, :] + 2.0 * n_classes + 12.0)
    return chained + 16.0 * _U * (2.0 * orders[None, :] + 2.0) * b + 48.0 * _U * np.abs(alpha)


def _round_moments(alpha, orders, big, n_classes):
    lam = orders[None, :]
    margin = (2.0 * lam + 2.0) * (ETA + 8.0 * _U * big[:, None])
    return (np.maximum(alpha, 0.0) + margin + 16.0 * _U * np.abs(alpha)
            + _chain_margin(alpha, orders, big, n_classes))


@constrained(counts=COUNT_ROWS, gamma=GAMMA, orders=ORDERS, n_threads=Nullable(_THREADS), noise=Options(NOISES))
def exact_analysis(counts, gamma, orders=None, *, n_threads=None, noise="discrete"):
    """Exact q and exact worst-case log-moments of LNMax answers, per query.

    Parameters
    ----------
    counts : array_like of int, shape (Q, C) or (C,)
        Vote counts of the answered queries (each row with at least one vote).
    gamma : float > 0
        LNMax's inverse Laplace scale, with ``gamma * T <= 8192`` for ``T``
        the largest number of votes of a row (as
        :func:`refdp.pate.lnmax_distribution`; docs/theory/pate.rst, "Range
        of gamma") and, for ``noise="discrete"``, ``gamma >= 2**-10``.
    orders : array_like of float > 0, optional
        Moment orders lambda (default :data:`refdp.accounting.DEFAULT_ORDERS`).
    n_threads : int >= 1, optional
        Threads of the compiled kernel (default: the number of CPUs). The
        result does not depend on it.
    noise : {"discrete", "continuous"}, default "discrete"
        The noise law of the answers: ``"discrete"`` for
        ``lnmax_labels(secure=True)`` (its default), computed by
        :mod:`refdp.pate.discrete_analysis` (``log_q`` and
        ``log_q_two_sided`` are ``+inf`` where the top-two gap is at most 2;
        docs/theory/pate_discrete.rst); ``"continuous"`` for
        ``secure=False`` answers. Both are computed by compiled kernels
        whose rows are split among ``n_threads`` threads.

    Returns
    -------
    ExactAnalysis
        Every value rounded upward (module docstring).

    Raises
    ------
    ValueError
        Bad ``gamma`` (outside the range above included), ``orders`` or
        ``n_threads``; empty or negative counts; a row without votes.

    Notes
    -----
    Cost: one LNMax law per query and per pair of distinct count values (at
    most ``C (C - 1) + 1`` laws), then, per move and direction, the
    log-moments at the ``K`` orders along the chain of orders (about ``2 C``
    multiplications per order; docs/theory/pate.rst, "Log-moments along the
    chain of orders"). These values are data-dependent: see the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.pate import exact_analysis
    >>> r = exact_analysis([[240, 6, 4]], 0.05, orders=[8.0])
    >>> float(np.exp(r.log_q[0])) < 1e-4
    True
    """
    owner = "exact_analysis"
    gamma = check_gamma(gamma, owner)
    arr = check_counts(counts, owner, one_row=True)
    check_gamma_votes(gamma, arr, owner)
    orders = check_orders(orders, owner)
    if n_threads is not None:
        n_threads = check_scalar(n_threads, "n_threads", owner, _THREADS)
    if check_noise(noise, owner) == "discrete":
        lq, lq2, fwd, both = discrete_exact_analysis(arr, gamma, orders, n_threads=n_threads)
        return ExactAnalysis(orders=orders, log_q=lq, log_q_two_sided=lq2,
                             log_moments_forward=fwd, log_moments=both)
    lq, lq2, fwd, both, big = exact_rows(arr, gamma, orders, n_threads=n_threads)
    return ExactAnalysis(orders=orders, log_q=_round_log_q(lq), log_q_two_sided=_round_log_q(lq2),
                         log_moments_forward=_round_moments(fwd, orders, big, arr.shape[1]),
                         log_moments=_round_moments(both, orders, big, arr.shape[1]))
