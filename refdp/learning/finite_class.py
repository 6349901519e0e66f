r"""Learning over a finite hypothesis class with the exponential mechanism.

Lecture notes [W19]_ Sec. 9.1.2. For a finite class
:math:`\mathcal{H}` and a loss with values in :math:`[0, 1]`, the empirical
risk :math:`\hat R(h) = \frac1n \sum_i \ell(h, z_i)` changes by at most
:math:`1/n` when one record is replaced. The learner outputs :math:`h` with
probability

.. math::

    P[\hat h = h] = \frac{\exp(-\varepsilon n \hat R(h) / 2)}
                         {\sum_{h'} \exp(-\varepsilon n \hat R(h') / 2)},

the exponential mechanism ([MT07]_ Theorem 6) with utility :math:`-\hat R`
and sensitivity :math:`1/n`: it is :math:`\varepsilon`-DP for replace-one
neighbours, and with probability at least :math:`1 - \beta`,

.. math::

    \hat R(\hat h) - \min_h \hat R(h) \le \frac{2}{n\varepsilon}
    \Bigl(\ln|\mathcal{H}| + \ln\frac1\beta\Bigr).

The lecture's constant :math:`4/(n\varepsilon)` corresponds to the
sensitivity :math:`2/n`; refdp uses :math:`1/n`, which holds for every loss
with values in :math:`[0, 1]`, and proves both statements in
docs/theory/learning.rst. Using :math:`\exp(-\varepsilon n \hat R)` instead
would only be :math:`2\varepsilon`-DP.

References
----------
.. [W19] Y.-X. Wang, "DPML I: Introduction and Posterior Sampling", lecture
   notes (Lecture 9), Sec. 9.1.2, Eq. (9.6).
.. [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
   Privacy", FOCS 2007, Theorem 6.
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Theorem 3.11.
"""
from __future__ import annotations


import numpy as np

from fractions import Fraction

from ..utils.constraints import CONTEXT, DIGITS, FLAG, POSITIVE, RNG, Array, Checked, StrictInt, constrained
from ..utils.validation import Described, Interval, parameter_error
from ..utils.exact import fraction_vector
from ..mechanisms.exponential import _float_probabilities, exponential_mechanism_distribution
from ..utils.precision import iv_context
from ..verify.verdict import lower, upper
from ..utils.inversion import certified_inverse_cdf_index
from ..utils.rounding import float_at_least

__all__ = [
    "empirical_risks",
    "exponential_mechanism_learner",
    "exponential_mechanism_learner_distribution",
    "exponential_mechanism_learner_utility_bound",
    "PRIVATE_MECHANISMS",
]

#: Public functions that release private output; each is covered by a check in
#: proofs_checks/lecture_notes/exponential_mechanism_learner_privacy.py.
PRIVATE_MECHANISMS = ("refdp.learning.finite_class.exponential_mechanism_learner",)

_UNIT = Interval(float, 0, 1)
_SAMPLES = Interval(int, 1, 2**63 - 1)        # n R(h) stays far inside the double range
_HYPOTHESES = Interval(int, 1, None)
_BETA = Interval(float, 0, 1, closed="right")


@constrained(losses=Array(ndim=2, interval=_UNIT, min_size=0))
def empirical_risks(losses):
    """Empirical risk of every hypothesis from its per-record losses.

    Parameters
    ----------
    losses : array_like of float, shape (n_hypotheses, n_samples)
        ``losses[h, i]`` is the loss of hypothesis ``h`` on record ``i``, in
        ``[0, 1]``; at least one hypothesis and one record.

    Returns
    -------
    ndarray of float, shape (n_hypotheses,)
        ``losses.sum(axis=1) / n_samples``.

    Raises
    ------
    ValueError
        If ``losses`` is not 2-dimensional, has no hypothesis or no record,
        or holds a value outside ``[0, 1]`` (NaN included).

    Examples
    --------
    >>> from refdp.learning import empirical_risks
    >>> empirical_risks([[0, 1, 1, 0], [0, 0, 0, 1]]).tolist()
    [0.5, 0.25]
    """
    owner = "empirical_risks"
    if losses.shape[0] < 1 or losses.shape[1] < 1:
        raise parameter_error("losses", owner, "an array with at least one hypothesis (row) and "
                              "one record (column)", losses)
    return losses.sum(axis=1) / losses.shape[1]


#: ``n_samples`` is a count: an integer type (not a float that happens to be integral).
N_SAMPLES = StrictInt(_SAMPLES)
#: Empirical risks of the float paths.
RISKS = Array(ndim=1, min_size=1, interval=_UNIT)


def _float_law(risks, n_samples, epsilon):
    """The probabilities the sampler uses: scores ``-n R`` with the scale ``epsilon / 2``."""
    return _float_probabilities(-(n_samples * risks), epsilon, 1.0, False)


@constrained(risks=RISKS, n_samples=N_SAMPLES, epsilon=POSITIVE, rng=RNG)
def exponential_mechanism_learner(risks, epsilon, *, n_samples, rng=None):
    r"""Sample a hypothesis with probability proportional to ``exp(-epsilon n R(h) / 2)``.

    Epsilon-DP for replace-one neighbours when ``risks`` are the empirical
    risks, on a dataset of ``n_samples`` records, of a loss with values in
    ``[0, 1]`` ([W19]_ Sec. 9.1.2; [MT07]_ Theorem 6 with sensitivity
    ``1/n``). The class and the loss must not depend on the data.

    Parameters
    ----------
    risks : array_like of float, shape (n_hypotheses,)
        Empirical risks ``R(h)`` in ``[0, 1]`` (see :func:`empirical_risks`);
        at least one hypothesis.
    epsilon : float > 0
        Privacy parameter (second, as in
        :func:`refdp.mechanisms.exponential_mechanism`).
    n_samples : int in [1, 2**63 - 1], keyword-only
        Number of records ``n`` the risks average over; an integer type (a
        float such as ``1.0`` is rejected, so that a swapped ``epsilon`` cannot
        pass as a count).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    int
        Index of the chosen hypothesis.

    See Also
    --------
    exponential_mechanism_learner_distribution : the probabilities used here.
    exponential_mechanism_learner_utility_bound : the excess-risk guarantee.

    Notes
    -----
    **Neighbours.** Replace-one only: the guarantee is stated for datasets of
    the same size ``n``. (For add/remove neighbours, use
    :func:`refdp.learning.one_posterior_sample` with ``loss_bound=1`` and
    ``neighbours="add_remove"``.)

    **Sampling.** The probabilities are those of
    ``exponential_mechanism_learner_distribution(risks, epsilon, n_samples=n_samples)``
    (doubles, normalised by one pass of :func:`refdp.core.logsumexp`), used as
    computed: the output is ``k`` with probability exactly ``p_k / T``,
    ``T`` the *exact* sum of those doubles, as in
    :func:`refdp.mechanisms.exponential_mechanism`. The draw is certified
    from one floating-point running sum and ``rng.random()`` with an
    a-priori error bound; in the rare undecided case exact integer sums are
    formed and further bits are read from ``rng`` (docs/theory/learning.rst,
    Propositions 6 and 7). The law is exact either way, but the running time
    is not constant.

    Examples
    --------
    >>> from refdp.learning import exponential_mechanism_learner
    >>> exponential_mechanism_learner([0.5, 0.1, 0.3], 1.0, n_samples=100, rng=0)
    1
    """
    return certified_inverse_cdf_index(_float_law(risks, n_samples, epsilon), rng.random(), rng)


@constrained(
    exact=FLAG, dps=DIGITS,
    risks=Checked("in the body: floats in [0, 1] (exact=False) or exact reals in [0, 1]",
                  invalid=([], [float("nan")], [1.5], [-0.25], "abc", None, [[0.5]])),
    n_samples=N_SAMPLES, epsilon=POSITIVE, ctx=CONTEXT,
)
def exponential_mechanism_learner_distribution(risks, epsilon, *, n_samples, exact=False, dps=50, ctx=None):
    """Output distribution of :func:`exponential_mechanism_learner`.

    ``P[h] = exp(-epsilon n R(h) / 2) / sum_h' exp(-epsilon n R(h') / 2)``
    ([W19]_ Sec. 9.1.2).

    Parameters
    ----------
    risks : array_like, shape (n_hypotheses,)
        Empirical risks in ``[0, 1]``. With ``exact=True`` each may be an int,
        float, :class:`fractions.Fraction`, :class:`decimal.Decimal` or numeric
        string, used at its exact value (e.g. ``Fraction(errors, n)``).
    epsilon : float > 0
        Used at its exact binary value when ``exact=True``.
    n_samples : int in [1, 2**63 - 1], keyword-only
        An integer type, as in :func:`exponential_mechanism_learner`.
    exact : bool, default False
        False: the doubles the sampler uses (computed with
        :func:`refdp.core.logsumexp`; see
        :func:`refdp.mechanisms.exponential_mechanism_distribution` for their
        rounding). True: mpmath, from the exponents ``-epsilon n R(h) / 2``
        formed exactly in rational arithmetic.
    dps : int >= 1, default 50
        Decimal digits of the mpmath results (``exact=True`` only).
    ctx : mpmath context, optional
        Compute in this context (implies ``exact=True``; ``dps`` is then
        ignored): an interval context (:func:`refdp.utils.precision.iv_context`)
        gives rigorous enclosures computed with outward rounding; see
        :func:`refdp.mechanisms.exponential_mechanism_distribution`.

    Returns
    -------
    ndarray of float, list of mpmath.mpf or list of intervals

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from refdp.learning import exponential_mechanism_learner_distribution
    >>> p = exponential_mechanism_learner_distribution([F(0), F(1, 4)], 2.0, n_samples=4, exact=True, dps=20)
    >>> import mpmath
    >>> mpmath.nstr(p[0], 15)       # 1 / (1 + e^{-1})
    '0.731058578630005'
    """
    owner = "exponential_mechanism_learner_distribution"
    exact = exact or ctx is not None
    if not exact:
        risks = RISKS.validate(risks, "risks", owner)
        return _float_law(risks, n_samples, epsilon)
    values = fraction_vector(risks, "risks", owner)
    for i, r in enumerate(values):
        if not 0 <= r <= 1:
            given = risks[i].item() if isinstance(risks[i], np.generic) else risks[i]
            raise parameter_error("risks", owner, "an array with every element in the range [0, 1]",
                                  Described(f"{given!r} at position ({i},)"))
    return exponential_mechanism_distribution.__wrapped__([-n_samples * r for r in values], Fraction(epsilon),
                                                          sensitivity=Fraction(1), exact=True, dps=dps, ctx=ctx)


@constrained(n_samples=N_SAMPLES, n_hypotheses=_HYPOTHESES, epsilon=POSITIVE, beta=_BETA)
def exponential_mechanism_learner_utility_bound(epsilon, beta, *, n_samples, n_hypotheses):
    r"""Excess empirical risk of the learner that is exceeded with probability at most ``beta``.

    ``(2 / (n epsilon)) (ln |H| + ln(1 / beta))`` ([W19]_ Eq. (9.6) with
    sensitivity ``1/n``; [DR14]_ Theorem 3.11; proof in
    docs/theory/learning.rst): for every dataset,
    ``P[R(h) - min_h' R(h') > bound] <= beta``.

    Parameters
    ----------
    epsilon : float > 0
    beta : float in (0, 1]
    n_samples : int in [1, 2**63 - 1], keyword-only
        An integer type, as in :func:`exponential_mechanism_learner`.
    n_hypotheses : int >= 1, keyword-only
        Size of the hypothesis class.

    Returns
    -------
    float
        The bound, rounded upward (never below the exact value).

    Examples
    --------
    >>> from refdp.learning import exponential_mechanism_learner_utility_bound
    >>> round(exponential_mechanism_learner_utility_bound(1.0, 0.05, n_samples=1000, n_hypotheses=100), 6)
    0.015202
    """
    return float_at_least(_utility_bound_enclosure(n_samples, n_hypotheses, epsilon, beta)[1])


def _utility_bound_enclosure(n_samples, n_hypotheses, epsilon, beta, dps=40):
    """Rigorous enclosure ``(lower, upper)`` (``mpmath.mpf``) of the utility bound.

    Computed in interval arithmetic (a context owned by the call) from the
    exact values of the (validated) arguments.
    """
    iv = iv_context(dps)
    two_over = iv.mpf(2) / (iv.mpf(int(n_samples)) * iv.mpf(float(epsilon)))
    value = two_over * (iv.log(iv.mpf(int(n_hypotheses))) - iv.log(iv.mpf(float(beta))))
    return lower(value), upper(value)

