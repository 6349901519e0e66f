"""PATE Theorem 1 (tail bound), the Rényi conversion, and Theorem 2, against an exact privacy profile.

Claim
    (1) For the k-fold product of randomized-response pairs with parameter
    epsilon_0, whose exact log-moments and exact delta(epsilon) (the
    Kairouz–Oh–Viswanath sum) are known, ``refdp.accounting.moments_to_dp``
    fed with the exact log-moments (rounded up) at ``DEFAULT_ORDERS`` returns,
    for each of the tail bound and the Rényi conversion: given delta, an
    epsilon with exact_delta(epsilon) <= delta; given epsilon, a delta >=
    exact_delta(epsilon). The Rényi values are never looser than the tail
    bound's.
    (2) ``refdp.accounting.pate_data_independent_log_moments(gamma, orders, T)``
    is >= the exact log-moment of the T-fold product of randomized-response
    pairs with parameter 2 gamma, the largest log-moment any T-fold
    composition of (2 gamma)-DP mechanisms can have (PATE Theorem 2 composed
    by Theorem 1.1).
Preconditions
    Randomized response dominates every epsilon-DP mechanism in every
    f-divergence and Rényi divergence (docs/theory/accounting.rst).
Precision
    Interval arithmetic with outward rounding at 40 digits
    (decide_leq_interval; certified; fail closed); the log-moments fed to
    moments_to_dp are floats above their enclosures.
"""

from fractions import Fraction

from proofs_checks.common.accounting import float_above, kov_sum, rr_log_moment
from refdp.accounting import DEFAULT_ORDERS, moments_to_dp, pate_data_independent_log_moments
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import raw_to_fraction
from refdp.verify.verdict import Verdict, decide_leq_interval, worst_verdict

DPS = 40


def _ratio(lhs, rhs):
    """An upper bound of lhs / rhs from their enclosures (rhs > 0), exactly."""
    hi = raw_to_fraction(lhs._mpi_[1])
    lo = raw_to_fraction(rhs._mpi_[0]) if hasattr(rhs, "_mpi_") else Fraction(rhs)
    return hi / lo


def rr_log_moments_above(epsilon0, k):
    """The exact log-moments of the k-fold RR product at DEFAULT_ORDERS, each rounded up."""
    return [float_above(lambda c, lam=lam: rr_log_moment(epsilon0, lam, k, c)) for lam in DEFAULT_ORDERS]


@register("pate.theorem_1_conversions_valid_for_rr_product",
          "tail-bound and Renyi conversions of exact RR-product log-moments give (epsilon, delta) "
          "with exact_delta(epsilon) <= delta, both given delta and given epsilon",
          covers=("refdp.accounting.moments_to_dp",))
def conversions_valid():
    verdicts, worst, where = [], Fraction(0), ""
    for epsilon0 in (0.1, 0.5, 1.0):
        for k in (1, 10, 100):
            lm = rr_log_moments_above(epsilon0, k)
            for delta in (1e-3, 1e-6, 1e-9):
                r = moments_to_dp(lm, DEFAULT_ORDERS, delta=delta)
                verdicts.append(Verdict.HOLDS if r.epsilon_rdp <= r.epsilon_tail else Verdict.FAILS)
                for name, eps in (("tail", r.epsilon_tail), ("rdp", r.epsilon_rdp)):
                    v, lhs, _ = decide_leq_interval(lambda c: kov_sum(epsilon0, k, eps, c), lambda c: delta, DPS)
                    verdicts.append(v)
                    ratio = _ratio(lhs, delta)
                    if ratio > worst:
                        worst, where = ratio, f"{name}, epsilon0={epsilon0}, k={k}, delta={delta}"
            for fraction in (0.3, 0.6, 0.9):
                eps = fraction * k * epsilon0  # below k epsilon0, so the exact delta is positive
                r = moments_to_dp(lm, DEFAULT_ORDERS, epsilon=eps)
                verdicts.append(Verdict.HOLDS if r.delta_rdp <= r.delta_tail else Verdict.FAILS)
                for name, d in (("tail", r.delta_tail), ("rdp", r.delta_rdp)):
                    v, lhs, rhs = decide_leq_interval(lambda c: kov_sum(epsilon0, k, eps, c), lambda c: d, DPS)
                    verdicts.append(v)
                    ratio = _ratio(lhs, rhs)
                    if ratio > worst:
                        worst, where = ratio, f"{name}, epsilon0={epsilon0}, k={k}, epsilon={eps}"
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest exact_delta / reported delta (an upper bound) "
                       f"for {where}", method="certified")


@register("pate.theorem_2_bounds_exact_log_moments",
          "T min(2 gamma^2 lambda (lambda+1), 2 gamma lambda) >= exact log-moment of the T-fold "
          "RR product with parameter 2 gamma, at every default order",
          covers=("refdp.accounting.pate_data_independent_log_moments",))
def theorem_2_bounds_exact():
    verdicts, worst, where = [], Fraction(0), ""
    for gamma in (0.01, 0.05, 0.2, 1.0):
        for n_queries in (1, 100):
            bound = pate_data_independent_log_moments(gamma, DEFAULT_ORDERS, n_queries)
            for lam, b in zip(DEFAULT_ORDERS, bound):
                v, lhs, rhs = decide_leq_interval(lambda c: rr_log_moment(2 * gamma, lam, n_queries, c),
                                                  lambda c: b, DPS)
                verdicts.append(v)
                ratio = _ratio(lhs, rhs)
                if ratio > worst:
                    worst, where = ratio, f"gamma={gamma}, T={n_queries}, lambda={lam}"
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions; largest exact / bound (an upper bound) at {where}",
                       method="certified")
