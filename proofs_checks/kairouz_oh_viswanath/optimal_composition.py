"""The exact optimal composition of k epsilon-DP mechanisms, and every bound above it.

Claim
    (1) The Kairouz–Oh–Viswanath binomial sum equals the hockey-stick
    divergence of the k-fold product of randomized-response pairs summed over
    all 2**k output sequences, and ``refdp.accounting.optimal_composition_delta``
    is >= it and within a relative 2**-50 of it.
    (2) For every (epsilon, k, delta) of a grid, the epsilons returned by
    ``basic_composition``, ``advanced_composition``, the zCDP route
    (``pure_dp_to_zcdp``, ``zcdp_composition``, ``zcdp_to_dp``),
    ``pate_quick_composition`` (gamma = epsilon/2) and
    ``optimal_composition_epsilon`` all satisfy exact_delta(epsilon_returned)
    <= delta, i.e. each is a valid (epsilon, delta) for every k-fold
    composition; the optimal one is below basic, and not more than a relative
    1e-12 above the exact optimum; and zCDP <= PATE quick <= advanced.
Preconditions
    Randomized response dominates every epsilon-DP mechanism
    (docs/theory/accounting.rst), so the RR product's profile is the exact
    optimal composition (Kairouz, Oh and Viswanath 2015, Thm. 3.3).
Precision
    Interval arithmetic with outward rounding at 50 digits
    (decide_leq_interval; certified; fail closed). Signs of the binomial
    terms are decided exactly in rationals.
"""
import functools
from fractions import Fraction

from mpmath.ctx_iv import MPIntervalContext

from proofs_checks.common.accounting import kov_sum, rr_product_hockey_stick
from refdp.accounting import (advanced_composition, basic_composition, optimal_composition_delta,
                              optimal_composition_epsilon, pate_quick_composition,
                              pure_dp_to_zcdp, zcdp_composition, zcdp_to_dp)
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import ctx_rational, iv_context, raw_to_fraction
from refdp.verify.verdict import Verdict, decide_leq_interval, worst_verdict

DPS = 50


@functools.lru_cache(maxsize=None)
def _brute(epsilon, k, epsilon_total, prec):
    c = MPIntervalContext()
    c.prec = prec
    return rr_product_hockey_stick(epsilon, k, epsilon_total, c)


def brute(epsilon, k, epsilon_total, ctx):
    """Enclosure of the RR product's hockey-stick divergence in the interval context ``ctx`` (cached)."""
    return _brute(epsilon, k, epsilon_total, ctx.prec)


@register("kairouz_oh_viswanath.optimal_composition_equals_bruteforce",
          "KOV binomial sum == hockey-stick over all 2^k RR sequences; optimal_composition_delta "
          "is >= it and within 2^-50 relative",
          covers=("refdp.accounting.optimal_composition_delta",))
def kov_equals_bruteforce():
    verdicts, worst, where = [], Fraction(0), ""
    tol = Fraction(1, 10**30)
    for k in range(1, 7):
        for epsilon in (0.05, 0.5, 1.5):
            targets = {0.0, epsilon / 3, k * epsilon, k * epsilon + 1.0}
            targets |= {(k - 2 * j) * epsilon for j in range(k) if k - 2 * j >= 0}
            for et in sorted(targets):
                args = (epsilon, k, et)
                v, _, _ = decide_leq_interval(lambda c: abs(kov_sum(*args, c) - brute(*args, c)),
                                              lambda c: ctx_rational(c, tol), DPS)
                verdicts.append(v)
                returned = optimal_composition_delta(epsilon, k, et)
                if Fraction(et) >= k * Fraction(epsilon):
                    # no sequence has a likelihood ratio above e^et: the exact delta is 0
                    verdicts.append(Verdict.HOLDS if returned == 0.0 else Verdict.FAILS)
                    continue
                verdicts.append(decide_leq_interval(lambda c: brute(*args, c), lambda c: returned, DPS)[0])
                verdicts.append(decide_leq_interval(
                    lambda c: returned, lambda c: brute(*args, c) * (1 + ctx_rational(c, Fraction(1, 2**50))),
                    DPS)[0])
                exact = brute(*args, iv_context(DPS))
                rel = (Fraction(returned) - raw_to_fraction(exact._mpi_[0])) / raw_to_fraction(exact._mpi_[0])
                if rel > worst:
                    worst, where = rel, f"epsilon={epsilon}, k={k}, epsilon_total={et}"
    return CheckResult(float(worst), Fraction(1, 2**50), worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest relative excess of the float (an upper bound) "
                       f"at {where}", method="certified")


def _bounds(epsilon, k, delta):
    rho = zcdp_composition([pure_dp_to_zcdp(epsilon)] * k)
    return {
        "basic": basic_composition([epsilon] * k).epsilon,
        "advanced": advanced_composition(epsilon, k, delta).epsilon,
        "zcdp": zcdp_to_dp(rho, delta),
        "pate_quick": pate_quick_composition(epsilon / 2, k, delta),
        "optimal": optimal_composition_epsilon(epsilon, k, delta),
    }


@register("kairouz_oh_viswanath.composition_bounds_dominate_optimal",
          "basic, advanced, zCDP, PATE quick and optimal epsilons are valid for every k-fold "
          "composition of epsilon-DP mechanisms; optimal <= basic and is tight; zCDP <= quick <= advanced",
          covers=("refdp.accounting.basic_composition", "refdp.accounting.advanced_composition",
                  "refdp.accounting.zcdp_composition", "refdp.accounting.pate_quick_composition",
                  "refdp.accounting.optimal_composition_epsilon"))
def bounds_dominate_optimal():
    verdicts, worst, where = [], Fraction(0), ""
    for epsilon in (0.01, 0.1, 1.0, 2.0):
        for k in (1, 3, 20, 100):
            for delta in (1e-2, 1e-5, 1e-10):
                b = _bounds(epsilon, k, delta)
                for name, eps_total in b.items():
                    v, lhs, _ = decide_leq_interval(lambda c: kov_sum(epsilon, k, eps_total, c),
                                                    lambda c: delta, DPS)
                    verdicts.append(v)
                    ratio = raw_to_fraction(lhs._mpi_[1]) / Fraction(delta)
                    if ratio > worst:
                        worst, where = ratio, f"{name} at epsilon={epsilon}, k={k}, delta={delta}"
                below = b["optimal"] * (1 - 1e-12)
                if below > 0.0:  # tight: a slightly smaller epsilon needs a larger delta
                    verdicts.append(decide_leq_interval(lambda c: delta,
                                                        lambda c: kov_sum(epsilon, k, below, c), DPS)[0])
                for small, large in (("optimal", "basic"), ("zcdp", "pate_quick"),
                                     ("pate_quick", "advanced")):
                    verdicts.append(Verdict.HOLDS if b[small] <= b[large] else Verdict.FAILS)
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest exact_delta(epsilon)/delta (an upper bound) for "
                       f"{where}", method="certified")
