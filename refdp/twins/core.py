"""Pure-Python/NumPy twins of the compiled kernels in ``refdp/_core.pyx``.

Each twin has the name of the kernel it mirrors and states its algorithm
plainly, with the same floating-point operations as the kernel and the same
upward-rounding margins (both take them from ``refdp/_bounds.pxd``, whose
twin is :mod:`refdp.twins.bounds`), so tests can
require the kernel to equal its twin exactly (integers) or to 1e-12 relative
(floats). They are references, not fast paths: the walk twin is O(n q).
"""
from __future__ import annotations

import math

import numpy as np

from ..utils.votes import two_sided_counts

from .bounds import (lemma4_margin, pate_theorem2_bound, pure_dp_log_moment,
                     pure_dp_log_moment_bound,
                     theorem3_margin, theorem3_slack, theorem3_threshold, upward_sum_factor)

LOG4 = math.log(4.0)


def projected_walk_log_odds(x, steps, queries, start, lower, upper):
    """Log-odds of the exponential projected walk at each (sorted) query.

    For query value v: start at ``start``; for every record i with
    ``x[i] <= v``, in the given order, set ``l = clip(l + steps[i], lower, upper)``.
    """
    out = np.empty(len(queries))
    for k, v in enumerate(queries):
        l = float(start)
        for xi, si in zip(x, steps):
            if xi > v:
                break
            l = min(max(l + float(si), lower), upper)
        out[k] = l
    return out


def count_votes(votes, n_classes):
    """counts[q, c] = number of teachers t with votes[t, q] == c; first bad flat index or -1."""
    votes = np.asarray(votes)
    n_teachers, n_queries = votes.shape
    counts = np.zeros((n_queries, n_classes), dtype=np.int64)
    for t in range(n_teachers):
        for q in range(n_queries):
            v = int(votes[t, q])
            if not 0 <= v < n_classes:
                return counts, t * n_queries + q
            counts[q, v] += 1
    return counts, -1


def laplace_difference_log_tail(gaps, gamma):
    """log P[Y - X > g] = log((2 + gamma g) / (4 exp(gamma g))), X, Y iid Lap(1/gamma), g >= 0."""
    z = gamma * np.asarray(gaps, dtype=np.float64)
    return np.log(2.0 + z) - z - LOG4


def lemma4_log_q(counts, gamma):
    """Upward-rounded log of PATE Lemma 4's q for each row of ``counts``.

    q = sum over j != j* of (2 + gamma g_j) / (4 exp(gamma g_j)), g_j = n_{j*} - n_j,
    j* the first index of the largest count.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n, c = counts.shape
    out = np.empty(n)
    for i in range(n):
        row = counts[i]
        jstar = int(np.argmax(row))
        gaps = np.delete(row[jstar] - row, jstar).astype(np.float64)
        if gaps.size == 0:
            out[i] = -np.inf
            continue
        z = gamma * gaps
        lt = np.log(2.0 + z) - z - LOG4
        m = lt.max()
        weights = np.exp(lt - m)
        lse = m + math.log(np.sum(weights))
        zbar = float(np.sum(weights * z) / np.sum(weights))  # mass-weighted mean of z
        out[i] = lse + lemma4_margin(lse, zbar, c)
    return out


def lemma4_log_q_pair(counts, gamma):
    """(Lemma 4's log q, its two-sided counterpart) per row of ``counts``.

    The second is Lemma 4 at the row with one vote moved from ``j*`` to the
    runner-up (the first largest of the other counts) when their gap is at
    least 3, ``+inf`` for gaps 0..2 and ``-inf`` for one class.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n, c = counts.shape
    two = np.full(n, -np.inf)
    if c >= 2:
        moved, gap = two_sided_counts(counts)
        two = np.where(gap <= 2, np.inf, lemma4_log_q(moved, gamma))
    return lemma4_log_q(counts, gamma), two


def accountant_log_moments(log_q, orders, gamma):
    """Upward-rounded sum over queries of min(Thm 2, 2 gamma lambda, Thm 3) per order.

    Vectorised over (query, order) pairs; Theorem 3 is applied only where
    q < 1 / (exp(2 gamma) + 1) (lowered by a few ulps).
    """
    lq = np.asarray(log_q, dtype=np.float64)[:, None]
    lam = np.asarray(orders, dtype=np.float64)[None, :]
    n_queries = lq.shape[0]
    E = math.exp(2.0 * gamma)
    threshold = theorem3_threshold(E)
    q = np.exp(lq)
    valid = q < threshold
    qv = np.where(valid, q, 0.0)
    x = E * qv
    a1 = np.log1p(-qv)
    a2 = np.log1p(-x)
    slack_x = theorem3_slack(x)
    indep = pate_theorem2_bound(gamma, lam)
    pure = pure_dp_log_moment_bound(gamma, lam)
    best = np.minimum(indep, pure)
    a = (1.0 + lam) * a1 - lam * a2
    b = lq + pure_dp_log_moment(gamma, lam)
    hi = np.maximum(a, b)
    lo = np.minimum(a, b)
    with np.errstate(invalid="ignore"):
        val = hi + np.log1p(np.exp(lo - hi))
    flq = np.where(np.isfinite(lq), np.abs(lq), 0.0)
    err = theorem3_margin(lam, a1, a2, flq, pure_dp_log_moment(gamma, lam), val, slack_x)
    thm3 = np.where(valid, val + err, np.inf)
    per = np.minimum(best, thm3)
    return per.sum(axis=0) * upward_sum_factor(n_queries)


def logsumexp(x):
    """log(sum(exp(x))) by the max-shift formula; -inf for empty input."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return -math.inf
    if np.isnan(x).any():
        return math.nan
    m = x.max()
    if m == math.inf:
        return math.inf
    if m == -math.inf:
        return -math.inf
    return float(m + math.log(np.sum(np.exp(x - m))))


# ---------------------------------------------------------------------------
# Exact integer noise samplers (Canonne, Kamath and Steinke, NeurIPS 2020,
# Algorithms 1-3). Exact int arithmetic only; ``words`` is a zero-argument
# function returning the next 64-bit word of the bit generator (see
# :func:`word_source`), and every function draws exactly the words the
# compiled kernel of the same name draws, in the same order. Unlike the
# kernels, the twins have no size limit on their integer parameters.
# ---------------------------------------------------------------------------

def word_source(bit_generator):
    """The bit generator's ``next_uint64`` words, one per call, as Python ints.

    ``random_raw`` is ``next_uint64`` for PCG64, PCG64DXSM, Philox and SFC64;
    MT19937's raw output is 32 bits wide and its ``next_uint64`` is two raw
    draws, the first one high.
    """
    raw = bit_generator.random_raw
    if isinstance(bit_generator, np.random.MT19937):
        def words():
            hi = int(raw())
            return (hi << 32) | int(raw())
        return words
    return lambda: int(raw())


def uniform_below(words, n):
    """Uniform integer on [0, n), n >= 1, by rejection (Lemire 2019), in k-word blocks.

    With k = max(1, ceil(bitlen(n) / 64)) words w (first word high), the
    result is floor(w n / 2**(64 k)), rejected while w n mod 2**(64 k) is below
    2**(64 k) mod n; n == 1 draws nothing.
    """
    if n == 1:
        return 0
    k = max(1, -(-n.bit_length() // 64))
    width = 64 * k
    mask = (1 << width) - 1

    def draw():
        w = 0
        for _ in range(k):
            w = (w << 64) | words()
        return w * n

    m = draw()
    if m & mask < n:
        threshold = ((1 << width) - n) % n
        while m & mask < threshold:
            m = draw()
    return m >> width


def bernoulli(words, num, den):
    """Bernoulli(num / den); no word is drawn when num == 0 or num >= den."""
    if num == 0:
        return 0
    if num >= den:
        return 1
    return int(uniform_below(words, den) < num)


_U128 = (1 << 128) - 1


def _bernoulli_over_k(words, num, den, k):
    # Bernoulli(num / (den k)): one draw if den k < 2**128, else a product of two.
    if den <= _U128 // k:
        return bernoulli(words, num, den * k)
    if not bernoulli(words, num, den):
        return 0
    return bernoulli(words, 1, k)


def _bernoulli_exp_unit(words, num, den):
    # CKS Algorithm 1 for gamma = num/den in [0, 1]
    k = 1
    while _bernoulli_over_k(words, num, den, k):
        k += 1
    return k & 1


def bernoulli_exp(words, num, den):
    """Bernoulli(exp(-num / den)), num >= 0, den >= 1 (CKS Algorithm 1)."""
    for _ in range(num // den):
        if not _bernoulli_exp_unit(words, 1, 1):
            return 0
    return _bernoulli_exp_unit(words, num % den, den)


def geometric_exp(words, num, den):
    """Y >= 0 with P[Y = y] = (1 - exp(-num/den)) exp(-y num/den) (CKS Algorithm 2, steps 2-7)."""
    while True:
        u = uniform_below(words, den)
        if _bernoulli_exp_unit(words, u, den):
            break
    v = 0
    while _bernoulli_exp_unit(words, 1, 1):
        v += 1
    return (u + den * v) // num


def discrete_laplace(words, s, t):
    """Z with P[Z = z] proportional to exp(-|z| s / t), s, t >= 1 (CKS Algorithm 2)."""
    while True:
        y = geometric_exp(words, s, t)
        b = uniform_below(words, 2) == 0
        if b and y == 0:
            continue
        return -y if b else y


def discrete_gaussian(words, a, b):
    """Z with P[Z = z] proportional to exp(-z**2 b / (2 a)), i.e. sigma**2 = a/b (CKS Algorithm 3).

    t = floor(sigma) + 1 = isqrt(a // b) + 1; a proposal Y ~ Lap_Z(t) is kept
    with probability exp(-(|Y| b t - a)**2 / (2 a b t**2)).
    """
    t = math.isqrt(a // b) + 1
    den = 2 * a * b * t * t
    while True:
        y = discrete_laplace(words, 1, t)
        q = abs(y) * b * t - a
        if bernoulli_exp(words, q * q, den):
            return y
