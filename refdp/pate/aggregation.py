r"""LNMax, PATE's noisy aggregation of teacher votes, for a batch of queries.

For each query with vote counts :math:`n_j` (the number of teachers voting
class :math:`j`), LNMax releases

.. math::

   \arg\max_j \big(n_j + Z_j\big), \qquad Z_j \sim \mathrm{Lap}(1/\gamma)
   \text{ i.i.d.}

(Papernot et al. 2017, Eq. 1). Changing one record of the sensitive data
changes one teacher, which moves at most one vote per query: one count goes
down by 1 and another up by 1. Each answer is therefore
:math:`(2\gamma, 0)`-DP (PATE Theorem 2; the proof is report-noisy-max's,
docs/theory/mechanisms.rst), and the answers compose (PATE Theorem 1; see
:mod:`refdp.pate.accountant`).

This is :func:`refdp.mechanisms.report_noisy_max` with ``epsilon = 2 gamma``,
vectorised over queries. By default (``secure=True``) the noise is exact
discrete Laplace on the integer counts, so the guarantee holds for the labels
actually returned, and every data-dependent analysis of refdp
(:class:`refdp.pate.PATEAccountant`, :func:`refdp.pate.release_epsilon`,
``noise="discrete"``, their default) is proved for that law
(docs/theory/pate_discrete.rst). ``secure=False`` is the textbook
double-precision path, kept for comparison and teaching; it emits
:class:`TextbookNoiseWarning`.

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Sec. 2.1 and Theorem 2.
.. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
   Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from ..utils.constraints import FLAG, RNG, constrained
from ..utils.validation import parameter_error
from ..utils.rounding import up_dyadic, upward_quotient
from ..mechanisms.discrete import discrete_laplace
from ._constraints import COUNT_VECTOR_OR_ROWS, GAMMA

__all__ = ["lnmax_labels", "TextbookNoiseWarning"]


class TextbookNoiseWarning(UserWarning):
    """LNMax answers drawn with double-precision Laplace noise (``secure=False``): not private as implemented."""


@constrained(counts=COUNT_VECTOR_OR_ROWS, gamma=GAMMA, rng=RNG, secure=FLAG)
def lnmax_labels(counts, gamma, *, rng=None, secure=True):
    """Noisy plurality labels of a batch of queries (LNMax, [PATE17]_ Eq. 1).

    Parameters
    ----------
    counts : array_like of int, shape (Q, C) or (C,)
        Vote counts per query and class (e.g. from
        :func:`refdp.core.count_votes` or
        :meth:`refdp.pate.PATETeachers.vote_counts`).
    gamma : float > 0
        Inverse Laplace scale; each label is (2 gamma, 0)-DP with respect to
        the teachers' training data (one changed record moves one vote).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of the Laplace noise, normalised with
        :func:`numpy.random.default_rng`.
    secure : bool, default True
        Exact discrete Laplace noise of scale ``1/gamma`` (rounded up to a
        48-bit dyadic rational, :func:`refdp.pate.discrete_analysis.lnmax_scale`)
        on the integer counts, lowest index among the noisy maxima:
        (2 gamma)-DP per label for the index actually returned
        (``docs/theory/secure_noise.rst``, Theorem 5). Account the labels with
        ``noise="discrete"`` (the default of :class:`refdp.pate.PATEAccountant`,
        :func:`refdp.pate.pate_analysis`, :func:`refdp.pate.release_epsilon`):
        the discrete Lemma 4 and the exact discrete ``q`` are proved for this
        law (``docs/theory/pate_discrete.rst``). ``secure=False`` is the
        textbook double-precision Laplace path of the paper: **not private as
        implemented** (Mironov 2012), kept for comparison and teaching; it
        warns (:class:`TextbookNoiseWarning`) and its answers are accounted
        with ``noise="continuous"``.

    Returns
    -------
    ndarray of int64, shape (Q,), or int for 1-D ``counts``
        The lowest index of ``max_j (counts[q, j] + Z[q, j])``, ``Z`` i.i.d.
        discrete Laplace of scale ``t`` (``secure=True``) or Lap(1/gamma).

    Warns
    -----
    TextbookNoiseWarning
        With ``secure=False``.

    Raises
    ------
    ValueError
        Bad ``gamma`` (including one so small that 1/gamma overflows), empty
        or negative counts, a row without votes.

    Notes
    -----
    ``secure=True``: the sums are exact integers and the law of each label is
    :func:`refdp.pate.lnmax_distribution` with ``secure=True``. Cost against
    the textbook path: the discrete tail is heavier, so the data-dependent
    ``q`` grows (by a factor 1.013 per Lemma 4 term at ``gamma = 0.05``).

    ``secure=False``: the Laplace scale is ``1/gamma`` rounded upward. Noise
    is added to ``counts - max(counts)`` per row (the argmax is unchanged)
    and noisy ties, which have probability 0 for real-valued noise, go to the
    lowest index. Like every continuous-noise mechanism sampled in floating
    point, this is a reference implementation of the real-valued mechanism
    ([Mir12]_): only the label is released, but its law is that of
    double-precision noise; its exact law is
    :func:`refdp.pate.lnmax_distribution` (``secure=False``).

    Examples
    --------
    >>> from refdp.pate import lnmax_labels
    >>> lnmax_labels([[240, 10, 0], [3, 4, 243]], 0.05, rng=0).tolist()
    [0, 2]
    """
    arr = counts[None, :] if counts.ndim == 1 else counts
    scale = upward_quotient(1.0, gamma)
    if math.isinf(scale):
        raise parameter_error("gamma", "lnmax_labels", "large enough that 1/gamma is a finite double", gamma)
    if secure:
        t = up_dyadic(1 / Fraction(gamma))
        z = np.asarray(discrete_laplace(t, size=arr.shape, rng=rng))
        centred = arr - arr.max(axis=1, keepdims=True)          # exact: counts are int64 >= 0
        if z.dtype == np.int64 and int(np.abs(z).max()) < 2**62:
            y = centred + z
        else:
            y = centred.astype(object) + z.astype(object)
        labels = np.argmax(y, axis=1).astype(np.int64)          # lowest index among the noisy maxima
        return int(labels[0]) if counts.ndim == 1 else labels
    warnings.warn("lnmax_labels(secure=False) adds double-precision Laplace noise: the textbook "
                  "mechanism, not private as implemented (Mironov 2012); use secure=True for releases",
                  TextbookNoiseWarning, stacklevel=2)
    centred = (arr - arr.max(axis=1, keepdims=True)).astype(np.float64)
    noise = rng.laplace(0.0, scale, size=arr.shape)
    labels = np.argmax(centred + noise, axis=1).astype(np.int64)
    return int(labels[0]) if counts.ndim == 1 else labels
