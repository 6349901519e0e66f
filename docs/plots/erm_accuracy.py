"""Regenerate the accuracy figure and table of docs/erm.rst (private ERM, Chaudhuri et al. 2011).

Run ``python docs/plots/erm_accuracy.py`` (needs matplotlib, the ``plots``
extra, and scikit-learn for the breast-cancer data it bundles); writes
docs/_static/erm_accuracy.png and prints the reStructuredText tables pasted
into docs/erm.rst. Deterministic: fixed seeds, no timing. ``--reps`` sets the
number of repetitions (default 20; the synthetic data uses a quarter of them,
at least 2).

Protocol
    Cells are "mean ± standard error over repetitions". For each data set,
    each repetition draws a fresh train/test split (real data) or a fresh
    sample (synthetic), then fits every method at every epsilon and every
    Lambda of the grid with its own noise seed. The reported test error of a
    (method, loss, epsilon) is the mean over repetitions at the Lambda of the
    grid with the lowest mean test error: an *oracle* choice of Lambda, made
    non-privately, which compares the mechanisms at their best. Private
    tuning (Algorithm 4, objective perturbation, logistic loss) is shown
    beside it: it chooses Lambda privately with the same epsilon, so it is
    end-to-end epsilon-DP. The non-private reference is the exact regularised
    minimiser at its own best Lambda. A third panel and table show the
    synthetic data at a fixed Lambda = 1e-3.
Data
    * breast_cancer (scikit-learn, 569 records, 30 features): features
      standardised with the training split's mean and standard deviation
      (a preprocessing step that is not private and is treated as public), a
      constant feature 1 appended, then every row divided by its norm (a
      row-wise map, so it costs no privacy): ||x|| = 1 up to rounding, so the
      estimators are run with ``clip=True`` (which moves those rows by a few
      ulps). 70% train (n = 398), 30% test. Labels 0/1 declared.
    * synthetic: d = 10, x uniform in the unit ball, y = sign(w^T x) for a
      fixed unit w with 5% of the labels flipped; n = 20000 train, 5000 test.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from refdp.erm import (HuberHingeLoss, LogisticLoss, PrivateHuberSVM, PrivateLogisticRegression,
                       private_tuning)
from refdp.utils.solver import minimise

OUT = Path(__file__).resolve().parent.parent / "_static"
EPSILONS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
LAMBDAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
ESTIMATORS = {"logistic": PrivateLogisticRegression, "huber": PrivateHuberSVM}
LOSSES = {"logistic": LogisticLoss(), "huber": HuberHingeLoss(0.5)}
FIXED_LAMBDA = 1e-3      # third panel and second table: the small-Lambda regime, synthetic data


def breast_cancer(rng):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    idx = rng.permutation(len(y))
    cut = int(0.7 * len(y))
    tr, te = idx[:cut], idx[cut:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)

    def prep(A):
        Z = np.hstack([(A - mu) / sd, np.ones((len(A), 1))])
        return Z / np.linalg.norm(Z, axis=1)[:, None]

    return prep(X[tr]), y[tr], prep(X[te]), y[te]


def synthetic(rng, n=20000, n_test=5000, d=10):
    w = np.ones(d) / np.sqrt(d)

    def sample(m):
        g = rng.normal(size=(m, d))
        X = g / np.linalg.norm(g, axis=1)[:, None] * rng.random(m)[:, None] ** (1 / d)
        y = (X @ w > 0).astype(int)
        flip = rng.random(m) < 0.05
        return X, np.where(flip, 1 - y, y)

    X, y = sample(n)
    Xt, yt = sample(n_test)
    return X, y, Xt, yt


def nonprivate_error(loss, X, y, Xt, yt, lam):
    theta = minimise(loss, X, np.where(y == 1, 1.0, -1.0), lam, tol=1e-8).theta
    return float(np.mean((Xt @ theta > 0).astype(int) != yt))


def run(data_fn, reps, seed):
    """errors[(method, loss, eps, lam)] -> list over reps; nonprivate[(loss, lam)]; tuned[eps]."""
    errors, nonprivate, tuned = {}, {}, {}
    master = np.random.default_rng(seed)
    for _ in range(reps):
        X, y, Xt, yt = data_fn(np.random.default_rng(master.integers(2**32)))
        for lname, loss in LOSSES.items():
            for lam in LAMBDAS:
                nonprivate.setdefault((lname, lam), []).append(nonprivate_error(loss, X, y, Xt, yt, lam))
        for eps in EPSILONS:
            for lname, cls in ESTIMATORS.items():
                for method in ("objective", "output"):
                    for lam in LAMBDAS:
                        # improved=False: Algorithm 2 as published, as the figure compares with the paper
                        est = cls(epsilon=eps, regularization=lam, method=method, classes=(0, 1),
                                  clip=True, improved=False, rng=int(master.integers(2**32))).fit(X, y)
                        errors.setdefault((method, lname, eps, lam), []).append(1 - est.score(Xt, yt))
            out = private_tuning(PrivateLogisticRegression(epsilon=eps, method="objective", classes=(0, 1), clip=True,
                                                           improved=False),
                                 X, y,
                                 LAMBDAS,
                                 rng=int(master.integers(2**32)))
            tuned.setdefault(eps, []).append(1 - out.estimator.score(Xt, yt))
    return errors, nonprivate, tuned


def best(errors, method, lname, eps):
    means = {lam: np.mean(errors[(method, lname, eps, lam)]) for lam in LAMBDAS}
    lam = min(means, key=means.get)
    return means[lam], lam


def se(values):
    """Standard error of the mean over repetitions."""
    return float(np.std(values, ddof=1) / np.sqrt(len(values)))


def table(errors, nonprivate, tuned):
    """reStructuredText list-table: one row per epsilon, both losses, both methods (and Lambda)."""
    np_err = {ln: min(np.mean(v) for (k, _), v in nonprivate.items() if k == ln) for ln in LOSSES}
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - ε", "     - logistic: objective (Λ)", "     - logistic: output (Λ)",
             "     - logistic: Alg. 4", "     - Huber: objective (Λ)", "     - Huber: output (Λ)"]
    for eps in EPSILONS:
        cells = [f"{eps:g}"]
        for ln in LOSSES:
            for method in ("objective", "output"):
                err, lam = best(errors, method, ln, eps)
                cells.append(f"{err:.3f} ± {se(errors[(method, ln, eps, lam)]):.3f} ({lam:g})")
            if ln == "logistic":
                cells.append(f"{np.mean(tuned[eps]):.3f} ± {se(tuned[eps]):.3f}")
        lines += ["   * - " + cells[0]] + [f"     - {c}" for c in cells[1:]]
    lines += ["   * - non-private", f"     - {np_err['logistic']:.3f}", "     -", "     -",
              f"     - {np_err['huber']:.3f}", "     -"]
    return "\n".join(lines)


def fixed_table(errors, lam):
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - ε", "     - logistic: objective", "     - logistic: output",
             "     - Huber: objective", "     - Huber: output"]
    for eps in EPSILONS:
        lines.append(f"   * - {eps:g}")
        lines += [f"     - {np.mean(errors[(m, ln, eps, lam)]):.3f} ± {se(errors[(m, ln, eps, lam)]):.3f}"
                  for ln in LOSSES for m in ("objective", "output")]
    return "\n".join(lines)


def plot(results, fixed_lambda):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    panels = list(results.items())
    synthetic_title, synthetic_res = panels[-1]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), sharey=True, layout="constrained")
    for ax, (title, (errors, nonprivate, tuned)), fixed in zip(
            axes, panels + [(synthetic_title, synthetic_res)], (None, None, fixed_lambda)):
        for lname, style, marker in (("logistic", "-", "o"), ("huber", "--", "^")):
            for method, colour in (("objective", "C0"), ("output", "C1")):
                if fixed is None:
                    ys = [best(errors, method, lname, e)[0] for e in EPSILONS]
                else:
                    ys = [np.mean(errors[(method, lname, e, fixed)]) for e in EPSILONS]
                ax.loglog(EPSILONS, ys, style, marker=marker, ms=4, color=colour, label=f"{method}, {lname}")
            np_err = min(np.mean(v) for (ln, _), v in nonprivate.items() if ln == lname)
            ax.axhline(np_err, color="k", ls=style, lw=0.8, label=f"non-private, {lname}")
            # the two reference lines can be close: logistic labelled at the left, Huber at the right
            left = lname == "logistic"
            ax.annotate(f"non-private, {lname}", (0.0 if left else 1.0, np_err),
                        xycoords=("axes fraction", "data"), xytext=(4 if left else -4, 2),
                        textcoords="offset points", ha="left" if left else "right", va="bottom", fontsize=7)
        if fixed is None:
            ax.loglog(EPSILONS, [np.mean(tuned[e]) for e in EPSILONS], ":", marker="s", ms=4, color="C2",
                      label="objective, logistic, private tuning (Alg. 4)")
            ax.set_title(f"{title}\nbest Λ of the grid per point (oracle)", fontsize=10)
        else:
            ax.set_title(f"{title}\nfixed Λ = {fixed:g}", fontsize=10)
        ax.set_xlabel("ε")
        ax.grid(alpha=0.3, which="both")
        plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")   # plain numbers, not 10^-1 notation
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
    axes[0].set_ylabel("test error (mean over repetitions)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="outside lower center", ncol=4)   # off the data
    fig.savefig(OUT / "erm_accuracy.png", dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    results = {
        "breast_cancer (n = 398, d = 31)": run(breast_cancer, args.reps, seed=2011),
        "synthetic (n = 20000, d = 10, 5% noise)": run(synthetic, max(2, args.reps // 4), seed=2012),
    }
    plot(results, FIXED_LAMBDA)
    for title, res in results.items():
        print(f"{title}, best Lambda of the grid (oracle):\n")
        print(table(*res) + "\n")
    print(f"synthetic, fixed Lambda = {FIXED_LAMBDA:g}:\n")
    print(fixed_table(list(results.values())[-1][0], FIXED_LAMBDA))


if __name__ == "__main__":
    main()
