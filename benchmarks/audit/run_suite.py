"""Run the audit benchmark: every mechanism of suite.py through refdp.audit.audit_black_box.

For each mechanism the script prints the epsilon lower bound at the stated
confidence, whether it exceeds the claimed epsilon, the outputs drawn and the
wall-clock time, beside DP-Sniper's published lower bound where there is one;
then the floating-point Laplace samplers with and without the float-bits
events. It exits with status 1 if a broken mechanism is not detected or a
correct one is reported as violating its claim.

Run (from the repository root)::

    python benchmarks/audit/run_suite.py [--samples N] [--confidence C ...] [--seed S]
                                         [--tolerance T] [--only TEXT] [--quick] [--search-pairs]
                                         [--json PATH] [--holdout-test binomial|conditional|auto]
                                         [--pool-pairs K] [--search-only]

Defaults: 10,000,000 outputs per dataset and pair (the event selection stops
by the audit's default rule, at most half; the held-out bound spends the
rest), confidences 0.9 and 0.95 (each a separate run), the audit's default
tolerance 0.01, seed 2024. ``--quick`` runs 200,000 outputs per dataset
(bounds are then weaker; detection is not assessed). ``--search-pairs``
also runs :func:`refdp.audit.search_pairs` on every broken mechanism that
takes query answers, without its pairs, and reports whether a violation is
found.

False alarms: each audit of a correct mechanism reports a violation with
probability at most 1 - confidence; over the K correct mechanisms of the
suite, the probability of at least one false alarm is at most K (1 -
confidence) (union bound). With the fixed seed the run is reproducible.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np
import scipy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import refdp  # noqa: E402
from refdp.audit import audit_black_box, search_pairs  # noqa: E402
from suite import DPSNIPER_REFERENCE, KNOWN_EPSILON, cases, disable_alternates, floating_point_cases  # noqa: E402


def machine():
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {"platform": platform.platform(), "cpu": cpu, "cpus": os.cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
            "refdp": refdp.__version__, "load_avg_start": [round(x, 2) for x in load]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=10_000_000, help="outputs per dataset and pair (budget)")
    parser.add_argument("--confidence", type=float, nargs="+", default=[0.9, 0.95])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--tolerance", type=float, default=0.01,
                        help="selection stopping tolerance (0: the selection spends half the budget)")
    parser.add_argument("--search-pairs", action="store_true",
                        help="also search pairs (without the listed ones) on broken query-answer mechanisms")
    parser.add_argument("--only", metavar="TEXT", help="only mechanisms whose name contains TEXT")
    parser.add_argument("--search-only", action="store_true",
                        help="with --search-pairs: skip the audits on the listed pairs")
    parser.add_argument("--quick", action="store_true", help="200,000 outputs per dataset")
    parser.add_argument("--no-float", action="store_true", help="skip the floating-point section")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--holdout-test", choices=("binomial", "conditional", "auto"), default="binomial",
                        help="held-out test of the epsilon bounds (refdp.audit.audit_black_box's holdout_test)")
    parser.add_argument("--pool-pairs", type=int, default=1, metavar="K",
                        help="pool the events of up to K pairs into one conditional test (audit_black_box's "
                             "pool_pairs; with --holdout-test conditional or auto)")
    parser.add_argument("--no-alternates", action="store_true",
                        help="test only the chosen event at the held-out stage (the rule before rarer alternatives)")
    args = parser.parse_args(argv)
    if args.no_alternates:
        disable_alternates()
    samples = 200_000 if args.quick else args.samples

    info = machine()
    print("== refdp audit benchmark ==")
    for k, v in info.items():
        print(f"{k:15s}: {v}")
    print(f"{'budget':15s}: {samples} outputs per dataset and pair, confidences {args.confidence}, "
          f"tolerance {args.tolerance}, seed {args.seed}, held-out test {args.holdout_test}"
          + (f", events of up to {args.pool_pairs} pairs pooled" if args.pool_pairs > 1 else "")
          + (", chosen event only (no rarer alternatives)" if args.no_alternates else ""))
    print()

    rows = []
    for confidence in ([] if args.search_only else args.confidence):
        head = (f"{'mechanism':34s} {'conf':>5s} {'claimed':>7s} {'truth':>7s} {'eps >=':>8s} {'finding':>9s} "
                f"{'ok':>3s} {'known eps':>9s} {'power':>6s} {'outputs':>10s} {'held out':>9s} {'time':>7s} "
                f"{'DP-Sniper':>9s}")
        print(head)
        print("-" * len(head))
        for case in cases():
            if args.only and args.only not in case.name:
                continue
            opts = {"n_samples": samples}
            opts.update(case.options)  # a budget set for this mechanism, float-bits events
            if args.quick:
                opts["n_samples"] = samples
            t0 = time.perf_counter()
            res = audit_black_box(case.mechanism, case.pairs, case.claimed_epsilon, confidence=confidence,
                                  tolerance=args.tolerance, rng=args.seed, progress=False,
                                  holdout_test=args.holdout_test, pool_pairs=args.pool_pairs, **opts)
            secs = time.perf_counter() - t0
            ok = res.violation == case.broken
            ref = DPSNIPER_REFERENCE.get(case.dpsniper) if case.dpsniper else None
            known = KNOWN_EPSILON.get(case.name, (None, ""))[0]
            power = res.epsilon_lower / known if known and np.isfinite(known) else None
            row = {"name": case.name, "confidence": confidence, "claimed_epsilon": case.claimed_epsilon,
                   "broken": case.broken, "float_bits": bool(opts.get("float_bits", False)),
                   "truth": case.truth, "pairs": case.pairs_text, "epsilon_lower": res.epsilon_lower,
                   "violation": res.violation, "as_expected": ok, "samples": res.samples, "seconds": secs,
                   "held_out": res.counts[1], "pair": res.pair_label, "event": res.event,
                   "counts": list(res.counts), "p_lower": res.p_lower, "p_upper": res.p_upper,
                   "tests": res.tests, "known_epsilon": known, "power": power, "holdout_test": res.holdout_test,
                   "selection_samples": [p.selection_samples for p in res.pairs],
                   "dpsniper_name": case.dpsniper,
                   "load_avg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
                   "dpsniper_eps_lcb": None if ref is None else ref[0],
                   "dpsniper_seconds": None if ref is None else ref[1]}
            rows.append(row)
            print(f"{case.name[:34]:34s} {confidence:5.3g} {case.claimed_epsilon:7.4g} "
                  f"{'broken' if case.broken else 'correct':>7s} "
                  f"{res.epsilon_lower:8.4f} {'VIOLATION' if res.violation else 'none':>9s} "
                  f"{'yes' if ok else 'NO':>3s} {'' if known is None else f'{known:.4g}':>9s} "
                  f"{'' if power is None else f'{power:.3f}':>6s} {res.samples:10d} {res.counts[1]:9d} "
                  f"{secs:6.1f}s {'' if ref is None else f'{ref[0]:.4f}':>9s}", flush=True)
            load = f" load {row['load_avg'][0]:.2f}" if row["load_avg"] else ""
            print(f"{'':34s}   on {res.pair_label}: {res.event[:110]}{load}")
        print()
    n_broken = sum(r["broken"] for r in rows)
    n_correct = len(rows) - n_broken
    detected = sum(r["broken"] and r["violation"] for r in rows)
    false_alarms = sum((not r["broken"]) and r["violation"] for r in rows)
    print(f"broken audits detected: {detected} of {n_broken}; false alarms: {false_alarms} of {n_correct} "
          f"audits of correct mechanisms")
    for confidence in args.confidence:
        k = sum((not r["broken"]) and r["confidence"] == confidence for r in rows)
        alpha = 1 - confidence
        print(f"confidence {confidence}: false-alarm probability <= {alpha:.3g} per correct mechanism, "
              f"<= {min(1.0, k * alpha):.3g} for at least one over its {k} correct mechanisms (union bound)")

    search_rows = []
    if args.search_pairs:
        print()
        print("== pair search (no pairs given), broken query-answer mechanisms ==")
        for case in cases():
            if (args.only and args.only not in case.name) or not case.broken:
                continue
            first = case.pairs[0][0]
            if not isinstance(first, np.ndarray) or first.size < 2:
                continue
            dim = int(first.size)
            hist = case.name.startswith("NoisyHist")
            # histograms: add/remove neighbours move one count; the componentwise patterns do not apply
            kw = {"patterns": ["one below", "one above"], "local_rounds": 0} if hist else {}
            if "replace-one" in case.name:
                continue  # its neighbours (a record moved between bins) are not among the patterns
            t0 = time.perf_counter()
            res = search_pairs(case.mechanism, dim, case.claimed_epsilon, confidence=max(args.confidence),
                               n_samples=samples, tolerance=args.tolerance, rng=args.seed, progress=False,
                               holdout_test=args.holdout_test, **kw)
            secs = time.perf_counter() - t0
            search_rows.append({"name": case.name, "dim": dim, "epsilon_lower": res.epsilon_lower,
                                "violation": res.violation, "pair": res.audit.pair_label,
                                "screened": len(res.screened), "finalists": res.finalists,
                                "samples": res.audit.samples + res.screening_samples, "seconds": secs})
            print(f"{case.name[:34]:34s} dim {dim:2d}: eps >= {res.epsilon_lower:8.4f} "
                  f"{'VIOLATION' if res.violation else 'none':>9s} on {res.audit.pair_label[:50]}; "
                  f"{len(res.screened)} screened, {res.audit.samples + res.screening_samples} outputs, "
                  f"{secs:.1f}s", flush=True)

    fp_rows = []
    if not args.no_float and not args.only:
        print()
        print("== floating-point Laplace, f(D) = 0 vs f(D') = 1, claimed epsilon 0.1 ==")
        for name, mech, pairs in floating_point_cases():
            for bits in (False, True):
                t0 = time.perf_counter()
                res = audit_black_box(mech, pairs, 0.1, confidence=max(args.confidence),
                                      tolerance=args.tolerance, n_samples=min(samples, 2_000_000),
                                      float_bits=bits, rng=args.seed, progress=False)
                secs = time.perf_counter() - t0
                fp_rows.append({"name": name, "float_bits": bits, "epsilon_lower": res.epsilon_lower,
                                "violation": res.violation, "samples": res.samples, "seconds": secs,
                                "event": res.event, "counts": list(res.counts)})
                print(f"{name[:55]:55s} float bits {'on ' if bits else 'off'}: eps >= {res.epsilon_lower:8.4f} "
                      f"{'VIOLATION' if res.violation else 'none':>10s} {res.samples:9d} outputs {secs:6.1f}s")
                print(f"{'':55s}   {res.event[:110]} counts {list(res.counts)}")
    if hasattr(os, "getloadavg"):
        info["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "samples": samples, "confidence": args.confidence,
                       "holdout_test": args.holdout_test,
                       "tolerance": args.tolerance, "seed": args.seed, "suite": rows,
                       "pair_search": search_rows, "floating_point": fp_rows}, f, indent=1)
    all_ok = all(r["as_expected"] for r in rows) and all(r["violation"] for r in search_rows)
    return 0 if (all_ok or args.quick) else 1


if __name__ == "__main__":
    sys.exit(main())
