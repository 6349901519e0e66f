"""Audit refdp's continuous releases with the float-bits events: secure default vs secure=False.

Each mechanism is audited on a pair of neighbouring inputs at claimed epsilon
0.1 and 1, with the default events plus the float-bits events (Mironov 2012),
once with the float-safe default and once with ``secure=False``:

* ``laplace_mechanism``: ``f(D) = 0`` vs ``f(D') = 1``, sensitivity 1;
* ``gaussian_mechanism``: the same pair, rho chosen so that rho-zCDP gives
  (epsilon, 1e-5)-DP by ``rho + 2 sqrt(rho ln(1/delta)) <= epsilon`` (Bun
  and Steinke 2016, Proposition 1.3); audited against (epsilon, 1e-5);
* ``gaussian_mechanism_approx``: the same pair, (epsilon, 1e-5)-DP with the
  analytic calibration (the exact discrete-Gaussian profile on the grid for
  ``secure=True``, the analytic Gaussian ``sigma`` for ``secure=False``);
  audited against (epsilon, 1e-5);
* ``spherical_laplace`` releasing a vector in R^2: ``(0, 0)`` vs ``(1, 0)``,
  L2 sensitivity 1, ``beta = epsilon``;
* ``output_perturbation`` and ``output_perturbation_zcdp`` in d = 1 on two
  replace-one neighbouring datasets of 20 rows (ten ``(0.5, +1)`` and ten
  ``(0.5, -1)``, whose minimiser is exactly 0, vs one label flipped);
* ``stable_prediction`` with the classical (epsilon, delta) Gaussian: the
  prediction 0 vs 1 with ``beta = 1``, no clipping, audited against
  (epsilon, 1e-5); the classical calibration needs epsilon < 1, so 0.99
  stands for 1;
* ``objective_perturbation`` in d = 1 on the ERM pair above (Algorithm 2,
  logistic loss), float-safe by default (docs/theory/secure_noise.rst,
  Theorem 7), one release per output, with at most 400,000 outputs per
  dataset for ``secure=False`` and 100,000 for the float-safe release (about
  1 ms per release; ``--samples`` lowers both);
* ``refdp.pate.release_epsilon`` (the smooth-sensitivity release of PATE's
  log-moment; Lemma 4 statistic, two-sided, gamma = 0.05, order 8,
  delta_r = 1e-6) on 5 queries of 250 teachers voting ``(200, 30, 20)`` vs
  one teacher moved from the first class to the second on every query;
  audited against (epsilon_r, 1e-6). The statistic is the one for answers
  drawn with discrete noise (the default of ``release_epsilon``);
  ``--pate-noise continuous`` audits the release for answers drawn with
  continuous noise instead (the statistic the PATE rows used before the
  discrete default);
* ``private_hessian`` (logistic loss, d = 2, ``theta = 0``, ``mu = 0.1``) on
  20 rows, ten ``e_1`` and ten ``e_2``, vs one ``e_1`` replaced by ``e_2``
  (the Frobenius sensitivity ``sqrt(2) c / n`` is attained), epsilon-DP and
  rho-zCDP at (epsilon, 1e-5); the output is the upper triangle of the noisy
  matrix.

A batch of ``n`` outputs is ``n`` independent releases: the script calls the
same internal release the public function calls, with the parameters the
public function computes for one release (``--check`` verifies that a seeded
call of the public function returns the same double as the batch path with the
same seed). The ERM minimiser is deterministic, so it is computed once per
dataset and the release step is drawn ``n`` times.

Run (from the repository root)::

    python benchmarks/audit/secure_noise.py [--samples N] [--seed S] [--only TEXT] [--pate-noise LAW] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from fractions import Fraction

import numpy as np

from refdp.accounting import zcdp_to_dp
from refdp.audit import audit_black_box
from refdp.erm import (LogisticLoss, output_perturbation, output_perturbation_sensitivity,
                       output_perturbation_zcdp)
from refdp.utils.solver import minimise
from refdp.mechanisms import (gaussian_calibration_approx, gaussian_mechanism, gaussian_mechanism_approx,
                              laplace_mechanism, spherical_laplace)
from refdp.mechanisms.float_safe import gaussian_grid, l2_laplace_grid, laplace_grid, release
from refdp.erm import private_hessian
from refdp.erm.private_matrices import _calibrate, _vec_f, frobenius_sensitivity, hessian_matrix, vec_f_sensitivity
from refdp.prediction import stable_prediction
from refdp.prediction.stability import _rho_for_dp, classical_gaussian_sigma
from refdp.utils.rounding import floor_fraction

DELTA = 1e-5
PAIR_1D = [(0.0, 1.0, "f(D) = 0 vs f(D') = 1")]
PAIR_2D = [(np.array([0.0, 0.0]), np.array([1.0, 0.0]), "(0, 0) vs (1, 0)")]


def rho_for(epsilon, delta=DELTA):
    """Largest rho (rounded down) with rho + 2 sqrt(rho ln(1/delta)) <= epsilon."""
    L = -math.log(delta)
    rho = (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2 * (1 - 1e-9)
    assert zcdp_to_dp(rho, delta) <= epsilon
    return rho


def laplace_batch(epsilon, secure):
    def mech(value, n, rng):
        v = np.full(n, float(np.asarray(value).reshape(-1)[0]))
        if secure:
            return release(v, laplace_grid(epsilon, 1.0, 1), rng, "laplace_mechanism")
        return v + rng.laplace(0.0, 1.0 / epsilon, size=n)
    return mech


def gaussian_batch(rho, secure):
    def mech(value, n, rng):
        v = np.full(n, float(np.asarray(value).reshape(-1)[0]))
        if secure:
            return release(v, gaussian_grid(rho, 1.0, 1), rng, "gaussian_mechanism")
        from refdp.mechanisms import gaussian_sigma_zcdp
        return v + rng.normal(0.0, gaussian_sigma_zcdp(rho, 1.0), size=n)
    return mech


def gaussian_approx_batch(epsilon, secure, delta=DELTA):
    cal = gaussian_calibration_approx(epsilon, delta, 1.0, secure=secure)

    def mech(value, n, rng):
        v = np.full(n, float(np.asarray(value).reshape(-1)[0]))
        if secure:
            return release(v, cal.grid_noise(), rng, "gaussian_mechanism_approx")
        return v + rng.normal(0.0, cal.sigma, size=n)
    return mech


def spherical_batch(epsilon, secure):
    def mech(value, n, rng):
        v = np.tile(np.asarray(value, dtype=np.float64), (n, 1))
        if secure:
            return release(v, l2_laplace_grid(Fraction(epsilon), 1.0, 2), rng, "spherical_laplace")
        return v + spherical_laplace(2, epsilon, size=n, rng=rng)
    return mech


def erm_data():
    """Ten rows (0.5, +1) and ten (0.5, -1), whose minimiser is exactly 0, vs one label flipped."""
    X = np.full((20, 1), 0.5)
    y = np.array([1] * 10 + [-1] * 10)
    y2 = y.copy()
    y2[-1] = 1                                   # replace the last record
    return {0: (X, y), 1: (X.copy(), y2)}


ERM_LAMBDA, ERM_TOL = 0.5, 1e-10


def erm_minimisers():
    loss = LogisticLoss()
    out = {}
    for key, (X, y) in erm_data().items():
        out[key] = float(minimise(loss, X.astype(np.float64), y.astype(np.float64), ERM_LAMBDA,
                                  tol=ERM_TOL).theta[0])
    return out


def erm_batch(epsilon, secure, zcdp_rho=None):
    theta = erm_minimisers()
    n_rows = 20
    s_float = output_perturbation_sensitivity(n_rows, ERM_LAMBDA, ERM_TOL)

    def mech(key, n, rng):
        v = np.full(n, theta[int(np.asarray(key).reshape(-1)[0])])
        if zcdp_rho is not None:
            if secure:
                return release(v, gaussian_grid(zcdp_rho, s_float, 1), rng, "gaussian_mechanism")
            from refdp.erm import output_perturbation_sigma
            return v + rng.normal(0.0, output_perturbation_sigma(zcdp_rho, n_rows, ERM_LAMBDA, ERM_TOL), size=n)
        if secure:
            rate = floor_fraction(Fraction(epsilon) / Fraction(s_float))
            return release(v, l2_laplace_grid(Fraction(rate) * Fraction(s_float), s_float, 1), rng,
                           "spherical_laplace")
        from refdp.erm import output_perturbation_rate
        beta = output_perturbation_rate(epsilon, n_rows, ERM_LAMBDA, ERM_TOL)
        return v + spherical_laplace(1, beta, size=n, rng=rng)[:, 0]
    return mech


OBJECTIVE_SAMPLES = 400_000          # secure=False
OBJECTIVE_SECURE_SAMPLES = 100_000   # float-safe release, about 1 ms each


def objective_batch(epsilon, secure=False):
    """objective_perturbation(X, y, LogisticLoss(), epsilon=epsilon, regularization=0.5, improved=False,
    secure=secure).theta[0].

    One release per output; Algorithm 2 as published (the budget the
    table in docs/audit.rst was measured with). ``secure=True`` is the
    float-safe release (exact noise draw, certified grid cell of the exact
    minimiser; docs/theory/secure_noise.rst, Theorem 7).
    """
    from refdp.erm.objective_perturbation import objective_perturbation_budget, release_objective_perturbation
    loss = LogisticLoss()
    data = {k: (X.astype(np.float64), y.astype(np.float64)) for k, (X, y) in erm_data().items()}
    budget = objective_perturbation_budget(epsilon, loss.curvature, 20, ERM_LAMBDA, improved=False)

    def mech(key, n, rng):
        X, y = data[int(np.asarray(key).reshape(-1)[0])]
        return np.array([release_objective_perturbation(X, y, loss, ERM_LAMBDA, budget, rng=rng,
                                                        secure=secure).theta[0] for _ in range(n)])
    return mech


def stability_batch(epsilon, secure):
    """stable_prediction([a], beta=1, epsilon, delta=1e-5, noise='gaussian', output_range=None)."""
    def mech(value, n, rng):
        v = np.full(n, float(np.asarray(value).reshape(-1)[0]))
        if secure:
            return release(v, gaussian_grid(_rho_for_dp(epsilon, DELTA), 1.0, 1), rng, "gaussian_mechanism")
        return v + rng.normal(0.0, classical_gaussian_sigma(1.0, epsilon, DELTA), size=n)
    return mech


HESS_MU, HESS_N = 0.1, 20


def hessian_data():
    """Ten rows e_1 and ten e_2 vs one e_1 replaced by e_2 (theta = 0: every weight is 1/4)."""
    X = np.array([[1.0, 0.0]] * 10 + [[0.0, 1.0]] * 10)
    X2 = X.copy()
    X2[0] = [0.0, 1.0]
    y = np.array([1, -1] * 10)
    return {0: (X, y), 1: (X2, y)}


def hessian_batch(privacy, value, secure):
    """Upper triangle (00, 01, 11) of private_hessian(...).noisy, n independent releases."""
    loss = LogisticLoss()
    data = hessian_data()
    iu = np.triu_indices(2)

    def mech(key, n, rng):
        X, y = data[int(np.asarray(key).reshape(-1)[0])]
        H0 = hessian_matrix(X, y.astype(np.float64), loss, np.zeros(2))
        if secure:
            S = vec_f_sensitivity(HESS_N, loss.curvature)
            k = 3
            noise = (l2_laplace_grid(Fraction(value), S, k) if privacy == "pure" else gaussian_grid(value, S, k))
            w = release(np.tile(_vec_f(H0), (n, 1)), noise, rng, "private_hessian", "the matrix")
            return np.column_stack([w[:, 0] + HESS_MU, w[:, 1] / math.sqrt(2.0), w[:, 2] + HESS_MU])
        S = frobenius_sensitivity(HESS_N, loss.curvature)
        rate, sigma = _calibrate(privacy, value, S, "private_hessian")
        v = (spherical_laplace(3, rate, size=n, rng=rng) if privacy == "pure"
             else rng.normal(0.0, sigma, size=(n, 3)))
        M = (H0 + HESS_MU * np.eye(2))[iu]
        return np.column_stack([M[0] + v[:, 0], M[1] + v[:, 1] / math.sqrt(2.0), M[2] + v[:, 2]])
    return mech


PATE_GAMMA, PATE_ORDER, PATE_DELTA, PATE_DELTA_R = 0.05, 8.0, 1e-5, 1e-6


def pate_data():
    d = np.tile([200, 30, 20], (5, 1))
    d2 = np.tile([199, 31, 20], (5, 1))
    return {0: d, 1: d2}


def pate_batch(epsilon, secure, noise="discrete"):
    """release_epsilon(counts, 0.05, 1e-5, order=8, epsilon_release=epsilon, delta_release=1e-6,
    noise=noise).noisy_log_moment."""
    from refdp.mechanisms.float_safe import smooth_laplace_release
    from refdp.pate import smooth_laplace_parameters, smooth_sensitivity
    from refdp.pate.smooth_sensitivity import _secure_parameters
    data = pate_data()

    def mech(key, n, rng):
        counts = data[int(np.asarray(key).reshape(-1)[0])]
        if secure:
            ss, a, step = _secure_parameters(counts, PATE_GAMMA, PATE_ORDER, epsilon, PATE_DELTA_R, "lemma4",
                                             True, "release_epsilon", noise)
            out, _ = smooth_laplace_release(ss.log_moment, ss.value, a, step, rng, "release_epsilon", size=n)
            return out
        a, beta = smooth_laplace_parameters(epsilon, PATE_DELTA_R)
        ss = smooth_sensitivity(counts, PATE_GAMMA, PATE_ORDER, beta, noise=noise)
        scale = math.nextafter(ss.value / a, math.inf)
        return ss.log_moment + scale * rng.laplace(0.0, 1.0, size=n)
    return mech


def consistency_check():
    """The batch paths return what the public functions return for one release."""
    for seed in range(5):
        assert laplace_batch(0.1, True)(0.5, 1, np.random.default_rng(seed))[0] == \
            laplace_mechanism(0.5, 0.1, rng=seed)
        rho = rho_for(0.1)
        assert gaussian_batch(rho, True)(0.5, 1, np.random.default_rng(seed))[0] == \
            gaussian_mechanism(0.5, rho, rng=seed)
        for secure in (True, False):
            assert gaussian_approx_batch(0.1, secure)(0.5, 1, np.random.default_rng(seed))[0] == \
                gaussian_mechanism_approx(0.5, 0.1, DELTA, rng=seed, secure=secure)
        v = np.array([0.0, 1.0])
        assert np.array_equal(spherical_batch(0.1, True)(v, 1, np.random.default_rng(seed))[0],
                              spherical_laplace(2, 0.1, value=v, sensitivity=1.0, rng=seed))
        X, y = erm_data()[0]
        r = output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=ERM_LAMBDA, tol=ERM_TOL, rng=seed)
        assert erm_batch(1.0, True)(0, 1, np.random.default_rng(seed))[0] == r.theta[0]
        r = output_perturbation_zcdp(X, y, LogisticLoss(), rho=rho, regularization=ERM_LAMBDA, tol=ERM_TOL, rng=seed)
        assert erm_batch(None, True, zcdp_rho=rho)(0, 1, np.random.default_rng(seed))[0] == r.theta[0]
        for secure in (True, False):
            assert stability_batch(0.5, secure)(0.25, 1, np.random.default_rng(seed))[0] == stable_prediction(
                [0.25], 1.0, 0.5, delta=DELTA, noise="gaussian", output_range=None, rng=seed, secure=secure)[0]
            for privacy, value in (("pure", 0.5), ("zcdp", rho)):
                X, y = hessian_data()[1]
                kw = {"epsilon": value} if privacy == "pure" else {"rho": value}
                H = private_hessian(X, y, LogisticLoss(), np.zeros(2), HESS_MU, rng=seed, secure=secure, **kw)
                got = hessian_batch(privacy, value, secure)(1, 1, np.random.default_rng(seed))[0]
                assert np.array_equal(got, H.noisy[np.triu_indices(2)]), (secure, privacy)
        from refdp.erm import objective_perturbation
        X, y = erm_data()[0]
        for secure in (True, False):
            r = objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=ERM_LAMBDA, rng=seed,
                                       improved=False, secure=secure)
            assert objective_batch(1.0, secure)(0, 1, np.random.default_rng(seed))[0] == r.theta[0]
        from refdp.pate import release_epsilon
        for secure in (True, False):
            for noise in ("discrete", "continuous"):
                r = release_epsilon(pate_data()[1], PATE_GAMMA, PATE_DELTA, order=PATE_ORDER, epsilon_release=0.5,
                                    delta_release=PATE_DELTA_R, rng=seed, secure=secure, noise=noise)
                raw = pate_batch(0.5, secure, noise)(1, 1, np.random.default_rng(seed))[0]
                # the public function clamps the release to [0, Q B_lambda] (post-processing);
                # the audit looks at the release before the clamp, the harder case
                assert min(max(raw, 0.0), r.data_independent_log_moment) == r.noisy_log_moment, (secure, noise)
    print("batch paths agree with the public functions", flush=True)


def cases(pate_noise="discrete"):
    for eps in (0.1, 1.0):
        rho = rho_for(eps)
        for secure in (True, False):
            tag = "secure" if secure else "secure=False"
            yield (f"laplace_mechanism ({tag})", eps, 0.0, laplace_batch(eps, secure), PAIR_1D)
            yield (f"gaussian_mechanism, rho={rho:.4g} ({tag})", eps, DELTA, gaussian_batch(rho, secure), PAIR_1D)
            yield (f"gaussian_mechanism_approx, delta={DELTA:g} ({tag})", eps, DELTA,
                   gaussian_approx_batch(eps, secure), PAIR_1D)
            yield (f"spherical_laplace, d=2 ({tag})", eps, 0.0, spherical_batch(eps, secure), PAIR_2D)
            yield (f"output_perturbation, d=1 ({tag})", eps, 0.0, erm_batch(eps, secure), [(0, 1, "D vs D'")])
            yield (f"output_perturbation_zcdp, d=1, rho={rho:.4g} ({tag})", eps, DELTA,
                   erm_batch(None, secure, zcdp_rho=rho), [(0, 1, "D vs D'")])
            eps_c = min(eps, 0.99)
            yield (f"stable_prediction, classical Gaussian, eps={eps_c:g} ({tag})", eps_c, DELTA,
                   stability_batch(eps_c, secure), PAIR_1D)
            law = "" if pate_noise == "discrete" else f", noise={pate_noise}"
            yield (f"pate release_epsilon, Q=5{law} ({tag})", eps, PATE_DELTA_R, pate_batch(eps, secure, pate_noise),
                   [(0, 1, "D vs D'")])
            yield (f"objective_perturbation, d=1 ({tag})", eps, 0.0, objective_batch(eps, secure),
                   [(0, 1, "D vs D'")])
            yield (f"private_hessian, d=2, epsilon ({tag})", eps, 0.0, hessian_batch("pure", eps, secure),
                   [(0, 1, "D vs D'")])
            yield (f"private_hessian, d=2, rho={rho:.4g} ({tag})", eps, DELTA, hessian_batch("zcdp", rho, secure),
                   [(0, 1, "D vs D'")])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--only", default="", help="audit only the cases whose name contains this text")
    parser.add_argument("--pate-noise", choices=("discrete", "continuous"), default="discrete",
                        help="noise law of the PATE answers the release_epsilon statistic is computed for")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    consistency_check()
    rows = []
    for name, eps, delta, mech, pairs in cases(args.pate_noise):
        if args.only not in name:
            continue
        t0 = time.perf_counter()
        samples = args.samples
        if name.startswith("objective"):
            cap = OBJECTIVE_SAMPLES if name.endswith("(secure=False)") else OBJECTIVE_SECURE_SAMPLES
            samples = min(samples, cap)
        res = audit_black_box(mech, pairs, eps, claimed_delta=delta, n_samples=samples, tolerance=0,
                              float_bits=True, rng=args.seed, progress=False)
        secs = time.perf_counter() - t0
        rows.append({"mechanism": name, "claimed_epsilon": eps, "claimed_delta": delta,
                     "epsilon_lower": res.epsilon_lower, "violation": res.violation,
                     "event": res.event, "counts": list(res.counts), "samples": res.samples, "seconds": secs})
        print(f"{name} at eps={eps:g}" + (f", delta={delta:g}" if delta else "")
              + f": epsilon >= {res.epsilon_lower:.4f} {'VIOLATION' if res.violation else 'no violation'}; "
              f"counts {list(res.counts)}; {secs:.1f} s\n    event: {res.event[:120]}", flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
