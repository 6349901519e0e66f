"""Exhaustive verification on a Dask cluster: throughput per worker, and the cost model of docs/scaling.rst.

Law: the projected walk's prediction at x = 1.5 (ProjectedWalk, epsilon = 1,
alpha = 0.1, replace-one) as an interval law, on every multiset of labelled
records over {0, 1, 2, 3} x {0, 1} of size <= N and every replace-one
neighbour (refdp.verify.check_mechanism). Timed: the local run (one process)
and the same sweep on a distributed.LocalCluster of 1 and 2 worker processes
(client=), whose verdicts and enclosures are asserted identical to the local
run's before any time is printed. Reported: neighbouring pairs per second, the
speed-up of two workers over one, and the number of pairs of the size-9 sweep
(counted exactly) with its time on one worker at the measured rate.

Run: python benchmarks/bench_distributed.py [--repeats N] [--quick]
Needs the extra refdp[distributed].
"""
from __future__ import annotations

import statistics
import time

import _common as bc
from refdp.prediction import ProjectedWalk
from refdp.verify import check_mechanism
from refdp.verify.neighbours import all_datasets, labelled_domain, neighbouring_pairs

DOMAIN = labelled_domain(range(4))
QUERY = 1.5


def walk_law(dataset, ctx):
    """P[output] of the walk's prediction at QUERY, enclosed in the interval context ``ctx``."""
    walk = ProjectedWalk(1.0, 0.1)
    if dataset:
        (a, b), = walk.fit([r[0] for r in dataset], [r[1] for r in dataset]).exact_states([QUERY])
    else:
        a, b = 0, 0
    step, big_b = walk.exact_parameters(ctx)
    p1 = 1 / (1 + ctx.exp(-(a * step + b * big_b)))
    return {0: 1 - p1, 1: p1}


def _run(datasets, client=None):
    return check_mechanism(walk_law, datasets, 1.0, domain=DOMAIN, client=client)


def _same(a, b):
    for name in ("verdict", "enclosure", "worst_pair", "worst_output", "pairs_checked", "failing_pairs"):
        assert getattr(a, name) == getattr(b, name), name


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    import logging

    import distributed

    logging.getLogger("distributed").setLevel(logging.ERROR)
    bc.print_machine("exhaustive verification on a Dask LocalCluster")
    size = 4 if args.quick else 5
    datasets = list(all_datasets(DOMAIN, size))
    reference = _run(datasets)
    clusters = {}
    for w in (1, 2):
        cluster = distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=40)
        clusters[w] = (cluster, distributed.Client(cluster))
        _same(reference, _run(datasets, clusters[w][1]))     # warm-up and equality
    times = {"local": [], 1: [], 2: []}
    for _ in range(args.repeats):
        t = time.perf_counter(); _same(reference, _run(datasets)); times["local"].append(time.perf_counter() - t)
        for w in (1, 2):
            t = time.perf_counter()
            _same(reference, _run(datasets, clusters[w][1]))
            times[w].append(time.perf_counter() - t)
    for cluster, client in clusters.values():
        client.close()
        cluster.close()
    pairs = reference.pairs_checked
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = [[name, f"{pairs}", bc.fmt_s(med[key]), f"{pairs / med[key]:.0f}"]
            for name, key in (("local, 1 process", "local"), ("LocalCluster, 1 worker", 1),
                              ("LocalCluster, 2 workers", 2))]
    bc.print_table([f"sweep (size <= {size})", "pairs", "median time", "pairs/s"], rows)
    per_worker = pairs / med[1]
    print(f"speed-up of 2 workers over 1: {med[1] / med[2]:.2f}")
    t = time.perf_counter()
    big, _ = neighbouring_pairs(all_datasets(DOMAIN, 9), "replace", domain=DOMAIN)
    count = len(big)
    print(f"size <= 9: {count} neighbouring pairs (counted in {time.perf_counter() - t:.1f} s); "
          f"{count / per_worker / 60:.1f} min on one worker at {per_worker:.0f} pairs/s")

if __name__ == "__main__":
    main()
