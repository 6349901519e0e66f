"""Black-box audit throughput: refdp's held-out counting against a plain NumPy counting loop.

The held-out stage of ``refdp.audit.audit_black_box`` draws fresh outputs of
the mechanism on both datasets and counts those in the chosen event. The
baseline is the shortest NumPy code for the same job: call the mechanism on
chunks of 2**20 outputs and ``np.count_nonzero(x <= t)``. Both draw from
generators seeded alike, call the mechanism with the same chunk sizes and so
see the same outputs; their counts are asserted equal before the ratio is
printed. The target: at least 5 million outputs per second for vectorised
mechanisms with scalar outputs. A mechanism that costs more than that per
output (the noisy-max case draws five Laplace variables per output) bounds
both loops alike; the ratio then shows refdp's overhead.

A second table times a whole audit (selection and held-out bound) and
reports the outputs drawn per second of wall clock.

Run: python benchmarks/bench_audit.py [--repeats N] [--quick]
"""
from __future__ import annotations

import numpy as np

import _common as bc
from refdp.audit import audit_black_box
from refdp.audit._sampling import draw
from refdp.audit.blackbox import _held_out
from refdp.audit.events import Candidate, Event, Objective, _CoordinateScore

CHUNK = 1 << 20


def laplace_value(value, n, rng):
    """A scalar Laplace mechanism (scale 10): the value plus noise."""
    return float(np.asarray(value).reshape(-1)[0]) + rng.laplace(0.0, 10.0, size=n)


def noisy_max_index(answers, n, rng):
    """Report-noisy-max over five answers (Laplace scale 20), the index: integer scalar outputs."""
    a = np.asarray(answers, dtype=np.float64)
    return (a + rng.laplace(0.0, 20.0, size=(n, a.size))).argmax(axis=1)


def numpy_loop(mechanism, d, e, n, t, seed):
    rng = np.random.default_rng(seed)
    counts = []
    for data in (d, e):
        k, left = 0, n
        while left > 0:
            m = min(left, CHUNK)
            k += int(np.count_nonzero(mechanism(data, m, rng) <= t))
            left -= m
        counts.append(k)
    return counts


def refdp_count(mechanism, d, e, n, t, seed):
    rng = np.random.default_rng(seed)
    _, layout = draw(mechanism, d, 2, np.random.default_rng(0), "bench")
    cand = Candidate(Objective("epsilon", 0.0), Event(_CoordinateScore(0, ()), "<=", t), 0, 0.0, "", ())
    return _held_out(mechanism, d, e, rng, [cand], n, layout)[0]


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("black-box audit: held-out sampling and counting vs a NumPy loop")
    n = 2_000_000 if args.quick else 10_000_000
    cases = [("Laplace, scalar float", laplace_value, np.array([0.0]), np.array([1.0]), 0.5),
             ("noisy max index, 5 answers", noisy_max_index, np.ones(5), np.array([0.0, 1, 1, 1, 1]), 0.5)]
    rows = []
    for name, mech, d, e, t in cases:
        funcs = {"refdp": lambda: refdp_count(mech, d, e, n, t, 7),
                 "numpy": lambda: numpy_loop(mech, d, e, n, t, 7)}
        med, res = bc.time_interleaved(funcs, args.repeats)
        bc.assert_equal_int(list(res["refdp"]), list(res["numpy"]), name)
        rate = 2 * n / med["refdp"]
        ratio = med["numpy"] / med["refdp"]
        if mech is laplace_value:
            scalar_rate, scalar_ratio = rate, ratio
        rows.append([name, f"{2 * n:,}", bc.fmt_s(med["refdp"]), bc.fmt_s(med["numpy"]),
                     f"{rate / 1e6:.1f} M/s", f"{2 * n / med['numpy'] / 1e6:.1f} M/s", f"{ratio:.2f}"])
    bc.print_table(["mechanism", "outputs", "refdp", "numpy loop", "refdp rate", "numpy rate",
                    "numpy / refdp time"], rows)
    print()
    print("Whole audits (selection + held-out bound, one pair, default tolerance):")
    rows = []
    for name, mech, d, e, _ in cases:
        import time
        t0 = time.perf_counter()
        r = audit_black_box(mech, [(d, e)], 0.1, n_samples=n, rng=3, progress=False)
        secs = time.perf_counter() - t0
        rows.append([name, f"{r.samples:,}", bc.fmt_s(secs), f"{r.samples / secs / 1e6:.1f} M/s",
                     f"{r.epsilon_lower:.4f}"])
    bc.print_table(["mechanism", "outputs drawn", "time", "rate", "epsilon >="], rows)
    bc.print_load()
    bc.summary("bench_audit", f"held-out sampling and counting of a scalar mechanism at {scalar_rate / 1e6:.1f} M "
               f"outputs/s, {scalar_ratio:.2f}x the speed of the NumPy loop",
               target=">= 5 M outputs/s", met=scalar_rate >= 5e6)


if __name__ == "__main__":
    main()
