"""Time the Python examples of the documentation, as a new user would run them.

Each page's ``.. code-block:: python`` blocks run in order in one fresh
interpreter (a page's later blocks may use its earlier ones); the script
prints the wall and CPU seconds of each block, and of the interpreter's
``import refdp`` first. By default only the quick-start page
(``docs/quickstart.rst``) is timed; ``--all`` times every page with examples.
These are measurements to report, not tests: nothing here asserts a time.

Run (from the repository root)::

    python benchmarks/bench_docs_examples.py [--all] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")

_RUNNER = r'''
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import refdp
rows = [{"block": "import refdp", "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}]
ns = {"__name__": "docs_example"}
for i, code in enumerate(json.loads(sys.stdin.read())):
    t, c = time.perf_counter(), time.process_time()
    try:
        exec(compile(code, f"block {i}", "exec"), ns)
        error = ""
    except Exception as exc:          # reported, not raised: a timing run
        error = f"{type(exc).__name__}: {exc}"[:200]
    rows.append({"block": i, "wall": time.perf_counter() - t, "cpu": time.process_time() - c,
                 "first_line": code.strip().splitlines()[0] if code.strip() else "", "error": error})
print("\n@@ROWS@@" + json.dumps(rows))
'''


def python_blocks(path):
    sys.path.insert(0, ROOT)
    from tests.test_docs import _python_blocks
    # a block indented by more than the directive's three spaces keeps the surplus: dedent it
    return [textwrap.dedent(b) for b in _python_blocks(path)]


def time_page(path):
    blocks = python_blocks(path)
    proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(blocks), capture_output=True,
                          text=True, cwd=ROOT, timeout=3600)
    if "@@ROWS@@" not in proc.stdout:
        return [{"block": "page", "wall": float("nan"), "cpu": float("nan"), "error": proc.stderr[-300:]}]
    return json.loads(proc.stdout.split("@@ROWS@@")[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="every page with Python examples")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    pages = (sorted(f for f in os.listdir(DOCS) if f.endswith(".rst")) if args.all else ["quickstart.rst"])
    report = {}
    for page in pages:
        path = os.path.join(DOCS, page)
        if not python_blocks(path):
            continue
        rows = time_page(path)
        report[page] = rows
        for r in rows:
            what = r["block"] if isinstance(r["block"], str) else f"block {r['block']}: {r.get('first_line', '')[:50]}"
            err = f"  ERROR {r['error']}" if r.get("error") else ""
            print(f"{page:34s} {what:62s} {r['wall']:7.2f} s wall {r['cpu']:7.2f} s CPU{err}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
