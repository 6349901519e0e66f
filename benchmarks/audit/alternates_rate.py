"""How often the black-box audit tests more than one event, per suite mechanism (selection only).

The selection may carry up to two rarer events to the held-out stage beside
the chosen one, when its outputs cannot tell them apart (each tested event
counts in the Bonferroni correction, so each costs power when the chosen
event was the right one). This script runs the selection of the suite's
audits (``suite.py``) at several seeds with the held-out draws skipped and
prints, per mechanism, how many seeds tested 1, 2 or 3 events on the
held-out pair. It measures the selection only: no bound is reported.

Run (from the repository root)::

    python benchmarks/audit/alternates_rate.py [--only NAME ...] [--seeds 1 2 3] [--samples N] [--confidence C]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import refdp.audit.blackbox as blackbox  # noqa: E402
from refdp.audit import audit_black_box  # noqa: E402
from suite import cases  # noqa: E402


def tested_events(case, seed, n_samples, confidence, test):
    """Events tested on the held-out pair of one seeded audit, with the held-out draws skipped."""
    held_out = blackbox._held_out

    def no_draws(task, items, client, say):
        return [[0] * len(task.plan[it[0]][2]) for it in items]

    blackbox._held_out = no_draws
    try:
        r = audit_black_box(case.mechanism, case.pairs, case.claimed_epsilon, confidence=confidence,
                            n_samples=n_samples, rng=seed, progress=False, holdout_test=test)
    finally:
        blackbox._held_out = held_out
    return r.tests


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", default=["ReportNoisyMax3", "SVT1", "SVT4",
                                                      "ReportNoisyMax (Gaussian), index", "NoisyHist2"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--holdout-test", default="binomial", choices=("binomial", "conditional", "auto"))
    args = parser.parse_args(argv)
    print(f"events tested on the held-out pair, seeds {args.seeds}, {args.samples} outputs per dataset, "
          f"confidence {args.confidence}; load average {os.getloadavg()[0]:.2f}")
    for case in cases():
        if case.name not in args.only:
            continue
        t0 = time.perf_counter()
        counts = [tested_events(case, s, args.samples, args.confidence, args.holdout_test) for s in args.seeds]
        print(f"{case.name:36s} tested per seed: {counts}  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
