"""Measured false-alarm rate of the black-box audit on correct mechanisms.

Each mechanism below satisfies its claim exactly or with room to spare; an
audit that reports a violation is a false alarm, which the audit's guarantee
allows with probability at most ``1 - confidence``. The script repeats each
audit with independent seeds on a small budget (where the bounds are the
noisiest) and prints the number of false alarms with an exact 95%
Clopper--Pearson interval for the rate, beside the nominal bound. It also
counts the runs whose bound exceeds the mechanism's exact epsilon on the
pairs audited (where that is known), which the guarantee bounds the same way.

Run (from the repository root)::

    python benchmarks/audit/false_alarms.py [--reps R] [--samples N] [--seed S]
                                            [--holdout-test binomial|conditional|auto] [--pool-pairs K]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from refdp.audit import audit_black_box, query_answer_pairs  # noqa: E402
from suite import disable_alternates, noisy_max, randomised_response, svt  # noqa: E402


def laplace(value, n, rng):
    return float(np.asarray(value).reshape(-1)[0]) + rng.laplace(0.0, 1.0, size=n)


#: Three outcomes whose two rare ones have SVT4's two largest log-ratios on its witness pair
#: (0.1725 and 0.1433), at four times SVT4's probabilities: the case where the selection's
#: lookahead matters (a rare event of the largest ratio against a larger one of lower ratio).
_THREE = {0: np.array([0.0668, 0.0544]), 1: np.array([0.0668, 0.0544]) * np.exp([-0.1725, -0.1433])}


def three_outcomes(d, n, rng):
    p = _THREE[d]
    return rng.choice(3, size=n, p=np.append(p, 1.0 - p.sum())).astype(np.float64)


def three_outcomes_twice(d, n, rng):
    """``three_outcomes`` on two pairs, (0, 1) and (2, 3): both at the claim, which pooling adds up."""
    return three_outcomes(d % 2, n, rng) + 3 * (d // 2)


def cases():
    """(name, mechanism, pairs, claimed epsilon, exact epsilon on the pairs or None)."""
    return [
        ("three outcomes, claimed = exact 0.1725 (sup of the two log-ratios)", three_outcomes, [(0, 1)],
         0.1725, 0.1725),
        ("three outcomes on two pairs, claimed = exact 0.1725", three_outcomes_twice, [(0, 1), (2, 3)],
         0.1725, 0.1725),
        ("randomised response, claimed = exact ln 3", randomised_response(math.log(3.0)), [(0, 1)],
         math.log(3.0), math.log(3.0)),
        ("Laplace(1), f = 0 vs 1, claimed = exact 1", laplace, [(0.0, 1.0)], 1.0, 1.0),
        ("ReportNoisyMax1 (index), 8 StatDP pairs, claimed 0.1", noisy_max("laplace", "index"),
         query_answer_pairs(5), 0.1, None),
        ("SVT1, 8 StatDP pairs, claimed 0.1", svt(1, threshold=0.5), query_answer_pairs(10), 0.1, None),
    ]


def interval(k, n, level=0.95):
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else stats.beta.ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - a, k + 1, n - k)
    return lo, hi


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--samples", type=int, default=50_000, help="outputs per dataset and pair")
    parser.add_argument("--confidence", type=float, nargs="+", default=[0.9, 0.95])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--holdout-test", choices=("binomial", "conditional", "auto"), default="binomial")
    parser.add_argument("--pool-pairs", type=int, default=1, metavar="K",
                        help="audit_black_box's pool_pairs (with --holdout-test conditional or auto)")
    parser.add_argument("--only", metavar="TEXT", help="only mechanisms whose name contains TEXT")
    parser.add_argument("--no-alternates", action="store_true",
                        help="test only the chosen event at the held-out stage (the rule before rarer alternatives)")
    args = parser.parse_args(argv)
    if args.no_alternates:
        disable_alternates()
    print(f"{args.reps} seeded repetitions per mechanism and confidence, {args.samples} outputs per dataset "
          f"and pair, default tolerance, held-out test {args.holdout_test}"
          f"{f', events of up to {args.pool_pairs} pairs pooled' if args.pool_pairs > 1 else ''}"
          f"{', chosen event only' if args.no_alternates else ''}; "
          f"load average {os.getloadavg()[0]:.2f}")
    head = f"{'mechanism':55s} {'conf':>5s} {'alarms':>8s} {'rate 95% CI':>17s} {'nominal':>8s} {'> exact':>8s} {'time':>7s}"
    print(head)
    print("-" * len(head))
    for ci, confidence in enumerate(args.confidence):
        for mi, (name, mech, pairs, claimed, exact) in enumerate(cases()):
            if args.only and args.only not in name:
                continue
            seeds = np.random.SeedSequence([args.seed, ci, mi]).spawn(args.reps)
            t0 = time.perf_counter()
            alarms = above = 0
            for s in seeds:
                r = audit_black_box(mech, pairs, claimed, confidence=confidence, n_samples=args.samples,
                                    rng=s, progress=False, holdout_test=args.holdout_test,
                                    pool_pairs=args.pool_pairs)
                alarms += r.violation
                above += exact is not None and r.epsilon_lower > exact
            lo, hi = interval(alarms, args.reps)
            print(f"{name[:55]:55s} {confidence:5.3g} {alarms:4d}/{args.reps:<3d} [{lo:.3f}, {hi:.3f}] "
                  f"{1 - confidence:8.3g} {'' if exact is None else f'{above}/{args.reps}':>8s} "
                  f"{time.perf_counter() - t0:6.1f}s", flush=True)


if __name__ == "__main__":
    main()
