"""The fast paths of the certified profiles keep their enclosures: paired FFT steps, cut lower tails,
suffix-sum tables for bisection, and the log-MGFs computed only when a gap needs them.

The enclosures below were computed by refdp at commit 48c279c, before these paths
(``privacy_profile_epsilon`` / ``privacy_profile_delta`` with the default grid
step). The new upper end may exceed the old one by at most the old width (it is
the guarantee; in practice the difference is below 2e-10 relative), the new
lower end may fall below the old one by at most the old width, and where
refdp's exact references apply (the exact optimal composition of randomized
response, the Balle-Wang enclosure of the Gaussian) the new enclosure contains
them.
"""
from __future__ import annotations

import warnings

import pytest

from refdp.accounting import optimal_composition_epsilon, privacy_profile_delta, privacy_profile_epsilon
from refdp.accounting.audit_peers import reference_epsilon
from refdp.accounting.profiles import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace, RandomizedResponse
from refdp.utils.precision import iv_context

#: (name, mechanisms, query, argument, old lower, old upper) at commit 48c279c
BEFORE = [
    ("100 x RR(0.1)", [(RandomizedResponse(0.1), 100)], "epsilon", 1e-5,
     4.306791372514885, 4.306791372517182),
    ("100 x Laplace(10)", [(Laplace(10.0), 100)], "epsilon", 1e-6, 4.692638483217504, 4.692669747013428),
    ("100 x Gaussian(10)", [(Gaussian(10.0), 100)], "delta", 1.0, 0.12693645336377268, 0.12693687230078116),
    ("1000 x Laplace(10)", [(Laplace(10.0), 1000)], "epsilon", 1e-6, 18.949691496905608, 18.950297307384282),
    ("10^4 x Laplace(10)", [(Laplace(10.0), 10000)], "epsilon", 1e-6, 94.21167052346274, 94.23592401824654),
    ("10^4 x Gaussian(10)", [(Gaussian(10.0), 10000)], "epsilon", 1e-6, 96.71727115446441, 96.71727231845506),
    ("50 x Laplace(10) + 20 x Gaussian(5)", [(Laplace(10.0), 50), (Gaussian(5.0), 20)], "epsilon", 1e-6,
     5.601597876237912, 5.601613584218673),
    ("40 x Laplace(10) + 5 x Gaussian(8)", [(Laplace(10.0), 40), (Gaussian(8.0), 5)], "epsilon", 1e-15,
     4.902897097630008, 4.903012363928539),
    ("20 x Laplace(5) + 10 x Gaussian(4) + RR(0.3)",
     [(Laplace(5.0), 20), (Gaussian(4.0), 10), RandomizedResponse(0.3)], "epsilon", 1e-6,
     5.859450313408242, 5.861503346564053),
    ("20 x DiscreteLaplace(5)", [(DiscreteLaplace(5.0), 20)], "epsilon", 0.01,
     1.9446744054513152, 1.944674405453225),
]


@pytest.mark.parametrize("name, mechs, query, arg, old_lower, old_upper", BEFORE, ids=[b[0] for b in BEFORE])
def test_enclosure_at_least_as_tight_as_before(name, mechs, query, arg, old_lower, old_upper):
    func = privacy_profile_epsilon if query == "epsilon" else privacy_profile_delta
    new = func(mechs, arg)
    width = old_upper - old_lower
    assert new.upper <= old_upper + width
    assert new.lower >= old_lower - width
    assert new.lower <= old_upper and old_lower <= new.upper        # both contain the exact value
    assert new.width <= 2 * width + 1e-12 * abs(old_upper)


@pytest.mark.parametrize("mechs, delta", [
    ([(Gaussian(10.0), 10000)], 1e-6),
    ([(Gaussian(10.0), 100)], 1e-6),
    ([(RandomizedResponse(0.1), 100)], 1e-5),
])
def test_enclosure_contains_the_exact_reference(mechs, delta):
    enc = privacy_profile_epsilon(mechs, delta)
    ref = reference_epsilon(mechs, delta)
    assert enc.lower <= ref.upper and ref.lower <= enc.upper


def test_huge_pure_dp_composition_is_computed():
    # two randomized responses at epsilon 700: the log-MGF's geometric weights used to overflow
    enc = privacy_profile_epsilon([(RandomizedResponse(700.0), 2)], 1e-3)
    # exact: p**2 (1 - e**(eps - 1400)) = 1e-3 with p = e**700 / (1 + e**700)
    iv = iv_context(40)
    p = iv.exp(iv.mpf(700)) / (1 + iv.exp(iv.mpf(700)))
    exact = 1400 + iv.log(1 - iv.mpf("1e-3") / (p * p))
    assert enc.lower <= float(exact.a) and float(exact.b) <= enc.upper
    assert enc.width < 1e-8
    assert enc.upper <= optimal_composition_epsilon(700.0, 2, 1e-3) + 1e-9
    d = privacy_profile_delta([(RandomizedResponse(700.0), 2)], 1399.0)
    exact_d = p * p * (1 - iv.exp(iv.mpf(-1)))
    assert d.lower <= float(exact_d.a) and float(exact_d.b) <= d.upper


@pytest.mark.parametrize("mechs", [[(RandomizedResponse(0.5), 2)], [(Laplace(1.0), 3)],
                                   [(Laplace(1.0), 2), Gaussian(3.0)]])
def test_epsilon_far_beyond_every_loss_raises_no_overflow(mechs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        enc = privacy_profile_delta(mechs, 1e308, grid_step=0.01)
    # nothing is finite beyond 1e308: the upper end is the mass moved to +inf (tails
    # truncated at 1e-60 per composition step), the lower end 0
    assert enc.lower == 0.0 and 0.0 <= enc.upper < 1e-58


def test_gaussian_composition_skips_the_log_mgfs(monkeypatch):
    import refdp.accounting.profiles as profiles
    calls = []
    real = profiles._log_mgf_at
    monkeypatch.setattr(profiles, "_log_mgf_at", lambda *a: calls.append(1) or real(*a))
    privacy_profile_epsilon([(Gaussian(10.0), 100)], 1e-6)
    assert calls == []                      # nothing is spread but the Gaussian: no gap to bound
    privacy_profile_epsilon([(Laplace(10.0), 3)], 1e-6)
    assert calls                            # a spread Laplace needs them


@pytest.mark.parametrize("scale", [0.001, 0.002, 0.01])
def test_laplace_with_a_huge_loss_range_keeps_its_mass(scale):
    # a = 1 / scale: the interior masses e**(-a/2) e**(x/2) start below the normal doubles;
    # their products used to stay stuck among the subnormals, so the upper end undercut the
    # exact epsilon = a + 2 ln(1 - delta), and a composition with such a Laplace returned 0
    iv = iv_context(40)
    exact = 1 / iv.mpf(scale) + 2 * iv.log(1 - iv.mpf("1e-3"))
    enc = privacy_profile_epsilon([Laplace(scale)], 1e-3)
    assert enc.lower <= float(exact.a) and float(exact.b) <= enc.upper
    mixed = privacy_profile_epsilon([(RandomizedResponse(100.0), 3), Laplace(scale)], 1e-3)
    assert mixed.lower >= 300.0 + float(exact.a) - 1e-2       # at least the pure parts' sum, nearly


@pytest.mark.parametrize("sigma", [0.01, 0.02])
def test_discrete_gaussian_with_a_tiny_sigma_is_computed(sigma):
    # the loss of x = 0 is 1 / (2 sigma**2) with mass 1 - O(e**(-1 / (2 sigma**2))): delta(eps) is
    # 1 - e**(eps - 1 / (2 sigma**2)) up to that tiny mass, so eps = 1 / (2 sigma**2) + ln(1 - delta)
    iv = iv_context(40)
    top = 1 / (2 * iv.mpf(sigma) ** 2)
    enc = privacy_profile_epsilon([DiscreteGaussian(sigma)], 1e-3)
    exact = top + iv.log(1 - iv.mpf("1e-3"))
    assert enc.lower <= float(exact.b) + 1e-9 and float(exact.a) - 1e-9 <= enc.upper
    assert enc.upper <= float(top.b)
