"""PATE's student never spends more than its privacy budget.

Claim
    For every (gamma, delta, target epsilon) of a grid,
    ``refdp.pate.data_independent_budget`` returns the largest number T of
    LNMax answers whose data-independent epsilon (Theorem 2 composed by
    Theorem 1, converted by the tail bound and by the Rényi conversion, the
    smaller kept) is at most the target: the exact epsilon at T is <= the
    target and the exact epsilon at T + 1 exceeds it (up to 1e-9, the
    rounding of the float conversion). ``refdp.pate.PATEStudent.fit``, run on
    small data with random and least-confident selection, answers exactly
    min(T, number of public points, max_queries) label queries, and its
    reported epsilon is at most the target.
Reference
    The epsilons are recomputed here in mpmath from the formulas
    ``eps_tail = min_l (T m(l) + ln(1/delta)) / l`` and
    ``eps_rdp = min_l max(0, (T m(l) + ln(1/delta) - ln(l + 1)) / l + ln(l / (l + 1)))``
    with ``m(l) = min(2 gamma^2 l (l + 1), 2 gamma l)`` over
    ``refdp.accounting.DEFAULT_ORDERS`` (Canonne, Kamath and Steinke 2020, Prop. 12).
Precision
    Interval arithmetic with outward rounding at 30 digits
    (decide_leq_interval; certified; fail closed).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from refdp.accounting import DEFAULT_ORDERS
from refdp.pate import PATEStudent, PATETeachers, data_independent_budget
from refdp.verify.registry import CheckResult, register
from refdp.utils.precision import ctx_rational, raw_to_fraction
from refdp.verify.verdict import Verdict, decide_leq_interval, lower, upper, worst_verdict

DPS = 30


def _extreme(c, values, pick):
    """Enclosure of ``pick`` (min or max) of the values enclosed by ``values`` (interval context ``c``)."""
    values = [c.convert(v) for v in values]
    return c.mpf([pick(lower(v) for v in values), pick(upper(v) for v in values)])


def exact_epsilon(gamma, delta, n, c):
    """min over DEFAULT_ORDERS of the tail-bound and Rényi epsilons of n answers, enclosed in ``c``."""
    g, log_inv = c.mpf(gamma), -c.log(c.mpf(delta))
    best = None
    for lam_f in DEFAULT_ORDERS:
        lam = c.mpf(float(lam_f))
        m = n * _extreme(c, (2 * g * g * lam * (lam + 1), 2 * g * lam), min)
        tail = (m + log_inv) / lam
        rdp = _extreme(c, (0, (m + log_inv - c.log(lam + 1)) / lam + c.log(lam / (lam + 1))), max)
        best = _extreme(c, (tail, rdp) if best is None else (best, tail, rdp), min)
    return best


class _Nearest:
    def fit(self, X, y):
        self.X_, self.y_ = np.asarray(X, float), np.asarray(y)
        return self

    def predict(self, X):
        return self.y_[np.argmin(np.abs(np.asarray(X, float)[:, None, 0] - self.X_[None, :, 0]), axis=1)]


class _Logistic1D:
    """Tiny deterministic probabilistic student: class frequencies on each side of 0."""

    def fit(self, X, y):
        X, y = np.asarray(X, float)[:, 0], np.asarray(y)
        self.classes_ = np.array([0, 1])
        self.left_ = (np.mean(y[X < 0] == 1) if np.any(X < 0) else 0.5)
        self.right_ = (np.mean(y[X >= 0] == 1) if np.any(X >= 0) else 0.5)
        return self

    def predict_proba(self, X):
        p1 = np.where(np.asarray(X, float)[:, 0] < 0, self.left_, self.right_)
        return np.column_stack([1 - p1, p1])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(int)


@register("pate.student_never_overspends",
          "the label budget is the largest T with data-independent epsilon <= target (exact), and "
          "PATEStudent.fit answers exactly that many queries",
          covers=("refdp.pate.PATEStudent.fit", "refdp.pate.data_independent_budget"))
def budget():
    verdicts, worst, where = [], Fraction(0), ""
    for gamma in (0.05, 0.2):
        for delta in (1e-5, 1e-3):
            for target in (0.5, 2.0, 8.0):
                T = data_independent_budget(gamma, delta, target)
                v, lhs, _ = decide_leq_interval(lambda c: exact_epsilon(gamma, delta, T, c),
                                                lambda c: target, DPS)
                verdicts.append(v)
                v2, _, _ = decide_leq_interval(lambda c: target - ctx_rational(c, Fraction(1, 10**9)),
                                               lambda c: exact_epsilon(gamma, delta, T + 1, c), DPS)
                verdicts.append(v2)
                ratio = raw_to_fraction(lhs._mpi_[1]) / Fraction(target)
                if ratio > worst:
                    worst, where = ratio, f"gamma={gamma}, delta={delta}, target={target}, T={T}"
    # the student itself
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 1))
    y = (X[:, 0] > 0).astype(int)
    ens = PATETeachers(10, _Nearest, rng=1).fit(X, y)
    public = rng.uniform(-1, 1, size=(40, 1))
    runs = 0
    for selection in ("random", "least_confident"):
        for target, cap in ((0.5, None), (3.0, None), (3.0, 7)):
            st = PATEStudent(_Logistic1D, gamma=0.1, delta=1e-5, target_epsilon=target, max_queries=cap,
                             selection=selection, batch_size=4, rng=2).fit(ens, public)
            T = data_independent_budget(0.1, 1e-5, target)
            expected = min(T, len(public), cap if cap is not None else T)
            ok = st.n_queries_ == expected and st.epsilon_ <= target and len(set(st.query_indices_)) == expected
            verdicts.append(Verdict.HOLDS if ok else Verdict.FAILS)
            runs += 1
    return CheckResult(float(worst), 1, worst_verdict(verdicts), DPS,
                       f"{len(verdicts)} decisions ({runs} student runs); largest exact epsilon at the "
                       f"budget / target <= {float(worst):.6g} at {where}", method="certified")
