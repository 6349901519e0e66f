"""The ``refdp`` command line.

``refdp pate ...`` and ``refdp audit ...`` are described by ``refdp pate -h``
and ``refdp audit -h``.

``refdp verify [--quick] [--detail] [--json] [--only TEXT] [--list] [--jobs N] [--certificate DIR]``
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
import textwrap
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


def _width() -> int:
    """Columns of the terminal (100 when not a terminal), at most 120."""
    import shutil

    return max(60, min(120, shutil.get_terminal_size((100, 24)).columns))


def _margin(row, shown) -> str:
    """``measured <= bound`` as printed, or ``n/a`` for a check without a numeric margin."""
    if row["measured"] in (None, 0) and row["bound"] in (None, 0) and isinstance(row["bound"], (int, type(None))):
        return "n/a"
    return f"{shown[0]} <= {shown[1]}"


def _table_line(row, shown, name_w, width) -> str:
    """One row of the ``refdp verify`` table; the margin moves to a second line if the row is too wide."""
    method = row["method"] or "-"
    head = f"{row['check']:<{name_w}}  {row['verdict']:<9}  {method:<11}  {row['seconds']:>6.2f}s"
    line = f"{head}  {_margin(row, shown)}"
    if len(line) <= width:
        return line
    return f"{head.rstrip()}\n    {_margin(row, shown)}"


def _detail_lines(row, width):
    """The claim, the worst case found and the precision of one check, wrapped to ``width``."""
    digits = row["digits"]
    if row["method"] == "algebraic":
        precision = "decided in exact polynomial arithmetic"
    elif row["method"] == "statistical":
        precision = "decided by a statistical test (false-failure rate in the claim)"
    elif digits:
        precision = f"compared at {digits} decimal digits"
    else:
        precision = "compared in exact or floating-point arithmetic (no working precision)"
    label = "worst" if row["verdict"] != "error" else "error"
    parts = [("claim", row["claim"]), (label, row["detail"] or "-"), ("how", precision)]
    for name, text in parts:
        yield from textwrap.wrap(f"{name}: {text}", width=width, initial_indent="    ",
                                 subsequent_indent="      ")


def _row_by_name(name: str, certificate_dir=None) -> dict:
    """Worker side: import the checks of ``proofs_checks`` and run the one called ``name``."""
    from .verify.registry import all_checks

    return _row(next(c for c in all_checks() if c.name == name), certificate_dir)


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _rows_on_cluster(checks, client, certificate_dir=None):
    """Report rows in the order of ``checks``, each check of ``proofs_checks`` one task on a Dask cluster."""
    from .distributed import map_ordered

    pooled = [c.name for c in checks if c.module.split(".")[0] == "proofs_checks"]
    done = dict(zip(pooled, map_ordered(client, _RowTask(certificate_dir), pooled, label="refdp verify: checks")))
    for c in checks:
        yield done[c.name] if c.name in done else _row(c, certificate_dir)


class _RowTask:
    """Run one registered check by name on a worker (picklable)."""

    def __init__(self, certificate_dir):
        self.certificate_dir = certificate_dir

    def __call__(self, name):
        return _row_by_name(name, self.certificate_dir)


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
        # costliest first (longest processing time first), so that the workers finish
        # together; the rows are still reported in the registry's order
        futures = {c.name: pool.submit(_row_by_name, c.name, certificate_dir)
                   for c in sorted(pooled, key=lambda c: -c.cost)}
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
    client = None
    if args.scheduler:
        from .distributed import connect, n_workers

        try:
            client = connect(args.scheduler, owner="refdp verify")
        except (ValueError, ImportError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        jobs = n_workers(client)
    try:
        return _report(args, checks, jobs, client)
    finally:
        if client is not None:
            from .distributed import close

            close(client)


def _report(args, checks, jobs, client) -> int:
    """Run ``checks`` (locally in ``jobs`` processes, or on ``client``) and print the report."""
    rows = []
    t0 = time.perf_counter()
    name_w = max(len(c.name) for c in checks)
    width = _width()
    if not args.json:
        head = f"{'check':<{name_w}}  {'verdict':<9}  {'method':<11}  {'time':>7}  measured <= bound"
        print(head[:width] if len(head) <= width else head)
        print("-" * min(len(head), width))
    cert_dir = os.path.abspath(args.certificate) if args.certificate else None
    produced = _rows(checks, jobs, cert_dir) if client is None else _rows_on_cluster(checks, client, cert_dir)
    for row in produced:
        shown = (row.pop("_measured"), row.pop("_bound"))
        rows.append(row)
        if not args.json:
            print(_table_line(row, shown, name_w, width), flush=True)
            if args.detail or row["verdict"] != "holds":
                for line in _detail_lines(row, width):
                    print(line)
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
        for line in textwrap.wrap(f"{len(rows) - n_fail} of {len(rows)} checks hold; {n_fail} fail or "
                                  f"undecided (undecided counts as failure); {total:.1f}s wall, {jobs} "
                                  "worker process(es)", width=width):
            print(line)
        for line in textwrap.wrap(
                "methods: " + ", ".join(f"{n} {m}" for m, n in methods.items())
                + " (certified and algebraic verdicts are proofs; estimated ones are not; statistical "
                  "ones have a stated false-failure rate). Every check claims measured <= bound; "
                  "'n/a' marks a check without a numeric margin (a proof for every epsilon, an "
                  "exact equality, or a statistical test whose threshold is in its claim)."
                + ("" if args.detail else " --detail prints each check's claim and worst case."),
                width=width):
            print(line)
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


#: Exit status after the reader of standard output went away (as a process
#: killed by SIGPIPE reports it in a shell: 128 + 13).
EXIT_BROKEN_PIPE = 141


def main(argv=None) -> int:
    """Run the ``refdp`` command line; return the exit status.

    Output piped into a reader that stops early (``refdp verify | head``)
    ends the command quietly with status 141 instead of a traceback.
    """
    try:
        status = _main(argv)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Point stdout at devnull so that the interpreter's final flush does
        # not raise a second time (Python documentation, "Note on SIGPIPE").
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv=None) -> int:
    import importlib

    from . import __version__

    parser = argparse.ArgumentParser(prog="refdp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"refdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="run the verification report (exact privacy checks, theorem checks)")
    v.add_argument("--quick", action="store_true", help="run the quick subset")
    v.add_argument("--json", action="store_true", help="machine-readable output")
    v.add_argument("--only", metavar="TEXT", help="run only checks whose name contains TEXT")
    v.add_argument("--list", action="store_true", help="list the selected checks and exit")
    v.add_argument("--detail", action="store_true",
                   help="print each check's claim, worst case and precision (always shown for a check "
                        "that does not hold)")
    v.add_argument("--certificate", metavar="DIR", default=None,
                   help="write one JSON certificate per check into DIR (re-check with "
                        "`refdp check-certificate`)")
    v.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the checks on a Dask cluster: a scheduler address (tcp://host:8786) or "
                        "local:N for N worker processes here; needs refdp[distributed]. The table is "
                        "identical to the local run's")
    v.add_argument("--jobs", type=int, metavar="N", default=None,
                   help="worker processes (default: the CPUs this process may use); "
                        "the results do not depend on it")
    modules = {}
    for name, (module, help_text) in SUBCOMMANDS.items():
        modules[name] = importlib.import_module(module)
        description = getattr(modules[name], "DESCRIPTION", help_text)
        modules[name].add_arguments(sub.add_parser(name, help=help_text, description=description,
                                                   formatter_class=argparse.RawDescriptionHelpFormatter))
    args = parser.parse_args(argv)
    if args.command == "verify":
        return _verify(args)
    return modules[args.command].run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
