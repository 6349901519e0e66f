"""Measure the coverage of refdp's private confidence intervals (docs/erm_inference.rst).

Run ``python docs/plots/erm_inference_coverage.py`` from the repository root
(needs matplotlib, the ``plots`` extra); writes
docs/_static/erm_inference_coverage.json (every setting: coverage and mean
width per coordinate, with the targets and their accuracy),
docs/_static/erm_inference_coverage.csv (the same table),
docs/_static/erm_inference_coverage_table.csv (the formatted table the page
includes) and docs/_static/erm_inference_coverage.png, and prints the reStructuredText table
pasted into docs/erm_inference.rst. Deterministic for a seed (a SeedSequence
tree, one child per setting and repetition), whatever the number of
processes. ``--reps`` (default 2000) sets the repetitions per setting,
``--processes`` (default 2) the worker processes; ``--replot`` redraws the
figure and reprints the table from the saved JSON; ``--split-study`` runs
only the comparison of budget splits (pure DP, a few small-n settings, the
three splits on the same samples) and writes
docs/_static/erm_inference_split.csv.

Protocol
    Population (proofs_checks/wang_kifer_lee/population.py): ``x`` uniform on
    the unit disc of R^2, ``P[y = +1 | x] = 1 / (1 + exp(-w^T x))`` with
    ``w = (3, -1.5)``. Losses: logistic and Huber hinge (h = 0.5);
    ``Lambda = 0.05``. For every loss, n in {250, 500, 1000, 5000, 20000} and privacy
    level (epsilon in {0.5, 2} for pure DP; rho = epsilon^2 / 2 in {0.125,
    2} for zCDP), each repetition draws a fresh sample of size n and runs
    ``refdp.erm.private_confidence_intervals`` for the four variants
    (objective perturbation with the improved budget, output perturbation;
    pure DP, zCDP) with the default split (0.8, 0.1, 0.1), level 0.95 and
    10000 Monte Carlo draws where the noise is Laplace. A repetition covers
    coordinate j if the interval contains ``theta*_j``, the population
    minimiser of ``E[l(y f^T x)] + (mu/2) ||f||^2`` with the release's ``mu``
    (``Lambda``, or ``Lambda + Delta`` for objective perturbation), computed by
    quadrature to the accuracy recorded in the JSON file (at most 1e-8 here).
    Coverage standard errors are binomial, ``sqrt(c (1 - c) / reps)``.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from proofs_checks.wang_kifer_lee.population import LOSSES, W, population_minimiser, sample  # noqa: E402
from refdp.erm import private_confidence_intervals  # noqa: E402

OUT = ROOT / "docs" / "_static"
LAMBDA = 0.05
NS = (250, 500, 1000, 5000, 20000)
EPSILONS = (0.5, 2.0)
VARIANTS = (("objective", "pure"), ("objective", "zcdp"), ("output", "pure"), ("output", "zcdp"))
LEVEL = 0.95
SEED = 2019
CHUNK = 100


def privacy_kwargs(privacy, eps):
    return {"epsilon": eps} if privacy == "pure" else {"rho": eps * eps / 2.0}


def run_chunk(task):
    """One chunk of repetitions of one (loss, n, epsilon): lower/upper per variant and rep."""
    lname, n, eps, start, stop, seed = task
    loss = LOSSES[lname]
    out = {v: {"lower": [], "upper": [], "mu": []} for v in VARIANTS}
    root = np.random.SeedSequence(seed)
    children = root.spawn(stop)[start:stop]
    for child in children:
        data_seq, *variant_seqs = child.spawn(1 + len(VARIANTS))
        X, y = sample(n, np.random.default_rng(data_seq))
        for (method, privacy), seq in zip(VARIANTS, variant_seqs):
            ci = private_confidence_intervals(X, y, loss, regularization=LAMBDA, method=method, level=LEVEL,
                                              rng=np.random.default_rng(seq), **privacy_kwargs(privacy, eps))
            rec = out[(method, privacy)]
            rec["lower"].append(ci.lower.tolist())
            rec["upper"].append(ci.upper.tolist())
            rec["mu"].append(ci.regularization)
    return (lname, n, eps), out


SPLITS = ((0.8, 0.1, 0.1), (0.6, 0.2, 0.2), (0.5, 0.25, 0.25))
SPLIT_SETTINGS = (("logistic", "objective", 2.0, 250), ("logistic", "objective", 2.0, 500),
                  ("logistic", "objective", 2.0, 1000), ("huber", "objective", 0.5, 250),
                  ("logistic", "output", 0.5, 1000), ("logistic", "output", 2.0, 1000))


def run_split_chunk(task):
    """Pure DP, one (loss, method, epsilon, n): coverage counts and widths for every split, same samples."""
    lname, method, eps, n, start, stop, seed = task
    loss = LOSSES[lname]
    out = {sp: {"lower": [], "upper": [], "mu": []} for sp in SPLITS}
    for child in np.random.SeedSequence(seed).spawn(stop)[start:stop]:
        data_seq, *seqs = child.spawn(1 + len(SPLITS))
        X, y = sample(n, np.random.default_rng(data_seq))
        for sp, seq in zip(SPLITS, seqs):
            ci = private_confidence_intervals(X, y, loss, regularization=LAMBDA, method=method, epsilon=eps, split=sp,
                                              level=LEVEL, rng=np.random.default_rng(seq))
            out[sp]["lower"].append(ci.lower.tolist())
            out[sp]["upper"].append(ci.upper.tolist())
            out[sp]["mu"].append(ci.regularization)
    return (lname, method, eps, n), out


def split_study(reps, processes):
    """Coverage and width against the budget split (pure DP), written to erm_inference_split.csv."""
    tasks = [(ln, m, e, n, start, min(reps, start + CHUNK), [SEED, 7, i])
             for i, (ln, m, e, n) in enumerate(SPLIT_SETTINGS) for start in range(0, reps, CHUNK)]
    merged = {}
    with Pool(processes) as pool:
        for key, out in pool.imap_unordered(run_split_chunk, tasks):
            for sp, rec in out.items():
                slot = merged.setdefault(key + (sp,), {"lower": [], "upper": [], "mu": []})
                for k in slot:
                    slot[k].extend(rec[k])
    rows = []
    for (ln, m, e, n) in SPLIT_SETTINGS:
        for sp in SPLITS:
            rec = merged[(ln, m, e, n, sp)]
            lower, upper = np.array(rec["lower"]), np.array(rec["upper"])
            theta, _ = population_minimiser(LOSSES[ln], rec["mu"][0])
            cov = ((lower <= theta) & (theta <= upper)).mean(axis=0)
            se = np.sqrt(cov * (1 - cov) / len(lower))
            w = (upper - lower).mean(axis=0)
            rows.append([ln, m, f"ε = {e:g}", str(n), " / ".join(f"{v:g}" for v in sp),
                         f"{cov[0]:.3f} ± {se[0]:.3f}", f"{cov[1]:.3f} ± {se[1]:.3f}", f"{w[0]:.3g}", f"{w[1]:.3g}"])
    with open(OUT / "erm_inference_split.csv", "w", newline="", encoding="utf-8") as fh:
        wr = csv.writer(fh)
        wr.writerow(["loss", "method", "privacy", "n", "split θ / H / G", "coverage θ₁", "coverage θ₂",
                     "width θ₁", "width θ₂"])
        wr.writerows(rows)
    for r in rows:
        print(", ".join(r))


def settings_seed(lname, n, eps):
    return [SEED, list(LOSSES).index(lname), NS.index(n), EPSILONS.index(eps)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--split-study", action="store_true",
                        help="only the comparison of budget splits (erm_inference_split.csv)")
    parser.add_argument("--replot", action="store_true",
                        help="redraw the figure and reprint the table from the saved JSON")
    args = parser.parse_args()
    if args.split_study:
        split_study(args.reps, args.processes)
        return
    if args.replot:
        saved = json.loads((OUT / "erm_inference_coverage.json").read_text())
        plot(saved["rows"])
        write_display_table(saved["rows"])
        print(table(saved["rows"]))
        return
    tasks = []
    for lname in LOSSES:
        for n in NS:
            for eps in EPSILONS:
                seed = settings_seed(lname, n, eps)
                for start in range(0, args.reps, CHUNK):
                    tasks.append((lname, n, eps, start, min(args.reps, start + CHUNK), seed))
    t0 = time.time()
    merged = {}
    with Pool(args.processes) as pool:
        for key, out in pool.imap_unordered(run_chunk, tasks):
            for v, rec in out.items():
                slot = merged.setdefault(key + v, {"lower": [], "upper": [], "mu": [], "order": []})
                for k in ("lower", "upper", "mu"):
                    slot[k].extend(rec[k])
    elapsed = time.time() - t0
    targets = {}
    rows = []
    for (lname, n, eps, method, privacy), rec in sorted(merged.items(), key=lambda kv: str(kv[0])):
        lower, upper, mus = np.array(rec["lower"]), np.array(rec["upper"]), np.array(rec["mu"])
        assert np.all(mus == mus[0]), "mu is a public function of the setting"
        mu = float(mus[0])
        if (lname, mu) not in targets:
            targets[(lname, mu)] = population_minimiser(LOSSES[lname], mu)
        theta, err = targets[(lname, mu)]
        covered = (lower <= theta) & (theta <= upper)
        cov = covered.mean(axis=0)
        reps = covered.shape[0]
        rows.append({
            "loss": lname, "n": n, "epsilon": eps, "rho": eps * eps / 2.0, "method": method, "privacy": privacy,
            "mu": mu, "reps": reps, "theta_star": theta.tolist(), "theta_star_error": err,
            "coverage": cov.tolist(), "coverage_se": np.sqrt(cov * (1 - cov) / reps).tolist(),
            "width": (upper - lower).mean(axis=0).tolist(),
            "width_median": np.median(upper - lower, axis=0).tolist(),
        })
    key_order = {(m, p): i for i, (m, p) in enumerate(VARIANTS)}
    rows.sort(key=lambda r: (list(LOSSES).index(r["loss"]), r["epsilon"], key_order[(r["method"], r["privacy"])],
                             r["n"]))
    meta = {"lambda": LAMBDA, "w": W.tolist(), "level": LEVEL, "split": [0.8, 0.1, 0.1], "reps": args.reps,
            "seconds": elapsed, "processes": args.processes, "huber_h": LOSSES["huber"].h}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "erm_inference_coverage.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    with open(OUT / "erm_inference_coverage.csv", "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["loss", "epsilon", "rho", "method", "privacy", "n", "mu", "coverage_1", "coverage_2", "se_1",
                     "se_2", "width_1", "width_2", "reps"])
        for r in rows:
            wr.writerow([r["loss"], r["epsilon"], r["rho"], r["method"], r["privacy"], r["n"], r["mu"],
                         *[f"{c:.4f}" for c in r["coverage"]], *[f"{s:.4f}" for s in r["coverage_se"]],
                         *[f"{w:.4g}" for w in r["width"]], r["reps"]])
    plot(rows)
    write_display_table(rows)
    print(f"{len(rows)} settings, {args.reps} repetitions each, {elapsed:.0f} s on {args.processes} processes\n")
    print(table(rows))


def display_cells(r):
    priv = f"ε = {r['epsilon']:g}" if r["privacy"] == "pure" else f"ρ = {r['rho']:g}"
    c, s, w = r["coverage"], r["coverage_se"], r["width"]
    return [r["loss"], priv, r["method"], str(r["n"]), f"{c[0]:.3f} ± {s[0]:.3f}", f"{c[1]:.3f} ± {s[1]:.3f}",
            f"{w[0]:.3g}", f"{w[1]:.3g}"]


HEADER = ["loss", "privacy", "method", "n", "coverage θ₁", "coverage θ₂", "width θ₁", "width θ₂"]


def write_display_table(rows):
    """docs/_static/erm_inference_coverage_table.csv, read by the csv-table of docs/erm_inference.rst."""
    with open(OUT / "erm_inference_coverage_table.csv", "w", newline="", encoding="utf-8") as fh:
        wr = csv.writer(fh)
        wr.writerow(HEADER)
        for r in rows:
            wr.writerow(display_cells(r))


def table(rows):
    """reStructuredText list-table of every setting."""
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for cells in [HEADER] + [display_cells(r) for r in rows]:
        lines += [f"   * - {cells[0]}"] + [f"     - {c}" for c in cells[1:]]
    return "\n".join(lines)


def plot(rows):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(ln, e) for ln in LOSSES for e in EPSILONS]
    fig, axes = plt.subplots(2, len(panels), figsize=(4 * len(panels), 7), sharex=True)
    styles = {("objective", "pure"): ("C0", "-", "o"), ("objective", "zcdp"): ("C0", "--", "s"),
              ("output", "pure"): ("C1", "-", "o"), ("output", "zcdp"): ("C1", "--", "s")}
    for col, (ln, eps) in enumerate(panels):
        top, bottom = axes[0, col], axes[1, col]
        for v, (colour, ls, marker) in styles.items():
            sel = [r for r in rows if r["loss"] == ln and r["epsilon"] == eps and (r["method"], r["privacy"]) == v]
            sel.sort(key=lambda r: r["n"])
            ns = [r["n"] for r in sel]
            worst = [int(np.argmin(r["coverage"])) for r in sel]
            cov = [r["coverage"][j] for r, j in zip(sel, worst)]
            se = [r["coverage_se"][j] for r, j in zip(sel, worst)]
            label = f"{v[0]}, {'ε-DP' if v[1] == 'pure' else 'ρ-zCDP'}"
            top.errorbar(ns, cov, yerr=[2 * s for s in se], color=colour, ls=ls, marker=marker, ms=4,
                         capsize=2, label=label)
            bottom.loglog(ns, [float(np.mean(r["width"])) for r in sel], color=colour, ls=ls, marker=marker,
                          ms=4, label=label)
        top.axhline(LEVEL, color="k", lw=0.8)
        top.axhline(0.93, color="k", lw=0.8, ls=":")
        top.set_xscale("log")
        top.set_title(f"{ln}, ε = {eps:g} / ρ = {eps * eps / 2:g}", fontsize=10)
        top.set_ylim(min(0.85, min(r["coverage"][0] for r in rows) - 0.02,
                         min(r["coverage"][1] for r in rows) - 0.02), 1.0)
        top.grid(alpha=0.3, which="both")
        bottom.grid(alpha=0.3, which="both")
        bottom.set_xlabel("n")
    axes[0, 0].set_ylabel("coverage (worse coordinate, ± 2 s.e.)")
    axes[1, 0].set_ylabel("mean width (average of the coordinates)")
    axes[0, 0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(OUT / "erm_inference_coverage.png", dpi=100)


if __name__ == "__main__":
    main()
