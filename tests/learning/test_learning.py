"""Tests of refdp.learning: the finite-class learner, one posterior sample and the fast sampler."""
import doctest
import itertools
import math
import os
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import refdp.learning
import refdp.utils.inversion as fast_inversion
from refdp.learning import (
    empirical_risks,
    exponential_mechanism_learner,
    exponential_mechanism_learner_distribution,
    exponential_mechanism_learner_utility_bound,
    one_posterior_sample,
    one_posterior_sample_distribution,
    posterior_epsilon,
    posterior_temperature,
)
from refdp.utils.inversion import certified_inverse_cdf_index
from refdp.utils.rounding import float_at_least, float_at_most
from refdp.mechanisms import exponential_mechanism, exponential_mechanism_distribution
from refdp.utils.inversion import inverse_cdf_index, refined_index
from tests._support.paths import DOCS

BAD_EPSILONS = [0, 0.0, -1.0, math.nan, math.inf, "1", None, True]
LOSSES = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.5], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])


# -- validation ----------------------------------------------------------------

def test_message_shape():
    with pytest.raises(ValueError) as info:
        exponential_mechanism_learner([0.1, 0.2], -1.0, n_samples=10)
    assert str(info.value) == ("The 'epsilon' parameter of exponential_mechanism_learner must be a float "
                               "in the range (0, inf). Got -1.0 instead.")


@pytest.mark.parametrize("epsilon", BAD_EPSILONS)
def test_learner_rejects_bad_epsilon(epsilon):
    for f in (exponential_mechanism_learner, exponential_mechanism_learner_distribution):
        with pytest.raises(ValueError, match=f"The 'epsilon' parameter of {f.__name__} must be a float"):
            f([0.1, 0.2], epsilon, n_samples=10)
    with pytest.raises(ValueError, match="'epsilon' parameter of exponential_mechanism_learner_distribution"):
        exponential_mechanism_learner_distribution([0.1, 0.2], epsilon, n_samples=10, exact=True)
    with pytest.raises(ValueError, match="'epsilon' parameter of exponential_mechanism_learner_utility_bound"):
        exponential_mechanism_learner_utility_bound(epsilon, 0.1, n_samples=10, n_hypotheses=2)


@pytest.mark.parametrize("epsilon", BAD_EPSILONS)
def test_posterior_rejects_bad_epsilon(epsilon):
    if epsilon is None:   # None means "no target": t = 1
        return
    for f in (one_posterior_sample, one_posterior_sample_distribution):
        with pytest.raises(ValueError, match=f"The 'epsilon' parameter of {f.__name__} must be (None or )?a float"):
            f(LOSSES, 1.0, epsilon=epsilon)
    with pytest.raises(ValueError, match="The 'epsilon' parameter of posterior_temperature"):
        posterior_temperature(epsilon, 1.0)


def test_empty_hypothesis_class():
    with pytest.raises(ValueError, match="'risks' parameter of exponential_mechanism_learner must be an array "
                                         "with at least 1 element"):
        exponential_mechanism_learner([], 1.0, n_samples=10)
    with pytest.raises(ValueError, match="'risks' parameter of exponential_mechanism_learner_distribution"):
        exponential_mechanism_learner_distribution([], 1.0, n_samples=10, exact=True)
    with pytest.raises(ValueError, match="at least one hypothesis"):
        empirical_risks(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="one record"):
        empirical_risks(np.zeros((3, 0)))
    with pytest.raises(ValueError, match="'losses' parameter of one_posterior_sample must be an array with at "
                                         "least one parameter"):
        one_posterior_sample(np.zeros((0, 3)), 1.0)
    with pytest.raises(ValueError, match="'losses' parameter of one_posterior_sample_distribution"):
        one_posterior_sample_distribution([], 1.0, exact=True)


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, math.inf])
def test_losses_and_risks_outside_unit_interval(bad):
    with pytest.raises(ValueError, match="'losses' parameter of empirical_risks"):
        empirical_risks([[0.0, bad]])
    with pytest.raises(ValueError, match="'risks' parameter of exponential_mechanism_learner"):
        exponential_mechanism_learner([0.0, bad], 1.0, n_samples=5)
    with pytest.raises(ValueError, match="'risks' parameter of exponential_mechanism_learner_distribution"):
        exponential_mechanism_learner_distribution([0.0, bad], 1.0, n_samples=5)


def test_exact_risks_outside_unit_interval_and_not_numbers():
    with pytest.raises(ValueError, match=r"range \[0, 1\]. Got Fraction\(3, 2\) at position \(1,\)"):
        exponential_mechanism_learner_distribution([Fraction(0), Fraction(3, 2)], 1.0, n_samples=5, exact=True)
    with pytest.raises(ValueError, match="'risks' parameter"):
        exponential_mechanism_learner_distribution(["x"], 1.0, n_samples=5, exact=True)
    with pytest.raises(ValueError, match="'risks' parameter"):
        exponential_mechanism_learner_distribution([math.nan], 1.0, n_samples=5, exact=True)


@pytest.mark.parametrize("bad", [-0.1, 2.5, math.nan])
def test_posterior_losses_outside_bound(bad):
    losses = LOSSES.copy()
    losses[1, 2] = bad
    with pytest.raises(ValueError, match="'losses' parameter of one_posterior_sample must be an array"):
        one_posterior_sample(losses, 2.0)
    exact_losses = losses.tolist()
    with pytest.raises(ValueError, match=r"'losses' parameter of one_posterior_sample_distribution.*position \(1, 2\)"):
        one_posterior_sample_distribution(exact_losses, 2.0, exact=True)


def test_posterior_other_bad_inputs():
    with pytest.raises(ValueError, match="'loss_bound' parameter of one_posterior_sample must be a float in "
                                         r"the range \(0, inf\)"):
        one_posterior_sample(LOSSES, 0.0)
    with pytest.raises(ValueError, match="'log_prior' parameter of one_posterior_sample must be an array of "
                                         r"shape \(4\)"):
        one_posterior_sample(LOSSES, 1.0, log_prior=[0.0, 1.0])
    with pytest.raises(ValueError, match="'log_prior' parameter of one_posterior_sample must be an array of "
                                         "finite numbers"):
        one_posterior_sample(LOSSES, 1.0, log_prior=[0.0, math.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match="'temperature' parameter of one_posterior_sample must be None when "
                                         "'epsilon' is given"):
        one_posterior_sample(LOSSES, 1.0, epsilon=1.0, temperature=0.5)
    with pytest.raises(ValueError, match="'temperature' parameter of one_posterior_sample must be (None or )?a float"):
        one_posterior_sample(LOSSES, 1.0, temperature=-1.0)
    with pytest.raises(ValueError, match="'neighbours' parameter of one_posterior_sample must be one of "
                                         "'replace', 'add_remove'"):
        one_posterior_sample(LOSSES, 1.0, neighbours="swap")
    with pytest.raises(ValueError, match="'temperature' parameter of one_posterior_sample must be small enough"):
        one_posterior_sample(np.ones((2, 3)), 1.0, temperature=1e308)
    with pytest.raises(ValueError, match="equal length"):
        one_posterior_sample_distribution([[0, 1], [1]], 1.0, exact=True)
    with pytest.raises(ValueError, match=r"'log_prior' parameter of one_posterior_sample_distribution.*"
                                         r"position \(1,\)"):
        one_posterior_sample_distribution([[0], [1]], 1.0, log_prior=[0, "x"], exact=True)
    with pytest.raises(ValueError, match="'epsilon' parameter of posterior_temperature must be large enough"):
        posterior_temperature(5e-324, 1e300)


@pytest.mark.parametrize("n", [0, -1, 1.5, math.nan, "3"])
def test_bad_sample_size(n):
    with pytest.raises(ValueError, match="'n_samples' parameter of exponential_mechanism_learner must be an int "
                                         r"in the range \[1, 9223372036854775807\]"):
        exponential_mechanism_learner([0.5], 1.0, n_samples=n)


def test_swapped_epsilon_and_count_are_refused():
    # The old order (risks, n_samples, epsilon) with the two swapped released at
    # epsilon = 2000; epsilon is now second and the count keyword-only, and a
    # float count is refused even when it is integral.
    with pytest.raises(TypeError):
        exponential_mechanism_learner([0.5, 0.1], 1.0, 2000)
    for f in (exponential_mechanism_learner, exponential_mechanism_learner_distribution):
        with pytest.raises(ValueError, match=rf"'n_samples' parameter of {f.__name__} must be an int .* Got 1.0"):
            f([0.5, 0.1], 2000.0, n_samples=1.0)
    with pytest.raises(ValueError, match="'n_samples' parameter of exponential_mechanism_learner_utility_bound"):
        exponential_mechanism_learner_utility_bound(1.0, 0.1, n_samples=10.0, n_hypotheses=2)
    with pytest.raises(TypeError):
        exponential_mechanism_learner_utility_bound(10, 2, 1.0, 0.1)
    # numpy integer counts are counts
    assert exponential_mechanism_learner([0.5, 0.1], 1.0, n_samples=np.int64(10), rng=0) in (0, 1)


@pytest.mark.parametrize("beta", [0, -0.5, 1.5, math.nan])
def test_bad_beta(beta):
    with pytest.raises(ValueError, match=r"'beta' parameter of exponential_mechanism_learner_utility_bound "
                                         r"must be a float in the range \(0, 1\]"):
        exponential_mechanism_learner_utility_bound(1.0, beta, n_samples=10, n_hypotheses=3)


# -- laws and sampling -----------------------------------------------------------

def test_empirical_risks():
    assert empirical_risks([[0, 1, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1]]).tolist() == [0.5, 0.25, 1.0]


def test_learner_law_is_the_exponential_mechanism_on_minus_total_loss():
    risks = [Fraction(3, 8), Fraction(0), Fraction(1), Fraction(5, 8)]
    got = exponential_mechanism_learner_distribution(risks, 1.5, n_samples=8, exact=True, dps=40)
    want = exponential_mechanism_distribution([-8 * r for r in risks], 1.5, sensitivity=1, exact=True, dps=40)
    assert got == want
    # by hand: P[h] = exp(-1.5 * 8 R(h) / 2) / Z
    with mpmath.workdps(40):
        w = [mpmath.exp(-mpmath.mpf(1.5) * 8 * mpmath.mpf(r.numerator) / r.denominator / 2) for r in risks]
        z = mpmath.fsum(w)
        for g, v in zip(got, w):
            assert abs(g - v / z) < mpmath.mpf(10) ** -38


def test_float_law_matches_exact_law():
    rng = np.random.default_rng(3)
    risks = rng.integers(0, 51, 200) / 50
    floats = exponential_mechanism_learner_distribution(risks, 0.7, n_samples=50)
    exact = exponential_mechanism_learner_distribution([Fraction(float(r)) for r in risks], 0.7, n_samples=50,
                                                       exact=True, dps=30)
    rel = max(abs(float(e) - f) / float(e) for e, f in zip(exact, floats))
    assert rel < 1e-13


@given(st.lists(st.integers(0, 20), min_size=1, max_size=30), st.floats(0.01, 20.0),
       st.integers(0, 2**32 - 1))
def test_learner_draw_equals_reference_exponential_mechanism(errors, epsilon, seed):
    # same seed -> same index as refdp.mechanisms.exponential_mechanism on scores -n R (sensitivity 1),
    # whose sampler is the exact-integer inversion
    n = 20
    risks = np.array(errors) / n
    got = exponential_mechanism_learner(risks, epsilon, n_samples=n, rng=seed)
    want = exponential_mechanism(-(n * risks), epsilon, sensitivity=1.0, rng=seed)
    assert got == want


def test_learner_determinism_and_rng_forms():
    risks = np.linspace(0, 1, 50)
    a = [exponential_mechanism_learner(risks, 1.0, n_samples=10, rng=s) for s in range(30)]
    assert a == [exponential_mechanism_learner(risks, 1.0, n_samples=10, rng=s) for s in range(30)]
    assert len(set(a)) > 3
    g = np.random.default_rng(5)
    seq = [exponential_mechanism_learner(risks, 1.0, n_samples=10, rng=g) for _ in range(5)]
    assert seq == [exponential_mechanism_learner(risks, 1.0, n_samples=10, rng=np.random.default_rng(5)) for _ in
                   range(1)] + seq[1:]
    assert exponential_mechanism_learner(risks, 1.0, n_samples=10, rng=np.random.SeedSequence(1)) == \
        exponential_mechanism_learner(risks, 1.0, n_samples=10, rng=np.random.PCG64(np.random.SeedSequence(1)))


def test_single_hypothesis():
    assert exponential_mechanism_learner([0.3], 1.0, n_samples=5, rng=0) == 0
    assert exponential_mechanism_learner_distribution([0.3], 1.0, n_samples=5).tolist() == [1.0]


def test_posterior_law_by_hand():
    prior = [0.0, 1.0, -1.0, 0.5]
    got = one_posterior_sample_distribution(LOSSES.tolist(), 1.0, log_prior=prior, temperature=0.75,
                                            exact=True, dps=40)
    with mpmath.workdps(40):
        w = [mpmath.exp(-mpmath.mpf("0.75") * mpmath.mpf(sum(row)) + r) for row, r in zip(LOSSES.tolist(), prior)]
        z = mpmath.fsum(w)
        for g, v in zip(got, w):
            assert abs(g - v / z) < mpmath.mpf(10) ** -38
    floats = one_posterior_sample_distribution(LOSSES, 1.0, log_prior=prior, temperature=0.75)
    assert np.allclose(floats, [float(g) for g in got], rtol=1e-14, atol=0)


def test_posterior_tempering_options_agree():
    for relation in ("replace", "add_remove"):
        t = posterior_temperature(0.8, 2.0, relation)
        for seed in range(20):
            assert one_posterior_sample(LOSSES, 2.0, epsilon=0.8, neighbours=relation, rng=seed) == \
                one_posterior_sample(LOSSES, 2.0, temperature=t, rng=seed)
    assert posterior_temperature(0.8, 2.0) == 0.2 and posterior_temperature(0.8, 2.0, "add_remove") == 0.4
    for seed in range(10):
        assert one_posterior_sample(LOSSES, 1.0, rng=seed) == one_posterior_sample(LOSSES, 1.0, temperature=1.0,
                                                                                   rng=seed)


def test_posterior_without_records_is_the_prior():
    prior = np.array([0.0, 1.0, 2.0])
    p = one_posterior_sample_distribution(np.zeros((3, 0)), 1.0, log_prior=prior)
    assert np.allclose(p, np.exp(prior) / np.exp(prior).sum(), rtol=1e-15)


@given(st.floats(1e-6, 1e6), st.floats(1e-6, 1e6), st.sampled_from(["replace", "add_remove"]))
def test_temperature_rounded_down_and_epsilon_rounded_up(epsilon, bound, relation):
    k = 2 if relation == "replace" else 1
    t = posterior_temperature(epsilon, bound, relation)
    assert k * Fraction(t) * Fraction(bound) <= Fraction(epsilon)                  # never above the target
    assert k * Fraction(math.nextafter(t, math.inf)) * Fraction(bound) > Fraction(epsilon)   # the largest such
    e = posterior_epsilon(bound, t, relation)
    assert Fraction(e) >= k * Fraction(t) * Fraction(bound)                        # never below the exact
    assert Fraction(math.nextafter(e, 0)) < k * Fraction(t) * Fraction(bound)
    assert e <= epsilon


@given(st.integers(1, 10**6), st.integers(1, 10**9), st.floats(1e-3, 1e3), st.floats(1e-12, 1.0))
def test_utility_bound_is_rounded_up(n, h, epsilon, beta):
    got = exponential_mechanism_learner_utility_bound(epsilon, beta, n_samples=n, n_hypotheses=h)
    with mpmath.workdps(60):
        exact = 2 / (n * mpmath.mpf(epsilon)) * (mpmath.log(h) - mpmath.log(mpmath.mpf(beta)))
        assert mpmath.mpf(got) >= exact
        assert mpmath.mpf(math.nextafter(got, -math.inf)) < exact or got == 0.0


def test_utility_bound_values():
    assert exponential_mechanism_learner_utility_bound(1.0, 1.0, n_samples=5, n_hypotheses=1) == 0.0
    assert exponential_mechanism_learner_utility_bound(1.0, 0.05, n_samples=1000, n_hypotheses=100) == pytest.approx(
        2 / 1000 * (math.log(100) + math.log(20)), rel=1e-15)


def test_rounding_helpers():
    third = Fraction(1, 3)
    assert Fraction(float_at_least(third)) >= third > Fraction(math.nextafter(float_at_least(third), 0))
    assert Fraction(float_at_most(third)) <= third < Fraction(math.nextafter(float_at_most(third), 1))
    assert float_at_least(Fraction(1, 4)) == float_at_most(Fraction(1, 4)) == 0.25
    assert float_at_least(Fraction(10) ** 400) == math.inf
    assert float_at_most(Fraction(10) ** 400) == np.finfo(float).max
    assert float_at_least(mpmath.mpf(2) ** -1100) == 5e-324
    assert float_at_most(mpmath.mpf(2) ** -1100) == 0.0


# -- the certified sampler ---------------------------------------------------------

def _exact_draw(p, u, words):
    """The exact-integer path of the sampler, fed the same further bits."""
    partial = list(itertools.accumulate(fast_inversion._as_integers(p)))
    it = iter(words)
    return fast_inversion.refined_index(partial, int(u * 2**53), 53, lambda: next(it))


class _Words:
    """A stand-in Generator whose bit generator returns the given 64-bit words."""

    def __init__(self, words):
        words = list(words)
        self.bit_generator = type("Bits", (), {"random_raw": lambda self: np.uint64(words.pop(0))})()


_WORDS = [0x9E3779B97F4A7C15, 0x2545F4914F6CDD1D, 0x0123456789ABCDEF, 0xFEDCBA9876543210]


@given(st.lists(st.floats(0, 1e300, allow_subnormal=True), min_size=1, max_size=60),
       st.lists(st.integers(0, 2**53 - 1), min_size=1, max_size=10))
def test_certified_inversion_equals_exact_inversion(values, grid_points):
    p = np.array(values, dtype=np.float64)
    if not p.sum() > 0:
        p[0] = 1.0
    for r in grid_points:
        u = r / 2**53
        assert certified_inverse_cdf_index(p, u, _Words(_WORDS)) == _exact_draw(p, u, _WORDS)


def test_certified_inversion_at_boundaries_uses_the_fallback(monkeypatch):
    calls = []

    def counting(*args):
        calls.append(args[1])
        return refined_index(*args)

    monkeypatch.setattr(fast_inversion, "refined_index", counting)
    p = np.array([0.1, 0.2, 0.0, 0.3, 0.4])
    total = sum(Fraction(v) for v in p)
    running = Fraction(0)
    for k, v in enumerate(p):
        running += Fraction(v)
        r = int(running / total * 2**53)
        for u in ((r - 1) / 2**53, r / 2**53, (r + 1) / 2**53):
            if 0 <= u < 1:
                assert certified_inverse_cdf_index(p, u, _Words(_WORDS)) == _exact_draw(p, u, _WORDS)
    assert calls, "boundary uniforms must reach the exact path"
    assert certified_inverse_cdf_index(p, 0.5, _Words([])) == 3     # far from every boundary: no exact path
    n_calls = len(calls)
    certified_inverse_cdf_index(p, 0.5, _Words([]))
    assert len(calls) == n_calls


def test_certified_inversion_overflowing_running_sum():
    p = np.array([1e308, 1e308, 1e308])   # the float running sum overflows: exact path
    for u in (0.0, 0.3, 0.34, 0.5, 0.7, 1 - 2**-53):
        assert certified_inverse_cdf_index(p, u, _Words(_WORDS)) == _exact_draw(p, u, _WORDS)
    assert certified_inverse_cdf_index(p, 0.5, _Words([])) == 1


def test_certified_inversion_never_returns_a_zero_probability():
    p = np.array([0.0, 0.5, 0.0, 0.0, 0.5, 0.0])
    for r in range(0, 2**53, 2**47):
        assert p[certified_inverse_cdf_index(p, r / 2**53, _Words(_WORDS))] > 0


# -- the utility bound on sampled data ----------------------------------------------

def test_sampled_failure_rate_at_most_beta():
    # Nearly tight profile: one risk 0, 16 risks k/n just above the bound; its exact failure
    # probability p_fail <= beta (checked exactly in proofs_checks/lecture_notes/utility_bound.py).
    # Failures among N draws ~ Binomial(N, p_fail). Reject if the count exceeds c_hi, the
    # (1 - 1e-6)-quantile of Binomial(N, beta) (stochastically larger when p_fail <= beta), or
    # falls below c_lo, the 1e-6-quantile of Binomial(N, p_fail) (the sampler realises p_fail):
    # false-failure rate <= 2e-6.
    from proofs_checks.lecture_notes.utility_bound import adversarial_errors, failing_hypotheses, \
        failure_probability
    n, eps, beta, draws = 50, 1.0, 0.2, 4000
    errors = adversarial_errors(17, n, eps, beta)
    failing = failing_hypotheses(errors, n, eps, beta)
    with mpmath.workdps(30):
        p_fail = float(failure_probability(errors, n, eps, failing))
    assert 0.75 * beta < p_fail <= beta
    rng = np.random.default_rng(2024)
    risks = np.array(errors) / n
    count = sum(exponential_mechanism_learner(risks, eps, n_samples=n, rng=rng) in failing for _ in range(draws))
    c_hi = stats.binom.isf(1e-6, draws, beta)
    c_lo = stats.binom.ppf(1e-6, draws, p_fail)
    assert c_lo <= count <= c_hi


# -- documentation -------------------------------------------------------------------

@pytest.mark.parametrize("module", ["finite_class", "posterior", "thresholds_impossibility"])
def test_docstring_examples(module):
    mod = getattr(refdp.learning, module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_docs_page_examples_run():
    docs = os.path.join(DOCS, "learning.rst")
    result = doctest.testfile(docs, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_halved_utility_bound_is_violated():
    # The profile "one risk 0, |H| - 1 risks at the smallest k/n above tau/2" fails the halved
    # bound tau/2 with probability far above beta: the constant 2 of Theorem 2 cannot be halved.
    n, eps, beta, size = 200, 1.0, 0.05, 17
    half = exponential_mechanism_learner_utility_bound(eps, beta, n_samples=n, n_hypotheses=size) / 2
    k = math.floor(half * n) + 1
    errors = [0] + [k] * (size - 1)
    law = exponential_mechanism_learner_distribution([Fraction(e, n) for e in errors], eps, n_samples=n, exact=True, dps=30)
    assert Fraction(k, n) > Fraction(half)
    assert mpmath.fsum(law[1:]) > 5 * beta
