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

import numpy as np
from scipy.special import gammaln

from ..utils.precision import iv_context, raw_to_fraction
from ..utils.rounding import ceil_fraction, ceil_interval
from ..utils.constraints import constrained
from ..utils.validation import Interval
from ._binomial import log_factorial, window_sums
from .conversions import DELTA, NONNEGATIVE

__all__ = ["optimal_composition_delta", "optimal_composition_epsilon"]

#: Largest epsilon accepted: the exact integers of the evaluation grow like e**epsilon.
MAX_EPSILON = 1e6
#: Largest k accepted: the cost grows linearly in k (about 2 s at 10**7).
MAX_K = 10 ** 7
#: Largest working precision accepted, in decimal digits.
MAX_DPS = 5000
_EPSILON = Interval(float, 0, MAX_EPSILON, closed="right")
_COUNT = Interval(int, 1, MAX_K)
_DPS = Interval(int, 15, MAX_DPS)
_MAX_STEPS = 64
#: Extra fixed-point bits: every step of the window recurrence loses at most
#: one unit in the last place, and a window has fewer than 2**24 steps.
_GUARD_BITS = 40


def _bits(dps: int) -> int:
    return int(dps * 3.33) + 16


class _Profile:
    """The k-fold randomized-response product at one epsilon, evaluated in a private interval context.

    Holds the interval constants (``e**epsilon``, ``ln p``, ``ln q``) and the
    fixed-point scale; :meth:`sums` gives certified ``A_j / P_j`` and
    ``B_j / Q_j`` for a set of ``j``; :meth:`log_pmf` encloses ``ln P_j``.
    """

    def __init__(self, epsilon: float, k: int, dps: int):
        self.k, self.epsilon, self.fe = k, epsilon, Fraction(epsilon)
        self.iv = iv = iv_context(dps)
        iv.prec = _bits(dps) + 8
        self.bits = iv.prec + _GUARD_BITS
        e = iv.mpf(epsilon)
        self.e = e
        log1pe = iv.log(1 + iv.exp(e))
        self.lnq = -log1pe
        self.lnp = e - log1pe
        scale = iv.mpf(2) ** self.bits
        up, down = iv.exp(e) * scale, iv.exp(-e) * scale
        self.e_up, self.e_lo = math.ceil(_hi(up)), math.floor(_lo(up))
        self.g_up, self.g_lo = math.ceil(_hi(down)), math.floor(_lo(down))
        # float helpers, only used to choose windows (never for a bound)
        self.flq = -math.log1p(math.exp(-epsilon)) - epsilon if epsilon < 700 else -epsilon
        self.flp = epsilon + self.flq
        self.mode = min((k - 1) // 2, int((k + 1) / (1 + math.exp(min(epsilon, 700)))))
        self.cut = self.bits * math.log(2) + 40

    # -- floats, to choose windows --
    def _flog_p(self, l: int) -> float:
        k = self.k
        return (math.lgamma(k + 1) - math.lgamma(l + 1) - math.lgamma(k - l + 1)
                + (k - l) * self.flp + l * self.flq)

    def _flog_q(self, l: int) -> float:
        return self._flog_p(l) - (self.k - 2 * l) * self.epsilon

    def window_start(self, j: int) -> int:
        """Largest l <= min(j, mode) below which both tails are negligible (0 if none)."""
        m = min(j, self.mode)
        ref_p, ref_q = self._flog_p(m), self._flog_q(j)

        def small(l):
            return self._flog_p(l) <= ref_p - self.cut and self._flog_q(l) <= ref_q - self.cut

        if not small(0):
            return 0
        a, b = 0, m          # small(a) holds; find the largest such l
        while b - a > 1:
            c = (a + b) // 2
            if small(c):
                a = c
            else:
                b = c
        return b if small(b) else a

    # -- certified --
    def sums(self, js):
        """``{j: (S_j, U_j)}``: intervals of ``A_j / P_j`` and ``B_j / Q_j``."""
        iv, k, bits = self.iv, self.k, self.bits
        want = set(js)
        lo = min(self.window_start(j) for j in want)
        tails = self._tails(lo)
        if tails is None:
            lo, tails = 0, (0, 0)
        raw = window_sums(k, lo, max(want), self.e_up, self.e_lo, self.g_up, self.g_lo,
                          tails[0], tails[1], bits, want)
        inv = iv.mpf(2) ** (-bits)
        return {j: (iv.mpf([a, b]) * inv, iv.mpf([c, d]) * inv)
                for j, (a, b, c, d) in raw.items()}

    def _tails(self, lo: int):
        """Scaled upper bounds of ``sum_{m < lo} P_m / P_lo`` and the same for Q (geometric)."""
        if lo == 0:
            return 0, 0
        one = 1 << self.bits
        d = (self.k - lo + 1) * one
        r_p = Fraction(lo * self.e_up, d)
        r_q = Fraction(lo * self.g_up, d)
        if r_p >= 1 or r_q >= 1:
            return None
        return (math.ceil(r_p / (1 - r_p) * one), math.ceil(r_q / (1 - r_q) * one))

    def log_pmf(self, j: int):
        """Interval of ``ln P_j = ln C(k, j) + (k - j) ln p + j ln q``."""
        iv, k = self.iv, self.k
        lc = log_factorial(iv, k) - log_factorial(iv, j) - log_factorial(iv, k - j)
        return lc + (k - j) * self.lnp + j * self.lnq

    def index(self, t) -> int:
        """Largest l with ``(k - 2l) epsilon > t``, decided exactly (-1 if none)."""
        x = (self.k - Fraction(t) / self.fe) / 2
        return math.ceil(x) - 1

    def delta(self, t: float):
        """Interval containing the exact ``delta(t)`` (``t >= 0``); ``None`` means exactly 0."""
        j = self.index(t)
        if j < 0:
            return None
        iv = self.iv
        s, u = self.sums([j])[j]
        c = iv.exp(iv.mpf(t) - (self.k - 2 * j) * self.e)
        return iv.exp(self.log_pmf(j)) * (s - c * u)

    def epsilon_j(self, j: int, delta: float):
        """Upper end of ``ln((A_j - delta) / B_j)`` as a float, or None when ``A_j <= delta`` may hold."""
        iv = self.iv
        s, u = self.sums([j])[j]
        rest = s - iv.mpf(delta) * iv.exp(-self.log_pmf(j))
        if _hi(rest) <= 0:
            return None
        if _lo(rest) <= 0:
            return math.inf
        return ceil_interval(iv.log(rest) - iv.log(u) + (self.k - 2 * j) * self.e)


def _lo(x) -> Fraction:
    """Exact lower end of an interval."""
    return raw_to_fraction(x._mpi_[0])


def _hi(x) -> Fraction:
    """Exact upper end of an interval."""
    return raw_to_fraction(x._mpi_[1])


def _float_estimate(epsilon: float, k: int, delta: float) -> int | None:
    """The index j maximising ``ln((A_j - delta) / B_j)`` in floating point (a guess, never a bound)."""
    l = np.arange((k + 1) // 2, dtype=np.float64)
    lnq = -np.logaddexp(0.0, epsilon)
    lnp = epsilon + lnq
    lp = gammaln(k + 1.0) - gammaln(l + 1.0) - gammaln(k - l + 1.0) + (k - l) * lnp + l * lnq
    lq = lp - (k - 2 * l) * epsilon
    la = np.logaddexp.accumulate(lp)
    lb = np.logaddexp.accumulate(lq)
    ld = math.log(delta)
    ok = la > ld
    if not ok.any():
        return None
    val = np.full(la.shape, -np.inf)
    val[ok] = la[ok] + np.log1p(-np.exp(ld - la[ok])) - lb[ok]
    return int(np.argmax(val))


@constrained(epsilon=_EPSILON, k=_COUNT, epsilon_total=NONNEGATIVE, dps=_DPS)
def optimal_composition_delta(epsilon, k, epsilon_total, dps=50):
    """Least delta such that every k-fold composition of epsilon-DP mechanisms is (epsilon_total, delta)-DP.

    Evaluates the hockey-stick divergence at ``e**epsilon_total`` of the
    product of k randomized-response pairs (Kairouz, Oh and Viswanath 2015,
    Thm. 3.3):

    ``sum_{l=0}^{k} C(k, l) / (1 + e**epsilon)**k * max(0, e**((k - l) epsilon) - e**epsilon_total e**(l epsilon))``.

    That product dominates every adaptive k-fold composition of epsilon-DP
    mechanisms and attains the value, so this delta is exact, not a bound.
    The sum is ``P_j (S_j - e**(epsilon_total - (k - 2j) epsilon) U_j)`` with
    ``j`` the last index of a positive term (decided exactly on the rationals
    of the float inputs), ``P_j`` enclosed through Stirling's series with its
    remainder bound, and ``S_j = A_j / P_j``, ``U_j = B_j / Q_j`` summed
    from ``j`` downwards in fixed-point interval arithmetic over a window of
    ``O(sqrt(k))`` terms plus a certified geometric bound of the rest
    (``docs/theory/accounting.rst``, section 5).

    Parameters
    ----------
    epsilon : float in (0, 1e6]
        Per-mechanism epsilon.
    k : int in [1, 10**7]
        Number of mechanisms.
    epsilon_total : float in [0, inf)
        Target epsilon of the composition; ``epsilon_total >= k epsilon``
        gives 0.
    dps : int in [15, 5000], default 50
        Decimal digits of the interval evaluation. The result is a valid
        upper bound at any precision; more digits only narrow the interval.

    Returns
    -------
    float
        The upper end of an interval containing the exact delta, rounded up
        to a float (at most 1). Cost: ``O(window)`` integer operations, a
        window of a few thousand terms at ``k = 10**6``.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above or NaN.

    References
    ----------
    .. [1] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015, Theorem 3.3.
    .. [2] NIST Digital Library of Mathematical Functions, 5.11.1 and 5.11(ii)
       (Stirling's series and its remainder).
    """
    value = _Profile(epsilon, k, dps).delta(epsilon_total)
    if value is None:
        return 0.0
    return min(1.0, max(0.0, ceil_interval(value)))


@constrained(epsilon=_EPSILON, k=_COUNT, delta=DELTA, dps=_DPS)
def optimal_composition_epsilon(epsilon, k, delta, dps=50):
    """Least epsilon_total such that every k-fold composition of epsilon-DP mechanisms is (epsilon_total, delta)-DP.

    The inverse of :func:`optimal_composition_delta`, which is continuous and
    non-increasing in ``epsilon_total``. With ``A_j`` and ``B_j`` the
    probabilities of at most ``j`` flipped bits under the two products, the
    exact answer is ``max(0, max_j ln((A_j - delta) / B_j))`` (Kairouz, Oh
    and Viswanath 2015, Thm. 3.3; ``docs/theory/accounting.rst``, section 5),
    and every single ``j`` gives a value at most the optimum. A float search
    proposes the maximising ``j``; the term at it and its neighbours is
    enclosed in interval arithmetic and its upper end rounded up. The result
    is then confirmed: the interval ``delta`` at it must be ``<= delta``. If
    not, the index of the segment containing it is added (its term is
    strictly larger), or, when the index is already in, the float is raised
    by one spacing. The result is therefore never below the exact optimum.

    Parameters
    ----------
    epsilon : float in (0, 1e6]
        Per-mechanism epsilon.
    k : int in [1, 10**7]
        Number of mechanisms.
    delta : float in [0, 1)
        Target delta; ``0`` gives ``k epsilon`` (rounded up).
    dps : int in [15, 5000], default 50
        Decimal digits of the interval evaluation.

    Returns
    -------
    float
        epsilon_total, rounded up. Cost: ``O(k)`` float operations (to guess
        ``j``) and ``O(window)`` integer interval operations; about 0.3 s at
        ``k = 10**6``.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above or NaN.
    ArithmeticError
        If the rounded value cannot be confirmed within 64 steps (not
        observed; raise ``dps``).

    References
    ----------
    .. [1] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015, Theorem 3.3.
    """
    owner = "optimal_composition_epsilon"
    if delta == 0.0:
        return ceil_fraction(k * Fraction(epsilon))
    profile = _Profile(epsilon, k, dps)
    last = (k - 1) // 2                      # j < k/2: only these can give epsilon_total > 0
    guess = _float_estimate(epsilon, k, delta)
    indices = set() if guess is None else {j for j in (guess - 1, guess, guess + 1) if 0 <= j <= last}
    values: dict = {}
    candidate = None
    for _ in range(_MAX_STEPS):
        for j in indices - values.keys():
            values[j] = profile.epsilon_j(j, delta)
        best = max([v for v in values.values() if v is not None], default=0.0)
        if candidate is None or best > candidate:
            candidate = max(0.0, best)
        if math.isinf(candidate):
            raise ArithmeticError(f"{owner} could not separate A_j from delta at dps={dps}; raise dps")
        value = profile.delta(candidate)
        if value is None or _hi(value) <= Fraction(delta):
            return candidate
        j = profile.index(candidate)
        if j not in values:
            indices.add(j)
        else:
            candidate = math.nextafter(candidate, math.inf)
    raise ArithmeticError(f"{owner} could not confirm its result at dps={dps}; raise dps")
