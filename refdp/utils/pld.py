"""Privacy-loss distributions on a loss grid with certified mass bounds.

The arithmetic shared by the certified privacy profiles
(:mod:`refdp.accounting.profiles`), the exact-delta check of the PATE 2017
analysis (:mod:`refdp.accounting.pate2017`) and the exact delta of PATE's
data-dependent analysis (:mod:`refdp.pate.exact_delta`).

A :class:`Pld` holds doubles ``m[i]`` bounding (from above for an *upper*
PLD, from below for a *lower* one) the masses at losses ``(start + i) h``,
plus, for an upper PLD, a mass at ``+inf``. Composition is convolution:
directly (:func:`convolve_direct`, each entry's rounding bounded a priori)
or, for large steps, by the radix-2 FFT of :mod:`refdp.utils.fftconv` with
its entrywise error bound, also on exponentially tilted arrays
(:func:`convolve`). ``delta(epsilon) = sum_i m_i (1 - e**(epsilon - L_i))_+``
is bounded per query (:func:`delta_at`) or, for many queries on one large
PLD, from certified suffix sums (:class:`DeltaTable`). Every bound is
rounded toward safety; the proofs are in ``docs/theory/privacy_profiles.rst``
(sections 2 and 3).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from mpmath import libmp

from .fftconv import (convolve_bounds, convolve_bounds_pair, pair_length, pair_spectrum,
                      power_bounds_pair)
from .precision import raw_to_fraction
from .rounding import UNIT_ROUNDOFF as _U, _ceil_raw, ceil_fraction, floor_fraction

__all__ = ["TINY", "FLOOR", "TAIL", "DIRECT_MAX", "up", "down", "interval_lo", "interval_hi", "float_box",
           "geometric", "sum_up", "sum_down", "Pld", "pld_atoms", "convolve_direct", "convolve",
           "power", "power_direct", "power_spectral", "tail_bounds", "SPECTRAL_M", "truncate", "Tilt",
           "fraction_interval", "delta_at", "DeltaTable", "suffix_sums"]

TINY = 2.0 ** -1074
FLOOR = 1e-290          # values below this are enclosed in [0, 2 * FLOOR]
TAIL = 1e-60            # default mass a truncation may move or drop per composition step


# --------------------------------------------------------------- doubles --

def up(x):
    return np.nextafter(x, np.inf)


def down(x):
    return np.maximum(np.nextafter(x, -np.inf), 0.0)


def interval_lo(x) -> Fraction:
    return raw_to_fraction(x._mpi_[0])


def interval_hi(x) -> Fraction:
    return raw_to_fraction(x._mpi_[1])


def float_box(x):
    """Doubles ``(a, b)`` with ``a <= x <= b`` for an interval ``x`` (the nearest such doubles).

    Endpoints of normal magnitude are rounded outward from their raw mantissa
    and exponent (the exact rounding of
    :func:`refdp.utils.rounding.ceil_interval`); others take the rational
    route (which refuses infinite endpoints).
    """
    a, b = x._mpi_
    if _normal(a) and _normal(b):
        return -_ceil_raw(libmp.mpf_neg(a)), _ceil_raw(b)
    return floor_fraction(interval_lo(x)), ceil_fraction(interval_hi(x))


def _normal(raw) -> bool:
    """True for 0 and for finite raw mpf tuples of magnitude in [2**-1001, 2**1000)."""
    sign, man, exp, bc = raw
    return (not man and not exp) or (bool(man) and -1000 <= exp + bc <= 1000)


def geometric(seed, ratio, n: int, upper_only: bool = False):
    """Doubles enclosing ``seed * ratio**i`` (i < n) for positive intervals ``seed``, ``ratio``.

    ``np.cumprod`` rounds each of its ``i`` products to nearest, a relative
    error of at most ``(1 + u)**i - 1 <= 1.01 i u``; the bound is applied with
    outward rounding. Values below ``FLOOR`` are enclosed in ``[0, 2 FLOOR]``
    (no relative bound survives underflow).

    A growing sequence (``ratio > 1``) whose seed is below the normal range
    would stay stuck among the subnormals, where products lose their relative
    accuracy, while the exact values grow out of it. Its terms are therefore
    split at ``k = ln(FLOOR / seed) / ln(ratio)``, enclosed in intervals: the
    terms before ``k`` are below ``FLOOR``, the one or two around ``k`` are
    enclosed one by one, and the rest restart from the interval seed
    ``seed * ratio**ceil(k) >= FLOOR``.

    ``upper_only`` computes the upper sequence only (the lower one is
    returned as None); the upper one is the same as when both are computed.
    """
    s_lo, s_hi = float_box(seed)
    r_lo, r_hi = float_box(ratio)
    if n > 1 and r_lo > 1.0 and s_hi < 2.0 ** -1022:
        return _geometric_from_subnormal(seed, ratio, n)
    out = []
    g = 1.01 * (np.arange(n) + 2) * _U
    for s, r, side in ((s_lo, r_lo, -1), (s_hi, r_hi, 1)):
        if upper_only and side < 0:
            out.append(None)
            continue
        a = np.full(n, r)
        a[0] = s
        with np.errstate(over="ignore", under="ignore"):
            c = np.cumprod(a)
        c = up(c * (1 + g)) if side > 0 else down(c * (1 - g))
        out.append(c)
    lo, hi = out
    small = hi < FLOOR
    if lo is not None:
        lo[small] = 0.0
    hi[small] = 2 * FLOOR
    if not np.all(np.isfinite(hi)):
        raise ArithmeticError("a privacy-loss mass overflowed; use a coarser grid_step")
    return lo, hi


def _geometric_from_subnormal(seed, ratio, n: int):
    """:func:`geometric` for ``ratio > 1`` and a seed below the normal doubles (its docstring)."""
    ctx = seed.ctx
    k = (ctx.log(ctx.mpf(FLOOR)) - ctx.log(seed)) / ctx.log(ratio)
    j_small = max(0, min(n, math.floor(interval_lo(k))))        # j < j_small: seed ratio**j < FLOOR
    j_big = max(j_small, min(n, math.ceil(interval_hi(k))))     # j >= j_big: seed ratio**j >= FLOOR
    lo = np.zeros(n)
    hi = np.full(n, 2 * FLOOR)
    for j in range(j_small, j_big):
        lo[j], hi[j] = float_box(seed * ratio ** j)
    if j_big < n:
        lo[j_big:], hi[j_big:] = geometric(seed * ratio ** j_big, ratio, n - j_big)
    small = hi < FLOOR
    lo[small] = 0.0
    hi[small] = 2 * FLOOR
    return lo, hi


def sum_up(x) -> float:
    """A double >= the exact sum of the non-negative array ``x``."""
    n = x.size
    if n == 0:
        return 0.0
    return float(up(float(np.sum(x)) * (1 + 1.01 * (n + 1) * _U) + n * TINY))


def sum_down(x) -> float:
    n = x.size
    if n == 0:
        return 0.0
    return max(0.0, float(down(float(np.sum(x)) * (1 - 1.01 * (n + 1) * _U) - n * TINY)))


# ------------------------------------------------------------------ PLDs --

class Pld:
    """Masses ``m[i]`` at losses ``(start + i) * h`` plus a mass at +inf (upper PLD) or none (lower)."""

    __slots__ = ("start", "m", "inf")

    def __init__(self, start: int, m, inf: float = 0.0):
        self.start, self.m, self.inf = int(start), np.asarray(m, dtype=np.float64), float(inf)


def pld_atoms(losses, masses, iv, h: Fraction):
    """Pessimistic and optimistic PLDs of finitely many atoms (loss Fractions, mass intervals)."""
    ceil_idx = [math.ceil(l / h) for l in losses]
    floor_idx = [math.floor(l / h) for l in losses]
    res = []
    for idx, pick in ((ceil_idx, 1), (floor_idx, 0)):
        start = min(idx)
        arr = np.zeros(max(idx) - start + 1)
        for i, m in zip(idx, masses):
            lo, hi = float_box(m)
            arr[i - start] = float(up(arr[i - start] + hi)) if pick else float(down(arr[i - start] + lo))
        res.append(Pld(start, arr))
    return res


# ------------------------------------------------------------ composition --

def convolve_direct(a: Pld, b: Pld, upper: bool, tail: float = TAIL) -> Pld:
    c = np.convolve(a.m, b.m)
    n = min(a.m.size, b.m.size)
    g = 1.01 * (n + 1) * _U
    if upper:
        c = up(c * (1 + g) + n * TINY)
        inf = float(up(a.inf + b.inf))
        out = Pld(a.start + b.start, c, inf)
    else:
        c = down(c * (1 - g) - n * TINY)
        out = Pld(a.start + b.start, c)
    return truncate(out, upper, tail=tail)


DIRECT_MAX = 20_000_000     # above this many products (about 0.2 s direct) a step uses the certified FFT


class Tilt:
    """An exponential tilt ``e**(lam x)`` applied before FFT steps (``lam = 0``: none)."""

    def __init__(self, lam: float, h: Fraction, iv):
        self.lam, self.iv = float(lam), iv
        self.step = iv.mpf(self.lam) * fraction_interval(iv, h)        # lam h, an interval
        self.fstep = float(self.lam * float(h))


def tilt_weights(t: Tilt, n: int, pivot: int, upper: bool):
    """Doubles above (``upper``) or below ``e**(lam h (i - pivot))``, i < n."""
    iv = t.iv
    lo, hi = geometric(iv.exp(-pivot * t.step), iv.exp(t.step), n, upper_only=upper)
    return hi if upper else lo


def untilt(t: Tilt, n: int, pivot: int, first: int = 0, upper_only: bool = False):
    """Enclosures of ``e**(-lam h (k - pivot))`` for k < n; entries that would overflow, or below ``first``, are ``inf``.

    ``upper_only``: the upper ends only (the lower ones are returned as None).
    """
    iv = t.iv
    expo = t.fstep * (pivot - np.arange(n))
    lo = None if upper_only else np.full(n, np.inf)
    hi = np.full(n, np.inf)
    ok = np.nonzero(expo <= 600.0)[0]
    if ok.size:
        k0 = max(int(ok[0]), first)
        if k0 >= n:
            return lo, hi
        a, b = geometric(iv.exp((pivot - k0) * t.step), iv.exp(-t.step), n - k0, upper_only=upper_only)
        hi[k0:] = b
        if lo is not None:
            lo[k0:] = a
    return lo, hi


def _balance(x, t) -> tuple[int, int]:
    """Exponents ``(ex, et) >= 0``, one of them 0, making ``2**ex x`` and ``2**et t`` of similar 2-norm.

    Scaling by a power of two is exact (no overflow: both arrays are at most
    about 1 and the larger norm is at most ``sqrt(n)`` times the maximum); it
    only balances the paired transform's common error bound.
    """
    nx = float(np.sqrt(np.sum(x * x)))
    nt = float(np.sqrt(np.sum(t * t)))
    if not (nx > 0 and nt > 0 and math.isfinite(nx) and math.isfinite(nt)):
        return 0, 0
    e = int(round(math.log2(nt / nx)))
    e = max(-900, min(900, e))
    return (e, 0) if e >= 0 else (0, -e)


def _tilted(p: Pld, tilt: Tilt, upper: bool, cache):
    """``(ta, pivot, x, y, A, TA)`` of one operand of a tilted FFT step, or None (no tilt possible).

    ``ta`` is the tilted array (upper: ``ta >= a_i w_i (1 - u)``; lower:
    ``ta <= a_i w_i (1 + u)``), ``A = 2**x a`` and ``TA = 2**y ta`` the
    operands of the paired transform (:func:`_balance`). A pure function of
    the operand, so ``cache`` (a dict, or None) may keep it for the operand's
    next step.
    """
    key = ("tilted", id(p))
    if cache is not None and key in cache:
        return cache[key][1]
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        pivot = int(np.argmax(np.log(p.m) + tilt.fstep * np.arange(p.m.size)))
        try:
            w = tilt_weights(tilt, p.m.size, pivot, upper)
        except ArithmeticError:         # e**(lam x) overflows over this support: no tilt
            w = None
        out = None
        if w is not None:
            ta = p.m * w
            if np.all(np.isfinite(ta)):
                x, y = _balance(p.m, ta)
                out = (ta, pivot, x, y, np.ldexp(p.m, x), np.ldexp(ta, y))
    if cache is not None:
        cache[key] = (p, out)           # the operand is kept alive with its key
    return out


def _spectrum(p: Pld, prep, n: int, cache):
    """The paired transform of ``(A, TA)`` of ``prep`` at length ``n``, kept in ``cache`` for reuse."""
    key = ("spectrum", id(p), n)
    if cache is not None and key in cache:
        return cache[key][1]
    z = pair_spectrum(prep[4], prep[5], n)
    if cache is not None:
        cache[key] = (p, z)
    return z


def convolve(a: Pld, b: Pld, upper: bool, tilt: Tilt | None = None, tail: float = TAIL, cache=None) -> Pld:
    """:func:`convolve_direct`, or for large arrays the FFT convolution with its entrywise error bound.

    With a tilt, the FFT is also run on ``a_i e**(lam x_i)`` and ``b_j e**(lam x_j)``
    (whose convolution is ``c_k e**(lam x_k)``), which makes its absolute error
    small relative to the upper tail; each entry takes the narrower of the two
    enclosures. The plain and the tilted convolutions share one paired
    transform (:func:`refdp.utils.fftconv.convolve_bounds_pair`), each side
    scaled by an exact power of two so that their norms are alike. ``cache``
    (a dict, or None) keeps each operand's tilted copy and transforms, so that
    an operand used in two steps (:func:`power`) is transformed once per
    length; the results are the same as without it.
    """
    if a.m.size * b.m.size <= DIRECT_MAX or min(a.m.size, b.m.size) < 64:
        return convolve_direct(a, b, upper, tail)
    same = a is b
    tilted = None
    if tilt is not None and tilt.lam > 0:
        prep_a = _tilted(a, tilt, upper, cache)
        prep_b = prep_a if same else _tilted(b, tilt, upper, cache)
        if prep_a is not None and prep_b is not None:
            tilted = (prep_a, prep_b)
    if tilted is None:
        c, err = convolve_bounds(a.m, a.m if same else b.m)
    else:
        (ta, pa, xa, ya, A, TA), (tb, pb, xb, yb, B, TB) = tilted
        n = pair_length(A.size, B.size)
        za = _spectrum(a, tilted[0], n, cache)
        zb = za if same else _spectrum(b, tilted[1], n, cache)
        if same:
            B, TB = A, TA
        cs, cts, e2 = convolve_bounds_pair(A, B, TA, TB, spectra=(za, zb))
        # undo the exact scalings (a result in the subnormal range may round: + 2**-1074)
        c = np.ldexp(cs, -(xa + xb))
        err = math.nextafter(math.ldexp(e2, -(xa + xb)) + TINY, math.inf)
        ct = np.ldexp(cts, -(ya + yb))
        errt = math.nextafter(math.ldexp(e2, -(ya + yb)) + TINY, math.inf)
    hi = up(np.maximum(c, 0.0) + err)
    lo = np.maximum(down(c - err), 0.0)
    if tilted is not None:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            # the tilted enclosure is the narrower one only where its error, errt e**(lam h (pivot - k)),
            # is below the plain one's, err: from about pivot - ln(err / errt) / (lam h) on; below,
            # the plain enclosure is kept (either is valid, so this only saves work)
            ratio = err / errt if errt > 0 else math.inf
            first = 0
            if math.isfinite(ratio) and ratio > 1.0 and tilt.fstep > 0:
                first = max(0, pa + pb - int(math.log(ratio) / tilt.fstep) - 2)
            v_lo, v_hi = untilt(tilt, c.size, pa + pb, first, upper_only=upper)
            if upper:
                t_hi = up(up(np.maximum(ct, 0.0) + errt) * v_hi / ((1 - _U) ** 2 * (1 - 4 * _U)))
                t_hi[~np.isfinite(t_hi)] = np.inf
                hi = np.minimum(hi, t_hi)
            else:
                raw = down(ct - errt) * v_lo / ((1 + _U) ** 2 * (1 + 4 * _U))
                bad = ~np.isfinite(raw)         # checked before rounding down: down(inf) is finite
                t_lo = down(raw)
                t_lo[bad] = 0.0
                lo = np.maximum(lo, np.maximum(t_lo, 0.0))
    if upper:
        out = Pld(a.start + b.start, hi, float(up(a.inf + b.inf)))
        return truncate(out, True, 4.0 * hi.size * err, tail)
    return truncate(Pld(a.start + b.start, lo), False, tail=tail)


def power(p: Pld, n: int, upper: bool, tilt: Tilt | None = None, tail: float = TAIL,
          spectral: int | None = None) -> Pld:
    """``p`` composed with itself ``n`` times (binary powering, and with a tilt a transform power).

    A step ``result * base`` and the squaring ``base * base`` that follows it
    usually have the same transform length, so ``base``'s tilted copy and
    transform are computed once for both (a cache kept for the two current
    operands only).

    With a tilt, when the ``q = n // M``-fold composition (``M = spectral``,
    default :data:`SPECTRAL_M`; 0 disables it) is already large enough for
    FFT steps, the rest is one transform power (:func:`power_spectral`):
    ``p^{*n} = (p^{*q})^{*M} * p^{*r}``, ``r = n - M q``. If the transform
    power declines (its window's tails are not certified small) or the
    truncated q-fold turns out too small for FFT steps, the same
    factorisation is finished by binary powering (as valid; its last digits
    may differ from those of the plain binary power of ``p``).
    """
    M = SPECTRAL_M if spectral is None else int(spectral)
    q, r = divmod(n, M) if M >= 2 else (0, n)
    # the q-fold has at most q (len(p) - 1) + 1 points: below DIRECT_MAX squared, no FFT step follows
    if M >= 2 and tilt is not None and tilt.lam > 0 and n >= 2 * M \
            and (q * (p.m.size - 1) + 1) ** 2 > DIRECT_MAX:
        b = _binary_power(p, q, upper, tilt, tail)
        s = _binary_power(p, r, upper, tilt, tail) if r else None
        out = power_spectral(b, M, s, upper, tilt, tail) if b.m.size ** 2 > DIRECT_MAX else None
        if out is None:             # truncation kept the q-fold small, or the window was declined
            out = _binary_power(b, M, upper, tilt, tail)
            if s is not None:
                out = convolve(out, s, upper, tilt, tail)
        return out
    return _binary_power(p, n, upper, tilt, tail)


def _binary_power(p: Pld, n: int, upper: bool, tilt: Tilt | None, tail: float) -> Pld:
    """``p`` composed with itself ``n >= 1`` times by binary powering (:func:`power`)."""
    result = None
    base = p
    cache: dict = {}
    while n:
        if n & 1:
            result = base if result is None else convolve(result, base, upper, tilt, tail, cache)
        n >>= 1
        if n:
            base = convolve(base, base, upper, tilt, tail, cache)
        live = {id(result), id(base)}
        for key in [key for key, (obj, _) in cache.items() if id(obj) not in live]:
            del cache[key]
    return result


def truncate(p: Pld, upper: bool, floor: float = 0.0, tail: float = TAIL) -> Pld:
    """Drop (lower PLD) or move (upper PLD) the outer masses whose sums are below ``tail``.

    Moving the lower tail of an upper PLD up to the first kept point is valid
    whatever its mass; ``floor`` raises that tail's threshold to the sum of an
    FFT step's absolute error bounds, which would otherwise keep every entry
    (the error bound, not a mass, sits there). Any cut gives valid bounds;
    the thresholds only trade tightness for length.
    """
    m = p.m
    if m.size < 64:
        return p
    cs = np.cumsum(m)
    lo_cut = int(np.searchsorted(cs, max(tail, floor) if upper else tail, side="right"))  # m[:lo_cut] small
    rs = np.cumsum(m[::-1])
    hi_cut = m.size - int(np.searchsorted(rs, tail, side="right"))  # m[hi_cut:] likewise
    lo_cut = min(lo_cut, m.size - 1)
    hi_cut = max(hi_cut, lo_cut + 1)
    if upper:
        below = sum_up(m[:lo_cut])
        above = sum_up(m[hi_cut:])
        core = m[lo_cut:hi_cut].copy()
        core[0] = float(up(core[0] + below))                       # losses moved up: valid
        return Pld(p.start + lo_cut, core, float(up(p.inf + above)))  # to +inf: valid
    return Pld(p.start + lo_cut, m[lo_cut:hi_cut].copy())


def power_direct(p: Pld, n: int, upper: bool) -> Pld:
    result = None
    base = p
    while n:
        if n & 1:
            result = base if result is None else convolve_direct(result, base, upper)
        n >>= 1
        if n:
            base = convolve_direct(base, base, upper)
    return result


#: The transform power of :func:`power`: the last ``SPECTRAL_M``-fold of a tilted binary power
#: is one transform raised to that power (0 would disable it).
SPECTRAL_M = 8

#: Ratios of the Chernoff parameter to its normal-approximation value tried for the window's tails.
_THETA_LADDER = (0.5, 0.71, 1.0, 1.41, 2.0)


def _log_mgf_float(x, theta: float) -> float:
    """A float estimate of ``ln sum_i x_i e**(theta i)`` (no bound; it only places a window)."""
    with np.errstate(divide="ignore", under="ignore", over="ignore"):
        v = np.log(x) + theta * np.arange(x.size)
        top = float(np.max(v))
        if not math.isfinite(top):
            return top
        return top + math.log(float(np.sum(np.exp(v - top))))


def _mgf_log_upper(x, theta: float, iv):
    """An interval containing an upper bound of ``ln sum_i x_i e**(theta i)`` (``theta`` a double), or None.

    The weights are a certified geometric sequence (:func:`geometric`) seeded
    at the float estimate's heaviest term, so that they neither overflow nor
    all underflow; their products and sum are rounded up. None if a weight
    overflows or the sum is 0.
    """
    with np.errstate(divide="ignore", under="ignore", over="ignore"):
        c = int(np.argmax(np.log(x) + theta * np.arange(x.size)))
    t = iv.mpf(theta)
    try:
        _, w = geometric(iv.exp(-c * t), iv.exp(t), x.size, upper_only=True)   # >= e**(theta (i - c))
    except ArithmeticError:
        return None
    with np.errstate(over="ignore"):
        s = sum_up(up(x * w))
    if not (s > 0 and math.isfinite(s)):
        return None
    return iv.log(iv.mpf(s)) + c * t


def tail_bounds(x, m: int, y, lo: int, hi: int, thetas, iv):
    """Upper bounds ``(below, above)`` of the masses of ``x^{*m} * y`` at indices ``< lo`` and ``>= hi``.

    ``x`` and ``y`` (None: the unit impulse) are non-negative double arrays
    indexed from 0, and the composition is exact (of these doubles). Chernoff:
    for ``theta > 0`` the mass at ``t >= hi`` is at most
    ``e**(-theta hi) M_x(theta)**m M_y(theta)`` and the mass at ``t < lo`` at most
    ``e**(theta (lo - 1)) M_x(-theta)**m M_y(-theta)``, ``M`` the generating
    sums; ``thetas = (theta_below, theta_above)`` are doubles > 0 (any choice
    is valid). Evaluated in interval arithmetic and rounded up; 1.0 when no
    bound below 1 is found.
    """
    out = []
    for sign, th in ((-1.0, thetas[0]), (1.0, thetas[1])):
        if sign < 0 and lo <= 0:
            out.append(0.0)
            continue
        lx = _mgf_log_upper(x, sign * th, iv)
        ly = _mgf_log_upper(y, sign * th, iv) if y is not None else iv.mpf(0)
        if lx is None or ly is None:
            out.append(1.0)
            continue
        shift = iv.mpf(th) * (lo - 1) if sign < 0 else -iv.mpf(th) * hi
        e = m * lx + ly + shift
        top = interval_hi(e)
        if top >= 0:
            out.append(1.0)
        elif top < -745:
            out.append(TINY)
        else:
            out.append(min(1.0, float_box(iv.exp(e))[1]))
    return tuple(out)


def _window(x, m: int, y, tail: float):
    """Floats ``(lo, hi, theta_below, theta_above)``: indices holding all but about ``tail`` of ``x^{*m} * y``.

    From a normal approximation (the Chernoff parameter that would be optimal
    for it), refined over :data:`_THETA_LADDER`; it only decides where the
    certified :func:`tail_bounds` are evaluated.
    """
    var = 0.0
    for arr, count in ((x, m), (y, 1)):
        if arr is None:
            continue
        w = arr / float(np.sum(arr))
        i = np.arange(arr.size, dtype=np.float64)
        mean = float(np.sum(w * i))
        var += count * float(np.sum(w * (i - mean) ** 2))
    if not var > 0:
        return None
    lt = math.log(tail)
    base = math.sqrt(-2.0 * lt / var)
    best = []
    for sign in (-1.0, 1.0):
        choice = None
        for f in _THETA_LADDER:
            th = base * f
            k = m * _log_mgf_float(x, sign * th) + (_log_mgf_float(y, sign * th) if y is not None else 0.0)
            if not math.isfinite(k):
                continue
            # above: e**(-th T) e**k <= tail at T >= (k - ln tail) / th; below: T - 1 <= (ln tail - k) / th
            edge = (k - lt) / th if sign > 0 else (lt - k) / th + 1
            if choice is None or (edge < choice[0] if sign > 0 else edge > choice[0]):
                choice = (edge, th)
        if choice is None:
            return None
        best.append(choice)
    (lo, th_lo), (hi, th_hi) = best
    return math.floor(lo), math.ceil(hi), th_lo, th_hi


def power_spectral(b: Pld, m: int, s: Pld | None, upper: bool, tilt: Tilt, tail: float = TAIL):
    """``b^{*m} * s`` (``s`` None: ``b^{*m}``) from one transform power, or None when it declines.

    The plain and the tilted arrays of ``b`` (and of ``s``) are scaled by
    exact powers of two to 1-norms of at most 1 and raised to the ``m``-th
    power in the frequency domain (:func:`refdp.utils.fftconv.power_bounds_pair`)
    at the least length ``n`` (a power of two) that holds a window of indices
    outside which the composition's mass is certified below ``tail`` on each
    side (Chernoff, :func:`tail_bounds`); when the whole composition fits,
    there is no window. The cyclic result folds the mass outside the window
    into it: an upper PLD keeps the folded mass (more mass is valid) and adds
    the mass above the window to +inf (the folding moved it down); a lower
    PLD subtracts the bound of the mass that can land on each entry (the
    tilted enclosure is not used where mass from above lands). Both
    enclosures, plain and tilted, are formed as in :func:`convolve`. Proof:
    ``docs/theory/privacy_profiles.rst``, section 3, powers of a transform.
    """
    iv = tilt.iv
    prep_b = _tilted(b, tilt, upper, None)
    prep_s = _tilted(s, tilt, upper, None) if s is not None else None
    if prep_b is None or (s is not None and prep_s is None):
        return None
    nb = b.m.size
    ns = s.m.size if s is not None else 1
    lin = m * (nb - 1) + ns                         # length of the linear composition
    full = pair_length(lin, 1)
    win = _window(b.m, m, s.m if s is not None else None, tail)
    if win is None:
        return None
    w_lo, w_hi, th_lo, th_hi = win
    w_lo, w_hi = max(0, w_lo), min(lin, w_hi)
    n = 1 << max(1, (max(w_hi - w_lo, nb, ns) - 1).bit_length())
    below = above = 0.0
    if n >= full:
        n, lo = full, 0
    else:
        lo = max(0, min(w_lo - (n - (w_hi - w_lo)) // 2, lin - n))
        below, above = tail_bounds(b.m, m, s.m if s is not None else None, lo, lo + n, (th_lo, th_hi), iv)
        if not (below <= tail and above <= tail):
            return None

    def scale(x):
        # a double c ~ 1 / ||x||_1 and fl(c x): every entry within a factor 1 -+ u of c x
        total = float(np.sum(x))
        c = 1.0 / total if total > 0 else 1.0
        if not (math.isfinite(c) and c > 0):
            c = 1.0
        return c, x * c

    cb, xb = scale(b.m)
    tb_, yb = scale(prep_b[0])
    if s is not None:
        cs_, xs = scale(s.m)
        ts_, ys = scale(prep_s[0])
        pivot = m * prep_b[1] + prep_s[1]
    else:
        cs_ = ts_ = 1.0
        xs = ys = None
        pivot = m * prep_b[1]
    factors = m + (1 if s is not None else 0)
    cs, cts, e2 = power_bounds_pair(xb, yb, m, xs, ys, n)
    # the scaled composition is c_b**m c_s times the unscaled one (each scaled entry within 1 -+ u):
    # K = 1 / (c_b**m c_s) undoes it, in interval arithmetic
    k_lo, k_hi = float_box(1 / (iv.mpf(cb) ** m * iv.mpf(cs_)))
    kt_lo, kt_hi = float_box(1 / (iv.mpf(tb_) ** m * iv.mpf(ts_)))
    c = np.roll(cs, -lo)                            # position j: linear index lo + j
    ct = np.roll(cts, -lo)
    err = e2
    errt = e2
    # entries that mass from above the window (from below it) can land on
    n_above = min(n, max(0, lin - lo - n))
    n_below = min(n, lo)
    sc_up = 1.0 / ((1 - _U) ** factors * (1 - 4 * _U))     # the scalings' roundings, and this product's
    sc_dn = 1.0 / ((1 + _U) ** factors * (1 + 4 * _U))
    with np.errstate(over="ignore", under="ignore"):
        hi = up(up(np.maximum(c, 0.0) + err) * (k_hi * sc_up))
        lo_arr = np.maximum(down(down(c - err) * (k_lo * sc_dn)), 0.0)
    hi[~np.isfinite(hi)] = np.inf
    if not upper:
        if n_above:
            lo_arr[:n_above] = np.maximum(down(lo_arr[:n_above] - above), 0.0)
        if n_below:
            lo_arr[n - n_below:] = np.maximum(down(lo_arr[n - n_below:] - below), 0.0)
    err_real = float(up(err * k_hi * sc_up))          # the plain error in the composition's units
    # the tilted composition is scaled by K = 1 / (t_b**m t_s): the weights e**(-lam h (k - pivot)) K
    # are taken as e**(-lam h (k - pivot')) K', pivot' = pivot + d with K' = K e**(-lam h d) near 1,
    # so that the weights stay in range where the tilted composition has its mass
    d = 0
    if tilt.fstep > 0 and 0 < kt_hi < math.inf:
        d = int(round(math.log(kt_hi) / tilt.fstep))
    if d:
        kt_lo, kt_hi = float_box(1 / (iv.mpf(tb_) ** m * iv.mpf(ts_)) * iv.exp(-d * tilt.step))
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        rel = pivot + d - lo                        # the tilted composition's pivot', as a position
        ratio = (err * k_hi) / (errt * kt_hi) if errt > 0 else math.inf
        first = 0
        if math.isfinite(ratio) and ratio > 1.0 and tilt.fstep > 0:
            first = max(0, rel - int(math.log(ratio) / tilt.fstep) - 2)
        v_lo, v_hi = untilt(tilt, n, rel, first, upper_only=upper)
        # the tilted inputs carry one more rounding each (the tilt's product): sc_up / sc_dn squared
        if upper:
            t_hi = up(up(up(np.maximum(ct, 0.0) + errt) * (kt_hi * sc_up * sc_up)) * v_hi)
            t_hi[~np.isfinite(t_hi)] = np.inf
            hi = np.minimum(hi, t_hi)
        else:
            sub = np.full(n, errt)
            if n_below:
                # scaled tilted mass from below the window: at most
                # (1 + u)**(2 factors) e**(lam h (lo - 1 - pivot)) below / K
                wmax = float_box(iv.exp((lo - 1 - (pivot + d)) * tilt.step))[1]
                at = float(up(up(wmax * below / kt_lo) * (1 + 4 * factors * _U)))
                sub[n - n_below:] = up(sub[n - n_below:] + at)
            raw = down(down(ct - sub) * (kt_lo * sc_dn * sc_dn)) * v_lo
            bad = ~np.isfinite(raw)
            if n_above:
                bad[:n_above] = True                # tilted mass from above the window may land here
            t_lo = down(raw)
            t_lo[bad] = 0.0
            lo_arr = np.maximum(lo_arr, np.maximum(t_lo, 0.0))
    start = m * b.start + (s.start if s is not None else 0) + lo
    if upper:
        inf = float(up(up(m * b.inf) + (s.inf if s is not None else 0.0)))
        inf = float(up(inf + above))
        return truncate(Pld(start, hi, inf), True, 4.0 * hi.size * err_real, tail)
    return truncate(Pld(start, lo_arr), False, tail=tail)



def fraction_interval(iv, q: Fraction):
    return iv.mpf(q.numerator) / q.denominator


def delta_at(p: Pld, epsilon: float, iv, h: Fraction, hf: float, upper: bool) -> float:
    """Bound of ``sum_i m_i (1 - e^{eps - L_i})_+ (+ inf mass)`` in the direction of ``upper``."""
    fe = Fraction(epsilon)
    first = max(0, math.floor(fe / h) + 1 - p.start)          # L_i = (start + i) h > eps
    m = p.m[first:]
    if m.size == 0:
        return p.inf if upper else 0.0
    i = p.start + first
    x = iv.mpf(epsilon) - i * iv.mpf(hf)
    lo, hi = geometric(iv.exp(x), iv.exp(-iv.mpf(hf)), m.size)   # e^{eps - L_i} in (0, 1)
    if upper:
        w = up(1.0 - lo)
        return min(1.0, float(up(sum_up(up(m * w)) + p.inf)))
    w = down(1.0 - hi)
    return sum_down(down(m * w))


_TABLE_BLOCK = 1024


def _decreasing_blocks(seed, ratio, jump, n: int, upper: bool):
    """Doubles above (``upper``) or below ``seed * ratio**i`` (i < n), for ``0 < ratio < 1``, ``seed <= 1``.

    The sequence restarts every ``_TABLE_BLOCK`` points from an interval seed
    (``seed * jump**b``, ``jump = ratio**_TABLE_BLOCK``, interval products:
    their widths stay near the context's precision, far below a double's
    spacing), and all blocks run as one row-wise ``np.cumprod``: each row is
    :func:`geometric` of its seed (the same products, hence the same bound
    ``(1 + u)**i - 1 <= 1.01 i u``). Values below ``FLOOR`` are enclosed in
    ``[0, 2 FLOOR]`` (a decreasing row above ``FLOOR`` never went through the
    subnormals).
    """
    B = _TABLE_BLOCK
    nb = max(1, -(-n // B))
    seeds = np.zeros(nb)
    s = seed
    floor = seed.ctx.mpf(FLOOR)
    for j in range(nb):
        if s.b < floor:             # this block and all later ones lie below FLOOR (no rational route)
            break
        a, b = float_box(s)
        seeds[j] = b if upper else a
        s = s * jump
    r_lo, r_hi = float_box(ratio)
    rows = np.full((nb, B), r_hi if upper else r_lo)
    rows[:, 0] = seeds
    with np.errstate(under="ignore"):
        c = np.cumprod(rows, axis=1)
        g = 1.01 * (np.arange(B) + 2) * _U
        c = (up(c * (1 + g)) if upper else down(c * (1 - g))).reshape(-1)[:n]
    small = c < FLOOR
    c[small] = 2 * FLOOR if upper else 0.0
    return c


def suffix_sums(x):
    """``(s, r)``: the computed suffix sums ``s[j] ~ sum_{i >= j} x_i`` of non-negative doubles, and ``r``.

    Two levels: suffix sums inside blocks of ``B ~ sqrt(n)`` points, plus the
    suffix sums of the block totals, added once. Each computed ``s[j]`` is a
    chain of at most ``r = B + n / B + 1`` roundings of non-negative partial
    sums, so ``|s[j] - S_j| <= gamma_r S_j`` (Higham 2002, Lemma 3.1) plus
    ``n 2**-1074`` for underflow; against ``gamma_n`` for one ``cumsum``.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0:
        return np.zeros(0), 1
    B = max(1, math.isqrt(n))
    nb = -(-n // B)
    pad = np.zeros(nb * B)
    pad[:n] = x
    local = np.cumsum(pad.reshape(nb, B)[:, ::-1], axis=1)[:, ::-1]       # suffix sums inside blocks
    totals = local[:, 0]
    after = np.zeros(nb)
    if nb > 1:
        after[:-1] = np.cumsum(totals[::-1])[::-1][1:]                     # totals of the later blocks
    s = (local + after[:, None]).reshape(-1)[:n]
    return s, B + nb + 1
#: Largest epsilon answered from a :class:`DeltaTable` (above it the floored weights of
#: losses beyond 666 would no longer be negligible against e**epsilon).
TABLE_MAX_EPSILON = 500.0


class DeltaTable:
    """Bounds of ``delta(epsilon)`` of one PLD for many ``epsilon`` in ``[0, 500]``, O(1) each.

    For ``L_i = (start + i) h > epsilon >= 0`` the profile's finite part is
    ``S(j) - e**epsilon W(j)`` with the suffix sums ``S(j) = sum_{i >= j} m_i``
    and ``W(j) = sum_{i >= j} m_i e**-L_i`` (``j`` the first index above
    epsilon). The weights ``e**-L_i`` are certified geometric sequences
    restarted from an interval seed every 1024 points; the suffix sums are
    two-level (:func:`suffix_sums`, within ``gamma_r`` of the exact ones,
    ``r ~ 2 sqrt(N)``), applied outward.
    An upper table uses an upper ``S`` and a lower ``W`` (``upper=True``), a
    lower table the reverse; the difference is rounded in the same direction.
    """

    def __init__(self, p: Pld, iv, h: Fraction, upper: bool):
        self.p, self.iv, self.h, self.upper = p, iv, h, bool(upper)
        self.i0 = max(0, 1 - p.start)                       # first index with a positive loss
        m = p.m[self.i0:]
        n = m.size
        H = fraction_interval(iv, h)
        ratio = iv.exp(-H)
        s0 = p.start + self.i0
        # e^{-L_i}: lower weights for an upper table, upper weights for a lower one
        w = _decreasing_blocks(iv.exp(-s0 * H), ratio, iv.exp(-_TABLE_BLOCK * H), n, not upper)
        lo = hi = w
        sm, r = suffix_sums(m)
        g = 1.01 * (r + 1) * _U
        if upper:
            sw, _ = suffix_sums(down(m * lo))
            self.sm = up(sm * (1 + g) + n * TINY)
            self.sw = down(sw * (1 - g) - n * TINY)
        else:
            sw, _ = suffix_sums(up(m * hi))
            self.sm = down(sm * (1 - g) - n * TINY)
            self.sw = up(sw * (1 + g) + n * TINY)

    def estimate(self, epsilon: float) -> float:
        """A float estimate of the table's bound at ``epsilon`` (no rounding guarantee; a starting point)."""
        j = max(int(math.floor(epsilon / float(self.h))) + 1 - self.p.start, self.i0) - self.i0
        if j >= self.sm.size:
            return self.p.inf if self.upper else 0.0
        return float(self.sm[j]) - math.exp(epsilon) * float(self.sw[j]) + (self.p.inf if self.upper else 0.0)

    def __call__(self, epsilon: float) -> float:
        """The bound of ``delta(epsilon)`` (``0 <= epsilon <= 500``) in the table's direction."""
        p = self.p
        first = max(math.floor(Fraction(epsilon) / self.h) + 1 - p.start, self.i0)
        j = first - self.i0
        if j >= self.sm.size:
            return min(1.0, p.inf) if self.upper else 0.0
        e_lo, e_hi = float_box(self.iv.exp(self.iv.mpf(epsilon)))
        if self.upper:
            d = up(self.sm[j] - down(e_lo * self.sw[j]))
            return min(1.0, float(up(d + p.inf)))
        return float(down(self.sm[j] - up(e_hi * self.sw[j])))
