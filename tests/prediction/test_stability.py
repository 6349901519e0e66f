"""refdp.prediction.stability: validation, determinism, noise laws and the Lemma 4.5/4.6 bounds.

Statistical tests state their false-failure rate ALPHA (the seeds are fixed, so
every run gives the same verdict) and derive their critical values from it.
"""
import importlib
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats
from hypothesis import given, strategies as st

from refdp.accounting import zcdp_to_dp
from refdp.mechanisms import gaussian_mechanism, gaussian_sigma_zcdp, laplace_mechanism, laplace_scale
from refdp.mechanisms.float_safe import gaussian_grid
from refdp.prediction import stability as S
from refdp.prediction.convex import HuberLoss, ProjectedSGD, RegularizedERM
from refdp.prediction.stability import (StablePredictor, classical_gaussian_sigma,
                                        lemma_4_5_lipschitz_extra_loss,
                                        lemma_4_5_smooth_extra_loss, lemma_4_6_averaged_rate,
                                        stable_prediction)

ALPHA = 1e-6


def mean_learner(X, y):
    m = float(np.mean(y))
    return lambda Xq: np.full(len(Xq), m)


def data(n=12, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, d))
    y = (rng.random(n) < 0.5).astype(float)
    return X, y


# ------------------------------------------------------------ validation ----

def test_message_shape():
    with pytest.raises(ValueError) as info:
        StablePredictor(mean_learner, -1.0, 1.0)
    assert str(info.value) == ("The 'beta' parameter of StablePredictor must be a float in the "
                               "range (0, inf). Got -1.0 instead.")


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, None, "x", True])
@pytest.mark.parametrize("param", ["beta", "epsilon"])
def test_positive_parameters_rejected(param, bad):
    kwargs = {"beta": 0.1, "epsilon": 1.0, param: bad}
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of StablePredictor must be"):
        StablePredictor(mean_learner, kwargs["beta"], kwargs["epsilon"])
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of stable_prediction must be"):
        stable_prediction([0.5], kwargs["beta"], kwargs["epsilon"])


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_delta_outside_unit_interval(delta):
    with pytest.raises(ValueError, match="The 'delta' parameter of StablePredictor must be a float "
                                         r"in the range \(0, 1\)"):
        StablePredictor(mean_learner, 0.1, 0.5, delta=delta, noise="gaussian")


@pytest.mark.parametrize("eps", [1.0, 2.0])
def test_classical_gaussian_needs_epsilon_below_one(eps):
    with pytest.raises(ValueError, match=r"The 'epsilon' parameter of StablePredictor must be a "
                                         r"float in the range \(0, 1\)"):
        StablePredictor(mean_learner, 0.1, eps, delta=1e-5, noise="gaussian")
    with pytest.raises(ValueError, match=r"epsilon' parameter of classical_gaussian_sigma"):
        classical_gaussian_sigma(0.1, eps, 1e-5)


@pytest.mark.parametrize("kwargs, name", [
    ({"epsilon": 1.0, "delta": 1e-5}, "delta"),                    # delta with Laplace
    ({"epsilon": 1.0, "rho": 0.5}, "rho"),                         # rho with Laplace
    ({"epsilon": None}, "epsilon"),                                # Laplace without epsilon
    ({"epsilon": 0.5, "rho": 0.5, "noise": "gaussian"}, "epsilon"),
    ({"delta": 1e-5, "rho": 0.5, "noise": "gaussian"}, "delta"),
    ({"epsilon": None, "noise": "gaussian"}, "epsilon"),
    ({"epsilon": 0.5, "noise": "gaussian"}, "delta"),
    ({"rho": 0.0, "noise": "gaussian"}, "rho"),
    ({"epsilon": 1.0, "noise": "uniform"}, "noise"),
])
def test_inconsistent_privacy_arguments(kwargs, name):
    kwargs = dict(kwargs)
    eps = kwargs.pop("epsilon", None)
    with pytest.raises(ValueError, match=rf"The '{name}' parameter of StablePredictor must be"):
        StablePredictor(mean_learner, 0.1, eps, **kwargs)


@pytest.mark.parametrize("bad", [[1, 0], (1.0, 0.0), (0.5, 0.5), (math.nan, 1.0), (0,), "ab",
                                 (0, 1, 2), (True, 2), 1.0])
def test_output_range_rejected(bad):
    with pytest.raises(ValueError, match="The 'output_range' parameter of StablePredictor"):
        StablePredictor(mean_learner, 0.1, 1.0, output_range=bad)


@pytest.mark.parametrize("k", [0, -1, 1.5, math.nan, "2"])
def test_k_rejected(k):
    with pytest.raises(ValueError, match="The 'k' parameter of StablePredictor must be an int"):
        StablePredictor(mean_learner, 0.1, 1.0, k=k)


def test_learner_must_be_callable():
    with pytest.raises(ValueError, match="The 'learner' parameter of StablePredictor"):
        StablePredictor(3, 0.1, 1.0)


def test_fit_and_predict_shapes():
    X, y = data()
    sp = StablePredictor(mean_learner, 0.1, 1.0, k=3, rng=0)
    with pytest.raises(RuntimeError, match="not fitted"):
        sp.predict(X)
    with pytest.raises(ValueError, match="The 'X' parameter of StablePredictor.fit must be a 2-dim"):
        sp.fit(X[:, 0], y)
    with pytest.raises(ValueError, match=r"The 'y' parameter of StablePredictor.fit must be an "
                                         r"array with as many rows as 'X' \(12\)"):
        sp.fit(X, y[:-1])
    with pytest.raises(ValueError, match="The 'X' parameter of StablePredictor.fit must be an "
                                         "array of finite numbers"):
        sp.fit(np.where(X > 0.4, np.nan, X), y)
    with pytest.raises(ValueError, match="at least k = 3 rows"):
        sp.fit(X[:2], y[:2])
    sp.fit(X, y)
    assert sp.predict(X[:5]).shape == (5,)
    with pytest.raises(ValueError, match=r"The 'X' parameter of StablePredictor.predict must be an "
                                         r"array of shape \(any, 2\)"):
        sp.predict(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="finite"):
        sp.predict([[np.nan, 0.0]])


def test_values_validation():
    with pytest.raises(ValueError, match="The 'values' parameter of stable_prediction must be a "
                                         "1-dimensional array"):
        stable_prediction([[0.1]], 0.1, 1.0)
    with pytest.raises(ValueError, match="finite"):
        stable_prediction([np.inf], 0.1, 1.0)


def test_beta_below_learner_rate_rejected():
    X, y = data(n=8, d=1)
    sgd = ProjectedSGD(HuberLoss(0.5), 0.5, 1.0)
    need = sgd.stability_rate(4)                       # k = 2 parts of 4
    StablePredictor(sgd, need, 1.0, k=2, rng=0).fit(X, y)
    with pytest.raises(ValueError, match="The 'beta' parameter of StablePredictor must be at least "
                                         "the learner's proven rate"):
        StablePredictor(sgd, math.nextafter(need, 0.0), 1.0, k=2, rng=0).fit(X, y)


def test_learner_returning_bad_output():
    X, y = data()
    sp = StablePredictor(lambda X, y: (lambda Xq: np.zeros((len(Xq), 2))), 0.1, 1.0).fit(X, y)
    with pytest.raises(RuntimeError, match="one finite float per row"):
        sp.predict(X)


# ----------------------------------------------------------- determinism ----

def test_deterministic_for_a_seed():
    X, y = data()
    outs = [StablePredictor(mean_learner, 0.1, 1.0, k=3, rng=7).fit(X, y).predict(X)
            for _ in range(2)]
    np.testing.assert_array_equal(*outs)
    other = StablePredictor(mean_learner, 0.1, 1.0, k=3, rng=8).fit(X, y).predict(X)
    assert not np.array_equal(outs[0], other)
    gen = np.random.default_rng(3)
    a = stable_prediction([0.2, 0.4], 0.1, 1.0, rng=gen)
    b = stable_prediction([0.2, 0.4], 0.1, 1.0, rng=gen)          # shared stream moves on
    assert not np.array_equal(a, b)


def test_release_is_the_library_mechanism():
    """k = 1 draws nothing for the partition: predict = laplace_mechanism / gaussian_mechanism."""
    X, y = data()
    values = np.full(len(X), float(np.mean(y)))
    sp = StablePredictor(mean_learner, 0.1, 0.7, output_range=None, rng=11).fit(X, y)
    np.testing.assert_array_equal(sp.predict(X),
                                  laplace_mechanism(values, 0.7, sensitivity=0.1, rng=11))
    sp = StablePredictor(mean_learner, 0.1, None, rho=0.3, noise="gaussian", output_range=None,
                         rng=12).fit(X, y)
    np.testing.assert_array_equal(sp.predict(X),
                                  gaussian_mechanism(values, 0.3, sensitivity=0.1, rng=12))


def test_partition_is_disjoint_and_balanced():
    X, y = data(n=11)
    sp = StablePredictor(mean_learner, 0.1, 1.0, k=3, rng=0).fit(X, y)
    allidx = np.concatenate(sp._parts)
    assert sorted(allidx.tolist()) == list(range(11))
    assert sorted(len(p) for p in sp._parts) == [3, 4, 4]


def test_sensitivity_and_scale():
    sp = StablePredictor(mean_learner, 0.3, 0.5, k=3)
    assert sp.sensitivity == lemma_4_6_averaged_rate(0.3, 3)
    assert Fraction(sp.sensitivity) >= Fraction(0.3) / 3
    assert sp.scale == laplace_scale(0.5, sp.sensitivity)
    assert sp.guarantee == S.Guarantee("epsilon-DP", 0.5, None, None)
    g = StablePredictor(mean_learner, 0.3, 0.5, delta=1e-6, noise="gaussian", secure=False)
    assert g.guarantee.kind == "(epsilon, delta)-DP"
    assert g.scale == classical_gaussian_sigma(0.3, 0.5, 1e-6)
    s = StablePredictor(mean_learner, 0.3, 0.5, delta=1e-6, noise="gaussian")
    rho = S._rho_for_dp(0.5, 1e-6)
    assert s.scale == gaussian_sigma_zcdp(rho, 0.3)
    assert zcdp_to_dp(rho, 1e-6) <= 0.5
    assert 0.99 < s.scale / g.scale < 1.01


@pytest.mark.parametrize("epsilon,delta", [(0.1, 1e-5), (0.5, 1e-8), (0.99, 0.5), (1e-6, 1e-300)])
def test_rho_for_dp_is_certified_and_nearly_largest(epsilon, delta):
    rho = S._rho_for_dp(epsilon, delta)
    assert 0 < rho and zcdp_to_dp(rho, delta) <= epsilon
    assert zcdp_to_dp(rho * (1 + 1e-9), delta) > epsilon or rho * (1 + 1e-9) == rho


def test_secure_classical_gaussian_is_the_grid_release():
    values = np.array([0.2, 0.7, 0.5])
    got = stable_prediction(values, 0.05, 0.5, delta=1e-5, noise="gaussian", output_range=None, rng=4)
    want = gaussian_mechanism(values, S._rho_for_dp(0.5, 1e-5), sensitivity=0.05, rng=4)
    assert np.array_equal(got, want)
    g = gaussian_grid(S._rho_for_dp(0.5, 1e-5), 0.05, 3).step
    assert np.all(got == np.round(got / g) * g)
    old = stable_prediction(values, 0.05, 0.5, delta=1e-5, noise="gaussian", output_range=None, rng=4,
                            secure=False)
    ref = np.random.default_rng(4)
    assert np.array_equal(old, values + ref.normal(0.0, classical_gaussian_sigma(0.05, 0.5, 1e-5), 3))


def test_secure_false_is_textbook_for_every_noise():
    values = np.array([0.2, 0.7])
    out = stable_prediction(values, 0.05, 1.0, output_range=None, rng=3, secure=False)
    assert np.array_equal(out, laplace_mechanism(values, 1.0, sensitivity=0.05, rng=3, secure=False))
    with pytest.raises(ValueError, match="secure"):
        stable_prediction(values, 0.05, 1.0, secure="yes")


def test_clipping():
    out = stable_prediction(np.linspace(-2, 3, 50), 0.5, 0.1, output_range=(0.0, 1.0), rng=0)
    assert out.min() >= 0.0 and out.max() <= 1.0
    out = stable_prediction(np.zeros(50), 0.5, 0.1, output_range=None, rng=0)
    assert out.min() < 0.0
    out = stable_prediction(np.zeros(50), 0.5, 0.1, output_range=(-math.inf, 0.0), rng=0)
    assert out.max() <= 0.0 and out.min() < -1.0


# ------------------------------------------------------------- noise law ----

def test_laplace_noise_law_and_clipping_atom():
    """KS test of the unclipped noise and a binomial test of the upper clipping atom.

    Family-wise false-failure rate ALPHA, split evenly: the KS critical value is
    the exact upper ALPHA/2 quantile of D_n (scipy.stats.kstwo); the atom count
    must lie in the central 1 - ALPHA/2 binomial interval of its exact law.
    """
    n = 20_000
    sp = StablePredictor(mean_learner, 0.2, 0.5, output_range=None, rng=2024)
    X = np.zeros((n, 1))
    sp.fit(X, np.full(n, 0.25))
    noise = sp.predict(X) - 0.25
    stat = scipy.stats.kstest(noise, scipy.stats.laplace(scale=sp.scale).cdf).statistic
    assert stat <= scipy.stats.kstwo.isf(ALPHA / 2, n)
    hi = 0.6
    sp = StablePredictor(mean_learner, 0.2, 0.5, output_range=(0.0, hi), rng=2025).fit(X, np.full(n, 0.25))
    atoms = int(np.sum(sp.predict(X) == hi))
    p = 0.5 * math.exp(-(hi - 0.25) / sp.scale)               # P(0.25 + Z >= hi)
    lo_q, hi_q = scipy.stats.binom.interval(1 - ALPHA / 2, n, p)
    assert lo_q <= atoms <= hi_q


# ------------------------------------------------------------ the bounds ----

floats = st.floats(min_value=1e-6, max_value=1e3, allow_nan=False, allow_infinity=False)


@given(L=floats, beta=floats, eps=floats)
def test_lipschitz_extra_loss_is_the_upward_rounded_formula(L, beta, eps):
    got = lemma_4_5_lipschitz_extra_loss(L, beta, eps)
    exact = Fraction(L) * Fraction(beta) / Fraction(eps)
    assert Fraction(got) >= exact and Fraction(math.nextafter(got, 0.0)) < exact


@given(s=floats, beta=floats, eps=floats)
def test_smooth_extra_loss_is_the_upward_rounded_formula(s, beta, eps):
    got = lemma_4_5_smooth_extra_loss(s, beta, eps)
    exact = Fraction(s) * Fraction(beta) ** 2 / Fraction(eps) ** 2
    assert Fraction(got) >= exact and Fraction(math.nextafter(got, 0.0)) < exact


@given(beta=floats, k=st.integers(1, 10_000))
def test_averaged_rate_rounded_up(beta, k):
    got = lemma_4_6_averaged_rate(beta, k)
    assert Fraction(got) >= Fraction(beta) / k > Fraction(math.nextafter(got, 0.0))


@given(beta=st.floats(1e-4, 1e4), eps=st.floats(1e-3, 0.999), delta=st.floats(1e-300, 0.999))
def test_classical_sigma_never_below_mpmath(beta, eps, delta):
    got = classical_gaussian_sigma(beta, eps, delta)
    with mpmath.workdps(60):
        exact = (mpmath.mpf(beta) * mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(delta)))
                 / mpmath.mpf(eps))
        assert mpmath.mpf(got) >= exact
        assert (mpmath.mpf(got) - exact) / exact < 1e-15


def test_extra_loss_bound_of_the_predictor():
    # the textbook release: Lemma 4.5's constants
    sp = StablePredictor(mean_learner, 0.2, 0.5, output_range=None, secure=False)
    b = sp.scale
    assert sp.extra_loss_bound(lipschitz=1.0) == lemma_4_5_lipschitz_extra_loss(1.0, 0.2, 0.5) == b
    assert sp.extra_loss_bound(smoothness=0.25) >= 0.25 * b * b
    assert sp.extra_loss_bound(lipschitz=1.0, smoothness=0.25) == min(b, 0.25 * b * b)
    g = StablePredictor(mean_learner, 0.2, None, rho=0.5, noise="gaussian", output_range=None, secure=False)
    with mpmath.workdps(50):
        exact = mpmath.mpf(g.scale) * mpmath.sqrt(2 / mpmath.pi)
        assert mpmath.mpf(g.extra_loss_bound(lipschitz=1.0)) >= exact
        assert mpmath.mpf(g.extra_loss_bound(lipschitz=1.0)) - exact < 1e-15 * exact
    assert g.extra_loss_bound(smoothness=2.0) >= g.scale ** 2
    # the float-safe default: grid scale and rounding offset included
    sp = StablePredictor(mean_learner, 0.2, 0.5, output_range=None)
    assert b * (1 + 2**-10) + 0.2 * 2**-11 <= sp.extra_loss_bound(lipschitz=1.0) <= b * 1.002
    assert sp.extra_loss_bound(lipschitz=1.0, smoothness=0.25) >= 0.25 * b * b
    with pytest.raises(ValueError, match="The 'lipschitz' parameter of StablePredictor.extra_loss_bound"):
        sp.extra_loss_bound(smoothness=0.25)
    g = StablePredictor(mean_learner, 0.2, None, rho=0.5, noise="gaussian", output_range=None)
    assert g.scale * (1 + 2**-9) <= g.extra_loss_bound(lipschitz=1.0) <= g.scale * 1.003
    with pytest.raises(ValueError, match="The 'lipschitz' parameter of StablePredictor.extra_loss_bound"):
        sp.extra_loss_bound()
    with pytest.raises(ValueError, match="The 'smoothness' parameter"):
        sp.extra_loss_bound(lipschitz=1.0, smoothness=-1.0)


def test_secure_extra_loss_bound_holds_on_data():
    """Mean |released - prediction| of the float-safe release stays below the Lipschitz bound (L = 1).

    One-sided z-test on 40,000 releases with the sample standard deviation,
    at false-failure rate 1e-6 (z = 4.75; the mean of |noise| has all moments,
    so the normal approximation is accurate at this n).
    """
    from refdp.prediction.stability import stable_prediction
    rng = np.random.default_rng(77)
    for kwargs in ({"epsilon": 0.5}, {"rho": 0.5, "noise": "gaussian"}, {"epsilon": 0.5, "delta": 1e-5,
                                                                        "noise": "gaussian"}):
        sp = StablePredictor(mean_learner, 0.2, kwargs.get("epsilon"),
                             **{k: v for k, v in kwargs.items() if k != "epsilon"}, output_range=None)
        bound = sp.extra_loss_bound(lipschitz=1.0)
        values = np.full(40_000, 0.3141592653589793)
        out = stable_prediction(values, 0.2, kwargs.get("epsilon"), rng=rng, output_range=None,
                                **{k: v for k, v in kwargs.items() if k != "epsilon"})
        dev = np.abs(out - values)
        assert dev.mean() - 4.75 * dev.std() / np.sqrt(dev.size) <= bound, (kwargs, dev.mean(), bound)
        assert dev.mean() >= 0.5 * bound                     # the bound is not vacuous


def test_laplace_absolute_moments():
    """E|Z| = b and E Z^2 / 2 = b^2 for Z ~ Lap(b) (the constants of Lemma 4.5), by quadrature."""
    with mpmath.workdps(40):
        b = mpmath.mpf(3) / 7
        dens = lambda z: mpmath.exp(-abs(z) / b) / (2 * b)        # noqa: E731
        m1 = mpmath.quad(lambda z: abs(z) * dens(z), [-mpmath.inf, 0, mpmath.inf])
        m2 = mpmath.quad(lambda z: z * z * dens(z), [-mpmath.inf, 0, mpmath.inf])
        assert abs(m1 - b) < mpmath.mpf(10) ** -35
        assert abs(m2 / 2 - b * b) < mpmath.mpf(10) ** -35


def test_clipping_can_hurt_a_loss_minimised_outside_the_range():
    """The condition of the clipping remark matters: logistic loss has no minimiser in [-1, 1]."""
    loss = lambda z: math.log1p(math.exp(-z))                     # label +1
    assert loss(min(max(5.0, -1.0), 1.0)) > loss(5.0)


def test_private_mechanisms_resolve():
    for name in S.PRIVATE_MECHANISMS:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
                break
            except ImportError:
                continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        assert callable(obj)


def test_averaged_stability_on_random_neighbours():
    """Replace-one neighbours with a fixed seed (same partition): averaged scores differ <= beta/k."""
    rng = np.random.default_rng(5)
    sgd = ProjectedSGD(HuberLoss(0.5), 1.0, 1.0)
    for _ in range(50):
        X = rng.uniform(-0.7, 0.7, size=(9, 1))
        y = rng.normal(size=9)
        X2, y2 = X.copy(), y.copy()
        i = rng.integers(9)
        X2[i], y2[i] = rng.uniform(-0.7, 0.7), rng.normal()
        beta = sgd.stability_rate(3)
        a = StablePredictor(sgd, beta, 1.0, k=3, rng=1).fit(X, y)
        b = StablePredictor(sgd, beta, 1.0, k=3, rng=1).fit(X2, y2)
        q = np.linspace(-1, 1, 9)[:, None]
        # float runs: rounding error far below the 1e-12 allowance
        assert np.max(np.abs(a._score(q) - b._score(q))) <= a.sensitivity + 1e-12


def test_erm_learner_in_the_wrapper():
    X, y = data(n=30, d=2)
    erm = RegularizedERM(HuberLoss(0.5), 0.5, 1.0)
    sp = StablePredictor(erm, erm.stability_rate(10), 1.0, k=3, output_range=(0, 1), rng=0)
    out = sp.fit(X, y).predict(X)
    assert out.shape == (30,) and np.all((0 <= out) & (out <= 1))
