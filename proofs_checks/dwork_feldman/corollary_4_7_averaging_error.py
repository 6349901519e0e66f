"""Closed form of the averaged prediction's law and its extra error, checked exactly.

Claim
    (Derived in docs/theory/soft_majority.rst.) For
    Z ~ Laplace(0, b) and v in [0, 1],
    g(v) = E[clip(v + Z, 0, 1)] = v + (b/2)(e^{-v/b} - e^{-(1-v)/b}), and the
    extra expected error of the private bit over the averaged vote,
    sup_v |g(v) - v| = (b/2)(1 - e^{-1/b}), is at most E|Z| = b = 1/(eps k)
    (Dwork & Feldman 2018, Lemma 4.5 and Corollary 4.7).
Setting
    Closed form (:func:`refdp.prediction.clipped_laplace_mean`, exact) against
    an independent evaluation of the expectation by mpmath quadrature of the
    piecewise integrand (breakpoints at -v, 0 and 1 - v), for v on a grid of
    [0, 1] and b from 1e-3 to 1e3; the double-precision closed form against the
    exact one; the extra error at v = j/k for every j, for k in {1, 2, 5, 20,
    100} and eps in {0.1, 0.5, 1, 4}, against 1/(eps k); and
    :func:`refdp.prediction.averaging_extra_error_bound` (both variants) never
    below the exact value.
Precision
    The closed form against quadrature is decided by
    ``refdp.verify.decide_leq`` at 30 and 70 digits (estimated: quadrature
    carries no error bound); the extra-error claims are decided in interval
    arithmetic with outward rounding (``decide_leq_interval``, certified).
    UNDECIDED fails; the float comparisons use the exact binary value of each
    double.
"""
from __future__ import annotations

import itertools
import threading
from fractions import Fraction

import mpmath

from refdp.utils.precision import ctx_expm1, ctx_rational, mp_context, raw_to_fraction, refined
from refdp.prediction import averaging_extra_error_bound, clipped_laplace_mean
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_leq, decide_leq_interval, lower, upper, worst_verdict

DPS = 30
V_GRID = tuple(Fraction(j, 16) for j in range(17)) + (Fraction(1, 3), Fraction(1, 1000))
B_GRID = (Fraction(1, 1000), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(7, 3),
          Fraction(100), Fraction(1000))


_LOCAL = threading.local()


def _quad_context(prec):
    """A real context at ``prec`` bits, one per thread and precision (it keeps mpmath's quadrature nodes)."""
    cache = _LOCAL.__dict__.setdefault("contexts", {})
    if prec not in cache:
        cache[prec] = refined(mp_context(5), prec - mp_context(5).prec)
    return cache[prec]


def quadrature(v, b, c=None):
    """E[clip(v + Z, 0, 1)] by numerical integration against the Laplace density.

    Computed in the real mpmath context ``c`` (default: one at 50 digits).
    """
    c = mp_context(50) if c is None else c
    v, b = ctx_rational(c, v), ctx_rational(c, b)

    def density(z):
        return c.exp(-abs(z) / b) / (2 * b)

    # clip(v + z) = 0 for z < -v, v + z on [-v, 1 - v], 1 for z > 1 - v
    middle = c.quad(lambda z: (v + z) * density(z), [-v, 0, 1 - v] if 0 < v < 1 else [-v, 1 - v])
    upper = c.exp(-(1 - v) / b) / 2 if v < 1 else 1 - c.exp((1 - v) / b) / 2  # P[Z > 1 - v]
    return middle + upper


def closed_form_vs_quadrature(v_grid, b_grid):
    verdicts, worst = [], None
    for v, b in itertools.product(v_grid, b_grid):
        def diff(c, v=v, b=b):
            w = _quad_context(c.prec + 67)     # 20 guard digits
            return c.mpf(abs(clipped_laplace_mean(v, b, ctx=w) - quadrature(v, b, w)))

        verdict, lhs, rhs = decide_leq(diff, lambda c: ctx_rational(c, Fraction(1, 10**25)), dps=DPS)
        verdicts.append(verdict)
        if worst is None or lhs > worst[1] or not verdict.passed:
            worst = (verdict, lhs, rhs, f"v={v}, b={b}")
    return worst_verdict(verdicts), worst, len(verdicts)


def float_vs_exact(v_grid, b_grid):
    verdicts, worst = [], None
    for v, b in itertools.product(v_grid, b_grid):
        f = clipped_laplace_mean(float(v), float(b))

        def err(c, v=v, b=b, f=f):
            exact = clipped_laplace_mean(Fraction(float(v)), Fraction(float(b)), ctx=c)
            return abs(ctx_rational(c, Fraction(f)) - exact)

        verdict, lhs, rhs = decide_leq_interval(err, lambda c: ctx_rational(c, Fraction(1, 2**50)), dps=DPS)
        lhs, rhs = upper(lhs), lower(rhs)
        verdicts.append(verdict)
        if worst is None or lhs > worst[1] or not verdict.passed:
            worst = (verdict, lhs, rhs, f"v={float(v)!r}, b={float(b)!r}")
    return worst_verdict(verdicts), worst, len(verdicts)


def closed_form_result(v_grid, b_grid):
    v1, w1, n1 = closed_form_vs_quadrature(v_grid, b_grid)
    v2, w2, n2 = float_vs_exact(V_GRID, B_GRID)
    verdict = worst_verdict((v1, v2))
    detail = (f"{n1} (v, b) pairs: largest |closed form - quadrature| {mpmath.nstr(w1[1], 5)} at {w1[3]} "
              f"({v1}); {n2} pairs: largest |float - exact| {mpmath.nstr(w2[1], 5)} at {w2[3]} "
              f"vs 2^-50 ({v2})")
    main = w1 if not v1.passed or v2.passed else w2
    return CheckResult(main[1], main[2], verdict, DPS, detail, method="estimated")


@register("dwork_feldman.averaging_closed_form",
          "E[clip(v + Lap(b), 0, 1)] = v + (b/2)(e^(-v/b) - e^(-(1-v)/b)): closed form equals mpmath "
          "quadrature to 1e-25 (v in {0, 1/3, 1/2, 5/8, 1}, b in {1e-3, 1/2, 7/3, 1e3}) and the "
          "double-precision version is within 2^-50 of it (19 v x 7 b)",
          covers=("refdp.prediction.averaging.clipped_laplace_mean",
                  "refdp.prediction.averaging.AveragedPrediction.predict"))
def closed_form():
    return closed_form_result((Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(5, 8), Fraction(1)),
                              (Fraction(1, 1000), Fraction(1, 2), Fraction(7, 3), Fraction(1000)))


@register("dwork_feldman.averaging_closed_form_full",
          "as dwork_feldman.averaging_closed_form, quadrature on 19 values of v in [0, 1] and 7 of b in [1e-3, 1e3]",
          covers=("refdp.prediction.averaging.clipped_laplace_mean",),
          quick=False)
def closed_form_full():
    return closed_form_result(V_GRID, B_GRID)


def extra_error_rows(epsilons=(0.1, 0.5, 1.0, 4.0), ks=(1, 2, 5, 20, 100)):
    """Decide max_j |g(j/k) - j/k| <= 1/(eps k), and the float bounds >= exact values."""
    verdicts, rows = [], []
    for eps, k in itertools.product(epsilons, ks):
        b = 1 / (Fraction(eps) * k)

        def extra(c, b=b, k=k):
            # an enclosure of max_j |g(j/k) - j/k|: the maxima of the end points
            vals = [abs(clipped_laplace_mean(Fraction(j, k), b, ctx=c) - ctx_rational(c, Fraction(j, k)))
                    for j in range(k + 1)]
            return c.mpf([max(lower(v) for v in vals), max(upper(v) for v in vals)])

        def tight_exact(c, b=b):
            bm = ctx_rational(c, b)
            return bm / 2 * -ctx_expm1(c, -1 / bm)

        paper = averaging_extra_error_bound(eps, k)
        tight = averaging_extra_error_bound(eps, k, tight=True)
        checks = (
            decide_leq_interval(extra, lambda c: ctx_rational(c, b), dps=DPS),        # extra <= 1/(eps k)
            decide_leq_interval(lambda c: abs(extra(c) - tight_exact(c)),             # extra = tight sup
                                lambda c: ctx_rational(c, Fraction(1, 10**25)), dps=DPS),
            decide_leq_interval(tight_exact, lambda c: tight, dps=DPS),               # tight float >= exact
        )
        verdicts.extend(c[0] for c in checks)
        # the paper's bound as a float is >= 1/(eps k): both rational, compared exactly
        verdicts.append(Verdict.HOLDS if Fraction(paper) >= b else Verdict.FAILS)
        rows.append((eps, k, upper(checks[0][1]), lower(checks[0][2])))
    return worst_verdict(verdicts), rows


@register("dwork_feldman.averaging_extra_error",
          "extra expected error of the averaged private bit, max_v |g(v) - v| = (b/2)(1 - e^(-1/b)), is "
          "<= 1/(eps k); averaging_extra_error_bound never below the exact values (eps in {0.1..4}, "
          "k in {1..100})",
          covers=("refdp.prediction.averaging.averaging_extra_error_bound",
                  "refdp.prediction.averaging.clipped_laplace_mean"))
def extra_error():
    verdict, rows = extra_error_rows()
    worst = max(rows, key=lambda r: raw_to_fraction(r[2]._mpf_) / raw_to_fraction(r[3]._mpf_))
    detail = (f"{len(rows)} (eps, k) pairs, 4 claims each ({verdict}); largest ratio extra/(1/(eps k)) = "
              f"{mpmath.nstr(worst[2] / worst[3], 8)} at eps={worst[0]}, k={worst[1]} "
              f"(extra {mpmath.nstr(worst[2], 8)} vs {mpmath.nstr(worst[3], 8)})")
    return CheckResult(worst[2], worst[3], verdict, DPS, detail, method="certified")
