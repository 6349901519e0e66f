"""Regenerate the figures of docs/prediction_walk.rst.

Run ``python docs/plots/walk_plots.py`` (needs matplotlib, the ``plots`` extra);
writes docs/_static/walk_proba.png and docs/_static/walk_error.png.
Deterministic: fixed seeds, no timing.
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from refdp.prediction import ProjectedWalk, walk_empirical_error_bound  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "_static"


def proba_plot():
    rng = np.random.default_rng(0)
    x = rng.random(400)
    y = ((x >= 0.2) & (x < 0.45) | (x >= 0.7)).astype(int)
    y = np.where(rng.random(400) < 0.05, 1 - y, y)
    q = np.linspace(0, 1, 2001)
    fig, ax = plt.subplots(figsize=(8.2, 3.2), layout="constrained")
    for eps in (0.1, 0.5, 1.0, 2.0):
        ax.plot(q, ProjectedWalk(eps, 0.01).fit(x, y).predict_proba(q)[:, 1], label=f"ε = {eps}")
    ax.scatter(x, y * 1.04 - 0.02, s=3, c="k", alpha=0.3, label="training labels")
    ax.set_xlabel("x")
    ax.set_ylabel("P[output = 1]")
    ax.set_title("Projected walk, n = 400, two intervals, 5% label noise, α = 0.01")
    fig.legend(loc="outside right upper", fontsize=8)   # off the data
    fig.savefig(OUT / "walk_proba.png", dpi=110)


def error_plot():
    rng = np.random.default_rng(1)
    sizes = np.unique(np.logspace(2, 5, 13).astype(int))
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for eps, colour in ((0.1, "C0"), (0.5, "C1"), (2.0, "C2")):
        errs, bounds = [], []
        for n in sizes:
            x = rng.random(n)
            y = (x >= 0.37).astype(int)
            p = ProjectedWalk(eps, 0.01).fit(x, y).predict_proba(x)[:, 1]
            errs.append(np.mean(np.where(y == 1, 1 - p, p)))
            bounds.append(walk_empirical_error_bound(int(n), eps, 0.01))
        ax.loglog(sizes, errs, "o-", color=colour, ms=3, label=f"err_S, ε = {eps}")
        ax.loglog(sizes, bounds, "--", color=colour, label=f"bound, ε = {eps}")
    ax.axhline(0.01, color="gray", lw=0.8)
    ax.set_xlabel("n")
    ax.set_ylabel("expected empirical error")
    ax.set_title("Realizable threshold, α = 0.01: exact err_S and the proved bound")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(OUT / "walk_error.png", dpi=110)


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    proba_plot()
    error_plot()
