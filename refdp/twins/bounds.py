"""Twin of ``refdp/_bounds.pxd``: the upward-rounded bounds shared by the compiled modules.

One Python statement per formula, under the name it has in the header, with
the same floating-point operations in the same order, so that a double given
to both returns the same double. Every function but :func:`lemma4_margin` takes NumPy
arrays too (elementwise, same operations). The Python side of refdp takes these margins
from here and nowhere else (:mod:`refdp.twins.core`,
:mod:`refdp.pate.accountant`); the proofs are in
``docs/theory/floating_point.rst``.
"""
from __future__ import annotations

import math

from ..utils.rounding import MACHINE_EPSILON, UNIT_ROUNDOFF

__all__ = ["EPS", "UNIT_ROUNDOFF", "pate_theorem2", "pate_theorem2_bound", "pure_dp_log_moment",
           "pure_dp_log_moment_bound",
           "theorem3_threshold", "theorem3_slack", "theorem3_margin", "lemma4_margin",
           "upward_sum_factor"]

#: 2**-52, the spacing of doubles at 1, and 2**-53, the unit roundoff of
#: round-to-nearest doubles: the constants of :mod:`refdp.utils.rounding`
#: (the header's ``EPS`` and ``UNIT_ROUNDOFF``).
EPS = MACHINE_EPSILON


def pate_theorem2(gamma, lam):
    """PATE Theorem 2's ``2 gamma**2 lambda (lambda + 1)`` for one LNMax answer, in doubles."""
    return 2.0 * gamma * gamma * lam * (lam + 1.0)


def pate_theorem2_bound(gamma, lam):
    """:func:`pate_theorem2` rounded upward (5 roundings: relative error below ``6 EPS``)."""
    return pate_theorem2(gamma, lam) * (1.0 + 8.0 * EPS)


def pure_dp_log_moment(gamma, lam):
    """``2 gamma lambda``, the log-moment bound of a (2 gamma)-DP answer, in doubles."""
    return 2.0 * gamma * lam


def pure_dp_log_moment_bound(gamma, lam):
    """:func:`pure_dp_log_moment` rounded upward."""
    return pure_dp_log_moment(gamma, lam) * (1.0 + 4.0 * EPS)


def theorem3_threshold(E):
    """``1 / (E + 1)`` lowered by a few ulps (``E = exp(2 gamma)``): Theorem 3 applies below it."""
    return (1.0 / (E + 1.0)) * (1.0 - 8.0 * EPS)


def theorem3_slack(x):
    """Rounding of ``log1p(-x)``, ``x = exp(2 gamma) q < 1``, carried into Theorem 3's margin."""
    return 8.0 * EPS * x / (1.0 - x)


def theorem3_margin(lam, a1, a2, lq_abs, g2l, val, slack_x):
    """Upward margin of the computed Theorem 3 bound ``val``."""
    return 64.0 * EPS * ((1.0 + lam) * abs(a1) + lam * abs(a2) + lq_abs
                         + g2l + abs(val) + 1.0) + (1.0 + 2.0 * lam) * slack_x


def lemma4_margin(lse, zbar, n_classes):
    """Upward margin of the streamed log of Lemma 4's q (scalars only)."""
    return 8.0 * EPS * (zbar + math.log(2.0 + zbar) + abs(lse) + 2.0 * n_classes + 8.0)


def upward_sum_factor(n):
    """A sequential sum of ``n`` non-negative doubles, times this factor, is >= the exact sum."""
    return 1.0 + (n + 2) * EPS
