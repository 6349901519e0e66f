"""Regenerate the figures of docs/learning.rst.

Run ``python docs/plots/learning_plots.py`` (needs matplotlib, the ``plots`` extra);
writes docs/_static/learning_thresholds_success.png,
docs/_static/learning_thresholds_sample_size.png,
docs/_static/learning_posterior.png and docs/_static/learning_utility.png.
Deterministic: exact values and fixed data, no timing, no random draws.
"""
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402

from refdp.learning import (  # noqa: E402
    exponential_mechanism_learner_distribution,
    exponential_mechanism_learner_utility_bound,
    one_posterior_sample_distribution,
    packing_sample_size,
    packing_success_bound,
    posterior_epsilon,
    posterior_temperature,
    threshold_learner_sample_size,
    threshold_learner_success,
)

OUT = Path(__file__).resolve().parent.parent / "_static"


def thresholds_success_plot():
    ks = np.arange(2, 81)
    fig, ax = plt.subplots(figsize=(7, 4.4), layout="constrained")
    for n, colour in ((20, "C0"), (40, "C1")):
        em = [float(threshold_learner_success(2**int(k), n, 1.0)) for k in ks]
        pack = [packing_success_bound(2**int(k), n, 1.0) for k in ks]
        ax.plot(ks, em, "-", color=colour, label=f"exponential-mechanism learner, n = {n} (exact)")
        ax.plot(ks, pack, "--", color=colour, label=f"packing bound, any ε-DP learner, n = {n}")
    ax.set_xlabel("grid size m (log2)")
    ax.set_ylabel("P[α-good output] on D_1")
    ax.set_title("Thresholds on a grid of m points, ε = 1: success on the hardest dataset")
    fig.legend(fontsize=7, loc="outside lower center", ncol=2)   # off the data
    fig.savefig(OUT / "learning_thresholds_success.png", dpi=110)


def thresholds_sample_size_plot():
    exps = np.arange(1, 31)
    ms = [10**int(e) for e in exps]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for eps, colour in ((0.5, "C0"), (1.0, "C1")):
        em = [threshold_learner_sample_size(m, eps, 0.05) for m in ms]
        pack = [packing_sample_size(m, eps, 0.05) for m in ms]
        ax.plot(exps, em, "o-", ms=3, color=colour, label=f"exponential-mechanism learner, ε = {eps}")
        ax.plot(exps, pack, "--", color=colour, label=f"packing lower bound, ε = {eps}")
    ax.set_xlabel("grid size m (log10)")
    ax.set_ylabel("records n needed")
    ax.set_title("Success ≥ 0.95 on every hard dataset: n grows like ln(m)/ε")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "learning_thresholds_sample_size.png", dpi=110)


def posterior_plot():
    thetas = np.linspace(0.01, 0.99, 99)
    loss_one, loss_zero = -np.log(thetas), -np.log1p(-thetas)     # -ln p(z | theta), z = 1 and z = 0
    bound = float(max(loss_one.max(), loss_zero.max()))          # about ln 100, over every possible record
    heads, n = 35, 50
    data = np.array([1] * heads + [0] * (n - heads))
    losses = np.where(data[None, :] == 1, loss_one[:, None], loss_zero[:, None])
    fig, ax = plt.subplots(figsize=(7, 3.2))
    full = one_posterior_sample_distribution(losses, bound)
    ax.plot(thetas, full, label=f"posterior (t = 1): {posterior_epsilon(bound):.2f}-DP")
    for eps in (4.0, 1.0):
        t = posterior_temperature(eps, bound)
        p = one_posterior_sample_distribution(losses, bound, epsilon=eps)
        ax.plot(thetas, p, label=f"tempered, t = {t:.3f}: {eps:g}-DP")
    ax.set_xlabel("θ (coin bias)")
    ax.set_ylabel("P[sample = θ]")
    ax.set_title(f"One posterior sample: {heads} heads in {n} tosses, uniform prior on 99 points")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "learning_posterior.png", dpi=110)


def utility_plot():
    n, eps, grid = 200, 1.0, 16
    betas = np.logspace(-4, 0, 41)[:-1]
    rng = np.random.default_rng(0)
    x = (2 * rng.integers(1, grid + 1, size=n) - 1) / (2 * grid)
    y = ((x >= 0.4) ^ (rng.random(n) < 0.2)).astype(int)
    from refdp.learning import grid_threshold_errors
    errors = grid_threshold_errors(x, y, grid)
    simulated, adversarial = [], []
    with mpmath.workdps(30):
        law = exponential_mechanism_learner_distribution([Fraction(int(e), n) for e in errors], eps, n_samples=n,
                                                         exact=True)
        for beta in betas:
            b = exponential_mechanism_learner_utility_bound(eps, float(beta), n_samples=n, n_hypotheses=grid + 1)
            excess = (errors - errors.min()) / n
            simulated.append(float(mpmath.fsum(p for p, e in zip(law, excess) if e > b)))
            k = int(np.floor(b * n)) + 1
            adv = [0] + [k] * grid
            adv_law = exponential_mechanism_learner_distribution([Fraction(e, n) for e in adv], eps, n_samples=n,
                                                                 exact=True)
            adversarial.append(float(mpmath.fsum(adv_law[1:])) if k <= n else 0.0)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.loglog(betas, betas, "k:", label="β")
    ax.loglog(betas, adversarial, "-", label="nearly tight risk profile")
    ax.loglog(betas, np.maximum(simulated, 1e-30), "-", label="noisy threshold data (seed 0)")
    ax.set_ylim(1e-12, 1.5)
    ax.set_xlabel("β")
    ax.set_ylabel("exact P[excess risk > bound(β)]")
    ax.set_title(f"Utility bound, |H| = {grid + 1}, n = {n}, ε = {eps}: exact failure probabilities")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "learning_utility.png", dpi=110)


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    thresholds_success_plot()
    thresholds_sample_size_plot()
    posterior_plot()
    utility_plot()
