"""gaussian_mechanism's output minus its input follows N(0, sensitivity^2 / (2 rho)).

Claim
    The textbook path (``secure=False``; the shipped default is checked by
    ``secure_noise_discrete_gaussian_law``): for several (rho, sensitivity),
    50,000 outputs of
    ``gaussian_mechanism(value, rho, sensitivity=...)`` on a constant array
    ``value`` (fixed seed 27182), minus ``value``, pass a Kolmogorov-Smirnov
    test against the exact CDF of N(0, sigma^2), sigma = sensitivity /
    sqrt(2 rho) (Bun and Steinke 2016, Proposition 1.6).
Preconditions
    None.
Precision
    Statistical: family-wise false-failure rate 1e-6 over seeds (Bonferroni
    over the settings; critical values from ``scipy.stats.kstwo``). The seed
    is fixed, so the verdict is reproducible.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special

from refdp.mechanisms import gaussian_mechanism
from refdp.verify.registry import CheckResult, register

from proofs_checks.common.continuous_noise import ks_result

SEED = 27182
N = 50_000
SETTINGS = ((0.5, 1.0), (0.01, 1.0), (2.0, 3.0), (0.2, 0.1))


def _textbook(value, budget, *, sensitivity, rng):
    return gaussian_mechanism(value, budget, sensitivity=sensitivity, rng=rng, secure=False)


def noise_law_result(mechanism=_textbook) -> CheckResult:
    """Run the test on ``mechanism(value, rho, sensitivity=..., rng=...)``."""
    rng = np.random.default_rng(SEED)
    tests = []
    for rho, sensitivity in SETTINGS:
        value = np.full(N, -3.5)
        noise = mechanism(value, rho, sensitivity=sensitivity, rng=rng) - value
        sigma = sensitivity / math.sqrt(2 * rho)
        tests.append((f"rho={rho}, sensitivity={sensitivity}", noise,
                      lambda x, s=sigma: scipy.special.ndtr(np.asarray(x) / s)))
    return ks_result(tests, SEED)


@register("bun_steinke.gaussian_mechanism_noise_law",
          "gaussian_mechanism(secure=False) adds N(0, sensitivity^2/(2 rho)) noise (KS, family-wise alpha = 1e-6)",
          covers=("refdp.mechanisms.gaussian_mechanism",), quick=True)
def gaussian_noise_law() -> CheckResult:
    return noise_law_result()
