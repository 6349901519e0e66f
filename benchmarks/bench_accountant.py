"""PATE moments accountant: refdp's compiled Lemma 4 + Theorems 1-3 against NumPy and Python.

Pipeline timed (PATE, Papernot et al. 2017, Sec. 3): for Q vote histograms, Lemma 4's log q per
query (rounded upward), then for each order lambda the sum over queries of
min(2 gamma^2 lambda (lambda + 1), 2 gamma lambda, Theorem 3) (rounded
upward). refdp runs

    refdp.core.accountant_log_moments(refdp.core.lemma4_log_q(counts, gamma), orders, gamma)

Baselines, each computing the same values with the same upward-rounding
margins (those of refdp/twins/core.py), so that their results can be asserted
equal to refdp's to 1e-12 relative:

(a) a loop over queries, vectorised over the orders with NumPy (the structure
    of the published PATE analysis of 2018);
(b) fully vectorised NumPy: Lemma 4 vectorised over (query, class), then
    refdp.twins.core.accountant_log_moments vectorised over (query, order);
(c) a loop over queries and orders in pure Python with the math module (the
    structure of the published PATE analysis script of 2017). It is timed on a
    subset of the queries and its time scaled to Q per query (said so in the
    output).

Lemma 4 alone and the accountant alone are timed too, the latter also on
log q values that are all distinct (refdp evaluates each distinct value once,
so repeated histograms help it; that row shows the case without repeats).

Run: python benchmarks/bench_accountant.py [--repeats N] [--quick]
"""
from __future__ import annotations

import math

import numpy as np

import _common as bc
from refdp.twins import core as _twins
from refdp.core import accountant_log_moments, lemma4_log_q

EPS = 2.0**-52
LOG4 = math.log(4.0)
GAMMA = 0.05
ORDERS = np.linspace(0.5, 64, 64)
TARGETS = {"a": 10.0, "b": 2.0, "c": 1000.0}


def make_histograms(n_queries, n_teachers=250, n_classes=10, frac_unanimous=0.6, seed=0):
    """Vote histograms: a mixture of near-unanimous and split votes.

    Near-unanimous query: each teacher votes a dominant class with probability
    p ~ U(0.9, 1), otherwise one of the other classes (Dirichlet(1) weights).
    Split query: class probabilities ~ Dirichlet(0.5, ..., 0.5).
    """
    rng = np.random.default_rng(seed)
    c = n_classes
    dom = rng.integers(0, c, n_queries)
    p_dom = rng.uniform(0.9, 1.0, n_queries)
    rest = rng.dirichlet(np.ones(c - 1), n_queries)
    probs = np.zeros((n_queries, c))
    idx = np.arange(n_queries)
    others = (dom[:, None] + 1 + np.arange(c - 1)[None, :]) % c
    probs[idx[:, None], others] = (1.0 - p_dom)[:, None] * rest
    probs[idx, dom] = p_dom
    split = rng.random(n_queries) >= frac_unanimous
    probs[split] = rng.dirichlet(np.full(c, 0.5), int(split.sum()))
    return rng.multinomial(n_teachers, probs)


# ------------------------------------------------------------ Lemma 4 ----

def lemma4_numpy(counts, gamma):
    """Lemma 4's upward-rounded log q, vectorised over (query, class), margins as in the twin."""
    counts = np.asarray(counts, dtype=np.int64)
    n, c = counts.shape
    if c < 2:
        return np.full(n, -np.inf)
    rows = np.arange(n)
    jstar = np.argmax(counts, axis=1)
    z = gamma * (counts[rows, jstar][:, None] - counts).astype(np.float64)
    lt = np.log(2.0 + z) - z - LOG4
    lt[rows, jstar] = -np.inf
    m = lt.max(axis=1)
    w = np.exp(lt - m[:, None])
    sw = w.sum(axis=1)
    lse = m + np.log(sw)
    zbar = (w * z).sum(axis=1) / sw
    return lse + 8.0 * EPS * (zbar + np.log(2.0 + zbar) + np.abs(lse) + 2.0 * c + 8.0)


def lemma4_row_numpy(row, gamma):
    """One row, as refdp.twins.core.lemma4_log_q computes it."""
    c = row.shape[0]
    jstar = int(np.argmax(row))
    gaps = np.delete(row[jstar] - row, jstar).astype(np.float64)
    if gaps.size == 0:
        return -math.inf
    z = gamma * gaps
    lt = np.log(2.0 + z) - z - LOG4
    m = lt.max()
    w = np.exp(lt - m)
    sw = float(np.sum(w))
    lse = float(m) + math.log(sw)
    zbar = float(np.sum(w * z)) / sw
    return lse + 8.0 * EPS * (zbar + math.log(2.0 + zbar) + abs(lse) + 2.0 * c + 8.0)


def lemma4_row_python(row, gamma):
    """One row in pure Python (row: list of ints)."""
    c = len(row)
    top = max(row)
    jstar = row.index(top)
    lts, zs = [], []
    for j, n_j in enumerate(row):
        if j == jstar:
            continue
        z = gamma * float(top - n_j)
        zs.append(z)
        lts.append(math.log(2.0 + z) - z - LOG4)
    if not lts:
        return -math.inf
    m = max(lts)
    ws = [math.exp(lt - m) for lt in lts]
    sw = sum(ws)
    lse = m + math.log(sw)
    zbar = sum(w * z for w, z in zip(ws, zs)) / sw
    return lse + 8.0 * EPS * (zbar + math.log(2.0 + zbar) + abs(lse) + 2.0 * c + 8.0)


# -------------------------------------------------------- accountants ----

def pipeline_refdp(counts):
    return accountant_log_moments(lemma4_log_q(counts, GAMMA), ORDERS, GAMMA)


def pipeline_vectorised(counts):
    """(b): vectorised Lemma 4 + the vectorised twin of the accountant."""
    return _twins.accountant_log_moments(lemma4_numpy(counts, GAMMA), ORDERS, GAMMA)


def pipeline_per_query_numpy(counts):
    """(a): one query at a time, NumPy over the orders."""
    gamma, lam = GAMMA, ORDERS
    E = math.exp(2.0 * gamma)
    threshold = (1.0 / (E + 1.0)) * (1.0 - 8.0 * EPS)
    indep = 2.0 * gamma * gamma * lam * (lam + 1.0) * (1.0 + 8.0 * EPS)
    pure = 2.0 * gamma * lam * (1.0 + 4.0 * EPS)
    best = np.minimum(indep, pure)
    g2l = 2.0 * gamma * lam
    total = np.zeros(lam.shape)
    for row in counts:
        lq = lemma4_row_numpy(row, gamma)
        q = math.exp(lq)
        if q < threshold:
            x = E * q
            a1 = math.log1p(-q)
            a2 = math.log1p(-x)
            slack_x = 8.0 * EPS * x / (1.0 - x)
            a = (1.0 + lam) * a1 - lam * a2
            b = lq + g2l
            hi = np.maximum(a, b)
            lo = np.minimum(a, b)
            val = hi + np.log1p(np.exp(lo - hi))
            flq = abs(lq) if lq > -math.inf else 0.0
            err = 64.0 * EPS * ((1.0 + lam) * abs(a1) + lam * abs(a2) + flq + g2l
                                + np.abs(val) + 1.0) + (1.0 + 2.0 * lam) * slack_x
            total += np.minimum(best, val + err)
        else:
            total += best
    return total * (1.0 + (len(counts) + 2) * EPS)


def pipeline_pure_python(counts_list):
    """(c): one query and one order at a time, math module only (counts_list: list of lists)."""
    gamma = GAMMA
    orders = [float(v) for v in ORDERS]
    E = math.exp(2.0 * gamma)
    threshold = (1.0 / (E + 1.0)) * (1.0 - 8.0 * EPS)
    total = [0.0] * len(orders)
    for row in counts_list:
        lq = lemma4_row_python(row, gamma)
        q = math.exp(lq)
        valid = q < threshold
        if valid:
            x = E * q
            a1 = math.log1p(-q)
            a2 = math.log1p(-x)
            slack_x = 8.0 * EPS * x / (1.0 - x)
            flq = abs(lq) if lq > -math.inf else 0.0
        for k, lam in enumerate(orders):
            indep = 2.0 * gamma * gamma * lam * (lam + 1.0) * (1.0 + 8.0 * EPS)
            pure = 2.0 * gamma * lam * (1.0 + 4.0 * EPS)
            best = indep if indep < pure else pure
            if valid:
                a = (1.0 + lam) * a1 - lam * a2
                b = lq + 2.0 * gamma * lam
                hi, lo = (a, b) if a > b else (b, a)
                val = hi + math.log1p(math.exp(lo - hi))
                err = 64.0 * EPS * ((1.0 + lam) * abs(a1) + lam * abs(a2) + flq
                                    + 2.0 * gamma * lam + abs(val) + 1.0) + (1.0 + 2.0 * lam) * slack_x
                val = val + err
                if val < best:
                    best = val
            total[k] += best
    n = len(counts_list)
    return np.array([t * (1.0 + (n + 2) * EPS) for t in total])


def main():
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("PATE accountant: refdp Lemma 4 + Theorems 1-3 vs NumPy and pure Python")
    Q = 10**4 if args.quick else 10**5
    n_sub = 500 if args.quick else 5000
    counts = make_histograms(Q)
    T, C = 250, counts.shape[1]
    lq = lemma4_log_q(counts, GAMMA)
    E = math.exp(2 * GAMMA)
    in_range = float(np.mean(np.exp(lq) < 1.0 / (E + 1.0)))
    print(f"Q = {Q} vote histograms of T = {T} teachers over C = {C} classes (60% near-unanimous, "
          f"40% split), gamma = {GAMMA}, {len(ORDERS)} orders linspace(0.5, 64, 64).")
    print(f"distinct log q values: {len(np.unique(lq))} of {Q}; "
          f"queries inside Theorem 3's range: {100 * in_range:.1f}%.")
    print("Every baseline applies the margins of refdp/twins/core.py; accountant results are asserted "
          "equal to refdp's to 1e-12 relative, Lemma 4's log q to 1e-12 absolute (q to 1e-12 "
          "relative), before a ratio is printed.\n")

    # ---- Lemma 4 alone
    funcs = {
        "refdp.core.lemma4_log_q": lambda: lemma4_log_q(counts, GAMMA),
        "NumPy, vectorised over (query, class)": lambda: lemma4_numpy(counts, GAMMA),
        "refdp.twins.core.lemma4_log_q (loop over rows)": lambda: _twins.lemma4_log_q(counts, GAMMA),
    }
    med, res = bc.time_interleaved(funcs, args.repeats)
    ref = res["refdp.core.lemma4_log_q"]
    rows = []
    for name in funcs:
        d = bc.assert_close_log(res[name], ref, name)
        rows.append([name, bc.fmt_s(med[name]), f"{med[name] / med['refdp.core.lemma4_log_q']:.1f}x",
                     f"{d:.1e}"])
    print(f"Lemma 4 alone (Q = {Q} rows):")
    bc.print_table(["implementation", "median time", "time / refdp", "max |diff of log q|"], rows)

    # ---- accountant alone, given log q
    rng = np.random.default_rng(1)
    lq_distinct = np.log(rng.uniform(1e-6, 0.45, Q))
    funcs = {
        "refdp": lambda: accountant_log_moments(lq, ORDERS, GAMMA),
        "twin": lambda: _twins.accountant_log_moments(lq, ORDERS, GAMMA),
        "refdp distinct": lambda: accountant_log_moments(lq_distinct, ORDERS, GAMMA),
        "twin distinct": lambda: _twins.accountant_log_moments(lq_distinct, ORDERS, GAMMA),
    }
    med, res = bc.time_interleaved(funcs, args.repeats)
    d1 = bc.assert_close_rel(res["twin"], res["refdp"], "accountant twin")
    d2 = bc.assert_close_rel(res["twin distinct"], res["refdp distinct"], "accountant twin, distinct")
    print(f"Accountant alone, given log q (Q = {Q}, {len(ORDERS)} orders):")
    bc.print_table(["log q input", "refdp", "refdp.twins.core (vectorised NumPy)", "twin / refdp",
                    "max rel. diff"], [
        [f"from the histograms ({len(np.unique(lq))} distinct)", bc.fmt_s(med["refdp"]),
         bc.fmt_s(med["twin"]), f"{med['twin'] / med['refdp']:.1f}x", f"{d1:.1e}"],
        [f"all distinct, q ~ U(1e-6, 0.45)", bc.fmt_s(med["refdp distinct"]),
         bc.fmt_s(med["twin distinct"]), f"{med['twin distinct'] / med['refdp distinct']:.1f}x",
         f"{d2:.1e}"],
    ])

    # ---- the whole pipeline
    sub = counts[:n_sub]
    sub_list = sub.tolist()
    funcs = {
        "refdp": lambda: pipeline_refdp(counts),
        "b": lambda: pipeline_vectorised(counts),
        "a": lambda: pipeline_per_query_numpy(counts),
        "c_subset": lambda: pipeline_pure_python(sub_list),
        "refdp_subset": lambda: pipeline_refdp(sub),
    }
    med, res = bc.time_interleaved(funcs, args.repeats)
    da = bc.assert_close_rel(res["a"], res["refdp"], "(a) per-query NumPy")
    db = bc.assert_close_rel(res["b"], res["refdp"], "(b) vectorised NumPy")
    dc = bc.assert_close_rel(res["c_subset"], res["refdp_subset"], "(c) pure Python (subset)")
    t_ref = med["refdp"]
    t_c = med["c_subset"] * Q / n_sub
    ratios = {"a": med["a"] / t_ref, "b": med["b"] / t_ref, "c": t_c / t_ref}
    print(f"Whole pipeline, counts -> Lemma 4 -> accountant (Q = {Q}, {len(ORDERS)} orders):")
    bc.print_table(["implementation", "median time", "time / refdp", "target", "max rel. diff"], [
        ["refdp (compiled Lemma 4 + accountant)", bc.fmt_s(t_ref), "1.0x", "", ""],
        ["(b) vectorised NumPy (Lemma 4 + refdp.twins.core)", bc.fmt_s(med["b"]),
         f"{ratios['b']:.1f}x", f">= {TARGETS['b']:g}x", f"{db:.1e}"],
        ["(a) per-query loop, NumPy over orders", bc.fmt_s(med["a"]),
         f"{ratios['a']:.1f}x", f">= {TARGETS['a']:g}x", f"{da:.1e}"],
        [f"(c) pure Python, per query and order: SCALED from {n_sub} queries "
         f"({bc.fmt_s(med['c_subset'])} x {Q}/{n_sub})", bc.fmt_s(t_c),
         f"{ratios['c']:.0f}x", f">= {TARGETS['c']:g}x", f"{dc:.1e} (on the subset)"],
    ])
    for key, label in (("b", "(b) vectorised NumPy"), ("a", "(a) per-query NumPy"),
                       ("c", f"(c) pure Python, scaled from {n_sub} queries")):
        line = f"Q={Q}: refdp {bc.fmt_s(t_ref)} vs {label} -> {ratios[key]:.1f}x"
        if args.quick:
            bc.summary("accountant", line)
        else:
            bc.summary("accountant", line, f">= {TARGETS[key]:g}x", ratios[key] >= TARGETS[key])
    bc.print_load()


if __name__ == "__main__":
    main()
