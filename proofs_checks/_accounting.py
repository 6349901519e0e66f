"""Exact references shared by the accounting checks (not a check module itself).

Everything here is a plain mpmath transcription, independent of the code in
``refdp.accounting``: the k-fold product of randomized-response pairs, whose
privacy profile is known exactly, and the formulas it is compared with.
Every function computes at the current ``mpmath.mp`` precision from exact
inputs, so :func:`refdp.verify.verdict.decide_leq` can refine it.
"""
import functools
import itertools
import math

import mpmath

from refdp.verify.divergences import hockey_stick_divergence


def rr_pair(epsilon):
    """Randomized response: P = (e^eps, 1)/(1 + e^eps) on d, Q = (1, e^eps)/(1 + e^eps) on d'."""
    p = mpmath.exp(mpmath.mpf(epsilon)) / (1 + mpmath.exp(mpmath.mpf(epsilon)))
    return (p, 1 - p), (1 - p, p)


def rr_product_hockey_stick(epsilon, k, epsilon_total):
    """Hockey-stick divergence of the k-fold RR product, summed over all 2**k output sequences."""
    (p0, p1), (q0, q1) = rr_pair(epsilon)
    P, Q = {}, {}
    for bits in itertools.product((0, 1), repeat=k):
        ones = sum(bits)
        P[bits] = p0 ** (k - ones) * p1 ** ones
        Q[bits] = q0 ** (k - ones) * q1 ** ones
    return hockey_stick_divergence(P, Q, epsilon_total)


def kov_sum(epsilon, k, epsilon_total):
    """The Kairouz–Oh–Viswanath binomial sum, transcribed with max(0, .) per term.

    Cached per (arguments, current precision): the checks evaluate the same
    sums at the two precisions of ``decide_leq`` many times.
    """
    return _kov_sum(epsilon, k, epsilon_total, mpmath.mp.prec)


@functools.lru_cache(maxsize=4096)
def _kov_sum(epsilon, k, epsilon_total, prec):  # prec: part of the cache key only
    e, exp_et = mpmath.mpf(epsilon), mpmath.exp(mpmath.mpf(epsilon_total))
    total = mpmath.mpf(0)
    for l in range(k + 1):
        term = mpmath.exp((k - l) * e) - exp_et * mpmath.exp(l * e)
        total += math.comb(k, l) * max(mpmath.mpf(0), term)
    return total / (1 + mpmath.exp(e)) ** k


def rr_log_moment(epsilon, lam, k):
    """Exact PATE log-moment of the k-fold RR product: k ln((e^{(lam+1)eps} + e^{-lam eps})/(1 + e^eps)).

    E_{o~P}[(P(o)/Q(o))^lam] = p e^{lam eps} + (1 - p) e^{-lam eps}; the
    product's log-moment is k times that of one pair, and by symmetry the
    same for (Q, P).
    """
    e, lam = mpmath.mpf(epsilon), mpmath.mpf(lam)
    return k * mpmath.log((mpmath.exp((lam + 1) * e) + mpmath.exp(-lam * e)) / (1 + mpmath.exp(e)))


def float_above(fn, dps=40):
    """A float >= the exact value that ``fn()`` approximates to ``dps`` digits."""
    with mpmath.workdps(dps):
        x = fn()
        f = float(x)
        if mpmath.mpf(f) < x + abs(x) * mpmath.mpf(10) ** (5 - dps):
            f = math.nextafter(f, math.inf)
    return f
