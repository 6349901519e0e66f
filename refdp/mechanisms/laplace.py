"""The Laplace mechanism (Dwork, McSherry, Nissim and Smith 2006).

References
----------
- [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
  Privacy", Foundations and Trends in TCS 9(3-4), 2014, Definition 3.3 and
  Theorem 3.6.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
- [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
  Differential Privacy", NeurIPS 2020, Algorithm 2.
"""
from __future__ import annotations

import math

from ..utils.constraints import FLAG, POSITIVE, RNG, Array, constrained
from ..utils.validation import parameter_error
from .float_safe import laplace_grid, release
from ..utils.rounding import upward_quotient

__all__ = ["laplace_scale", "laplace_mechanism"]


@constrained(epsilon=POSITIVE, sensitivity=POSITIVE)
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
    return upward_quotient(sensitivity, epsilon)


@constrained(value=Array(), epsilon=POSITIVE, sensitivity=POSITIVE, rng=RNG, secure=FLAG)
def laplace_mechanism(value, epsilon, *, sensitivity=1.0, rng=None, secure=True):
    """Release ``value`` with Laplace noise of scale ``sensitivity / epsilon``, epsilon-DP as implemented.

    For a function ``f`` with L1 sensitivity ``sensitivity`` (the largest
    ``sum_i |f(D)_i - f(D')_i|`` over neighbouring ``D, D'``), releasing
    ``f(D) + Z`` with ``Z_i`` i.i.d. Lap(b), ``b = sensitivity / epsilon``, is
    epsilon-differentially private ([DR14]_ Theorem 3.6). Sampled and added in
    double precision, that release is not private ([Mir12]_), so by default
    this function releases the discrete analogue on a grid, whose guarantee
    holds for the doubles it returns.

    Parameters
    ----------
    value : float or array_like of float
        The exact value ``f(D)`` as computed; any shape. Must be finite and,
        with ``secure=True``, at most ``(2**53 - 1) g`` in magnitude (below).
    epsilon : float > 0
        Privacy parameter.
    sensitivity : float > 0, default 1.0
        L1 sensitivity of ``f`` (as computed in floating point) under the
        caller's neighbour relation.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.
        For deployments, a Generator on a cryptographically strong bit
        generator (``docs/theory/secure_noise.rst``).
    secure : bool, default True
        True: the grid construction below, epsilon-DP for the returned
        doubles. False: the textbook path ``value + Generator.laplace(0, b)``
        in doubles, **not differentially private as implemented** (an audit
        with float-bits events finds epsilon above 8 at a claimed 0.1); kept
        for comparison and teaching only.

    Returns
    -------
    float or ndarray of float
        A float for scalar ``value``, otherwise an array of ``value``'s shape.

    Raises
    ------
    ValueError
        If ``epsilon`` or ``sensitivity`` is not a finite positive float, if
        ``value`` has a non-finite entry, if ``sensitivity / epsilon``
        overflows, or (``secure=True``) if an entry of ``value`` is too large
        for its grid index to be an exact double.

    Notes
    -----
    **The secure construction** (``docs/theory/secure_noise.rst``, Theorem 1).
    With ``d`` the number of entries of ``value``, let ``g`` be the largest
    power of two at most ``sensitivity / (2**10 2**ceil(log2 d))``. The
    function computes ``k = round(value / g)`` (exact division by a power of
    two), whose L1 sensitivity is at most ``Delta_Z = floor(sensitivity / g)
    + d``, adds i.i.d. discrete Laplace noise ``P(z) ~ exp(-|z| / t)`` with
    ``t >= Delta_Z / epsilon`` drawn exactly in integer arithmetic ([CKS20]_
    Algorithm 2), and returns ``g (k + Z)``, an exact product. The release is
    epsilon-DP for the returned doubles.

    **Cost.** The noise scale is ``g t``, between ``b`` and ``b (1 + d g /
    sensitivity) <= b (1 + 2**-10)`` (plus a relative ``2**-47`` from rounding
    ``t`` up), and the rounding to the grid moves the value by at most
    ``g / 2`` per entry. Each entry must satisfy ``|value| <= (2**53 - 1) g``
    (for ``sensitivity = 1``, ``d = 1``: about ``8.8e12``); larger entries
    raise ``ValueError`` rather than release a value whose noise would be lost
    to rounding. Noisy indices beyond ``2**53 - 1`` are clamped (a
    post-processing).

    **secure=False** draws with :meth:`numpy.random.Generator.laplace` and
    adds in double precision: the set of doubles it can produce depends on
    ``value``, and the low-order bits reveal it ([Mir12]_). The scale is
    rounded upward (see :func:`laplace_scale`).

    References
    ----------
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020.

    Examples
    --------
    >>> from refdp.mechanisms import laplace_mechanism
    >>> x = laplace_mechanism(10.0, 1.0, rng=0)
    >>> x == round(x * 1024) / 1024     # on the grid 2**-10
    True
    >>> laplace_mechanism([1.0, 2.0], 0.5, sensitivity=2.0, rng=1).shape
    (2,)
    """
    owner = "laplace_mechanism"
    scale = upward_quotient(sensitivity, epsilon)
    if math.isinf(scale):
        raise parameter_error("epsilon", owner,
                              f"large enough that sensitivity / epsilon is finite "
                              f"('sensitivity' = {sensitivity!r})", epsilon)
    if secure:
        out = release(value, laplace_grid(epsilon, sensitivity, value.size), rng, owner)
    else:
        out = value + rng.laplace(0.0, scale, size=value.shape)
    return float(out) if out.ndim == 0 else out
