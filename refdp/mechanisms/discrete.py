r"""Exact discrete Laplace and discrete Gaussian noise, and the mechanisms built on them.

Continuous noise sampled in floating point is not private as implemented
([Mir12]_). The samplers here follow Canonne, Kamath and Steinke ([CKS20]_
Algorithms 1-3): every probability is a ratio of integers and every random
choice is a uniform integer built from whole 64-bit words of the Generator's
bit generator, so the released integers follow the stated laws exactly. The
compiled kernels are in ``refdp/_core.pyx``; parameters too large for their
fixed-width (64- and 128-bit) integers are sampled by the exact pure-Python
twins in :mod:`refdp.twins.core`, which draw the same words. The proofs are in
``docs/theory/discrete_samplers.rst``.

Parameters (scale, sigma, sensitivity, epsilon, rho) are exact rationals: an
``int``, a :class:`fractions.Fraction`, or a ``float`` taken at its exact
binary value (``Fraction(0.7) == Fraction(3152519739159347, 2**52)``, not 7/10).
Numerators and denominators are limited to :data:`MAX_BITS` bits.

References
----------
.. [CKS20] C\. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
   for Differential Privacy", NeurIPS 2020, Algorithms 1-3, Theorem 4,
   Definition 1 and Proposition 5.
.. [Mir12] I\. Mironov, "On Significance of the Least Significant Bits for
   Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from .. import core
from ..utils.constraints import RNG, Converted, Size, constrained
from ..utils.validation import Described, parameter_error

__all__ = [
    "MAX_BITS",
    "MAX_SIZE",
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_laplace_scale",
    "discrete_gaussian_sigma2",
    "discrete_laplace_mechanism",
    "discrete_gaussian_mechanism",
]

#: Largest bit length of the numerator or the denominator of an exact
#: rational parameter (and of a derived scale or sigma**2). A float has at
#: most 1075 bits in either, so every finite positive float is accepted.
MAX_BITS = 4096

#: Largest number of samples one call may return (2**36 int64 values, 512 GiB).
MAX_SIZE = 2**36

_INT64_MAX = 2**63 - 1
_RATIONAL = (f"a positive finite rational (int, Fraction or float) whose numerator "
             f"and denominator have at most {MAX_BITS} bits")


def _rational(value, name, owner) -> Fraction:
    """``value`` as an exact positive Fraction, or the standard ValueError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise parameter_error(name, owner, _RATIONAL, value)
    if isinstance(value, numbers.Integral):
        exact = Fraction(int(value))
    elif isinstance(value, Fraction):
        exact = value
    elif isinstance(value, numbers.Rational):
        exact = Fraction(int(value.numerator), int(value.denominator))
    else:
        f = float(value)
        if not math.isfinite(f):
            raise parameter_error(name, owner, _RATIONAL, value)
        exact = Fraction(f)
    if exact <= 0:
        raise parameter_error(name, owner, _RATIONAL, value)
    return _bounded(exact, name, owner, value)


def _bounded(exact: Fraction, name, owner, shown) -> Fraction:
    if max(exact.numerator.bit_length(), exact.denominator.bit_length()) > MAX_BITS:
        got = shown if isinstance(shown, (float, Described)) else Described(
            f"a rational with a {exact.numerator.bit_length()}-bit numerator and a "
            f"{exact.denominator.bit_length()}-bit denominator")
        raise parameter_error(name, owner, _RATIONAL, got)
    return exact


def _integer_value_of(value, name, owner):
    return _integer_value(value, owner)


#: A positive exact rational with bounded bit lengths, converted to a Fraction.
RATIONAL = Converted(_rational, _RATIONAL,
                     invalid=(0, -1, math.nan, math.inf, True, "1", None, Fraction(1, 2**(MAX_BITS + 1))))
#: The integer query value of the discrete mechanisms: ``(scalar, array)``.
INTEGER_VALUE = Converted(_integer_value_of, "an int or an array of integers (integer dtype, or Python ints)",
                          invalid=(True, 1.5, [1.5], "abc", None, np.array([1.0])))
#: The number of draws of one call.
SAMPLES = Size(max_elements=MAX_SIZE)


def _derived(what):
    return Described(f"a value for which the {what} exceeds the bit bound")


def _laplace_draws(scale: Fraction, n: int, bit_generator) -> np.ndarray:
    return core.discrete_laplace_draws(bit_generator, scale.denominator, scale.numerator, n)


def _gaussian_draws(sigma2: Fraction, n: int, bit_generator) -> np.ndarray:
    return core.discrete_gaussian_draws(bit_generator, sigma2.numerator, sigma2.denominator, n)


def _compact(values) -> np.ndarray:
    """A 1-D int64 array if every value fits, else an object array of Python ints."""
    return core.compact_integers(values)


def _shaped(draws, shape):
    if shape is None:
        return int(draws[0])
    return draws.reshape(shape)


@constrained(scale=RATIONAL, size=SAMPLES, rng=RNG)
def discrete_laplace(scale, size=None, rng=None):
    r"""Exact samples of the discrete Laplace law, ``P[Z = z]`` proportional to ``exp(-|z| / scale)``.

    Implements [CKS20]_ Algorithm 2 (with Algorithm 1 for the Bernoulli
    trials) for ``scale = t / s`` in lowest terms: the law on the integers with
    ``P[Z = z] = (1 - q) / (1 + q) * q**|z|``, ``q = exp(-1/scale)``
    ([CKS20]_ Definition 2).

    Parameters
    ----------
    scale : int, Fraction or float
        Positive, finite; a float is taken at its exact binary value. Its
        numerator and denominator may have at most :data:`MAX_BITS` bits.
        When both are below 2**64 the compiled kernel samples; otherwise the
        exact pure-Python twin does (same law, same words, slower).
    size : None, int or tuple of int, optional
        Output shape; at most :data:`MAX_SIZE` elements.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`; the words come from
        its bit generator (``next_uint64``), under its lock.

    Returns
    -------
    int or ndarray
        A Python int when ``size`` is None. Otherwise an int64 array, or, if
        some sample has ``|Z| >= 2**63`` (possible only for astronomically large
        scales), an object array of exact Python ints; which one is returned
        depends only on the samples.

    Raises
    ------
    ValueError
        If ``scale`` is not a positive finite rational within :data:`MAX_BITS`
        bits, or ``size`` is invalid or too large.

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
       for Differential Privacy", NeurIPS 2020, Algorithms 1 and 2, Definition 2.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from refdp.mechanisms import discrete_laplace
    >>> discrete_laplace(10, size=4, rng=0).dtype
    dtype('int64')
    >>> isinstance(discrete_laplace(Fraction(1, 3), rng=1), int)
    True
    """
    n = 1 if size is None else math.prod(size)
    return _shaped(_laplace_draws(scale, n, rng.bit_generator), size)


@constrained(sigma=RATIONAL, size=SAMPLES, rng=RNG)
def discrete_gaussian(sigma, size=None, rng=None):
    r"""Exact samples of the discrete Gaussian law, ``P[Z = z]`` proportional to ``exp(-z**2 / (2 sigma**2))``.

    Implements [CKS20]_ Algorithm 3 with ``sigma**2`` the exact square of the
    given rational ``sigma`` ([CKS20]_ Definition 1: the law ``N_Z(0,
    sigma**2)`` on the integers). For a float, ``sigma**2`` is the square of its
    exact binary value (for example ``discrete_gaussian(0.7)`` samples with
    ``sigma**2 = Fraction(0.7)**2``, a hair above 0.49).

    Parameters
    ----------
    sigma : int, Fraction or float
        Positive, finite; numerator and denominator of ``sigma**2`` at most
        :data:`MAX_BITS` bits. With ``sigma**2 = a/b`` in lowest terms and
        ``t = floor(sigma) + 1``, the compiled kernel samples when
        ``b t < 2**64`` and ``2 a b t**2 < 2**128`` (every rational sigma whose
        numerator and denominator are below about 2**30, e.g. integers up to
        2**31 and ``Fraction(7, 10)``); otherwise the exact pure-Python twin
        does. Floats with long mantissas such as 0.7 or 3.14159 take the twin;
        pass ``Fraction(7, 10)`` if 7/10 is meant.
    size : None, int or tuple of int, optional
        Output shape; at most :data:`MAX_SIZE` elements.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    int or ndarray
        As :func:`discrete_laplace`.

    Raises
    ------
    ValueError
        If ``sigma`` is not a positive finite rational within the bit bound,
        or ``size`` is invalid or too large.

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
       for Differential Privacy", NeurIPS 2020, Algorithms 1-3, Definition 1.

    Examples
    --------
    >>> from refdp.mechanisms import discrete_gaussian
    >>> discrete_gaussian(3, size=(2, 3), rng=0).shape
    (2, 3)
    """
    owner = "discrete_gaussian"
    sigma2 = _bounded(sigma * sigma, "sigma", owner, _derived("sigma**2"))
    n = 1 if size is None else math.prod(size)
    return _shaped(_gaussian_draws(sigma2, n, rng.bit_generator), size)


@constrained(sensitivity=RATIONAL, epsilon=RATIONAL)
def discrete_laplace_scale(sensitivity, epsilon):
    r"""Exact scale ``sensitivity / epsilon`` of :func:`discrete_laplace_mechanism`.

    Parameters
    ----------
    sensitivity, epsilon : int, Fraction or float
        Positive exact rationals (floats at their binary value).

    Returns
    -------
    Fraction
        The quotient, exactly; the mechanism is epsilon-DP because
        ``P[Z = z] / P[Z = z + k] <= exp(|k| / scale) <= exp(epsilon)`` for
        ``|k| <= sensitivity`` ([CKS20]_ Sec. 2, the discrete Laplace mechanism).

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
       for Differential Privacy", NeurIPS 2020, Sec. 2.
    """
    owner = "discrete_laplace_scale"
    return _bounded(sensitivity / epsilon, "epsilon", owner, _derived("scale sensitivity / epsilon"))


@constrained(sensitivity=RATIONAL, rho=RATIONAL)
def discrete_gaussian_sigma2(sensitivity, rho):
    r"""Exact variance parameter ``sensitivity**2 / (2 rho)`` of :func:`discrete_gaussian_mechanism`.

    Parameters
    ----------
    sensitivity, rho : int, Fraction or float
        Positive exact rationals (floats at their binary value).

    Returns
    -------
    Fraction
        ``sigma**2``, exactly; adding ``N_Z(0, sigma**2)`` to an integer query of
        sensitivity ``sensitivity`` is ``sensitivity**2 / (2 sigma**2) = rho``-zCDP
        ([CKS20]_ Theorem 4).

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
       for Differential Privacy", NeurIPS 2020, Theorem 4.
    """
    owner = "discrete_gaussian_sigma2"
    return _bounded(sensitivity * sensitivity / (2 * rho), "rho", owner,
                    _derived("sigma**2 = sensitivity**2 / (2 rho)"))


def _integer_value(value, owner):
    """``(scalar, array)``: a Python int, or an int64/object array of Python ints."""
    expected = ("an int or an array of integers (integer dtype, or Python ints); "
                "bool and float values are rejected")
    if isinstance(value, (bool, np.bool_)):
        raise parameter_error("value", owner, expected, value)
    if isinstance(value, numbers.Integral):
        return int(value), None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise parameter_error("value", owner, expected, value) from None
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > _INT64_MAX:
            return None, _object(arr)
        return None, arr.astype(np.int64)
    if arr.dtype.kind == "O" and all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                                     for v in arr.ravel()):
        return None, _object(arr)
    raise parameter_error("value", owner, expected, arr if arr.ndim else value)


def _object(arr):
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    flat[:] = [int(v) for v in arr.ravel()]
    return out


def _release(scalar, arr, draws):
    if arr is None:
        return scalar + int(draws[0])
    noise = draws.reshape(arr.shape)
    if arr.dtype == np.int64 and noise.dtype == np.int64 and arr.size:
        if int(np.abs(arr).max()) + int(np.abs(noise).max()) <= _INT64_MAX:
            return arr + noise
    if arr.size == 0:
        return arr.astype(np.int64)
    total = [int(v) + int(z) for v, z in zip(arr.ravel(), noise.ravel())]
    return _compact(total).reshape(arr.shape)


@constrained(value=INTEGER_VALUE, sensitivity=RATIONAL, epsilon=RATIONAL, rng=RNG)
def discrete_laplace_mechanism(value, sensitivity, epsilon, rng=None):
    r"""Release an integer query plus exact discrete Laplace noise of scale ``sensitivity / epsilon``.

    For a function ``f`` into the integers (or integer vectors) whose L1
    sensitivity is at most ``sensitivity``, releasing ``f(D) + Z`` with ``Z``
    i.i.d. discrete Laplace of scale ``sensitivity / epsilon`` (an exact
    rational) is epsilon-DP: the output probability ratio at every output is
    ``exp((|o - f(D')|_1 - |o - f(D)|_1) / scale) <= exp(epsilon)``
    ([CKS20]_ Sec. 2; proof in ``docs/theory/discrete_samplers.rst``). The
    noise is sampled exactly, so the guarantee holds as implemented.

    Parameters
    ----------
    value : int or array_like of int
        ``f(D)``: a Python or NumPy integer, or an array of an integer dtype
        (uint64 included) or of Python ints. ``bool`` and floats (even
        integral ones such as 2.0) are rejected, so that a float computation
        cannot pass for an integer query unnoticed.
    sensitivity, epsilon : int, Fraction or float
        Positive exact rationals (floats at their binary value).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    int or ndarray
        A Python int for a scalar ``value`` (exact, never overflows). For an
        array: int64 of ``value``'s shape if every released entry lies in
        ``[-(2**63 - 1), 2**63 - 1]``, otherwise an object array of exact
        Python ints (e.g. near the uint64 extremes). The choice depends only
        on the released values, so it reveals nothing beyond them.

    Raises
    ------
    ValueError
        For a non-integer ``value``, a non-positive or non-finite parameter,
        or a scale beyond :data:`MAX_BITS` bits.

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
       for Differential Privacy", NeurIPS 2020, Sec. 2 and Algorithm 2.

    Examples
    --------
    >>> from refdp.mechanisms import discrete_laplace_mechanism
    >>> isinstance(discrete_laplace_mechanism(42, 1, 0.5, rng=0), int)
    True
    """
    owner = "discrete_laplace_mechanism"
    scalar, arr = value
    scale = _bounded(sensitivity / epsilon, "epsilon", owner, _derived("scale sensitivity / epsilon"))
    n = 1 if arr is None else arr.size
    return _release(scalar, arr, _laplace_draws(scale, n, rng.bit_generator))


@constrained(value=INTEGER_VALUE, sensitivity=RATIONAL, rho=RATIONAL, rng=RNG)
def discrete_gaussian_mechanism(value, sensitivity, rho, rng=None):
    r"""Release an integer query plus exact discrete Gaussian noise; rho-zCDP.

    Adds i.i.d. ``N_Z(0, sigma**2)`` with ``sigma**2 = sensitivity**2 / (2 rho)``
    (an exact rational) to ``f(D)``. For integer-valued ``f`` with L2
    sensitivity at most ``sensitivity`` this is rho-zCDP ([CKS20]_ Theorem 4:
    ``D_alpha(N_Z(mu, s2) || N_Z(mu', s2)) <= alpha (mu - mu')**2 / (2 s2)``).

    Parameters
    ----------
    value : int or array_like of int
        As in :func:`discrete_laplace_mechanism`.
    sensitivity, rho : int, Fraction or float
        Positive exact rationals (floats at their binary value).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    int or ndarray
        As in :func:`discrete_laplace_mechanism`.

    Raises
    ------
    ValueError
        As in :func:`discrete_laplace_mechanism`.

    References
    ----------
    .. [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian
       for Differential Privacy", NeurIPS 2020, Theorem 4 and Algorithm 3.

    Examples
    --------
    >>> from refdp.mechanisms import discrete_gaussian_mechanism
    >>> discrete_gaussian_mechanism([3, 4], 1, 0.5, rng=0).dtype
    dtype('int64')
    """
    owner = "discrete_gaussian_mechanism"
    scalar, arr = value
    sigma2 = _bounded(sensitivity * sensitivity / (2 * rho), "rho", owner,
                      _derived("sigma**2 = sensitivity**2 / (2 rho)"))
    n = 1 if arr is None else arr.size
    return _release(scalar, arr, _gaussian_draws(sigma2, n, rng.bit_generator))
