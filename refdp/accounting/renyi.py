"""Exact Rényi divergences of compositions, as enclosures, and their conversion to (epsilon, delta).

The Rényi divergence of order ``alpha > 1`` of a mechanism is
``D_alpha = ln(sum_o P(o)**alpha Q(o)**(1 - alpha)) / (alpha - 1)`` for its
dominating pair ``(P, Q)`` (Mironov 2017, Def. 3); every pair used here is
symmetric (``D_alpha(P||Q) = D_alpha(Q||P)``), and Rényi divergences of a
composition add (Mironov 2017, Prop. 1). Each value is evaluated in an
mpmath interval context owned by the call, so the returned
:class:`~refdp.accounting.profiles.Enclosure` contains the exact value at any
real order, integer or not:

* randomized response / pure epsilon-DP:
  ``ln((e**(alpha eps) + e**(-(alpha - 1) eps)) / (1 + e**eps)) / (alpha - 1)``
  (Mironov 2017, Table II); it bounds every epsilon-DP mechanism (data
  processing, Kairouz, Oh and Viswanath 2015, Thm. 3.3);
* Laplace, ``a = sensitivity / scale``:
  ``ln(alpha/(2 alpha - 1) e**((alpha - 1) a) + (alpha - 1)/(2 alpha - 1) e**(-alpha a)) / (alpha - 1)``
  (Mironov 2017, Table II, scaled);
* Gaussian: ``alpha Delta**2 / (2 sigma**2)`` (Mironov 2017, Table II);
* discrete Laplace: a finite closed form (three geometric series);
* discrete Gaussian: ``alpha Delta**2/(2 sigma**2) + ln(theta(s)/theta(0))/(alpha - 1)``
  with ``theta(s) = sum_x e**(-(x + s)**2/(2 sigma**2))`` and
  ``s = (alpha - 1) Delta``, a lattice sum with a rigorously bounded tail
  (direct for small sigma, Poisson-summed for large sigma). At integer
  orders ``theta(s) = theta(0)`` and the value equals the Gaussian one
  (Canonne, Kamath and Steinke 2020, Prop. 5).

Proofs: ``docs/theory/privacy_profiles.rst``, section "Rényi divergences".
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction
from types import MappingProxyType

from ..utils.precision import iv_context
from ..utils.constraints import PRIVACY, PROBABILITY_RESULT, Array, Optional, Reported, constrained
from ..utils.validation import Described, Interval, parameter_error
from ..utils.rounding import ceil_interval
from .conversions import _epsilon_at_order, _log_delta_at_order
from .profiles import (MECHANISMS, DiscreteGaussian, DiscreteLaplace, Enclosure, Gaussian, Laplace,
                       RandomizedResponse, float_box, _normalise)

__all__ = ["renyi_divergence", "renyi_epsilon", "renyi_delta", "RenyiConversion"]

_ORDER = Interval(float, 1, None, closed="neither")
_DELTA_OPEN = Interval(float, 0, 1, closed="neither")
_NONNEG = Interval(float, 0, None, closed="left")
_DPS = 40


# ------------------------------------------------------------- per mechanism --

def _rr(mech, al, iv):
    e = iv.mpf(mech.epsilon)
    return iv.ln((iv.exp(al * e) + iv.exp(-(al - 1) * e)) / (1 + iv.exp(e))) / (al - 1)


def _laplace(mech, al, iv):
    a = iv.mpf(mech.sensitivity) / iv.mpf(mech.scale)
    s = (al / (2 * al - 1)) * iv.exp((al - 1) * a) + ((al - 1) / (2 * al - 1)) * iv.exp(-al * a)
    return iv.ln(s) / (al - 1)


def _gaussian(mech, al, iv):
    return al * (iv.mpf(mech.sensitivity) / iv.mpf(mech.sigma)) ** 2 / 2


def _discrete_laplace(mech, al, iv):
    # P(x) = c r^|x|, Q(x) = c r^|x - d|, c = (1 - r)/(1 + r), r = e^{-1/t}:
    # x <= 0 gives r^{(1-alpha) d}/(1 - r), x >= d gives r^{alpha d}/(1 - r),
    # 0 < x < d gives r^{(1-alpha) d} sum_{x=1}^{d-1} r^{(2 alpha - 1) x}
    d = mech.sensitivity
    lr = -1 / iv.mpf(mech.scale)            # ln r
    r = iv.exp(lr)
    mid = iv.mpf(0)
    for x in range(1, d):
        mid += iv.exp((2 * al - 1) * x * lr)
    s = (iv.exp((1 - al) * d * lr) + iv.exp(al * d * lr)) / (1 - r) + iv.exp((1 - al) * d * lr) * mid
    return iv.ln(s * (1 - r) / (1 + r)) / (al - 1)


def _theta_ratio(sigma, s, iv):
    """``theta(s) / theta(0)`` for ``theta(s) = sum_{x in Z} exp(-(x + s)**2 / (2 sigma**2))``.

    ``s`` is an interval inside ``[0, 1]``. Small sigma: direct sum over
    ``|x| <= N`` plus the tail bound ``e**(-M**2/(2 sigma**2)) / (1 - e**(-M/sigma**2))``
    on each side (``M >= N`` the least ``|x + s|`` beyond the window).
    Large sigma: Poisson summation,
    ``theta(s) = sigma sqrt(2 pi) (1 + 2 sum_{k>=1} e**(-2 pi**2 sigma**2 k**2) cos(2 pi k s))``,
    whose tail beyond ``K`` is at most ``e**(-2 pi**2 sigma**2 (K+1)**2) / (1 - e**(-2 pi**2 sigma**2))``
    in absolute value.
    """
    target = iv.mpf(10) ** (-(_DPS + 10))
    S2 = 2 * iv.mpf(sigma) ** 2
    if sigma <= 4.0:
        # terms beyond N are below e^{-N^2 / (2 sigma^2)}: choose N with that < 1e-50
        N = int(math.ceil(sigma * math.sqrt(2 * (_DPS + 10) * math.log(10)))) + 2
        num = iv.mpf(0)
        den = iv.mpf(0)
        for x in range(-N, N + 1):
            num += iv.exp(-(x + s) ** 2 / S2)
            den += iv.exp(-iv.mpf(x) ** 2 / S2)
        M = iv.mpf(N)            # |x + s| >= N for |x| >= N + 1 and s in [0, 1]
        tail = 2 * iv.exp(-M * M / S2) / (1 - iv.exp(-2 * M / S2))
        if not tail.b < target.b:
            raise ArithmeticError("the discrete Gaussian lattice tail is not small enough")
        num = num + iv.mpf([0, tail.b])
        den = den + iv.mpf([0, tail.b])
        return num / den
    q = iv.exp(-2 * iv.pi ** 2 * iv.mpf(sigma) ** 2)     # < e^{-315}
    num = 1 + 2 * q * iv.cos(2 * iv.pi * s)
    den = 1 + 2 * q
    tail = 2 * q ** 4 / (1 - q)       # 2 sum_{k>=2} q^{k^2} <= 2 q^4/(1 - q) (k^2 >= k + 2)
    err = iv.mpf([-tail.b, tail.b])
    return (num + err) / (den + iv.mpf([0, tail.b]))


_PER_MECH = {RandomizedResponse: _rr, Laplace: _laplace, Gaussian: _gaussian,
             DiscreteLaplace: _discrete_laplace}


def _divergence(mech, order: float, iv):
    """Interval enclosure of ``D_order`` of one mechanism."""
    al = iv.mpf(order)
    if isinstance(mech, DiscreteGaussian):
        d = mech.sensitivity
        base = al * (iv.mpf(d) / iv.mpf(mech.sigma)) ** 2 / 2
        # theta is 1-periodic: only the fractional part of s = (alpha - 1) d matters (exact)
        s_exact = (Fraction(order) - 1) * d
        frac = s_exact - math.floor(s_exact)
        if frac == 0:
            return base
        s = iv.mpf(frac.numerator) / frac.denominator
        return base + iv.ln(_theta_ratio(mech.sigma, s, iv)) / (al - 1)
    return _PER_MECH[type(mech)](mech, al, iv)


def _composed(groups, order: float, iv):
    total = iv.mpf(0)
    for mech, count in groups.items():
        total += count * _divergence(mech, order, iv)
    return total


# ------------------------------------------------------------------ public --

@constrained(mechanisms=MECHANISMS, order=_ORDER)
def renyi_divergence(mechanisms, order):
    """Enclosure of the exact Rényi divergence of a composition at a real order ``alpha > 1``.

    The divergence of each mechanism is its closed form (or, for the
    discrete Gaussian, a lattice sum with a bounded tail) evaluated in
    interval arithmetic; divergences of a composition add ([1]_ Prop. 1).

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
        Instances of :class:`~refdp.accounting.RandomizedResponse` (the worst
        case of every epsilon-DP mechanism), :class:`~refdp.accounting.Laplace`,
        :class:`~refdp.accounting.DiscreteLaplace`,
        :class:`~refdp.accounting.Gaussian` and
        :class:`~refdp.accounting.DiscreteGaussian`.
    order : float in (1, inf)
        The Rényi order ``alpha`` (any real, not only integers).

    Returns
    -------
    Enclosure
        ``(lower, upper)`` with ``lower <= D_alpha <= upper``; ``upper`` is
        the Rényi-DP guarantee at this order.

    Raises
    ------
    ValueError
        On an order ``<= 1``, a non-finite order or an invalid mechanism list.

    References
    ----------
    .. [1] I. Mironov, "Rényi Differential Privacy", CSF 2017, Prop. 1
       (composition) and Table II (randomized response, Laplace, Gaussian).
    .. [2] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020, Prop. 5 (discrete Gaussian).
    """
    groups = _normalise(mechanisms, "renyi_divergence")
    iv = iv_context(_DPS)
    lo, hi = float_box(_composed(groups, order, iv))
    _check_finite(hi, "renyi_divergence", mechanisms)
    return Enclosure(max(0.0, lo), hi)


def _check_finite(divergence, owner, mechanisms):
    """Refuse a composition whose divergence (finite: the mechanisms have noise) overflows a float."""
    if not math.isfinite(divergence):
        raise parameter_error("mechanisms", owner, "mechanisms whose composed Rényi divergence is below the "
                              "largest float", Described("a composition whose divergence exceeds it"))


_RENYI_CONVERSION = MappingProxyType({"epsilon": PRIVACY, "delta": PROBABILITY_RESULT,
                                      "order": Reported(1.0, math.inf)})


_FLOAT_MAX = sys.float_info.max     # a result is finite (PRIVACY): inf is refused, as NaN is


class RenyiConversion(tuple):
    """``(epsilon, delta, order)``: the (epsilon, delta)-DP guarantee from the best Rényi order."""

    __slots__ = ()

    def __new__(cls, epsilon, delta, order):
        if not (type(epsilon) is float and 0.0 <= epsilon <= _FLOAT_MAX) \
                or not (type(delta) is float and 0.0 <= delta <= 1.0) \
                or not (type(order) is float and 1.0 <= order <= _FLOAT_MAX):
            for name, value in (("epsilon", epsilon), ("delta", delta), ("order", order)):
                _RENYI_CONVERSION[name].validate(value, name, "RenyiConversion")
        return super().__new__(cls, (epsilon, delta, order))

    __new__.__constraints__ = _RENYI_CONVERSION
    __new__.__owner__ = "RenyiConversion"
    __new__.__relations__ = ()

    epsilon = property(lambda self: self[0])
    delta = property(lambda self: self[1])
    order = property(lambda self: self[2])

    def __repr__(self):
        return f"RenyiConversion(epsilon={self[0]!r}, delta={self[1]!r}, order={self[2]!r})"


_ORDERS = Optional(Array(ndim=1, interval=Interval(float, 1, None, closed="neither")))


def _orders_list(orders):
    return None if orders is None else [float(a) for a in orders]


def _lse(*xs) -> float:
    m = max(xs)
    return m + math.log(sum(math.exp(x - m) for x in xs))


def _float_one(mech, a: float) -> float:
    """Float estimate of one mechanism's ``D_a`` (chooses the order; never a bound)."""
    if isinstance(mech, Gaussian):
        return a * (mech.sensitivity / mech.sigma) ** 2 / 2
    if isinstance(mech, DiscreteGaussian):
        return a * (mech.sensitivity / mech.sigma) ** 2 / 2
    if isinstance(mech, RandomizedResponse):
        e = mech.epsilon
        return (_lse(a * e, -(a - 1) * e) - _lse(0.0, e)) / (a - 1)
    if isinstance(mech, Laplace):
        x = mech.sensitivity / mech.scale
        return _lse(math.log(a / (2 * a - 1)) + (a - 1) * x,
                    math.log((a - 1) / (2 * a - 1)) - a * x) / (a - 1)
    # discrete Laplace: the continuous Laplace value at a = sensitivity / scale is close
    x = mech.sensitivity / mech.scale
    return _lse(math.log(a / (2 * a - 1)) + (a - 1) * x,
                math.log((a - 1) / (2 * a - 1)) - a * x) / (a - 1)


def _float_divergence(groups, order: float) -> float:
    """A float estimate of the composed divergence (used only to choose the order; inf if it overflows)."""
    try:
        return sum(k * _float_one(m, order) for m, k in groups.items())
    except OverflowError:
        return math.inf


def _search(objective, orders):
    """Order minimising ``objective`` (float estimates; any order gives a valid bound)."""
    if orders is not None:
        vals = [(objective(a), a) for a in orders]
        return min(vals)[1]
    # log-spaced scan of alpha - 1 in [1e-3, 1e6], then golden-section refinement
    grid = [10.0 ** (e / 8.0) for e in range(-24, 49)]
    vals = [objective(1 + g) for g in grid]
    i = min(range(len(grid)), key=lambda j: vals[j])
    lo = math.log(grid[max(i - 1, 0)])
    hi = math.log(grid[min(i + 1, len(grid) - 1)])
    phi = (math.sqrt(5) - 1) / 2
    f = lambda t: objective(1 + math.exp(t))  # noqa: E731
    c, d = hi - phi * (hi - lo), lo + phi * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(40):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - phi * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + phi * (hi - lo)
            fd = f(d)
    best = 1 + math.exp((lo + hi) / 2)
    return best if f((lo + hi) / 2) <= vals[i] else 1 + grid[i]


@constrained(mechanisms=MECHANISMS, delta=_DELTA_OPEN, orders=_ORDERS)
def renyi_epsilon(mechanisms, delta, orders=None):
    """epsilon such that a composition is (epsilon, delta)-DP, from its exact Rényi divergences.

    At each order the exact composed divergence ``D`` (upper end of
    :func:`renyi_divergence`) is converted by [1]_ Prop. 12 / [2]_ Thm. 21,
    ``epsilon = D + ln((alpha - 1)/alpha) - (ln(delta) + ln(alpha))/(alpha - 1)``,
    evaluated in interval arithmetic and rounded up; the order is chosen by a
    float search (any order gives a valid bound, so the search affects only
    tightness).

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
    delta : float in (0, 1)
    orders : array_like of float in (1, inf), optional
        Orders to choose from; by default every real order in
        ``(1.001, 10**6)`` is searched.

    Returns
    -------
    RenyiConversion
        ``(epsilon, delta, order)``; ``epsilon`` is clipped below at 0.

    Raises
    ------
    ValueError
        On invalid arguments.

    References
    ----------
    .. [1] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020, Proposition 12.
    .. [2] B. Balle, G. Barthe, M. Gaboardi, J. Hsu and T. Sato, "Hypothesis
       Testing Interpretations and Rényi Differential Privacy", AISTATS 2020,
       Theorem 21.
    """
    groups = _normalise(mechanisms, "renyi_epsilon")
    orders = _orders_list(orders)
    ld = -math.log(delta)

    def est(a):
        lam = a - 1
        return _epsilon_at_order(lam, lam * _float_divergence(groups, a), ld, math.log, "cks")

    order = _search(est, orders)
    iv = iv_context(_DPS)
    lam = iv.mpf(order) - 1
    upper = float_box(_composed(groups, order, iv))[1]
    _check_finite(upper, "renyi_epsilon", mechanisms)
    D = iv.mpf(upper)
    eps = _epsilon_at_order(lam, lam * D, -iv.ln(iv.mpf(delta)), iv.ln, "cks")
    bound = max(0.0, ceil_interval(eps))
    if math.isinf(bound):
        raise parameter_error("orders" if orders is not None else "mechanisms", "renyi_epsilon",
                              "values giving an epsilon below the largest float", Described(f"order {order!r}"))
    return RenyiConversion(bound, delta, order)


@constrained(mechanisms=MECHANISMS, epsilon=_NONNEG, orders=_ORDERS)
def renyi_delta(mechanisms, epsilon, orders=None):
    """delta such that a composition is (epsilon, delta)-DP, from its exact Rényi divergences.

    ``delta = exp((alpha - 1)(D - epsilon)) ((alpha - 1)/alpha)**(alpha - 1) / alpha``
    (Canonne, Kamath and Steinke 2020, Prop. 12), evaluated in interval arithmetic, rounded up and capped
    at 1, at the order found by a float search.

    Parameters
    ----------
    mechanisms : list of mechanisms or of ``(mechanism, count)`` pairs
    epsilon : float in [0, inf)
    orders : array_like of float in (1, inf), optional

    Returns
    -------
    RenyiConversion

    Raises
    ------
    ValueError
        On invalid arguments.

    References
    ----------
    See :func:`renyi_epsilon`.
    """
    groups = _normalise(mechanisms, "renyi_delta")
    orders = _orders_list(orders)

    def est(a):
        lam = a - 1
        return _log_delta_at_order(lam, lam * _float_divergence(groups, a), epsilon, math.log, "cks")

    order = _search(est, orders)
    iv = iv_context(_DPS)
    lam = iv.mpf(order) - 1
    upper = float_box(_composed(groups, order, iv))[1]
    _check_finite(upper, "renyi_delta", mechanisms)
    D = iv.mpf(upper)
    ld = _log_delta_at_order(lam, lam * D, iv.mpf(epsilon), iv.ln, "cks")
    return RenyiConversion(epsilon, min(1.0, ceil_interval(iv.exp(ld))), order)
