"""The table of docs/accounting_audit.rst: peer accountants against refdp's certified epsilon.

Runs ``refdp audit-accountant --json`` (or reads its saved output) and prints
the rows of the csv-table, one per setting and accountant, with the verdict
(valid / inside / UNDERCUTS / failed / unsupported), followed by the counts
per accountant and verdict. Values that undercut or lie inside the
enclosure are printed with all 17 digits (some undercuts are in the last
bits); others with 8.

Run: python benchmarks/audit/accounting_peers_table.py [--from FILE.jsonl] [--quick]
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys


def _rows(args):
    if args.source:
        with open(args.source, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    cmd = [sys.executable, "-m", "refdp.cli", "audit-accountant", "--json"] + (["--quick"] if args.quick else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _fmt(v, full=False):
    if v is None:
        return "-"
    return repr(v) if full else f"{v:.8g}"


def _verdict(r):
    if r["verdict"] == "undercuts":
        return f"**undercuts** by {100 * r['gap']:.3g}%" if r["gap"] != float("inf") else "**undercuts**"
    if r["verdict"] == "valid":
        return "valid" if r["gap"] == 0 else f"valid, loose by {100 * r['gap']:.3g}%"
    if r["verdict"] == "inside":
        return "inside the enclosure"
    return r["error"].replace('"', "'")[:90]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", metavar="FILE.jsonl")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rows = _rows(args)
    for r in rows:
        full = r["verdict"] in ("undercuts", "inside")
        print(f'   "{r["setting"]}", {r["delta"]:g}, {r["accountant"]}, {_fmt(r["epsilon"], full)}, '
              f'"[{_fmt(r["lower"], full)}, {_fmt(r["upper"], full)}]", "{_verdict(r)}"')
    counts = collections.Counter((r["accountant"], r["verdict"]) for r in rows)
    print()
    for (acc, verdict), n in sorted(counts.items()):
        print(f"{acc}: {n} {verdict}")


if __name__ == "__main__":
    main()
