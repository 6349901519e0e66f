"""Sampling a finite law by inversion, using each computed probability as it is.

Doubles are dyadic rationals: ``p = n * 2**-e`` for integers ``n`` and
``e <= 1074``. :func:`inverse_cdf_index` forms the running sums of the
probabilities exactly as integers and compares the one uniform double ``U``
(a multiple of ``2**-53``) with them exactly. Nothing is rounded between the
computed probabilities and the draw. It costs about a second for a million
candidates.

:func:`certified_inverse_cdf_index` returns the same index for every ``u``,
usually without any exact sum. It takes the floating-point running sums
``c = numpy.cumsum(p)`` as a guide, picks the candidate ``k`` they point at,
and certifies it with an a-priori error bound: any floating-point sum of
``j <= n`` non-negative doubles, in any order, is within ``g S`` of the
exact sum ``S``, with ``g = n 2**-53 / (1 - n 2**-53)`` (each of at most
``n - 1`` additions contributes a relative error at most ``2**-53``; Higham,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002, Sec. 4.2;
additions are exact on underflow, so subnormals do not break the bound).
Hence ``S_k`` lies in ``[c_k / (1 + g), c_k / (1 - g)]`` and ``T`` in
``[c_T / (1 + g), c_T / (1 - g)]`` with ``c_T = c_{n-1}``, and ``k`` is the
exact answer as soon as

* ``u c_T (1 + g) < c_k (1 - g)``, which gives ``u T < S_k``, and
* ``k = 0`` or ``c_{k-1} (1 + g) <= u c_T (1 - g)``, which gives
  ``S_{k-1} <= u T``, hence ``S_j <= u T`` for every ``j < k`` (exact sums of
  non-negative terms do not decrease).

The two inequalities are decided in exact rational arithmetic. When they do
not both hold (``u T`` falls within a relative ``2 g`` of a running sum, an
event of probability about ``4 n 2**-53`` per draw), the exact integer
inversion is run instead. Either way the index is the exact one; only the
running time differs (it is not constant: the fallback is slower).
"""
from __future__ import annotations

import bisect
import itertools

import numpy as np

__all__ = ["inverse_cdf_index", "certified_inverse_cdf_index"]

_BITS = 53             # numpy's Generator.random() returns multiples of 2**-53
_GRID = 2**_BITS


def _as_integers(values) -> list[int]:
    """Integers ``n_k`` with ``values[k] = n_k * 2**-e`` exactly, for one common ``e``."""
    ratios = [float(x).as_integer_ratio() for x in values]      # denominators are powers of 2
    shifts = [den.bit_length() - 1 for _, den in ratios]
    e = max(shifts)
    return [num << (e - k) for (num, _), k in zip(ratios, shifts)]


def inverse_cdf_index(probabilities, u: float) -> int:
    """Smallest ``k`` with ``u * T < S_k`` in exact arithmetic.

    ``S_k = p_0 + ... + p_k`` and ``T = S_{n-1}`` are the exact sums of the
    given non-negative doubles (``T > 0``); ``u`` is a double in ``[0, 1)``
    that is a multiple of ``2**-53`` (as ``numpy.random.Generator.random``
    returns). Over the ``2**53`` values of ``u``, index ``k`` is returned for
    a fraction within ``2**-53`` of ``p_k / T``, and never when ``p_k = 0``.
    """
    partial = list(itertools.accumulate(_as_integers(probabilities)))
    r = int(u * _GRID)            # exact: u is a multiple of 2**-53
    # u T < S_k  <=>  r T < S_k 2**53 ; r < 2**53 keeps k <= n - 1
    return bisect.bisect_right(partial, r * partial[-1], key=lambda s: s << _BITS)


def _certified(c, k: int, u: float, n: int) -> bool:
    """True when the float running sums ``c`` prove that ``k`` is the exact index.

    With ``u = r 2**-53`` and ``g = n / (2**53 - n)``, the two conditions of
    the module docstring read, after multiplying out the denominators,
    ``r c_T < c_k (2**53 - 2n)`` and ``c_{k-1} 2**106 <= r c_T (2**53 - 2n)``;
    they are decided on the exact integer ratios of the doubles.
    """
    if 4 * n >= _GRID:
        return False
    r = int(u * _GRID)                     # exact: u is a multiple of 2**-53
    shrink = _GRID - 2 * n
    t_num, t_den = float(c[-1]).as_integer_ratio()
    k_num, k_den = float(c[k]).as_integer_ratio()
    if not r * t_num * k_den < k_num * shrink * t_den:
        return False
    if k == 0:
        return True
    j_num, j_den = float(c[k - 1]).as_integer_ratio()
    return j_num * _GRID * _GRID * t_den <= r * t_num * shrink * j_den


def certified_inverse_cdf_index(probabilities, u: float) -> int:
    """Smallest ``k`` with ``u * T < S_k`` in exact arithmetic, usually in one float pass.

    Parameters
    ----------
    probabilities : ndarray of float64, shape (n,)
        Non-negative finite doubles with a positive sum (not checked here:
        the callers validate their inputs).
    u : float
        A multiple of ``2**-53`` in ``[0, 1)`` (as
        :meth:`numpy.random.Generator.random` returns).

    Returns
    -------
    int
        The index :func:`inverse_cdf_index`
        returns for the same arguments.
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
    return inverse_cdf_index(p, u)
