"""Smooth-sensitivity release of the data-dependent epsilon."""
import itertools
import math

import numpy as np
import pytest

from refdp import core
from refdp.pate import (PATEAccountant, release_epsilon, smooth_laplace_parameters, smooth_sensitivity)
from refdp.pate.discrete_analysis import discrete_lemma4_log_q
from refdp.pate.smooth_sensitivity import statistic_step


def test_laplace_parameters():
    a, beta = smooth_laplace_parameters(1.0, 1e-6)
    assert a == 0.5
    # beta = ln(1 + eps / (2 ln(e^{eps/2} / delta))), rounded down
    exact = math.log1p(1.0 / (2 * (0.5 + math.log(1e6))))
    assert beta <= exact and beta == pytest.approx(exact, rel=1e-14)
    a, beta = smooth_laplace_parameters(10.0, 0.5)     # capped at epsilon / 2
    assert beta <= a == 5.0


def test_steps():
    assert statistic_step(0.1, "lemma4", False, "continuous") == 0.2
    assert statistic_step(0.1, "lemma4", True, "continuous") == pytest.approx(0.3)
    assert statistic_step(0.1, "exact", True, "continuous") == 0.4
    # discrete noise (docs/theory/pate_discrete.rst, Lemma D6)
    assert statistic_step(0.1, "lemma4", False) == 0.2
    assert statistic_step(0.1, "lemma4", True) == pytest.approx(0.3)
    assert statistic_step(0.1, "exact", False) == pytest.approx(0.3)
    assert statistic_step(0.1, "exact", True) == 0.2


def local_sensitivity_brute_force(counts, gamma, order, two_sided):
    """max over neighbouring vote histograms (one query) of |f(n) - f(n')| with the accountant's f."""
    def f(n):
        return PATEAccountant(gamma, orders=[order], two_sided=two_sided).add_counts([n]).log_moments()[0]
    base = f(counts)
    worst = 0.0
    for a, b in itertools.permutations(range(len(counts)), 2):
        if counts[a] > 0:
            m = list(counts)
            m[a] -= 1
            m[b] += 1
            worst = max(worst, abs(f(m) - base))
    return worst


@pytest.mark.parametrize("counts,gamma,two_sided", [
    ([20, 1, 0], 0.5, True), ([20, 1, 0], 0.5, False), ([12, 3, 3, 2], 0.8, True), ([9, 9, 2], 0.5, True),
])
def test_smooth_sensitivity_bounds_the_local_sensitivity(counts, gamma, two_sided):
    ss = smooth_sensitivity([counts], gamma, 8.0, 0.05, two_sided=two_sided)
    assert ss.local >= local_sensitivity_brute_force(counts, gamma, 8.0, two_sided)
    assert ss.value >= ss.local
    assert ss.log_moment == PATEAccountant(gamma, orders=[8.0], two_sided=two_sided).add_counts(
        [counts]).log_moments()[0]


def test_smooth_sensitivity_decreases_with_consensus_and_beta():
    weak = smooth_sensitivity(np.tile([150, 100, 0], (10, 1)), 0.05, 8.0, 0.05)
    strong = smooth_sensitivity(np.tile([250, 0, 0], (10, 1)), 0.05, 8.0, 0.05)
    assert strong.value < weak.value
    smoother = smooth_sensitivity(np.tile([250, 0, 0], (10, 1)), 0.05, 8.0, 0.2)
    assert smoother.value <= strong.value


def test_release_is_seeded_and_adds_one_scaled_laplace_draw():
    counts = np.tile([230, 12, 8], (30, 1))
    r1 = release_epsilon(counts, 0.05, 1e-5, order=16.0, epsilon_release=1.0, delta_release=1e-6, rng=4,
                         secure=False)
    r2 = release_epsilon(counts, 0.05, 1e-5, order=16.0, epsilon_release=1.0, delta_release=1e-6, rng=4,
                         secure=False)
    assert r1 == r2
    a, beta = smooth_laplace_parameters(1.0, 1e-6)
    assert r1.smooth_sensitivity.beta == beta and r1.noise_scale >= r1.smooth_sensitivity.value / a
    # the release is f + scale * Z with Z the generator's first Lap(0, 1) draw
    z = np.random.default_rng(4).laplace(0.0, 1.0)
    assert r1.noisy_log_moment == r1.smooth_sensitivity.log_moment + r1.noise_scale * z
    assert r1.epsilon_tail == (r1.noisy_log_moment + -math.log(1e-5)) / 16.0
    assert r1.epsilon_rdp < r1.epsilon_tail
    assert (r1.epsilon_release, r1.delta_release, r1.order, r1.delta) == (1.0, 1e-6, 16.0, 1e-5)


def test_secure_release_is_grid_index_plus_one_exact_discrete_laplace_draw():
    from fractions import Fraction
    from refdp.mechanisms import discrete_laplace
    from refdp.mechanisms.float_safe import SMOOTH_BETA_MARGIN
    from refdp.utils.rounding import up_dyadic
    counts = np.tile([230, 12, 8], (30, 1))
    gamma, lam = 0.05, 16.0
    r = release_epsilon(counts, gamma, 1e-5, order=lam, epsilon_release=1.0, delta_release=1e-6, rng=4)
    assert r == release_epsilon(counts, gamma, 1e-5, order=lam, epsilon_release=1.0, delta_release=1e-6,
                                rng=4, secure=True)
    a = 0.5
    # beta for the lowered delta (the discrete tail), less the smoothness margin
    _, beta = smooth_laplace_parameters(1.0, 1e-6 * (1 + math.exp(-a)) / 2 * (1 - 2.0**-40))
    assert r.smooth_sensitivity.beta == beta - SMOOTH_BETA_MARGIN
    bound = 30 * min(2 * gamma**2 * lam * (lam + 1), 2 * gamma * lam)
    g = 2.0 ** (math.frexp(bound)[1] - 51)
    assert g <= bound * 2.0**-50 < 2 * g
    k = round(r.smooth_sensitivity.log_moment / g)
    t = Fraction(r.smooth_sensitivity.value) / Fraction(g) + 1
    t /= Fraction(a)
    t_up = up_dyadic(t)                 # 48 significant bits, rounded up
    assert t <= t_up <= t * (1 + Fraction(1, 2**46)) and Fraction(float(t_up)) == t_up
    z = int(discrete_laplace(t_up, rng=4))
    assert Fraction(r.noisy_log_moment) == Fraction(g) * (k + z)     # exactly on the grid
    assert r.noise_scale == math.nextafter(float(t_up) * g, math.inf)
    assert r.epsilon_tail == (r.noisy_log_moment + -math.log(1e-5)) / lam


@pytest.mark.parametrize("call,name,owner", [
    (lambda: smooth_laplace_parameters(0.0, 1e-6), "epsilon", "smooth_laplace_parameters"),
    (lambda: smooth_laplace_parameters(1.0, 1.0), "delta", "smooth_laplace_parameters"),
    (lambda: smooth_sensitivity([[3, 1]], 0.1, 0.0, 0.1), "order", "smooth_sensitivity"),
    (lambda: smooth_sensitivity([[3, 1]], 0.1, 2.0, 0.0), "beta", "smooth_sensitivity"),
    (lambda: smooth_sensitivity([[3, 1]], 0.1, 2.0, 0.1, statistic="union"), "statistic", "smooth_sensitivity"),
    (lambda: release_epsilon([[3, 1]], 0.1, 1e-5, order=2.0, epsilon_release=-1.0, delta_release=1e-6),
     "epsilon_release", "release_epsilon"),
    (lambda: release_epsilon([[3, 1]], 0.1, 1e-5, order=2.0, epsilon_release=1.0, delta_release=0.0),
     "delta_release", "release_epsilon"),
    (lambda: release_epsilon([[3, 1]], 0.1, 2.0, order=2.0, epsilon_release=1.0, delta_release=1e-6),
     "delta", "release_epsilon"),
    # order 5e-324 returned epsilon_tail = epsilon_rdp = inf; order 1e308 ran for minutes
    (lambda: release_epsilon([[3, 1]], 0.1, 1e-5, order=5e-324, epsilon_release=1.0, delta_release=1e-6),
     "order", "release_epsilon"),
    (lambda: release_epsilon([[3, 1]], 0.1, 1e-5, order=1e308, epsilon_release=1.0, delta_release=1e-6),
     "order", "release_epsilon"),
    (lambda: smooth_sensitivity([[3, 1]], 0.1, 2.0**20 * 2, 0.1), "order", "smooth_sensitivity"),
])
def test_bad_input(call, name, owner):
    with pytest.raises(ValueError, match=f"The '{name}' parameter of {owner}"):
        call()


@pytest.mark.parametrize("delta", [0.5, 0.999999])
def test_renyi_epsilon_never_negative(delta):
    # for delta near 1 the Renyi form of the estimate was negative (-0.42 at delta = 0.999999, order 4)
    r = release_epsilon([[9, 1, 0]], 0.2, delta, order=4.0, epsilon_release=1.0, delta_release=1e-5, rng=0)
    lam, log_inv = 4.0, -math.log(delta)
    assert (r.noisy_log_moment + log_inv - math.log1p(lam)) / lam + math.log(lam / (lam + 1)) < 0
    assert r.epsilon_rdp == 0.0 and r.epsilon_tail == (r.noisy_log_moment + log_inv) / lam


def test_core_and_release_agree_on_f():
    counts = np.tile([240, 6, 4], (5, 1))
    ss = smooth_sensitivity(counts, 0.05, 8.0, 0.05, two_sided=False, noise="continuous")
    assert ss.log_moment == core.accountant_log_moments(core.lemma4_log_q(counts, 0.05), [8.0], 0.05)[0]
    ss = smooth_sensitivity(counts, 0.05, 8.0, 0.05, two_sided=False)
    assert ss.log_moment == core.accountant_log_moments(discrete_lemma4_log_q(counts, 0.05), [8.0], 0.05)[0]


@pytest.mark.parametrize("secure", [True, False])
def test_released_epsilon_is_clamped_to_the_possible_range(secure):
    # 30 teachers who often disagree: the smooth-sensitivity noise is as large
    # as the log-moment itself, and unclamped releases went negative (24.5% of
    # 200 on digits). The clamp to [0, Q B_lambda] is post-processing.
    import math

    from refdp.accounting import pate_data_independent_log_moments

    counts = np.array([[12, 10, 8], [15, 9, 6]] * 20)
    out = [release_epsilon(counts, 0.3, 1e-5, order=8, epsilon_release=1.0, delta_release=1e-6, rng=s,
                           secure=secure) for s in range(200)]
    top = float(pate_data_independent_log_moments(0.3, np.array([8.0]), 40)[0])
    lowest = math.log(1e5) / 8
    assert all(r.data_independent_log_moment == top for r in out)
    assert all(0.0 <= r.noisy_log_moment <= top for r in out)
    assert all(lowest <= r.epsilon_tail <= (top + math.log(1e5)) / 8 for r in out)
    assert 0 < sum(r.clamped for r in out) < 200     # the noise dwarfs the quantity here
    assert all(r.clamped == (r.noisy_log_moment in (0.0, top)) for r in out)
