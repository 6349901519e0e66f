"""Regenerate the PATE figures and tables of docs/pate.rst (student accuracy against epsilon).

Two end-to-end runs of refdp.pate, each printing a table (copied into
docs/pate.rst) and drawing one panel of docs/_static/pate_student.png:

* **digits** -- scikit-learn's bundled handwritten digits (1797 images of
  8 x 8 pixels, 10 classes; offline, no download). A random 60 % is the
  sensitive set (30 teachers, nearest-centroid each), 25 % the student's
  unlabelled public pool, 15 % the test set. The student (scikit-learn's
  logistic regression) is trained on the LNMax labels of random public
  points, gamma = 0.3, for several label budgets.
* **synthetic at scale** -- a Gaussian mixture (10 classes, 20 dimensions,
  150,000 sensitive records, 250 teachers with a NumPy nearest-centroid
  classifier each), 20,000 public points and 10,000 test points; the
  student is a nearest-centroid classifier trained on 50 to 2000 LNMax labels
  (random selection; also least-confident first for the table), gamma = 0.05.

For each budget: the student's test accuracy and epsilon at delta = 1e-5 by
the data-independent bound (the one that sets the budget), PATE's
data-dependent Theorem 3 with Lemma 4 (two-sided, refdp's default) and the
exact analysis (two-sided), each the smaller of the tail-bound and Rényi
conversions. The data-dependent values are shown as the paper shows them:
unreleased (their noisy release is discussed in docs/pate.rst).

Run (needs matplotlib and scikit-learn, and the compiled refdp._lnmax for
speed): python docs/plots/pate_plots.py
"""
from __future__ import annotations

import os
import time

import numpy as np

from refdp.pate import PATEStudent, PATETeachers

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "_static", "pate_student.png")
DELTA = 1e-5


class NearestCentroid:
    """Nearest class mean (NumPy only); ``predict_proba`` from a softmax of negative squared distances."""

    def fit(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        self.classes_ = np.unique(y)
        self.centres_ = np.stack([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def _d2(self, X):
        X = np.asarray(X, dtype=np.float64)
        return (X * X).sum(1)[:, None] - 2 * X @ self.centres_.T + (self.centres_ ** 2).sum(1)[None, :]

    def predict(self, X):
        return self.classes_[np.argmin(self._d2(X), axis=1)]

    def predict_proba(self, X):
        d = -self._d2(X)
        w = np.exp(d - d.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)


def run_budgets(teachers, X_pub, X_test, y_test, gamma, budgets, learner, selection, seed):
    from refdp.pate import PATEAccountant

    rows = []
    for budget in budgets:
        st = PATEStudent(learner, gamma=gamma, delta=DELTA, target_epsilon=1e6, max_queries=budget,
                         selection=selection, batch_size=max(10, budget // 5), rng=seed).fit(teachers, X_pub)
        counts = teachers.vote_counts(X_pub[st.query_indices_])
        acc = PATEAccountant(gamma, exact=True).add_counts(counts)
        r = acc.report(DELTA)
        label_acc = float(np.mean(st.labels_ == teachers_truth(st.query_indices_)))
        rows.append({
            "queries": st.n_queries_,
            "accuracy": float(np.mean(st.predict(X_test) == y_test)),
            "label_accuracy": label_acc,
            "data_independent": r.results["data_independent"].epsilon,
            "theorem3": r.results["theorem3"].epsilon,
            "exact": r.results["exact"].epsilon,
        })
    return rows


_TRUTH = {}


def teachers_truth(idx):
    return _TRUTH["y_pub"][idx]


def digits_run():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    n_sens, n_pub = int(0.6 * len(y)), int(0.25 * len(y))
    s, p, t = perm[:n_sens], perm[n_sens:n_sens + n_pub], perm[n_sens + n_pub:]
    teachers = PATETeachers(30, NearestCentroid, classes=10, rng=1).fit(X[s], y[s])
    _TRUTH["y_pub"] = y[p]
    teacher_acc = np.mean([np.mean(tch.predict(X[t]) == y[t]) for tch in teachers.teachers_])
    plurality = np.mean(np.argmax(teachers.vote_counts(X[t]), axis=1) == y[t])
    baseline = np.mean(LogisticRegression(max_iter=2000).fit(X[p], y[p]).predict(X[t]) == y[t])
    rows = run_budgets(teachers, X[p], X[t], y[t], 0.3, [25, 50, 100, 200, 400],
                       LogisticRegression(max_iter=2000), "random", 2)
    info = dict(n_sensitive=len(s), n_public=len(p), n_test=len(t), teacher_accuracy=teacher_acc,
                plurality_accuracy=plurality, baseline=baseline)
    return rows, info


def synthetic_run():
    rng = np.random.default_rng(10)
    C, d = 10, 20
    means = rng.normal(scale=0.9, size=(C, d))

    def sample(n):
        y = rng.integers(0, C, n)
        return means[y] + rng.normal(size=(n, d)), y

    X, y = sample(150_000)
    X_pub, y_pub = sample(20_000)
    X_test, y_test = sample(10_000)
    t0 = time.perf_counter()
    teachers = PATETeachers(250, NearestCentroid, classes=C, rng=11).fit(X, y)
    fit_time = time.perf_counter() - t0
    _TRUTH["y_pub"] = y_pub
    teacher_acc = np.mean([np.mean(tch.predict(X_test[:2000]) == y_test[:2000]) for tch in teachers.teachers_])
    plurality = np.mean(np.argmax(teachers.vote_counts(X_test), axis=1) == y_test)
    baseline = np.mean(NearestCentroid().fit(X_pub, y_pub).predict(X_test) == y_test)
    rows = run_budgets(teachers, X_pub, X_test, y_test, 0.05, [50, 100, 200, 500, 1000, 2000],
                       NearestCentroid, "random", 12)
    confident = run_budgets(teachers, X_pub, X_test, y_test, 0.05, [50, 100, 200, 500],
                            NearestCentroid, "least_confident", 12)
    info = dict(n_sensitive=len(y), n_public=len(y_pub), n_test=len(y_test), teacher_accuracy=teacher_acc,
                plurality_accuracy=plurality, baseline=baseline, fit_seconds=fit_time)
    return rows, info, confident


def show(name, rows, info):
    print(f"== {name} ==")
    print("  " + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in info.items()))
    print(f"  {'queries':>8} {'student acc':>12} {'label acc':>10} {'eps indep':>10} {'eps Thm 3':>10} "
          f"{'eps exact':>10}")
    for r in rows:
        print(f"  {r['queries']:>8} {r['accuracy']:>12.4f} {r['label_accuracy']:>10.4f} "
              f"{r['data_independent']:>10.3f} {r['theorem3']:>10.3f} {r['exact']:>10.3f}")


def main():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = time.perf_counter()
    dig, dig_info = digits_run()
    show("digits", dig, dig_info)
    syn, syn_info, confident = synthetic_run()
    show("synthetic", syn, syn_info)
    show("synthetic, least confident first", confident, {})
    import matplotlib.ticker

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), sharey=False, layout="constrained")
    for ax, rows, info, title in ((axes[0], dig, dig_info, "digits (30 teachers, gamma = 0.3)"),
                                  (axes[1], syn, syn_info, "Gaussian mixture, 150k records, 250 teachers")):
        acc = [r["accuracy"] for r in rows]
        for key, label, marker in (("data_independent", "data-independent (Thm 2)", "o"),
                                   ("theorem3", "Thm 3 + Lemma 4, two-sided", "s"),
                                   ("exact", "exact, two-sided", "^")):
            ax.plot([r[key] for r in rows], acc, marker=marker, label=label)
        ax.axhline(info["baseline"], color="grey", linestyle=":", label="non-private student (true labels)")
        ax.annotate("non-private student", (0.02, info["baseline"]), xycoords=("axes fraction", "data"),
                    xytext=(0, 2), textcoords="offset points", va="bottom", fontsize=7, color="grey")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel(r"$\varepsilon$ at $\delta = 10^{-5}$")
        ax.set_ylabel("student test accuracy")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="outside lower center", ncol=4)   # off the data
    fig.savefig(OUT, dpi=110)
    print(f"wrote {os.path.normpath(OUT)} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
