"""Piecewise sums of exponential-polynomial terms, in interval arithmetic.

The laws of the classic audit benchmarks are built from Laplace and
exponential noise: their densities and distribution functions are, between
finitely many breakpoints, finite sums of terms ``c x^p e^(lambda x)``. Sums
and products of such functions stay in the class, and so do integrals over a
piece and antiderivatives (``integral x^p e^(lambda x) dx`` has a closed form),
so every probability of a report-noisy-max index or of a sparse-vector answer
pattern is a finite sum of closed forms.

:class:`PiecewiseExp` keeps the breakpoints and the exponents ``lambda`` as
exact :class:`fractions.Fraction` values -- so that terms with equal exponents
are merged exactly and a zero exponent is recognised exactly -- and the
coefficients ``c`` as intervals of an mpmath interval context owned by the
caller. Every number computed from it is an enclosure of the exact value.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb, factorial

__all__ = ["PiecewiseExp", "laplace_pdf", "laplace_cdf", "laplace_sf", "exponential_pdf",
           "exponential_cdf", "exponential_sf", "step_below", "step_above", "one"]


def _is_zero(c) -> bool:
    return c.a == 0 and c.b == 0


class PiecewiseExp:
    """A function that is ``sum c x^p e^(lambda x)`` on each piece between breakpoints.

    Parameters
    ----------
    ctx : mpmath interval context
        The context of the coefficients.
    breaks : sequence of Fraction
        Increasing breakpoints ``b_1 < ... < b_m``; the pieces are
        ``(-inf, b_1), (b_1, b_2), ..., (b_m, inf)``.
    pieces : list of dict
        ``m + 1`` dicts ``{(lambda, p): c}`` (``lambda`` a Fraction, ``p`` an
        int >= 0, ``c`` an interval).

    Notes
    -----
    Values at the breakpoints themselves are not represented: the functions
    are densities, distribution functions of continuous laws and indicators
    of half-lines, whose values on a null set change no probability.
    """

    __slots__ = ("ctx", "breaks", "pieces")

    def __init__(self, ctx, breaks, pieces):
        self.ctx = ctx
        self.breaks = tuple(Fraction(b) for b in breaks)
        self.pieces = [{k: c for k, c in p.items() if not _is_zero(c)} for p in pieces]
        if len(self.pieces) != len(self.breaks) + 1:
            raise ValueError("a piecewise function needs one piece more than it has breakpoints")

    # -------------------------------------------------------------- algebra --
    def _on(self, breaks):
        """The same function on the finer breakpoints ``breaks`` (a superset of ours)."""
        out, k = [], 0
        for i in range(len(breaks) + 1):
            # piece i of the fine grid lies in our piece k: the first whose right end is >= its right end
            right = breaks[i] if i < len(breaks) else None
            while k < len(self.breaks) and right is not None and self.breaks[k] < right:
                k += 1
            if right is None:
                k = len(self.breaks)
            out.append(self.pieces[k])
        return out

    def _aligned(self, other):
        breaks = tuple(sorted(set(self.breaks) | set(other.breaks)))
        return breaks, self._on(breaks), other._on(breaks)

    def __add__(self, other):
        breaks, a, b = self._aligned(other)
        pieces = []
        for pa, pb in zip(a, b):
            p = dict(pa)
            for k, c in pb.items():
                p[k] = p[k] + c if k in p else c
            pieces.append(p)
        return PiecewiseExp(self.ctx, breaks, pieces)

    def __neg__(self):
        return PiecewiseExp(self.ctx, self.breaks, [{k: -c for k, c in p.items()} for p in self.pieces])

    def __sub__(self, other):
        return self + (-other)

    def __mul__(self, other):
        if not isinstance(other, PiecewiseExp):
            c = self.ctx.convert(other)
            return PiecewiseExp(self.ctx, self.breaks, [{k: v * c for k, v in p.items()} for p in self.pieces])
        breaks, a, b = self._aligned(other)
        pieces = []
        for pa, pb in zip(a, b):
            p = {}
            for (la, qa), ca in pa.items():
                for (lb, qb), cb in pb.items():
                    k = (la + lb, qa + qb)
                    p[k] = p[k] + ca * cb if k in p else ca * cb
            pieces.append(p)
        return PiecewiseExp(self.ctx, breaks, pieces)

    __rmul__ = __mul__

    def is_zero(self) -> bool:
        """True when every piece is identically zero (exactly: no term is left)."""
        return all(not p for p in self.pieces)

    def shifted(self, a):
        """``x -> f(x - a)`` for a rational ``a``."""
        a = Fraction(a)
        ctx = self.ctx
        pieces = []
        for p in self.pieces:
            q = {}
            for (lam, k), c in p.items():
                scale = c * ctx.exp(_rat(ctx, -lam * a))
                for i in range(k + 1):   # (x - a)^k = sum_i C(k, i) x^i (-a)^(k - i)
                    coef = scale * comb(k, i) * _rat(ctx, (-a) ** (k - i))
                    key = (lam, i)
                    q[key] = q[key] + coef if key in q else coef
            pieces.append(q)
        return PiecewiseExp(ctx, [b + a for b in self.breaks], pieces)

    # ------------------------------------------------------------ calculus --
    def _bounds(self, i):
        lo = self.breaks[i - 1] if i > 0 else None
        hi = self.breaks[i] if i < len(self.breaks) else None
        return lo, hi

    def integral(self):
        """``integral f(x) dx`` over the real line, as an interval.

        Raises
        ------
        ValueError
            When a term does not vanish at an infinite end (the integral
            diverges or the cancellation cannot be certified).
        """
        total = self.ctx.mpf(0)
        for i, p in enumerate(self.pieces):
            lo, hi = self._bounds(i)
            for (lam, k), c in p.items():
                total += c * (_primitive_at(self.ctx, lam, k, hi, +1) - _primitive_at(self.ctx, lam, k, lo, -1))
        return total

    def antiderivative(self):
        """``x -> integral_{-inf}^x f(t) dt`` as a piecewise function of the same class."""
        ctx = self.ctx
        pieces, acc = [], ctx.mpf(0)
        for i, p in enumerate(self.pieces):
            lo, hi = self._bounds(i)
            q = {}
            for (lam, k), c in p.items():
                for key, coef in _primitive_terms(ctx, lam, k):
                    q[key] = q[key] + c * coef if key in q else c * coef
                acc_at_lo = _primitive_at(ctx, lam, k, lo, -1)
                # constant so that the piece starts at the accumulated value
                q[(Fraction(0), 0)] = q.get((Fraction(0), 0), ctx.mpf(0)) - c * acc_at_lo
            q[(Fraction(0), 0)] = q.get((Fraction(0), 0), ctx.mpf(0)) + acc
            pieces.append(q)
            for (lam, k), c in p.items():
                acc += c * (_primitive_at(ctx, lam, k, hi, +1) - _primitive_at(ctx, lam, k, lo, -1)) \
                    if hi is not None else 0
        return PiecewiseExp(ctx, self.breaks, pieces)


def _rat(ctx, q):
    q = Fraction(q)
    if q.denominator == 1:
        return ctx.mpf(q.numerator)
    return ctx.mpf(q.numerator) / q.denominator


def _primitive_terms(ctx, lam, k):
    """Terms of an antiderivative of ``x^k e^(lam x)`` as ``[((lam, i), coef)]``."""
    if lam == 0:
        return [((Fraction(0), k + 1), ctx.mpf(1) / (k + 1))]
    out = []
    inv = 1 / _rat(ctx, lam)
    for j in range(k + 1):  # e^(lam x) sum_j (-1)^j k!/(k-j)! x^(k-j) / lam^(j+1)
        coef = (-1) ** j * (factorial(k) // factorial(k - j)) * inv ** (j + 1)
        out.append(((lam, k - j), coef))
    return out


def _primitive_at(ctx, lam, k, x, end):
    """The antiderivative of ``x^k e^(lam x)`` at ``x`` (``None`` = the infinite end ``end``)."""
    if x is None:
        if (end < 0 and lam > 0) or (end > 0 and lam < 0):
            return ctx.mpf(0)
        raise ValueError(f"the term x^{k} e^({lam} x) does not vanish at {'+' if end > 0 else '-'}inf")
    xv = _rat(ctx, x)
    total = ctx.mpf(0)
    for (l2, i), coef in _primitive_terms(ctx, lam, k):
        total += coef * xv ** i * (ctx.exp(_rat(ctx, l2 * x)) if l2 != 0 else 1)
    return total


# ----------------------------------------------------------------- laws --

def one(ctx):
    """The constant function 1."""
    return PiecewiseExp(ctx, (), [{(Fraction(0), 0): ctx.mpf(1)}])


def _e(ctx, q):
    return ctx.exp(_rat(ctx, q))


def laplace_pdf(ctx, loc, scale):
    """Density of ``loc + Laplace(scale)``."""
    a, b = Fraction(loc), Fraction(scale)
    h = 1 / (2 * _rat(ctx, b))
    return PiecewiseExp(ctx, (a,), [{(1 / b, 0): h * _e(ctx, -a / b)}, {(-1 / b, 0): h * _e(ctx, a / b)}])


def laplace_cdf(ctx, loc, scale):
    """Distribution function ``P[loc + Laplace(scale) <= x]``."""
    a, b = Fraction(loc), Fraction(scale)
    half = ctx.mpf(1) / 2
    return PiecewiseExp(ctx, (a,), [{(1 / b, 0): half * _e(ctx, -a / b)},
                                    {(Fraction(0), 0): ctx.mpf(1), (-1 / b, 0): -half * _e(ctx, a / b)}])


def laplace_sf(ctx, loc, scale):
    """Survival function ``P[loc + Laplace(scale) > x]``."""
    a, b = Fraction(loc), Fraction(scale)
    half = ctx.mpf(1) / 2
    return PiecewiseExp(ctx, (a,), [{(Fraction(0), 0): ctx.mpf(1), (1 / b, 0): -half * _e(ctx, -a / b)},
                                    {(-1 / b, 0): half * _e(ctx, a / b)}])


def exponential_pdf(ctx, loc, scale):
    """Density of ``loc + Exponential(scale)`` (mean ``scale``)."""
    a, b = Fraction(loc), Fraction(scale)
    return PiecewiseExp(ctx, (a,), [{}, {(-1 / b, 0): _e(ctx, a / b) / _rat(ctx, b)}])


def exponential_cdf(ctx, loc, scale):
    """Distribution function of ``loc + Exponential(scale)``."""
    a, b = Fraction(loc), Fraction(scale)
    return PiecewiseExp(ctx, (a,), [{}, {(Fraction(0), 0): ctx.mpf(1), (-1 / b, 0): -_e(ctx, a / b)}])


def exponential_sf(ctx, loc, scale):
    """Survival function of ``loc + Exponential(scale)``."""
    a, b = Fraction(loc), Fraction(scale)
    return PiecewiseExp(ctx, (a,), [{(Fraction(0), 0): ctx.mpf(1)}, {(-1 / b, 0): _e(ctx, a / b)}])


def step_below(ctx, a):
    """The indicator of ``x < a``."""
    return PiecewiseExp(ctx, (Fraction(a),), [{(Fraction(0), 0): ctx.mpf(1)}, {}])


def step_above(ctx, a):
    """The indicator of ``x > a``."""
    return PiecewiseExp(ctx, (Fraction(a),), [{}, {(Fraction(0), 0): ctx.mpf(1)}])
