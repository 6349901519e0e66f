"""Averaging of teachers with Laplace noise, for agnostic learning (Dwork & Feldman, Cor. 4.7).

The training set is split at random into ``k`` disjoint parts (as for the soft
majority, :mod:`refdp.utils.partition`), one binary learner is trained
per part, and a query ``x`` is answered as follows: with ``v(x) = (1/k) sum_i
h_i(x)`` in ``[0, 1]`` (a single record moves a single ``h_i``, so ``v`` has
sensitivity ``1/k``), draw ``p = clip(v(x) + Z, 0, 1)`` with ``Z ~ Lap(b)``,
``b = 1 / (epsilon k)``, and output 1 with probability ``p``.

The released bit is 1 with probability

.. math::

    g(v) = E[\\mathrm{clip}(v + Z, 0, 1)]
         = v + \\frac{b}{2}\\left(e^{-v/b} - e^{-(1-v)/b}\\right),
    \\qquad 0 \\le v \\le 1,

(derived in docs/theory/soft_majority.rst), so the reference path samples one
Bernoulli(g(v)) directly: the bit has exactly the law of the two-step
procedure, no continuous noise is sampled in floating point (Mironov 2012) and
the probability is used as computed. ``clip(v + Z, 0, 1)`` is epsilon-DP (the
Laplace mechanism followed by clipping), hence so is the bit, for replace-one
and add/remove neighbours. Against the absolute loss of ``v`` the private bit
loses at most ``|g(v) - v| <= (b/2)(1 - e^{-1/b}) < 1/(epsilon k)`` in
expectation.

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Lemma 4.5, Lemma 4.6 and Corollary 4.7.
.. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
   Differential Privacy", CCS 2012.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..core import word_source

from ..utils.precision import ctx_expm1, ctx_rational, iv_context, law_context, mpf_values, raw_to_fraction
from ..utils.rounding import ceil_interval
from ..utils.constraints import CONTEXT, DIGITS, FLAG, Checked, constrained
from ..utils.validation import Interval, check_array, check_rng, check_scalar, parameter_error
from ._ensemble import _QUERIES, _RNG, TeacherEnsemble
from ..utils.validation import POSITIVE

__all__ = ["AveragedPrediction", "clipped_laplace_mean", "averaging_extra_error_bound",
           "PRIVATE_MECHANISMS"]

#: Public methods that release private output; each is covered by a check in
#: proofs_checks/dwork_feldman/corollary_4_7_averaging_privacy.py.
PRIVATE_MECHANISMS = ("refdp.prediction.averaging.AveragedPrediction.predict",)

_POSITIVE = POSITIVE
_UNIT = Interval(float, 0, 1)
_K = Interval(int, 1, None)
_DPS = Interval(int, 1, None)


def _exact_number(x, name, owner):
    """An exact rational from an int, float, Fraction or numeric string."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, str):
        try:
            return Fraction(x)
        except (ValueError, ZeroDivisionError):
            raise parameter_error(name, owner, "a real number", x) from None
    if isinstance(x, (bool, np.bool_)):
        raise parameter_error(name, owner, "a real number", x)
    try:
        return Fraction(x)
    except (TypeError, ValueError, OverflowError):
        raise parameter_error(name, owner, "a finite real number", x) from None


def _g_float(v, b):
    """E[clip(v + Lap(b), 0, 1)] in doubles for v <= 1/2 (accurate to a few ulps absolute)."""
    # v + (b/2)(e^{-v/b} - e^{-(1-v)/b}) = v - (b/2) e^{-v/b} expm1(-(1-2v)/b)
    with np.errstate(over="ignore"):          # v / b = inf for a tiny b: exp(-inf) = 0, the exact limit
        return v - 0.5 * b * np.exp(-v / b) * np.expm1(-(1.0 - 2.0 * v) / b)


@constrained(
    dps=DIGITS, exact=FLAG, ctx=CONTEXT,
    v=Checked("in the body: floats in [0, 1] (exact=False) or an exact real in [0, 1]",
              invalid=(float("nan"), -0.5, 1.5, float("inf"), "abc", None, [float("nan")])),
    scale=Checked("in the body: a float in (0, inf) (exact=False) or an exact positive real",
                  invalid=(float("nan"), 0.0, -1.0, float("inf"), "abc", None)),
)
def clipped_laplace_mean(v, scale, *, exact=False, dps=50, ctx=None):
    """``E[clip(v + Z, 0, 1)]`` for ``Z ~ Laplace(0, scale)`` and ``v`` in ``[0, 1]``.

    Closed form ``g(v) = v + (b/2)(exp(-v/b) - exp(-(1-v)/b))``, ``b = scale``
    (docs/theory/soft_majority.rst): the probability that the averaged
    prediction of [DF18]_ Corollary 4.7 outputs 1 when the mean vote is ``v``.
    It satisfies ``g(1 - v) = 1 - g(v)``.

    Parameters
    ----------
    v : array_like of float in [0, 1], or (exact=True) a real number
    scale : float > 0
        Laplace scale ``b``.
    exact : bool, default False
        False: doubles; for ``v > 1/2`` the value is ``1 - g(1 - v)`` so that
        ``1 - g`` is accurate where it is small. True: ``v`` must be a single
        number (int, float, Fraction or numeric string, used at its exact
        value) and the result is an mpmath number at ``dps`` digits (guard
        digits are added for the cancellation when ``b`` is large).
    dps : int >= 1, default 50
    ctx : mpmath context, optional
        Compute in this context (implies ``exact=True``; ``dps`` is then
        ignored): with an interval context
        (:func:`refdp.utils.precision.iv_context`) the result is a rigorous
        enclosure computed with outward rounding; with a real context, one
        of its numbers. The context is not modified.

    Returns
    -------
    ndarray of float, float, mpmath.mpf, or (interval ``ctx``) an interval

    Examples
    --------
    >>> round(clipped_laplace_mean(0.0, 0.1), 6)   # (b/2)(1 - e^(-1/b))
    0.049998
    >>> float(clipped_laplace_mean(0.5, 3.0))
    0.5
    """
    owner = "clipped_laplace_mean"
    if exact or ctx is not None:
        vv = _exact_number(v, "v", owner)
        bb = _exact_number(scale, "scale", owner)
        if not 0 <= vv <= 1:
            raise parameter_error("v", owner, "a real number in the range [0, 1]", v)
        if bb <= 0:
            raise parameter_error("scale", owner, "a real number in the range (0, inf)", scale)
        guard = 10 + len(str(int(1 + bb))) - 1           # 10 + floor(log10(1 + b)), about
        c = law_context(ctx, dps, guard)
        b = ctx_rational(c, bb)
        x = ctx_rational(c, vv)
        g = x + b / 2 * (c.exp(-x / b) - c.exp(-(1 - x) / b))
        return mpf_values([g], ctx, dps)[0]
    scale = check_scalar(scale, "scale", owner, _POSITIVE)
    arr = check_array(v, "v", owner, interval=_UNIT)
    low = arr <= 0.5
    out = np.where(low, _g_float(np.where(low, arr, 0.0), scale),
                   1.0 - _g_float(np.where(low, 0.0, 1.0 - arr), scale))
    return out if out.ndim else float(out)


@constrained(epsilon=_POSITIVE, k=_K, tight=FLAG)
def averaging_extra_error_bound(epsilon, k, *, tight=False):
    """Bound on the extra expected error of the private bit over the averaged vote.

    For every point and label, ``E|y - bit| - |y - v(x)| <= |g(v) - v|``
    ([DF18]_ Lemma 4.5 with a 1-Lipschitz loss, Corollary 4.7).

    Parameters
    ----------
    epsilon : float > 0
    k : int >= 1
    tight : bool, default False
        False: ``E|Lap(b)| = b = 1 / (epsilon k)``, the paper's bound.
        True: the exact supremum over ``v`` of ``|g(v) - v|``,
        ``(b/2)(1 - exp(-1/b))``, attained at ``v = 0`` and ``v = 1``.

    Returns
    -------
    float
        Rounded upward: never below the exact value.
    """
    b = 1 / (Fraction(epsilon) * k)
    if not tight:
        value = float(b)
        return value if Fraction(value) >= b else float(np.nextafter(value, np.inf))
    iv = iv_context(40)
    bm = ctx_rational(iv, b)
    return ceil_interval(bm / 2 * -ctx_expm1(iv, -1 / bm))



def _g_enclosure(w, b, dps):
    """Exact rational bounds ``lo <= g(w) <= hi`` from an interval evaluation at ``dps`` digits."""
    x = clipped_laplace_mean(w, b, ctx=iv_context(dps))
    return raw_to_fraction(x._mpi_[0]), raw_to_fraction(x._mpi_[1])


def _exact_bernoulli_g(counts, k, b, rng):
    """``U_i < g(min(c_i, k - c_i) / k)`` for ideal uniforms ``U_i``, decided exactly.

    ``U_i``'s first 53 bits are ``rng.random()``; while its dyadic interval
    ``[r, r + 1) 2**-m`` straddles the enclosure of ``g``, 64 more bits are
    read and the enclosure is tightened (see :meth:`AveragedPrediction.predict`).
    """
    n = len(counts)
    u = rng.random(n)
    out = np.zeros(n, dtype=bool)
    cache = {}
    word = None
    for i in range(n):
        c = int(counts[i])
        wn = min(c, k - c)
        r, m = int(u[i] * 2**53), 53
        if 2 * wn == k:                              # g(1/2) = 1/2 exactly
            out[i] = r < 2**52
            continue
        dps = 20
        while True:
            key = (wn, dps)
            if key not in cache:
                cache[key] = _g_enclosure(Fraction(wn, k), b, dps)
            lo, hi = cache[key]
            if (r + 1) * lo.denominator <= lo.numerator << m:      # U < (r + 1) 2**-m <= lo <= g
                out[i] = True
                break
            if r * hi.denominator >= hi.numerator << m:            # U >= r 2**-m >= hi >= g
                break
            if word is None:
                word = word_source(rng.bit_generator)
            r, m = (r << 64) | word(), m + 64
            dps *= 2
    return out

class AveragedPrediction(TeacherEnsemble):
    """Private binary prediction by noisy averaging of ``k`` teachers ([DF18]_ Corollary 4.7).

    Each answer to one query is ``epsilon``-DP with respect to the training set,
    for replace-one and add/remove neighbours; ``q`` answers cost ``q * epsilon``.

    Parameters
    ----------
    epsilon : float > 0
    k : int >= 1
        Number of parts and teachers; the Laplace scale is ``1 / (epsilon k)``.
    learner : class, callable or estimator
        Binary learner (see :mod:`refdp.utils.partition`).
    classes : sequence of two distinct labels, default (0, 1)
        Declared labels (never inferred; ``None`` is refused). ``classes[1]``
        plays the role of 1 in ``v(x)``; ``classes[0]`` is the vote of an
        empty part.
    neighbours : {"replace", "add_remove"}, default "replace"
        As for :class:`refdp.prediction.SoftMajority`.
    rng : None, int, SeedSequence, BitGenerator or Generator
    budget : None or refdp.accounting.PrivacyFilter, default None
        If given, every call of :meth:`predict` on ``q`` queries first charges
        ``q`` releases of the per-query guarantee to it, and releases nothing
        when the filter refuses (:class:`refdp.accounting.BudgetExhausted`).

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.prediction import AveragedPrediction
    >>> class Majority:
    ...     def fit(self, X, y):
    ...         self.label = int(2 * y.sum() >= len(y))
    ...         return self
    ...     def predict(self, X):
    ...         return np.full(len(X), self.label)
    >>> X = np.zeros((100, 1)); y = (np.arange(100) % 4 != 0).astype(int)
    >>> ap = AveragedPrediction(epsilon=1.0, k=10, learner=Majority, rng=0).fit(X, y)
    >>> ap.average_vote([[0.0]]).tolist()
    [1.0]
    >>> round(float(ap.prob_one([[0.0]])[0]), 6)   # 1 - (b/2)(1 - e^(-1/b)), b = 0.1
    0.950002
    """

    _binary = True

    @property
    def scale(self):
        """Laplace scale ``b = 1 / (epsilon k)``."""
        return 1.0 / (self.epsilon * self.k)

    def average_vote(self, Xq):
        """``v(x) = (1/k) sum_i h_i(x)`` per query (not private: for analysis)."""
        return self.vote_counts(Xq)[:, 1] / self.k

    def prob_one(self, Xq):
        """Exact ``P[output = classes_[1]]`` per query, ``g(v(x))``, in doubles (not private)."""
        return clipped_laplace_mean(self.average_vote(Xq), self.scale)

    @constrained(owner="TeacherEnsemble", Xq=_QUERIES)
    def predict_proba(self, Xq):
        """Exact output probabilities per query, columns in the order of ``classes_`` (not private).

        ``P[classes_[1]] = g(v)`` and ``P[classes_[0]] = g(1 - v)`` (= ``1 - g(v)``),
        each from :func:`clipped_laplace_mean`, so neither loses accuracy to
        a subtraction.

        Returns
        -------
        ndarray of float, shape (q, 2)
        """
        v = self.average_vote(Xq)
        return np.column_stack([clipped_laplace_mean(1.0 - v, self.scale), clipped_laplace_mean(v, self.scale)])

    def exact_prob_one(self, Xq, dps=50):
        """As :meth:`prob_one`, in mpmath at ``dps`` digits from the exact ``v = n_1/k`` and ``b``."""
        counts = self.vote_counts(Xq)[:, 1]
        b = 1 / (Fraction(self.epsilon) * self.k)
        return [clipped_laplace_mean(Fraction(int(c), self.k), b, exact=True, dps=dps) for c in counts]

    @constrained(owner="TeacherEnsemble", Xq=_QUERIES, rng=_RNG)
    def predict(self, Xq, rng=None):
        """Private labels: ``classes_[1]`` with probability ``g(v(x))``, each epsilon-DP.

        Parameters
        ----------
        Xq : array_like of float, shape (q, d)
        rng : None, int, SeedSequence, BitGenerator or Generator, optional
            ``None`` uses the generator given at construction.

        Returns
        -------
        ndarray, shape (q,)

        Notes
        -----
        Reference path: one Bernoulli per query with the exact probability,
        rather than a Laplace draw followed by a Bernoulli. The two have the
        same law for the released bit (which is all that is released), and
        the direct path never samples continuous noise in floating point.
        The bit is drawn with *exactly* the probability of the proof: with
        ``v = n_1 / k`` and ``b = 1 / (epsilon k)`` as exact rationals and
        ``w = min(v, 1 - v)``, an ideal uniform ``U`` is compared with the
        exact ``g(w)`` (``classes_[1]`` when ``v <= 1/2`` and ``U < g(w)``,
        ``classes_[0]`` when ``v > 1/2`` and ``U < g(w) = 1 - g(v)``): ``U``'s
        first 53 bits are compared with an interval enclosure of ``g(w)`` at
        20 digits, and in the rare case (probability about ``2**-53`` per
        query) that they do not decide, 64 more bits of ``U`` are read and
        the enclosure is recomputed at twice the digits, until they do. This
        ends with probability 1: ``g(w)`` is irrational for ``w < 1/2``
        (Lindemann-Weierstrass), and ``g(1/2) = 1/2`` is compared exactly.
        """
        rng = self._rng if rng is None else check_rng(rng)
        counts = self.vote_counts(Xq)[:, 1].astype(np.int64)
        self._charge(counts.shape[0], "AveragedPrediction.predict")
        hit = _exact_bernoulli_g(counts, self.k, 1 / (Fraction(self.epsilon) * self.k), rng)
        low = 2 * counts <= self.k
        one = np.where(low, hit, ~hit)
        return self.classes_[one.astype(np.int64)]
