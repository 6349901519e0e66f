"""Vote counting: refdp.core.count_votes against NumPy idioms.

PATE's aggregation starts from counts[q, c] = #{t : votes[t, q] == c}
(PATE, Papernot et al. 2017, Sec. 2) for T teachers, Q queries and C classes. This script times
refdp.core.count_votes (validation included) and several NumPy ways of
computing the same array, asserts that every one returns exactly the same
integers, and compares refdp with the fastest of them.

Run: python benchmarks/bench_votes.py [--repeats N] [--quick]
"""
from __future__ import annotations

import numpy as np

import _common as bc
from refdp.core import count_votes

TARGET = 3.0  # refdp at least 3x faster than the best NumPy idiom (int8 votes)


def make_votes(n_teachers, n_queries, n_classes, seed=0):
    """Teachers that mostly agree: each votes its query's class with probability 0.9."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_classes, size=n_queries, dtype=np.int8)
    votes = np.empty((n_teachers, n_queries), dtype=np.int8)
    for t in range(n_teachers):  # row by row, to keep the temporaries small
        noise = rng.integers(0, n_classes, size=n_queries, dtype=np.int8)
        votes[t] = np.where(rng.random(n_queries) < 0.9, truth, noise)
    return votes


# ---------------------------------------------------------------- idioms ----
# Each takes votes (T, Q) and C and returns int64 counts (Q, C).

def onehot_sum(votes, n_classes):
    return np.stack([(votes == c).sum(axis=0) for c in range(n_classes)], axis=1)


def onehot_sum_int16(votes, n_classes):
    # int16 accumulation is exact while T < 32768
    out = np.empty((votes.shape[1], n_classes), dtype=np.int64)
    for c in range(n_classes):
        out[:, c] = (votes == c).sum(axis=0, dtype=np.int16)
    return out


def _onehot_blocked(votes, n_classes, block, acc_dtype, as_uint8):
    n_teachers, n_queries = votes.shape
    out = np.empty((n_queries, n_classes), dtype=np.int64)
    eq = np.empty((n_teachers, block), dtype=bool)
    for q0 in range(0, n_queries, block):
        v = votes[:, q0:q0 + block]
        e = eq[:, :v.shape[1]]
        for c in range(n_classes):
            np.equal(v, c, out=e)
            src = e.view(np.uint8) if as_uint8 else e
            out[q0:q0 + v.shape[1], c] = src.sum(axis=0, dtype=acc_dtype)
    return out


def onehot_blocked_int16(votes, n_classes):
    return _onehot_blocked(votes, n_classes, 4096, np.int16, False)


def onehot_blocked_uint8(votes, n_classes):
    # uint8 accumulation is exact only while T <= 255
    return _onehot_blocked(votes, n_classes, 4096, np.uint8, True)


def bincount_offsets(votes, n_classes):
    n_teachers, n_queries = votes.shape
    idx = votes.astype(np.intp)
    idx += n_classes * np.arange(n_queries, dtype=np.intp)
    return np.bincount(idx.ravel(), minlength=n_queries * n_classes).reshape(n_queries, n_classes)


def bincount_offsets_blocked(votes, n_classes, block=8192):
    n_teachers, n_queries = votes.shape
    out = np.empty((n_queries, n_classes), dtype=np.int64)
    offsets = n_classes * np.arange(block, dtype=np.intp)
    for q0 in range(0, n_queries, block):
        v = votes[:, q0:q0 + block]
        b = v.shape[1]
        idx = v + offsets[:b]  # promotes to intp
        out[q0:q0 + b] = np.bincount(idx.ravel(), minlength=b * n_classes).reshape(b, n_classes)
    return out


def add_at(votes, n_classes):
    n_teachers, n_queries = votes.shape
    out = np.zeros((n_queries, n_classes), dtype=np.int64)
    rows = np.arange(n_queries)
    for t in range(n_teachers):
        np.add.at(out, (rows, votes[t]), 1)
    return out


IDIOMS = {
    "one-hot (votes == c).sum(0) per class": onehot_sum,
    "one-hot per class, sum(dtype=int16)": onehot_sum_int16,
    "one-hot per class, 4096-query blocks, int16": onehot_blocked_int16,
    "one-hot per class, 4096-query blocks, uint8 (T<=255)": onehot_blocked_uint8,
    "bincount(votes + C*arange(Q))": bincount_offsets,
    "bincount with offsets, 8192-query blocks": bincount_offsets_blocked,
    "np.add.at per teacher": add_at,
}


def bench(votes, n_classes, repeats):
    n_teachers = votes.shape[0]
    funcs = {"refdp.core.count_votes": lambda: count_votes(votes, n_classes)}
    for name, f in IDIOMS.items():
        if "T<=255" in name and n_teachers > 255:
            continue
        funcs[name] = (lambda f=f: f(votes, n_classes))
    medians, results = bc.time_interleaved(funcs, repeats)
    ref = results["refdp.core.count_votes"]
    assert ref.dtype == np.int64 and ref.shape == (votes.shape[1], n_classes)
    for name in funcs:
        bc.assert_equal_int(results[name], ref, name)
    return medians


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("vote counting: refdp.core.count_votes vs NumPy")
    T, C = 250, 10
    Q = 10**5 if args.quick else 10**6
    votes8 = make_votes(T, Q, C)
    print(f"T = {T} teachers, Q = {Q} queries, C = {C} classes; teachers agree with probability 0.9.")
    print("All implementations return identical int64 counts (asserted) before any ratio is printed.\n")
    for dtype in (np.int8, np.int64):
        votes = votes8 if dtype == np.int8 else votes8.astype(dtype)
        med = bench(votes, C, args.repeats)
        t_ref = med.pop("refdp.core.count_votes")
        best_name = min(med, key=med.get)
        rows = [["refdp.core.count_votes", bc.fmt_s(t_ref), "1.0x (reference)"]]
        for name, t in sorted(med.items(), key=lambda kv: kv[1]):
            rows.append([name + ("   <- best NumPy" if name == best_name else ""), bc.fmt_s(t),
                         f"{t / t_ref:.1f}x slower than refdp"])
        print(f"votes dtype {np.dtype(dtype).name}, {votes.nbytes / 2**20:.0f} MiB "
              f"(T x Q = {T} x {Q}):")
        bc.print_table(["implementation", "median time", "ratio"], rows)
        ratio = med[best_name] / t_ref
        line = (f"T={T} Q={Q} C={C} {np.dtype(dtype).name}: refdp {bc.fmt_s(t_ref)}, best NumPy "
                f"{bc.fmt_s(med[best_name])} ({best_name}), ratio {ratio:.1f}x")
        if dtype == np.int8 and not args.quick:
            bc.summary("votes", line, f">= {TARGET:g}x", ratio >= TARGET)
        else:
            bc.summary("votes", line)
        del votes
    bc.print_load()
    bc.print_peak_memory()


if __name__ == "__main__":
    main()
