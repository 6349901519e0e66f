"""Pure DP -> zCDP, zCDP -> (epsilon, delta) and Rényi DP -> (epsilon, delta), against exact profiles.

Claim
    (1) ``pure_dp_to_zcdp``: for every epsilon-DP mechanism and order alpha > 1,
    D_alpha <= alpha * rho with rho = pure_dp_to_zcdp(epsilon); decided against
    randomized response, the worst case.
    (2) ``rdp_to_dp`` (both methods) and ``zcdp_to_dp``: for the k-fold
    product of randomized-response pairs with parameter epsilon_0, the
    epsilon returned from its exact Rényi divergence (rounded up) at an order,
    or from its zCDP parameter k epsilon_0**2 / 2, satisfies
    exact_delta(epsilon) <= delta, with exact_delta the Kairouz–Oh–Viswanath sum.
    The ``cks`` epsilon is never above the ``classic`` one.
Preconditions
    Randomized response dominates every epsilon-DP mechanism in Rényi and
    hockey-stick divergence (docs/theory/accounting.rst).
Precision
    Interval arithmetic with outward rounding at 40 digits
    (decide_leq_interval; certified; fail closed); the Renyi divergences fed
    to rdp_to_dp are floats above their enclosures.
"""
from fractions import Fraction

from proofs_checks.common.accounting import float_above, kov_sum, rr_log_moment
from refdp.accounting import (pure_dp_to_zcdp, rdp_to_dp, zcdp_composition, zcdp_to_dp)
from refdp.utils.precision import raw_to_fraction
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_leq_interval, worst_verdict

DPS = 40


@register("mironov.pure_dp_to_zcdp_bounds_renyi",
          "D_alpha(RR_eps) <= alpha * pure_dp_to_zcdp(eps) for a grid of eps and alpha > 1",
          covers=("refdp.accounting.pure_dp_to_zcdp",))
def pure_to_zcdp():
    verdicts, worst, where = [], Fraction(0), ""
    for epsilon in (0.01, 0.1, 1.0, 3.0, 10.0):
        rho = pure_dp_to_zcdp(epsilon)
        for alpha in (1.0625, 1.5, 2.0, 4.0, 16.0, 128.0):
            v, lhs, rhs = decide_leq_interval(lambda c: rr_log_moment(epsilon, alpha - 1, 1, c) / (alpha - 1),
                                              lambda c: alpha * c.mpf(rho), DPS)
            verdicts.append(v)
            ratio = raw_to_fraction(lhs._mpi_[1]) / raw_to_fraction(rhs._mpi_[0])
            if ratio > worst:
                worst, where = ratio, f"epsilon={epsilon}, alpha={alpha}"
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest D_alpha / (alpha rho) (an upper bound) at {where}",
                       method="certified")


@register("mironov.rdp_and_zcdp_to_dp_valid_for_rr_product",
          "rdp_to_dp (cks, classic) and zcdp_to_dp give epsilon with exact_delta(epsilon) <= delta "
          "for the k-fold RR product",
          covers=("refdp.accounting.rdp_to_dp", "refdp.accounting.zcdp_to_dp"))
def conversions_to_dp():
    verdicts, worst, where = [], Fraction(0), ""
    for epsilon0 in (0.05, 0.5, 2.0):
        for k in (1, 10, 50):
            rho = zcdp_composition([pure_dp_to_zcdp(epsilon0)] * k)
            for delta in (1e-2, 1e-6, 1e-10):
                candidates = [("zcdp", zcdp_to_dp(rho, delta))]
                for alpha in (1.5, 2.0, 8.0, 32.0):
                    renyi = float_above(lambda c: rr_log_moment(epsilon0, alpha - 1, k, c) / (alpha - 1))
                    cks = rdp_to_dp(alpha, renyi, delta)
                    classic = rdp_to_dp(alpha, renyi, delta, method="classic")
                    verdicts.append(Verdict.HOLDS if cks <= classic else Verdict.FAILS)
                    candidates += [(f"cks alpha={alpha}", cks), (f"classic alpha={alpha}", classic)]
                for name, eps in candidates:
                    v, lhs, _ = decide_leq_interval(lambda c: kov_sum(epsilon0, k, eps, c), lambda c: delta, DPS)
                    verdicts.append(v)
                    ratio = raw_to_fraction(lhs._mpi_[1]) / Fraction(delta)
                    if ratio > worst:
                        worst, where = ratio, f"{name}, epsilon0={epsilon0}, k={k}, delta={delta}"
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest exact_delta(epsilon) / delta (an upper bound) for "
                       f"{where}", method="certified")
