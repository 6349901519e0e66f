"""Averaging k learners trained on disjoint parts divides the stability rate by k (Lemma 4.6).

Claim
    Dwork & Feldman 2018, Lemma 4.6 (proof in docs/theory/stability.rst): if
    a learner has replace-one prediction-stability rate beta_m on datasets of
    m records, the average v(x) = (1/k) sum_j h_j(x) of the k learners
    trained on the parts of a partition of S into parts of m records, the
    partition being chosen independently of the records, satisfies
    |v_S(x) - v_S'(x)| <= beta_m / k on replace-one neighbours S, S', for
    every partition; StablePredictor calibrates its noise to
    lemma_4_6_averaged_rate(beta, k).
Setting
    1-D records x in {-1, 0, 1}, y in {-1, +1} (6 records); n = 4, k = 2
    (parts of m = 2, in the order StablePredictor uses: a permutation of the
    positions, split into consecutive blocks). Every one of the 24
    permutations, every one of the 6^4 sequences and every replace-one
    neighbour; sup over |x| <= 1 (attained at x = +-1). Learners: one-pass
    SGD with the Huber loss (delta = 1/4, eta = 1/2; beta_2 = 1/8) and Huber
    ERM (lam = 1; beta_2 = 1/4). The library's StablePredictor with
    ProjectedSGD, k = 2 and a fixed seed is fitted on 200 sampled sequences
    and its averaged prediction must agree with the exact one to 1e-12 (the
    exact computation uses the partition the predictor drew); its
    sensitivity must equal beta_2 / 2.
Precision
    Exact rational arithmetic throughout (the part learners run in
    rationals, as in proofs_checks.common.stability_search); the comparison
    max - min <= beta_m / k over each group of neighbours is exact.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from proofs_checks.common.stability_search import all_runs, huber_step, huber_erm_exact_1d
from refdp.prediction.convex import HuberLoss, ProjectedSGD
from refdp.prediction.stability import StablePredictor, lemma_4_6_averaged_rate
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict

F = Fraction
RECORDS = tuple(((x,), y) for x in (F(-1), F(0), F(1)) for y in (F(-1), F(1)))
N, K, M = 4, 2, 2
DELTA, ETA, LAM = F(1, 4), F(1, 2), F(1)
SEED = 4606
AGREEMENT = 1e-12


def part_values(kind):
    """Exact w of the learner on every part (sequence of M record indices)."""
    if kind == "sgd":
        runs = all_runs(RECORDS, M, huber_step, F(0), ETA, DELTA, None)
        beta_m = 2 * ETA * DELTA * F(M - 1, M)
        return {s: v[0] for s, v in runs.items()}, beta_m
    vals = {}
    for s in itertools.product(range(len(RECORDS)), repeat=M):
        vals[s] = huber_erm_exact_1d([RECORDS[i] for i in s], LAM, DELTA)
    return vals, 2 * DELTA / (LAM * M)


def exhaustive(kind):
    """Worst spread of K * v over groups of neighbours, in integers scaled by a common denominator."""
    vals, beta_m = part_values(kind)
    bound = beta_m / K
    den = math.lcm(*(v.denominator for v in vals.values()))
    ivals = {key: int(v * den) for key, v in vals.items()}
    limit = bound * K * den             # compare sum_j w_j (= K v) scaled by den
    worst, where, holds, pairs = 0, None, True, 0
    seqs = list(itertools.product(range(len(RECORDS)), repeat=N))
    for perm in itertools.permutations(range(N)):
        parts = [tuple(int(i) for i in p) for p in np.array_split(np.array(perm), K)]
        v = {s: sum(ivals[tuple(s[i] for i in p)] for p in parts) for s in seqs}
        for s in seqs:
            for i in range(N):
                if s[i] != 0:
                    continue
                group = [v[s[:i] + (r,) + s[i + 1:]] for r in range(len(RECORDS))]
                pairs += len(group) * (len(group) - 1) // 2
                spread = max(group) - min(group)
                if spread > limit:
                    holds = False
                if spread > worst:
                    worst, where = spread, (perm, s, i)
    return (F(worst, K * den), bound, beta_m, where, pairs,
            Verdict.HOLDS if holds else Verdict.FAILS)


def implementation_agreement(sample=200):
    vals, beta_m = part_values("sgd")
    sgd = ProjectedSGD(HuberLoss(float(DELTA)), float(ETA), 1.0)
    rng = np.random.default_rng(SEED)
    worst, sens_ok = 0.0, True
    for idx in rng.integers(0, len(RECORDS), size=(sample, N)):
        X = np.array([[float(RECORDS[i][0][0])] for i in idx])
        y = np.array([float(RECORDS[i][1]) for i in idx])
        sp = StablePredictor(sgd, float(beta_m), 1.0, k=K, rng=SEED).fit(X, y)
        sens_ok &= sp.sensitivity == lemma_4_6_averaged_rate(float(beta_m), K) == float(beta_m / K)
        got = F(float(sp._score(np.array([[1.0]]))[0]))
        exact = sum(vals[tuple(int(idx[i]) for i in p)] for p in sp._parts) / K
        worst = max(worst, float(abs(got - exact)))
    return worst, sens_ok


@register("dwork_feldman.lemma_4_6_averaging_stability",
          "averaging k learners on disjoint parts: |v_S(x) - v_S'(x)| <= beta_m / k for every "
          "partition, exhaustively (Huber SGD and Huber ERM parts)",
          covers=("refdp.prediction.stability.StablePredictor.predict",
                  "refdp.prediction.stability.lemma_4_6_averaged_rate"),
          quick=True)
def averaging_stability() -> CheckResult:
    verdicts, rows, top = [], [], None
    for kind in ("sgd", "erm"):
        worst, bound, beta_m, where, pairs, verdict = exhaustive(kind)
        verdicts.append(verdict)
        rows.append(f"{kind}: worst {float(worst):.6g} <= beta_m/k = {float(bound):.6g} "
                    f"(beta_m = {float(beta_m):.6g}), {pairs} pairs over 24 partitions, worst at "
                    f"permutation {where[0]}, sequence {where[1]}, position {where[2]}")
        if top is None or worst / bound > top[0] / top[1]:
            top = (worst, bound)
    agree, sens_ok = implementation_agreement()
    verdicts.append(Verdict.HOLDS if agree <= AGREEMENT and sens_ok else Verdict.FAILS)
    detail = "; ".join(rows) + (f"; StablePredictor(k=2) within {agree:.3g} of the exact average, "
                                f"sensitivity = beta_m/2: {sens_ok}")
    return CheckResult(float(top[0]), float(top[1]), worst_verdict(verdicts), 48, detail, method="certified")
