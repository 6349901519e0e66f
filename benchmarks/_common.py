"""Shared helpers of the benchmark scripts: machine header, timing, equality, tables.

Timing protocol (the same in every script): each implementation is run
``repeats`` times (default 5, never fewer), the implementations interleaved
within each repeat so that a change of machine load affects all of them
alike; the reported time is the median of its repeats, measured with
``time.perf_counter`` (wall clock). A speed ratio is printed only after the
results of the two implementations were asserted equal: exactly for integer
results, to 1e-12 relative for floating-point results (to 1e-12 absolute for
logarithms of probabilities, i.e. the probabilities to 1e-12 relative).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

MIN_REPEATS = 5
RTOL = 1e-12


def parse_args(description, quick_help="smaller inputs, for a fast smoke run (targets not assessed)"):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeats", type=int, default=MIN_REPEATS,
                        help=f"timed runs per implementation (at least {MIN_REPEATS}; median reported)")
    parser.add_argument("--quick", action="store_true", help=quick_help)
    args = parser.parse_args()
    if args.repeats < MIN_REPEATS:
        parser.error(f"--repeats must be at least {MIN_REPEATS}")
    return args


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def print_machine(title):
    """Print the benchmark's title and the machine it runs on."""
    import scipy

    import refdp

    print(f"== {title} ==")
    print(f"platform : {platform.platform()}")
    print(f"cpu      : {_cpu_model()}, os.cpu_count() = {os.cpu_count()}")
    print(f"python   : {platform.python_version()} ({sys.executable})")
    print(f"numpy    : {np.__version__}   scipy: {scipy.__version__}   refdp: {refdp.__version__}")
    if hasattr(os, "getloadavg"):
        print("load avg : {:.2f} {:.2f} {:.2f} (1, 5, 15 min; other processes share the CPUs)".format(
            *os.getloadavg()))
    print("timing   : wall clock (time.perf_counter), median of the repeats, implementations interleaved")
    print()


def print_load():
    if hasattr(os, "getloadavg"):
        print("load avg at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


def print_peak_memory():
    try:
        import resource
    except ImportError:
        return
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(f"peak resident memory of this process: {peak / 2**20:.2f} GiB")


def time_interleaved(funcs, repeats):
    """Run every callable in ``funcs`` (name -> callable) ``repeats`` times, interleaved.

    Returns ``(medians, results)``: name -> median seconds, name -> result of the
    first run.
    """
    times = {name: [] for name in funcs}
    results = {}
    for r in range(repeats):
        for name, f in funcs.items():
            t0 = time.perf_counter()
            out = f()
            times[name].append(time.perf_counter() - t0)
            if r == 0:
                results[name] = out
            del out
    return {name: statistics.median(ts) for name, ts in times.items()}, results


def assert_equal_int(got, want, what):
    if not np.array_equal(got, want):
        raise AssertionError(f"{what}: integer results differ; no ratio printed")


def max_rel_diff(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    same = (got == want)  # covers equal infinities
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(got - want) / np.abs(want)
    rel = np.where(same, 0.0, rel)
    return float(np.max(rel)) if rel.size else 0.0


def assert_close_rel(got, want, what, rtol=RTOL):
    """Floats equal to ``rtol`` relative (identical infinities count as equal)."""
    d = max_rel_diff(got, want)
    if not d <= rtol:
        raise AssertionError(f"{what}: max relative difference {d:.3e} > {rtol:g}; no ratio printed")
    return d


def assert_close_log(got, want, what, atol=RTOL):
    """Logs of probabilities equal to ``atol`` absolute (the probabilities to ``atol`` relative)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    same = got == want
    d = np.where(same, 0.0, np.abs(got - want))
    dmax = float(np.max(d)) if d.size else 0.0
    if not dmax <= atol:
        raise AssertionError(f"{what}: max |difference of logs| {dmax:.3e} > {atol:g}; no ratio printed")
    return dmax


def fmt_s(t):
    if t is None:
        return "-"
    if t >= 100:
        return f"{t:.0f} s"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.1f} ms"
    return f"{t * 1e6:.0f} us"


def print_table(header, rows):
    """Print a plain-text table with columns sized to their content."""
    cols = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    print(line)
    print("  ".join("-" * w for w in widths))
    for row in cols[1:]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    print()


def summary(name, text, target=None, met=None):
    """One machine-readable line, collected by run_all.py."""
    verdict = "" if met is None else ("  [target met]" if met else "  [target MISSED]")
    tgt = "" if target is None else f"  (target {target})"
    print(f"SUMMARY | {name} | {text}{tgt}{verdict}")
