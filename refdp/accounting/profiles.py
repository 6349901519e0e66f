"""Certified privacy profiles of compositions of heterogeneous mechanisms.

A mechanism's *privacy-loss distribution* (PLD) is the law of
``L = ln(P(o) / Q(o))`` for ``o ~ P``, with ``(P, Q)`` its dominating pair of
output distributions on neighbouring inputs; the privacy profile is
``delta(epsilon) = E[(1 - e**(epsilon - L))_+]`` and the PLD of a composition
is the convolution of the PLDs (losses add).

refdp puts every PLD on the grid ``i * h``, with ``h <= grid_step`` chosen so
that the loss lattices of randomized response, the discrete mechanisms and
the Laplace atoms are on it (those PLDs are then exact). Any other mass is
*spread* onto the two ends of its grid bin keeping its P- and Q-mass
(connect-the-dots, Doroshenko et al. 2022): by Jensen's inequality the spread
composition dominates the exact one, and its excess is at most a computable
``gap`` of order ``h**2`` per spread mechanism. Masses are enclosed from
interval seeds (mpmath in a private context) by products of doubles whose
rounding error is bounded a priori, and composed by direct convolution or,
for large steps, by a radix-2 FFT with an a-priori entrywise error bound
(:mod:`refdp.utils.fftconv`), run also on exponentially tilted arrays so that the error is
small relative to the upper tail. The result of a query is an :class:`Enclosure`
``(lower, upper)`` of the exact value; ``upper`` is the guarantee. Proofs:
``docs/theory/privacy_profiles.rst``, sections 2 and 3.

Gaussian mechanisms are composed exactly first (``mu**2 = sum (Delta/sigma)**2``,
Dong, Roth and Su 2022, Cor. 3.3), then spread once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..utils.precision import shared_context
from ..utils.rounding import UNIT_ROUNDOFF as _U, ceil_fraction, ceil_interval, floor_fraction
from ..utils.constraints import PRIVACY, Checked, Nullable, Ordered, constrained, constrained_fields
from ..utils.validation import Described, Interval, Options, check_scalar, parameter_error
from ..utils.pld import (FLOOR as _FLOOR, TAIL as _TAIL, TINY as _TINY, TABLE_MAX_EPSILON, DeltaTable, Pld as _Pld, Tilt as _Tilt,
                         convolve as _conv_fast, float_box, fraction_interval as _frac_iv, geometric as _geometric,
                         interval_hi as _hi, interval_lo as _lo, power as _power_fast, sum_down as _sum_down,
                         sum_up as _sum_up, up as _up, down as _down)
from ..utils.validation import POSITIVE

__all__ = ["RandomizedResponse", "Laplace", "DiscreteLaplace", "Gaussian", "DiscreteGaussian",
           "Enclosure", "privacy_profile_delta", "privacy_profile_epsilon"]

_POS = POSITIVE
_NONNEG = Interval(float, 0, None, closed="left")
_DELTA_OPEN = Interval(float, 0, 1, closed="neither")
_COUNT = Interval(int, 1, None)
_INT_SENS = Interval(int, 1, None)
_STEP = Interval(float, 1e-6, 1.0, closed="both")
_Z = 36.0               # Gaussian tails beyond 36 standard deviations are bounded, not discretised
_DPS = 40
#: The neighbour relation a mechanism's parameters refer to (its sensitivity, or
#: epsilon for randomized response): adding or removing one record, or replacing one.
RELATIONS = Options(("add-remove", "replace-one"))


@constrained_fields(lower=PRIVACY, upper=PRIVACY, relations=(Ordered(("lower", "upper")),))
class Enclosure(NamedTuple):
    """An interval ``[lower, upper]`` of doubles containing an exact value; ``upper`` is the guarantee."""

    lower: float
    upper: float

    @property
    def width(self) -> float:
        return self.upper - self.lower


@constrained_fields(epsilon=_POS, relation=RELATIONS)
@dataclass(frozen=True)
class RandomizedResponse:
    """Randomized response with parameter epsilon: the worst case of every epsilon-DP mechanism.

    Its PLD has mass ``e**eps / (1 + e**eps)`` at ``eps`` and the rest at
    ``-eps`` (Kairouz, Oh and Viswanath 2015, Thm. 3.3).

    ``relation`` declares the neighbour relation the parameters refer to
    (``'add-remove'`` or ``'replace-one'``); a composition must not mix them.
    """

    epsilon: float
    relation: str = "add-remove"


@constrained_fields(scale=_POS, sensitivity=_POS, relation=RELATIONS)
@dataclass(frozen=True)
class Laplace:
    """Laplace noise of scale ``scale`` added to a query of L1 sensitivity ``sensitivity``.

    ``relation`` declares the neighbour relation the parameters refer to
    (``'add-remove'`` or ``'replace-one'``); a composition must not mix them.
    """

    scale: float
    sensitivity: float = 1.0
    relation: str = "add-remove"


@constrained_fields(scale=_POS, sensitivity=_INT_SENS, relation=RELATIONS)
@dataclass(frozen=True)
class DiscreteLaplace:
    """Discrete Laplace noise ``P(x) ~ exp(-|x| / scale)`` on the integers, integer sensitivity.

    ``relation`` declares the neighbour relation the parameters refer to
    (``'add-remove'`` or ``'replace-one'``); a composition must not mix them.
    """

    scale: float
    sensitivity: int = 1
    relation: str = "add-remove"


@constrained_fields(sigma=_POS, sensitivity=_POS, relation=RELATIONS)
@dataclass(frozen=True)
class Gaussian:
    """Gaussian noise of standard deviation ``sigma`` added to a query of L2 sensitivity ``sensitivity``.

    ``relation`` declares the neighbour relation the parameters refer to
    (``'add-remove'`` or ``'replace-one'``); a composition must not mix them.
    """

    sigma: float
    sensitivity: float = 1.0
    relation: str = "add-remove"


@constrained_fields(sigma=_POS, sensitivity=_INT_SENS, relation=RELATIONS)
@dataclass(frozen=True)
class DiscreteGaussian:
    """Discrete Gaussian ``P(x) ~ exp(-x**2 / (2 sigma**2))`` on the integers, integer sensitivity.

    ``relation`` declares the neighbour relation the parameters refer to
    (``'add-remove'`` or ``'replace-one'``); a composition must not mix them.
    """

    sigma: float
    sensitivity: int = 1
    relation: str = "add-remove"


_KINDS = (RandomizedResponse, Laplace, DiscreteLaplace, Gaussian, DiscreteGaussian)


def _normalise(mechanisms, owner):
    if isinstance(mechanisms, _KINDS) or (isinstance(mechanisms, tuple) and len(mechanisms) == 2
                                           and isinstance(mechanisms[0], _KINDS)):
        mechanisms = [mechanisms]
    try:
        items = list(mechanisms)
    except TypeError:
        raise parameter_error("mechanisms", owner, "a list of mechanisms or (mechanism, count) pairs",
                              mechanisms) from None
    groups: dict = {}
    for it in items:
        if isinstance(it, _KINDS):
            mech, count = it, 1
        elif isinstance(it, tuple) and len(it) == 2 and isinstance(it[0], _KINDS):
            try:
                mech, count = it[0], check_scalar(it[1], "count", owner, _COUNT)
            except ValueError:
                raise parameter_error("mechanisms", owner,
                                      "a list of mechanisms or (mechanism, count) pairs with count an int >= 1",
                                      Described(f"a pair with count {it[1]!r}")) from None
        else:
            raise parameter_error("mechanisms", owner,
                                  "a list of mechanisms or (mechanism, count) pairs", it)
        groups[mech] = groups.get(mech, 0) + count
    if not groups:
        raise parameter_error("mechanisms", owner, "a non-empty list of mechanisms", items)
    relations = sorted({m.relation for m in groups})
    if len(relations) > 1:
        # a sensitivity (or epsilon) under one relation says nothing exact about the other
        raise parameter_error("mechanisms", owner,
                              "mechanisms sharing one neighbour relation ('add-remove' or 'replace-one')",
                              Described("a mix of " + " and ".join(repr(r) for r in relations)))
    return groups


#: The ``mechanisms`` argument of the profile and Renyi functions (checked by ``_normalise``).
MECHANISMS = Checked(
    "a mechanism, a (mechanism, count) pair, or a non-empty list of them sharing one "
    "neighbour relation (checked by _normalise)",
    invalid=([], "abc", None, 1.5, [(Laplace(1.0), 0)], [(Laplace(1.0), 1.5)],
             [Laplace(1.0), Laplace(1.0, relation="replace-one")]),
)
_RTOL = Interval(float, 0, None, closed="left")


# ------------------------------------------------ connect-the-dots PLDs --
#
# Every mechanism's PLD is replaced by its *spread* onto the grid ``i * h``:
# the mass of each grid bin ``[x, x + h]`` goes to its two ends with the
# proportions that keep both its P-mass and its Q-mass (``E_P[e**-L]``). Atoms
# on the grid stay where they are. The composition of spread PLDs dominates
# the exact one (Jensen, coordinate by coordinate), and its excess over it is
# bounded by a computable ``gap`` (docs/theory/privacy_profiles.rst, section 3).


def _fgcd(a: Fraction, b: Fraction) -> Fraction:
    """Greatest common divisor of two positive rationals (the largest g with a/g, b/g integers)."""
    return Fraction(math.gcd(a.numerator * b.denominator, b.numerator * a.denominator),
                    a.denominator * b.denominator)


def _generators(mech) -> list:
    """Rationals whose integer combinations contain every finite loss of ``mech`` (none if continuous)."""
    if isinstance(mech, RandomizedResponse):
        return [Fraction(mech.epsilon)]
    if isinstance(mech, Laplace):
        return [Fraction(mech.sensitivity) / Fraction(mech.scale)]
    if isinstance(mech, DiscreteLaplace):
        ft = Fraction(mech.scale)
        return [Fraction(mech.sensitivity) / ft, Fraction(2) / ft]
    if isinstance(mech, DiscreteGaussian):
        fs = 2 * Fraction(mech.sigma) ** 2
        d = mech.sensitivity
        return [Fraction(d * d) / fs, Fraction(2 * d) / fs]
    return []


def _aligned_step(groups, grid_step: float) -> Fraction:
    """The grid step: at most ``grid_step``, and dividing the loss lattices of as many mechanisms as possible.

    Mechanisms are taken by decreasing count; a mechanism's lattice is adopted
    if the common divisor stays at least ``grid_step / 4``. The step is then
    ``g / ceil(g / grid_step)``. Losses off the grid are spread (exactly as
    valid, with a larger gap bound).
    """
    target = Fraction(grid_step)
    g = None
    for mech, _ in sorted(groups.items(), key=lambda kv: -kv[1]):
        gens = _generators(mech)
        if not gens:
            continue
        cand = g
        for x in gens:
            cand = x if cand is None else _fgcd(cand, x)
        if cand >= target / 4:
            g = cand
    if g is None:
        return target
    if all((x / g).denominator == 1 for m in groups for x in _generators(m)) \
            and not any(isinstance(m, (Laplace, Gaussian)) for m in groups):
        # every loss is on the lattice g Z and nothing is spread: the lattice itself is exact
        return g
    return g / math.ceil(g / target)


class _Part:
    """Spread PLD of one mechanism on the grid: mass bounds ``lo <= m <= hi`` at ``(start + i) h``.

    ``inf`` bounds the mass moved to +inf (upper PLD only); ``bin_mass`` bounds
    the P-mass of the off-grid part of any one grid bin (0 if every loss is on
    the grid); ``gaussian`` marks the composed Gaussian.
    """

    __slots__ = ("start", "lo", "hi", "inf", "bin_mass", "gaussian", "tail")

    def __init__(self, start, lo, hi, inf=0.0, bin_mass=0.0, gaussian=False, tail=0.0):
        self.start, self.lo, self.hi = int(start), np.asarray(lo, float), np.asarray(hi, float)
        self.inf, self.bin_mass, self.gaussian, self.tail = float(inf), float(bin_mass), gaussian, float(tail)


def _spread_pq(xi: int, p, q, iv, H, denom):
    """Masses ``(alpha, beta)`` at ``xi h`` and ``(xi + 1) h`` keeping P-mass ``p`` and Q-mass ``q``.

    ``alpha + beta = p`` and ``alpha e**-(xi h) + beta e**-((xi+1) h) = q``, so
    ``beta = (p - q e**(xi h)) / (1 - e**-h)`` (``denom = 1 - e**-h``).
    """
    beta = (p - q * iv.exp(xi * H)) / denom
    alpha = p - beta
    return _clip(alpha, p, iv), _clip(beta, p, iv)


def _clip(x, p, iv):
    lo = max(x.a, iv.mpf(0).a)
    hi = min(x.b, p.b)
    return iv.mpf([lo, max(lo, hi)])


class _Acc:
    """Accumulates interval masses by grid index, then gives directed float arrays."""

    def __init__(self, iv):
        self.iv, self.d = iv, {}

    def add(self, i: int, m):
        self.d[i] = self.d[i] + m if i in self.d else m

    def arrays(self):
        start, end = min(self.d), max(self.d)
        lo = np.zeros(end - start + 1)
        hi = np.zeros(end - start + 1)
        for i, m in self.d.items():
            a, b = float_box(m)
            lo[i - start], hi[i - start] = max(a, 0.0), b
        return start, lo, hi


def _atoms_part(losses, masses, h: Fraction, iv, H, denom) -> _Part:
    """Spread PLD of finitely many atoms (Fraction losses, interval masses)."""
    acc = _Acc(iv)
    bins: dict = {}
    for l, m in zip(losses, masses):
        r = l / h
        if r.denominator == 1:
            acc.add(int(r), m)
            continue
        x = math.floor(r)
        a, b = _spread_pq(x, m, m * iv.exp(-_frac_iv(iv, l)), iv, H, denom)
        acc.add(x, a)
        acc.add(x + 1, b)
        bins[x] = bins.get(x, 0.0) + float(float_box(m)[1])
    start, lo, hi = acc.arrays()
    bm = max(bins.values()) * (1 + 4 * len(bins) * _U) if bins else 0.0
    return _Part(start, lo, hi, bin_mass=float(_up(bm)))


def _rr_part(mech, h, iv, H, denom):
    e = iv.mpf(mech.epsilon)
    p = iv.exp(e) / (1 + iv.exp(e))
    fe = Fraction(mech.epsilon)
    return _atoms_part([fe, -fe], [p, 1 - p], h, iv, H, denom)


def _discrete_laplace_part(mech, h, iv, H, denom):
    t, d = mech.scale, mech.sensitivity
    r = iv.exp(-1 / iv.mpf(t))
    c = (1 - r) / (1 + r)
    ft = Fraction(t)
    losses = [Fraction(d) / ft] + [Fraction(d - 2 * x) / ft for x in range(1, d)] + [-Fraction(d) / ft]
    masses = [1 / (1 + r)] + [c * r ** x for x in range(1, d)] + [r ** d / (1 + r)]
    return _atoms_part(losses, masses, h, iv, H, denom)


def _laplace_part(mech, h: Fraction, iv, H, denom) -> _Part:
    """Spread PLD of the Laplace mechanism (atoms at +-a, density e^{-(a-l)/2}/4 between)."""
    a = Fraction(mech.sensitivity) / Fraction(mech.scale)
    A = _frac_iv(iv, a)
    i_lo, i_hi = math.ceil(-a / h), math.floor(a / h)      # grid points inside [-a, a]
    acc = _Acc(iv)
    bins = []
    half = iv.exp(H / 2)
    # interior bins [i h, (i+1) h], i_lo <= i < i_hi: P = e^{-a/2} e^{x/2}(e^{h/2}-1)/2,
    # Q = e^{-a/2} e^{-x/2}(1-e^{-h/2})/2, so beta = e^{-a/2} e^{x/2} C_beta, alpha = ... C_alpha
    c_beta = (iv.exp(H / 4) - iv.exp(-H / 4)) ** 2 / (2 * denom)
    c_alpha = (half - 1) / 2 - c_beta
    n_full = i_hi - i_lo
    interior = None
    if n_full >= 1:
        x0 = i_lo * H
        acc.add(i_lo, iv.exp(-A / 2 + x0 / 2) * c_alpha)
        acc.add(i_hi, iv.exp(-A / 2 + i_hi * H / 2) / half * c_beta)
        if n_full >= 2:
            seed = iv.exp(-A / 2 + (i_lo + 1) * H / 2) * (c_alpha + c_beta / half)
            interior = _geometric(seed, half, n_full - 1)
        bins.append(float(float_box((half - 1) / (2 * half))[1]))     # (1 - e^{-h/2})/2
    # end pieces: the atom and the partial bin beyond the outermost grid point
    for side in (-1, 1):
        edge = i_lo if side < 0 else i_hi
        xe = _frac_iv(iv, edge * h)
        if side < 0:
            p_atom, q_atom = iv.exp(-A) / 2, iv.mpf(1) / 2
            p_part = (iv.exp(-(A - xe) / 2) - iv.exp(-A)) / 2
            q_part = (1 - iv.exp(-(A + xe) / 2)) / 2
        else:
            p_atom, q_atom = iv.mpf(1) / 2, iv.exp(-A) / 2
            p_part = (1 - iv.exp(-(A - xe) / 2)) / 2
            q_part = iv.exp(-A / 2) * (iv.exp(-xe / 2) - iv.exp(-A / 2)) / 2
        if edge * h == side * a:                 # the atom is on the grid, no partial bin
            acc.add(edge, p_atom)
            continue
        p = p_atom + _clip(p_part, iv.mpf(1), iv)
        q = q_atom + _clip(q_part, iv.mpf(1), iv)
        x = edge - 1 if side < 0 else edge
        al, be = _spread_pq(x, p, q, iv, H, denom)
        acc.add(x, al)
        acc.add(x + 1, be)
        bins.append(float(float_box(p)[1]))
    start, lo, hi = acc.arrays()
    if interior is not None:
        j = i_lo + 1 - start
        lo[j:j + n_full - 1] += interior[0]
        hi[j:j + n_full - 1] += interior[1]
        lo[j:j + n_full - 1] = _down(lo[j:j + n_full - 1])
        hi[j:j + n_full - 1] = _up(hi[j:j + n_full - 1])
    return _Part(start, lo, hi, bin_mass=float(_up(max(bins) * (1 + 8 * _U))) if bins else 0.0)


def _hat_moment(h: Fraction) -> float:
    """An upper bound of ``|int hat(t) t dt|`` for the connect-the-dots hat of width h (of order h**3)."""
    iv = shared_context(60, interval=True)     # this thread's; its precision is never changed
    H = _frac_iv(iv, h)
    e, em = iv.exp(H), iv.exp(-H)
    right = (1 - (1 + H) * em - H * H * em / 2) / (1 - em)
    left = (1 + H * e - e - H * H * e / 2) / (e - 1)
    m1 = right + left
    return float(ceil_fraction(max(abs(_lo(m1)), abs(_hi(m1)))))


_BLOCK = 4096


def _phi_grid(z0, d, n: int, iv):
    """Doubles ``(lo, hi)`` enclosing ``phi(z0 + i d)``, i < n (``z0``, ``d`` intervals).

    ``phi(z + d) = phi(z) e^{-z d - d^2/2}``: within a block of ``_BLOCK``
    points the values are products of a geometric sequence of ratios, whose
    relative error grows like the square of the block length; every block
    restarts from an interval seed.
    """
    inv = 1 / iv.sqrt(2 * iv.pi)
    rho = iv.exp(-d * d)
    los, his = [], []
    for s0 in range(0, n, _BLOCK):
        m = min(_BLOCK, n - s0)
        z = z0 + s0 * d
        p0lo, p0hi = float_box(iv.exp(-z * z / 2) * inv)
        if m > 1:
            flo, fhi = _geometric(iv.exp(-z * d - d * d / 2), rho, m - 1)
        else:
            flo = fhi = np.zeros(0)
        for p0, f, side, out in ((p0lo, flo, -1, los), (p0hi, fhi, 1, his)):
            arr = np.concatenate(([p0], f))
            with np.errstate(over="ignore", under="ignore"):
                c = np.cumprod(arr)
            g = 1.01 * (np.arange(m) + 2) * _U
            out.append(_up(c * (1 + g)) if side > 0 else _down(c * (1 - g)))
    return np.concatenate(los), np.concatenate(his)


def _gaussian_part(mu2: Fraction, h: Fraction, iv, H) -> _Part:
    """Spread PLD of N(mu^2/2, mu^2): the mass at x_i is int hat_i(l) phi_L(l) dl (second-order bounds)."""
    mu = iv.sqrt(_frac_iv(iv, mu2))
    fmu = math.sqrt(float(mu2))
    mean = float(mu2) / 2
    hf = float(h)
    i0 = math.floor((mean - _Z * fmu) / hf) - 1
    i1 = math.ceil((mean + _Z * fmu) / hf) + 1
    n = i1 - i0 + 1
    d = H / mu
    z0 = (i0 * H - mu * mu / 2) / mu
    phis = _phi_grid(z0, d, n, iv)
    plo, phi = phis                                   # enclose phi(z_i), z_i = (x_i - mu^2/2)/mu
    small = phi < _FLOOR
    plo[small], phi[small] = 0.0, 2 * _FLOOR
    mlo, mhi = float_box(mu)
    # phi_L(x_i + t) = phi_L(x_i) e^{-t w - t^2/(2 mu^2)}, w = z_i / mu; int hat_i = h,
    # int hat_i t = m1 (|m1| = O(h^3)), int hat_i t^2 <= h^3
    zf = (np.arange(n) * hf + i0 * hf - mean) / fmu
    w = _up((np.abs(zf) + 1e-9 * (1 + np.abs(zf))) / mlo)
    m1 = _hat_moment(h)
    h_lo, h_hi = float_box(H)
    e2 = float_box(iv.exp(-H * H / (2 * mu * mu)))[0]
    hw = _up(h_hi * w)
    lo_f = _down(_down(h_lo - _up(w * m1)) * e2)
    lo_f[(hw >= 1.0) | (lo_f < 0)] = 0.0
    with np.errstate(over="ignore"):
        hi_f = _up(h_hi + _up(w * m1) + _up(_up(w * w) * h_hi ** 3 * np.exp(np.minimum(hw, 700.0)) * (1 + 8 * _U) / 2))
    m_lo = _down(_down(plo * lo_f) / mhi)
    m_hi = _up(_up(phi * hi_f) / mlo)
    # tails: points <= x_{i0} hold at most Phi(z_{i0+1}) <= phi(z_{i0+1}) / 36 (Mills' ratio, z <= -36),
    # moved up to x_{i0}; points >= x_{i1} hold at most phi(z_{i1-1}) / 36, moved to +inf
    tail_lo = float(_up(phi[1] / 30.0 / mlo * mhi))
    tail_hi = float(_up(phi[-2] / 30.0 / mlo * mhi))
    hi_arr = np.zeros(n)
    hi_arr[1:-1] = m_hi[1:-1]
    hi_arr[0] = tail_lo
    lo_arr = np.zeros(n)
    lo_arr[1:-1] = m_lo[1:-1]
    return _Part(i0, lo_arr, hi_arr, inf=tail_hi, gaussian=True, tail=float(_up(tail_lo + tail_hi)))


def _discrete_gaussian_part(mech, h, iv, H, denom):
    s, d = mech.sigma, mech.sensitivity
    N = max(1, int(math.floor((_Z - 1) * s)))
    S2 = 2 * iv.mpf(s) ** 2
    seed = iv.exp(-iv.mpf(-N) ** 2 / S2)
    f0 = iv.exp(-(2 * iv.mpf(-N) + 1) / S2)
    rho = iv.exp(-2 / S2)
    if N <= 256:
        # few points: each weight e**(-x**2 / (2 sigma**2)) enclosed on its own (for a small
        # sigma the products below would start from an underflowing seed and an overflowing ratio)
        boxes = [float_box(iv.exp(-iv.mpf(x) ** 2 / S2)) for x in range(-N, N + 1)]
        w_lo = np.array([b[0] for b in boxes])
        w_hi = np.array([b[1] for b in boxes])
    else:
        flo, fhi = _geometric(f0, rho, 2 * N)
        s_lo, s_hi = float_box(seed)
        ws = []
        for p0, f, side in ((s_lo, flo, -1), (s_hi, fhi, 1)):
            c = np.cumprod(np.concatenate(([p0], f)))
            g = 1.01 * (np.arange(2 * N + 1) + 2) * _U
            ws.append(_up(c * (1 + g)) if side > 0 else _down(c * (1 - g)))
        w_lo, w_hi = ws
    t = iv.exp(-iv.mpf(N + 1) ** 2 / S2) / (1 - iv.exp(-(2 * iv.mpf(N) + 3) / S2))
    t_hi = ceil_fraction(_hi(t))
    z_lo = _sum_down(w_lo)
    z_hi = float(_up(_sum_up(w_hi) + 2 * t_hi))
    p_hi = _up(w_hi / z_lo)
    p_lo = _down(w_lo / z_hi)
    fs = Fraction(s) ** 2 * 2
    xs = range(-N, N + 1)
    losses = [Fraction(d * d - 2 * x * d) / fs for x in xs]
    tail_hi = float(_up(t_hi / z_lo))
    if all((l / h).denominator == 1 for l in losses):
        idx = np.array([int(l / h) for l in losses])
        start = int(idx.min())
        arrs = []
        for m, up in ((p_lo, False), (p_hi, True)):
            arr = np.zeros(int(idx.max()) - start + 1)
            np.add.at(arr, idx - start, m)
            cnt = np.bincount(idx - start, minlength=arr.size)
            arrs.append(_up(arr * (1 + 1.01 * (cnt + 1) * _U)) if up else
                        _down(arr * (1 - 1.01 * (cnt + 1) * _U)))
        part = _Part(start, arrs[0], arrs[1])
    else:
        masses = [iv.mpf([float(a), float(b)]) for a, b in zip(p_lo, p_hi)]
        part = _atoms_part(losses, masses, h, iv, H, denom)
    # x < -N: the largest losses, moved to +inf; x > N: the smallest, moved up to the first point
    part.inf = tail_hi
    part.hi[0] = float(_up(part.hi[0] + tail_hi))
    part.tail = float(_up(2 * tail_hi))
    return part


_LAMBDAS = np.geomspace(1 / 64, 8.0, 25)


def _log_mgf_at(part: _Part, lam: float, h: Fraction, iv, H):
    """Bounds ``(upper, lower)`` of ``ln sum_i m_i e**(lam x_i)`` for one ``lam`` of ``_LAMBDAS``.

    The weights ``e**(lam (x_i - x_top))`` are a certified geometric sequence
    over the top ``keep`` points, where they are at least ``e**-700`` (a seed
    that does not underflow); every lower point weighs at most
    ``e**(-keep lam h)``, which the upper bound adds times their total mass and
    the lower bound drops. The +inf mass is left out (it is accounted separately).
    """
    n = part.hi.size
    top = part.start + n - 1
    L = iv.mpf(float(lam))
    keep = min(n, int(700.0 / (float(lam) * float(h))) + 1)
    j0 = n - keep
    w_lo, w_hi = _geometric(iv.exp(-(keep - 1) * L * H), iv.exp(L * H), keep)  # e^{lam (x_i - x_top)}
    s_hi = _sum_up(_up(part.hi[j0:] * w_hi))
    if j0 > 0:
        cut = float_box(iv.exp(-keep * L * H))[1]
        s_hi = float(_up(s_hi + _up(_sum_up(part.hi[:j0]) * cut)))
    s_lo = _sum_down(_down(part.lo[j0:] * w_lo))
    shift = L * top * H
    up = ceil_fraction(_hi(iv.log(iv.mpf(s_hi)) + shift)) if s_hi > 0 else -math.inf
    lo = floor_fraction(_lo(iv.log(iv.mpf(s_lo)) + shift)) if s_lo > 0 else -math.inf
    return up, lo


def _log_mgf_float(part: _Part, h: Fraction):
    """Float estimates of ``ln sum_i m_i e**(lam x_i)`` at every ``lam`` of ``_LAMBDAS`` (no bound)."""
    x = (part.start + np.arange(part.hi.size)) * float(h)
    top = float(x[-1])
    with np.errstate(divide="ignore", under="ignore"):
        w = np.exp(np.outer(_LAMBDAS, x - top))
        return np.log(w @ part.hi) + _LAMBDAS * top


def _choose_tilt(parts, h: Fraction, iv, target):
    """The tilt for FFT steps: centres the tilted composed loss near the queried epsilon.

    Only the accuracy depends on it (any ``lam >= 0`` gives valid bounds).
    ``target`` is ``("epsilon", e)`` or ``("delta", d)``; the composed loss is
    approximated by a normal law with the parts' means and variances (floats).
    """
    if target is None:
        return None
    mean = var = 0.0
    hf = float(h)
    for part, count in parts:
        w = part.hi
        tot = float(np.sum(w))
        if not tot > 0:
            continue
        x = (part.start + np.arange(w.size)) * hf
        m = float(np.sum(w * x)) / tot
        mean += count * m
        var += count * float(np.sum(w * (x - m) ** 2)) / tot
    if not var > 0:
        return None
    sd = math.sqrt(var)
    if target[0] == "epsilon":
        lam = (target[1] - mean) / var
    else:
        from scipy.special import ndtri
        lam = -float(ndtri(target[1])) / sd          # the normal upper quantile of delta
    if not lam > 0 or not math.isfinite(lam):
        return None
    # a coarse ladder (powers of 2**(1/4)): nearby queries share the tilt, hence the composition
    lam = 2.0 ** (round(4 * math.log2(min(lam, 64.0))) / 4)
    return _Tilt(lam, h, iv)


#: PLDs with at least this many points answer delta queries from a DeltaTable (one O(n)
#: pass, then O(1) per query); smaller ones are evaluated per query (relative error
#: of the query's own terms only).
_TABLE_MIN = 4096


#: The grid step used when none is given.
DEFAULT_GRID_STEP = 1e-3
#: The most points a composed PLD is planned to have when no ``grid_step`` is given: a
#: composition whose PLD at ``DEFAULT_GRID_STEP`` would have more (by :func:`_predicted_points`)
#: is computed on a coarser grid.
MAX_POINTS = 2 ** 20


def _spread_parts(groups, h: Fraction, iv):
    """``(parts, mu2, H, denom)``: the spread PLD of every non-Gaussian mechanism on the grid ``h``,
    with its count, and the composed Gaussian's ``mu**2`` (its part is built separately)."""
    H = _frac_iv(iv, h)
    denom = 1 - iv.exp(-H)
    mu2 = Fraction(0)
    parts = []
    for mech, count in groups.items():
        if isinstance(mech, Gaussian):
            mu2 += count * (Fraction(mech.sensitivity) / Fraction(mech.sigma)) ** 2
            continue
        if isinstance(mech, RandomizedResponse):
            part = _rr_part(mech, h, iv, H, denom)
        elif isinstance(mech, Laplace):
            part = _laplace_part(mech, h, iv, H, denom)
        elif isinstance(mech, DiscreteLaplace):
            part = _discrete_laplace_part(mech, h, iv, H, denom)
        else:
            part = _discrete_gaussian_part(mech, h, iv, H, denom)
        parts.append((part, count))
    return parts, mu2, H, denom


def _predicted_points(parts, mu2: Fraction, h: Fraction, tail: float) -> float:
    """A float estimate of the number of points of the composed PLD on the grid ``h`` (a plan only).

    The lesser of the untruncated length and ``2 z sd / h`` plus the parts'
    own lengths, ``sd`` the composed loss's standard deviation and
    ``z = sqrt(2 ln(1 / tail))`` (beyond ``z`` standard deviations a normal
    tail is below ``tail``, where the truncations cut); the Gaussian part
    spans ``72 mu / h`` points.
    """
    hf = float(h)
    var = float(mu2)
    full = 1.0
    own = 0.0
    for part, count in parts:
        w = part.hi
        tot = float(np.sum(w))
        if tot > 0:
            x = (part.start + np.arange(w.size)) * hf
            m = float(np.sum(w * x)) / tot
            var += count * float(np.sum(w * (x - m) ** 2)) / tot
        full += count * (w.size - 1)
        own += w.size
    gauss = 2 * _Z * math.sqrt(float(mu2)) / hf if mu2 > 0 else 0.0
    z = math.sqrt(2 * math.log(1 / tail))
    return min(full + gauss, 2 * z * math.sqrt(var) / hf + own + gauss)


class _Composition:
    """Upper and lower PLDs of a composition of spread PLDs, with the gap bound of the spreading."""

    def __init__(self, groups, grid_step: float, target=None):
        iv = shared_context(_DPS, interval=True)   # this thread's; its precision is never changed
        # mass each truncation may move to +inf (upper PLD) or drop (lower PLD): 1e-60, or when
        # epsilon is sought at delta, delta 2**-60 (a chain has at most about 64 steps, so
        # together they move delta_upper by less than half a unit in the last place of delta)
        tail = max(_TAIL, target[1] * 2.0 ** -60) if target is not None and target[0] == "delta" else _TAIL
        step = DEFAULT_GRID_STEP if grid_step is None else float(grid_step)
        h = _aligned_step(groups, step)
        parts, mu2, H, denom = _spread_parts(groups, h, iv)
        if grid_step is None:
            points = _predicted_points(parts, mu2, h, tail)
            if points > MAX_POINTS:
                # a coarser grid: any grid gives a certified enclosure, only its width grows
                coarse = _aligned_step(groups, min(1.0, step * points / MAX_POINTS))
                if coarse > h:
                    h = coarse
                    parts, mu2, H, denom = _spread_parts(groups, h, iv)
        self.iv, self.h, self.H = iv, h, H
        self.gauss = None
        if mu2 > 0:
            self.gauss = _gaussian_part(mu2, h, iv, H)
            parts.append((self.gauss, 1))
        tilt = _choose_tilt(parts, h, iv, target)
        upper = lower = None
        self.spread = []            # (count, bin mass bound, index of the part)
        self._parts, self._lm, self._lm_float = parts, {}, None
        self._inf_total, self._tops, self._widths = 0.0, [], []
        for j, (part, count) in enumerate(parts):
            pu = _power_fast(_Pld(part.start, part.hi, part.inf), count, True, tilt, tail)
            pl = _power_fast(_Pld(part.start, part.lo), count, False, tilt, tail)
            upper = pu if upper is None else _conv_fast(upper, pu, True, tilt, tail)
            lower = pl if lower is None else _conv_fast(lower, pl, False, tilt, tail)
            self._inf_total = float(_up(self._inf_total + _up(count * part.inf)))
            if part.bin_mass > 0 and not part.gaussian:
                self.spread.append((count, part.bin_mass, j))
                self._tops.append(ceil_fraction((part.start + part.hi.size) * h))
                self._widths.append(part.hi.size - 1)
        self.upper, self.lower = upper, lower
        self.n_spread = sum(c for c, _, _ in self.spread) + (1 if self.gauss is not None else 0)
        m = upper.m
        n = m.size
        self._suffix = _up(np.cumsum(m[::-1])[::-1] * (1 + 1.01 * (n + 1) * _U) + n * _TINY)
        # (e^h - 1) / 4 bounds the chord gap of (1 - c y)_+ over one bin, times the bin's mass
        self.kappa = ceil_fraction(_hi((iv.exp(H) - 1) / 4))
        self._tables = {}

    def _log_mgfs_at(self, k: int):
        """``(upper bound of the composed log-MGF, lower bounds per part)`` at ``_LAMBDAS[k]``, computed once.

        Only the gap of spread mechanisms reads them, so a composition without
        spread mechanisms (pure lattices, a Gaussian alone) never computes them.
        """
        got = self._lm.get(k)
        if got is None:
            total, lows = None, []
            for part, count in self._parts:
                lm_hi, lm_lo = _log_mgf_at(part, _LAMBDAS[k], self.h, self.iv, self.H)
                total = _up(count * lm_hi) if total is None else _up(total + _up(count * lm_hi))
                lows.append(lm_lo)
            got = self._lm[k] = (float(total), lows)
        return got

    def _chernoff_candidates(self, t: float, j: int):
        """The two ``_LAMBDAS`` indices whose float Chernoff exponents for part ``j`` at ``t`` are least.

        Any subset of the grid gives a valid bound (it is certified at the
        chosen points); the float estimates only choose where to certify.
        """
        if self._lm_float is None:
            per = [_log_mgf_float(part, self.h) for part, _ in self._parts]
            total = sum(count * f for f, (_, count) in zip(per, self._parts))
            self._lm_float = (total, per)
        total, per = self._lm_float
        with np.errstate(invalid="ignore"):
            f = total - per[j] - _LAMBDAS * t
        f = np.where(np.isfinite(f), f, np.inf)
        return [int(i) for i in np.argsort(f, kind="stable")[:2]]

    def _above_grid(self, t: Fraction) -> float:
        """An upper bound of P(L_rest > t + width + n h) by coupling (each original within h of its spread)."""
        first = math.floor(t / self.h) + 1 - self.upper.start
        s = 0.0
        if first < self.upper.m.size:
            s = float(self._suffix[max(first, 0)])
        return min(1.0, float(_up(s + self.upper.inf)))

    def _above(self, t: float, j: int) -> float:
        """An upper bound of P(L_rest > t), L_rest the loss of every coordinate but one (Chernoff).

        For lam > 0, ``e**(lam l) = y**-lam`` is convex in ``y = e**-l``, so a
        spread coordinate's moment ``E[e**(lam L)]`` is at least the original's;
        the finite part is at most ``exp(-lam t) prod_i E[e**(lam L_i)]``, the
        rest at most the masses at +inf.
        """
        # P(L_rest > t) <= P(L_rest > t') for t' <= t: clamping t keeps lam t finite
        # (an epsilon far beyond every finite loss, e.g. 1e308, gives e**-16384 already)
        t = min(t, 2.0 ** 20)
        best = math.inf
        for k in self._chernoff_candidates(t, j):
            total, lows = self._log_mgfs_at(k)
            e = float(_up(_up(total - lows[j]) - _down(_LAMBDAS[k] * t)))
            best = min(best, e)
        if best >= 0:
            chern = 1.0
        elif best < -746.0:
            # e**best < 2**-1076: the least positive double bounds it (and an exact
            # enclosure of e**best for a huge |best| would have a huge exponent)
            chern = _TINY
        else:
            chern = ceil_interval(self.iv.exp(self.iv.mpf(best)))     # exact upward rounding
        return min(1.0, float(_up(chern + _up(self._inf_total * (1 + 4 * _U)))))

    def gap(self, epsilon: float) -> float:
        """An upper bound of delta_spread(epsilon) - delta(epsilon) (section 3 of the theory page)."""
        fe = Fraction(epsilon)
        total = 0.0
        # the last coordinate of the telescoping sum (the Gaussian, else the largest bins)
        # sees every other coordinate spread, on the grid: its term is bounded by the
        # composed masses at the two grid points around epsilon
        last = None if self.gauss is not None or not self.spread else \
            max(range(len(self.spread)), key=lambda i: self.spread[i][1])
        last_term = None
        for i, (count, bin_mass, j) in enumerate(self.spread):
            # a gap needs the kink inside the coordinate's support: L_rest > epsilon - its top
            t = float(_down(epsilon - self._tops[i]))
            T = min(self._above(t, j), self._above_grid(fe - (self._widths[i] + self.n_spread) * self.h))
            one = float(_up(_up(bin_mass * self.kappa) * T))
            if i == last:
                count -= 1
                last_term = one
            total = float(_up(total + _up(count * one)))
        if self.gauss is not None or last is not None:
            j = math.floor(fe / self.h) - self.upper.start
            m = self.upper.m
            pair = sum(float(m[i]) for i in (j, j + 1) if 0 <= i < m.size)
            tail = 4 * self.gauss.tail if self.gauss is not None else 0.0
            pair = float(_up(pair * (1 + 4 * _U) + self.upper.inf + tail + 1e-57))
            term = float(_up(self.kappa * pair))
            if last_term is not None:          # both bounds hold for the last coordinate
                term = min(term, last_term)
            total = float(_up(total + term))
        return total

    def _delta(self, p: _Pld, epsilon: float, upper: bool) -> float:
        """The bound of delta(epsilon) of ``p``: from its suffix-sum table when large, else per query."""
        if p.m.size >= _TABLE_MIN and epsilon <= TABLE_MAX_EPSILON:
            if upper not in self._tables:
                self._tables[upper] = DeltaTable(p, self.iv, self.h, upper)
            return self._tables[upper](epsilon)
        return _delta_grid(p, epsilon, self.iv, self.h, self.H, upper)

    def guess(self, upper: bool, delta: float):
        """A float estimate of where the upper (lower) PLD's profile crosses ``delta``, or None.

        From the suffix-sum table when the PLD has one, else from the masses
        (:func:`_float_guess`); only where the bisection starts depends on it.
        """
        p = self.upper if upper else self.lower
        if p.m.size < _TABLE_MIN:
            return _float_guess(p, self.h, delta)
        if upper not in self._tables:
            self._tables[upper] = DeltaTable(p, self.iv, self.h, upper)
        table = self._tables[upper]
        a, b = 0.0, min(TABLE_MAX_EPSILON, float((p.start + p.m.size) * self.h))
        if not b > 0 or table.estimate(a) <= delta or table.estimate(b) > delta:
            return None
        for _ in range(60):
            c = (a + b) / 2
            a, b = (a, c) if table.estimate(c) <= delta else (c, b)
        return b

    def delta_upper(self, epsilon: float) -> float:
        return self._delta(self.upper, epsilon, True)

    def delta_lower(self, epsilon: float) -> float:
        d = self._delta(self.lower, epsilon, False)
        g = self.gap(epsilon)
        return max(0.0, float(_down(d - g))) if g > 0 else d


def _delta_grid(p: _Pld, epsilon: float, iv, h: Fraction, H, upper: bool) -> float:
    """Bound of ``sum_i m_i (1 - e^{eps - (start + i) h})_+ (+ inf mass)`` in the direction of ``upper``."""
    first = max(0, math.floor(Fraction(epsilon) / h) + 1 - p.start)
    m = p.m[first:]
    if m.size == 0:
        return min(1.0, p.inf) if upper else 0.0
    x = iv.mpf(epsilon) - (p.start + first) * H
    lo, hi = _geometric(iv.exp(x), iv.exp(-H), m.size, upper_only=not upper)     # e^{eps - L_i} in (0, 1)
    if upper:
        return min(1.0, float(_up(_sum_up(_up(m * _up(1.0 - lo))) + p.inf)))
    return _sum_down(_down(m * _down(1.0 - hi)))


# ----------------------------------------------------------------- public --

@constrained(mechanisms=MECHANISMS, epsilon=_NONNEG, grid_step=Nullable(_STEP))
def privacy_profile_delta(mechanisms, epsilon, grid_step=None):
    """Enclosure of the exact delta(epsilon) of a composition of mechanisms.

    ``delta(epsilon) = E_P[(1 - e**(epsilon - L))_+]`` for the privacy loss
    ``L`` of the composition (its hockey-stick divergence, Balle, Barthe and
    Gaboardi 2018, Thm. 1), computed from the privacy-loss distributions
    spread onto a grid aligned with the mechanisms' loss lattices, with
    certified mass bounds and a certified bound of the spreading's excess
    (``docs/theory/privacy_profiles.rst``, sections 2 and 3).

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
        Instances of :class:`RandomizedResponse`, :class:`Laplace`,
        :class:`DiscreteLaplace`, :class:`Gaussian`,
        :class:`DiscreteGaussian`; equal mechanisms are grouped.
    epsilon : float in [0, inf)
    grid_step : float in [1e-6, 1], or None (default)
        Largest spacing of the loss grid; the step used divides the loss
        lattices of as many mechanisms as possible (a smaller step narrows
        the enclosure of spread mechanisms, about quadratically, and costs
        more). None means 1e-3, except for a composition whose privacy-loss
        distribution would have more than ``2**20`` points on that grid
        (its planned span is about 20 standard deviations of the composed
        loss: from about 4,000 x Laplace(1) at delta = 1e-5 on) is
        computed on the coarser grid that keeps it near ``2**20`` points,
        so that its cost no longer grows with ``k``. The enclosure is as
        certified as on any grid, only wider: the upper end moves little,
        the lower end may fall to 0 (``docs/theory/privacy_profiles.rst``,
        section 2). Pass ``grid_step=1e-3`` for the finer grid at any cost.

    Returns
    -------
    Enclosure
        ``(lower, upper)`` with ``lower <= delta(epsilon) <= upper``; ``upper``
        is the guarantee.

    Raises
    ------
    ValueError
        On invalid arguments.

    References
    ----------
    .. [1] B. Balle, G. Barthe and M. Gaboardi, "Privacy Amplification by
       Subsampling", NeurIPS 2018, Theorem 1 (hockey-stick divergence).
    .. [2] Y. Zhu, J. Dong and Y.-X. Wang, "Optimal Accounting of
       Differential Privacy via Characteristic Function", AISTATS 2022
       (dominating pairs).
    .. [3] A. Koskela, J. Jälkö and A. Honkela, "Computing Tight Differential
       Privacy Guarantees Using FFT", AISTATS 2020 (PLD discretisation).
    .. [4] V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar and P. Manurangsi,
       "Connect the Dots: Tighter Discrete Approximations of Privacy Loss
       Distributions", PoPETs 2022 (the spreading).
    .. [5] N. J. Higham, *Accuracy and Stability of Numerical Algorithms*,
       2nd ed., SIAM 2002, Theorem 24.2 (the FFT error bound).
    """
    groups = _normalise(mechanisms, "privacy_profile_delta")
    comp = _Composition(groups, grid_step, ("epsilon", epsilon))
    return Enclosure(comp.delta_lower(epsilon), comp.delta_upper(epsilon))


@constrained(mechanisms=MECHANISMS, delta=_DELTA_OPEN, grid_step=Nullable(_STEP), rtol=_RTOL)
def privacy_profile_epsilon(mechanisms, delta, grid_step=None, rtol=1e-12):
    """Enclosure of the least epsilon >= 0 with delta(epsilon) <= delta for a composition.

    ``upper`` is a float with ``delta_upper(upper) <= delta`` (so the
    composition is ``(upper, delta)``-DP); ``lower`` is a float with
    ``delta_lower(lower) > delta`` (so no epsilon up to it is valid), or 0.
    Both are found by bisection on the bounds of :func:`privacy_profile_delta`.
    Large compositions are computed with an exponential tilt chosen from the
    query, so ``privacy_profile_delta`` at ``upper`` may differ from
    ``delta`` in the last digits; both are valid.

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
    delta : float in (0, 1)
    grid_step : float in [1e-6, 1], or None (default)
        As in :func:`privacy_profile_delta` (None: 1e-3, or coarser for a
        composition that would exceed ``2**20`` points).
    rtol : float, default 1e-12
        Relative resolution of the bisection (never affects validity).

    Returns
    -------
    Enclosure

    Raises
    ------
    ValueError
        On invalid arguments.

    References
    ----------
    See :func:`privacy_profile_delta`.
    """
    groups = _normalise(mechanisms, "privacy_profile_epsilon")
    comp = _Composition(groups, grid_step, ("delta", delta))
    top = float((comp.upper.start + comp.upper.m.size) * comp.h)
    if comp.upper.inf >= delta:
        hi_eps = math.inf
    else:
        hi_eps = _bisect(lambda e: comp.delta_upper(e) <= delta, top, rtol, comp.guess(True, delta))[1]
    pure = _pure_epsilon(groups)
    if pure is not None:           # the composition is (pure, 0)-DP (basic composition)
        hi_eps = min(hi_eps, pure)
    # the exact epsilon exceeds every e with delta_lower(e) > delta
    # delta_lower(e) > delta means the lower PLD's profile exceeds delta + gap(e); the gap
    # varies slowly, so its value at the upper end places the guess
    shifted = delta + comp.gap(hi_eps) if math.isfinite(hi_eps) else delta
    lo_eps = min(_bisect(lambda e: not comp.delta_lower(e) > delta, top, rtol,
                         comp.guess(False, shifted))[0], hi_eps)
    return Enclosure(lo_eps, hi_eps)


def _pure_epsilon(groups):
    """The basic-composition epsilon (rounded up) when every mechanism is pure DP, else None."""
    total = Fraction(0)
    for mech, count in groups.items():
        if isinstance(mech, RandomizedResponse):
            total += count * Fraction(mech.epsilon)
        elif isinstance(mech, (Laplace, DiscreteLaplace)):
            total += count * Fraction(mech.sensitivity) / Fraction(mech.scale)
        else:
            return None
    return ceil_fraction(total)


def _float_guess(p, h: Fraction, delta: float):
    """A float estimate of the epsilon where ``p``'s profile crosses ``delta``: a starting point only.

    Plain float arithmetic, used to place the certified bisection's first
    bracket (every point it returns is still verified by the certified
    bounds). None for PLDs of ``_TABLE_MIN`` points or more (their tables
    give the estimate), or when there is nothing to guess.
    """
    n = p.m.size
    if n >= _TABLE_MIN or not p.inf < delta:
        return None
    x = (p.start + np.arange(n)) * float(h)
    m = p.m

    def d(e):
        k = int(np.searchsorted(x, e, side="right"))
        return float(np.dot(m[k:], -np.expm1(e - x[k:]))) + p.inf

    a, b = 0.0, float(x[-1])
    if not b > 0 or d(a) <= delta:
        return None
    for _ in range(60):
        c = (a + b) / 2
        a, b = (a, c) if d(c) <= delta else (c, b)
    return b


def _bisect(ok, top: float, rtol: float, guess=None) -> float:
    """``(a, b)``: ``ok(b)``, ``not ok(a)`` (or ``a = b = 0``), ``b - a <= rtol b``; ok monotone.

    With a ``guess``, the first bracket is searched around it (relative radii
    1e-11 to 0.1) before the bracket ``[0, top]``; such a bracket is narrowed
    to ``rtol / 4`` (two more steps), so that its ends are no coarser than
    those of the plain bisection. Validity never depends on the guess (``b``
    always has ``ok(b)``, ``a`` has ``not ok(a)`` or is 0).
    """
    a, b = 0.0, None
    tol = rtol
    if guess is None or not (math.isfinite(guess) and guess > 0):
        guess = None
        if ok(0.0):
            return 0.0, 0.0
    if guess is not None:
        radii = (1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-1)
        for r in radii:
            x = guess * (1 + r)
            if ok(x):
                b = x
                break
            a = x
        if b is not None:
            for r in radii:
                x = guess * (1 - r)
                if x <= a:
                    break
                if not ok(x):
                    a = x
                    break
                b = x
            tol = rtol / 4
        # ok(0) is asked only when no point below the threshold was found: for a monotone
        # ok, not ok(a) at some a > 0 already implies not ok(0)
        if a == 0.0 and ok(0.0):
            return 0.0, 0.0
    if b is None:
        b = max(top, a, 1e-300)
        while not ok(b):
            a, b = b, b * 2
    while b - a > tol * b and math.nextafter(a, math.inf) < b:
        c = (a + b) / 2
        if ok(c):
            b = c
        else:
            a = c
    return a, b
