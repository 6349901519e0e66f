"""ProjectedWalk end to end: fit + predict_proba at n = q = 10^6 against the naive per-query walk.

``refdp.prediction.ProjectedWalk`` (Dwork & Feldman 2018, Sec. 5) sorts the
training set once in ``fit`` and answers all queries of ``predict_proba`` in
one compiled sweep. The baseline is the plain per-query walk (for each query,
a pass over the sorted records: O(n q)), vectorised across queries with
NumPy; it is run on small sizes only, to show the scaling, and its answers
are asserted equal to refdp's. Target (issue): fit + predict_proba with
n = q = 10^6 in under one second.

Run: python benchmarks/bench_projected_walk.py [--repeats N] [--quick]
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

import _common as bc
from bench_walk import make_data, walk_numpy_nq
from refdp.prediction import ProjectedWalk

TARGET_S = 1.0
EPSILON, ALPHA = 1.0, 0.05


def refdp_end_to_end(x, y, queries):
    return ProjectedWalk(EPSILON, ALPHA).fit(x, y).predict_proba(queries)[:, 1]


def naive(x, y, queries):
    walk = ProjectedWalk(EPSILON, ALPHA).fit(x, y)   # sorted records and steps
    l = walk_numpy_nq(walk.x_, walk.steps_, queries) if len(queries) else np.empty(0)
    return expit(l)


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("ProjectedWalk.fit + predict_proba vs naive O(n q) walk")
    rows = []
    for n in (300, 1000, 3000):
        x, y, q = make_data(n, n, seed=n)
        med, res = bc.time_interleaved({"refdp": lambda: refdp_end_to_end(x, y, q),
                                        "naive": lambda: naive(x, y, q)}, args.repeats)
        d = bc.assert_close_rel(res["naive"], res["refdp"], f"naive walk, n={n}")
        rows.append([str(n), bc.fmt_s(med["refdp"]), bc.fmt_s(med["naive"]),
                     f"{med['naive'] / med['refdp']:.0f}x", f"{d:.1e}"])
    bc.print_table(["n = q", "refdp fit+predict_proba", "naive O(nq) (NumPy)", "naive / refdp",
                    "max rel. diff"], rows)
    print()
    rows = []
    sizes = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    for n in sizes:
        x, y, q = make_data(n, n, seed=n)
        med, _ = bc.time_interleaved({"refdp": lambda: refdp_end_to_end(x, y, q)}, args.repeats)
        rows.append([str(n), bc.fmt_s(med["refdp"]), "not run (O(n q))"])
    bc.print_table(["n = q", "refdp fit+predict_proba", "naive"], rows)
    line = f"n=q={sizes[-1]}: fit + predict_proba {bc.fmt_s(med['refdp'])}"
    if args.quick:
        bc.summary("projected walk", line)
    else:
        bc.summary("projected walk", line, f"< {TARGET_S:g} s", med["refdp"] < TARGET_S)
    bc.print_load()


if __name__ == "__main__":
    main()
