"""laplace_mechanism's output minus its input follows Lap(sensitivity / epsilon).

Claim
    The textbook path (``secure=False``; the shipped default is checked by
    ``secure_noise_discrete_laplace_law``): for several (epsilon,
    sensitivity), 50,000 outputs of
    ``laplace_mechanism(value, epsilon, sensitivity=...)`` on a constant
    array ``value`` (fixed seed 31415), minus ``value``, pass a
    Kolmogorov-Smirnov test against the exact CDF of Lap(sensitivity /
    epsilon) (Dwork and Roth 2014, Definition 3.3).
Preconditions
    None.
Precision
    Statistical: family-wise false-failure rate 1e-6 over seeds (Bonferroni
    over the settings; critical values from the exact law of the KS statistic,
    ``scipy.stats.kstwo``). The seed is fixed, so the verdict is reproducible.
"""
from __future__ import annotations

import numpy as np

from refdp.mechanisms import laplace_mechanism
from refdp.verify.registry import CheckResult, register

from proofs_checks.common.continuous_noise import ks_result

SEED = 31415
N = 50_000
SETTINGS = ((1.0, 1.0), (0.1, 1.0), (3.0, 0.5), (0.7, 4.0))


def laplace_cdf(x, b):
    x = np.asarray(x, dtype=np.float64) / b
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(x, 0.0)))


def _textbook(value, budget, *, sensitivity, rng):
    return laplace_mechanism(value, budget, sensitivity=sensitivity, rng=rng, secure=False)


def noise_law_result(mechanism=_textbook) -> CheckResult:
    """Run the test on ``mechanism(value, epsilon, sensitivity=..., rng=...)``."""
    rng = np.random.default_rng(SEED)
    tests = []
    for epsilon, sensitivity in SETTINGS:
        value = np.full(N, 7.25)
        noise = mechanism(value, epsilon, sensitivity=sensitivity, rng=rng) - value
        b = sensitivity / epsilon
        tests.append((f"epsilon={epsilon}, sensitivity={sensitivity}", noise,
                      lambda x, b=b: laplace_cdf(x, b)))
    return ks_result(tests, SEED)


@register("dwork_roth.laplace_mechanism_noise_law",
          "laplace_mechanism(secure=False) adds Lap(sensitivity/epsilon) noise (KS, family-wise alpha = 1e-6)",
          covers=("refdp.mechanisms.laplace_mechanism",), quick=True)
def laplace_noise_law() -> CheckResult:
    return noise_law_result()
