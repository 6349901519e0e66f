"""Sweeps and black-box audits on a Dask cluster: throughput per worker, and the cost model of docs/scaling.rst.

Law: the projected walk's prediction at x = 1.5 (ProjectedWalk, epsilon = 1,
alpha = 0.1, replace-one) as an interval law, on every multiset of labelled
records over {0, 1, 2, 3} x {0, 1} of size <= N and every replace-one
neighbour (refdp.verify.check_mechanism). Timed: the local run (one process)
and the same sweep on a distributed.LocalCluster of 1 and 2 worker processes
(client=), whose verdicts and enclosures are asserted identical to the local
run's before any time is printed. Reported: neighbouring pairs per second, the
speed-up of two workers over one, and the number of pairs of the size-9 sweep
(counted exactly) with its time on one worker at the measured rate.

Audit: report-noisy-max releasing the noisy maximum of five answers (Laplace
noise of scale 20, the example of docs/audit.rst) on the pair (1,...,1) vs
(2,...,2). Timed: the held-out stage of refdp.audit.audit_black_box alone
(its shards of 2**20 outputs per dataset, each from its own stream, counted
in a fixed event) locally and on 1 and 2 workers, with the counts asserted
identical; and one whole audit at each setting, with the bounds asserted
identical. Reported: outputs per second, the efficiency of two workers
(their throughput over twice one worker's), the scheduler's overhead per task
(no-op tasks), and the per-shard time that docs/scaling.rst's plan for a
10**10-output audit starts from.

Run: python benchmarks/bench_distributed.py [--repeats N] [--quick]
Needs the extra refdp[distributed].
"""
from __future__ import annotations

import statistics
import time

import _common as bc
import numpy as np
from refdp.audit import audit_black_box
from refdp.audit.blackbox import SHARD_SIZE as SHARD
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


ANSWERS = (np.ones(5), np.full(5, 2.0))


def noisy_max_value(answers, n, rng):
    """Report-noisy-max releasing the noisy maximum (Laplace scale 20, claimed 0.1-DP)."""
    return (np.asarray(answers) + rng.laplace(0.0, 20.0, size=(n, len(answers)))).max(axis=1)


def _noop(x):
    return x


def _held_out_task(shards):
    """The audit's held-out stage on a fixed event (output <= 1.47): its task and its shard list."""
    from refdp.audit.blackbox import HeldOutTask, held_out_shards
    from refdp.audit.events import Event

    class _Below:       # the score of a threshold event on the (only) coordinate
        family = "output"

        def __call__(self, sample):
            return sample.real[:, 0]

    event = Event(_Below(), "<=", 1.47)
    plan = {0: (ANSWERS[0], ANSWERS[1], [event], (True, ()))}
    return HeldOutTask(noisy_max_value, np.random.PCG64, (1, 2, 3, 4), plan), \
        held_out_shards([0], {0: shards * SHARD}, SHARD)


def _held_out_stage(shards, client):
    """Total counts per side (exact integers) of the held-out stage, locally or on ``client``."""
    from refdp.audit.blackbox import _held_out, _Progress

    task, items = _held_out_task(shards)
    counts = _held_out(task, items, client, _Progress(False))
    return tuple(sum(c[0] for c, it in zip(counts, items) if it[1] == side) for side in (0, 1))


def _audit(client, n):
    return audit_black_box(noisy_max_value, [ANSWERS], 0.1, n_samples=n, rng=2024, progress=False,
                           client=client)


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
    bc.print_machine("sweeps and audits on a Dask LocalCluster")
    clusters = {}
    for w in (1, 2):
        cluster = distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=40)
        clusters[w] = (cluster, distributed.Client(cluster))
    try:
        _sweep(args, clusters)
        print()
        _audits(args, clusters)
        print()
        _overhead(clusters)
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()
    bc.print_load()


def _sweep(args, clusters):
    size = 4 if args.quick else 5
    datasets = list(all_datasets(DOMAIN, size))
    reference = _run(datasets)
    for w in (1, 2):
        _same(reference, _run(datasets, clusters[w][1]))     # warm-up and equality
    med, cpu = _timed(args, clusters, lambda: _same(reference, _run(datasets)),
                      lambda c: _same(reference, _run(datasets, c)))
    pairs = reference.pairs_checked
    _table(f"two-phase sweep (size <= {size})", "pairs", pairs, med, cpu)
    per_worker = pairs / med[1]
    _phase_costs(datasets)
    import tracemalloc

    t = time.perf_counter()
    tracemalloc.start()
    big, _ = neighbouring_pairs(all_datasets(DOMAIN, 9), "replace", domain=DOMAIN)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    count = len(big)
    laws = len(set(x for pair in big for x in pair))
    print(f"size <= 9: {count} neighbouring pairs over {laws} datasets (listed in {time.perf_counter() - t:.1f} s "
          f"with tracemalloc on; the list holds {held / count:.0f} bytes per pair in the client); "
          f"{count / per_worker / 60:.1f} min on one worker at {per_worker:.0f} pairs/s")
    for workers in (2, 800):   # the records a two-phase sweep sends with its pair shards (check_pairs' cut)
        size = max(1, -(-count // (4 * workers)))
        sent = sum(len(set(x for pair in big[i:i + size] for x in pair)) for i in range(0, count, size))
        print(f"size <= 9 cut for {workers} workers: {-(-count // size)} pair shards carry {sent} records "
              f"({sent / count:.2f} per pair, {sent / laws:.1f} per dataset)")


def _cpu(client):
    """CPU seconds used so far by each worker process of ``client``."""
    return client.run(time.process_time)


def _timed(args, clusters, local, remote):
    """Median wall time and median CPU seconds (this process, or every worker summed and the busiest
    worker) of ``local()`` and of ``remote(client)`` on 1 and 2 workers, interleaved."""
    times = {"local": [], 1: [], 2: []}
    cpus = {"local": [], 1: [], 2: []}
    for _ in range(args.repeats):
        t, c = time.perf_counter(), time.process_time()
        local()
        times["local"].append(time.perf_counter() - t)
        cpus["local"].append((time.process_time() - c,) * 2)
        for w in (1, 2):
            client = clusters[w][1]
            before = _cpu(client)
            t = time.perf_counter()
            remote(client)
            times[w].append(time.perf_counter() - t)
            after = _cpu(client)
            used = [after[k] - before[k] for k in after if k in before]
            cpus[w].append((sum(used), max(used)))
    med = {k: statistics.median(v) for k, v in times.items()}
    cpu = {k: (statistics.median(u[0] for u in v), statistics.median(u[1] for u in v)) for k, v in cpus.items()}
    return med, cpu


def _table(title, unit, amount, med, cpu):
    rows = [[name, f"{amount}", bc.fmt_s(med[key]), f"{amount / med[key]:.3g}", f"{cpu[key][0]:.2f} s",
             f"{cpu[key][1]:.2f} s"]
            for name, key in (("local, 1 process", "local"), ("LocalCluster, 1 worker", 1),
                              ("LocalCluster, 2 workers", 2))]
    bc.print_table([title, unit, "median wall", f"{unit}/s (wall)", "CPU, all workers", "CPU, busiest"], rows)
    print(f"  wall clock: speed-up of 2 workers over 1 {med[1] / med[2]:.2f}, efficiency "
          f"(2-worker throughput / 2 x 1-worker) {med[1] / med[2] / 2:.2f} (load-dependent)")
    print(f"  CPU: 2 workers use {cpu[2][0] / cpu[1][0]:.2f} x the CPU of 1 worker in all; the busiest does "
          f"{cpu[2][1] / cpu[1][0]:.2f} of 1 worker's work, so on 2 free cores the speed-up would be about "
          f"{cpu[1][0] / cpu[2][1]:.2f} (efficiency {cpu[1][0] / cpu[2][1] / 2:.2f})")


def _phase_costs(datasets):
    """CPU seconds per law and per pair of a local sweep, and the bytes of a law's record (the cost model)."""
    import pickle
    from fractions import Fraction

    from refdp.verify.check import _decide_all, _Law

    plist, _ = neighbouring_pairs(datasets, "replace", domain=DOMAIN)
    law = _Law(walk_law, "bench")
    names = list(dict.fromkeys(x for pair in plist for x in pair))
    t = time.process_time()
    for d in names:
        law.get(d, 30)
    laws_cpu = time.process_time() - t
    nbytes = len(pickle.dumps(law.cache))
    t = time.process_time()
    _decide_all(law, plist, Fraction(1), Fraction(0), 30, 200, "bench")
    pairs_cpu = time.process_time() - t
    print(f"local phases (CPU): {len(names)} laws in {laws_cpu:.2f} s ({1e3 * laws_cpu / len(names):.2f} ms "
          f"per law), {len(plist)} pairs in {pairs_cpu:.2f} s ({1e3 * pairs_cpu / len(plist):.3f} ms per pair); "
          f"a law's record pickles to {nbytes / len(names):.0f} bytes")


def _audits(args, clusters):
    import cloudpickle

    shards = 4 if args.quick else 16          # per dataset: 2 * shards tasks of 2**20 outputs
    t = time.process_time()
    reference = _held_out_stage(shards, None)
    shard_cpu = (time.process_time() - t) / (2 * shards)
    for w in (1, 2):
        assert _held_out_stage(shards, clusters[w][1]) == reference     # warm-up and equality
    def check(client=None):
        assert _held_out_stage(shards, client) == reference
    med, cpu = _timed(args, clusters, check, check)
    outputs = 2 * shards * SHARD
    _table(f"audit held-out stage ({2 * shards} shards)", "outputs", outputs, med, cpu)
    print(f"one shard ({SHARD} outputs of one dataset), local: {med['local'] / (2 * shards):.3f} s wall, "
          f"{shard_cpu:.3f} s CPU; the task (mechanism, pair, event) pickles to "
          f"{len(cloudpickle.dumps(_held_out_task(1)[0]))} bytes")
    _selection_cost(1 << 21 if args.quick else 1 << 23)
    # one whole audit (selection here, held-out stage local or on the cluster): identical bounds
    n = 1 << 21 if args.quick else 1 << 23
    whole = {}
    for key in ("local", 1, 2):
        t = time.perf_counter()
        r = _audit(None if key == "local" else clusters[key][1], n)
        whole[key] = (time.perf_counter() - t, r)
    ref = whole["local"][1]
    for key in (1, 2):
        r = whole[key][1]
        assert (r.epsilon_lower, r.counts, r.event, r.samples) == (ref.epsilon_lower, ref.counts, ref.event,
                                                                  ref.samples)
    print(f"whole audit, n_samples = {n} (one run each, bounds identical: epsilon >= {ref.epsilon_lower:.4f}, "
          f"counts {ref.counts}, {ref.samples} outputs): "
          + ", ".join(f"{'local' if k == 'local' else f'{k} worker(s)'} {v[0]:.1f} s" for k, v in whole.items()))


def _selection_cost(m):
    """Seconds of the selection (step 1, in the client process) on exactly ``m`` outputs per dataset."""
    from refdp.audit.blackbox import PairReport, _Progress, _select
    from refdp.audit.events import Objective

    rep = PairReport(0, "bench", ANSWERS)
    t, c = time.perf_counter(), time.process_time()
    _select(noisy_max_value, ANSWERS[0], ANSWERS[1], np.random.default_rng(1), [Objective("epsilon", 0.0)],
            0.025, 64 * m, m, 20_000, 0.0, False, rep, _Progress(False))
    print(f"selection of {rep.selection_samples} outputs per dataset (tolerance 0), local: "
          f"{time.perf_counter() - t:.1f} s wall, {time.process_time() - c:.1f} s CPU")


def _overhead(clusters):
    n = 500
    for w in (1, 2):
        client = clusters[w][1]
        from refdp.distributed import map_ordered

        map_ordered(client, _noop, range(50), progress=False)
        t = time.perf_counter()
        map_ordered(client, _noop, range(n), progress=False)
        dt = time.perf_counter() - t
        print(f"scheduler overhead, {w} worker(s): {1e3 * dt / n:.2f} ms per no-op task ({n} tasks)")


if __name__ == "__main__":
    main()
