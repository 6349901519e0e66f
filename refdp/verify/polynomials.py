"""Exact rational functions of one variable and the sign of a polynomial.

The algebraic verdicts of :mod:`refdp.verify.algebraic` reduce a privacy
claim to sign conditions on polynomials with rational coefficients in
``t = e^{epsilon/m}``. This module supplies the three steps, each from a
well-kept library:

* :class:`RationalFunctions` turns what a law returns (sympy expressions in
  the symbol ``t``, integers, ``Fraction``, floats) into reduced elements of
  the field ``QQ(t)`` (``sympy.polys.fields``), rejecting anything that is not
  a rational function of ``t`` with rational coefficients;
* :class:`PointSign` decides the sign of a polynomial at the transcendental
  point ``t0 = exp(r)``, ``r`` a nonzero rational, by evaluating it in
  interval arithmetic (a private ``mpmath.ctx_iv.MPIntervalContext``) at
  increasing precision until the enclosure excludes 0;
* :func:`negative_segments` finds where a polynomial is negative on
  ``t > 1`` by real-root isolation over the rationals (``sympy.Poly``:
  Taylor shift, ``terms_gcd``, ``intervals`` with multiplicities).

Why these decisions are exact is proved in docs/theory/algebraic_verdicts.rst.
sympy is an optional dependency (the ``exact`` extra); it is imported only when
one of these functions is called.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath.ctx_iv import MPIntervalContext

from ..utils.validation import Described, parameter_error

__all__ = [
    "require_sympy",
    "RationalFunctions",
    "PointSign",
    "Root",
    "negative_segments",
    "roots_above_one",
    "leading_sign",
    "log_enclosure",
]

INSTALL_HINT = "pip install 'refdp[exact]'"


def require_sympy(owner: str):
    """Import sympy, or raise ImportError naming the ``exact`` extra."""
    try:
        import sympy
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{owner} needs sympy for exact polynomial arithmetic; install the "
                          f"'exact' extra: {INSTALL_HINT}") from None
    return sympy


def _fraction(c) -> Fraction:
    """A coefficient of ``QQ`` (gmpy2 ``mpq`` or sympy's ``PythonMPQ``) as a Fraction."""
    return Fraction(int(c.numerator), int(c.denominator))


class RationalFunctions:
    """The field ``QQ(t)`` of rational functions with rational coefficients.

    Parameters
    ----------
    name : str, default "t"
        Name of the variable.
    owner : str
        Public function named in error messages.

    Attributes
    ----------
    symbol : sympy.Symbol
        The variable handed to a law.
    field : sympy.polys.fields.FracField
    one, zero : FracElement
    """

    def __init__(self, name: str = "t", owner: str = "RationalFunctions"):
        sympy = require_sympy(owner)
        self._sympy = sympy
        self.owner = owner
        self.symbol = sympy.Symbol(name, positive=True)
        self.field = sympy.polys.fields.FracField((self.symbol,), sympy.QQ, sympy.polys.orderings.lex)
        self.ring = self.field.ring
        self.gen = self.field.gens[0]
        self.one, self.zero = self.field.one, self.field.zero

    def convert(self, value, name: str, where: str):
        """``value`` as an element of ``QQ(t)``, or the standard ValueError.

        Integers and ``Fraction`` are exact; a float (Python or sympy) is the
        exact binary number it holds where it appears in ``value`` (sympy
        rounds when it combines floats, so laws are best written with
        integers and ``Fraction``). Anything else must be a sympy expression
        in :attr:`symbol` only that is a rational function with rational
        coefficients: ``pi``, ``sqrt(2)``, ``t**(1/2)``, ``exp(t)`` are
        rejected.
        """
        sp = self._sympy
        expected = (f"a rational function of {self.symbol} with rational coefficients "
                    f"(integers, Fractions, floats, sympy Rationals){where}")
        if isinstance(value, bool):
            raise parameter_error(name, self.owner, expected, value)
        if isinstance(value, numbers.Rational):
            return self.field(sp.Rational(int(value.numerator), int(value.denominator)))
        if isinstance(value, float):
            if not math.isfinite(value):
                raise parameter_error(name, self.owner, expected, value)
            f = Fraction(value)
            return self.field(sp.Rational(f.numerator, f.denominator))
        if getattr(value, "field", None) is self.field:
            return value
        try:
            expr = sp.sympify(value, strict=True)
        except (sp.SympifyError, TypeError, ValueError):
            raise parameter_error(name, self.owner, expected, value) from None
        if not isinstance(expr, sp.Basic):
            raise parameter_error(name, self.owner, expected, value)
        floats = expr.atoms(sp.Float)
        if floats:
            if not all(f.is_finite for f in floats):
                raise parameter_error(name, self.owner, expected, value)
            expr = expr.xreplace({f: sp.Rational(f) for f in floats})
        if expr.free_symbols - {self.symbol}:
            raise parameter_error(name, self.owner, expected,
                                  Described(f"{value!r}, which involves "
                                            f"{sorted(map(str, expr.free_symbols - {self.symbol}))}"))
        try:
            return self.field.from_expr(expr)
        except (ValueError, TypeError, ZeroDivisionError, sp.polys.polyerrors.PolynomialError,
                sp.polys.polyerrors.CoercionFailed):
            raise parameter_error(name, self.owner, expected, value) from None

    def power(self, k: int):
        """``t ** k`` (``k`` may be negative)."""
        return self.gen ** k

    def poly(self, p):
        """A ring element (polynomial) as a ``sympy.Poly`` over ``QQ``."""
        return self._sympy.Poly.from_dict(dict(p), self.symbol, domain=self._sympy.QQ)

    def key(self, p) -> tuple:
        """A hashable key of a polynomial (its sorted exponent/coefficient pairs)."""
        return tuple(sorted((m[0], _fraction(c)) for m, c in p.items()))

    def as_expr(self, f):
        return f.as_expr()


def _denominator_lcm(p) -> int:
    lcm = 1
    for c in p.values():
        d = int(c.denominator)
        lcm = lcm * d // math.gcd(lcm, d)
    return lcm


def _integer_coefficients(p) -> list:
    """``[(exponent, integer coefficient)]`` of ``L * p``, ``L > 0`` the lcm of the denominators, highest first."""
    lcm = _denominator_lcm(p)
    return sorted(((m[0], int(_fraction(c) * lcm)) for m, c in p.items()), reverse=True)


class PointSign:
    """Signs at ``t0 = exp(r)`` and ``w = exp(r')``, ``r, r'`` positive rationals, in a private interval context.

    The quantities decided are ``w h1(t0) - h2(t0)`` for polynomials ``h1``,
    ``h2`` with rational coefficients (``h1 = 0`` gives the sign of ``-h2``).
    With ``s`` the largest rational such that ``r = A s`` and ``r' = B s`` for
    integers ``A``, ``B``, this is ``E(u) = u^B h1(u^A) - h2(u^A)`` at ``u =
    e^s``, a polynomial in ``u`` with rational coefficients. If ``E`` is not
    identically zero it does not vanish at ``u`` (``u`` is transcendental:
    Lindemann-Weierstrass; docs/theory/algebraic_verdicts.rst, Lemma 1), so
    interval evaluation at increasing precision yields an enclosure that
    excludes 0 after finitely many refinements; whether ``E`` is identically
    zero is read off its exponents exactly. The interval context is an
    ``mpmath.ctx_iv.MPIntervalContext`` owned by this object: mpmath's global
    contexts (``mpmath.mp``, ``mpmath.iv``) are neither read nor changed.

    Parameters
    ----------
    r : Fraction
        ``t0 = exp(r)`` (the variable of the law).
    r_bound : Fraction
        ``w = exp(r_bound)`` (the factor ``e^epsilon`` of the claim).
    max_dps : int
        Largest precision tried, in decimal digits.
    start_bits : int, default 96
    """

    def __init__(self, r: Fraction, r_bound: Fraction, max_dps: int, start_bits: int = 96):
        self.r, self.r_bound = Fraction(r), Fraction(r_bound)
        s = Fraction(math.gcd(self.r.numerator * self.r_bound.denominator,
                              self.r_bound.numerator * self.r.denominator),
                     self.r.denominator * self.r_bound.denominator)
        self.a, self.b = int(self.r / s), int(self.r_bound / s)
        self.max_bits = int(max_dps * 3.3219280948873626) + 8
        self.start_bits = min(start_bits, self.max_bits)
        self._ctx: dict[int, tuple] = {}
        self.bits_used = self.start_bits

    def context(self, bits: int):
        """``(ctx, enclosure of t0, enclosure of w)`` at ``bits`` bits of precision."""
        if bits not in self._ctx:
            ctx = MPIntervalContext()
            ctx.prec = bits
            t0 = ctx.exp(ctx.mpf(self.r.numerator) / ctx.mpf(self.r.denominator))
            w = ctx.exp(ctx.mpf(self.r_bound.numerator) / ctx.mpf(self.r_bound.denominator))
            self._ctx[bits] = (ctx, t0, w)
        return self._ctx[bits]

    def enclose(self, p, bits: int):
        """Interval enclosure of the polynomial ``p`` (a ring element) at ``t0``, by Horner's rule."""
        ctx, t0, _ = self.context(bits)
        coeffs = _integer_coefficients(p)
        if not coeffs:
            return ctx.mpf(0)
        lcm = _denominator_lcm(p)
        acc = ctx.mpf(0)
        prev = coeffs[0][0]
        for k, c in coeffs:
            if prev - k:
                acc = acc * t0 ** (prev - k)
            acc = acc + ctx.mpf(c)
            prev = k
        if prev:
            acc = acc * t0 ** prev
        return acc / ctx.mpf(lcm)

    def _identically_zero(self, h1, h2) -> bool:
        mapped1 = {self.b + self.a * k[0]: c for k, c in h1.items()} if h1 else {}
        mapped2 = {self.a * k[0]: c for k, c in h2.items()} if h2 else {}
        return mapped1 == mapped2

    def sign(self, h2, h1=None):
        """Sign of ``w h1(t0) - h2(t0)`` (``h1`` omitted: of ``h2(t0)``).

        Returns ``+1``, ``-1``, ``0`` (identically zero as a polynomial in
        ``u``: an exact equality) or ``None`` when ``max_dps`` digits did not
        separate the enclosure from 0.
        """
        negate = h1 is None
        if negate:
            h1, h2 = None, -h2
        if self._identically_zero(h1, h2):
            return 0
        bits = self.start_bits
        while True:
            ctx, _, w = self.context(bits)
            e = -self.enclose(h2, bits) if h1 is None else w * self.enclose(h1, bits) - self.enclose(h2, bits)
            lo, hi = e._mpi_
            got = 1 if mpmath.libmp.mpf_sign(lo) > 0 else -1 if mpmath.libmp.mpf_sign(hi) < 0 else None
            if got is not None or bits >= self.max_bits:
                self.bits_used = max(self.bits_used, bits)
                return got
            bits = min(2 * bits, self.max_bits)

    def value(self, f, bits: int | None = None):
        """Interval enclosure of a rational function ``f`` at ``t0`` (``None``: the start precision)."""
        b = self.start_bits if bits is None else bits
        return self.enclose(f.numer, b) / self.enclose(f.denom, b)

    def bound(self):
        """Enclosure of ``w`` at the start precision."""
        return self.context(self.start_bits)[2]


def log_enclosure(lo: Fraction, hi: Fraction, factor: int, bits: int = 96):
    """Enclosure ``(mpf, mpf)`` of ``factor * ln x`` for ``x`` in ``[lo, hi]`` (``lo > 0``), private context."""
    ctx = MPIntervalContext()
    ctx.prec = bits
    a = ctx.log(ctx.mpf(lo.numerator) / ctx.mpf(lo.denominator)) * factor
    b = ctx.log(ctx.mpf(hi.numerator) / ctx.mpf(hi.denominator)) * factor
    return mpmath.mp.make_mpf(a._mpi_[0]), mpmath.mp.make_mpf(b._mpi_[1])


@dataclass(frozen=True)
class Root:
    """A real root ``t* > 1`` of a polynomial, isolated in ``[low, high]`` (rationals).

    ``low == high`` when the root is rational (then it is exact). ``epsilon``
    is a certified enclosure of ``m ln t*`` (the privacy parameter at which
    the sign changes), as a pair of ``mpmath.mpf``.
    """

    low: Fraction
    high: Fraction
    m: int

    @property
    def exact(self) -> bool:
        return self.low == self.high

    @property
    def epsilon(self) -> tuple:
        return log_enclosure(self.low, self.high, self.m)

    def describe(self) -> str:
        lo, hi = self.epsilon
        if self.exact:
            return f"{self.m}*ln({self.low}) = {mpmath.nstr(lo, 15)}"
        return f"[{mpmath.nstr(lo, 15)}, {mpmath.nstr(hi, 15)}]"


def negative_segments(functions: RationalFunctions, p, m: int, eps=Fraction(1, 10 ** 15)):
    """Maximal open intervals of ``t > 1`` on which the polynomial ``p`` is negative.

    Exact: ``p(1 + u)`` is formed by a Taylor shift, the factor ``u**k`` of
    its roots at ``t = 1`` removed, and its positive real roots isolated over
    the rationals with their multiplicities (``sympy.Poly.intervals``, which
    works on the square-free decomposition). The sign just right of ``t = 1``
    is the sign of the lowest nonzero coefficient of ``p(1 + u)``; it flips
    exactly at the roots of odd multiplicity.

    Parameters
    ----------
    functions : RationalFunctions
    p : PolyElement
        A polynomial of ``functions.ring``.
    m : int
        ``t = e^{epsilon/m}``; carried into the roots to express them in epsilon.
    eps : Fraction
        Width to which irrational roots are refined (for the report only: the
        segments are exact whatever their width).

    Returns
    -------
    list of (Root or None, Root or None)
        ``(a, b)``: ``p < 0`` for ``t`` strictly between the roots ``a`` and
        ``b``; ``a = None`` means from ``t = 1`` (epsilon -> 0), ``b = None``
        means to infinity. Empty when ``p >= 0`` on ``t > 1`` (in particular
        when ``p`` is identically zero).
    """
    if not p:
        return []
    sp = functions._sympy
    poly = functions.poly(p)
    shifted = poly.shift(1)                       # q(u) = p(1 + u)
    coeffs = shifted.all_coeffs()[::-1]           # lowest degree first
    if all(c >= 0 for c in coeffs):               # no sign change: p > 0 on t > 1 (Descartes)
        return []
    low = next(c for c in coeffs if c != 0)
    sign = 1 if low > 0 else -1
    (k,), core = shifted.terms_gcd()
    core = sp.Poly(core, functions.symbol, domain=sp.QQ)
    roots = []
    if core.degree() > 0:
        for (a, b), mult in sorted(core.intervals(inf=0, eps=sp.Rational(eps.numerator, eps.denominator)),
                                   key=lambda r: r[0][0]):
            a, b = Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q))
            if a == b == 0:
                continue  # removed with u**k already; cannot happen, kept for safety
            roots.append((Root(1 + a, 1 + b, m), mult))
    segments = []
    start = None  # t = 1
    for root, mult in roots:
        if sign < 0:
            segments.append((start, root))
        if mult % 2:
            sign = -sign
        start = root
    if sign < 0:
        segments.append((start, None))
    return segments


def roots_above_one(functions: RationalFunctions, p) -> int:
    """Number of distinct real roots ``t > 1`` of the polynomial ``p`` (exact, ``sympy.Poly.count_roots``)."""
    if not p:
        raise ValueError("the zero polynomial has every number as a root")
    sp = functions._sympy
    shifted = functions.poly(p).shift(1)
    coeffs = [c for c in shifted.all_coeffs() if c != 0]
    if all(c > 0 for c in coeffs) or all(c < 0 for c in coeffs):
        return 0  # no sign change in p(1 + u): no positive root u (Descartes' rule of signs)
    (_, ), core = shifted.terms_gcd()
    core = sp.Poly(core, functions.symbol, domain=sp.QQ)
    if core.degree() <= 0:
        return 0
    return int(core.sqf_part().count_roots(inf=0))


def leading_sign(p) -> int:
    """Sign of the leading coefficient of a nonzero polynomial (its sign as ``t -> infinity``)."""
    return 1 if p.LC > 0 else -1
