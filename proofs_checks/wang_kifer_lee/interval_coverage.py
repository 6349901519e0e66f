"""Private confidence intervals: measured coverage at one comfortable setting (Wang, Kifer and Lee 2019).

Claim
    (derived, asymptotic; docs/theory/erm_inference.rst) The 95% intervals of
    refdp.erm.private_confidence_intervals cover the regularised population
    minimiser theta* with probability close to 0.95 once n is large enough.
    This check re-measures one setting of the coverage study of
    docs/erm_inference.rst and passes if, for each coordinate, the one-sided
    99% Clopper-Pearson lower bound on the coverage is at least 0.90.
Setting
    Population of proofs_checks/wang_kifer_lee/population.py (x uniform on
    the unit disc, P[y = 1 | x] = 1 / (1 + exp(-(3, -1.5)^T x))), logistic
    loss, Lambda = 0.05, n = 5000, output perturbation under zCDP with
    rho = 2 (closed-form intervals), default split (0.8, 0.1, 0.1);
    R = 1500 repetitions, each a fresh sample and fresh noise (SeedSequence
    2019, one child per repetition). theta* by quadrature (error estimate
    below 1e-12 for this loss).
Precision
    Statistical. The check fails when some coordinate has fewer than
    k* = 1377 covering repetitions out of 1500 (the smallest count whose
    Clopper-Pearson lower bound at error 0.01 is at least 0.90, computed with
    refdp.audit.clopper_pearson_lower). False-failure rate (exact binomial
    tails, two coordinates, union bound): 2 P[Bin(1500, p) < 1377] = 1.2e-7
    if the true coverage is p = 0.95, 1.3e-5 at 0.945, 5.1e-4 at 0.94 and
    0.066 at 0.93 (the study of docs/erm_inference.rst measured 0.947 and
    0.945 here, with other samples). The result is
    deterministic for the fixed seed; the rates describe the choice of seed.
"""
from __future__ import annotations

import numpy as np

from proofs_checks.wang_kifer_lee.population import population_minimiser, sample
from refdp.audit import clopper_pearson_lower
from refdp.erm import LogisticLoss, private_confidence_intervals
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

N, RHO, LAMBDA, REPS, SEED, BETA, FLOOR = 5000, 2.0, 0.05, 1500, 2019, 0.01, 0.90


def run(reps=REPS) -> CheckResult:
    loss = LogisticLoss()
    hits, target, widths = np.zeros(2), None, []
    for child in np.random.SeedSequence(SEED).spawn(reps):
        data_seq, noise_seq = child.spawn(2)
        X, y = sample(N, np.random.default_rng(data_seq))
        ci = private_confidence_intervals(X, y, loss, regularization=LAMBDA, rho=RHO, method="output",
                                          rng=np.random.default_rng(noise_seq))
        if target is None:
            target, err = population_minimiser(loss, ci.regularization)
        hits += ci.covers(target)
        widths.append(ci.width)
    lower = [clopper_pearson_lower(int(h), reps, BETA) for h in hits]
    verdict = Verdict.HOLDS if min(lower) >= FLOOR else Verdict.FAILS
    detail = (f"coverage {(hits / reps).round(4).tolist()} over {reps} repetitions, 99% CP lower bounds "
              f"{[round(v, 4) for v in lower]} (need >= {FLOOR}); mean widths "
              f"{np.mean(widths, axis=0).round(4).tolist()}; theta* = {target.round(8).tolist()} "
              f"(quadrature error estimate {err:.1e})")
    # the report reads measured <= bound: the miscoverage allowed by the lower bounds, against 1 - FLOOR
    return CheckResult(1.0 - min(lower), round(1.0 - FLOOR, 12), verdict, 0, detail, method="statistical")


@register("wang_kifer_lee.interval_coverage",
          "private confidence intervals: measured coverage of nominal 95% intervals (logistic, output "
          "perturbation, rho = 2, n = 5000, 1500 repetitions) has a 99% Clopper-Pearson lower bound >= 0.90 "
          "on each coordinate (reported as miscoverage 1 - lower bound <= 0.10)",
          covers=("refdp.erm.private_confidence_intervals", "refdp.erm.confidence_intervals"),
          quick=False)
def interval_coverage() -> CheckResult:
    return run()
