"""Sampling a finite law by inversion, using each computed probability as it is.

Doubles are dyadic rationals: ``p = n * 2**-e`` for integers ``n`` and
``e <= 1074``. The running sums of the probabilities are therefore formed
exactly as integers, and the one uniform double ``U`` (a multiple of
``2**-53``) is compared with them exactly. Nothing is rounded between the computed probabilities and the
draw.
"""
from __future__ import annotations

import bisect
import itertools

__all__ = ["inverse_cdf_index"]

_GRID = 53             # numpy's Generator.random() returns multiples of 2**-53


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
    r = int(u * 2.0**_GRID)            # exact: u is a multiple of 2**-53
    # u T < S_k  <=>  r T < S_k 2**53 ; r < 2**53 keeps k <= n - 1
    return bisect.bisect_right(partial, r * partial[-1], key=lambda s: s << _GRID)
