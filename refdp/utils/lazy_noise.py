"""Exact continuous random variables whose binary digits are drawn only when needed.

A value ``X`` here is an exact draw from a continuous law (exponential,
normal, the spherical Laplace law of objective perturbation) that is never
rounded: it is known, at any time, as an interval with rational end points
that contains it, and :meth:`refine` draws more of its digits to shrink the
interval. The digits are drawn from the bit generator's 64-bit words with
integer arithmetic only (the compiled samplers and their twins, reached
through :mod:`refdp.core`), so no floating-point operation touches a
probability.

A consumer that needs a function ``h(X)`` whose value is constant on small
cells (for example the grid cell of a minimiser) refines ``X`` until the
interval fixes ``h``. The returned value is then exactly ``h`` of a draw from
the continuous law: this is how :func:`refdp.erm.objective_perturbation`
releases a float-safe minimiser (``docs/theory/secure_noise.rst``,
Theorem 7).

Laws used:

* **Uniform** on ``[0, 1)``: fair bits, the ``u-rand`` of [Kar16]_.
* **Exponential** of rate 1: ``K + F`` with ``K`` geometric,
  ``P[K = k] = (1 - e^{-1}) e^{-k}``, and ``F`` of density proportional to
  ``e^{-f}`` on ``[0, 1)``, independent of ``K``. The first ``L`` binary
  digits of ``F``, read as an integer ``j < 2^L``, have probability
  proportional to ``exp(-j 2^-L)``: a geometric of ratio ``exp(-2^-L)``
  reduced modulo ``2^L``; given them, ``F`` has density proportional to
  ``e^{-f}`` on their cell, so further digits are drawn the same way
  (:meth:`LazyExponential.refine`).
* **Normal** ``N(0, 1)``: Karney's algorithm N ([Kar16]_), which returns
  ``s (k + x)`` with ``x`` a u-rand whose remaining digits are uniform.
* **Spherical Laplace** (density proportional to ``exp(-beta ||b||)`` on
  ``R^d``): ``b = (R / beta) G / ||G||`` with ``R`` the sum of ``d``
  exponentials (a Gamma(``d``) radius) and ``G`` a standard normal vector.

References
----------
.. [Kar16] C. F. F. Karney, "Sampling exactly from the normal distribution",
   ACM Transactions on Mathematical Software 42(1), 2016, Algorithms N and B.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .. import core

__all__ = ["BitSource", "LazyUniform", "LazyExponential", "LazyNormal", "lazy_normal",
           "LazySphericalLaplace", "LazyGaussianVector"]


class BitSource:
    """Fair bits and exact integer draws from one bit generator, in a fixed order."""

    def __init__(self, bit_generator):
        self.bit_generator = bit_generator
        self.words = core.word_source(bit_generator)
        self._buffer = 0
        self._left = 0

    def bit(self) -> int:
        if self._left == 0:
            self._buffer = self.words()
            self._left = 64
        self._left -= 1
        return (self._buffer >> self._left) & 1

    def bits(self, k: int) -> int:
        """The next ``k`` bits as an integer, first bit highest (the bits of ``k`` calls of :meth:`bit`)."""
        out = 0
        while k > 0:
            if self._left == 0:
                self._buffer = self.words()
                self._left = 64
            take = k if k < self._left else self._left
            self._left -= take
            out = (out << take) | ((self._buffer >> self._left) & ((1 << take) - 1))
            k -= take
        return out

    def below(self, n: int) -> int:
        return core.uniform_below_draw(self.bit_generator, n)

    def bernoulli_exp(self, num: int, den: int) -> int:
        """Bernoulli(exp(-num / den)) exactly (the compiled sampler when both fit in 64 bits)."""
        return core.bernoulli_exp_draw(self.bit_generator, num, den)

    def geometric_exp(self, num: int, den: int) -> int:
        """``Y >= 0`` with ``P[Y = y]`` proportional to ``exp(-y num / den)``, exactly."""
        return core.geometric_exp_draw(self.bit_generator, num, den)


class LazyUniform:
    """A uniform draw on ``[0, 1)`` known by its first ``length`` binary digits ``m``."""

    __slots__ = ("src", "m", "length")

    def __init__(self, src: BitSource, m: int = 0, length: int = 0):
        self.src = src
        self.m = m
        self.length = length

    def refine(self, k: int = 1) -> None:
        self.m = (self.m << k) | self.src.bits(k)
        self.length += k

    def digit(self, i: int) -> int:
        """The ``i``-th digit after the point (0-based), drawn if not yet known."""
        if i >= self.length:
            self.refine(i + 1 - self.length)
        return (self.m >> (self.length - 1 - i)) & 1

    def less_than(self, other: "LazyUniform") -> bool:
        """Whether this draw is below ``other`` (equality has probability 0)."""
        i = 0
        while True:
            a, b = self.digit(i), other.digit(i)
            if a != b:
                return a < b
            i += 1

    def bounds(self) -> tuple[Fraction, Fraction]:
        scale = 1 << self.length
        return Fraction(self.m, scale), Fraction(self.m + 1, scale)


class LazyExponential:
    """An exponential draw of rate 1: ``K + F`` (module docstring)."""

    __slots__ = ("src", "k", "m", "length")

    def __init__(self, src: BitSource, k: int | None = None):
        self.src = src
        self.k = src.geometric_exp(1, 1) if k is None else k     # k: drawn by the caller, the same way
        self.m = 0
        self.length = 0

    def refine(self, k: int = 1) -> None:
        """Draw ``k`` more digits of ``F`` at once.

        Given the digits so far, ``F`` has density proportional to
        ``e^{-f}`` on the current cell of width ``2^-length``; the next ``k``
        digits ``j`` then have probability proportional to
        ``exp(-j 2^-(length + k))``, ``0 <= j < 2^k``: a geometric of ratio
        ``exp(-2^-(length + k))`` reduced modulo ``2^k`` (memorylessness).
        """
        j = self.src.geometric_exp(1, 1 << (self.length + k)) & ((1 << k) - 1)
        self.m = (self.m << k) | j
        self.length += k

    def bounds(self) -> tuple[Fraction, Fraction]:
        scale = 1 << self.length
        return Fraction(self.k * scale + self.m, scale), Fraction(self.k * scale + self.m + 1, scale)


def _karney_b(src: BitSource, k: int, x: LazyUniform) -> bool:
    """Bernoulli(exp(-x (2k + x) / (2k + 2))) by Karney's Algorithm B."""
    y = x
    n = 0
    m = 2 * k + 2
    while True:
        z = LazyUniform(src)
        if not z.less_than(y):
            break
        # accept with probability (2k + x) / (2k + 2): (2k + 2) r = i + r'
        i = src.below(m)
        if i > 2 * k:
            break
        if i == 2 * k:
            r = LazyUniform(src)
            if not r.less_than(x):
                break
        y = z
        n += 1
    return n % 2 == 0


class LazyNormal:
    """A standard normal draw ``sign * (k + x)``, ``x`` a :class:`LazyUniform`."""

    __slots__ = ("negative", "k", "x")

    def __init__(self, negative: bool, k: int, x: LazyUniform):
        self.negative, self.k, self.x = negative, k, x

    def refine(self, k: int = 1) -> None:
        self.x.refine(k)

    def bounds(self) -> tuple[Fraction, Fraction]:
        lo, hi = self.x.bounds()
        lo, hi = self.k + lo, self.k + hi
        return (-hi, -lo) if self.negative else (lo, hi)


def lazy_normal(src: BitSource) -> LazyNormal:
    """Karney's Algorithm N: an exact standard normal draw."""
    while True:
        k = src.geometric_exp(1, 2)                        # P[k] = (1 - e^{-1/2}) e^{-k/2}
        if not src.bernoulli_exp(k * (k - 1), 2):          # accept with exp(-k (k - 1) / 2)
            continue
        x = LazyUniform(src)
        if all(_karney_b(src, k, x) for _ in range(k + 1)):
            return LazyNormal(bool(src.bit()), k, x)


def lazy_normals(src: BitSource, count: int) -> list[LazyNormal]:
    """``count`` draws of :func:`lazy_normal`, in order (the compiled draws where they apply: the same draws)."""
    found = core.lazy_normal_draws(src.bit_generator, count, src._buffer, src._left)
    if found is None:
        return [lazy_normal(src) for _ in range(count)]
    src._buffer, src._left, draws = found
    return [LazyNormal(neg, k, LazyUniform(src, m, length)) for neg, k, m, length in draws]


def _exponentials(src: BitSource, count: int) -> list[LazyExponential]:
    """``count`` :class:`LazyExponential` draws, in order (their integer parts drawn in one call)."""
    return [LazyExponential(src, k) for k in core.geometric_exp_draws(src.bit_generator, 1, 1, count)]


def _isqrt_bounds(q: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= sqrt(q) <= hi`` with ``hi - lo <= 2^-bits``, for ``q >= 0``."""
    scale = 1 << bits
    # sqrt(q) = sqrt(q scale^2) / scale; floor of the square root of a rational
    num = q.numerator * scale * scale
    r = math.isqrt(num // q.denominator)
    return Fraction(r, scale), Fraction(r + 1, scale)


def _mul(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    products = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(products), max(products)


class LazyGaussianVector:
    """``sigma`` times ``d`` independent exact standard normal draws (``sigma`` an exact rational)."""

    def __init__(self, src: BitSource, dim: int, sigma: Fraction):
        self.sigma = Fraction(sigma)
        self.normals = lazy_normals(src, dim)

    def refine(self, k: int = 1) -> None:
        for z in self.normals:
            z.refine(k)

    def bounds(self) -> list[tuple[Fraction, Fraction]]:
        return _fractions(self.integer_bounds())

    def integer_bounds(self) -> list[tuple[int, int, int, int]]:
        """The boxes of :meth:`bounds` as ``(lo_num, lo_den, hi_num, hi_den)``, unreduced, denominators > 0."""
        num, den = self.sigma.numerator, self.sigma.denominator
        boxes, scale = _normal_boxes(self.normals)
        den *= scale
        return [(num * a, den, num * b, den) for a, b in boxes]


class LazySphericalLaplace:
    """A draw with density proportional to ``exp(-beta ||b||)`` on ``R^d`` (``beta`` an exact rational).

    ``b = (R / beta) G / ||G||``: ``R`` a sum of ``d`` rate-1 exponentials
    (the radius of this law has the Gamma(``d``, ``beta``) density
    proportional to ``r^{d-1} e^{-beta r}``), ``G`` a standard normal vector
    (its direction is uniform on the sphere), independent.
    """

    def __init__(self, src: BitSource, dim: int, beta: Fraction):
        self.dim = dim
        self.beta = Fraction(beta)
        self.radii = _exponentials(src, dim)
        if dim == 1:
            self.sign = bool(src.bit())
            self.normals = []
        else:
            self.normals = lazy_normals(src, dim)
        self._root_bits = 8

    def refine(self, k: int = 1) -> None:
        length = self.radii[0].length
        den = 1 << (length + k)
        if all(e.length == length for e in self.radii):
            # the radii's next digits in one call: the draws of e.refine(k) for each e, in order
            mask = (1 << k) - 1
            for e, j in zip(self.radii, core.geometric_exp_draws(self.radii[0].src.bit_generator, 1, den,
                                                                  len(self.radii))):
                e.m = (e.m << k) | (j & mask)
                e.length += k
        else:
            for e in self.radii:
                e.refine(k)
        for z in self.normals:
            z.refine(k)
        self._root_bits += k

    def bounds(self) -> list[tuple[Fraction, Fraction]]:
        """Rational boxes of the coordinates of ``b``: :meth:`integer_bounds` as Fractions."""
        return _fractions(self.integer_bounds())

    def integer_bounds(self) -> list[tuple[int, int, int, int]]:
        """Rational boxes of the coordinates of ``b`` as ``(lo_num, lo_den, hi_num, hi_den)`` (integer arithmetic on common dyadic denominators).

        The fractions are not reduced (denominators are positive); the cell
        search works on these integers directly, :meth:`bounds` reduces them.

        The radius ``R`` lies in ``[S, S + U] / 2^L`` (the exponentials'
        cells on the finest denominator), the normals in ``[a_j, b_j] / 2^M``;
        ``||G||`` is bounded by integer square roots at ``_root_bits`` digits
        (``r_lo <= 2^bits ||G|| <= r_hi + 1``). Each coordinate's box is the
        product of the interval ``G_j / ||G||``, clamped to ``[-1, 1]``, with
        ``[R_lo, R_hi] / beta``: the same rationals as the interval products
        of the definition, formed with one reduction each.
        """
        length = max(e.length for e in self.radii)
        s = u = 0
        for e in self.radii:
            shift = length - e.length
            s += ((e.k << e.length) + e.m) << shift
            u += 1 << shift
        # R / beta in [r_lo, r_hi] / r_den
        bn, bd = self.beta.numerator, self.beta.denominator
        r_lo, r_hi, r_den = s * bd, (s + u) * bd, bn << length
        if self.dim == 1:
            return [(-r_hi, r_den, -r_lo, r_den)] if self.sign else [(r_lo, r_den, r_hi, r_den)]
        boxes, scale = _normal_boxes(self.normals)
        sq_lo = sq_hi = 0
        for a, b in boxes:
            aa, bb = a * a, b * b
            if not a <= 0 <= b:
                sq_lo += aa if aa < bb else bb
            sq_hi += aa if aa > bb else bb
        bits, two_m = self._root_bits, 2 * (scale.bit_length() - 1)
        root_lo = math.isqrt((sq_lo << (2 * bits)) >> two_m)
        root_hi = math.isqrt((sq_hi << (2 * bits)) >> two_m) + 1
        if root_lo <= 0:
            return [(-r_hi, r_den, r_hi, r_den) for _ in boxes]      # direction unknown: |b_j| <= R / beta
        # G_j / ||G|| in [a / (scale root), b / (scale root)] * 2^bits; 1 / ||G|| in [2^bits / root_hi, 2^bits / root_lo]
        one = 1 << bits
        out = []
        for a, b in boxes:
            # lower end: a / ||G|| is smallest with the largest 1 / ||G|| when a < 0
            tn, td = a * one, scale * (root_lo if a < 0 else root_hi)
            if tn < -td:
                tn, td = -1, 1
            vn, vd = b * one, scale * (root_lo if b >= 0 else root_hi)
            if vn > vd:
                vn, vd = 1, 1
            out.append((tn * (r_lo if tn >= 0 else r_hi), td * r_den, vn * (r_hi if vn >= 0 else r_lo), vd * r_den))
        return out


def _fractions(boxes) -> list[tuple[Fraction, Fraction]]:
    return [(Fraction(a, b), Fraction(c, d)) for a, b, c, d in boxes]


def _normal_boxes(normals) -> tuple[list[tuple[int, int]], int]:
    """Integer end points ``(a_j, b_j)`` with ``a_j / scale <= Z_j <= b_j / scale``, on one dyadic ``scale``."""
    length = max(z.x.length for z in normals)
    scale = 1 << length
    out = []
    for z in normals:
        x = z.x
        shift = length - x.length
        lo = ((z.k << x.length) + x.m) << shift
        hi = lo + (1 << shift)
        out.append((-hi, -lo) if z.negative else (lo, hi))
    return out, scale
