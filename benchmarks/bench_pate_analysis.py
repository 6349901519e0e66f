"""PATE analysis end to end: the data-dependent accountant, and the exact analysis from the LNMax law.

(1) The data-dependent analysis (PATE Lemma 4 -> Theorem 3 -> Theorem 1) at
    Q = 100, 10^3, 10^4 and 10^5 vote histograms of 250 teachers over 10
    classes (bench_accountant's mixture), at 64 orders linspace(0.5, 64), to
    (epsilon, delta) at delta = 1e-5. Timed, each from the counts:
      * the accountant's data-dependent path,
        PATEAccountant(gamma, orders, two_sided=False, noise="continuous")
        .add_counts(counts).epsilon(delta) (validation, Lemma 4, the
        accountant, both certified conversions);
      * the one-call report pate_analysis(..., two_sided=False,
        noise="continuous") (also the data-independent analysis and PATE's
        closed form);
      * pate_analysis with refdp's defaults (two-sided, discrete noise: a
        different, larger bound, so no ratio of equal values; shown for cost);
      * the baseline with the structure of the published PATE analysis of
        2018 (tensorflow-privacy research/pate_2018/core.py): a loop over the
        queries, each query's log q in NumPy over the classes and its bound in
        NumPy over the orders, summed, then the tail-bound conversion
        min_lambda (alpha + log(1/delta)) / lambda in NumPy, with the upward
        margins of refdp/twins/core.py (benchmarks/bench_accountant.py,
        baseline (a)). Its log-moments and epsilon are asserted equal to
        refdp's (1e-12 relative) before a ratio is printed.
    Small Q are timed as batches of calls (the time shown is per call).
    Target: refdp's data-dependent path at least 10x faster than the
    baseline at every Q.

(2) The exact analysis (refdp.pate.exact_analysis) of Q queries, C = 10,
    T = 250, teachers agreeing with probability 0.9 (the rest uniform over
    the other classes): for every query the exact LNMax law, the law of every
    neighbour and the worst-case log-moments in both directions at
    refdp.accounting.DEFAULT_ORDERS (63 orders), for continuous noise and
    the discrete noise (refdp's default), at Q = 10^3, 10^4 and 10^5 (median
    of the repeats at 10^3, of 3 runs at 10^4, one run at 10^5; new votes
    each run), wall and CPU time of all threads. The environment variables
    REFDP_BENCH_DISCRETE_MAX (cap on the discrete sizes), REFDP_BENCH_RUNS_10K
    (runs at 10^4) and REFDP_BENCH_PARTS (parts to run, e.g. "12") serve to
    time an older build in the same conditions. Target: < 1 s wall at Q = 10^4, growing linearly with Q.
    Then, in the same run, the discrete kernel with and without skipping the moves whose log-moments
    are provably below the maximum (identical results, asserted), CPU time at Q = 10^4.

(3) The float LNMax law against its mpmath twin
    (refdp.mechanisms.report_noisy_max_distribution, exact=True, 30 digits)
    on 200 vectors: speed and largest difference of log-probabilities.

(4) The analyses of float-safe answers (discrete Laplace noise, the
    default of lnmax_labels): the accountant with noise="discrete" against
    noise="continuous" on the histograms of (1) (Lemma 4 only), and the
    discrete exact analysis (exact q, both sides, and the worst-case
    log-moments) of 100 agreeing queries; the neighbour laws by low-rank
    updates (neighbour_log_law_bounds) against one direct sum per neighbour
    (fast_log_law_bounds), with their largest difference.

Needs the compiled kernel refdp._lnmax; without it the script says so and stops.

Run: python benchmarks/bench_pate_analysis.py [--repeats N] [--quick]
"""
from __future__ import annotations

import os
import sys
import time

import mpmath
import numpy as np

import _common as bc
from bench_accountant import make_histograms, pipeline_per_query_numpy
from refdp.accounting import DEFAULT_ORDERS
from refdp.mechanisms import report_noisy_max_distribution
from refdp.pate import PATEAccountant, exact_analysis, lnmax_distribution, pate_analysis
from refdp import core as _kernels

GAMMA = 0.05
DELTA = 1e-5
ORDERS = np.linspace(0.5, 64, 64)


def agreeing_histograms(n_queries, n_teachers=250, n_classes=10, agreement=0.9, seed=0):
    """Each teacher votes the query's class with probability ``agreement``, else another class uniformly."""
    rng = np.random.default_rng(seed)
    p = np.full((n_queries, n_classes), (1 - agreement) / (n_classes - 1))
    p[np.arange(n_queries), rng.integers(0, n_classes, n_queries)] = agreement
    return np.array([rng.multinomial(n_teachers, row) for row in p])


def accountant_object(counts, two_sided, noise="continuous"):
    acc = PATEAccountant(GAMMA, orders=ORDERS, two_sided=two_sided, noise=noise).add_counts(counts)
    return acc.log_moments(), acc.epsilon(DELTA)


def data_dependent_path(counts):
    """The accountant's data-dependent path, counts -> (epsilon, delta) (one-sided, continuous)."""
    acc = PATEAccountant(GAMMA, orders=ORDERS, two_sided=False, noise="continuous").add_counts(counts)
    return acc, acc.epsilon(DELTA)


def baseline_2018(counts):
    """Per-query loop, NumPy over the orders, then the tail-bound conversion in NumPy."""
    alpha = pipeline_per_query_numpy(counts)
    eps = (alpha + np.log(1.0 / DELTA)) / ORDERS
    return alpha, float(np.min(eps))


def batched(f, n):
    """``f`` called ``n`` times (the result of the first call)."""
    def run():
        out = f()
        for _ in range(n - 1):
            f()
        return out
    return run


def moves_per_query(counts):
    """Neighbour laws the exact analysis computes per query (one per pair of count values)."""
    out = []
    for row in counts:
        values, mult = np.unique(row, return_counts=True)
        k = len(values)
        src = int(np.sum(values >= 1))
        out.append(src * k - int(np.sum((values >= 1) & (mult == 1))))
    return np.array(out)


#: Largest Q of the discrete exact analysis in part (2) (environment REFDP_BENCH_DISCRETE_MAX;
#: an older build needs about 10 ms per query).
DISCRETE_MAX = int(os.environ.get("REFDP_BENCH_DISCRETE_MAX", 10**5))
#: Runs of the exact analysis at Q = 10^4 (environment REFDP_BENCH_RUNS_10K, default 3).
RUNS_10K = int(os.environ.get("REFDP_BENCH_RUNS_10K", 3))
#: Parts to run (environment REFDP_BENCH_PARTS, e.g. "12"; default all four).
PARTS = os.environ.get("REFDP_BENCH_PARTS", "1234")


def prune_vs_every_move(orders, Q=10**4, runs=3):
    """The discrete kernel with and without skipping the moves provably below the maximum (same doubles).

    Both on the same 10^4 agreeing histograms, interleaved, ``runs`` times; CPU time of all threads
    (the kernel only: tables, margins and threads as in exact_analysis). The results are asserted
    equal before the ratio is printed.
    """
    import inspect
    import math

    from refdp.pate.discrete_analysis import TAIL_SCALES, compiled_law_margins, lnmax_scale
    if "prune" not in inspect.signature(_kernels.discrete_exact_rows).parameters:
        print("    (this build has no pruning of moves: no comparison)")
        return
    data = agreeing_histograms(Q, seed=20)
    t = lnmax_scale(GAMMA)
    k = math.ceil(TAIL_SCALES * float(t)) + 2
    margins = compiled_law_margins(data, t)
    cpu = {True: [], False: []}
    out = {}
    for _ in range(runs):
        for prune in (True, False):
            c0 = time.process_time()
            out[prune] = _kernels.discrete_exact_rows(data, t, k, margins, orders, prune=prune)
            cpu[prune].append(time.process_time() - c0)
    for a, b in zip(out[True], out[False]):
        assert np.array_equal(a, b), "pruned and full evaluations differ"
    p, f = float(np.median(cpu[True])), float(np.median(cpu[False]))
    print(f"    discrete kernel, {Q} queries (median of {runs} interleaved runs, CPU of all threads): "
          f"skipping the moves provably below the maximum {bc.fmt_s(p)}, every move {bc.fmt_s(f)} "
          f"({f / p:.2f}x; identical results)")
    bc.summary("pate_exact_prune", f"{Q} queries: pruned {bc.fmt_s(p)} CPU vs every move {bc.fmt_s(f)} "
               f"({f / p:.2f}x, identical results)")


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("PATE analysis: accountant object and exact analysis")
    if not _kernels.LNMAX_COMPILED:
        print("refdp._lnmax is not built: the exact analysis would run in the pure-Python twin "
              "(about a thousand times slower). Build the extension and rerun.")
        bc.summary("pate_analysis", "not run: refdp._lnmax not built")
        return 1
    Q = 10**4 if args.quick else 10**5

    # ---- (1) the data-dependent analysis against the per-query NumPy baseline, Q = 100 .. 10^5
    sizes = (100, 1000, 10**4) if args.quick else (100, 1000, 10**4, 10**5)
    if "1" not in PARTS:
        sizes = ()
    rows = []
    for Q in sizes:
        counts = make_histograms(Q)
        n = max(1, 10**4 // Q)              # calls per timed batch
        funcs = {
            "path": batched(lambda: data_dependent_path(counts), n),
            "report": batched(lambda: pate_analysis(counts, GAMMA, DELTA, orders=ORDERS, two_sided=False,
                                                    noise="continuous"), n),
            "default": batched(lambda: pate_analysis(counts, GAMMA, DELTA, orders=ORDERS), n),
            "baseline": batched(lambda: baseline_2018(counts), n),
        }
        med, res = bc.time_interleaved(funcs, args.repeats)
        med = {k: v / n for k, v in med.items()}
        acc, conv = res["path"]
        alpha, eps = res["baseline"]
        d = bc.assert_close_rel(acc.log_moments(), alpha, f"Q={Q}: baseline vs accountant log-moments")
        d = max(d, bc.assert_close_rel(res["report"].log_moments["theorem3"], alpha,
                                       f"Q={Q}: baseline vs pate_analysis log-moments"))
        d = max(d, bc.assert_close_rel(conv.epsilon_tail, eps, f"Q={Q}: baseline vs accountant epsilon"))
        d = max(d, bc.assert_close_rel(res["report"].results["theorem3"].epsilon_tail, eps,
                                       f"Q={Q}: baseline vs pate_analysis epsilon"))
        ratio = med["baseline"] / med["path"]
        ratio_r = med["baseline"] / med["report"]
        rows.append([f"{Q}", bc.fmt_s(med["baseline"]), bc.fmt_s(med["path"]), f"{ratio:.1f}x",
                     bc.fmt_s(med["report"]), f"{ratio_r:.1f}x", bc.fmt_s(med["default"]), f"{d:.1e}"])
        line = (f"Q={Q}: data-dependent path {bc.fmt_s(med['path'])}, pate_analysis {bc.fmt_s(med['report'])} "
                f"vs per-query baseline {bc.fmt_s(med['baseline'])} -> {ratio:.1f}x, {ratio_r:.1f}x")
        bc.summary("pate_accountant", line, ">= 10x", ratio >= 10)
    if rows:
        print(f"(1) data-dependent analysis, counts -> (epsilon, delta = {DELTA:g}), {len(ORDERS)} orders, "
              "one-sided, continuous noise (the values compared); time per call:")
        bc.print_table(["Q", "baseline (2018 structure)", "accountant path", "baseline / path",
                       "pate_analysis", "baseline / pate_analysis", "pate_analysis, defaults",
                       "max rel. diff"], rows)

    # ---- (2) exact analysis, continuous and discrete noise
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    rows = []
    sizes2 = (1000, 10**4) if args.quick else (1000, 10**4, 10**5)
    if "2" not in PARTS:
        sizes2 = ()
    for noise in ("continuous", "discrete"):
        for Q in sizes2:
            if noise == "discrete" and Q > DISCRETE_MAX:
                continue
            reps = args.repeats if Q <= 1000 else (RUNS_10K if Q <= 10**4 else 1)
            walls, cpus = [], []
            for r in range(reps):          # new votes each run: no per-row cache is reused
                data = agreeing_histograms(Q, seed=10 + r)
                t0, c0 = time.perf_counter(), time.process_time()
                exact_analysis(data, GAMMA, orders, noise=noise)
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            wall, cpu = float(np.median(walls)), float(np.median(cpus))
            laws = moves_per_query(data) + 1
            rows.append([noise + (" (default)" if noise == "discrete" else ""), f"{Q}", f"{laws.mean():.1f}",
                         bc.fmt_s(wall), bc.fmt_s(cpu), f"{cpu / Q * 1e6:.0f} us",
                         "single run" if reps == 1 else f"median of {reps}"])
            if Q == 10**4:
                bc.summary("pate_exact", f"{Q} queries, C=10, {len(orders)} orders, {noise} noise: wall "
                           f"{bc.fmt_s(wall)}, CPU {bc.fmt_s(cpu)} (all threads)", "< 1 s wall", wall < 1.0)
    if rows:
        print(f"(2) exact analysis, C = 10, T = 250, 90 % agreement, {len(orders)} orders (both directions, "
              "every neighbour; laws per query: the continuous kernel's, one per pair of count values):")
        bc.print_table(["noise", "Q", "laws per query", "wall, all threads", "CPU, all threads",
                        "CPU per query", "timing"], rows)
        prune_vs_every_move(orders)

    if "3" not in PARTS and "4" not in PARTS:
        bc.print_load()
        return 0
    # ---- (3) float law vs mpmath twin
    rng = np.random.default_rng(3)
    vecs = [rng.multinomial(250, rng.dirichlet(np.full(10, a))) for a in rng.choice([0.1, 1.0], 200)]
    t0 = time.perf_counter()
    fl = lnmax_distribution(np.array(vecs), GAMMA, log=True)
    t_float = time.perf_counter() - t0
    t0 = time.perf_counter()
    worst = 0.0
    for v, row in zip(vecs, fl):
        ex = report_noisy_max_distribution(v.tolist(), 2 * GAMMA, exact=True, dps=30)
        worst = max(worst, max(abs(float(mpmath.log(p)) - x) for p, x in zip(ex, row)))
    t_mp = time.perf_counter() - t0
    print(f"(3) LNMax law of 200 vectors (C = 10): compiled float {bc.fmt_s(t_float)}, mpmath twin "
          f"{bc.fmt_s(t_mp)} ({t_mp / t_float:.0f}x); largest |log P_float - log P_mpmath| = {worst:.1e}")
    bc.summary("pate_law", f"float law {bc.fmt_s(t_float / 200)} per vector, max log error {worst:.1e}")

    # ---- (4) discrete-noise analyses
    from refdp.pate.discrete_analysis import fast_log_law_bounds, lnmax_scale, neighbour_log_law_bounds
    q4 = 10**3 if args.quick else 10**4
    counts4 = make_histograms(q4, seed=2)
    funcs = {"continuous": lambda: accountant_object(counts4, True),
             "discrete": lambda: accountant_object(counts4, True, "discrete")}
    med, _ = bc.time_interleaved(funcs, args.repeats)
    agreeing = agreeing_histograms(100, seed=4)
    funcs = {"continuous": lambda: PATEAccountant(GAMMA, exact=True, noise="continuous").add_counts(agreeing),
             "discrete": lambda: PATEAccountant(GAMMA, exact=True, noise="discrete").add_counts(agreeing)}
    med_e, _ = bc.time_interleaved(funcs, args.repeats)
    t = lnmax_scale(GAMMA)
    rows4 = agreeing[:20].tolist()

    def direct():
        out = []
        for row in rows4:
            V = np.array([row] + [[v - (i == a) + (i == b) for i, v in enumerate(row)]
                                  for a in range(10) for b in range(10) if a != b and row[a] >= 1])
            out.append(fast_log_law_bounds(V, t))
        return out
    funcs = {"low-rank": lambda: [neighbour_log_law_bounds(r, t)[1:] for r in rows4], "direct": direct}
    med_n, res_n = bc.time_interleaved(funcs, args.repeats)
    diff = max(float(np.max(np.abs(a[0] - b[0]))) for a, b in zip(res_n["low-rank"], res_n["direct"]))
    print(f"(4) float-safe answers: accountant (Lemma 4, two-sided) on {q4} histograms, discrete "
          f"{bc.fmt_s(med['discrete'])} vs continuous {bc.fmt_s(med['continuous'])} "
          f"({med['discrete'] / med['continuous']:.1f}x); exact=True on 100 agreeing queries, discrete "
          f"{bc.fmt_s(med_e['discrete'])} vs continuous {bc.fmt_s(med_e['continuous'])} "
          f"({med_e['discrete'] / med_e['continuous']:.0f}x); neighbour laws of 20 queries by low-rank "
          f"updates {bc.fmt_s(med_n['low-rank'])} vs direct sums {bc.fmt_s(med_n['direct'])} "
          f"({med_n['direct'] / med_n['low-rank']:.1f}x faster, largest difference {diff:.1e})")
    bc.summary("pate_discrete", f"exact=True on 100 queries: discrete {bc.fmt_s(med_e['discrete'])}, "
               f"{med_e['discrete'] / med_e['continuous']:.0f}x the continuous kernel; low-rank neighbour "
               f"laws {med_n['direct'] / med_n['low-rank']:.1f}x faster than direct sums")
    bc.print_load()
    return 0


if __name__ == "__main__":
    sys.exit(main())
