"""spherical_laplace draws from the density proportional to exp(-beta ||b||) (Chaudhuri et al. 2011, Alg 1).

Claim
    In polar coordinates the density c exp(-beta ||b||) on R^d is
    c' r^(d-1) exp(-beta r) dr times the uniform measure on the sphere: the
    norm is Gamma(shape d, scale 1/beta), independent of a uniform direction.
    For (d, beta) in {(1, 2), (2, 1/2), (3, 1), (10, 3)}, 30,000 draws of
    ``spherical_laplace(d, beta)`` (fixed seed 16180) pass Kolmogorov-Smirnov
    tests of: (d = 1) the value against Lap(1/beta); (d >= 2) the norm against
    Gamma(d, 1/beta); the projection t = <u, e> of the direction u on
    e = e_1 and on e = (1, ..., 1)/sqrt(d), with (1 + t)/2 ~ Beta((d-1)/2,
    (d-1)/2) for a uniform direction; and the projection on e_1 among the
    draws whose norm exceeds the Gamma median (a test of independence).
Preconditions
    None.
Precision
    Statistical: family-wise false-failure rate 1e-6 over seeds (Bonferroni
    over the 13 tests; critical values from ``scipy.stats.kstwo``). The seed
    is fixed, so the verdict is reproducible.
"""
from __future__ import annotations

import numpy as np
import scipy.special

from refdp.mechanisms import spherical_laplace
from refdp.verify.registry import CheckResult, register

from proofs_checks.common.continuous_noise import ks_result
from proofs_checks.dwork_roth.laplace_mechanism_noise_law import laplace_cdf

SEED = 16180
N = 30_000
SETTINGS = ((1, 2.0), (2, 0.5), (3, 1.0), (10, 3.0))


def _projection_cdf(d):
    a = (d - 1) / 2.0
    return lambda t: scipy.special.betainc(a, a, np.clip((1.0 + np.asarray(t)) / 2.0, 0.0, 1.0))


def noise_law_result(sampler=spherical_laplace) -> CheckResult:
    """Run the tests on ``sampler(dim, beta, size=..., rng=...)``."""
    rng = np.random.default_rng(SEED)
    tests = []
    for d, beta in SETTINGS:
        b = np.asarray(sampler(d, beta, size=N, rng=rng), dtype=np.float64).reshape(N, d)
        label = f"dim={d}, beta={beta}"
        if d == 1:
            tests.append((label + ": value vs Lap(1/beta)", b[:, 0],
                          lambda x, s=1.0 / beta: laplace_cdf(x, s)))
            continue
        r = np.linalg.norm(b, axis=1)
        u = b / r[:, None]
        proj = _projection_cdf(d)
        median = scipy.special.gammaincinv(d, 0.5) / beta
        tests += [
            (label + ": norm vs Gamma(d, 1/beta)", r,
             lambda x, d=d, beta=beta: scipy.special.gammainc(d, beta * np.asarray(x))),
            (label + ": <u, e_1>", u[:, 0], proj),
            (label + ": <u, 1/sqrt(d)>", u.sum(axis=1) / np.sqrt(d), proj),
            (label + ": <u, e_1> given norm > median", u[r > median, 0], proj),
        ]
    return ks_result(tests, SEED)


@register("chaudhuri.spherical_laplace_noise_law",
          "spherical_laplace: norm ~ Gamma(d, 1/beta), direction uniform and independent (KS, alpha = 1e-6)",
          covers=("refdp.mechanisms.spherical_laplace",), quick=True)
def spherical_laplace_noise_law() -> CheckResult:
    return noise_law_result()
