"""Exponential projected walk: refdp's one-sweep prediction against O(n q) baselines.

For each query v the walk starts at log-odds 0 and, for every training record
(x_i, y_i) with x_i <= v in (x, y) order, sets
l = clip(l + s (2 y_i - 1), -B, B) (Dwork & Feldman, Sec. 5).
refdp.core.projected_walk_log_odds sorts the queries and sweeps the sorted
training set once: O(n + q log q). The baselines answer each query on its own:

* the pure-Python twin refdp.twins.core.projected_walk_log_odds (a per-query loop
  over the records, O(n q) Python steps);
* a NumPy twin vectorised across queries (a loop over the records, each step
  an array operation over all queries; O(n q) work).

Part 1 times all three at n = q in {100, 300, 1000, 3000} (results asserted
equal). Part 2 times refdp alone at larger sizes, and at n = q = 10^6 the
whole pipeline: np.lexsort of the training set by (x, y), then the refdp call
(which sorts the queries). Only measured times are printed; nothing is
extrapolated.

Run: python benchmarks/bench_walk.py [--repeats N] [--quick]
"""
from __future__ import annotations

import math

import numpy as np

import _common as bc
from refdp.twins import core as _twins
from refdp.core import projected_walk_log_odds

TARGET_S = 1.0   # n = q = 10^6, sorting included: under one second
EPSILON = 1.0
ALPHA = 0.05
STEP = EPSILON / 2                       # replace-one neighbours
BOUND = math.log((1 - ALPHA) / ALPHA)    # B = ln((1 - alpha) / alpha)


def make_data(n, q, seed=0):
    """Noisy threshold data on [0, 1) with repeated x values (ties), and unsorted queries."""
    rng = np.random.default_rng(seed)
    x = np.floor(rng.random(n) * max(1, n // 4)) / max(1, n // 4)   # about 4 records per x value
    y = ((x > 0.3) ^ (rng.random(n) < 0.1)).astype(np.int64)
    queries = rng.random(q)
    return x, y, queries


def sort_training(x, y):
    """Sort records by (x, y): the documented tie rule."""
    order = np.lexsort((y, x))
    xs = x[order]
    steps = STEP * (2.0 * y[order] - 1.0)
    return xs, steps


def walk_refdp(xs, steps, queries):
    return projected_walk_log_odds(xs, steps, queries, lower=-BOUND, upper=BOUND)


def walk_python_twin(xs, steps, queries):
    return _twins.projected_walk_log_odds(xs, steps, queries, 0.0, -BOUND, BOUND)


def walk_numpy_nq(xs, steps, queries):
    l = np.zeros(len(queries))
    for xi, si in zip(xs, steps):
        moved = np.minimum(np.maximum(l + si, -BOUND), BOUND)
        l = np.where(queries >= xi, moved, l)
    return l


def part1(repeats, sizes):
    rows = []
    for n in sizes:
        x, y, queries = make_data(n, n, seed=n)
        xs, steps = sort_training(x, y)
        funcs = {
            "refdp": lambda: walk_refdp(xs, steps, queries),
            "numpy": lambda: walk_numpy_nq(xs, steps, queries),
            "twin": lambda: walk_python_twin(xs, steps, queries),
        }
        med, res = bc.time_interleaved(funcs, repeats)
        d1 = bc.assert_close_rel(res["numpy"], res["refdp"], f"numpy O(nq) twin, n={n}")
        d2 = bc.assert_close_rel(res["twin"], res["refdp"], f"python twin, n={n}")
        best = min(med["numpy"], med["twin"])
        rows.append([f"{n}", bc.fmt_s(med["refdp"]), bc.fmt_s(med["numpy"]), bc.fmt_s(med["twin"]),
                     f"{best / med['refdp']:.0f}x", f"{max(d1, d2):.1e}"])
    return rows


def part2(repeats, sizes):
    rows = []
    last = None
    for n in sizes:
        x, y, queries = make_data(n, n, seed=n)
        holder = {}

        def pipeline():
            xs, steps = sort_training(x, y)
            return walk_refdp(xs, steps, queries)

        def lexsort_only():
            holder["sorted"] = sort_training(x, y)
            return holder["sorted"]

        def refdp_only():
            xs, steps = holder["sorted"]
            return walk_refdp(xs, steps, queries)

        funcs = {"lexsort": lexsort_only, "refdp": refdp_only, "pipeline": pipeline}
        med, res = bc.time_interleaved(funcs, repeats)
        np.testing.assert_array_equal(res["pipeline"], res["refdp"])
        # exact spot check of three queries against the pure-Python twin (O(n) each)
        xs, steps = res["lexsort"]
        pick = np.array([0, len(queries) // 2, len(queries) - 1])
        bc.assert_close_rel(walk_python_twin(xs, steps, queries[pick]), res["refdp"][pick],
                            f"spot check against the twin, n={n}")
        rows.append([f"{n}", bc.fmt_s(med["lexsort"]), bc.fmt_s(med["refdp"]),
                     bc.fmt_s(med["pipeline"]), "not run (O(n q))"])
        last = (n, med)
    return rows, last


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("exponential projected walk: refdp sweep vs O(n q) twins")
    print(f"epsilon = {EPSILON}, step s = epsilon/2 = {STEP}, alpha = {ALPHA}, B = ln((1-alpha)/alpha) "
          f"= {BOUND:.4f}; noisy threshold data with ties in x.\n")

    small = [100, 300, 1000] if args.quick else [100, 300, 1000, 3000]
    print("Part 1: n = q, training set pre-sorted by (x, y) outside the timing, queries unsorted "
          "(refdp's time includes its query sort). Results asserted equal to 1e-12 relative "
          "(last column: the largest relative difference found).")
    rows = part1(args.repeats, small)
    bc.print_table(["n = q", "refdp", "NumPy O(nq), vectorised over queries",
                    "Python twin (per-query loop)", "best twin / refdp", "max rel. diff"], rows)

    big = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    print("Part 2: refdp only, n = q; 'pipeline' = np.lexsort by (x, y) + gathers + refdp call "
          "(validation, query sort, sweep, unsort), timed as one call. Each result is checked "
          "exactly against the pure-Python twin on three queries.")
    rows, (n, med) = part2(args.repeats, big)
    bc.print_table(["n = q", "lexsort + gathers", "refdp call", "pipeline total", "naive twins"], rows)

    line = (f"n=q={n}: lexsort {bc.fmt_s(med['lexsort'])} + refdp {bc.fmt_s(med['refdp'])}; "
            f"pipeline total {bc.fmt_s(med['pipeline'])}")
    if args.quick:
        bc.summary("walk", line)
    else:
        bc.summary("walk", line, f"< {TARGET_S:g} s", med["pipeline"] < TARGET_S)
    bc.print_load()


if __name__ == "__main__":
    main()
