"""Continuous releases that are private for the doubles they return.

The construction (proved on ``docs/theory/secure_noise.rst``): round the value
to a grid ``g Z`` with ``g`` a power of two, add exact integer noise to the
grid index, and multiply back by ``g``. Every step after the rounding is exact
in binary floating point, so the released double is a function of the noisy
integer alone, whose law is that of the mathematical mechanism.

* :func:`laplace_grid` -- discrete Laplace for an L1 sensitivity (epsilon-DP);
* :func:`gaussian_grid` -- discrete Gaussian per coordinate for an L2
  sensitivity (rho-zCDP);
* :func:`l2_laplace_grid` -- discrete Laplace per coordinate for an L2
  sensitivity, through ``||u||_1 <= sqrt(d) ||u||_2`` (epsilon-DP).

Each returns a :class:`GridNoise`; :func:`release` applies it to a value.
:func:`smooth_laplace_release` is the smooth-sensitivity release on a public
grid (Theorem 4 of the theory page).

References
----------
- [CKS20] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
  Differential Privacy", NeurIPS 2020.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..utils.rounding import EXACT_INT_LIMIT, up_dyadic, up_dyadic_sqrt
from ..utils.validation import Described, parameter_error
from .discrete import discrete_gaussian, discrete_laplace

__all__ = ["GridNoise", "GRID_BITS", "grid_step", "laplace_grid", "gaussian_grid", "l2_laplace_grid",
           "release", "smooth_laplace_release", "SMOOTH_BETA_MARGIN"]

#: The smooth bound is computed for ``beta - SMOOTH_BETA_MARGIN`` so that the
#: upward rounding of the grid scale (relative ``2**-47`` at most) keeps the
#: scale ``beta``-smooth (``docs/theory/secure_noise.rst``, Theorem 4).
SMOOTH_BETA_MARGIN = 2.0**-46

#: The grid step is at most ``sensitivity / (2**GRID_BITS * spread)``.
GRID_BITS = 10
_MIN_STEP_EXP = -1074  # the smallest positive double is 2**-1074


@dataclass(frozen=True)
class GridNoise:
    """A float-safe noise recipe: grid step, integer sensitivity and integer noise law.

    Attributes
    ----------
    step : float
        The grid step ``g``, a power of two.
    integer_sensitivity : int
        Sensitivity of the grid index ``round(x / g)`` (L1 for the Laplace
        laws, L2 for the Gaussian law).
    law : {"laplace", "gaussian"}
        The integer noise law.
    parameter : Fraction
        The discrete Laplace scale ``t`` (``P(z) ~ exp(-|z| / t)``) or the
        discrete Gaussian ``sigma`` (``P(z) ~ exp(-z**2 / (2 sigma**2))``), in
        grid steps, rounded upward to a dyadic rational.
    dim : int
        The number of coordinates the sensitivity was stated for.
    """

    step: float
    integer_sensitivity: int
    law: str
    parameter: Fraction
    dim: int

    @property
    def noise_scale(self) -> float:
        """The noise parameter in the units of the value (``step * parameter``), rounded up."""
        return math.nextafter(float(self.parameter) * self.step, math.inf)


def grid_step(sensitivity: float, spread: int) -> float:
    """The largest power of two ``g <= sensitivity / (2**GRID_BITS * 2**ceil(log2 spread))``.

    Never below ``2**-1074`` (the smallest positive double).
    """
    _, e = math.frexp(sensitivity)          # sensitivity in [2**(e-1), 2**e)
    exp = e - 1 - GRID_BITS - (int(spread) - 1).bit_length()
    return math.ldexp(1.0, max(exp, _MIN_STEP_EXP))


def _ceil_sqrt(q: Fraction) -> int:
    c = math.isqrt(q.numerator // q.denominator)
    while c * c < q:
        c += 1
    return c


def laplace_grid(epsilon: float, sensitivity: float, dim: int) -> GridNoise:
    """Discrete Laplace on the grid for L1 sensitivity ``sensitivity`` over ``dim`` coordinates.

    ``integer_sensitivity = floor(sensitivity / g) + dim`` and scale
    ``t >= integer_sensitivity / epsilon``; the release is epsilon-DP
    (``docs/theory/secure_noise.rst``, Theorem 1).
    """
    dim = max(1, int(dim))
    g = grid_step(sensitivity, dim)
    dz = math.floor(Fraction(sensitivity) / Fraction(g)) + dim
    t = up_dyadic(Fraction(dz) / Fraction(epsilon))
    return GridNoise(g, dz, "laplace", t, dim)


def l2_laplace_grid(epsilon: float, sensitivity: float, dim: int) -> GridNoise:
    """Discrete Laplace per coordinate for L2 sensitivity ``sensitivity`` over ``dim`` coordinates.

    ``integer_sensitivity = ceil(sqrt(dim) sensitivity / g) + dim`` bounds the
    L1 distance of the grid indices; scale ``t >= integer_sensitivity /
    epsilon``; epsilon-DP (``docs/theory/secure_noise.rst``, Theorem 3).
    ``epsilon`` is a Fraction or a float, taken exactly.
    """
    dim = max(1, int(dim))
    g = grid_step(sensitivity, math.isqrt(dim - 1) + 1)
    r = Fraction(sensitivity) / Fraction(g)
    dz = (math.floor(r) + 1 if dim == 1 else _ceil_sqrt(dim * r * r) + dim)
    t = up_dyadic(Fraction(dz) / Fraction(epsilon))
    return GridNoise(g, dz, "laplace", t, dim)


def _l2_index_sensitivity(r: Fraction, dim: int) -> int:
    """An integer bound on ``||k - k'||_2`` for grid indices of values ``r`` steps apart in L2.

    ``floor(r) + 1`` for ``dim = 1`` (the Lemma: the distance is an integer);
    otherwise the smallest integer at least ``r + sqrt(dim)`` (the triangle
    inequality; ``||k - k'||_2`` need not be an integer, so ``floor(r)`` cannot
    be used), decided exactly.
    """
    if dim == 1:
        return math.floor(r) + 1
    m = math.floor(r) + math.isqrt(dim)
    while m < r or (m - r) ** 2 < dim:
        m += 1
    return m


def gaussian_grid(rho: float, sensitivity: float, dim: int) -> GridNoise:
    """Discrete Gaussian per coordinate for L2 sensitivity ``sensitivity`` over ``dim`` coordinates.

    ``integer_sensitivity = ceil(sensitivity / g + sqrt(dim))`` (``floor(sensitivity
    / g) + 1`` for ``dim = 1``) and ``sigma**2 >= integer_sensitivity**2 / (2
    rho)``; rho-zCDP (``docs/theory/secure_noise.rst``, Theorem 2).
    ``rho`` is a Fraction or a float, taken exactly.
    """
    dim = max(1, int(dim))
    spread = math.isqrt(dim - 1) + 1          # ceil(sqrt(dim))
    g = grid_step(sensitivity, spread)
    dz = _l2_index_sensitivity(Fraction(sensitivity) / Fraction(g), dim)
    sigma = up_dyadic_sqrt(Fraction(dz * dz) / (2 * Fraction(rho)))
    return GridNoise(g, dz, "gaussian", sigma, dim)


def _index(value: np.ndarray, g: float, owner: str, name: str) -> np.ndarray:
    """``round(value / g)`` as int64, or the standard ValueError if it is not an exact double."""
    with np.errstate(over="ignore", under="ignore"):
        q = value / g       # exact unless it overflows (an underflow rounds to 0 either way)
    k = np.rint(q)
    bad = ~(np.abs(k) <= EXACT_INT_LIMIT)
    if np.any(bad):
        pos = tuple(int(i) for i in np.argwhere(bad)[0]) if value.ndim else ()
        x = float(value[pos]) if value.ndim else float(value)
        shown = Described(f"{x!r}" + (f" at position {pos}" if value.ndim else ""))
        raise parameter_error(
            name, owner,
            f"finite with every entry of magnitude at most (2**53 - 1) * {g!r} = {EXACT_INT_LIMIT * g:.6g} "
            f"(2**53 - 1 steps of the grid 2**{math.frexp(g)[1] - 1} that this 'sensitivity' gives, "
            f"beyond which the grid index is not an exact double)", shown)
    return k.astype(np.int64)


def _clipped_draws(draws) -> np.ndarray:
    """Integer draws clipped to ``[-2**60, 2**60]`` as int64 (draws of a huge scale come as Python ints)."""
    draws = np.asarray(draws)
    if draws.dtype == object:
        flat = [max(-(2**60), min(2**60, int(v))) for v in draws.ravel()]
        return np.array(flat, dtype=np.int64).reshape(draws.shape)
    return np.clip(draws.astype(np.int64), -(2**60), 2**60)


def release(value: np.ndarray, noise: GridNoise, rng, owner: str, name: str = "value") -> np.ndarray:
    """``g * clamp(round(value / g) + Z)`` with ``Z`` i.i.d. from ``noise``'s integer law.

    The clamp to ``[-M, M]``, ``M = min(2**53 - 1, floor(max double / g))``,
    acts on the noisy integer (post-processing) and makes the product with
    ``g`` exact.
    """
    value = np.asarray(value, dtype=np.float64)
    g = noise.step
    k = _index(value, g, owner, name)
    sampler = discrete_laplace if noise.law == "laplace" else discrete_gaussian
    # |k| < 2**53: clipping z to +-2**60 first leaves clamp(k + z) unchanged and avoids overflow
    z = _clipped_draws(sampler(noise.parameter, size=value.shape, rng=rng))
    m = min(EXACT_INT_LIMIT, math.floor(Fraction(sys.float_info.max) / Fraction(g)))
    y = np.clip(k + z, -m, m)
    return y.astype(np.float64) * g


def smooth_laplace_release(value: float, smooth_bound: float, a: float, step: float, rng, owner: str,
                           name: str = "value", size=None):
    """Smooth-sensitivity Laplace release on a data-independent grid (Theorem 4 of the theory page).

    Returns ``(g * clamp(round(value / g) + Z), g * t)`` with ``g = step`` (a
    public power of two), ``Z`` discrete Laplace of scale ``t``, the smallest
    48-bit dyadic rational ``>= (smooth_bound / g + 1) / a``. If
    ``smooth_bound`` is a ``beta'``-smooth upper bound of the local
    sensitivity of ``value`` with ``beta' + 2**-46 <= beta``, then ``t`` is
    ``beta``-smooth and ``a * t`` bounds the change of the grid index between
    neighbours (``docs/theory/secure_noise.rst``, Theorem 4). With ``size``
    (an int) the first element is an array of ``size`` independent releases.
    """
    g = float(step)
    k = int(_index(np.asarray(value, dtype=np.float64), g, owner, name))
    t = up_dyadic((Fraction(smooth_bound) / Fraction(g) + 1) / Fraction(a))
    m = min(EXACT_INT_LIMIT, math.floor(Fraction(sys.float_info.max) / Fraction(g)))
    scale = math.nextafter(float(t) * g, math.inf)
    if size is None:
        z = int(discrete_laplace(t, rng=rng))
        return float(max(-m, min(m, k + z))) * g, scale
    z = _clipped_draws(discrete_laplace(t, size=size, rng=rng))
    return np.clip(k + z, -m, m).astype(np.float64) * g, scale
