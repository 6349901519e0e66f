"""Spherical Laplace noise on R^d (Chaudhuri, Monteleoni and Sarwate 2011).

References
----------
- [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
  Private Empirical Risk Minimization", JMLR 12, 2011, Algorithm 1
  (output perturbation) and Algorithm 2 (objective perturbation).
"""
from __future__ import annotations

import math

import numpy as np

from fractions import Fraction

from ..utils.constraints import COUNT, FLAG, POSITIVE, RNG, SIZE, Array, Optional, constrained
from ..utils.validation import parameter_error
from .float_safe import l2_laplace_grid, release

__all__ = ["spherical_laplace"]


@constrained(dim=COUNT, beta=POSITIVE, size=SIZE, secure=FLAG, sensitivity=Optional(POSITIVE),
             value=Optional(Array(ndim=1)), rng=RNG)
def spherical_laplace(dim, beta, *, size=None, rng=None, value=None, sensitivity=None, secure=True):
    """Spherical Laplace noise (density ``~ exp(-beta ||b||_2)`` on ``R^dim``), or a release with it.

    Without ``value`` this draws the noise vectors ``b`` (a sampler, for
    objective perturbation and Monte Carlo; noise alone is not a release).
    With ``value`` and ``sensitivity`` it releases ``value`` privately:
    ``exp(beta sensitivity)``-DP for an L2 sensitivity ``sensitivity``, by
    default with a float-safe construction that holds for the doubles
    returned.

    In polar coordinates the density is proportional to ``r**(dim - 1)
    exp(-beta r)`` times the uniform measure on the sphere, so the norm is
    Gamma(shape ``dim``, scale ``1 / beta``) and independent of a uniform
    direction ([CMS11]_ Algorithm 1). Adding such ``b`` to a vector with L2
    sensitivity ``Delta`` gives density ratios at most ``exp(beta Delta)`` by
    the triangle inequality; output perturbation uses ``beta = n Lambda
    epsilon / 2`` against ``Delta = 2 / (n Lambda)``.

    Parameters
    ----------
    dim : int >= 1
        Dimension ``d``.
    beta : float > 0
        Rate; the mean norm is ``dim / beta``.
    size : None, int or tuple of int, optional
        Number of independent vectors (sampler only; with ``value`` the
        shape is that of ``value``).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.
    value : array_like of float, shape (dim,), optional
        The vector to release (finite).
    sensitivity : float > 0, optional
        Its L2 sensitivity ``Delta``; required with ``value``. The release is
        ``epsilon``-DP with ``epsilon = beta Delta``.
    secure : bool, default True
        With ``value``: True releases on a grid with exact integer noise
        (below); False returns ``value + b`` in doubles, the textbook path,
        **not private as implemented** ([Mir12]_), kept for comparison and
        teaching. Ignored without ``value``.

    Returns
    -------
    ndarray of float
        Without ``value``: shape ``(dim,)`` if ``size`` is None, else ``size +
        (dim,)``. With ``value``: shape ``(dim,)``.

    Raises
    ------
    ValueError
        On invalid parameters; with ``secure=True``, if an entry of ``value``
        is too large for its grid index to be an exact double.

    Notes
    -----
    The sampler draws the norm with :meth:`numpy.random.Generator.gamma`,
    then the direction as a standard normal vector divided by its norm (drawn
    again in the probability-zero event that it is 0). With ``dim = 1`` this
    is Laplace noise of scale ``1 / beta``.

    **The secure release** (``docs/theory/secure_noise.rst``, Theorem 3). The
    spherical law has no exact sampler on a grid; refdp replaces it by
    i.i.d. discrete Laplace noise per coordinate, calibrated to the L1
    sensitivity of the grid index, which is at most ``Delta_Z =
    ceil(sqrt(d) Delta / g) + d`` (``||u||_1 <= sqrt(d) ||u||_2`` plus one
    grid step per coordinate; ``floor(Delta / g) + 1`` for ``d = 1``), with
    ``g`` the largest power of two at most ``Delta / (2**10
    2**ceil(log2 ceil(sqrt(d))))`` and scale ``t >= Delta_Z / (beta
    Delta)``. **Cost:** per coordinate the noise variance is about ``2 d /
    beta**2`` (times ``(1 + 2**-10)**2``) against ``(d + 1) / beta**2`` for
    the spherical law, a standard deviation larger by ``sqrt(2 d / (d +
    1))``: equal for ``d = 1``, at most ``sqrt 2`` in any dimension; the
    expected norm is larger by about ``sqrt(2 / pi)`` ... ``sqrt(2)``
    times ``sqrt(d)`` over ``(d / beta) / (sqrt(d) / beta)``, i.e. of order
    ``d / beta`` in both. The grid moves each entry by at most ``g / 2``.

    References
    ----------
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.
    .. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
       Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011.
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete
       Gaussian for Differential Privacy", NeurIPS 2020, Algorithm 2.

    Examples
    --------
    >>> from refdp.mechanisms import spherical_laplace
    >>> spherical_laplace(3, 2.0, rng=0).round(6).tolist()
    [1.094909, 0.179344, -0.915816]
    >>> spherical_laplace(3, 2.0, size=(4, 5), rng=0).shape
    (4, 5, 3)
    >>> spherical_laplace(2, 2.0, value=[0.5, 0.25], sensitivity=0.5, rng=0).shape
    (2,)
    """
    owner = "spherical_laplace"
    shape = size
    scale = 1.0 / beta
    if math.isinf(scale):
        raise parameter_error("beta", owner, "large enough that 1 / beta is finite", beta)
    if value is not None:
        if shape is not None:
            raise parameter_error("size", owner, "None when 'value' is given", size)
        if sensitivity is None:
            raise parameter_error("sensitivity", owner, "a float in the range (0, inf) when 'value' is given",
                                  sensitivity)
        if value.shape != (dim,):
            raise parameter_error("value", owner, f"an array of shape ('dim',) = ({dim},)", value)
        if secure:
            epsilon = Fraction(beta) * Fraction(sensitivity)
            return release(value, l2_laplace_grid(epsilon, sensitivity, dim), rng, owner)
        return value + _draw(dim, scale, (), rng)
    if sensitivity is not None:
        raise parameter_error("sensitivity", owner, "None when 'value' is None", sensitivity)
    return _draw(dim, scale, () if shape is None else shape, rng)


def _draw(dim, scale, shape, rng):
    radius = rng.gamma(dim, scale, size=shape)
    z = rng.standard_normal(shape + (dim,))
    norm = np.linalg.norm(z, axis=-1)
    zero = norm == 0.0
    while np.any(zero):
        z[zero] = rng.standard_normal((int(zero.sum()), dim))
        norm[zero] = np.linalg.norm(z[zero], axis=-1)
        zero = norm == 0.0
    return z * (radius / norm)[..., None]
