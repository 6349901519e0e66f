"""Soft majority of teachers trained on disjoint random parts (Dwork & Feldman, Theorem 4.1).

The training set is split at random into ``k`` disjoint parts (rule and proof
in :mod:`refdp.utils.partition` and docs/theory/soft_majority.rst), one
learner is trained per part, and a query ``x`` is answered with label ``y``
with probability

.. math::

    P[y \\mid x] = \\frac{\\exp(\\varepsilon\\, n_y(x) / 2)}{\\sum_{y'} \\exp(\\varepsilon\\, n_{y'}(x) / 2)},
    \\qquad n_y(x) = \\#\\{i : h_i(x) = y\\},

the exponential mechanism on the vote counts. A single record lies in a single
part, so it can move a single vote: every count changes by at most 1, and each
answer is epsilon-DP for replace-one and for add/remove neighbours alike.
Using ``exp(epsilon n_y)`` instead would only be 2 epsilon-DP.

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Theorem 4.1.
.. [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
   Privacy", FOCS 2007, Theorem 6.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import core

from ..utils.precision import mp_context
from ..utils.constraints import CONTEXT, DIGITS, FLAG, Array, constrained
from ..utils.validation import Interval, check_rng, parameter_error
from ..mechanisms import exponential_mechanism_distribution
from ._ensemble import _QUERIES, _RNG, TeacherEnsemble
from ..utils.validation import POSITIVE

__all__ = ["SoftMajority", "soft_majority_k", "soft_majority_probabilities", "PRIVATE_MECHANISMS"]

#: Public methods that release private output; each is covered by a check in
#: proofs_checks/dwork_feldman/theorem_4_1_soft_majority_privacy.py.
PRIVATE_MECHANISMS = ("refdp.prediction.soft_majority.SoftMajority.predict",)

_EPSILON = POSITIVE
_ALPHA = Interval(float, 0, 1, closed="neither")
_CLASSES = Interval(int, 2, None)
_DPS = Interval(int, 1, None)


@constrained(epsilon=_EPSILON, alpha=_ALPHA, n_classes=_CLASSES)
def soft_majority_k(epsilon, alpha, n_classes=2):
    """Number of teachers for the soft-majority accuracy guarantee.

    Returns ``k = ceil(4 ln(2 (C - 1) / alpha) / epsilon)`` with ``C =
    n_classes``. For binary labels (``C = 2``) this is ``ceil(4 ln(2 / alpha)
    / epsilon)`` (derived in docs/theory/soft_majority.rst). With this ``k``, at every point
    where at most ``k / 4`` of the ``k`` votes are wrong, the soft majority
    errs with probability at most ``alpha / 2`` (proof in
    docs/theory/soft_majority.rst: the error is at most
    ``(C - 1) exp(-epsilon k / 4)``). The factor ``C - 1`` is needed: with
    ``C > 2`` classes each class without a vote still keeps probability
    ``exp(-epsilon n_y / 2)`` relative to the majority, and the binary ``k``
    can then miss ``alpha / 2``.

    Parameters
    ----------
    epsilon : float > 0
        Privacy parameter per prediction.
    alpha : float in (0, 1)
        Target: error probability at most ``alpha / 2`` at good points.
    n_classes : int >= 2, default 2
        Number of classes ``C``.

    Returns
    -------
    int
        ``k``. The logarithm and the division are evaluated in mpmath at 50
        digits from the exact values of the floats, so rounding cannot make
        ``k`` one too small.

    Examples
    --------
    >>> soft_majority_k(1.0, 0.1)
    12
    >>> soft_majority_k(1.0, 0.1, n_classes=10)
    21
    """
    c = mp_context(50)
    value = 4 * c.log(2 * (n_classes - 1) / c.mpf(alpha)) / c.mpf(epsilon)
    k = int(c.ceil(value))
    return max(k, 1)


@constrained(epsilon=_EPSILON, dps=DIGITS, exact=FLAG, ctx=CONTEXT,
             counts=Array(ndim=(1, 2), dtype="integer", interval=Interval(int, 0, None), min_size=0))
def soft_majority_probabilities(counts, epsilon, *, exact=False, dps=50, ctx=None):
    """Output law of the soft majority given the vote counts ([DF18]_ Theorem 4.1).

    ``P[y] = exp(epsilon n_y / 2) / sum_y' exp(epsilon n_y' / 2)``: the
    exponential mechanism ([MT07]_) with utility ``n_y`` of sensitivity 1,
    computed by :func:`refdp.mechanisms.exponential_mechanism_distribution`.

    Parameters
    ----------
    counts : array_like of int, shape (n_classes,) or (q, n_classes)
        Vote counts, non-negative.
    epsilon : float > 0
    exact : bool, default False
        False: doubles (the probabilities :meth:`SoftMajority.predict` samples
        from). True: mpmath numbers at ``dps`` digits.
    dps : int >= 1, default 50
    ctx : mpmath context, optional
        Compute in this context (implies ``exact=True``; ``dps`` is then
        ignored): an interval context (:func:`refdp.utils.precision.iv_context`)
        gives rigorous enclosures computed with outward rounding; see
        :func:`refdp.mechanisms.exponential_mechanism_distribution`.

    Returns
    -------
    ndarray of float, or list of mpmath.mpf (intervals with an interval ``ctx``) / list of lists
        Same leading shape as ``counts``.
    """
    owner = "soft_majority_probabilities"
    exact = exact or ctx is not None
    if counts.shape[-1] < 1:
        raise parameter_error("counts", owner, "an array with at least one class column", counts)
    rows = counts if counts.ndim == 2 else counts[None, :]
    if rows.shape[0] == 0:
        return [] if exact else np.empty((0, counts.shape[-1]))
    if exact:
        eps = Fraction(epsilon)
        out = [exponential_mechanism_distribution.__wrapped__([Fraction(int(c)) for c in row], eps,
                                                              sensitivity=Fraction(1), exact=True, dps=dps,
                                                              ctx=ctx)
               for row in rows]
        return out if counts.ndim == 2 else out[0]
    uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
    table = np.array([exponential_mechanism_distribution(row.astype(np.float64), epsilon) for row in uniq])
    out = table[np.asarray(inverse).ravel()]
    return out if counts.ndim == 2 else out[0]



def _exact_soft_majority_index(counts, half_eps: Fraction, rng) -> int:
    """Index ``j`` with probability ``exp(half_eps n_j) / sum_i exp(half_eps n_i)``, exactly.

    Rejection: ``j`` uniform on the classes, accepted with probability
    ``exp(-half_eps (max(n) - n_j))`` (an exact Bernoulli of the exponential
    of a negative rational), until accepted.
    """
    counts = [int(c) for c in counts]
    top = max(counts)
    n_classes = len(counts)
    bg = rng.bit_generator
    while True:
        j = core.uniform_below_draw(bg, n_classes) if n_classes > 1 else 0
        x = half_eps * (top - counts[j])
        if core.bernoulli_exp_draw(bg, x.numerator, x.denominator):
            return j

class SoftMajority(TeacherEnsemble):
    """Private prediction by the soft majority of ``k`` teachers ([DF18]_ Theorem 4.1).

    Each answer to one query is ``epsilon``-DP with respect to the training set,
    for replace-one and for add/remove neighbours; answering ``q`` queries with
    the same teachers is ``q * epsilon``-DP (basic composition).

    Parameters
    ----------
    epsilon : float > 0
        Privacy parameter per prediction.
    k : int >= 1
        Number of parts and teachers (see :func:`soft_majority_k`). Under
        replace-one neighbours ``k`` may not exceed the number of records.
    learner : class, callable or estimator
        Anything with ``fit(X, y)`` and ``predict(X)``: a factory returning a
        fresh learner, or an unfitted estimator that is cloned per part (see
        :mod:`refdp.utils.partition`).
    classes : int >= 2 or sequence of distinct labels, default (0, 1)
        Declared labels, in the order of :meth:`predict_proba`'s columns; an
        int ``C`` means ``0..C-1``. They are never inferred from the data (the
        set of labels present is private) and ``None`` is refused.
        ``classes[0]`` is the vote of an empty part.
    neighbours : {"replace", "add_remove"}, default "replace"
        The neighbour relation the guarantee is stated for. The mechanism is
        the same; under ``"add_remove"`` the number of records is not public,
        so ``k`` larger than it is accepted (surplus parts are empty).
    rng : None, int, SeedSequence, BitGenerator or Generator
        Normalised once with :func:`numpy.random.default_rng`; drives the
        partition, the teachers' streams (one per teacher, spawned) and
        :meth:`predict` when it is given no generator of its own.
    budget : None or refdp.accounting.PrivacyFilter, default None
        If given, every call of :meth:`predict` on ``q`` queries first charges
        ``q`` releases of the per-query guarantee to it, and releases nothing
        when the filter refuses (:class:`refdp.accounting.BudgetExhausted`).

    Attributes
    ----------
    classes_ : ndarray
    teachers_ : list
        Fitted teachers (a ``ConstantPredictor`` for empty or single-label parts).
    part_sizes_ : ndarray of int64, shape (k,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.prediction import SoftMajority
    >>> class Threshold:
    ...     def fit(self, X, y):
    ...         self.t = X[y == 1, 0].min() if (y == 1).any() else np.inf
    ...         return self
    ...     def predict(self, X):
    ...         return (X[:, 0] >= self.t).astype(int)
    >>> X = np.linspace(0, 1, 200)[:, None]; y = (X[:, 0] > 0.5).astype(int)
    >>> sm = SoftMajority(epsilon=1.0, k=15, learner=Threshold, rng=0).fit(X, y)
    >>> sm.vote_counts([[0.1], [0.9]]).tolist()
    [[15, 0], [0, 15]]
    >>> sm.predict_proba([[0.9]]).round(6).tolist()
    [[0.000553, 0.999447]]
    """

    @constrained(owner="TeacherEnsemble", Xq=_QUERIES)
    def predict_proba(self, Xq):
        """Exact output probabilities per query, in doubles (not private: for analysis).

        Parameters
        ----------
        Xq : array_like of float, shape (q, d)

        Returns
        -------
        ndarray of float, shape (q, n_classes)
            Row ``i`` is the law :meth:`predict` samples from at ``Xq[i]``,
            ``soft_majority_probabilities(vote_counts(Xq)[i], epsilon)``.
        """
        # counts from count_votes and epsilon validated at construction: not validated again
        return soft_majority_probabilities.__wrapped__(self.vote_counts(Xq), self.epsilon)

    def exact_proba(self, Xq, dps=50, ctx=None):
        """As :meth:`predict_proba`, in mpmath at ``dps`` digits (list of lists).

        With an mpmath context ``ctx`` the probabilities are computed in it
        (an interval context gives rigorous enclosures; see
        :func:`soft_majority_probabilities`).
        """
        return soft_majority_probabilities(self.vote_counts(Xq), self.epsilon, exact=True, dps=dps, ctx=ctx)

    @constrained(owner="TeacherEnsemble", Xq=_QUERIES, rng=_RNG)
    def predict(self, Xq, rng=None):
        """Private labels: each epsilon-DP with respect to the training set ([DF18]_ Theorem 4.1).

        Parameters
        ----------
        Xq : array_like of float, shape (q, d)
        rng : None, int, SeedSequence, BitGenerator or Generator, optional
            ``None`` uses the generator given at construction.

        Returns
        -------
        ndarray, shape (q,)
            Labels from ``classes_``.

        Notes
        -----
        For each query with vote counts ``n``, the output index is ``j`` with
        probability exactly ``exp(epsilon n_j / 2) / sum_i exp(epsilon n_i /
        2)``, the law of the proof (``epsilon`` at its exact binary value):
        a class ``j`` is drawn uniformly (exact integer rejection) and
        accepted with probability ``exp(-(epsilon/2)(max(n) - n_j))``, drawn
        exactly by Canonne, Kamath and Steinke's Bernoulli(exp(-x)) for the
        rational ``x`` (the compiled kernel, or its exact twin when ``x``
        does not fit 64-bit integers); otherwise the draw is repeated. The
        accepted class has probability proportional to ``exp(-(epsilon/2)
        (max(n) - n_j))``, i.e. the law above; at most ``n_classes`` rounds
        are needed on average. No floating-point number touches a
        probability. Answering ``q`` queries costs ``q * epsilon``.
        """
        rng = self._rng if rng is None else check_rng(rng)
        counts = self.vote_counts(Xq)
        self._charge(counts.shape[0], "SoftMajority.predict")
        half_eps = Fraction(self.epsilon) / 2
        out = np.array([_exact_soft_majority_index(row, half_eps, rng) for row in counts], dtype=np.int64)
        return self.classes_[out]
