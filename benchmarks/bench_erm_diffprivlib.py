"""Private logistic regression: refdp against IBM diffprivlib at equal epsilon, n, d and Lambda.

Both implement objective perturbation (Chaudhuri, Monteleoni and Sarwate 2011,
Algorithm 2) for L2-regularised logistic regression:

* refdp: ``refdp.erm.PrivateLogisticRegression(method="objective",
  regularization=Lambda, improved=False)`` (the paper's budget, as
  diffprivlib), float-safe by default (an exact draw of the noise, compiled,
  and the certified grid cell of the exact minimiser): a start point from
  damped Newton steps (exact Hessian up to 50,000 rows, its weights l''
  returned by the pass at the accepted point; from 0, or from -g / mu where
  the noise's pull ||g|| exceeds the data's bound 1; beyond 50,000 rows, a
  warm start on every k-th row and the Newton matrix of those rows, factored
  once; L-BFGS steps first where d >= 32 and n >= 5000, on every 4th row
  from 20,000 rows, handing over at a gradient of 1e-4 to Newton steps with
  one factored matrix and secant pairs), the gradient in one compiled
  lane-order pass over the rows (threads from 2**17 rows), then the
  certified cell search (each of its Newton corrections one more pass);
  budget rounded toward safety (and remembered per setting: the script
  refits one setting, so only its first fit computes it), the data
  assumption ||x|| <= 1 checked exactly (a compiled compensated sum);
* diffprivlib: ``diffprivlib.models.LogisticRegression(epsilon, data_norm=1,
  C=1/(n Lambda), fit_intercept=False)`` (the same objective: its C is the
  inverse of n Lambda); L-BFGS-B stopped at a projected gradient of 1e-4
  (its default ``tol``) or 100 iterations.

The outputs are random, so they are not compared element-wise (unlike the
other benchmarks, no equality is asserted): the script reports the median fit
time of each (interleaved repeats, see _common.py) with the ratio
diffprivlib / refdp, and the mean test accuracy over independent noise draws
(20, or 100 when n <= 1000) with its standard error, beside the non-private
model.

Data: x uniform in the unit ball of R^d, y = 1[w^T x > 0] with 5% of labels
flipped (w fixed), test set of 5000 points; and scikit-learn's breast_cancer
(standardised, constant feature appended, rows scaled to norm 1 and, for
refdp, ``clip=True`` against rounding), 70/30 split.

diffprivlib 0.6.6 predates the installed scikit-learn: it imports
``sklearn.tree._tree.DOUBLE`` and ``DTYPE`` (no longer defined; the script sets
them to numpy.float64 and numpy.float32, unused by logistic regression) and
passes ``multi_class`` to scikit-learn's ``LogisticRegression.__init__``
(removed; the script wraps that constructor to accept and store it, as older
versions did). Both shims act in this process only. If diffprivlib is not
installed the script says so and exits.

Run: python benchmarks/bench_erm_diffprivlib.py [--repeats N] [--quick] [--large]

``--large`` adds n = 10^5 at d = 50 and n = 10^6 at d = 10 and 50 (minutes).
"""
from __future__ import annotations

import statistics
import sys
import warnings

import numpy as np

import _common as bc
from refdp.erm import LogisticLoss, PrivateLogisticRegression
from refdp.utils.solver import minimise

LAMBDA = 1e-3
EPSILONS = (0.1, 1.0, 10.0)
ACCURACY_DRAWS = 20          # noise draws per accuracy estimate; 100 when n <= 1000 (cheap, noisier)


def import_diffprivlib():
    try:
        import sklearn.tree._tree as tree
    except ImportError:
        return None
    for name, value in (("DOUBLE", np.float64), ("DTYPE", np.float32)):
        if not hasattr(tree, name):
            setattr(tree, name, value)
    import inspect

    import sklearn.linear_model._logistic as logistic

    original = logistic.LogisticRegression.__init__
    if "multi_class" not in inspect.signature(original).parameters:
        def init(self, *a, multi_class="auto", **kw):      # accepted and stored, as before 1.8
            original(self, *a, **kw)
            self.multi_class = multi_class

        logistic.LogisticRegression.__init__ = init
    try:
        import diffprivlib
        from diffprivlib.models import LogisticRegression
    except ImportError:
        return None
    return diffprivlib.__version__, LogisticRegression


def synthetic(n, d, seed=0, n_test=5000):
    rng = np.random.default_rng(seed)
    w = np.ones(d) / np.sqrt(d)

    def sample(m):
        g = rng.normal(size=(m, d))
        X = g / np.linalg.norm(g, axis=1)[:, None] * rng.random(m)[:, None] ** (1 / d)
        y = (X @ w > 0).astype(int)
        return X, np.where(rng.random(m) < 0.05, 1 - y, y)

    return (*sample(n), *sample(n_test))


def breast_cancer(seed=0):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(seed).permutation(len(y))
    tr, te = idx[:int(0.7 * len(y))], idx[int(0.7 * len(y)):]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)

    def prep(A):
        Z = np.hstack([(A - mu) / sd, np.ones((len(A), 1))])
        return Z / np.linalg.norm(Z, axis=1)[:, None]

    return prep(X[tr]), y[tr], prep(X[te]), y[te]


def makers(DPLogReg, eps, n):
    def refdp_fit(seed):
        # improved=False: Algorithm 2 as published, the algorithm diffprivlib implements
        return PrivateLogisticRegression(epsilon=eps, regularization=LAMBDA, method="objective",
                                         classes=(0, 1), clip=True, improved=False, rng=seed)

    def dpl_fit(seed):
        return DPLogReg(epsilon=eps, data_norm=1.0, C=1.0 / (n * LAMBDA), fit_intercept=False,
                        random_state=seed)

    return {"refdp": refdp_fit, "diffprivlib": dpl_fit}


def accuracy(make, X, y, Xt, yt):
    accs = []
    for seed in range(ACCURACY_DRAWS if X.shape[0] > 1000 else 5 * ACCURACY_DRAWS):
        accs.append(float(np.mean(make(seed).fit(X, y).predict(Xt) == yt)))
    return statistics.mean(accs), statistics.stdev(accs) / np.sqrt(len(accs))


def nonprivate_accuracy(X, y, Xt, yt):
    theta = minimise(LogisticLoss(), X, np.where(y == 1, 1.0, -1.0), LAMBDA, tol=1e-8).theta
    return float(np.mean((Xt @ theta > 0).astype(int) == yt))


def main():
    large = "--large" in sys.argv
    if large:
        sys.argv.remove("--large")
    args = bc.parse_args(__doc__.splitlines()[0])
    bc.print_machine("Private logistic regression: refdp vs diffprivlib (objective perturbation)")
    found = import_diffprivlib()
    if found is None:
        print("diffprivlib is not installed (pip install diffprivlib): nothing to compare.")
        bc.summary("erm_diffprivlib", "diffprivlib not installed; no comparison")
        return
    version, DPLogReg = found
    print(f"diffprivlib {version}; Lambda = {LAMBDA} (diffprivlib C = 1/(n Lambda)), no intercept, "
          f"data_norm = 1; accuracy: mean over {ACCURACY_DRAWS} noise draws ({5 * ACCURACY_DRAWS} when "
          f"n <= 1000) +- standard error\n")
    sizes = [(1000, 10), (10000, 10)] if args.quick else [(1000, 10), (10000, 10), (100000, 10),
                                                          (10000, 50)]
    if large:
        sizes += [(100000, 50), (1000000, 10), (1000000, 50)]
    datasets = [(f"synthetic n={n} d={d}", synthetic(n, d)) for n, d in sizes]
    datasets.append(("breast_cancer n=398 d=31", breast_cancer()))
    rows, ratios = [], []
    for name, (X, y, Xt, yt) in datasets:
        n = X.shape[0]
        base = nonprivate_accuracy(X, y, Xt, yt)
        for eps in EPSILONS:
            make = makers(DPLogReg, eps, n)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                times, _ = bc.time_interleaved({k: (lambda f=f: f(0).fit(X, y)) for k, f in make.items()},
                                               args.repeats)
                acc = {k: accuracy(f, X, y, Xt, yt) for k, f in make.items()}
            ratio = times["diffprivlib"] / times["refdp"]
            ratios.append(ratio)
            rows.append([name, eps, bc.fmt_s(times["refdp"]), bc.fmt_s(times["diffprivlib"]), f"{ratio:.2f}",
                         f"{acc['refdp'][0]:.4f} +- {acc['refdp'][1]:.4f}",
                         f"{acc['diffprivlib'][0]:.4f} +- {acc['diffprivlib'][1]:.4f}", f"{base:.4f}"])
    bc.print_table(["data", "eps", "refdp fit", "diffprivlib fit", "time ratio dpl/refdp",
                    "refdp accuracy", "diffprivlib accuracy", "non-private"], rows)
    bc.print_load()
    bc.summary("erm_diffprivlib", "fit-time ratio diffprivlib/refdp: "
                                  f"median {statistics.median(ratios):.2f}, "
                                  f"range {min(ratios):.2f} .. {max(ratios):.2f}")


if __name__ == "__main__":
    main()
