"""Certified supremum of the log-ratio of two piecewise exponential densities.

For a mechanism with a continuous output the exact epsilon on a pair is the
(essential) supremum of ``ln p(v) / p'(v)`` over outputs ``v``.
:func:`sup_log_ratio` encloses it for two :class:`~.piecewise.PiecewiseExp`
densities by branch and bound:

* on a finite piece ``[l, u]`` the log-ratio is bounded on sub-intervals by
  its centred form ``f(m) + f'(X) (X - m)`` (interval arithmetic, so the
  bound is rigorous and tightens quadratically near a maximum), and bounded
  from below by its value at the midpoints;
* on an infinite piece every term is ``c e^(lambda x)`` with rational
  ``lambda``; with ``t = e^(+-kappa x)`` (``kappa`` the greatest common
  divisor of the exponent differences) both densities become polynomials in
  ``t`` on the compact interval ``[0, t_0]``, the end ``t = 0`` being the limit
  at infinity, where the ratio of the leading coefficients is the limit of
  the ratio (or the ratio tends to infinity when the degrees differ).

The enclosure ``[lower, upper]`` is returned with the output attaining the
lower end. When the two densities have different supports (one is zero on a
piece where the other is not) the supremum is infinite.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction

from mpmath import libmp

from ...utils.precision import raw_to_fraction
from .piecewise import PiecewiseExp, _rat

__all__ = ["SupEnclosure", "sup_log_ratio"]


@dataclass
class SupEnclosure:
    """Enclosure ``[lower, upper]`` of a supremum, with a witness of the lower end.

    ``witness`` is an output value (a Fraction), ``"-inf"``/``"+inf"`` for a
    limit at infinity, or a description; ``infinite`` is True when the
    supremum is certified to be infinite.
    """

    lower: object
    upper: object
    witness: object
    infinite: bool = False


def _end(x, upper: bool):
    """The lower (or upper) end of an interval as an exact Fraction (infinite ends as floats)."""
    raw = x._mpi_[1 if upper else 0]
    if raw in (libmp.finf, libmp.fninf):
        return math.inf if raw == libmp.finf else -math.inf
    if raw == libmp.fnan:
        return math.inf if upper else -math.inf
    return raw_to_fraction(raw)


class _Piece:
    """Two term lists in one variable ``y`` on ``[y0, y1]``; ``value = sum c y^p e^(r y)``."""

    def __init__(self, ctx, num, den, y0, y1, kind, shift_num=0, shift_den=0, y_max_point=None):
        self.ctx, self.num, self.den = ctx, num, den
        self.y0, self.y1, self.kind = y0, y1, kind
        # t-pieces: ratio = t^(shift_num - shift_den) * num(t) / den(t)
        self.power = shift_num - shift_den
        self.y_max_point = y_max_point if y_max_point is not None else y1

    def _eval(self, terms, y, deriv=False):
        ctx = self.ctx
        val = ctx.mpf(0)
        der = ctx.mpf(0)
        for r, p, c in terms:
            e = ctx.exp(_rat(ctx, r) * y) if r != 0 else ctx.mpf(1)
            yp = y ** p if p else ctx.mpf(1)
            val += c * yp * e
            if deriv:
                dp = p * y ** (p - 1) if p else ctx.mpf(0)
                der += c * (dp + _rat(ctx, r) * yp) * e
        return val, der

    def log_ratio(self, y, deriv=False):
        n, dn = self._eval(self.num, y, deriv)
        d, dd = self._eval(self.den, y, deriv)
        if not (n.a > 0 and d.a > 0):
            return None, None
        f = self.ctx.ln(n) - self.ctx.ln(d)
        df = None
        if deriv:
            df = dn / n - dd / d
        if self.power:
            if y.a <= 0:
                if self.power > 0:
                    if not y.b > 0:
                        return None, None
                    up = f + self.power * self.ctx.ln(self.ctx.mpf(y.b))
                    return self.ctx.mpf([-math.inf, up.b]), None
                return None, None
            f = f + self.power * self.ctx.ln(y)
            if deriv:
                df = df + self.power / y
        return f, df

    def _value_on(self, terms, box, mid):
        """Enclosure of a sum of terms on ``box``: the naive one meet the mean-value form."""
        naive, der = self._eval(terms, box, deriv=True)
        at_mid, _ = self._eval(terms, mid)
        mv = at_mid + der * (box - mid)
        lo = max(naive.a, mv.a)
        hi = min(naive.b, mv.b)
        return self.ctx.mpf([lo, hi])

    def box_upper(self, lo: Fraction, hi: Fraction):
        ctx = self.ctx
        box = ctx.mpf([_rat(ctx, lo).a, _rat(ctx, hi).b])
        mid = _rat(ctx, (lo + hi) / 2)
        n = self._value_on(self.num, box, mid)
        d = self._value_on(self.den, box, mid)
        if not d.a > 0:
            return math.inf          # the denominator may vanish on the box: no bound yet
        if not n.b > 0:
            return -math.inf         # the numerator density is 0 on the box
        # densities are >= 0, so ln(num / den) <= ln(num_hi / den_lo) on the box
        best = _end(ctx.ln(ctx.mpf(n.b)) - ctx.ln(ctx.mpf(d.a)), True)
        if self.power:
            if lo <= 0:
                if self.power < 0:
                    return math.inf
                return best + _end(self.power * ctx.ln(ctx.mpf(_rat(ctx, hi).b)), True) if hi > 0 else -math.inf
            best = best + _end(self.power * ctx.ln(box), True)
        if n.a > 0 and not (self.power and lo <= 0):
            # mean-value forms anchored at the midpoint and at both ends: the end forms
            # are exact at an end where the log-ratio is monotone (a supremum at a limit)
            _, dfx = self.log_ratio(box, deriv=True)
            if dfx is not None:
                for anchor in ((lo + hi) / 2, lo, hi):
                    fa, _ = self.log_ratio(_rat(ctx, anchor))
                    if fa is not None:
                        best = min(best, _end(fa + dfx * (box - _rat(ctx, anchor)), True))
        return best

    def point_lower(self, y: Fraction):
        y = min(y, self.y_max_point)
        f, _ = self.log_ratio(_rat(self.ctx, y))
        return (_end(f, False) if f is not None else -math.inf), y


def _split(f: PiecewiseExp, g: PiecewiseExp):
    breaks = tuple(sorted(set(f.breaks) | set(g.breaks)))
    return breaks, f._on(breaks), g._on(breaks)


def _gcd_frac(values):
    out = Fraction(0)
    for v in values:
        v = abs(Fraction(v))
        if v == 0:
            continue
        if out == 0:
            out = v
        else:
            num = math.gcd(out.numerator * v.denominator, v.numerator * out.denominator)
            out = Fraction(num, out.denominator * v.denominator)
    return out


def _tail_piece(ctx, pn, pd, edge, side):
    """Substitute ``t = e^(side * kappa x)`` on an infinite piece; ``side=+1`` for the left tail."""
    for (lam, k) in list(pn) + list(pd):
        if k != 0:
            raise ValueError("an infinite piece with polynomial terms cannot be compactified")
    lams = [lam for (lam, _) in list(pn) + list(pd)]
    ref = min(lams) if side > 0 else max(lams)
    kappa = _gcd_frac([lam - ref for lam in lams]) or Fraction(1)

    def poly(p):
        terms = [(0, int(abs(lam - ref) / kappa), c) for (lam, _), c in p.items()]
        low = min(t[1] for t in terms)
        return [(0, deg - low, c) for (_, deg, c) in terms], low
    num, sn = poly(pn)
    den, sd = poly(pd)
    t0 = ctx.exp(_rat(ctx, side * kappa * edge))
    return _Piece(ctx, num, den, Fraction(0), _end(t0, True), "t", sn, sd, y_max_point=_end(t0, False))


def sup_log_ratio(num: PiecewiseExp, den: PiecewiseExp, *, tol=1e-9, max_boxes=2000, floor=None) -> SupEnclosure:
    """Enclose ``sup_v ln(num(v) / den(v))`` over the outputs where ``num > 0``.

    Parameters
    ----------
    num, den : PiecewiseExp
        Densities (non-negative functions) of one interval context.
    tol : float, default 1e-9
        Stop when the enclosure is narrower than this.
    max_boxes : int, default 2000
        Most boxes examined; the enclosure returned is valid whatever its width.
    floor : Fraction, optional
        Stop as soon as the upper end is at most ``floor``: the caller only
        needs to know that the supremum does not exceed it (the enclosure
        returned is still valid, only wider).

    Returns
    -------
    SupEnclosure

    Raises
    ------
    ValueError
        When a needed sign cannot be decided (a leading coefficient whose
        enclosure contains 0): the check fails closed.
    """
    ctx = num.ctx
    breaks, a, b = _split(num, den)
    heap, best = [], (-math.inf, None)
    count = 0
    for i, (pn, pd) in enumerate(zip(a, b)):
        if not pn:
            continue
        lo = breaks[i - 1] if i > 0 else None
        hi = breaks[i] if i < len(breaks) else None
        if not pd:
            # num > 0 somewhere on this piece (checked at an inner point), den = 0 there
            inner = (lo + hi) / 2 if lo is not None and hi is not None else \
                (hi - 1 if lo is None else lo + 1) if (lo is not None or hi is not None) else Fraction(0)
            val = ctx.mpf(0)
            for (lam, k), c in pn.items():
                val += c * _rat(ctx, inner) ** k * ctx.exp(_rat(ctx, lam * inner))
            if val.a > 0:
                return SupEnclosure(ctx.mpf(math.inf), ctx.mpf(math.inf), inner, infinite=True)
            raise ValueError("cannot decide the sign of a density on a piece where the other is zero")
        if lo is None and hi is None:
            raise ValueError("densities without breakpoints are not supported")
        if lo is None or hi is None:
            side = +1 if lo is None else -1
            piece = _tail_piece(ctx, pn, pd, hi if lo is None else lo, side)
            if piece.power < 0:
                c0 = [c for (_, deg, c) in piece.num if deg == 0][0]
                d0 = [c for (_, deg, c) in piece.den if deg == 0][0]
                if c0.a > 0 and d0.a > 0:
                    return SupEnclosure(ctx.mpf(math.inf), ctx.mpf(math.inf),
                                        "-inf" if lo is None else "+inf", infinite=True)
                raise ValueError("cannot decide the sign of a leading coefficient")
            y0, y1 = piece.y0, piece.y1
        else:
            piece = _Piece(ctx, [(lam, k, c) for (lam, k), c in pn.items()],
                           [(lam, k, c) for (lam, k), c in pd.items()], lo, hi, "x")
            y0, y1 = lo, hi
        for y in (y0, y1):
            v, where = piece.point_lower(y)
            if v > best[0]:
                best = (v, (piece, where))
        up = piece.box_upper(y0, y1)
        heapq.heappush(heap, (-up, count, piece, y0, y1))
        count += 1
    if not heap and best[1] is None:
        raise ValueError("the numerator density is zero everywhere")
    boxes = 0
    while heap:
        up = -heap[0][0]
        if up - best[0] <= tol or boxes >= max_boxes or (floor is not None and up <= floor):
            break
        _, _, piece, y0, y1 = heapq.heappop(heap)
        mid = (y0 + y1) / 2
        mid = Fraction(mid).limit_denominator(2 ** 64) if Fraction(mid).denominator > 2 ** 80 else mid
        v, where = piece.point_lower(mid)
        if v > best[0]:
            best = (v, (piece, where))
        for c0, c1 in ((y0, mid), (mid, y1)):
            u = piece.box_upper(c0, c1)
            if u >= best[0] - tol:
                heapq.heappush(heap, (-u, count, piece, c0, c1))
                count += 1
        boxes += 1
    upper = max(-heap[0][0], best[0]) if heap else best[0]
    piece, where = best[1]
    if piece.kind == "t":   # t = e^(+-kappa v): t = 0 is the limit at infinity
        witness = "limit at infinity" if where == 0 else f"t = {float(where):.6g} on an infinite piece"
    else:
        witness = where
    return SupEnclosure(best[0], upper, witness)
