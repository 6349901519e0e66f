"""The ``refdp`` command line.

``refdp pate ...`` and ``refdp audit ...`` are described by ``refdp pate -h``
and ``refdp audit -h``.

``refdp verify [--quick] [--json] [--only TEXT] [--list] [--jobs N]`` runs every check
registered in ``proofs_checks/`` (privacy claims decided exactly in mpmath,
theorem bounds on data, kernels against their twins), prints one row per check
and exits with status 1 if any check does not hold (an undecided comparison or
a crashing check counts as a failure).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

__all__ = ["main"]


def _fmt(v) -> str:
    if v is None:
        return "-"
    try:
        import mpmath

        if isinstance(v, (mpmath.mpf, mpmath.mpc)):
            return mpmath.nstr(v, 8)
    except ImportError:  # pragma: no cover - mpmath is a dependency
        pass
    if isinstance(v, float):
        return f"{v:.8g}"
    return str(v)


def _json_value(v):
    if v is None:
        return None
    if isinstance(v, (int, float, str, bool)):
        return v
    return str(v)


def _row(check) -> dict:
    """Run ``check``; return its report row (plain, picklable values)."""
    from .verify.registry import run_check

    out = run_check(check)
    res = out.result
    return {
        "check": check.name,
        "claim": check.claim,
        "measured": _json_value(res.measured) if res is not None else None,
        "bound": _json_value(res.bound) if res is not None else None,
        "verdict": res.verdict.value if res is not None else "error",
        "method": res.method if res is not None else None,
        "passed": out.passed,
        "digits": res.digits if res is not None else None,
        "seconds": round(out.seconds, 3),
        "detail": res.detail if res is not None else out.error,
        "module": check.module,
        "_measured": _fmt(res.measured if res is not None else None),
        "_bound": _fmt(res.bound if res is not None else None),
    }


def _row_by_name(name: str) -> dict:
    """Worker side: import the checks of ``proofs_checks`` and run the one called ``name``."""
    from .verify.registry import all_checks

    return _row(next(c for c in all_checks() if c.name == name))


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _rows(checks, jobs):
    """Report rows in the order of ``checks``, the checks of ``proofs_checks`` run in ``jobs`` processes.

    Every check is deterministic (fixed seeds, exact arithmetic), so the rows
    do not depend on ``jobs``; only the wall time does. A worker process
    imports ``proofs_checks`` afresh, so checks registered from anywhere
    else (a user's module, a test) run in this process.
    """
    pooled = [c for c in checks if c.module.split(".")[0] == "proofs_checks"]
    if jobs <= 1 or len(pooled) <= 1:
        yield from map(_row, checks)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(pooled)), mp_context=ctx) as pool:
        futures = {c.name: pool.submit(_row_by_name, c.name) for c in pooled}
        for c in checks:
            yield futures[c.name].result() if c.name in futures else _row(c)


def _verify(args) -> int:
    from .verify.registry import METHODS, all_checks

    checks = all_checks()
    if args.quick:
        checks = [c for c in checks if c.quick]
    if args.only:
        checks = [c for c in checks if args.only in c.name]
    if args.list:
        for c in checks:
            print(f"{c.name}{'' if c.quick else '  (full run only)'}\n    {c.claim}")
        return 0
    if not checks:
        print("no checks selected", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        print(f"refdp verify: --jobs must be an integer >= 1; got {args.jobs}", file=sys.stderr)
        return 2
    jobs = _default_jobs() if args.jobs is None else args.jobs
    rows = []
    t0 = time.perf_counter()
    name_w = max(len(c.name) for c in checks)
    if not args.json:
        head = (f"{'check':<{name_w}}  {'measured':>14}  {'bound':>14}  {'verdict':<9}  {'method':<11}  "
                f"{'digits':>6}  {'time':>7}")
        print(head)
        print("-" * len(head))
    for row in _rows(checks, jobs):
        shown = (row.pop("_measured"), row.pop("_bound"))
        rows.append(row)
        if not args.json:
            print(f"{row['check']:<{name_w}}  {shown[0]:>14}  {shown[1]:>14}  {row['verdict']:<9}  "
                  f"{row['method'] or '-':<11}  "
                  f"{('-' if row['digits'] is None else row['digits'])!s:>6}  {row['seconds']:>6.2f}s",
                  flush=True)
            print(f"{'':<{name_w}}  claim: {row['claim']}")
            if row["detail"]:
                print(f"{'':<{name_w}}  {'worst: ' if row['verdict'] != 'error' else 'error: '}{row['detail']}")
    n_fail = sum(not r["passed"] for r in rows)
    total = time.perf_counter() - t0
    if args.json:
        json.dump({"checks": rows, "methods": {m: sum(r["method"] == m for r in rows) for m in METHODS}, "failed": n_fail, "seconds": round(total, 3), "jobs": jobs},
                  sys.stdout, indent=2)
        print()
    else:
        print("-" * 40)
        methods = {m: sum(r["method"] == m for r in rows) for m in METHODS}
        print(f"{len(rows) - n_fail} of {len(rows)} checks hold; {n_fail} fail or undecided "
              f"(undecided counts as failure); {total:.1f}s wall, {jobs} worker process(es)")
        print("methods: " + ", ".join(f"{n} {m}" for m, n in methods.items()))
    return 1 if n_fail else 0


# Subcommands implemented next to their concept: module with add_arguments(parser) and run(args).
SUBCOMMANDS = {
    "pate": ("refdp.pate.cli", "PATE analysis of a vote or count array: epsilon by every analysis"),
    "audit": ("refdp.audit.cli", "black-box audit of a mechanism: a lower bound on its epsilon"),
}


def main(argv=None) -> int:
    import importlib

    parser = argparse.ArgumentParser(prog="refdp", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="run the verification report (exact privacy checks, theorem checks)")
    v.add_argument("--quick", action="store_true", help="run the quick subset")
    v.add_argument("--json", action="store_true", help="machine-readable output")
    v.add_argument("--only", metavar="TEXT", help="run only checks whose name contains TEXT")
    v.add_argument("--list", action="store_true", help="list the selected checks and exit")
    v.add_argument("--jobs", type=int, metavar="N", default=None,
                   help="worker processes (default: the CPUs this process may use); "
                        "the results do not depend on it")
    modules = {}
    for name, (module, help_text) in SUBCOMMANDS.items():
        modules[name] = importlib.import_module(module)
        modules[name].add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    args = parser.parse_args(argv)
    if args.command == "verify":
        return _verify(args)
    return modules[args.command].run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
