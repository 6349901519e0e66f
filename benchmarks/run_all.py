"""Run every benchmark script in this folder and print a summary.

Each script runs in its own process (so one script's memory does not weigh on
the next), its output is shown as it comes, and the lines it marks with
``SUMMARY`` are collected and printed again at the end with the time each
script took. The exit status is non-zero if a script failed (for instance an
equality assertion); a missed speed target is reported, not treated as a
failure.

Run: python benchmarks/run_all.py [--repeats N] [--quick] [--only NAME ...]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = ["bench_votes.py", "bench_walk.py", "bench_projected_walk.py", "bench_accountant.py",
           "bench_logsumexp.py", "bench_posterior_sampling.py", "bench_pate_analysis.py",
           "bench_samplers.py", "bench_audit.py"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="passed to every script (at least 5)")
    parser.add_argument("--quick", action="store_true", help="passed to every script: small inputs")
    parser.add_argument("--only", nargs="*", default=None,
                        help="run only the scripts whose name contains one of these words")
    args = parser.parse_args()
    scripts = [s for s in SCRIPTS if not args.only or any(w in s for w in args.only)]
    extra = ["--repeats", str(args.repeats)] + (["--quick"] if args.quick else [])

    collected = []
    status = []
    for script in scripts:
        print(f"\n######## {script} ########", flush=True)
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, os.path.join(HERE, script)] + extra,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        for line in proc.stdout:
            print(line, end="", flush=True)
            if line.startswith("SUMMARY |"):
                collected.append(line.rstrip("\n"))
        rc = proc.wait()
        status.append((script, rc, time.perf_counter() - t0))

    print("\n######## summary ########")
    for line in collected:
        print(line)
    print()
    for script, rc, dt in status:
        print(f"{script:22s} {'ok' if rc == 0 else f'FAILED (exit {rc})':18s} {dt:7.1f} s")
    missed = [line for line in collected if "[target MISSED]" in line]
    met = [line for line in collected if "[target met]" in line]
    if met or missed:
        print(f"\ntargets met: {len(met)}, missed: {len(missed)}")
    return 1 if any(rc != 0 for _, rc, _ in status) else 0


if __name__ == "__main__":
    sys.exit(main())
