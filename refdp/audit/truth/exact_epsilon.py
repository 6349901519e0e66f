"""The exact epsilon of a mechanism on one ordered pair, from its exact law.

``epsilon(D -> D') = sup_o ln p_D(o) / p_D'(o)`` over the outputs ``o`` with
``p_D(o) > 0`` (probabilities for a discrete output, densities for a
continuous one; infinite when ``p_D'(o) = 0 < p_D(o)``). The exact epsilon of
the unordered pair is the larger of the two directions.

:class:`PairEpsilon` holds a certified enclosure ``[lower, upper]`` (exact
rationals, or infinity) with the output attaining the lower end.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from mpmath import libmp

from ...utils.precision import raw_to_fraction

__all__ = ["PairEpsilon", "discrete_epsilon", "interval_ends", "combine_max", "combine_sum"]


def interval_ends(x):
    """``(lower, upper)`` of an interval as exact Fractions (or +-inf)."""
    out = []
    for raw in x._mpi_:
        if raw == libmp.finf:
            out.append(math.inf)
        elif raw == libmp.fninf:
            out.append(-math.inf)
        elif raw == libmp.fnan:
            raise ValueError("an enclosure is not a number")
        else:
            out.append(raw_to_fraction(raw))
    return tuple(out)


@dataclass
class PairEpsilon:
    """Enclosure of ``sup_o ln p_D(o)/p_D'(o)`` for one ordered pair.

    Attributes
    ----------
    lower, upper : Fraction or float
        The exact value lies in ``[lower, upper]`` (both ``inf`` when it is
        certified infinite).
    witness : object
        An output (or a description of outputs) attaining the lower end.
    """

    lower: object
    upper: object
    witness: object

    @property
    def infinite(self) -> bool:
        return self.lower == math.inf

    def __float__(self):
        return float(self.lower)


def discrete_epsilon(ctx, law_d: dict, law_e: dict) -> PairEpsilon:
    """``sup_o ln P_D(o) / P_D'(o)`` for two finite laws ``{output: interval probability}``.

    A probability that is exactly zero (a point interval at 0, produced only
    by structurally empty integrands) is trusted as zero; any other
    probability must be certified positive or the comparison fails closed
    with ValueError.
    """
    best = None
    for o, p in law_d.items():
        lo_p, hi_p = interval_ends(p)
        if hi_p == 0:
            continue
        q = law_e.get(o, ctx.mpf(0))
        lo_q, hi_q = interval_ends(q)
        if hi_q == 0:
            if lo_p > 0:
                return PairEpsilon(math.inf, math.inf, o)
            raise ValueError(f"cannot certify that P({o!r}) > 0 where the other probability is 0")
        if not (lo_p > 0 and lo_q > 0):
            raise ValueError(f"cannot certify the sign of the probabilities of {o!r}")
        lo, hi = interval_ends(ctx.ln(p) - ctx.ln(q))
        if best is None or lo > best.lower:
            best = PairEpsilon(lo, max(hi, best.upper) if best else hi, o)
        elif hi > best.upper:
            best.upper = hi
    if best is None:
        raise ValueError("the first law gives no output a positive probability")
    return best


def combine_max(parts):
    """The enclosure of ``max`` of several suprema."""
    best = None
    for p in parts:
        if best is None or p.lower > best.lower:
            best = PairEpsilon(p.lower, max(p.upper, best.upper) if best else p.upper, p.witness)
        else:
            best.upper = max(best.upper, p.upper)
    return best


def combine_sum(a, b, witness):
    """The enclosure of the supremum of a sum of functions of independent outputs."""
    return PairEpsilon(a.lower + b.lower, a.upper + b.upper, witness)
