"""From log-moments to (epsilon, delta): PATE's tail bound and the Rényi conversion.

The log-moment of a mechanism at order lambda > 0 is PATE's (Definition 3)
``alpha(lambda) = max ln E_{o ~ M(d)}[(P[M(d) = o] / P[M(d') = o])**lambda]``
over neighbours d, d' (and auxiliary inputs), i.e. ``lambda * D_{lambda+1}``
in Rényi terms (Mironov 2017). Log-moments add up under adaptive composition
(PATE Theorem 1.1), so an accountant sums them per order and converts once.

References: Papernot et al., ICLR 2017, Theorems 1 and 2; Abadi et al., CCS
2016, Theorem 2; Canonne, Kamath and Steinke, NeurIPS 2020, Prop. 12.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mpmath import libmp

from ..utils.constraints import PRIVACY, PRIVACY_OR_INF, PROBABILITY_RESULT, Array, Optional, constrained, constrained_fields
from ..utils.validation import Described, Interval, parameter_error
from ..utils.rounding import _ceil_raw, ceil_interval, shared_interval_context
from .conversions import DELTA, POSITIVE, _epsilon_at_order, _log_delta_at_order

__all__ = ["DEFAULT_ORDERS", "MomentsConversion", "moments_to_dp",
           "pate_data_independent_log_moments"]


def _default_orders() -> np.ndarray:
    fine = np.arange(2, 33) / 8.0           # 0.25, 0.375, ..., 4 (step 1/8)
    middle = np.arange(17, 33) / 4.0        # 4.25, 4.5, ..., 8 (step 1/4)
    large = np.array([9, 10, 11, 12, 14, 16, 20, 24, 28, 32, 48, 64, 96, 128, 192, 256],
                     dtype=np.float64)
    orders = np.concatenate([fine, middle, large])
    orders.flags.writeable = False
    return orders


#: Default moment orders lambda: 63 values, every one exactly representable
#: in binary. Step 1/8 on [0.25, 4], step 1/4 on (4, 8] (this range contains
#: PATE's integer orders 1..8 and the optimal order of most practical
#: settings), then 9, 10, 11, 12, 14, 16, 20, 24, 28, 32, 48, 64, 96, 128, 192
#: and 256 for very small delta or very small log-moments. Read-only.
DEFAULT_ORDERS = _default_orders()

_SCREEN_RTOL = 1e-9  # orders within this relative distance of the float optimum get an exact look


@constrained_fields(epsilon_tail=PRIVACY_OR_INF, delta_tail=PROBABILITY_RESULT, order_tail=Optional(PRIVACY),
                    epsilon_rdp=PRIVACY_OR_INF, delta_rdp=PROBABILITY_RESULT, order_rdp=Optional(PRIVACY))
@dataclass(frozen=True)
class MomentsConversion:
    """(epsilon, delta) guarantees obtained from log-moments by two conversions.

    Exactly one of epsilon and delta was given to :func:`moments_to_dp`; the
    other is computed by each conversion, and the given one is repeated in
    both ``*_tail`` and ``*_rdp`` fields.

    Attributes
    ----------
    epsilon_tail, delta_tail : float
        PATE's tail bound (Theorem 1.2): ``delta = min_lambda exp(alpha(lambda)
        - lambda epsilon)``, equivalently ``epsilon = min_lambda (alpha(lambda)
        + ln(1/delta)) / lambda``. An epsilon is ``inf`` (no guarantee) when
        ``delta = 0`` or when no order has a finite log-moment.
    order_tail : float or None
        The order lambda attaining the tail bound (None when no order gives a
        finite epsilon).
    epsilon_rdp, delta_rdp : float
        The Rényi conversion of Canonne, Kamath and Steinke (Prop. 12) applied
        at Rényi order ``lambda + 1`` with ``D = alpha(lambda) / lambda``.
        Never larger than the tail bound.
    order_rdp : float or None
        The moment order lambda (not the Rényi order) attaining it.
    """

    epsilon_tail: float
    delta_tail: float
    order_tail: float | None
    epsilon_rdp: float
    delta_rdp: float
    order_rdp: float | None

    @property
    def epsilon(self) -> float:
        """The smaller (tighter) of the two epsilons."""
        return min(self.epsilon_tail, self.epsilon_rdp)

    @property
    def delta(self) -> float:
        """The smaller (tighter) of the two deltas."""
        return min(self.delta_tail, self.delta_rdp)


#: Positive moment orders.
ORDERS = Array(ndim=1, interval=POSITIVE)
#: Log-moments: numbers in [0, inf] (inf marks an order without a bound).
LOG_MOMENTS = Array(ndim=1, finite=False, interval=Interval(float, 0, math.inf, closed="both"))


def _check_log_moments(lm, orders, owner):
    if lm.shape != orders.shape:
        raise parameter_error("log_moments", owner,
                              f"an array of the same shape as 'orders' {orders.shape}", lm)
    return lm


def _best_order(float_values, rigorous):
    """Minimise over orders: screen in floats, then bound the few best exactly.

    ``float_values`` are float estimates per order (``inf`` where the bound is
    vacuous); ``rigorous(i)`` returns the rounded-up bound at order ``i``.
    Every returned value is a valid bound at its order, so screening can only
    cost tightness (at most a relative 1e-9), never validity.
    """
    finite = np.isfinite(float_values)
    best_float = float(np.min(float_values, where=finite, initial=math.inf))
    if best_float == math.inf:
        return math.inf, None
    slack = _SCREEN_RTOL * abs(best_float) + 1e-300
    candidates = np.flatnonzero(finite & (float_values <= best_float + slack)).tolist()
    return min([(rigorous(i), i) for i in candidates])


@constrained(log_moments=LOG_MOMENTS, orders=ORDERS, delta=Optional(DELTA), epsilon=Optional(POSITIVE))
def moments_to_dp(log_moments, orders, *, delta=None, epsilon=None):
    """Convert log-moments to (epsilon, delta)-DP by the tail bound and by the Rényi conversion.

    Given ``delta``, computes epsilon two ways:

    * PATE Theorem 1.2 (tail bound):
      ``epsilon = min_lambda (alpha(lambda) + ln(1/delta)) / lambda``;
    * the Rényi conversion at order ``lambda + 1`` with
      ``D = alpha(lambda) / lambda`` (Canonne, Kamath and Steinke, Prop. 12):
      ``epsilon = min_lambda [(alpha(lambda) + ln(1/delta) - ln(lambda + 1)) / lambda
      + ln(lambda / (lambda + 1))]``, clipped at 0.

    Given ``epsilon`` instead, computes ``delta = min_lambda exp(alpha(lambda) -
    lambda epsilon)`` and its Rényi analogue ``min_lambda exp(alpha(lambda) -
    lambda epsilon) (lambda / (lambda + 1))**lambda / (lambda + 1)``, each
    capped at 1.

    Parameters
    ----------
    log_moments : array_like of float, shape (n_orders,)
        Upper bounds on alpha(lambda), each in [0, inf]; ``inf`` marks an order
        where no bound is known (it is skipped). Typically a sum over queries
        (PATE Theorem 1.1), e.g. from :func:`refdp.core.accountant_log_moments`
        or :func:`pate_data_independent_log_moments`.
    orders : array_like of float, shape (n_orders,)
        The positive orders lambda the moments were computed at, e.g.
        :data:`DEFAULT_ORDERS`.
    delta : float in [0, 1), optional
        Target delta; ``0`` gives ``epsilon = inf``.
    epsilon : float in (0, inf), optional
        Target epsilon. Give exactly one of ``delta`` and ``epsilon``.

    Returns
    -------
    MomentsConversion
        Both conversions with the order attaining each. Every float is an
        upper bound of the exact minimum (screened in floats, then evaluated
        in interval arithmetic and rounded up); epsilon is ``inf`` only for
        ``delta = 0`` or when every log-moment is ``inf``.

    Raises
    ------
    ValueError
        If the arrays are empty, of different lengths, contain NaN or negative
        values (or non-positive orders), or if not exactly one of ``delta``,
        ``epsilon`` is given, or it is out of range, or if finite log-moments
        give no epsilon below the largest float.

    References
    ----------
    .. [1] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private
       Training Data", ICLR 2017, Theorem 1.
    .. [2] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020, Proposition 12.
    """
    owner = "moments_to_dp"
    log_moments = _check_log_moments(log_moments, orders, owner)
    if (delta is None) == (epsilon is None):
        raise parameter_error("delta", owner, "given, or 'epsilon' given, but not both",
                              Described(f"delta={delta!r} and epsilon={epsilon!r}"))
    if delta is not None:
        return _solve_epsilon(log_moments, orders, delta)
    return _solve_delta(log_moments, orders, epsilon)


def _solve_epsilon(log_moments, orders, delta):
    if delta == 0.0:
        return MomentsConversion(math.inf, 0.0, None, math.inf, 0.0, None)
    results = []
    iv = shared_interval_context()                  # this thread's, at the fixed precision IV_PREC
    log_inv_delta = -_cached_ln(iv, iv.mpf(delta))  # the same enclosure for every order and method
    with np.errstate(invalid="ignore", over="ignore"):
        screens = [_epsilon_at_order(orders, log_moments, -math.log(delta), np.log, method)
                   for method in ("classic", "cks")]
    for method, screen in zip(("classic", "cks"), screens):

        def rigorous(i, method=method):
            hi = _epsilon_upper_at_order(iv, float(orders[i]), float(log_moments[i]), log_inv_delta, method)
            return max(0.0, _ceil_raw(hi))

        eps, i = _best_order(screen, rigorous)
        results.append((eps, None if i is None else float(orders[i])))
    (e_tail, o_tail), (e_rdp, o_rdp) = results
    if math.isinf(max(e_tail, e_rdp)) and np.isfinite(log_moments).any():
        # a finite bound above the largest float: refused rather than rounded to inf (no guarantee)
        raise parameter_error("log_moments", "moments_to_dp", "log-moments for which some order gives an "
                              f"epsilon below the largest float at delta = {delta!r}", log_moments)
    return MomentsConversion(e_tail, delta, o_tail, e_rdp, delta, o_rdp)


#: Interval constants of the orders and deltas, as raw endpoints keyed by the context's
#: precision and the argument: ``ln x``, and per order ``lambda``, ``ln(lambda + 1)`` and
#: ``ln(lambda) - ln(lambda + 1)``. Each is a pure function of its key, so a value computed
#: by any thread is the one every thread would compute; the orders recur from call to call.
_IV_CACHE: dict = {}
_IV_CACHE_MAX = 1 << 14


def _cache_put(key, value):
    if len(_IV_CACHE) >= _IV_CACHE_MAX:
        _IV_CACHE.clear()                       # another thread may clear too: values are recomputed
    _IV_CACHE[key] = value


def _cached_ln(iv, x):
    """``iv.ln(x)``, kept in :data:`_IV_CACHE`."""
    key = ("ln", iv.prec, x._mpi_)
    raw = _IV_CACHE.get(key)
    if raw is None:
        raw = iv.ln(x)._mpi_
        _cache_put(key, raw)
    return iv.make_mpf(raw)


def _order_constants_raw(iv, lam_f):
    """``(lambda, ln(lambda + 1), ln(lambda) - ln(lambda + 1))`` as raw intervals of ``iv``, kept in the cache."""
    key = ("order", iv.prec, lam_f)
    raws = _IV_CACHE.get(key)
    if raws is None:
        lam = iv.mpf(lam_f)
        l1 = iv.ln(lam + 1)
        raws = (lam._mpi_, l1._mpi_, (iv.ln(lam) - l1)._mpi_)
        _cache_put(key, raws)
    return raws


def _order_constants(iv, lam_f):
    """:func:`_order_constants_raw` as intervals of ``iv``."""
    return tuple(iv.make_mpf(r) for r in _order_constants_raw(iv, lam_f))


def _epsilon_upper_at_order(iv, lam_f, log_moment_f, log_inv_delta, method):
    """The upper endpoint (raw) of :func:`_rigorous_epsilon_at_order`, from upper endpoints alone.

    Interval addition, subtraction and division by a positive point (the
    order) give their upper endpoints by one directed rounding of the
    operands' endpoints (``mpmath.libmp.libmpi``: ``mpi_add``, ``mpi_sub``,
    ``mpi_div``); this performs exactly those roundings, at the context's
    precision, and skips the lower endpoints, which the conversion does not use.
    """
    prec = iv.prec
    lam, l1, tail = _order_constants_raw(iv, lam_f)
    v = libmp.mpf_add(libmp.from_float(log_moment_f), log_inv_delta._mpi_[1], prec, libmp.round_ceiling)
    if v == libmp.fnan:
        v = libmp.finf
    if method == "cks":
        v = libmp.mpf_sub(v, l1[0], prec, libmp.round_ceiling)
        if v == libmp.fnan:
            v = libmp.finf
    v = _div_up(v, lam[0], prec)
    if method == "cks":
        v = libmp.mpf_add(v, tail[1], prec, libmp.round_ceiling)
        if v == libmp.fnan:
            v = libmp.finf
    return v


def _div_up(v, lam, prec):
    """Upper endpoint of ``[., v] / [lam, lam]`` for ``lam > 0`` as ``mpi_div`` computes it."""
    if v == libmp.fzero:
        return libmp.fzero
    out = libmp.mpf_div(v, lam, prec, libmp.round_ceiling)
    if out == libmp.fnan:
        return libmp.finf if libmp.mpf_sign(v) >= 0 else libmp.fzero
    return out


def _rigorous_epsilon_at_order(iv, lam_f, log_moment, log_inv_delta, method):
    """:func:`_epsilon_at_order` on intervals, operation for operation, with the order's constants cached.

    The whole enclosure; :func:`_epsilon_upper_at_order` computes its upper
    endpoint alone (tests/pate/test_fast_paths.py compares the three).

    ``classic``: ``(log_moment + log_inv_delta) / lambda``; ``cks``:
    ``(log_moment + log_inv_delta - ln(lambda + 1)) / lambda + (ln(lambda) - ln(lambda + 1))``,
    evaluated left to right as there, so every enclosure is the same.
    """
    lam, l1, tail = _order_constants(iv, lam_f)
    if method == "classic":
        return (log_moment + log_inv_delta) / lam
    return (log_moment + log_inv_delta - l1) / lam + tail


def _solve_delta(log_moments, orders, epsilon):
    results = []
    for method in ("classic", "cks"):
        with np.errstate(invalid="ignore", over="ignore"):
            screen = _log_delta_at_order(orders, log_moments, epsilon, np.log, method)

        def rigorous(i, method=method):
            iv = shared_interval_context()
            v = _log_delta_at_order(iv.mpf(orders[i]), iv.mpf(log_moments[i]),
                                    iv.mpf(epsilon), iv.ln, method)
            return min(1.0, ceil_interval(iv.exp(v)))

        d, i = _best_order(screen, rigorous)
        results.append((min(1.0, d), None if i is None else float(orders[i])))
    (d_tail, o_tail), (d_rdp, o_rdp) = results
    return MomentsConversion(epsilon, d_tail, o_tail, epsilon, d_rdp, o_rdp)


@constrained(gamma=POSITIVE, orders=ORDERS, n_queries=Interval(int, 0, None))
def pate_data_independent_log_moments(gamma, orders, n_queries):
    """Data-independent log-moments of ``n_queries`` LNMax answers (PATE Theorem 2).

    Each answer of LNMax with Laplace noise of scale ``1/gamma`` is
    (2 gamma)-DP, so its log-moment satisfies
    ``alpha(lambda) <= min(2 gamma**2 lambda (lambda + 1), 2 gamma lambda)``
    (PATE Theorem 2; the second term is the pure-DP bound). Summing over the
    queries (Theorem 1.1) gives
    ``n_queries * min(2 gamma**2 lambda (lambda + 1), 2 gamma lambda)``. The
    bound holds for every (2 gamma)-DP mechanism, not only LNMax.

    Parameters
    ----------
    gamma : float in (0, inf)
        Inverse Laplace scale of LNMax.
    orders : array_like of float, shape (n_orders,)
        Positive orders lambda, e.g. :data:`DEFAULT_ORDERS`.
    n_queries : int in [0, inf)
        Number of answered queries T (0 gives zeros).

    Returns
    -------
    ndarray of float, shape (n_orders,)
        The composed bound per order, each rounded up (interval evaluation).

    Raises
    ------
    ValueError
        If ``gamma`` is not a finite positive float, ``orders`` is empty or has
        a non-positive or non-finite entry, or ``n_queries`` is a negative or
        non-integral number.

    References
    ----------
    .. [1] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private
       Training Data", ICLR 2017, Theorems 1 and 2.
    """
    out = np.empty(orders.shape, dtype=np.float64)
    gn, gd = float(gamma).as_integer_ratio()
    n = int(n_queries)
    for i, lam_f in enumerate(orders.tolist()):
        v = _data_independent_exact(gn, gd, lam_f, n)
        out[i] = _data_independent_interval(gamma, lam_f, n) if v is None else v
    return out


#: Relative distance (as a power of two) within which the exact evaluation
#: defers to the interval one; the interval evaluation's own widening is below
#: 2**-155 relative (three roundings at IV_PREC = 160 bits).
_DEFER_BITS = 150


def _data_independent_interval(gamma, lam_f, n):
    """One order of :func:`pate_data_independent_log_moments` in interval arithmetic."""
    iv = shared_interval_context()
    g = iv.mpf(gamma)
    lam = iv.mpf(lam_f)
    renyi = 2 * g * g * lam * (lam + 1)
    pure = 2 * g * lam
    # the smaller bound is chosen on upper endpoints: either choice is valid
    bound = renyi if renyi.b <= pure.b else pure
    return ceil_interval(n * bound)


def _data_independent_exact(gn, gd, lam_f, n):
    """The interval evaluation's value, from exact integer arithmetic, or None when it cannot be sure.

    gamma = gn/gd and lambda = ln/ld exactly (denominators powers of two), so
    Theorem 2's ``E_r = 2 gamma^2 lambda (lambda + 1)``, the pure-DP
    ``E_p = 2 gamma lambda`` and ``n min(E_r, E_p)`` are exact rationals. The
    interval evaluation's upper endpoints are within a factor ``1 + 2**-155``
    above them, and equal to them when the value is a double (every partial
    product's odd part divides the final one's, so nothing rounds). Hence
    it picks the same bound and rounds up to the same double as the exact
    value does, unless ``E_r, E_p`` are within ``2**-150`` of each other or
    the value is not a double but within ``2**-150`` below one; then, and
    outside [2**-1000, 2**1000], this returns None and the caller evaluates
    in interval arithmetic.
    """
    ln, ld = lam_f.as_integer_ratio()
    lam1 = ln + ld                                   # (lambda + 1) * ld
    left, right = gn * lam1, gd * ld                 # E_r <= E_p  <=>  left <= right
    if abs(left - right) << _DEFER_BITS <= right:
        return None
    if left <= right:
        num, den = 2 * n * gn * gn * ln * lam1, gd * gd * ld * ld
    else:
        num, den = 2 * n * gn * ln, gd * ld
    if num == 0:
        return 0.0
    try:
        f = num / den                                # correctly rounded
    except OverflowError:
        return None
    if not 2.0**-1000 <= f <= 2.0**1000:
        return None
    fn, fd = f.as_integer_ratio()
    if fn * den == num * fd:
        return f                                     # exact: the interval's endpoint is the value
    if fn * den < num * fd:
        f = math.nextafter(f, math.inf)
        fn, fd = f.as_integer_ratio()
    gap = fn * den - num * fd                        # (f - E) * fd * den > 0
    if gap << _DEFER_BITS <= fn * den:               # f - E <= 2**-150 f
        return None
    return f
