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

from .._validation import Interval, check_rng, check_scalar, parameter_error
from ._args import POSITIVE, check_size

__all__ = ["spherical_laplace"]


def spherical_laplace(dim, beta, *, size=None, rng=None):
    """Draw vectors with density proportional to ``exp(-beta ||b||_2)`` on ``R^dim``.

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
        Number of independent vectors.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    ndarray of float
        Shape ``(dim,)`` if ``size`` is None, else ``size + (dim,)``.

    Notes
    -----
    The norm is drawn with :meth:`numpy.random.Generator.gamma`, then the
    direction as a standard normal vector divided by its norm (drawn again in
    the probability-zero event that it is 0). With ``dim = 1`` this is
    Laplace noise of scale ``1 / beta``. As with every double-precision
    continuous sampler, the privacy guarantee is about the real-valued law
    ([Mir12]_).

    References
    ----------
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.
    .. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
       Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011.

    Examples
    --------
    >>> from refdp.mechanisms import spherical_laplace
    >>> spherical_laplace(3, 2.0, rng=0).round(6).tolist()
    [1.094909, 0.179344, -0.915816]
    >>> spherical_laplace(3, 2.0, size=(4, 5), rng=0).shape
    (4, 5, 3)
    """
    owner = "spherical_laplace"
    dim = check_scalar(dim, "dim", owner, Interval(int, 1, None))
    beta = check_scalar(beta, "beta", owner, POSITIVE)
    shape = check_size(size, owner)
    scale = 1.0 / beta
    if math.isinf(scale):
        raise parameter_error("beta", owner, "large enough that 1 / beta is finite", beta)
    rng = check_rng(rng)
    shape = () if shape is None else shape
    radius = rng.gamma(dim, scale, size=shape)
    z = rng.standard_normal(shape + (dim,))
    norm = np.linalg.norm(z, axis=-1)
    zero = norm == 0.0
    while np.any(zero):
        z[zero] = rng.standard_normal((int(zero.sum()), dim))
        norm[zero] = np.linalg.norm(z[zero], axis=-1)
        zero = norm == 0.0
    return z * (radius / norm)[..., None]
