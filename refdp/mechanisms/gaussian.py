"""The Gaussian mechanism under zero-concentrated differential privacy.

References
----------
- [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
  Simplifications, Extensions, and Lower Bounds", TCC 2016, Definition 1.1
  and Proposition 1.6.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
- [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
  Differential Privacy", NeurIPS 2020, Algorithm 3 and Theorem 14.
"""
from __future__ import annotations

import math

from ..utils.constraints import FLAG, POSITIVE, RNG, Array, constrained
from ..utils.validation import parameter_error
from .float_safe import gaussian_grid, release
from ..utils.rounding import upward_gaussian_sigma

__all__ = ["gaussian_sigma_zcdp", "gaussian_mechanism"]


@constrained(rho=POSITIVE, sensitivity=POSITIVE)
def gaussian_sigma_zcdp(rho, sensitivity=1.0):
    """Noise standard deviation ``sensitivity / sqrt(2 rho)`` for rho-zCDP, rounded upward.

    Parameters
    ----------
    rho : float > 0
        zCDP parameter.
    sensitivity : float > 0, default 1.0
        L2 sensitivity of the released function.

    Returns
    -------
    float
        The smallest double ``s`` with ``2 rho s**2 >= sensitivity**2``
        exactly (``inf`` if that exceeds the largest double), so that
        ``sensitivity**2 / (2 s**2) <= rho`` ([BS16]_ Proposition 1.6).

    References
    ----------
    .. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
       Simplifications, Extensions, and Lower Bounds", TCC 2016.

    Examples
    --------
    >>> from refdp.mechanisms import gaussian_sigma_zcdp
    >>> gaussian_sigma_zcdp(0.5), gaussian_sigma_zcdp(2.0, sensitivity=4.0)
    (1.0, 2.0)
    """
    return upward_gaussian_sigma(sensitivity, rho)


@constrained(rho=POSITIVE, sensitivity=POSITIVE, secure=FLAG, value=Array(min_size=0), rng=RNG)
def gaussian_mechanism(value, rho, *, sensitivity=1.0, rng=None, secure=True):
    """Release ``value`` with Gaussian noise ``sigma = sensitivity / sqrt(2 rho)``, rho-zCDP as implemented.

    For ``f`` with L2 sensitivity ``sensitivity`` (the largest
    ``||f(D) - f(D')||_2`` over neighbours), releasing ``f(D) + N(0, sigma^2
    I)`` is rho-zCDP ([BS16]_ Proposition 1.6). Sampled and added in double
    precision that release is not private ([Mir12]_); by default this
    function releases the discrete Gaussian analogue on a grid, whose
    guarantee holds for the doubles it returns.

    Parameters
    ----------
    value : float or array_like of float
        The exact value ``f(D)`` as computed; any shape. Must be finite and,
        with ``secure=True``, at most ``(2**53 - 1) g`` in magnitude (below).
    rho : float > 0
        zCDP parameter.
    sensitivity : float > 0, default 1.0
        L2 sensitivity of ``f`` (as computed) under the caller's neighbour
        relation.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.
        For deployments, a Generator on a cryptographically strong bit
        generator (``docs/theory/secure_noise.rst``).
    secure : bool, default True
        True: the grid construction below, rho-zCDP for the returned doubles.
        False: the textbook path ``value + Generator.normal(0, sigma)`` in
        doubles, **not private as implemented** ([Mir12]_); kept for
        comparison and teaching only.

    Returns
    -------
    float or ndarray of float
        A float for scalar ``value``, otherwise an array of ``value``'s shape.

    Raises
    ------
    ValueError
        If ``rho`` or ``sensitivity`` is not a finite positive float, if
        ``value`` has a non-finite entry, if sigma overflows, or
        (``secure=True``) if an entry of ``value`` is too large for its grid
        index to be an exact double.

    Notes
    -----
    **The secure construction** (``docs/theory/secure_noise.rst``, Theorem 2).
    With ``d`` entries and ``s = ceil(sqrt(d))``, ``g`` is the largest power
    of two at most ``sensitivity / (2**10 2**ceil(log2 s))``; ``k =
    round(value / g)`` has L2 sensitivity at most ``Delta_Z = ceil(sensitivity
    / g + sqrt(d))`` (``floor(sensitivity / g) + 1`` for ``d = 1``); each entry gets independent discrete Gaussian noise with
    ``sigma_Z**2 >= Delta_Z**2 / (2 rho)`` drawn exactly ([CKS20]_ Algorithm
    3), and ``g (k + Z)`` is returned. By [CKS20]_ Theorem 14 the release is
    rho-zCDP, hence ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every
    ``delta > 0`` ([BS16]_ Proposition 1.3), for the returned doubles.

    **Cost.** The noise standard deviation per entry is at most ``g sigma_Z
    <= sigma (1 + (s + 1) g / sensitivity) <= sigma (1 + 2**-9)`` (and at most
    ``g sigma_Z``: the discrete Gaussian's variance is below ``sigma_Z**2``,
    [CKS20]_ Corollary 9); the grid moves the value by at most ``g / 2`` per
    entry. Entries beyond ``(2**53 - 1) g`` in magnitude raise
    ``ValueError``.

    References
    ----------
    .. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
       Simplifications, Extensions, and Lower Bounds", TCC 2016.
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020.

    Examples
    --------
    >>> from refdp.mechanisms import gaussian_mechanism
    >>> x = gaussian_mechanism(3.0, 0.5, rng=0)
    >>> x == round(x * 1024) / 1024     # on the grid 2**-10
    True
    """
    owner = "gaussian_mechanism"
    sigma = upward_gaussian_sigma(sensitivity, rho)
    if math.isinf(sigma):
        raise parameter_error("rho", owner,
                              f"large enough that sensitivity / sqrt(2 rho) is finite "
                              f"('sensitivity' = {sensitivity!r})", rho)
    if secure:
        out = release(value, gaussian_grid(rho, sensitivity, value.size), rng, owner)
    else:
        out = value + rng.normal(0.0, sigma, size=value.shape)
    return float(out) if out.ndim == 0 else out
