"""A cryptographically strong bit generator plugs into refdp's rng= arguments.

Skipped when the optional extra ``refdp[secure]`` (randomgen) is not installed.
"""
from __future__ import annotations

import secrets

import numpy as np
import pytest

randomgen = pytest.importorskip("randomgen")

from refdp.erm import (LogisticLoss, objective_perturbation, objective_perturbation_zcdp,  # noqa: E402
                       output_perturbation, output_perturbation_zcdp)
from refdp.mechanisms import (exponential_mechanism, gaussian_mechanism, laplace_mechanism,  # noqa: E402
                              report_noisy_max, spherical_laplace)
from refdp.mechanisms.discrete import discrete_gaussian, discrete_laplace  # noqa: E402


@pytest.fixture(params=["chacha", "aes"])
def crypto_rng(request):
    key = secrets.randbits(256) if request.param == "chacha" else secrets.randbits(128)
    if request.param == "chacha":
        return np.random.Generator(randomgen.ChaCha(key=key, rounds=20))
    return np.random.Generator(randomgen.AESCounter(key=key))


def test_mechanisms_accept_a_cryptographic_generator(crypto_rng):
    assert np.isfinite(laplace_mechanism(1.0, 0.5, rng=crypto_rng))
    assert np.isfinite(gaussian_mechanism([1.0, 2.0], 0.5, rng=crypto_rng)).all()
    assert spherical_laplace(3, 1.0, rng=crypto_rng).shape == (3,)
    assert spherical_laplace(2, 1.0, value=[0.0, 1.0], sensitivity=1.0, rng=crypto_rng).shape == (2,)
    assert exponential_mechanism([1.0, 2.0, 3.0], 1.0, rng=crypto_rng) in (0, 1, 2)
    assert report_noisy_max([1.0, 2.0, 3.0], 1.0, rng=crypto_rng) in (0, 1, 2)
    assert isinstance(discrete_laplace(3, rng=crypto_rng), int)
    assert discrete_gaussian(3, size=4, rng=crypto_rng).shape == (4,)
    X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.6], [-0.2, -0.1]])
    y = np.array([1, -1, 1, -1])
    assert output_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.5, rng=crypto_rng).theta.shape == (2,)
    assert output_perturbation_zcdp(X, y, LogisticLoss(), rho=1.0, regularization=0.5, rng=crypto_rng).theta.shape == (2,)
    # the float-safe objective releases read the generator's raw words (exact lazy draws)
    assert objective_perturbation(X, y, LogisticLoss(), epsilon=1.0, regularization=0.5, rng=crypto_rng).grid_step
    assert objective_perturbation_zcdp(X, y, LogisticLoss(), rho=1.0, regularization=0.5, rng=crypto_rng).grid_step


def test_the_generator_is_used_as_given(crypto_rng):
    # the stream continues between calls (never re-seeded): 20 draws are not all equal
    draws = {laplace_mechanism(0.0, 0.5, rng=crypto_rng) for _ in range(20)}
    assert len(draws) > 1
