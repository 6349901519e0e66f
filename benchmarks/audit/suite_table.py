"""The benchmark-suite table of docs/audit.rst, from the JSON files of run_suite.py.

Each input is one ``run_suite.py --json`` file (one confidence and one
held-out test per file, as the runs are made in parallel); rows are matched
by mechanism name. The table gives, per mechanism, DP-Sniper's published
bound, refdp's bound at confidence 0.9 and 0.95 for each held-out test
present, the exact epsilon on the audited pairs where it is known, the power
(bound / exact), the outputs drawn at 0.9, the wall time and the one-minute
load average when the row finished.

Run (from the repository root)::

    python benchmarks/audit/suite_table.py RUN.json [RUN.json ...]
"""
from __future__ import annotations

import argparse
import json
import math


def _fmt(x, digits=4):
    return "" if x is None else f"{x:.{digits}f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args(argv)
    rows, tests, order = {}, [], []
    for path in args.runs:
        with open(path) as f:
            run = json.load(f)
        test = run.get("holdout_test", "binomial")
        if test not in tests:
            tests.append(test)
        for r in run["suite"]:
            if r["name"] not in order:
                order.append(r["name"])
            rows.setdefault(r["name"], {})[(test, r["confidence"])] = r
    head = ["Mechanism", "Claimed", "DP-Sniper (0.9)"]
    for t in tests:
        head += [f"refdp {t} (0.9 / 0.95)", f"Power {t} (0.9 / 0.95)"]
    head += ["Exact on the pairs", "Outputs (0.9)", "Time (0.9 / 0.95)", "Load (0.9 / 0.95)"]
    print(".. list-table::")
    print("   :header-rows: 1")
    print()
    print("   * - " + "\n     - ".join(head))
    for name in order:
        by = rows[name]
        any_row = next(iter(by.values()))
        cells = [name, f"{any_row['claimed_epsilon']:.4g}", _fmt(any_row.get("dpsniper_eps_lcb"))]
        for t in tests:
            a, b = by.get((t, 0.9)), by.get((t, 0.95))
            bold = any_row["broken"]
            def bound(r):
                if r is None:
                    return "--"
                s = _fmt(r["epsilon_lower"])
                return f"**{s}**" if bold and r["violation"] else s
            cells.append(f"{bound(a)} / {bound(b)}")
            pw = [r["power"] if r is not None and r.get("power") is not None else None for r in (a, b)]
            cells.append("" if all(p is None for p in pw) else " / ".join(_fmt(p, 3) or "--" for p in pw))
        known = any_row.get("known_epsilon")
        cells.append("" if known is None else ("unbounded" if not math.isfinite(known) else f"{known:.6g}"))
        first = by.get((tests[0], 0.9)) or any_row
        cells.append(f"{first['samples'] / 1e6:.1f} M")
        t9, t95 = by.get((tests[0], 0.9)), by.get((tests[0], 0.95))
        cells.append(" / ".join("--" if r is None else f"{r['seconds']:.0f} s" for r in (t9, t95)))
        cells.append(" / ".join("--" if r is None or not r.get("load_avg") else f"{r['load_avg'][0]:.1f}"
                                for r in (t9, t95)))
        print("   * - " + "\n     - ".join(cells))


if __name__ == "__main__":
    main()
