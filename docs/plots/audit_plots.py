"""Regenerate the figure of docs/audit.rst: the epsilon lower bound as the samples grow.

Run ``python docs/plots/audit_plots.py`` (needs matplotlib, the ``plots``
extra); writes docs/_static/audit_bound_vs_samples.png. Deterministic (fixed
seeds); takes a few minutes on two cores.

Two report-noisy-max mechanisms of DP-Sniper's benchmark, five query answers,
Laplace noise of scale 2/0.1 = 20, claimed epsilon 0.1, each audited on one
fixed pair (so that the curve shows the effect of the sample size alone):

* ReportNoisyMax1 (returns the index; correct) on D = (1, 1, 1, 1, 1),
  D' = (0, 2, 2, 2, 2); its exact epsilon on this pair, 0.094615, is computed
  by refdp.audit.audit_exact from refdp's exact law of report-noisy-max;
* ReportNoisyMax3 (returns the noisy maximum; broken) on D = (1, 1, 1, 1, 1),
  D' = (0, 0, 0, 0, 0); on this pair its density ratio reaches exactly
  e^(5/20) = e^0.25 (five Laplace tails).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from refdp.audit import audit_black_box, audit_exact  # noqa: E402
from refdp.mechanisms import report_noisy_max_distribution  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "_static"
BUDGETS = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000)
SEEDS = (1, 2, 3, 4, 5)


def noisy_max(release):
    def mechanism(answers, n, rng):
        a = np.asarray(answers, dtype=np.float64)
        noisy = a + rng.laplace(0.0, 20.0, size=(n, a.size))
        return noisy.argmax(axis=1) if release == "index" else noisy.max(axis=1)
    return mechanism


def exact_rnm1(d, e):
    def law(x):
        return report_noisy_max_distribution(list(x), "0.1", exact=True, dps=50)
    return float(audit_exact(law, 0.1, pairs=[(d, e)]).epsilon)


def curve(mech, pair):
    rows = []
    for n in BUDGETS:
        bounds, secs = [], []
        for s in SEEDS:
            r = audit_black_box(mech, [pair], 0.1, n_samples=n, tolerance=0, rng=s, progress=False)
            bounds.append(r.epsilon_lower)
            secs.append(r.seconds)
        rows.append((n, np.median(bounds), min(bounds), max(bounds), np.median(secs)))
        print(f"  n = {n:>9d}: median {rows[-1][1]:.4f}, range [{rows[-1][2]:.4f}, {rows[-1][3]:.4f}], "
              f"{rows[-1][4]:.2f} s", flush=True)
    return np.array(rows)


def main():
    d = (1, 1, 1, 1, 1)
    e1, e3 = (0, 2, 2, 2, 2), (0, 0, 0, 0, 0)
    true1 = exact_rnm1(d, e1)
    print(f"exact epsilon of ReportNoisyMax1 on {d} vs {e1}: {true1:.6f}")
    print("ReportNoisyMax1 (correct)")
    c1 = curve(noisy_max("index"), (np.array(d, float), np.array(e1, float)))
    print("ReportNoisyMax3 (broken)")
    c3 = curve(noisy_max("value"), (np.array(d, float), np.array(e3, float)))
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for c, colour, label in ((c3, "C3", "ReportNoisyMax3 (noisy value; broken)"),
                             (c1, "C0", "ReportNoisyMax1 (index; correct)")):
        ax.fill_between(c[:, 0], c[:, 2], c[:, 3], color=colour, alpha=0.2, lw=0)
        ax.plot(c[:, 0], c[:, 1], "o-", color=colour, ms=3, label=label)
    ax.axhline(0.25, color="C3", ls=":", lw=1, label="true epsilon of ReportNoisyMax3 on its pair (0.25)")
    ax.axhline(true1, color="C0", ls=":", lw=1,
               label=f"exact epsilon of ReportNoisyMax1 on its pair ({true1:.4f})")
    ax.axhline(0.1, color="k", ls="--", lw=1, label="claimed epsilon (0.1)")
    ax.set_xscale("log")
    ax.set_xlabel("outputs drawn per dataset (selection + held-out)")
    ax.set_ylabel("epsilon lower bound (95%)")
    ax.set_ylim(0, 0.4)
    ax.set_title("Black-box audit: median and range over 5 seeds", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(OUT / "audit_bound_vs_samples.png", dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
