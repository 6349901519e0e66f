"""PATE analysis end to end: the accountant object, and the exact analysis from the LNMax law.

(1) The moments accountant object (refdp.pate.PATEAccountant) on Q = 10^5 vote
    histograms of 250 teachers over 10 classes, at 64 orders linspace(0.5, 64):
    counts -> Lemma 4 (one- and two-sided) -> Theorems 1-3 -> (epsilon, delta) by
    the tail bound and the Rényi conversion. Baseline: a per-query loop,
    NumPy over the orders (benchmarks/bench_accountant.py, baseline (a)), which
    computes the one-sided log-moments with the same margins; its result is
    asserted equal to the object's (1e-12 relative) before a ratio is printed.
    Target: the object at least 10x faster than the loop.

(2) The exact analysis (refdp.pate.exact_analysis) of 1000 queries, C = 10:
    for every query the exact LNMax law, the law of every neighbour (one per
    pair of distinct count values) and the worst-case log-moments in both
    directions at refdp.accounting.DEFAULT_ORDERS (63 orders). Target: < 1 s.
    Timed on two kinds of vote data: teachers agreeing with probability 0.9
    (the rest uniform over the other classes), and the mixture of
    benchmarks/bench_accountant.py (60 % near-unanimous, 40 % split votes,
    more distinct counts, hence more neighbours). Both with the default number
    of threads (all CPUs) and with one thread; the CPU time of the one-thread
    run is printed too, since wall-clock times on a shared machine depend on
    the other processes.

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

import sys
import time

import mpmath
import numpy as np

import _common as bc
from bench_accountant import make_histograms, pipeline_per_query_numpy
from refdp.accounting import DEFAULT_ORDERS
from refdp.mechanisms import report_noisy_max_distribution
from refdp.pate import PATEAccountant, exact_analysis, lnmax_distribution
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


def moves_per_query(counts):
    """Neighbour laws the exact analysis computes per query (one per pair of count values)."""
    out = []
    for row in counts:
        values, mult = np.unique(row, return_counts=True)
        k = len(values)
        src = int(np.sum(values >= 1))
        out.append(src * k - int(np.sum((values >= 1) & (mult == 1))))
    return np.array(out)


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("PATE analysis: accountant object and exact analysis")
    if not _kernels.LNMAX_COMPILED:
        print("refdp._lnmax is not built: the exact analysis would run in the pure-Python twin "
              "(about a thousand times slower). Build the extension and rerun.")
        bc.summary("pate_analysis", "not run: refdp._lnmax not built")
        return 1
    Q = 10**4 if args.quick else 10**5

    # ---- (1) accountant object vs per-query NumPy loop
    counts = make_histograms(Q)
    funcs = {
        "object one-sided": lambda: accountant_object(counts, False),
        "object two-sided": lambda: accountant_object(counts, True),
        "loop": lambda: pipeline_per_query_numpy(counts),
    }
    med, res = bc.time_interleaved(funcs, args.repeats)
    d = bc.assert_close_rel(res["loop"], res["object one-sided"][0], "per-query loop vs object")
    ratio = med["loop"] / med["object one-sided"]
    ratio2 = med["loop"] / med["object two-sided"]
    print(f"(1) Q = {Q} histograms (bench_accountant's mixture), {len(ORDERS)} orders; the object's time "
          f"includes validation, Lemma 4, the accountant and both (epsilon, delta) conversions.")
    bc.print_table(["implementation", "median time", "loop / this", "max rel. diff"], [
        ["PATEAccountant, one-sided (the paper's analysis)", bc.fmt_s(med["object one-sided"]),
         f"{ratio:.1f}x", f"{d:.1e}"],
        ["PATEAccountant, two-sided (refdp's default)", bc.fmt_s(med["object two-sided"]),
         f"{ratio2:.1f}x", "(different bound)"],
        ["per-query loop, NumPy over orders (one-sided)", bc.fmt_s(med["loop"]), "1.0x", ""],
    ])
    line = f"Q={Q}: object {bc.fmt_s(med['object one-sided'])} vs per-query loop -> {ratio:.1f}x"
    bc.summary("pate_accountant", line, None if args.quick else ">= 10x", None if args.quick else ratio >= 10)

    # ---- (2) exact analysis of 1000 queries
    n_exact = 200 if args.quick else 1000
    orders = np.ascontiguousarray(DEFAULT_ORDERS, dtype=np.float64)
    rows = []
    for name, data in (("90 % agreement", agreeing_histograms(n_exact)),
                       ("bench_accountant mixture", make_histograms(n_exact, seed=1))):
        funcs = {"all threads": lambda data=data: exact_analysis(data, GAMMA, orders, noise="continuous"),
                 "1 thread": lambda data=data: exact_analysis(data, GAMMA, orders, n_threads=1,
                                                              noise="continuous")}
        med, res = bc.time_interleaved(funcs, args.repeats)
        np.testing.assert_array_equal(res["all threads"].log_moments, res["1 thread"].log_moments)
        cpu = []
        for _ in range(args.repeats):       # CPU time of the one-thread run (insensitive to other load)
            t0 = time.process_time()
            exact_analysis(data, GAMMA, orders, n_threads=1, noise="continuous")
            cpu.append(time.process_time() - t0)
        cpu_med = float(np.median(cpu))
        laws = moves_per_query(data) + 1
        rows.append([name, f"{laws.mean():.1f}", bc.fmt_s(med["all threads"]), bc.fmt_s(med["1 thread"]),
                     bc.fmt_s(cpu_med)])
        if not args.quick:
            bc.summary("pate_exact", f"{n_exact} queries, C=10, {len(orders)} orders, {name}: wall "
                       f"{bc.fmt_s(med['all threads'])} (1 thread {bc.fmt_s(med['1 thread'])}, CPU time "
                       f"{bc.fmt_s(cpu_med)})", "< 1 s wall", med["all threads"] < 1.0)
    print(f"(2) exact analysis of {n_exact} queries, C = 10, T = 250, {len(orders)} orders "
          f"(both directions, every neighbour):")
    bc.print_table(["vote data", "laws per query", "wall, all threads", "wall, 1 thread",
                    "CPU time, 1 thread"], rows)

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
    q4 = Q // 10
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
