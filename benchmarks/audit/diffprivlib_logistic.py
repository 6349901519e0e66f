"""White-box audit of diffprivlib's LogisticRegression with :func:`refdp.audit.erm_whitebox`.

diffprivlib's ``LogisticRegression`` (``diffprivlib.models``) releases the
minimiser of an objective perturbed by its ``Vector`` mechanism, after
Chaudhuri, Monteleoni and Sarwate (2011), Algorithm 2. Reading its source
(diffprivlib 0.6.6, ``models/logistic_regression.py`` and
``mechanisms/vector.py``), the release minimises, for ``n`` records clipped
to ``||x|| <= q`` (``data_norm``) and labels mapped to ``+-1``,

    (1/n) sum_i log(1 + exp(-y_i f.(x_i[, 1]))) + (lambda / 2) ||w||^2 + b.f / n [+ (Delta / 2) ||f||^2]

with ``lambda = 1 / (C n)`` (scikit-learn's ``l2_reg_strength``; the
penalty leaves the intercept out), ``f = (w[, intercept])`` and the noise
``b`` of density proportional to ``exp(-||b|| / s)``: a uniform direction
times a Gamma(d, s) norm, ``s = 2 q' / eps'``, where ``q' = sqrt(q^2 + 1)``
with an intercept (the intercept is treated as one more feature of value 1)
and ``q' = q`` without, and

    eps' = eps - 2 ln(1 + 0.25 q' / alpha),   alpha = 1 / C = n lambda;

if ``eps' <= 0``, ``Delta = (0.25 q' / (e^(eps/4) - 1) - alpha) / n`` and
``eps' = eps / 2`` (else ``Delta = 0``). Chaudhuri et al.'s analysis needs
``0.25 q'^2`` where diffprivlib has ``0.25 q'`` (the curvature of a record
is ``l'' q'^2``, not ``l'' q'``), and a penalty on every coordinate.

The script does not re-type these numbers for the audit: its rule asks
diffprivlib's own ``Vector`` mechanism for them (the noise scale it passes
to its Gamma draw, and the extra ridge its perturbed objective adds), checks
them against the formulas above, and checks that ``LogisticRegression.fit``
builds its ``Vector`` with the arguments the rule uses. refdp's audit then
decides, with the exact output density of the *exact* minimiser (diffprivlib
stops L-BFGS at a gradient of 1e-4; that approximation is not audited), on
every replace-one pair of ``n`` records from the ball, whether the release
is eps-DP, and prints a certified witness when it is not.

Needs diffprivlib 0.6.6 with a scikit-learn whose API its models still use
(1.7.x: 1.8 removed ``LogisticRegression(multi_class=)``, 1.9 the private
``sklearn.tree._tree.DOUBLE`` that ``diffprivlib.models`` imports), i.e.
``pip install -e '.[audit-libraries]'``.

Run (from the repository root)::

    python benchmarks/audit/diffprivlib_logistic.py [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

from refdp.audit import erm_whitebox

CURVATURE = 0.25  # the logistic loss's largest second derivative, diffprivlib's function_sensitivity


def _versions():
    from importlib.metadata import version
    return {name: version(name) for name in ("diffprivlib", "scikit-learn", "numpy")}


def vector_release(epsilon, n, alpha, data_sensitivity, dimension):
    """diffprivlib's ``Vector`` mechanism asked for its noise rate ``1 / s`` and its extra ridge ``Delta``.

    The scale ``s`` is read from the mechanism's call of its generator's
    ``gamma`` (four Gamma(d / 4, s) draws summed: the noise norm); ``Delta``
    from the perturbed objective it returns, evaluated at ``f`` and ``-f``
    on a zero loss (the linear noise term cancels, the ridge doubles).
    """
    from diffprivlib.mechanisms import Vector

    seen = {}

    class Recording(np.random.RandomState):
        def gamma(self, shape, scale=1.0, size=None):
            seen.setdefault("scale", float(scale))
            return super().gamma(shape, scale, size)

    mech = Vector(epsilon=epsilon, dimension=dimension, alpha=alpha, function_sensitivity=CURVATURE,
                  data_sensitivity=data_sensitivity, n=n, random_state=Recording(0))
    objective = mech.randomise(lambda f: (0.0, np.zeros(dimension)))
    f = np.ones(dimension)
    ridge = (objective(f)[0] + objective(-f)[0]) / float(f @ f)
    return 1.0 / seen["scale"], ridge


def formula_release(epsilon, n, alpha, data_sensitivity):
    """The same two numbers from the formulas read in diffprivlib's source (see the module docstring)."""
    eps_p = epsilon - 2 * math.log(1 + CURVATURE * data_sensitivity / alpha)
    ridge = 0.0
    if eps_p <= 0:
        ridge = (CURVATURE * data_sensitivity / math.expm1(epsilon / 4) - alpha) / n
        eps_p = epsilon / 2
    return eps_p / (2 * data_sensitivity), ridge


def diffprivlib_rule(fit_intercept, dimension, record):
    """A rule for :func:`refdp.audit.erm_whitebox`: diffprivlib's noise rate and total regularisation.

    ``regularization`` is refdp's ``lambda = 1 / (C n)``, so diffprivlib's
    ``alpha = 1 / C`` is ``n lambda``; the data norm the mechanism is given is
    ``sqrt(q^2 + 1)`` with an intercept.
    """
    def rule(*, epsilon, n, regularization, curvature, data_norm):
        alpha = n * regularization
        q_eff = math.sqrt(data_norm ** 2 + 1) if fit_intercept else data_norm
        rate, ridge = vector_release(epsilon, n, alpha, q_eff, dimension)
        rate_f, ridge_f = formula_release(epsilon, n, alpha, q_eff)
        if not (math.isclose(rate, rate_f, rel_tol=1e-12) and math.isclose(ridge, ridge_f, rel_tol=1e-9,
                                                                              abs_tol=1e-12)):
            raise RuntimeError(f"diffprivlib's Vector gives rate {rate!r}, ridge {ridge!r}; the formulas read "
                               f"in its source give {rate_f!r}, {ridge_f!r}")
        if fit_intercept and ridge != 0:
            # the extra ridge penalises the intercept too: M = diag(lambda + Delta, Delta),
            # which erm_whitebox's intercept model (M = diag(mu, 0)) does not describe
            raise RuntimeError("the eps' <= 0 branch with an intercept is outside the audited model")
        record.update(alpha=alpha, data_sensitivity=q_eff, noise_rate=rate, extra_ridge=ridge,
                      eps_prime=2 * q_eff * rate)
        return {"noise_rate": rate, "total_regularization": regularization + ridge}
    return rule


def check_fit_uses(epsilon, C, data_norm, fit_intercept, n, expect):
    """Fit diffprivlib's LogisticRegression on ``n`` records and compare its ``Vector`` arguments with ``expect``."""
    import diffprivlib.models.logistic_regression as lr

    seen = {}
    real = lr.Vector

    class Spy(real):
        def __init__(self, **kwargs):
            seen.update(kwargs)
            super().__init__(**kwargs)

    rng = np.random.default_rng(0)
    X = rng.uniform(-data_norm, data_norm, size=(n, 1))
    y = np.arange(n) % 2
    lr.Vector = Spy
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr.LogisticRegression(epsilon=epsilon, data_norm=data_norm, C=C, fit_intercept=fit_intercept,
                                  random_state=0).fit(X, y)
    finally:
        lr.Vector = real
    got = {"epsilon": seen["epsilon"], "alpha": seen["alpha"], "function_sensitivity": seen["function_sensitivity"],
           "data_sensitivity": seen["data_sensitivity"], "n": seen["n"], "dimension": seen["dimension"]}
    ok = all(math.isclose(float(got[k]), float(v), rel_tol=1e-12) for k, v in expect.items())
    return ok, got


def two_class_witness(epsilon, C, q, n, rule_record, grid=30.0, step=0.25):
    """A certified witness among datasets diffprivlib accepts (both labels present), with an intercept.

    ``erm_whitebox`` examines every replace-one pair of the record alphabet,
    including datasets of one label, which ``LogisticRegression.fit``
    refuses. Here records ``u = y (x, 1)`` with ``x`` in {-q, -q/2, 0, q/2, q}
    and ``y = +-1`` are screened in double precision over every replace-one
    pair whose two datasets both hold both labels, at outputs ``f`` on a grid
    of ``[-grid, grid]^2``; the largest log density ratio found is then
    enclosed in interval arithmetic from exact rationals
    (:func:`refdp.audit.erm_whitebox.objective_log_density`).
    """
    import itertools
    from fractions import Fraction

    from refdp.audit.erm_whitebox import objective_log_density
    from refdp.utils.losses import LogisticLoss
    from refdp.utils.precision import iv_context

    lam = 1.0 / (C * n)
    beta = rule_record["noise_rate"]
    xs = [-q, -q / 2, 0.0, q / 2, q]
    recs = [(y * x, float(y)) for x in xs for y in (1, -1)]
    axis = np.arange(-grid, grid + step / 2, step)
    F = np.array(np.meshgrid(axis, axis)).reshape(2, -1).T
    M = np.diag([lam, 0.0])

    def log_density(D):
        U = np.array(D)
        m = F @ U.T
        d1 = -1.0 / (1.0 + np.exp(m))
        d2 = np.exp(-np.logaddexp(0.0, m) - np.logaddexp(0.0, -m))
        b = -(d1 @ U + n * F @ M)
        H = np.einsum("fi,ij,ik->fjk", d2, U, U) + n * M
        det = H[:, 0, 0] * H[:, 1, 1] - H[:, 0, 1] * H[:, 1, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return -beta * np.linalg.norm(b, axis=1) + np.log(det)

    best = (-math.inf, None)
    for rest in itertools.combinations_with_replacement(range(len(recs)), n - 1):
        for a in range(len(recs)):
            for c in range(len(recs)):
                D = [recs[i] for i in rest] + [recs[a]]
                E = [recs[i] for i in rest] + [recs[c]]
                if a == c or len({u[1] for u in D}) < 2 or len({u[1] for u in E}) < 2:
                    continue
                r = log_density(D) - log_density(E)
                r = np.where(np.isfinite(r), r, -np.inf)
                j = int(np.argmax(r))
                if r[j] > best[0]:
                    best = (float(r[j]), (D, E, tuple(float(v) for v in F[j])))
    D, E, f = best[1]
    ctx = iv_context(60)
    fr = tuple(Fraction(v) for v in f)
    loss = LogisticLoss()
    dens = [objective_log_density(ctx, loss, [tuple(Fraction(c) for c in u) for u in S], fr, n, Fraction(lam),
                                  Fraction(beta), intercept=True) for S in (D, E)]
    if dens[0] is None or dens[1] is None:
        return None
    enc = dens[0] - dens[1]
    to_xy = [[(u[0] * u[1], int(u[1])) for u in S] for S in (D, E)]  # u = y (x, 1) -> (x, y)
    return {"ratio": [float(enc.a), float(enc.b)], "records_u": [D, E], "records_xy": to_xy, "output": list(f),
            "screened": best[0]}


def settings():
    """(label, fit_intercept, C, data_norm, n, epsilon): defaults of diffprivlib where it has them."""
    return [
        ("no intercept, q = 1, C = 1", False, 1.0, 1.0, 2, 1.0),
        ("no intercept, q = 4, C = 0.1 (eps' > 0 branch)", False, 0.1, 4.0, 2, 1.0),
        ("no intercept, q = 4, C = 1 (eps' <= 0 branch)", False, 1.0, 4.0, 2, 1.0),
        ("no intercept, q = 8, C = 1 (eps' <= 0 branch)", False, 1.0, 8.0, 2, 1.0),
        ("intercept (default), q = 1, C = 1", True, 1.0, 1.0, 2, 1.0),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = parser.parse_args(argv)
    try:
        import diffprivlib.models  # noqa: F401
    except ImportError as exc:
        print(f"diffprivlib's models do not import here ({exc!r}); install the audit-libraries extra")
        return 2
    versions = _versions()
    load = [round(x, 2) for x in os.getloadavg()]
    print(f"== diffprivlib LogisticRegression, white-box ==  {versions}  load {load}")
    rows = []
    for label, fit_intercept, C, q, n, eps in settings():
        dim = 2 if fit_intercept else 1
        record = {}
        lam = 1.0 / (C * n)
        t0 = time.perf_counter()
        res = erm_whitebox(diffprivlib_rule(fit_intercept, dim, record), epsilon=eps, n=n, regularization=lam,
                           data_norm=q, loss="logistic", mechanism="objective", dimension=dim,
                           intercept=bool(fit_intercept))
        secs = time.perf_counter() - t0
        ok, got = check_fit_uses(eps, C, q, fit_intercept, n,
                                 {"epsilon": eps, "alpha": record["alpha"], "function_sensitivity": CURVATURE,
                                  "data_sensitivity": record["data_sensitivity"], "n": n, "dimension": dim})
        lo, hi = (float(v) for v in res.ratio)
        row = {"setting": label, "fit_intercept": fit_intercept, "C": C, "data_norm": q, "n": n, "epsilon": eps,
               "lambda": lam, **record, "fit_uses_same_vector": ok, "fit_vector_args": got,
               "verdict": res.verdict.value, "method": res.method, "ratio": [lo, hi],
               "worst_pair": [[[str(c) for c in u] for u in side] for side in res.worst_pair],
               "worst_output": [str(v) for v in res.worst_output], "examined": res.examined,
               "seconds": round(secs, 1)}
        rows.append(row)
        print(f"{label}: eps' = {record['eps_prime']:.6g}, noise rate {record['noise_rate']:.6g}, "
              f"extra ridge {record['extra_ridge']:.6g}; fit builds the same Vector: {ok}")
        print(f"   {res}  [{res.method}, {res.examined} examined, {secs:.1f} s]")
        if fit_intercept:
            # diffprivlib refuses one-label data: look for a witness it accepts (n = 3)
            rec3 = {}
            diffprivlib_rule(True, 2, rec3)(epsilon=eps, n=3, regularization=1.0 / (3 * C), curvature=CURVATURE,
                                            data_norm=q)
            w = two_class_witness(eps, C, q, 3, rec3)
            row["two_class_witness_n3"] = w
            if w is None:
                print("   two-label witness (n = 3): det H could not be certified positive")
            else:
                (x0, y0), (x1, y1) = w["records_xy"][0][-1], w["records_xy"][1][-1]
                print(f"   two-label datasets (n = 3): ln p_D/p_D' in [{w['ratio'][0]:.9g}, {w['ratio'][1]:.9g}] "
                      f"vs epsilon {eps:g} at f = (w, intercept) = {tuple(w['output'])}; D (x, y) = "
                      f"{w['records_xy'][0]}, D' replaces ({x0:g}, {y0:+d}) by ({x1:g}, {y1:+d})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"versions": versions, "load": load, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
