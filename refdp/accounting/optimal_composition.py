"""Exact optimal composition of k epsilon-DP mechanisms (Kairouz, Oh and Viswanath 2015).

Randomized response with parameter epsilon outputs the true bit with
probability e**epsilon / (1 + e**epsilon). Every epsilon-DP mechanism is a
post-processing of it, so the k-fold product of randomized-response pairs
dominates every k-fold (adaptive) composition of epsilon-DP mechanisms, and the
bound is attained by the product itself (proof in ``docs/theory/accounting.rst``).
For that product, the likelihood ratio of an output sequence with l flipped
bits is ``e**((k - 2 l) epsilon)``, so its hockey-stick divergence at
``e**epsilon_total`` is the finite binomial sum::

    delta(epsilon_total) = sum_{l : (k - 2l) epsilon > epsilon_total}
        C(k, l) (e**((k - l) epsilon) - e**(epsilon_total + l epsilon)) / (1 + e**epsilon)**k.

This module evaluates it in mpmath; it is the reference every other
composition bound of :mod:`refdp.accounting` is checked against.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from .._precision import mp_context
from .._validation import Interval, check_scalar
from .._rounding import ceil_interval, ceil_mpf, interval_context
from .conversions import DELTA, NONNEGATIVE, POSITIVE

__all__ = ["optimal_composition_delta", "optimal_composition_epsilon"]

_COUNT = Interval(int, 1, None)
_DPS = Interval(int, 15, None)
_MAX_UPWARD_STEPS = 64


def _bits(dps: int) -> int:
    return int(dps * 3.33) + 16


def _kov_delta(ctx, epsilon: float, k: int, epsilon_total: float):
    """The exact hockey-stick sum in the mpmath context ``ctx`` (a real or an interval context).

    The set of flip counts l with ``(k - 2l) epsilon > epsilon_total`` is
    decided exactly on the rationals equal to the float inputs, so every
    included term is positive and no ``max(0, .)`` is evaluated numerically.
    With an interval context the result is an interval containing the exact
    value; with a real context an approximation at its precision.
    """
    e, et = ctx.mpf(epsilon), ctx.mpf(epsilon_total)
    fe, fet = Fraction(epsilon), Fraction(epsilon_total)
    total = ctx.mpf(0)
    l = 0
    while l <= k and (k - 2 * l) * fe > fet:
        total += math.comb(k, l) * (ctx.exp((k - l) * e) - ctx.exp(et + l * e))
        l += 1
    return total / (1 + ctx.exp(e)) ** k


def _kov_epsilon(epsilon: float, k: int, delta: float, ctx):
    """The exact optimal epsilon at ``delta`` in the real mpmath context ``ctx``, at its precision.

    With A_j = P[l <= j] and B_j = Q[l <= j] under the product of
    randomized-response pairs, ``delta(t) = max_j (A_j - e**t B_j)`` (the
    hockey-stick divergence is a maximum over events, and the optimal event
    at t is ``{l <= j}`` for some j), so the least ``t >= 0`` with
    ``delta(t) <= delta`` is ``max(0, max_j ln((A_j - delta) / B_j))`` over
    the j with ``A_j > delta``. Only ``j < k/2`` can give a positive value.
    """
    e = ctx.mpf(epsilon)
    z = (1 + ctx.exp(e)) ** k
    d = ctx.mpf(delta)
    a = b = ctx.mpf(0)
    best = ctx.mpf(0)
    for j in range((k + 1) // 2):  # j < k/2
        c = math.comb(k, j)
        a += c * ctx.exp((k - j) * e) / z
        b += c * ctx.exp(j * e) / z
        if a > d:
            best = max(best, ctx.ln((a - d) / b))
    return best


def optimal_composition_delta(epsilon, k, epsilon_total, dps=50):
    """Least delta such that every k-fold composition of epsilon-DP mechanisms is (epsilon_total, delta)-DP.

    Evaluates the hockey-stick divergence at ``e**epsilon_total`` of the
    product of k randomized-response pairs (Kairouz, Oh and Viswanath 2015,
    Thm. 3.3; SPEC section 0):

    ``sum_{l=0}^{k} C(k, l) / (1 + e**epsilon)**k * max(0, e**((k - l) epsilon) - e**epsilon_total e**(l epsilon))``.

    That product dominates every adaptive k-fold composition of epsilon-DP
    mechanisms and attains the value, so this delta is exact, not a bound.

    Parameters
    ----------
    epsilon : float in (0, inf)
        Per-mechanism epsilon.
    k : int >= 1
        Number of mechanisms.
    epsilon_total : float in [0, inf)
        Target epsilon of the composition; ``epsilon_total >= k epsilon``
        gives 0.
    dps : int >= 15, default 50
        Decimal digits of the interval evaluation. The result is a valid
        upper bound at any precision; more digits only narrow the interval.

    Returns
    -------
    float
        The upper end of an mpmath interval containing the exact delta,
        rounded up to a float (at most 1). Cost: O(k) interval operations on
        numbers of ``dps`` digits.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above or NaN.

    References
    ----------
    .. [1] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015, Theorem 3.3.
    """
    owner = "optimal_composition_delta"
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    k = check_scalar(k, "k", owner, _COUNT)
    epsilon_total = check_scalar(epsilon_total, "epsilon_total", owner, NONNEGATIVE)
    dps = check_scalar(dps, "dps", owner, _DPS)
    with interval_context(_bits(dps)) as iv:
        return min(1.0, max(0.0, ceil_interval(_kov_delta(iv, epsilon, k, epsilon_total))))


def optimal_composition_epsilon(epsilon, k, delta, dps=50):
    """Least epsilon_total such that every k-fold composition of epsilon-DP mechanisms is (epsilon_total, delta)-DP.

    The inverse of :func:`optimal_composition_delta`, which is continuous and
    non-increasing in ``epsilon_total``. Instead of bisecting it, the root is
    computed in closed form: on each interval between consecutive likelihood
    ratios the divergence is ``A_j - e**epsilon_total B_j``, so the exact
    answer is ``max(0, max_j ln((A_j - delta) / B_j))`` (Kairouz, Oh and
    Viswanath 2015, Thm. 3.3). The float returned is then confirmed: it is the
    value rounded up and, if an interval evaluation of
    :func:`optimal_composition_delta` at it does not show ``<= delta``, raised
    by one float spacing at a time until it does. The result is therefore
    never below the exact optimum.

    Parameters
    ----------
    epsilon : float in (0, inf)
        Per-mechanism epsilon.
    k : int >= 1
        Number of mechanisms.
    delta : float in [0, 1)
        Target delta; ``0`` gives ``k epsilon`` (rounded up).
    dps : int >= 15, default 50
        Decimal digits of the mpmath evaluation.

    Returns
    -------
    float
        epsilon_total, rounded up. Cost: O(k) mpmath operations.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above or NaN.
    ArithmeticError
        If the rounded value cannot be confirmed within 64 float spacings
        (not observed; raise ``dps``).

    References
    ----------
    .. [1] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015, Theorem 3.3.
    """
    owner = "optimal_composition_epsilon"
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    k = check_scalar(k, "k", owner, _COUNT)
    delta = check_scalar(delta, "delta", owner, DELTA)
    dps = check_scalar(dps, "dps", owner, _DPS)
    candidate = max(0.0, ceil_mpf(_kov_epsilon(epsilon, k, delta, mp_context(dps))))
    with interval_context(_bits(dps)) as iv:
        target = iv.mpf(delta)
        for _ in range(_MAX_UPWARD_STEPS):
            upper = _kov_delta(iv, epsilon, k, candidate).b
            if upper <= target:
                return candidate
            candidate = math.nextafter(candidate, math.inf)
    raise ArithmeticError(
        f"optimal_composition_epsilon could not confirm its result at dps={dps}; raise dps")
