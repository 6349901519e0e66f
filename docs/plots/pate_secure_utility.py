"""Student accuracy with the float-safe LNMax (the default) against the textbook float noise, over seeds.

The digits run of ``pate_plots.py`` (30 nearest-centroid teachers on 1078
images, gamma = 0.3, logistic-regression student on random public points)
repeated for ``SEEDS`` label-drawing seeds with ``secure=True`` (exact
discrete Laplace noise, the default) and ``secure=False`` (double-precision
Laplace noise). Teachers and data split are fixed; each seed draws the
public points asked and the noise (the same points for both noise laws at
one seed). Prints the
mean and standard error of the student's test accuracy and of the fraction of
correct labels per label budget, and the data-dependent epsilon (Theorem 3,
two-sided, at delta = 1e-5) of the first seed's answers under each noise law.

Run: python docs/plots/pate_secure_utility.py   (needs scikit-learn)
"""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pate_plots import NearestCentroid  # noqa: E402

from refdp.pate import PATEAccountant, PATEStudent, PATETeachers  # noqa: E402

SEEDS = range(20)
BUDGETS = (25, 50, 100, 200, 400)
GAMMA = 0.3


def main():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    n_sens, n_pub = int(0.6 * len(y)), int(0.25 * len(y))
    s, p, t = perm[:n_sens], perm[n_sens:n_sens + n_pub], perm[n_sens + n_pub:]
    teachers = PATETeachers(30, NearestCentroid, classes=10, rng=1).fit(X[s], y[s])
    print(f"{'labels':>6} {'noise':>9} {'student accuracy':>20} {'correct labels':>18} {'eps Thm 3 (seed 0)':>19}")
    for budget in BUDGETS:
        for secure in (True, False):
            acc, lab, eps = [], [], None
            for seed in SEEDS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)       # the textbook path warns
                    st = PATEStudent(LogisticRegression(max_iter=2000), gamma=GAMMA, delta=1e-5,
                                     target_epsilon=1e6, max_queries=budget, rng=[2, seed],
                                     secure=secure).fit(teachers, X[p])
                acc.append(np.mean(st.predict(X[t]) == y[t]))
                lab.append(np.mean(st.labels_ == y[p][st.query_indices_]))
                if eps is None:
                    counts = teachers.vote_counts(X[p][st.query_indices_])
                    acct = PATEAccountant(GAMMA, noise="discrete" if secure else "continuous").add_counts(counts)
                    eps = acct.epsilon(1e-5).epsilon
            se = np.std(acc, ddof=1) / np.sqrt(len(acc))
            sl = np.std(lab, ddof=1) / np.sqrt(len(lab))
            name = "secure" if secure else "textbook"
            print(f"{budget:>6} {name:>9} {np.mean(acc):>12.3f} +- {se:.3f} {np.mean(lab):>10.3f} +- {sl:.3f}"
                  f" {eps:>19.3f}")


if __name__ == "__main__":
    main()
