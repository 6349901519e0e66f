"""The ``refdp`` command line.

``refdp pate ...`` and ``refdp audit ...`` are described by ``refdp pate -h``
and ``refdp audit -h``.

``refdp verify [--quick] [--json] [--only TEXT] [--list] [--jobs N] [--certificate DIR]``
runs every check registered in ``proofs_checks/`` (privacy claims decided
exactly, theorem bounds on data, kernels against their twins), prints one row
per check -- with the method that reached the verdict: certified, algebraic,
estimated or statistical -- and exits with status 1 if any check does not
hold (an undecided comparison or a crashing check counts as a failure).

``refdp audit-accountant [--quick] [--peers NAME ...] [--json]`` runs other
libraries' accountants on a grid of compositions and reports every epsilon
below refdp's certified enclosure (``refdp audit-accountant -h``).

``refdp check-certificate FILE ...`` re-checks certificates written by
``refdp verify --certificate DIR`` with exact rational arithmetic only.
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


def _write_certificate(check, res, directory) -> str:
    """Write the certificate of one check into ``directory``; return the file name or a reason."""
    from .verify.certificate import FORMAT, bundle

    evidence = getattr(res, "evidence", None) if res is not None else None
    path = os.path.join(directory, f"{check.name}.json")
    if not evidence:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"format": FORMAT, "name": check.name, "claim_text": check.claim,
                       "verdict": res.verdict.value if res is not None else "error",
                       "method": res.method if res is not None else None,
                       "recheckable": False,
                       "reason": "this check compares computed bounds, not output laws: "
                                 "its verdict has no enclosures to re-check"}, fh)
        return path
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(bundle(evidence, check.name, res.verdict.value, res.method), fh)
    return path


def _row(check, certificate_dir=None) -> dict:
    """Run ``check``; return its report row (plain, picklable values)."""
    from .verify.registry import run_check

    out = run_check(check)
    res = out.result
    cert = _write_certificate(check, res, certificate_dir) if certificate_dir else None
    return {
        "check": check.name,
        "claim": check.claim,
        "measured": _json_value(res.measured) if res is not None else None,
        "bound": _json_value(res.bound) if res is not None else None,
        "verdict": res.verdict.value if res is not None else "error",
        "method": res.method if res is not None else None,
        "passed": out.passed,
        "certificate": cert,
        "digits": res.digits if res is not None else None,
        "seconds": round(out.seconds, 3),
        "detail": res.detail if res is not None else out.error,
        "module": check.module,
        "_measured": _fmt(res.measured if res is not None else None),
        "_bound": _fmt(res.bound if res is not None else None),
    }


def _row_by_name(name: str, certificate_dir=None) -> dict:
    """Worker side: import the checks of ``proofs_checks`` and run the one called ``name``."""
    from .verify.registry import all_checks

    return _row(next(c for c in all_checks() if c.name == name), certificate_dir)


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _rows(checks, jobs, certificate_dir=None):
    """Report rows in the order of ``checks``, the checks of ``proofs_checks`` run in ``jobs`` processes.

    Every check is deterministic (fixed seeds, exact arithmetic), so the rows
    do not depend on ``jobs``; only the wall time does. A worker process
    imports ``proofs_checks`` afresh, so checks registered from anywhere
    else (a user's module, a test) run in this process.
    """
    pooled = [c for c in checks if c.module.split(".")[0] == "proofs_checks"]
    if jobs <= 1 or len(pooled) <= 1:
        for c in checks:
            yield _row(c, certificate_dir)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(pooled)), mp_context=ctx) as pool:
        futures = {c.name: pool.submit(_row_by_name, c.name, certificate_dir) for c in pooled}
        for c in checks:
            yield futures[c.name].result() if c.name in futures else _row(c, certificate_dir)


def _verify(args) -> int:
    from .verify.registry import all_checks

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
    if args.certificate:
        os.makedirs(args.certificate, exist_ok=True)
    rows = []
    t0 = time.perf_counter()
    name_w = max(len(c.name) for c in checks)
    if not args.json:
        head = (f"{'check':<{name_w}}  {'measured':>14}  {'bound':>14}  {'verdict':<9}  {'method':<11}  "
                f"{'digits':>6}  {'time':>7}")
        print(head)
        print("-" * len(head))
    for row in _rows(checks, jobs, os.path.abspath(args.certificate) if args.certificate else None):
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
    methods = {m: sum(r["method"] == m for r in rows) for m in ("certified", "algebraic", "estimated",
                                                                 "statistical")}
    if args.json:
        json.dump({"checks": rows, "failed": n_fail, "methods": methods, "seconds": round(total, 3),
                   "jobs": jobs}, sys.stdout, indent=2)
        print()
    else:
        print("-" * 40)
        print(f"{len(rows) - n_fail} of {len(rows)} checks hold; {n_fail} fail or undecided "
              f"(undecided counts as failure); {total:.1f}s wall, {jobs} worker process(es)")
        print("methods: " + ", ".join(f"{n} {m}" for m, n in methods.items())
              + " (certified and algebraic verdicts are proofs; estimated ones are not; statistical "
                "ones have a stated false-failure rate)")
    return 1 if n_fail else 0


# Subcommands implemented next to their concept: module with add_arguments(parser) and run(args).
SUBCOMMANDS = {
    "pate": ("refdp.pate.cli", "PATE analysis of a vote or count array: epsilon by every analysis"),
    "audit": ("refdp.audit.cli", "black-box audit of a mechanism: a lower bound on its epsilon"),
    "audit-accountant": ("refdp.accounting.audit_peers",
                         "audit other libraries' privacy accountants against refdp's certified values"),
    "check-certificate": ("refdp.check_certificate",
                          "re-check privacy certificates with exact rational arithmetic only"),
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
    v.add_argument("--certificate", metavar="DIR", default=None,
                   help="write one JSON certificate per check into DIR (re-check with "
                        "`refdp check-certificate`)")
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
