"""Exact references shared by the accounting checks (not a check module itself).

Everything here is a plain mpmath transcription, independent of the code in
``refdp.accounting``: the k-fold product of randomized-response pairs, whose
privacy profile is known exactly, and the formulas it is compared with.
Every function computes from exact inputs in the mpmath context ``ctx`` it
is given: an interval context (:func:`refdp.utils.precision.iv_context`) gives
enclosures for :func:`refdp.verify.verdict.decide_leq_interval`; without one
it computes at the current ``mpmath.mp`` precision (kept for callers that
refine it with :func:`refdp.verify.verdict.decide_leq`).
"""
import functools
import itertools
import math

from fractions import Fraction

import mpmath
from mpmath.ctx_iv import MPIntervalContext

from refdp.utils.precision import GLOBAL_MPMATH_LOCK, is_interval_context, iv_context
from refdp.utils.rounding import ceil_interval
from refdp.verify.verdict import enclose, takes_context
from refdp.verify.divergences import hockey_stick_divergence


def _ctx(ctx):
    return mpmath.mp if ctx is None else ctx


def rr_pair(epsilon, ctx=None):
    """Randomized response: P = (e^eps, 1)/(1 + e^eps) on d, Q = (1, e^eps)/(1 + e^eps) on d'."""
    c = _ctx(ctx)
    p = c.exp(c.mpf(epsilon)) / (1 + c.exp(c.mpf(epsilon)))
    return (p, 1 - p), (1 - p, p)


def rr_product_hockey_stick(epsilon, k, epsilon_total, ctx=None):
    """Hockey-stick divergence of the k-fold RR product, summed over all 2**k output sequences."""
    (p0, p1), (q0, q1) = rr_pair(epsilon, ctx)
    P, Q = {}, {}
    for bits in itertools.product((0, 1), repeat=k):
        ones = sum(bits)
        P[bits] = p0 ** (k - ones) * p1 ** ones
        Q[bits] = q0 ** (k - ones) * q1 ** ones
    return hockey_stick_divergence(P, Q, epsilon_total)


def kov_sum(epsilon, k, epsilon_total, ctx=None):
    """The Kairouz–Oh–Viswanath binomial sum, transcribed with max(0, .) per term.

    In an interval context the sign of each term is decided exactly on the
    rationals equal to the float inputs (a term is positive iff ``(k - 2l)
    epsilon > epsilon_total``), so no enclosure straddling 0 is clipped.
    Cached per (arguments, kind and precision of the context): the checks
    evaluate the same sums many times.
    """
    c = _ctx(ctx)
    interval = is_interval_context(c)
    return _kov_sum(epsilon, k, epsilon_total, interval, c.prec)


@functools.lru_cache(maxsize=4096)
def _kov_sum(epsilon, k, epsilon_total, interval, prec):
    if interval:
        c = MPIntervalContext()
        c.prec = prec
    else:
        c = mpmath.mp
    e, exp_et = c.mpf(epsilon), c.exp(c.mpf(epsilon_total))
    total = c.mpf(0)
    for l in range(k + 1):
        if interval:
            if (k - 2 * l) * Fraction(epsilon) <= Fraction(epsilon_total):
                continue
            term = c.exp((k - l) * e) - exp_et * c.exp(l * e)
        else:
            term = c.exp((k - l) * e) - exp_et * c.exp(l * e)
            term = max(c.mpf(0), term)
        total += math.comb(k, l) * term
    return total / (1 + c.exp(e)) ** k


def rr_log_moment(epsilon, lam, k, ctx=None):
    """Exact PATE log-moment of the k-fold RR product: k ln((e^{(lam+1)eps} + e^{-lam eps})/(1 + e^eps)).

    E_{o~P}[(P(o)/Q(o))^lam] = p e^{lam eps} + (1 - p) e^{-lam eps}; the
    product's log-moment is k times that of one pair, and by symmetry the
    same for (Q, P).
    """
    c = _ctx(ctx)
    e, lam = c.mpf(epsilon), c.mpf(lam)
    return k * c.log((c.exp((lam + 1) * e) + c.exp(-lam * e)) / (1 + c.exp(e)))


def float_above(fn, dps=40):
    """A float >= the exact value that ``fn`` computes.

    ``fn(ctx)`` computing in the interval context it is given: the least float
    above the upper end of the enclosure at ``dps`` digits (rigorous).
    ``fn()`` (legacy, global mpmath): a float above the value at ``dps``
    digits plus a relative margin ``10**(5 - dps)`` (an estimate).
    """
    if takes_context(fn, 0):
        return ceil_interval(enclose(fn(iv_context(dps))))
    with GLOBAL_MPMATH_LOCK, mpmath.workdps(dps):
        x = fn()
        f = float(x)
        if mpmath.mpf(f) < x + abs(x) * mpmath.mpf(10) ** (5 - dps):
            f = math.nextafter(f, math.inf)
    return f
