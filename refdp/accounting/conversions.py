"""Conversions between pure DP, zCDP, Rényi DP and (epsilon, delta)-DP.

Each function returns a float that is never below the exact value of its
formula at the given inputs (see :mod:`refdp.utils.rounding`). Proofs of
the three statements are in ``docs/theory/accounting.rst``.

Sources: M. Bun and T. Steinke, "Concentrated Differential Privacy:
Simplifications, Extensions, and Lower Bounds", TCC 2016, Prop. 1.3 and 1.4;
Ilya Mironov, "Rényi Differential Privacy", CSF 2017, Prop. 3; C. Canonne,
G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy",
NeurIPS 2020 (arXiv:2004.00010), Prop. 12; B. Balle, G. Barthe, M. Gaboardi,
J. Hsu and T. Sato, "Hypothesis Testing Interpretations and Rényi
Differential Privacy", AISTATS 2020, Thm. 21.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ..utils.constraints import constrained
from ..utils.validation import Interval, Options, parameter_error
from ..utils.rounding import ceil_fraction, ceil_interval, interval_context
from ..utils.validation import POSITIVE

__all__ = ["pure_dp_to_zcdp", "zcdp_to_dp", "rdp_to_dp"]

NONNEGATIVE = Interval(float, 0, None, closed="left")
DELTA = Interval(float, 0, 1, closed="left")
RDP_METHODS = Options(("cks", "classic"))


@constrained(epsilon=POSITIVE)
def pure_dp_to_zcdp(epsilon):
    """zCDP parameter of an epsilon-DP mechanism: rho = epsilon**2 / 2.

    An epsilon-DP mechanism is (epsilon**2 / 2)-zCDP ([1]_ Prop. 1.4).

    Parameters
    ----------
    epsilon : float in (0, inf)
        Pure-DP parameter of the mechanism.

    Returns
    -------
    float
        ``rho``, computed exactly as a rational and rounded up to a float.

    Raises
    ------
    ValueError
        If ``epsilon`` is not a finite positive float, or ``rho`` exceeds the
        largest float (epsilon above about 1.9e154).

    References
    ----------
    .. [1] M. Bun and T. Steinke, "Concentrated Differential Privacy:
       Simplifications, Extensions, and Lower Bounds", TCC 2016.
    """
    e = Fraction(epsilon)
    return finite_bound(ceil_fraction(e * e / 2), "epsilon", "pure_dp_to_zcdp",
                        "a float in the range (0, inf) whose rho = epsilon**2 / 2 is a float", epsilon)


def finite_bound(value: float, name: str, owner: str, what: str, got) -> float:
    """``value``, a bound rounded up, if finite; else the standard error naming ``name``.

    A finite bound above the largest float is refused rather than rounded to
    inf, which would read as "no guarantee".
    """
    if math.isinf(value):
        raise parameter_error(name, owner, what, got)
    return value


@constrained(rho=NONNEGATIVE, delta=DELTA)
def zcdp_to_dp(rho, delta):
    """epsilon such that a rho-zCDP mechanism is (epsilon, delta)-DP.

    ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` ([1]_ Prop. 1.3).

    Parameters
    ----------
    rho : float in [0, inf)
        zCDP parameter. ``rho = 0`` (identical output distributions on
        neighbours) gives ``epsilon = 0`` for every ``delta``, including 0.
    delta : float in [0, 1)
        Target delta. ``delta = 0`` with ``rho > 0`` gives ``inf``: zCDP
        alone never implies pure DP.

    Returns
    -------
    float
        An upper bound of the exact epsilon (interval evaluation, rounded up).

    Raises
    ------
    ValueError
        If ``rho`` is negative, infinite or NaN, or ``delta`` is outside [0, 1).

    References
    ----------
    .. [1] M. Bun and T. Steinke, "Concentrated Differential Privacy:
       Simplifications, Extensions, and Lower Bounds", TCC 2016.
    """
    if rho == 0.0:
        return 0.0
    if delta == 0.0:
        return math.inf
    with interval_context() as iv:
        r = iv.mpf(rho)
        return ceil_interval(r + 2 * iv.sqrt(r * -iv.ln(iv.mpf(delta))))


def _epsilon_at_order(lam, log_moment, log_inv_delta, ln, method):
    """epsilon of a Rényi bound written with ``lam = alpha - 1`` and ``log_moment = lam * D``.

    Shared by :func:`rdp_to_dp` and :func:`refdp.accounting.moments_to_dp`; the
    arithmetic works unchanged on NumPy arrays (screening) and on mpmath
    intervals (the returned bound). ``method="classic"`` is
    ``(log_moment + log_inv_delta) / lam`` (Mironov 2017, Prop. 3; PATE Thm 1);
    ``method="cks"`` subtracts ``ln(alpha) / lam - ln((alpha - 1) / alpha)``
    (Canonne, Kamath and Steinke 2020, Prop. 12).
    """
    if method == "classic":
        return (log_moment + log_inv_delta) / lam
    return (log_moment + log_inv_delta - ln(lam + 1)) / lam + (ln(lam) - ln(lam + 1))


def _log_delta_at_order(lam, log_moment, epsilon, ln, method):
    """ln(delta) of a Rényi bound at a given epsilon; the inverse of :func:`_epsilon_at_order`.

    ``classic``: ``log_moment - lam * epsilon``; ``cks``: additionally
    ``+ lam * ln(lam / (lam + 1)) - ln(lam + 1)``.
    """
    if method == "classic":
        return log_moment - lam * epsilon
    return log_moment - lam * epsilon + lam * (ln(lam) - ln(lam + 1)) - ln(lam + 1)


@constrained(order_alpha=Interval(float, 1, math.inf, closed="right"),
             rdp_value=Interval(float, 0, math.inf, closed="both"), delta=DELTA, method=RDP_METHODS)
def rdp_to_dp(order_alpha, rdp_value, delta, *, method="cks"):
    """epsilon such that an (alpha, D)-Rényi-DP mechanism is (epsilon, delta)-DP.

    With ``method="cks"`` (default) the conversion of [1]_ Prop. 12 and
    [2]_ Thm. 21,

    ``epsilon = D + ln((alpha - 1)/alpha) - (ln(delta) + ln(alpha)) / (alpha - 1)``;

    with ``method="classic"`` Mironov's ([3]_ Prop. 3)
    ``epsilon = D + ln(1/delta) / (alpha - 1)``, which is PATE's tail bound
    (Theorem 1) with ``lambda = alpha - 1``. The ``cks`` value is smaller at
    every order. A negative value is reported as 0 (an (epsilon', delta)
    guarantee with epsilon' < 0 implies (0, delta)).

    Parameters
    ----------
    order_alpha : float in (1, inf]
        Rényi order. ``inf`` means ``D`` is a max-divergence (pure DP): the
        result is ``D`` for every ``delta``, including 0.
    rdp_value : float in [0, inf]
        ``D``, the Rényi divergence bound at ``order_alpha``; ``inf`` gives ``inf``.
    delta : float in [0, 1)
        Target delta. ``delta = 0`` at a finite order gives ``inf``.
    method : {"cks", "classic"}, default "cks"

    Returns
    -------
    float
        An upper bound of the exact epsilon (interval evaluation, rounded up),
        clipped below at 0.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above, NaN, or ``method`` is unknown.

    References
    ----------
    .. [1] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020 (arXiv:2004.00010).
    .. [2] B. Balle, G. Barthe, M. Gaboardi, J. Hsu and T. Sato, "Hypothesis
       Testing Interpretations and Rényi Differential Privacy", AISTATS 2020.
    .. [3] Ilya Mironov, "Rényi Differential Privacy", CSF 2017.
    """
    if math.isinf(order_alpha) or math.isinf(rdp_value):
        return rdp_value
    if delta == 0.0:
        return math.inf
    with interval_context() as iv:
        lam = iv.mpf(order_alpha) - 1
        value = _epsilon_at_order(lam, lam * iv.mpf(rdp_value),
                                       -iv.ln(iv.mpf(delta)), iv.ln, method)
        return max(0.0, ceil_interval(value))
