"""Certified privacy profiles of compositions of heterogeneous mechanisms.

A mechanism's *privacy-loss distribution* (PLD) is the law of
``L = ln(P(o) / Q(o))`` for ``o ~ P``, with ``(P, Q)`` its dominating pair of
output distributions on neighbouring inputs; the privacy profile is
``delta(epsilon) = E[(1 - e**(epsilon - L))_+]`` and the PLD of a composition
is the convolution of the PLDs (losses add). refdp encloses it between two
finitely supported PLDs on the grid ``i * grid_step``:

* the *pessimistic* one moves every loss up to the next grid point, carries
  upper bounds of the masses and puts the truncated upper tail at ``+inf``;
* the *optimistic* one moves every loss down, carries lower bounds of the
  masses and drops the truncated tails.

Masses are computed from interval seeds (mpmath in a private context) by
products of doubles whose rounding error is bounded a priori, and composed by
direct convolution of non-negative arrays, whose error is bounded likewise
(``docs/theory/privacy_profiles.rst``). The result of a query is an
:class:`Enclosure` ``(lower, upper)`` of the exact value; ``upper`` is the
guarantee.

Gaussian mechanisms are composed exactly first (``mu**2 = sum (Delta/sigma)**2``,
Dong, Roth and Su 2022, Cor. 3.3), then discretised once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from .._precision import iv_context, raw_to_fraction
from .._rounding import ceil_fraction, floor_fraction
from .._validation import Interval, check_scalar, parameter_error

__all__ = ["RandomizedResponse", "Laplace", "DiscreteLaplace", "Gaussian", "DiscreteGaussian",
           "Enclosure", "privacy_profile_delta", "privacy_profile_epsilon"]

_POS = Interval(float, 0, None, closed="neither")
_NONNEG = Interval(float, 0, None, closed="left")
_DELTA_OPEN = Interval(float, 0, 1, closed="neither")
_COUNT = Interval(int, 1, None)
_INT_SENS = Interval(int, 1, None)
_STEP = Interval(float, 1e-6, 1.0, closed="both")
_U = 2.0 ** -53
_TINY = 2.0 ** -1074
_FLOOR = 1e-290         # values below this are enclosed in [0, 2 * _FLOOR]
_TAIL = 1e-60           # mass a truncation may move or drop per composition step
_Z = 36.0               # Gaussian tails beyond 36 standard deviations are bounded, not discretised
_DPS = 30


class Enclosure(NamedTuple):
    """An interval ``[lower, upper]`` of doubles containing an exact value; ``upper`` is the guarantee."""

    lower: float
    upper: float

    @property
    def width(self) -> float:
        return self.upper - self.lower


@dataclass(frozen=True)
class RandomizedResponse:
    """Randomized response with parameter epsilon: the worst case of every epsilon-DP mechanism.

    Its PLD has mass ``e**eps / (1 + e**eps)`` at ``eps`` and the rest at
    ``-eps`` (Kairouz, Oh and Viswanath 2015, Thm. 3.3).
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_scalar(self.epsilon, "epsilon", "RandomizedResponse", _POS))


@dataclass(frozen=True)
class Laplace:
    """Laplace noise of scale ``scale`` added to a query of L1 sensitivity ``sensitivity``."""

    scale: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", check_scalar(self.scale, "scale", "Laplace", _POS))
        object.__setattr__(self, "sensitivity",
                           check_scalar(self.sensitivity, "sensitivity", "Laplace", _POS))


@dataclass(frozen=True)
class DiscreteLaplace:
    """Discrete Laplace noise ``P(x) ~ exp(-|x| / scale)`` on the integers, integer sensitivity."""

    scale: float
    sensitivity: int = 1

    def __post_init__(self):
        object.__setattr__(self, "scale", check_scalar(self.scale, "scale", "DiscreteLaplace", _POS))
        object.__setattr__(self, "sensitivity",
                           check_scalar(self.sensitivity, "sensitivity", "DiscreteLaplace", _INT_SENS))


@dataclass(frozen=True)
class Gaussian:
    """Gaussian noise of standard deviation ``sigma`` added to a query of L2 sensitivity ``sensitivity``."""

    sigma: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_scalar(self.sigma, "sigma", "Gaussian", _POS))
        object.__setattr__(self, "sensitivity",
                           check_scalar(self.sensitivity, "sensitivity", "Gaussian", _POS))


@dataclass(frozen=True)
class DiscreteGaussian:
    """Discrete Gaussian ``P(x) ~ exp(-x**2 / (2 sigma**2))`` on the integers, integer sensitivity."""

    sigma: float
    sensitivity: int = 1

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_scalar(self.sigma, "sigma", "DiscreteGaussian", _POS))
        object.__setattr__(self, "sensitivity",
                           check_scalar(self.sensitivity, "sensitivity", "DiscreteGaussian", _INT_SENS))


_KINDS = (RandomizedResponse, Laplace, DiscreteLaplace, Gaussian, DiscreteGaussian)


# --------------------------------------------------------------- doubles --

def _up(x):
    return np.nextafter(x, np.inf)


def _down(x):
    return np.maximum(np.nextafter(x, -np.inf), 0.0)


def _lo(x) -> Fraction:
    return raw_to_fraction(x._mpi_[0])


def _hi(x) -> Fraction:
    return raw_to_fraction(x._mpi_[1])


def _float_box(x):
    """Doubles ``(a, b)`` with ``a <= x <= b`` for an interval ``x``."""
    return floor_fraction(_lo(x)), ceil_fraction(_hi(x))


def _geometric(seed, ratio, n: int):
    """Doubles enclosing ``seed * ratio**i`` (i < n) for positive intervals ``seed``, ``ratio``.

    ``np.cumprod`` rounds each of its ``i`` products to nearest, a relative
    error of at most ``(1 + u)**i - 1 <= 1.01 i u``; the bound is applied with
    outward rounding. Values below ``_FLOOR`` are enclosed in ``[0, 2 _FLOOR]``
    (no relative bound survives underflow).
    """
    s_lo, s_hi = _float_box(seed)
    r_lo, r_hi = _float_box(ratio)
    out = []
    for s, r, side in ((s_lo, r_lo, -1), (s_hi, r_hi, 1)):
        a = np.full(n, r)
        a[0] = s
        with np.errstate(over="ignore", under="ignore"):
            c = np.cumprod(a)
        g = 1.01 * (np.arange(n) + 2) * _U
        c = _up(c * (1 + g)) if side > 0 else _down(c * (1 - g))
        out.append(c)
    lo, hi = out
    small = hi < _FLOOR
    lo[small] = 0.0
    hi[small] = 2 * _FLOOR
    if not np.all(np.isfinite(hi)):
        raise ArithmeticError("a privacy-loss mass overflowed; use a coarser grid_step")
    return lo, hi


def _sum_up(x) -> float:
    """A double >= the exact sum of the non-negative array ``x``."""
    n = x.size
    if n == 0:
        return 0.0
    return float(_up(float(np.sum(x)) * (1 + 1.01 * (n + 1) * _U) + n * _TINY))


def _sum_down(x) -> float:
    n = x.size
    if n == 0:
        return 0.0
    return max(0.0, float(_down(float(np.sum(x)) * (1 - 1.01 * (n + 1) * _U) - n * _TINY)))


# ------------------------------------------------------------------ PLDs --

class _Pld:
    """Masses ``m[i]`` at losses ``(start + i) * h`` plus a mass at +inf (upper PLD) or none (lower)."""

    __slots__ = ("start", "m", "inf")

    def __init__(self, start: int, m, inf: float = 0.0):
        self.start, self.m, self.inf = int(start), np.asarray(m, dtype=np.float64), float(inf)


def _atoms(losses, masses, iv, h: Fraction):
    """Pessimistic and optimistic PLDs of finitely many atoms (loss Fractions, mass intervals)."""
    up = [math.ceil(l / h) for l in losses]
    dn = [math.floor(l / h) for l in losses]
    res = []
    for idx, pick in ((up, 1), (dn, 0)):
        start = min(idx)
        arr = np.zeros(max(idx) - start + 1)
        for i, m in zip(idx, masses):
            lo, hi = _float_box(m)
            arr[i - start] = float(_up(arr[i - start] + hi)) if pick else float(_down(arr[i - start] + lo))
        res.append(_Pld(start, arr))
    return res


def _rr(mech, h, iv):
    e = iv.mpf(mech.epsilon)
    p = iv.exp(e) / (1 + iv.exp(e))
    fe = Fraction(mech.epsilon)
    return _atoms([fe, -fe], [p, 1 - p], iv, h)


def _discrete_laplace(mech, h, iv):
    # P(x) = (1 - r)/(1 + r) r^|x|, r = e^(-1/t); L(x) = (|x - D| - |x|)/t
    t, d = mech.scale, mech.sensitivity
    r = iv.exp(-1 / iv.mpf(t))
    c = (1 - r) / (1 + r)
    ft = Fraction(t)
    losses = [Fraction(d) / ft] + [Fraction(d - 2 * x) / ft for x in range(1, d)] + [-Fraction(d) / ft]
    masses = [1 / (1 + r)] + [c * r ** x for x in range(1, d)] + [r ** d / (1 + r)]
    return _atoms(losses, masses, iv, h)


def _laplace(mech, h, iv, hf):
    # L in [-a, a], a = D/b: atom 1/2 at a, atom e^-a/2 at -a, CDF e^{-(a - l)/2}/2 in between
    a = Fraction(mech.sensitivity) / Fraction(mech.scale)
    A = iv.mpf(mech.sensitivity) / iv.mpf(mech.scale)
    pts = [-a] + [i * h for i in range(math.floor(-a / h) + 1, math.ceil(a / h))] + [a]
    segs = len(pts) - 1
    up_start, dn_start = math.ceil(-a / h), math.floor(-a / h)
    up_end = math.ceil(a / h)
    pess = np.zeros(up_end - up_start + 1)
    opt = np.zeros(up_end - dn_start + 1)
    # interior segments [i h, (i+1) h] have masses e^{-a/2} e^{i h / 2}(e^{h/2} - 1)/2: geometric
    if segs > 2:
        i1 = math.floor(-a / h) + 1
        H = iv.mpf(hf)
        seed = iv.exp(-A / 2 + i1 * H / 2) * (iv.exp(H / 2) - 1) / 2
        lo, hi = _geometric(seed, iv.exp(H / 2), segs - 2)
        # pessimistic: right end (i+1) h; optimistic: left end i h
        pess[i1 + 1 - up_start: i1 + 1 - up_start + segs - 2] += hi
        opt[i1 - dn_start: i1 - dn_start + segs - 2] += lo
    ends = [(0, pts[0], pts[1])] + ([(segs - 1, pts[-2], pts[-1])] if segs > 1 else [])
    for _, x0, x1 in ends:
        m = (iv.exp(-(A - iv.mpf(x1.numerator) / x1.denominator) / 2)
             - iv.exp(-(A - iv.mpf(x0.numerator) / x0.denominator) / 2)) / 2
        lo, hi = _float_box(m)
        j = math.ceil(x1 / h) - up_start
        pess[j] = float(_up(pess[j] + hi))
        j = math.floor(x0 / h) - dn_start
        opt[j] = float(_down(opt[j] + max(lo, 0.0)))
    for loss, m in ((a, iv.mpf(0.5)), (-a, iv.exp(-A) / 2)):
        lo, hi = _float_box(m)
        j = math.ceil(loss / h) - up_start
        pess[j] = float(_up(pess[j] + hi))
        j = math.floor(loss / h) - dn_start
        opt[j] = float(_down(opt[j] + lo))
    return _Pld(up_start, pess), _Pld(dn_start, opt)


def _gaussian(mu2: Fraction, h: Fraction, iv, hf):
    """PLD of N(mu^2/2, mu^2) on the grid: bin masses between d min(phi) and d max(phi)."""
    mu = iv.sqrt(iv.mpf(mu2.numerator) / mu2.denominator)
    fmu = math.sqrt(float(mu2))
    mean = float(mu2) / 2
    i0 = math.floor((mean - _Z * fmu) / float(h))
    i1 = math.ceil((mean + _Z * fmu) / float(h))
    n = i1 - i0 + 1                              # grid points i0..i1
    H = iv.mpf(hf)
    d = H / mu
    z0 = (i0 * H - mu * mu / 2) / mu
    inv = 1 / iv.sqrt(2 * iv.pi)
    # phi(z0 + i d) = phi(z0) * prod_{j<i} e^{-(z0 + j d) d - d^2/2}: a product of a geometric sequence
    f0 = iv.exp(-z0 * d - d * d / 2)
    rho = iv.exp(-d * d)
    flo, fhi = _geometric(f0, rho, n - 1)
    p0lo, p0hi = _float_box(iv.exp(-z0 * z0 / 2) * inv)
    phis = []
    for p0, f, side in ((p0lo, flo, -1), (p0hi, fhi, 1)):
        a = np.concatenate(([p0], f))
        with np.errstate(over="ignore", under="ignore"):
            c = np.cumprod(a)
        g = 1.01 * (np.arange(n) + 2) * _U
        phis.append(_up(c * (1 + g)) if side > 0 else _down(c * (1 - g)))
    plo, phi = phis
    small = phi < _FLOOR
    plo[small], phi[small] = 0.0, 2 * _FLOOR
    dlo, dhi = _float_box(d)
    # bin j between grid points j and j+1; the bin holding the mode gets phi(0) as its max
    zf = (np.arange(n) * float(hf) + i0 * float(hf) - mean) / fmu
    top = np.maximum(phi[:-1], phi[1:])
    mode_bins = (zf[:-1] <= 1e-9) & (zf[1:] >= -1e-9)
    top[mode_bins] = ceil_fraction(_hi(inv))
    m_hi = _up(dhi * top)
    m_lo = _down(dlo * np.minimum(plo[:-1], plo[1:]))      # phi is unimodal: min at an end
    # tails beyond |z| >= 36: Phi(-z) <= phi(z)/z <= phi(z)/30 (Mills' ratio)
    pess = np.zeros(n)
    pess[1:] = m_hi
    pess[1] = float(_up(pess[1] + _up(phi[0] / 30.0)))   # lower tail moved up to the first bin
    opt = np.zeros(n)
    opt[:-1] = m_lo
    return _Pld(i0, pess, float(_up(phi[-1] / 30.0))), _Pld(i0, opt)


def _discrete_gaussian(mech, h, iv, hf):
    # P(x) = e^{-x^2/(2 s^2)}/Z; L(x) = (D^2 - 2 x D)/(2 s^2); |x| <= N, tails bounded
    s, d = mech.sigma, mech.sensitivity
    N = max(1, int(math.floor((_Z - 1) * s)))     # e^{-N^2/(2 s^2)} >= e^{-613}: no underflow
    S2 = 2 * iv.mpf(s) ** 2
    x = -N
    seed = iv.exp(-iv.mpf(x) ** 2 / S2)
    f0 = iv.exp(-(2 * iv.mpf(x) + 1) / S2)
    rho = iv.exp(-2 / S2)
    flo, fhi = _geometric(f0, rho, 2 * N)
    s_lo, s_hi = _float_box(seed)
    ws = []
    for p0, f, side in ((s_lo, flo, -1), (s_hi, fhi, 1)):
        c = np.cumprod(np.concatenate(([p0], f)))
        g = 1.01 * (np.arange(2 * N + 1) + 2) * _U
        ws.append(_up(c * (1 + g)) if side > 0 else _down(c * (1 - g)))
    w_lo, w_hi = ws
    # tail beyond |x| > N: sum_{x > N} e^{-x^2/S2} <= e^{-(N+1)^2/S2} / (1 - e^{-(2N+3)/S2})
    t = iv.exp(-iv.mpf(N + 1) ** 2 / S2) / (1 - iv.exp(-(2 * iv.mpf(N) + 3) / S2))
    t_hi = ceil_fraction(_hi(t))
    z_lo = _sum_down(w_lo)
    z_hi = float(_up(_sum_up(w_hi) + 2 * t_hi))
    p_hi = _up(w_hi / z_lo)
    p_lo = _down(w_lo / z_hi)
    xs = np.arange(-N, N + 1)
    fs = Fraction(s) ** 2 * 2
    loss = [Fraction(d * d - 2 * int(xx) * d) / fs for xx in xs]
    up = np.array([math.ceil(l / h) for l in loss])
    dn = np.array([math.floor(l / h) for l in loss])
    res = []
    for idx, m, pick in ((up, p_hi, 1), (dn, p_lo, 0)):
        start = int(idx.min())
        arr = np.zeros(int(idx.max()) - start + 1)
        np.add.at(arr, idx - start, m)
        # a grid point holding c atoms is a sum of c non-negative doubles: relative error <= 1.01 c u
        cnt = np.bincount(idx - start, minlength=arr.size)
        if pick:
            arr = _up(arr * (1 + 1.01 * (cnt + 1) * _U))
        else:
            arr = _down(arr * (1 - 1.01 * (cnt + 1) * _U))
        res.append(arr)
    # the truncated tails: x < -N has the largest losses (-> +inf), x > N the smallest
    tail_hi = float(_up(t_hi / z_lo))
    pess = _Pld(int(up.min()), res[0], tail_hi)
    pess.m[0] = float(_up(pess.m[0] + tail_hi))
    return pess, _Pld(int(dn.min()), res[1])


# ------------------------------------------------------------ composition --

def _conv(a: _Pld, b: _Pld, upper: bool) -> _Pld:
    c = np.convolve(a.m, b.m)
    n = min(a.m.size, b.m.size)
    g = 1.01 * (n + 1) * _U
    if upper:
        c = _up(c * (1 + g) + n * _TINY)
        inf = float(_up(a.inf + b.inf))
        out = _Pld(a.start + b.start, c, inf)
    else:
        c = _down(c * (1 - g) - n * _TINY)
        out = _Pld(a.start + b.start, c)
    return _truncate(out, upper)


def _truncate(p: _Pld, upper: bool) -> _Pld:
    """Drop (lower PLD) or move (upper PLD) the outer masses whose sums are below ``_TAIL``."""
    m = p.m
    if m.size < 64:
        return p
    cs = np.cumsum(m)
    lo_cut = int(np.searchsorted(cs, _TAIL, side="right"))          # m[:lo_cut] sums to <= _TAIL
    rs = np.cumsum(m[::-1])
    hi_cut = m.size - int(np.searchsorted(rs, _TAIL, side="right"))  # m[hi_cut:] likewise
    lo_cut = min(lo_cut, m.size - 1)
    hi_cut = max(hi_cut, lo_cut + 1)
    if upper:
        below = _sum_up(m[:lo_cut])
        above = _sum_up(m[hi_cut:])
        core = m[lo_cut:hi_cut].copy()
        core[0] = float(_up(core[0] + below))                       # losses moved up: valid
        return _Pld(p.start + lo_cut, core, float(_up(p.inf + above)))  # to +inf: valid
    return _Pld(p.start + lo_cut, m[lo_cut:hi_cut].copy())


def _power(p: _Pld, n: int, upper: bool) -> _Pld:
    result = None
    base = p
    while n:
        if n & 1:
            result = base if result is None else _conv(result, base, upper)
        n >>= 1
        if n:
            base = _conv(base, base, upper)
    return result


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
            mech, count = it[0], check_scalar(it[1], "count", owner, _COUNT)
        else:
            raise parameter_error("mechanisms", owner,
                                  "a list of mechanisms or (mechanism, count) pairs", it)
        groups[mech] = groups.get(mech, 0) + count
    if not groups:
        raise parameter_error("mechanisms", owner, "a non-empty list of mechanisms", items)
    return groups


def _composed(groups, grid_step: float):
    """Pessimistic and optimistic PLDs of the composition."""
    iv = iv_context(_DPS)
    h = Fraction(grid_step)
    mu2 = Fraction(0)
    parts = []
    for mech, count in groups.items():
        if isinstance(mech, Gaussian):
            mu2 += count * (Fraction(mech.sensitivity) / Fraction(mech.sigma)) ** 2
            continue
        if isinstance(mech, RandomizedResponse):
            pair = _rr(mech, h, iv)
        elif isinstance(mech, Laplace):
            pair = _laplace(mech, h, iv, grid_step)
        elif isinstance(mech, DiscreteLaplace):
            pair = _discrete_laplace(mech, h, iv)
        else:
            pair = _discrete_gaussian(mech, h, iv, grid_step)
        parts.append((pair, count))
    if mu2 > 0:
        parts.append((_gaussian(mu2, h, iv, grid_step), 1))
    upper = lower = None
    for (pess, opt), count in parts:
        pu, pl = _power(pess, count, True), _power(opt, count, False)
        upper = pu if upper is None else _conv(upper, pu, True)
        lower = pl if lower is None else _conv(lower, pl, False)
    return upper, lower, iv, h


def _delta_at(p: _Pld, epsilon: float, iv, h: Fraction, hf: float, upper: bool) -> float:
    """Bound of ``sum_i m_i (1 - e^{eps - L_i})_+ (+ inf mass)`` in the direction of ``upper``."""
    fe = Fraction(epsilon)
    first = max(0, math.floor(fe / h) + 1 - p.start)          # L_i = (start + i) h > eps
    m = p.m[first:]
    if m.size == 0:
        return p.inf if upper else 0.0
    i = p.start + first
    x = iv.mpf(epsilon) - i * iv.mpf(hf)
    lo, hi = _geometric(iv.exp(x), iv.exp(-iv.mpf(hf)), m.size)   # e^{eps - L_i} in (0, 1)
    if upper:
        w = _up(1.0 - lo)
        return min(1.0, float(_up(_sum_up(_up(m * w)) + p.inf)))
    w = _down(1.0 - hi)
    return _sum_down(_down(m * w))


# ----------------------------------------------------------------- public --

def privacy_profile_delta(mechanisms, epsilon, grid_step=1e-3):
    """Enclosure of the exact delta(epsilon) of a composition of mechanisms.

    ``delta(epsilon) = E_P[(1 - e**(epsilon - L))_+]`` for the privacy loss
    ``L`` of the composition (its hockey-stick divergence, Balle, Barthe and
    Gaboardi 2018, Thm. 1), computed from a pessimistic and an optimistic
    privacy-loss distribution on the grid ``i * grid_step``
    (``docs/theory/privacy_profiles.rst``).

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
        Instances of :class:`RandomizedResponse`, :class:`Laplace`,
        :class:`DiscreteLaplace`, :class:`Gaussian`,
        :class:`DiscreteGaussian`; equal mechanisms are grouped.
    epsilon : float in [0, inf)
    grid_step : float in [1e-6, 1], default 1e-3
        Spacing of the loss grid (a smaller step narrows the enclosure and
        costs more).

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
    """
    owner = "privacy_profile_delta"
    groups = _normalise(mechanisms, owner)
    epsilon = check_scalar(epsilon, "epsilon", owner, _NONNEG)
    grid_step = check_scalar(grid_step, "grid_step", owner, _STEP)
    upper, lower, iv, h = _composed(groups, grid_step)
    return Enclosure(_delta_at(lower, epsilon, iv, h, grid_step, False),
                     _delta_at(upper, epsilon, iv, h, grid_step, True))


def privacy_profile_epsilon(mechanisms, delta, grid_step=1e-3, rtol=1e-12):
    """Enclosure of the least epsilon >= 0 with delta(epsilon) <= delta for a composition.

    ``upper`` is a float with ``delta_upper(upper) <= delta`` (so the
    composition is ``(upper, delta)``-DP); ``lower`` is a float with
    ``delta_lower(lower) > delta`` (so no smaller epsilon than it is valid),
    or 0. Both are found by bisection on the monotone bounds of
    :func:`privacy_profile_delta`.

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
    delta : float in (0, 1)
    grid_step : float in [1e-6, 1], default 1e-3
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
    owner = "privacy_profile_epsilon"
    groups = _normalise(mechanisms, owner)
    delta = check_scalar(delta, "delta", owner, _DELTA_OPEN)
    grid_step = check_scalar(grid_step, "grid_step", owner, _STEP)
    upper, lower, iv, h = _composed(groups, grid_step)
    if upper.inf >= delta:
        hi_eps = math.inf
    else:
        hi_eps = _bisect(lambda e: _delta_at(upper, e, iv, h, grid_step, True) <= delta,
                         (upper.start + upper.m.size) * grid_step, rtol)[1]
    # the exact epsilon exceeds every e with delta_lower(e) > delta
    lo_eps = _bisect(lambda e: not _delta_at(lower, e, iv, h, grid_step, False) > delta,
                     (lower.start + lower.m.size) * grid_step, rtol)[0]
    return Enclosure(lo_eps, hi_eps)


def _bisect(ok, top: float, rtol: float) -> float:
    """``(a, b)``: ``ok(b)``, ``not ok(a)`` (or ``a = b = 0``), ``b - a <= rtol b``; ok monotone."""
    if ok(0.0):
        return 0.0, 0.0
    a, b = 0.0, max(top, 1e-300)
    while not ok(b):
        b *= 2
    while b - a > rtol * b and math.nextafter(a, math.inf) < b:
        c = (a + b) / 2
        if ok(c):
            b = c
        else:
            a = c
    return a, b
