"""The discrete mechanisms add noise with the exact discrete Laplace and discrete Gaussian laws.

Claim
    For several parameters (exact rationals and floats), 40,000 outputs of
    ``discrete_laplace_mechanism`` and ``discrete_gaussian_mechanism`` on a
    constant integer array (fixed seed 2020), minus the array, follow the laws
    P[Z = z] proportional to exp(-|z| / scale) and exp(-z**2 / (2 sigma**2))
    (Canonne, Kamath and Steinke 2020, Definitions 1 and 2): the count of
    each integer with |z| <= 3 scale (or 3 sigma), and of each of the two
    tails beyond, lies in its exact binomial acceptance interval.
Preconditions
    None.
Precision
    Statistical: family-wise false-failure rate 1e-6 over seeds (Bonferroni
    over settings and cells, exact binomial quantiles from scipy.stats); the
    cell probabilities are computed in doubles (closed form for the Laplace
    tails, a normalised sum over |z| <= 40 sigma + 40 for the Gaussian), whose
    error is far below the resolution of the test. The seed is fixed, so the
    verdict is reproducible.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from refdp.mechanisms import (
    discrete_gaussian_mechanism,
    discrete_gaussian_sigma2,
    discrete_laplace_mechanism,
    discrete_laplace_scale,
)
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import worst_verdict

from proofs_checks.common.continuous_noise import ALPHA
from proofs_checks.common.sampler_law import sampler_check

SEED = 2020
N = 40_000
LAPLACE = ((1, 1), (1, Fraction(1, 10)), (3, 0.7), (1, 5))          # (sensitivity, epsilon)
GAUSS = ((1, Fraction(1, 2)), (2, 0.3), (1, 2), (3, Fraction(1, 50)))   # (sensitivity, rho)


def _cells(draws, half):
    """Cell index: 0 for z < -half, 1 + z + half for |z| <= half, 2 half + 2 for z > half."""
    d = np.asarray(draws, dtype=np.int64).ravel()
    return np.clip(d, -half - 1, half + 1) + half + 1


def laplace_probs(scale: float, half: int):
    q = math.exp(-1.0 / scale)
    c = (1.0 - q) / (1.0 + q)
    tail = q ** (half + 1) / (1.0 + q)
    return [tail] + [c * q ** abs(z) for z in range(-half, half + 1)] + [tail]


def gaussian_probs(sigma2: float, half: int):
    span = int(40 * math.sqrt(sigma2)) + 40
    w = {z: math.exp(-z * z / (2.0 * sigma2)) for z in range(-span, span + 1)}
    total = math.fsum(w.values())
    tail = math.fsum(v for z, v in w.items() if z > half) / total
    return [tail] + [w[z] / total for z in range(-half, half + 1)] + [tail]


def noise_law_result(laplace=discrete_laplace_mechanism, gaussian=discrete_gaussian_mechanism) -> CheckResult:
    rng = np.random.default_rng(SEED)
    level = ALPHA / (len(LAPLACE) + len(GAUSS))
    value = np.full(N, 7, dtype=np.int64)
    results = []
    for sensitivity, epsilon in LAPLACE:
        scale = float(discrete_laplace_scale(sensitivity, epsilon))
        half = max(1, math.ceil(3 * scale))
        noise = np.asarray(laplace(value, sensitivity, epsilon, rng=rng)) - value
        results.append(sampler_check(_cells(noise, half), laplace_probs(scale, half), level, SEED,
                                     f"Laplace sensitivity={sensitivity}, epsilon={epsilon}"))
    for sensitivity, rho in GAUSS:
        sigma2 = float(discrete_gaussian_sigma2(sensitivity, rho))
        half = max(1, math.ceil(3 * math.sqrt(sigma2)))
        noise = np.asarray(gaussian(value, sensitivity, rho, rng=rng)) - value
        results.append(sampler_check(_cells(noise, half), gaussian_probs(sigma2, half), level, SEED,
                                     f"Gaussian sensitivity={sensitivity}, rho={rho}"))
    outside = sum(r.measured for r in results)
    worst = max(results, key=lambda r: r.measured)
    return CheckResult(outside, 0, worst_verdict([r.verdict for r in results]), 0,
                       f"{len(results)} settings; worst: {worst.detail[:300]}", method="statistical")


@register("canonne_kamath_steinke.discrete_noise_law",
          "discrete mechanisms add exact discrete Laplace / Gaussian noise (binomial cells, alpha = 1e-6)",
          covers=("refdp.mechanisms.discrete_laplace_mechanism",
                  "refdp.mechanisms.discrete_gaussian_mechanism",
                  "refdp.mechanisms.discrete_laplace",
                  "refdp.mechanisms.discrete_gaussian"), quick=True)
def discrete_noise_law() -> CheckResult:
    return noise_law_result()
