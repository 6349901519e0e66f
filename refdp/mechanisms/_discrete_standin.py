"""Exact discrete Laplace and discrete Gaussian samplers in integer arithmetic.

A slow, exact stand-in in Python and NumPy integer arithmetic, with the
signatures of the compiled samplers of ``refdp.mechanisms.discrete``. It is
imported in exactly one place (:mod:`refdp.mechanisms._float_safe`) so that
the compiled module can replace it there.

Every random decision is an exact Bernoulli trial ``P[1] = n / d`` with
integers ``n <= d``: a uniform 62-bit word ``w`` from ``rng.integers`` is
compared with ``T = floor(n 2**62 / d)``; ``w < T`` means 1, ``w > T`` means
0, and the tie ``w == T`` (probability ``2**-62``) is resolved by comparing
further words with the next binary digits of ``n / d``, so that the decision
is that of an exact uniform real ``U < n / d``. No floating-point number enters
a decision.

References
----------
- [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
  Differential Privacy", NeurIPS 2020, Algorithms 1 (Bernoulli(exp(-gamma))),
  2 (discrete Laplace) and 3 (discrete Gaussian).
"""
from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from .._validation import check_rng, parameter_error
from ._args import check_size

__all__ = ["discrete_laplace", "discrete_gaussian"]

_BITS = 62
_WORD = 1 << _BITS


def _exact_positive(value, name, owner) -> Fraction:
    """``value`` (int, Fraction or finite float, taken exactly) as a positive Fraction."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Rational, float, np.floating)):
        raise parameter_error(name, owner, "a positive int, Fraction or finite float", value)
    try:
        q = Fraction(value)
    except (OverflowError, ValueError):
        raise parameter_error(name, owner, "a positive int, Fraction or finite float", value) from None
    if q <= 0:
        raise parameter_error(name, owner, "a positive int, Fraction or finite float", value)
    return q


def _bernoulli(num, den, rng):
    """Exact Bernoulli(num[i] / den[i]) for lists of Python ints with 0 <= num <= den."""
    m = len(num)
    if m == 0:
        return np.zeros(0, dtype=bool)
    thresholds = np.array([(a << _BITS) // b for a, b in zip(num, den)], dtype=object)
    words = rng.integers(0, _WORD, size=m, dtype=np.int64).astype(object)
    out = words < thresholds
    ties = np.flatnonzero(words == thresholds)
    for i in ties:  # compare the next digits of U and of num/den, 62 bits at a time
        rem = (num[i] << _BITS) % den[i]
        while True:
            digit = (rem << _BITS) // den[i]
            rem = (rem << _BITS) % den[i]
            w = int(rng.integers(0, _WORD, dtype=np.int64))
            if w != digit:
                out[i] = w < digit
                break
            if rem == 0:  # U >= num/den from here on
                out[i] = False
                break
    return out.astype(bool)


def _bernoulli_exp_small(num, den, rng):
    """Bernoulli(exp(-num/den)) for num/den in [0, 1] ([CKS20]_ Algorithm 1)."""
    m = len(num)
    result = np.zeros(m, dtype=bool)
    active = np.arange(m)
    k = 1
    while active.size:
        a = _bernoulli([num[i] for i in active], [den[i] * k for i in active], rng)
        stopped = active[~a]
        result[stopped] = (k % 2) == 1
        active = active[a]
        k += 1
    return result


def _bernoulli_exp(num, den, rng):
    """Bernoulli(exp(-num/den)) for any num/den >= 0 ([CKS20]_ Algorithm 1, gamma > 1 case)."""
    m = len(num)
    whole = [a // b for a, b in zip(num, den)]
    alive = np.ones(m, dtype=bool)
    rounds = max(whole, default=0)
    for j in range(rounds):
        idx = np.flatnonzero(alive & (np.array(whole, dtype=object) > j))
        if idx.size == 0:
            break
        alive[idx] = _bernoulli_exp_small([1] * idx.size, [1] * idx.size, rng)
    idx = np.flatnonzero(alive)
    if idx.size:
        alive[idx] = _bernoulli_exp_small([num[i] - whole[i] * den[i] for i in idx],
                                          [den[i] for i in idx], rng)
    return alive


def _uniform_below(t: int, m: int, rng):
    """``m`` exact uniform integers in ``{0, ..., t - 1}`` (Python ints)."""
    if t <= np.iinfo(np.int64).max:
        return [int(v) for v in rng.integers(0, t, size=m, dtype=np.int64)]
    words = -(-t.bit_length() // _BITS)
    span = 1 << (words * _BITS)
    limit = span - span % t
    out = []
    while len(out) < m:
        v = 0
        for _ in range(words):
            v = (v << _BITS) | int(rng.integers(0, _WORD, dtype=np.int64))
        if v < limit:
            out.append(v % t)
    return out


def _laplace_list(s: int, t: int, m: int, rng):
    """``m`` draws with P(z) proportional to exp(-|z| s / t) ([CKS20]_ Algorithm 2)."""
    out = []
    while len(out) < m:
        want = m - len(out)
        batch = max(16, int(want * 1.7) + 8)
        u = _uniform_below(t, batch, rng)
        keep = _bernoulli_exp(u, [t] * batch, rng)
        u = [u[i] for i in np.flatnonzero(keep)]
        if not u:
            continue
        # V ~ Geometric: the number of successes of Bernoulli(exp(-1)) before a failure
        v = [0] * len(u)
        active = np.arange(len(u))
        while active.size:
            a = _bernoulli_exp_small([1] * active.size, [1] * active.size, rng)
            active = active[a]
            for i in active:
                v[i] += 1
        y = [(ui + t * vi) // s for ui, vi in zip(u, v)]
        sign = rng.integers(0, 2, size=len(y))
        for yi, bi in zip(y, sign):
            if bi == 1 and yi == 0:
                continue  # rejected: keeps P(0) right
            out.append(-yi if bi else yi)
    return out[:m]


def _shape_out(values, shape):
    if shape is None:
        return int(values[0])
    return np.array(values, dtype=np.int64).reshape(shape)


def _count(shape):
    return 1 if shape is None else int(np.prod(shape, dtype=np.int64))


def discrete_laplace(scale, size=None, rng=None):
    """Draw from the discrete Laplace law ``P(z) = C exp(-|z| / scale)`` on the integers.

    Parameters
    ----------
    scale : int, Fraction or float > 0
        Taken exactly (a float is the binary rational it holds).
    size : None, int or tuple of int, optional
        Shape of the output.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`; only
        :meth:`numpy.random.Generator.integers` is used.

    Returns
    -------
    int or ndarray of int64
        A Python int when ``size`` is None.

    Notes
    -----
    [CKS20]_ Algorithm 2 with ``scale = t / s`` in lowest terms; every
    decision is exact (module docstring). Adding it to an integer query of L1
    sensitivity ``Delta`` is ``(Delta / scale)``-DP ([CKS20]_ Sec. 2).

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020, Algorithm 2.
    """
    owner = "discrete_laplace"
    q = _exact_positive(scale, "scale", owner)
    shape = check_size(size, owner)
    rng = check_rng(rng)
    values = _laplace_list(q.denominator, q.numerator, _count(shape), rng)
    return _shape_out(values, shape)


def discrete_gaussian(sigma, size=None, rng=None):
    """Draw from the discrete Gaussian law ``P(z) = C exp(-z**2 / (2 sigma**2))`` on the integers.

    Parameters
    ----------
    sigma : int, Fraction or float > 0
        Taken exactly.
    size : None, int or tuple of int, optional
    rng : None, int, SeedSequence, BitGenerator or Generator, optional

    Returns
    -------
    int or ndarray of int64

    Notes
    -----
    [CKS20]_ Algorithm 3: with ``t = floor(sigma) + 1``, draw ``Y`` from the
    discrete Laplace law of scale ``t`` and keep it with probability
    ``exp(-(|Y| - sigma**2 / t)**2 / (2 sigma**2))``, computed exactly from
    the rational ``sigma**2``. Adding it to each coordinate of an integer
    query of L2 sensitivity ``Delta`` is ``Delta**2 / (2 sigma**2)``-zCDP
    ([CKS20]_ Theorem 14).

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020, Algorithm 3.
    """
    owner = "discrete_gaussian"
    q = _exact_positive(sigma, "sigma", owner)
    shape = check_size(size, owner)
    rng = check_rng(rng)
    m = _count(shape)
    s2 = q * q
    a, b = s2.numerator, s2.denominator  # sigma^2 = a / b
    t = int(q) + 1
    out = []
    while len(out) < m:
        want = m - len(out)
        y = _laplace_list(1, t, int(want * 1.5) + 8, rng)
        # gamma = (|Y| - sigma^2/t)^2 / (2 sigma^2) = (|Y| b t - a)^2 / (2 a b t^2)
        num = [(abs(v) * b * t - a) ** 2 for v in y]
        den = 2 * a * b * t * t
        keep = _bernoulli_exp(num, [den] * len(y), rng)
        out.extend(y[i] for i in np.flatnonzero(keep))
    return _shape_out(out[:m], shape)
