r"""The exact output law of LNMax, for many count vectors at once.

LNMax (Papernot et al. 2017, Eq. 1) answers a query with
:math:`\arg\max_j (n_j + \mathrm{Lap}(1/\gamma))` for the teachers' vote
counts :math:`n`. Its law is

.. math::

   P[M(n) = j] = \int_{-\infty}^{\infty} f(t - \gamma n_j)
                 \prod_{i \ne j} F(t - \gamma n_i)\, dt

with :math:`f, F` the density and distribution function of
:math:`\mathrm{Lap}(1)`. :func:`lnmax_distribution` evaluates it in double
precision with the compiled kernel of ``refdp/_lnmax.pyx`` (or its
pure-Python twin), and, with ``exact=True``, in mpmath through
:func:`refdp.mechanisms.report_noisy_max_distribution` (the twin the float
path is checked against).

Accuracy of the float path (docs/theory/pate.rst, "The exact LNMax law in
floating point"): pieces integrated in closed form or by the positive series
carry a running error bound of at most 1e-12 relative; the rare remaining
pieces are integrated numerically. Against mpmath, the largest error of
``log P`` measured over the random and adversarial count vectors of
``refdp verify`` is 8.6e-14 beyond the spacing of doubles near ``log P``
(a relative error of the probability), and the probabilities sum to 1
within 3.5e-14.

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Sec. 2.1, Eq. (1).
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Sec. 3.3 (report-noisy-max).
"""
from __future__ import annotations

import numpy as np

from ..mechanisms import report_noisy_max_distribution
from ..utils.validation import DPS, check_flag
from ..utils.precision import iv_context, mp_context, mpf_values
from ..mechanisms.discrete_argmax import discrete_argmax_law
from .discrete_analysis import lnmax_scale
from ..utils.validation import check_scalar
from ..utils.votes import check_counts, check_gamma_votes
from ._args import check_gamma
from ..utils.constraints import FLAG, constrained
from ._constraints import CONTEXT, COUNT_VECTOR_OR_ROWS, GAMMA
from ..core import lnmax_log_law_rows as log_law_rows

__all__ = ["lnmax_distribution"]


@constrained(counts=COUNT_VECTOR_OR_ROWS, gamma=GAMMA, log=FLAG, exact=FLAG, dps=DPS, ctx=CONTEXT, secure=FLAG)
def lnmax_distribution(counts, gamma, *, log=False, exact=False, dps=50, ctx=None, secure=False):
    """Exact output law of LNMax, ``argmax_j (n_j + Lap(1/gamma))`` ([PATE17]_ Eq. 1).

    Parameters
    ----------
    counts : array_like of int, shape (C,) or (Q, C)
        One count vector or Q of them; non-negative integers, each row with at
        least one vote.
    gamma : float > 0
        Inverse Laplace scale (each answer is (2 gamma, 0)-DP), with
        ``gamma * T <= MAX_GAMMA_VOTES`` (8192) for ``T`` the largest number
        of votes of a row: beyond it the double-precision kernel's exponents
        (terms of size ``gamma * T``) cancel and its numerical fallback
        would integrate ``gamma * T / 2`` mesh intervals per piece
        (docs/theory/pate.rst, "Range of gamma"); the answer is then the
        plurality class up to ``C exp(-8192 / T)`` per unit of gap.
    log : bool, default False
        Return natural logarithms of the probabilities (the float path keeps
        full relative accuracy for probabilities far below the double range).
    exact : bool, default False
        Compute in mpmath (``dps`` digits) with
        :func:`refdp.mechanisms.report_noisy_max_distribution` at epsilon =
        2 gamma (exact in binary), instead of the compiled float kernel.
    dps : int >= 1, default 50
        Digits of the mpmath computation (``exact=True`` only).
    ctx : mpmath context, optional
        Compute in this context (implies ``exact=True``; ``dps`` is then
        ignored): with an interval context
        (:func:`refdp.utils.precision.iv_context`) every probability (or
        logarithm) is a rigorous enclosure computed with outward rounding.
        The context is not modified.
    secure : bool, default False
        The law of ``lnmax_labels(counts, gamma)`` with its default
        ``secure=True`` instead: exact discrete Laplace noise of scale ``t``
        (:func:`refdp.pate.discrete_analysis.lnmax_scale`) on the integer
        counts, lowest index among the noisy maxima (finite sums of geometric
        series, ``discrete_argmax_law``). Without ``exact``/``ctx`` it is
        enclosed in interval arithmetic at ``dps`` digits and returned as the
        nearest doubles (or their logarithms).

    Returns
    -------
    ndarray of float, shape like ``counts``; or (exact=True) a list of mpmath
    numbers, or a list of such lists for 2-D input.

    Raises
    ------
    ValueError
        Bad ``gamma`` or ``dps`` (``gamma * T > 8192`` included), empty or
        negative counts, a row without votes, a row total beyond int64.

    Notes
    -----
    Ties among counts are allowed (equal counts get equal probabilities). The
    float kernel costs O(C^3) operations per vector in the worst case and
    far less for typical vote vectors (docs/theory/pate.rst). For C = 2 the
    law is the Laplace-difference tail of [PATE17]_ Lemma 4.

    Examples
    --------
    >>> from refdp.pate import lnmax_distribution
    >>> lnmax_distribution([3, 1, 0], 0.5).round(6).tolist()
    [0.639215, 0.229186, 0.131599]
    >>> lnmax_distribution([[250, 0], [125, 125]], 0.05).round(6).tolist()
    [[0.999986, 1.4e-05], [0.5, 0.5]]
    """
    owner = "lnmax_distribution"
    gamma = check_gamma(gamma, owner)
    log = check_flag(log, "log", owner)
    exact = check_flag(exact, "exact", owner) or ctx is not None
    dps = check_scalar(dps, "dps", owner, DPS)
    arr = check_counts(counts, owner, one_row=True)
    check_gamma_votes(gamma, arr, owner)
    one = np.ndim(counts) == 1
    if check_flag(secure, "secure", owner):
        t = lnmax_scale(gamma)
        laws = []
        for row in arr.tolist():
            c = ctx if ctx is not None else (mp_context(dps) if exact else iv_context(dps))
            p = discrete_argmax_law(row, t, c)
            if log:
                p = [c.log(v) for v in p]
            if exact:
                laws.append(mpf_values(p, ctx, dps))
            else:
                laws.append([float(v.mid) for v in p])          # enclosures far narrower than an ulp
        if exact:
            return laws[0] if one else laws
        out = np.array(laws, dtype=np.float64)
        return out[0] if one else out
    if exact:
        laws = []
        for row in arr.tolist():
            p = report_noisy_max_distribution(row, 2.0 * gamma, exact=True, dps=dps, ctx=ctx)
            if log:
                c = mp_context(dps) if ctx is None else ctx
                p = mpf_values([c.log(v) for v in p], ctx, dps)
            laws.append(p)
        return laws[0] if one else laws
    lp = log_law_rows(arr, gamma)
    out = lp if log else np.exp(lp)
    return out[0] if one else out
