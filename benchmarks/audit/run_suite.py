"""Run the audit benchmark: every mechanism of suite.py through refdp.audit.audit_black_box.

For each mechanism the script prints the epsilon lower bound at the stated
confidence, whether it exceeds the claimed epsilon, the outputs drawn and the
wall-clock time, beside DP-Sniper's published lower bound where there is one;
then the floating-point Laplace samplers with and without the float-bits
events. It exits with status 1 if a broken mechanism is not detected or a
correct one is reported as violating its claim.

Run (from the repository root)::

    python benchmarks/audit/run_suite.py [--samples N] [--confidence C] [--seed S]
                                         [--tolerance T] [--only TEXT] [--quick] [--json PATH]

Defaults: 2,000,000 outputs per dataset and pair (at most half for the event
selection, as many again held out), confidence 0.95, tolerance 0 (every
selection uses its whole budget), seed 2024. ``--quick`` runs 200,000 outputs
per dataset (bounds are then weaker; detection is not assessed).

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
from refdp.audit import audit_black_box  # noqa: E402
from suite import DPSNIPER_REFERENCE, cases, floating_point_cases  # noqa: E402


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
    parser.add_argument("--samples", type=int, default=2_000_000, help="outputs per dataset and pair (budget)")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--tolerance", type=float, default=0.0,
                        help="selection stopping tolerance (0: use the whole budget)")
    parser.add_argument("--only", metavar="TEXT", help="only mechanisms whose name contains TEXT")
    parser.add_argument("--quick", action="store_true", help="200,000 outputs per dataset")
    parser.add_argument("--no-float", action="store_true", help="skip the floating-point section")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = parser.parse_args(argv)
    samples = 200_000 if args.quick else args.samples

    info = machine()
    print("== refdp audit benchmark ==")
    for k, v in info.items():
        print(f"{k:15s}: {v}")
    print(f"{'budget':15s}: {samples} outputs per dataset and pair, confidence {args.confidence}, "
          f"tolerance {args.tolerance}, seed {args.seed}")
    print()

    rows = []
    head = (f"{'mechanism':40s} {'claimed':>8s} {'truth':>7s} {'eps >=':>8s} {'finding':>10s} "
            f"{'ok':>3s} {'outputs':>10s} {'time':>7s} {'DP-Sniper':>10s} {'their s':>8s}")
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
        res = audit_black_box(case.mechanism, case.pairs, case.claimed_epsilon, confidence=args.confidence,
                              tolerance=args.tolerance, rng=args.seed, progress=False, **opts)
        secs = time.perf_counter() - t0
        ok = res.violation == case.broken
        ref = DPSNIPER_REFERENCE.get(case.dpsniper) if case.dpsniper else None
        row = {"name": case.name, "claimed_epsilon": case.claimed_epsilon, "broken": case.broken,
               "float_bits": bool(opts.get("float_bits", False)),
               "truth": case.truth, "pairs": case.pairs_text, "epsilon_lower": res.epsilon_lower,
               "violation": res.violation, "as_expected": ok, "samples": res.samples, "seconds": secs,
               "pair": res.pair_label, "event": res.event, "counts": list(res.counts),
               "p_lower": res.p_lower, "p_upper": res.p_upper, "tests": res.tests,
               "dpsniper_name": case.dpsniper,
               "dpsniper_eps_lcb": None if ref is None else ref[0],
               "dpsniper_seconds": None if ref is None else ref[1]}
        rows.append(row)
        print(f"{case.name[:40]:40s} {case.claimed_epsilon:8.4g} {'broken' if case.broken else 'correct':>7s} "
              f"{res.epsilon_lower:8.4f} {'VIOLATION' if res.violation else 'none':>10s} "
              f"{'yes' if ok else 'NO':>3s} {res.samples:10d} {secs:6.1f}s "
              f"{'' if ref is None else f'{ref[0]:.4f}':>10s} {'' if ref is None else f'{ref[1]:.0f}':>8s}",
              flush=True)
        print(f"{'':40s}   on {res.pair_label}: {res.event[:110]}")
    n_broken = sum(r["broken"] for r in rows)
    n_correct = len(rows) - n_broken
    detected = sum(r["broken"] and r["violation"] for r in rows)
    false_alarms = sum((not r["broken"]) and r["violation"] for r in rows)
    alpha = 1 - args.confidence
    print()
    print(f"broken mechanisms detected: {detected} of {n_broken}; false alarms: {false_alarms} of {n_correct} "
          f"correct mechanisms")
    print(f"false-alarm probability: <= {alpha:.3g} per correct mechanism, <= {min(1.0, n_correct * alpha):.3g} "
          f"for at least one false alarm over the {n_correct} correct mechanisms (union bound)")

    fp_rows = []
    if not args.no_float and not args.only:
        print()
        print("== floating-point Laplace, f(D) = 0 vs f(D') = 1, claimed epsilon 0.1 ==")
        for name, mech, pairs in floating_point_cases():
            for bits in (False, True):
                t0 = time.perf_counter()
                res = audit_black_box(mech, pairs, 0.1, confidence=args.confidence, tolerance=args.tolerance,
                                      n_samples=samples, float_bits=bits, rng=args.seed, progress=False)
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
                       "tolerance": args.tolerance, "seed": args.seed, "suite": rows,
                       "floating_point": fp_rows}, f, indent=1)
    all_ok = all(r["as_expected"] for r in rows)
    return 0 if (all_ok or args.quick) else 1


if __name__ == "__main__":
    sys.exit(main())
