"""Coverage of every event tested at the held-out stage, on a mechanism whose event laws are known.

The three-outcome mechanism of ``false_alarms.py`` is audited at its exact
epsilon (0.1725) with many seeds. For every event the audit tested on the
held-out samples (the chosen one and the rarer alternatives), the script
computes that event's exact log-ratio and counts the runs where *some*
tested bound lies above its own event's exact value: the audit's guarantee
bounds that count by ``1 - confidence`` per run (each of the ``m`` tests
has error ``(1 - confidence) / m``). It also counts the false alarms
(bound above the claim) and how many events were tested. The selection is
observed by wrapping the audit's per-pair selection step (a private
function); nothing else is changed.

Run (from the repository root)::

    python benchmarks/audit/tested_events_coverage.py [--confidence C] [--reps R]
                                                      [--samples N] [--holdout-test auto|binomial]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import refdp.audit.blackbox as blackbox  # noqa: E402
from refdp.audit import audit_black_box  # noqa: E402
from refdp.audit._sampling import Sample  # noqa: E402
from false_alarms import _THREE, interval, three_outcomes  # noqa: E402

CLAIM = 0.1725


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--confidence", type=float, nargs="+", default=[0.9, 0.95])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--holdout-test", default="auto", choices=("binomial", "conditional", "auto"))
    args = parser.parse_args(argv)
    p = np.append(_THREE[0], 1 - _THREE[0].sum())
    q = np.append(_THREE[1], 1 - _THREE[1].sum())
    probe = Sample(np.array([[0.0], [1.0], [2.0]]))
    tested = {}
    select = blackbox._select

    def observed(*a, **k):
        best, used, layout = select(*a, **k)
        tested["candidates"] = [best[0]] + list(k["alternates"][0])
        return best, used, layout

    blackbox._select = observed
    print(f"three outcomes claimed at the exact {CLAIM}, {args.samples} outputs per dataset, {args.reps} seeds, "
          f"held-out test {args.holdout_test}; load average {os.getloadavg()[0]:.2f}")
    try:
        for confidence in args.confidence:
            t0 = time.perf_counter()
            alarms = uncovered = 0
            events = {}
            for s in np.random.SeedSequence([args.seed]).spawn(args.reps):
                r = audit_black_box(three_outcomes, [(0, 1)], CLAIM, confidence=confidence,
                                    n_samples=args.samples, rng=s, progress=False, holdout_test=args.holdout_test)
                events[r.tests] = events.get(r.tests, 0) + 1
                alarms += r.epsilon_lower > CLAIM
                row = r.pairs[0].held_out["epsilon"]
                by_text = {c.description: c for c in tested["candidates"]}
                bad = False
                for x in [row] + row.get("other_events", []):
                    c = by_text[x["event"]]
                    inside = c.event.contains(probe)
                    num, den = (p[inside].sum(), q[inside].sum())
                    if c.numerator == 1:
                        num, den = den, num
                    bad = bad or x["bound"] > math.log(num / den)
                uncovered += bad
            lo, hi = interval(uncovered, args.reps)
            print(f"confidence {confidence}: runs with a tested bound above its event's exact value "
                  f"{uncovered}/{args.reps} [{lo:.3f}, {hi:.3f}] (nominal at most {1 - confidence:.3g}); "
                  f"false alarms {alarms}/{args.reps}; events tested: "
                  + ", ".join(f"{m}: {events[m]}" for m in sorted(events))
                  + f"; {time.perf_counter() - t0:.0f} s", flush=True)
    finally:
        blackbox._select = select


if __name__ == "__main__":
    main()
