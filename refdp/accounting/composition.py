"""Composition theorems: basic, advanced (Dwork–Rothblum–Vadhan), zCDP, and PATE's quick form.

Every bound here is checked against the exact optimal composition of
:mod:`refdp.accounting.optimal_composition` (tests and ``proofs_checks``).
For k mechanisms that are each epsilon-DP, on the same delta, the exact
inequalities ``optimal <= zCDP <= PATE quick <= advanced`` and
``optimal <= basic`` hold (proofs in ``docs/theory/accounting.rst``).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

from ..utils.constraints import PRIVACY_OR_INF, PROBABILITY_RESULT, Array, Optional, constrained, constrained_fields
from ..utils.validation import Interval, parameter_error
from ..utils.rounding import ceil_fraction, ceil_interval, interval_context, shared_interval_context
from .conversions import DELTA, NONNEGATIVE, POSITIVE, finite_bound

__all__ = ["EpsilonDelta", "basic_composition", "advanced_composition",
           "zcdp_composition", "pate_quick_composition"]

_COUNT = Interval(int, 1, None)


@constrained_fields(epsilon=PRIVACY_OR_INF, delta=PROBABILITY_RESULT)
class EpsilonDelta(NamedTuple):
    """An (epsilon, delta)-DP guarantee; unpacks as ``epsilon, delta = ...``.

    ``epsilon`` is in [0, inf] and ``delta`` in [0, 1] (checked when built).
    ``epsilon = inf`` is no guarantee, given only where the bound is infinite
    (:func:`advanced_composition` with ``delta_prime = 0``), never for a
    finite bound that overflows.
    """

    epsilon: float
    delta: float


def _ceil_probability(q: Fraction) -> float:
    # a delta above 1 says nothing more than delta = 1
    return min(1.0, ceil_fraction(q))


@constrained(epsilons=Array(ndim=1, interval=POSITIVE),
             deltas=Optional(Array(ndim=1, interval=DELTA)))
def basic_composition(epsilons, deltas=None):
    """Basic composition: (sum epsilon_i, sum delta_i)-DP.

    The adaptive composition of mechanisms that are (epsilon_i, delta_i)-DP
    is (sum_i epsilon_i, sum_i delta_i)-DP (Dwork and Roth 2014, Thm. 3.16).

    Parameters
    ----------
    epsilons : array_like of float, shape (k,)
        Each in (0, inf); at least one.
    deltas : array_like of float, shape (k,), optional
        Each in [0, 1); default all zero.

    Returns
    -------
    EpsilonDelta
        Both sums computed exactly (rationals) and rounded up; delta capped at 1.

    Raises
    ------
    ValueError
        If ``epsilons`` is empty or has an entry outside (0, inf) or a sum
        above the largest float, or ``deltas`` has a different shape or an
        entry outside [0, 1).

    References
    ----------
    .. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", 2014, Theorem 3.16.
    """
    eps = epsilons
    total_delta = Fraction(0)
    if deltas is not None:
        d = deltas
        if d.shape != eps.shape:
            raise parameter_error("deltas", "basic_composition",
                                  f"an array of the same shape as 'epsilons' {eps.shape}", d)
        total_delta = sum(map(Fraction, d.tolist()), Fraction(0))
    total_eps = sum(map(Fraction, eps.tolist()), Fraction(0))
    bound = finite_bound(ceil_fraction(total_eps), "epsilons", "basic_composition",
                         "an array of epsilons whose sum is below the largest float", epsilons)
    return EpsilonDelta(bound, _ceil_probability(total_delta))


#: Largest per-mechanism epsilon of :func:`advanced_composition`: the bound,
#: vacuous long before, is then above 7e306 and overflows a float by 705.
_ADVANCED_EPSILON = Interval(float, 0, 700, closed="right")


def advanced_epsilon(epsilon, k, delta_prime) -> float:
    """The epsilon of :func:`advanced_composition` for ``delta_prime > 0``, rounded up (inf if it overflows)."""
    with interval_context() as iv:
        e = iv.mpf(epsilon)
        value = e * iv.sqrt(2 * k * -iv.ln(iv.mpf(delta_prime))) + k * e * (iv.exp(e) - 1)
        return ceil_interval(value)


@constrained(epsilon=_ADVANCED_EPSILON, k=_COUNT, delta_prime=DELTA, delta=DELTA)
def advanced_composition(epsilon, k, delta_prime, delta=0.0):
    """Advanced composition of k (epsilon, delta)-DP mechanisms (Dwork, Rothblum and Vadhan).

    The k-fold adaptive composition is
    ``(epsilon sqrt(2 k ln(1/delta')) + k epsilon (e**epsilon - 1), k delta + delta')``-DP
    (Dwork, Rothblum and Vadhan 2010, Thm. III.3; Dwork and Roth 2014,
    Thm. 3.20).

    Parameters
    ----------
    epsilon : float in (0, 700]
        Per-mechanism epsilon (beyond 700 the bound overflows a float).
    k : int >= 1
        Number of mechanisms; refused when the bound exceeds the largest
        float (it is then refused rather than rounded to inf).
    delta_prime : float in [0, 1)
        The slack delta'. ``0`` gives ``epsilon = inf`` (no guarantee).
    delta : float in [0, 1), default 0
        Per-mechanism delta.

    Returns
    -------
    EpsilonDelta
        epsilon by interval evaluation, delta exactly; both rounded up, delta
        capped at 1.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above or NaN.

    References
    ----------
    .. [1] C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential
       Privacy", FOCS 2010, Theorem III.3.
    """
    total_delta = _ceil_probability(k * Fraction(delta) + Fraction(delta_prime))
    if delta_prime == 0.0:
        return EpsilonDelta(math.inf, total_delta)
    bound = advanced_epsilon(epsilon, k, delta_prime)
    if math.isinf(bound):
        raise parameter_error("k", "advanced_composition", "an int >= 1 for which the composed epsilon "
                              f"is below the largest float (epsilon = {epsilon!r})", k)
    return EpsilonDelta(bound, total_delta)


@constrained(rhos=Array(ndim=1, interval=NONNEGATIVE))
def zcdp_composition(rhos):
    """zCDP composition: mechanisms that are rho_i-zCDP compose to (sum rho_i)-zCDP.

    (Bun and Steinke 2016, Lemma 1.7.) Combined with
    :func:`~refdp.accounting.pure_dp_to_zcdp` and
    :func:`~refdp.accounting.zcdp_to_dp` this gives, for k epsilon-DP
    mechanisms, ``k epsilon**2 / 2 + epsilon sqrt(2 k ln(1/delta))``.

    Parameters
    ----------
    rhos : array_like of float, shape (k,)
        Each in [0, inf); at least one.

    Returns
    -------
    float
        The sum, computed exactly and rounded up.

    Raises
    ------
    ValueError
        If ``rhos`` is empty or has a negative, infinite or NaN entry, or a
        sum above the largest float.

    References
    ----------
    .. [1] M. Bun and T. Steinke, "Concentrated Differential Privacy:
       Simplifications, Extensions, and Lower Bounds", TCC 2016, Lemma 1.7.
    """
    return finite_bound(ceil_fraction(sum(map(Fraction, rhos.tolist()), Fraction(0))), "rhos",
                        "zcdp_composition", "an array of rhos whose sum is below the largest float", rhos)


@constrained(gamma=POSITIVE, n_queries=_COUNT, delta=DELTA)
def pate_quick_composition(gamma, n_queries, delta):
    """PATE's closed-form epsilon for T answers of LNMax: 4 T gamma**2 + 2 gamma sqrt(2 T ln(1/delta)).

    This is the formula of PATE Section 3.1 (Papernot et al. 2017), which the
    paper attributes to the strong composition theorem. It gives the paper's
    numbers: epsilon = 5.7985... (reported as 5.80) for ``gamma = 0.05``,
    ``T = 100``, ``delta = 1e-5``, and 26.6226... (reported as about 26) for
    ``T = 1000``, ``delta = 1e-6``. It equals
    :func:`advanced_composition` with epsilon_0 = 2 gamma and
    ``e**epsilon_0 - 1`` replaced by epsilon_0, so it is smaller than that
    bound (which gives 5.850 and 27.14 on the same inputs); it is valid because
    it exceeds the zCDP bound ``2 T gamma**2 + 2 gamma sqrt(2 T ln(1/delta))``
    by ``2 T gamma**2`` (proof in ``docs/theory/accounting.rst``).

    Parameters
    ----------
    gamma : float in (0, inf)
        Inverse Laplace scale of LNMax; each answer is (2 gamma)-DP.
    n_queries : int >= 1
        Number of answered queries T.
    delta : float in [0, 1)
        Target delta; ``0`` gives ``inf``.

    Returns
    -------
    float
        epsilon, by interval evaluation, rounded up.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above or NaN, or epsilon
        exceeds the largest float.

    References
    ----------
    .. [1] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private
       Training Data", ICLR 2017, Section 3.1.
    """
    if delta == 0.0:
        return math.inf
    bound = _quick_epsilon(gamma, n_queries, delta)
    if math.isinf(bound):
        name = "gamma" if math.isinf(_quick_epsilon(gamma, 1, delta)) else "n_queries"
        raise parameter_error(name, "pate_quick_composition", "a value for which the composed epsilon is "
                              f"below the largest float (gamma = {gamma!r}, n_queries = {n_queries!r})",
                              gamma if name == "gamma" else n_queries)
    return bound


def _quick_epsilon(gamma, n_queries, delta) -> float:
    """PATE's closed form for ``delta > 0``, rounded up (inf if it overflows)."""
    iv = shared_interval_context()                  # this thread's, at the fixed precision IV_PREC
    g = iv.mpf(gamma)
    value = 4 * n_queries * g * g + 2 * g * iv.sqrt(2 * n_queries * -iv.ln(iv.mpf(delta)))
    return ceil_interval(value)
