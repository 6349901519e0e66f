"""Sampling a finite law by inversion, exactly, from the computed probabilities as they are.

Doubles are dyadic rationals: ``p = n * 2**-e`` for integers ``n`` and
``e <= 1074``. Let ``S_k = p_0 + ... + p_k`` be the *exact* running sums of
the given non-negative doubles and ``T = S_{n-1}``. The sampler returns
``k`` with probability ``p_k / T`` exactly: it returns the ``k`` whose interval
``[S_{k-1}/T, S_k/T)`` holds an ideal uniform real ``U`` in ``[0, 1)``
(proof: ``docs/theory/learning.rst``, Proposition 7).

``U`` is revealed lazily. Its first 53 bits are the double ``u = r 2**-53``
that :meth:`numpy.random.Generator.random` returns, so ``U`` lies in the
dyadic interval ``[r 2**-53, (r + 1) 2**-53)``. If that interval lies inside
one ``[S_{k-1}/T, S_k/T)``, the answer is ``k`` whatever the later bits are;
otherwise (a boundary ``S_j/T`` falls strictly inside it, probability at most
``(n - 1) 2**-53`` per draw) 64 more bits are taken from the Generator's bit
generator, ``U``'s interval shrinks to width ``2**-117``, and so on. All
comparisons are exact: ``(r + 1) T <= S_k 2**m`` on integers.

Whenever the first 53 bits decide, the index is :func:`inverse_cdf_index`
``(p, u)``, the smallest ``k`` with ``u T < S_k`` (the rule refdp used before
the refinement, under which output ``k`` had probability ``#{r} / 2**53``, not
``p_k / T``, and an output with ``p_k / T < 2**-53`` could get probability 0
or ``2**-53``).

:func:`certified_inverse_cdf_index` usually decides in one floating-point
pass, without any exact sum. It takes the floating-point running sums
``c = numpy.cumsum(p)`` as a guide, picks the candidate ``k`` they point at,
and certifies it with an a-priori error bound: any floating-point sum of
``j <= n`` non-negative doubles, in any order, is within ``g S`` of the
exact sum ``S``, with ``g = n 2**-53 / (1 - n 2**-53)`` (each of at most
``n - 1`` additions contributes a relative error at most ``2**-53``; Higham,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002, Sec. 4.2;
additions are exact on underflow, so subnormals do not break the bound).
Hence ``S_k`` lies in ``[c_k / (1 + g), c_k / (1 - g)]`` and ``T`` in
``[c_T / (1 + g), c_T / (1 - g)]`` with ``c_T = c_{n-1}``, and the whole
interval of ``U`` lies in ``[S_{k-1}/T, S_k/T)`` as soon as

* ``(u + 2**-53) c_T (1 + g) <= c_k (1 - g)``, which gives
  ``(u + 2**-53) T <= S_k``, and
* ``k = 0`` or ``c_{k-1} (1 + g) <= u c_T (1 - g)``, which gives
  ``S_{k-1} <= u T``.

The two inequalities are decided in exact rational arithmetic. When they do
not both hold (probability about ``4 n 2**-53`` per draw), the exact integer
sums are formed and the refinement above runs. Only the running time depends
on the path (it is not constant: the exact path is slower).
"""
from __future__ import annotations

import bisect
import itertools

import numpy as np

from ..core import word_source

__all__ = ["inverse_cdf_index", "certified_inverse_cdf_index", "refined_index"]

_BITS = 53             # numpy's Generator.random() returns multiples of 2**-53
_GRID = 2**_BITS
_WORD_BITS = 64        # refinement bits per step: one next_uint64 word


def _as_integers(values) -> list[int]:
    """Integers ``n_k`` with ``values[k] = n_k * 2**-e`` exactly, for one common ``e``."""
    ratios = [float(x).as_integer_ratio() for x in values]      # denominators are powers of 2
    shifts = [den.bit_length() - 1 for _, den in ratios]
    e = max(shifts)
    return [num << (e - k) for (num, _), k in zip(ratios, shifts)]


def inverse_cdf_index(probabilities, u: float) -> int:
    """Smallest ``k`` with ``u * T < S_k`` in exact arithmetic (the left end of ``U``'s interval).

    ``S_k = p_0 + ... + p_k`` and ``T = S_{n-1}`` are the exact sums of the
    given non-negative doubles (``T > 0``); ``u`` is a double in ``[0, 1)``
    that is a multiple of ``2**-53`` (as ``numpy.random.Generator.random``
    returns). Over the ``2**53`` values of ``u``, index ``k`` is returned for
    a fraction within ``2**-53`` of ``p_k / T``, and never when ``p_k = 0``.
    This is the index :func:`certified_inverse_cdf_index` returns whenever
    the 53 bits of ``u`` decide the draw.
    """
    partial = list(itertools.accumulate(_as_integers(probabilities)))
    r = int(u * _GRID)            # exact: u is a multiple of 2**-53
    # u T < S_k  <=>  r T < S_k 2**53 ; r < 2**53 keeps k <= n - 1
    return bisect.bisect_right(partial, r * partial[-1], key=lambda s: s << _BITS)


def refined_index(partial, r: int, m: int, next_word, word_bits: int = _WORD_BITS) -> int:
    """The ``k`` with ``U`` in ``[S_{k-1}/T, S_k/T)``, revealing ``U``'s bits until they decide.

    Parameters
    ----------
    partial : list of int
        Exact running sums ``S_0, ..., S_{n-1}`` (integers: the doubles scaled
        by a common power of two), non-decreasing, ``S_{n-1} = T > 0``.
    r, m : int
        The first ``m`` bits of ``U``: ``U`` lies in ``[r 2**-m, (r + 1) 2**-m)``,
        ``0 <= r < 2**m``.
    next_word : callable
        Returns ``word_bits`` further uniform bits of ``U`` as an int.
    word_bits : int, default 64

    Returns
    -------
    int
        ``k`` such that ``[r' 2**-m', (r' + 1) 2**-m') ⊂ [S_{k-1}/T, S_k/T)``
        for the bits ``r'`` read so far; never an index with ``p_k = 0``.
    """
    total = partial[-1]
    while True:
        # first k with r T < S_k 2**m: the interval's left end lies in [S_{k-1}/T, S_k/T)
        k = bisect.bisect_right(partial, r * total, key=lambda s, m=m: s << m)
        if (r + 1) * total <= partial[k] << m:          # its right end too: decided
            return k
        r = (r << word_bits) | next_word()
        m += word_bits


def _certified(c, k: int, u: float, n: int) -> bool:
    """True when the float running sums ``c`` prove that ``u``'s interval lies in ``k``'s.

    With ``u = r 2**-53`` and ``g = n / (2**53 - n)``, the two conditions of
    the module docstring read, after multiplying out the denominators,
    ``(r + 1) c_T <= c_k (2**53 - 2n)`` and ``c_{k-1} 2**106 <= r c_T
    (2**53 - 2n)``; they are decided on the exact integer ratios of the
    doubles.
    """
    if 4 * n >= _GRID:
        return False
    r = int(u * _GRID)                     # exact: u is a multiple of 2**-53
    shrink = _GRID - 2 * n
    t_num, t_den = float(c[-1]).as_integer_ratio()
    k_num, k_den = float(c[k]).as_integer_ratio()
    if not (r + 1) * t_num * k_den <= k_num * shrink * t_den:
        return False
    if k == 0:
        return True
    j_num, j_den = float(c[k - 1]).as_integer_ratio()
    return j_num * _GRID * _GRID * t_den <= r * t_num * shrink * j_den


def certified_inverse_cdf_index(probabilities, u: float, rng) -> int:
    """Index ``k`` with probability exactly ``p_k / T``, usually in one float pass.

    Parameters
    ----------
    probabilities : ndarray of float64, shape (n,)
        Non-negative finite doubles with a positive sum (not checked here:
        the callers validate their inputs).
    u : float
        The first 53 bits of the uniform: a multiple of ``2**-53`` in
        ``[0, 1)``, as :meth:`numpy.random.Generator.random` returns.
    rng : numpy.random.Generator
        Supplies further bits (whole ``next_uint64`` words of its bit
        generator) in the rare draws the first 53 bits do not decide.

    Returns
    -------
    int
        ``k`` with ``P[k] = p_k / T`` exactly over ``u`` and the further bits
        (``docs/theory/learning.rst``, Proposition 7); equal to
        :func:`inverse_cdf_index` ``(p, u)`` whenever the first 53 bits decide.
    """
    p = np.ascontiguousarray(probabilities, dtype=np.float64)
    n = p.shape[0]
    if n == 1:
        return 0
    with np.errstate(over="ignore"):
        c = np.cumsum(p)
    if np.isfinite(c[-1]):
        k = min(int(np.searchsorted(c, u * c[-1], side="right")), n - 1)
        if _certified(c, k, u, n):
            return k
    partial = list(itertools.accumulate(_as_integers(p)))
    return refined_index(partial, int(u * _GRID), _BITS, word_source(rng.bit_generator))
