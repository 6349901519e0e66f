"""One-sided Clopper--Pearson bounds on a binomial proportion, rounded toward safety.

For ``k`` successes in ``n`` independent trials of probability ``p``, the
exact one-sided bounds at level ``1 - beta`` ([CP34]_) are

* lower: ``p_L(k) = 0`` for ``k = 0``, otherwise the ``p`` solving
  ``P_p[X >= k] = beta``, i.e. the ``beta`` quantile of ``Beta(k, n - k + 1)``;
* upper: ``p_U(k) = 1`` for ``k = n``, otherwise the ``p`` solving
  ``P_p[X <= k] = beta``, i.e. the ``1 - beta`` quantile of
  ``Beta(k + 1, n - k)``.

For every ``p``, ``P_p[p_L(X) <= p] >= 1 - beta`` and
``P_p[p_U(X) >= p] >= 1 - beta`` (the coverage is exact, not asymptotic; see
the theory page of the audit for the proof). The quantiles come from
:func:`scipy.special.betaincinv` and :func:`scipy.special.betainccinv` (the
inverse regularised incomplete beta function and its complement); the
returned floats are then moved outward by a
relative ``1e-9`` (lower bounds down, upper bounds up), far more than the
error of the quantile routine, so that a float bound never lies inside the
exact interval. The tests compare them with mpmath roots, and
``proofs_checks/audit/clopper_pearson_coverage.py`` computes their coverage
exactly in rational arithmetic for small ``n``.

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
   limits illustrated in the case of the binomial", Biometrika 26(4), 1934.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from ..utils.constraints import Array, constrained
from ..utils.validation import Interval, parameter_error

__all__ = ["clopper_pearson_lower", "clopper_pearson_upper", "OUTWARD"]

#: Relative outward margin applied to the quantiles returned by SciPy.
OUTWARD = 1e-9

_BETA = Interval(float, 0, 1, closed="neither")
_COUNT = Interval(int, 0, None)


#: Counts: integers in [0, 2**53] (exact as floats, which the bounds compute in).
_K = Array(dtype="integer", min_size=0, interval=Interval(int, 0, 2 ** 53))
#: Numbers of trials: integers in [1, 2**53].
_N = Array(dtype="integer", min_size=0, interval=Interval(int, 1, 2 ** 53))


def _counts(k_arr, n_arr, beta, owner):
    try:
        k_b, n_b = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise parameter_error("n", owner, f"an array broadcastable with 'k' (shape {k_arr.shape})",
                              n_arr) from None
    if np.any(k_b > n_b):
        i = int(np.argmax((k_b > n_b).ravel()))
        raise parameter_error("k", owner, "counts at most 'n'",
                              f"k = {k_b.ravel()[i]} with n = {n_b.ravel()[i]}")
    return k_b.astype(np.float64), n_b.astype(np.float64), beta


def _scalar_or_array(out, k, n):
    return float(out) if np.ndim(k) == 0 and np.ndim(n) == 0 else out


@constrained(k=_K, n=_N, beta=_BETA)
def clopper_pearson_lower(k, n, beta):
    """Exact one-sided lower confidence bound on a binomial proportion ([CP34]_).

    Parameters
    ----------
    k : int or array_like of int
        Numbers of successes, ``0 <= k <= n``.
    n : int or array_like of int, n >= 1
        Numbers of trials (broadcast against ``k``).
    beta : float in (0, 1)
        Error probability of the bound: ``P[bound > p] <= beta``.

    Returns
    -------
    float or ndarray
        ``0`` where ``k = 0``; otherwise the ``beta`` quantile of
        ``Beta(k, n - k + 1)``, lowered by the relative margin
        :data:`OUTWARD`.

    Examples
    --------
    >>> round(clopper_pearson_lower(5, 10, 0.025), 6)
    0.187086
    >>> clopper_pearson_lower(0, 10, 0.05)
    0.0
    """
    owner = "clopper_pearson_lower"
    k_f, n_f, beta = _counts(k, n, beta, owner)
    return _scalar_or_array(lower_unchecked(k_f, n_f, beta), k, n)


@constrained(k=_K, n=_N, beta=_BETA)
def clopper_pearson_upper(k, n, beta):
    """Exact one-sided upper confidence bound on a binomial proportion ([CP34]_).

    Parameters
    ----------
    k : int or array_like of int
        Numbers of successes, ``0 <= k <= n``.
    n : int or array_like of int, n >= 1
    beta : float in (0, 1)
        Error probability of the bound: ``P[bound < p] <= beta``.

    Returns
    -------
    float or ndarray
        ``1`` where ``k = n``; otherwise the ``1 - beta`` quantile of
        ``Beta(k + 1, n - k)``, raised by the relative margin :data:`OUTWARD`
        (and capped at 1). For ``k = 0`` this is ``1 - beta**(1/n)``.

    Examples
    --------
    >>> round(clopper_pearson_upper(0, 1000, 0.05), 6)
    0.002991
    >>> clopper_pearson_upper(7, 7, 0.05)
    1.0
    """
    owner = "clopper_pearson_upper"
    k_f, n_f, beta = _counts(k, n, beta, owner)
    return _scalar_or_array(upper_unchecked(k_f, n_f, beta), k, n)


def lower_unchecked(k, n, beta):
    """:func:`clopper_pearson_lower` without validation (float arrays, 0 <= k <= n, n >= 1)."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        q = special.betaincinv(np.maximum(k, 1.0), n - k + 1.0, beta)
    return np.where(k == 0, 0.0, np.clip(q, 0.0, 1.0) * (1.0 - OUTWARD))


def upper_unchecked(k, n, beta):
    """:func:`clopper_pearson_upper` without validation (float arrays, 0 <= k <= n, n >= 1)."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        # the 1 - beta quantile, from the complemented incomplete beta (no 1 - beta formed)
        q = special.betainccinv(k + 1.0, np.maximum(n - k, 1.0), beta)
        zero = -np.expm1(np.log(beta) / n)  # closed form at k = 0
    q = np.where(k == 0, np.maximum(q, zero), q)
    return np.where(k == n, 1.0, np.minimum(np.clip(q, 0.0, 1.0) * (1.0 + OUTWARD), 1.0))
