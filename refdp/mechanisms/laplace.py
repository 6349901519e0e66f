"""The Laplace mechanism (Dwork, McSherry, Nissim and Smith 2006).

References
----------
- [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
  Privacy", Foundations and Trends in TCS 9(3-4), 2014, Definition 3.3 and
  Theorem 3.6.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math

from .._validation import check_array, check_rng, check_scalar, parameter_error
from ._args import POSITIVE
from .._rounding import upward_quotient

__all__ = ["laplace_scale", "laplace_mechanism"]


def laplace_scale(epsilon, sensitivity=1.0):
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism, rounded upward.

    Parameters
    ----------
    epsilon : float > 0
        Privacy parameter.
    sensitivity : float > 0, default 1.0
        L1 sensitivity of the released function ([DR14]_ Definition 3.1).

    Returns
    -------
    float
        The smallest double that is at least the exact quotient
        ``sensitivity / epsilon`` of the given floats (``inf`` if that
        exceeds the largest double). Rounding upward keeps the density ratio of
        the continuous law at most ``exp(epsilon)``.

    References
    ----------
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.

    Examples
    --------
    >>> from refdp.mechanisms import laplace_scale
    >>> laplace_scale(0.5), laplace_scale(0.1, sensitivity=2.0)
    (2.0, 20.0)
    """
    owner = "laplace_scale"
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    sensitivity = check_scalar(sensitivity, "sensitivity", owner, POSITIVE)
    return upward_quotient(sensitivity, epsilon)


def laplace_mechanism(value, epsilon, *, sensitivity=1.0, rng=None):
    """Release ``value`` plus i.i.d. Laplace noise of scale ``sensitivity / epsilon``.

    For a function ``f`` with L1 sensitivity ``sensitivity`` (the largest
    ``sum_i |f(D)_i - f(D')_i|`` over neighbouring ``D, D'``), releasing
    ``f(D) + Z`` with ``Z_i`` i.i.d. Lap(b), ``b = sensitivity / epsilon``, is
    epsilon-differentially private ([DR14]_ Theorem 3.6): the density ratio at
    every output ``x`` is ``exp((|x - f(D')|_1 - |x - f(D)|_1) / b) <=
    exp(epsilon)``.

    Parameters
    ----------
    value : float or array_like of float
        The exact value ``f(D)``; any shape. Must be finite.
    epsilon : float > 0
        Privacy parameter.
    sensitivity : float > 0, default 1.0
        L1 sensitivity of ``f`` under the caller's neighbour relation.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    float or ndarray of float
        A float for scalar ``value``, otherwise an array of ``value``'s shape.

    Raises
    ------
    ValueError
        If ``epsilon`` or ``sensitivity`` is not a finite positive float, if
        ``value`` has a non-finite entry, or if ``sensitivity / epsilon``
        overflows.

    Notes
    -----
    **Floating point.** The guarantee above is a statement about real-valued
    noise. This reference path draws the noise with
    :meth:`numpy.random.Generator.laplace` (inversion of one uniform double)
    and adds it in double precision. The set of doubles it can produce depends
    on ``value``, so outputs that one neighbour can produce may be impossible
    for the other, and the released value can reveal the input exactly: the
    floating-point Laplace mechanism is *not* epsilon-DP in general ([Mir12]_,
    who also gives the snapping mechanism as a remedy). Use an exact
    integer-arithmetic sampler (e.g. the discrete Laplace of Canonne, Kamath
    and Steinke 2020) where this matters. The scale is rounded upward (see
    :func:`laplace_scale`).

    References
    ----------
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.

    Examples
    --------
    >>> from refdp.mechanisms import laplace_mechanism
    >>> round(laplace_mechanism(10.0, 1.0, rng=0), 6)
    10.3201
    >>> laplace_mechanism([1.0, 2.0], 0.5, sensitivity=2.0, rng=1).shape
    (2,)
    """
    owner = "laplace_mechanism"
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    sensitivity = check_scalar(sensitivity, "sensitivity", owner, POSITIVE)
    value = check_array(value, "value", owner)
    scale = upward_quotient(sensitivity, epsilon)
    if math.isinf(scale):
        raise parameter_error("epsilon", owner,
                              f"large enough that sensitivity / epsilon is finite "
                              f"(sensitivity = {sensitivity!r})", epsilon)
    rng = check_rng(rng)
    out = value + rng.laplace(0.0, scale, size=value.shape)
    return float(out) if out.ndim == 0 else out
