"""The projected walk's empirical-error bound holds on data (derived; docs/theory/projected_walk_error.rst).

Claim
    For training points with distinct x and any hypothesis h whose labels
    change R times along the line and which errs on a fraction opt of the
    points, the walk's expected empirical error
    err_S = (1/n) sum_i P[walk(x_i) != y_i] satisfies
    err_S <= alpha + opt + (R B + ln 2) / (s n)   (walk_empirical_error_bound).
    Checked for realizable thresholds (R = 1) and unions of 3 intervals
    (R = 6), without and with 10% label noise (opt = fraction of flipped
    labels), for eps in {0.1, 0.5, 1, 2} and n in {100, 1000, 10^4, 10^5}.
Preconditions
    x drawn from U[0, 1) (distinct with probability 1; checked); seed 5.
    The bound is deterministic for every sample, so it must hold on every
    draw: the confidence is 1, not a probability.
Precision
    err_S is the float mean of exact per-point probabilities (error below
    1e-12); the claim holds when err_S <= bound - 1e-9, is undecided within
    1e-9 of the bound (fail closed) and fails above it.
"""
import numpy as np

from refdp.prediction import ProjectedWalk, walk_empirical_error_bound
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

INTERVALS = ((0.1, 0.2), (0.4, 0.55), (0.7, 0.9))
THRESHOLD = 0.37
TOL = 1e-9


def labels(x, kind):
    if kind == "threshold":
        return (x >= THRESHOLD).astype(int), 1
    y = np.zeros(x.shape, dtype=int)
    for lo, hi in INTERVALS:
        y |= (x >= lo) & (x < hi)
    return y, 2 * len(INTERVALS)


def empirical_error(walk, x, y):
    p = walk.predict_proba(x)[:, 1]
    return float(np.mean(np.where(y == 1, 1 - p, p)))


def sweep(epsilons=(0.1, 0.5, 1.0, 2.0), sizes=(100, 1000, 10_000, 100_000), alpha=0.01, seed=5):
    """Rows (kind, noise, eps, n, err_S, bound) for every setting."""
    rng = np.random.default_rng(seed)
    rows = []
    for kind in ("threshold", "intervals"):
        for noise in (0.0, 0.1):
            for n in sizes:
                x = rng.random(n)
                assert np.unique(x).size == n
                h, boundaries = labels(x, kind)
                flip = rng.random(n) < noise
                y = np.where(flip, 1 - h, h)
                for eps in epsilons:
                    walk = ProjectedWalk(epsilon=eps, alpha=alpha).fit(x, y)
                    err = empirical_error(walk, x, y)
                    bound = walk_empirical_error_bound(n, eps, alpha, n_boundaries=boundaries,
                                                       opt=float(flip.mean()))
                    rows.append((kind, noise, eps, n, err, bound))
    return rows


@register("dwork_feldman.walk_empirical_error_bound",
          "walk err_S <= alpha + opt + (R*B + ln 2)/(s*n): thresholds and 3 intervals, noise 0/10%, "
          "eps 0.1..2, n 1e2..1e5",
          covers=("refdp.prediction.walk.walk_empirical_error_bound",))
def error_bound():
    rows = sweep()
    worst = max(rows, key=lambda r: r[4] - r[5])
    gap = worst[4] - worst[5]
    verdict = Verdict.HOLDS if gap <= -TOL else (Verdict.FAILS if gap > TOL else Verdict.UNDECIDED)
    kind, noise, eps, n, err, bound = worst
    return CheckResult(err, bound, verdict, 0,
                       f"closest setting: {kind}, noise={noise}, eps={eps}, n={n} "
                       f"(err_S/bound = {err / bound:.3f}; {len(rows)} settings)", method="estimated")
