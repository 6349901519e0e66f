"""Small vectorised mechanisms ``mechanism(input, n, rng) -> n outputs`` shared by the black-box audit tests."""
import numpy as np


def rr(p_truth):
    """Randomised response on one bit: the truth with probability ``p_truth``."""
    def mechanism(bit, n, rng):
        return np.where(rng.random(n) < p_truth, bit, 1 - bit)
    return mechanism


def laplace(value, n, rng):
    """The first coordinate of ``value`` plus Laplace(1) noise."""
    return float(np.asarray(value).reshape(-1)[0]) + rng.laplace(0.0, 1.0, size=n)


def noisy_max_value(scale):
    """Report-noisy-max releasing the noisy maximum's value (not private at any epsilon)."""
    def mechanism(answers, n, rng):
        a = np.asarray(answers, dtype=float)
        return (a + rng.laplace(0.0, scale, size=(n, a.size))).max(axis=1)
    return mechanism
