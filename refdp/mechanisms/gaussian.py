"""The Gaussian mechanism under zero-concentrated differential privacy.

References
----------
- [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
  Simplifications, Extensions, and Lower Bounds", TCC 2016, Definition 1.1
  and Proposition 1.6.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math

from .._validation import check_array, check_rng, check_scalar, parameter_error
from ._args import POSITIVE
from .._rounding import upward_gaussian_sigma

__all__ = ["gaussian_sigma_zcdp", "gaussian_mechanism"]


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
    owner = "gaussian_sigma_zcdp"
    rho = check_scalar(rho, "rho", owner, POSITIVE)
    sensitivity = check_scalar(sensitivity, "sensitivity", owner, POSITIVE)
    return upward_gaussian_sigma(sensitivity, rho)


def gaussian_mechanism(value, rho, *, sensitivity=1.0, rng=None):
    """Release ``value`` plus i.i.d. N(0, sigma^2) noise, ``sigma = sensitivity / sqrt(2 rho)``.

    For ``f`` with L2 sensitivity ``sensitivity`` (the largest
    ``||f(D) - f(D')||_2`` over neighbours), the release is rho-zCDP
    ([BS16]_ Proposition 1.6): for every order ``alpha > 1`` the Renyi
    divergence is ``D_alpha(N(f(D), sigma^2 I) || N(f(D'), sigma^2 I)) =
    alpha ||f(D) - f(D')||^2 / (2 sigma^2) <= rho alpha``.

    Parameters
    ----------
    value : float or array_like of float
        The exact value ``f(D)``; any shape. Must be finite.
    rho : float > 0
        zCDP parameter.
    sensitivity : float > 0, default 1.0
        L2 sensitivity of ``f`` under the caller's neighbour relation.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    float or ndarray of float
        A float for scalar ``value``, otherwise an array of ``value``'s shape.

    Raises
    ------
    ValueError
        If ``rho`` or ``sensitivity`` is not a finite positive float, if
        ``value`` has a non-finite entry, or if sigma overflows.

    Notes
    -----
    rho-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every
    ``delta > 0`` ([BS16]_ Proposition 1.3). The guarantee is about
    real-valued noise; this path draws doubles with
    :meth:`numpy.random.Generator.normal` (ziggurat) and adds them in double
    precision, which is not exactly private for the reasons given by [Mir12]_.
    Exact discrete Gaussian samplers (Canonne, Kamath and Steinke 2020) avoid
    this.

    References
    ----------
    .. [BS16] M. Bun and T. Steinke, "Concentrated Differential Privacy:
       Simplifications, Extensions, and Lower Bounds", TCC 2016.
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.

    Examples
    --------
    >>> from refdp.mechanisms import gaussian_mechanism
    >>> round(gaussian_mechanism(3.0, 0.5, rng=0), 6)
    3.12573
    """
    owner = "gaussian_mechanism"
    rho = check_scalar(rho, "rho", owner, POSITIVE)
    sensitivity = check_scalar(sensitivity, "sensitivity", owner, POSITIVE)
    value = check_array(value, "value", owner)
    sigma = upward_gaussian_sigma(sensitivity, rho)
    if math.isinf(sigma):
        raise parameter_error("rho", owner,
                              f"large enough that sensitivity / sqrt(2 rho) is finite "
                              f"(sensitivity = {sensitivity!r})", rho)
    rng = check_rng(rng)
    out = value + rng.normal(0.0, sigma, size=value.shape)
    return float(out) if out.ndim == 0 else out
