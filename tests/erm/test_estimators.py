"""refdp.erm estimators: the scikit-learn protocol, labels, fitted state, validation, estimator checks."""
import doctest
import importlib
import pickle
import warnings

import numpy as np
import pytest

from refdp.erm import (HuberHingeLoss, LogisticLoss, PrivateHuberSVM, PrivateLogisticRegression,
                       objective_perturbation, output_perturbation)
from refdp.erm._sklearn_compat import NotFittedError

ESTIMATORS = [PrivateLogisticRegression, PrivateHuberSVM]


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    y = np.where(X @ np.array([1.0, -2.0, 0.5]) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("method", ["objective", "output"])
def test_fit_equals_the_function_release(cls, method):
    X, y = _data()
    est = cls(epsilon=0.7, regularization=0.05, method=method, rng=3).fit(X, y)
    loss = LogisticLoss() if cls is PrivateLogisticRegression else HuberHingeLoss(0.5)
    release = objective_perturbation if method == "objective" else output_perturbation
    ref = release(X, y, loss, epsilon=0.7, regularization=0.05, rng=3)
    assert np.array_equal(est.result_.theta, ref.theta)
    assert est.result_.method == method and est.result_.loss == loss
    assert est.coef_.shape == (1, 3) and np.array_equal(est.coef_[0], ref.theta)
    assert np.array_equal(est.decision_function(X), X @ ref.theta)
    assert np.array_equal(est.predict(X), np.where(X @ ref.theta > 0, 1, -1))
    assert est.score(X, y) == np.mean(est.predict(X) == y)


def test_declared_zero_one_labels_are_mapped():
    X, y = _data()
    a = PrivateLogisticRegression(classes=(0, 1), rng=0).fit(X, (y + 1) // 2)
    b = PrivateLogisticRegression(rng=0).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_)
    assert set(np.unique(a.predict(X))) <= {0, 1} and a.classes_.tolist() == [0, 1]
    p = a.predict_proba(X)
    assert np.allclose(p.sum(axis=1), 1.0) and np.array_equal(p[:, 1] > 0.5, a.predict(X) == 1)


def test_string_labels_declared_and_inferred():
    X, y = _data()
    names = np.where(y > 0, "yes", "no")
    a = PrivateHuberSVM(classes=("no", "yes"), rng=0).fit(X, names)
    b = PrivateHuberSVM(classes="infer", rng=0).fit(X, names)
    assert np.array_equal(a.coef_, b.coef_) and b.classes_.tolist() == ["no", "yes"]


def test_norm_bound_and_clip_are_part_of_the_fit():
    X, y = _data()
    big = 4 * X                                # norms up to 3.5
    with pytest.raises(ValueError, match=r"The 'X' parameter of PrivateLogisticRegression.fit must be an "
                                         r"array of rows with Euclidean norm at most 'norm_bound' = 1.0"):
        PrivateLogisticRegression(rng=0).fit(big, y)
    scaled = PrivateLogisticRegression(norm_bound=4.0, rng=0).fit(big, y)
    plain = PrivateLogisticRegression(rng=0).fit(X, y)
    assert np.allclose(scaled.result_.theta, plain.result_.theta)
    assert np.allclose(scaled.decision_function(big), plain.decision_function(X))
    assert scaled.result_.norm_bound == 4.0 and not scaled.result_.clip
    clipped = PrivateLogisticRegression(clip=True, rng=0).fit(big, y)
    assert clipped.result_.clip


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("params, match", [
    ({"epsilon": 0}, r"The 'epsilon' parameter of Private\w+.fit must be a float in the range \(0, inf\). "
                     r"Got 0.0 instead"),
    ({"epsilon": -1.0}, r"'epsilon' .* Got -1.0 instead"),
    ({"regularization": 0.0}, r"The 'regularization' parameter of Private\w+.fit must be a float in the "
                              r"range \(0, inf\). Got 0.0"),
    ({"method": "sensitivity"}, r"The 'method' parameter of Private\w+.fit must be one of 'objective', "
                                r"'output'. Got 'sensitivity' instead"),
    ({"classes": (1, 1)}, r"The 'classes' parameter"),
    ({"classes": (0, 1, 2)}, r"The 'classes' parameter"),
    ({"tol": -1.0}, r"The 'tol' parameter"),
])
def test_parameter_validation_at_fit(cls, params, match):
    X, y = _data(20)
    est = cls(**params)                        # the constructor only stores (scikit-learn protocol)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


@pytest.mark.parametrize("h", [0.0, -0.5])
def test_huber_width_validation(h):
    X, y = _data(20)
    with pytest.raises(ValueError, match=r"The 'huber_width' parameter of PrivateHuberSVM.fit must be a "
                                         r"float in the range \(0, inf\)"):
        PrivateHuberSVM(huber_width=h).fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_data_validation(cls):
    X, y = _data(20)
    with pytest.raises(ValueError, match=r"The 'y' parameter of Private\w+.fit must be an array of labels "
                                         r"among the declared 'classes' \[-1, 1\]. Got 0 at position"):
        cls().fit(X, (y + 1) // 2)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"finite numbers \(no NaN or inf\). Got nan at position \(0, 0\)"):
        cls().fit(Xn, y)
    with pytest.raises(ValueError, match=r"requires y to be passed"):
        cls().fit(X, None)
    with pytest.raises(ValueError, match=r"exactly two distinct labels .* Got 3 class\(es\) instead"):
        cls(classes="infer").fit(X, np.arange(20) % 3)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        cls().predict(X)
    est = cls().fit(X, y)
    with pytest.raises(ValueError, match=r"X has 2 features, but Private\w+ is expecting 3 features"):
        est.predict(X[:, :2])


def test_params_protocol_and_repr():
    est = PrivateHuberSVM(epsilon=2.0, huber_width=0.25, rng=1)
    params = est.get_params()
    assert params == {"epsilon": 2.0, "regularization": 0.01, "method": "output", "huber_width": 0.25,
                      "classes": (-1, 1), "norm_bound": 1.0, "clip": False, "tol": 1e-8, "rng": 1,
                      "improved": True, "rho": None}
    assert est.set_params(epsilon=3.0) is est and est.epsilon == 3.0
    assert repr(type(est)(**est.get_params())) == repr(est)
    with pytest.raises(ValueError, match="The 'gamma' parameter of PrivateHuberSVM must be a parameter name"):
        est.set_params(gamma=1.0)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_fitted_state_is_public_only(cls):
    X, y = _data()
    est = cls(rng=0).fit(X, y)
    fitted = {k for k in vars(est) if k.endswith("_")}
    assert fitted == {"result_", "classes_", "n_features_in_", "coef_", "intercept_"}
    # the non-private minimiser is nowhere in the state: theta differs from it by the noise
    assert np.array_equal(est.coef_[0] * est.result_.norm_bound, est.result_.theta)
    clone = pickle.loads(pickle.dumps(est))
    assert np.array_equal(clone.predict(X), est.predict(X))


def test_generator_rng_draws_fresh_noise_each_fit_and_int_seed_repeats():
    X, y = _data()
    g = PrivateLogisticRegression(rng=np.random.default_rng(0))
    assert not np.array_equal(g.fit(X, y).coef_, g.fit(X, y).coef_)
    s = PrivateLogisticRegression(rng=0)
    assert np.array_equal(s.fit(X, y).coef_, s.fit(X, y).coef_)


@pytest.mark.parametrize("name", ["refdp.erm.estimators", "refdp.utils.losses", "refdp.erm.output_perturbation",
                                  "refdp.erm.objective_perturbation", "refdp.erm.objective_perturbation_zcdp",
                                  "refdp.erm.random_features", "refdp.erm.tuning"])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------ scikit-learn estimator checks ----

sklearn = pytest.importorskip("sklearn", reason="scikit-learn is not installed")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from refdp.erm import RandomFourierFeatures  # noqa: E402

# classes="infer" and clip=True: the checks use arbitrary label sets and unnormalised features;
# an int seed makes every fit reproducible (the checks compare repeated fits).
SK_ESTIMATORS = [
    PrivateLogisticRegression(epsilon=2.0, regularization=0.1, classes="infer", clip=True, rng=0),
    PrivateLogisticRegression(epsilon=2.0, regularization=0.1, method="output", classes="infer", clip=True,
                              rng=0),
    PrivateHuberSVM(epsilon=2.0, regularization=0.1, classes="infer", clip=True, rng=0),
    PrivateHuberSVM(epsilon=2.0, regularization=0.1, method="output", classes="infer", clip=True, rng=0),
    RandomFourierFeatures(n_components=20, rng=0),
]


with warnings.catch_warnings():   # "does not inherit from BaseEstimator": by design (no import)
    warnings.simplefilter("ignore", UserWarning)
    _CHECKS = parametrize_with_checks(SK_ESTIMATORS)


@pytest.mark.filterwarnings("ignore::UserWarning")
@_CHECKS
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_scikit_learn_pipeline_and_grid_search():
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline

    X, y = _data(600)
    pipe = make_pipeline(RandomFourierFeatures(n_components=50, gamma=2.0, rng=0),
                         PrivateLogisticRegression(epsilon=5.0, regularization=0.01, rng=0))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and np.all((0 <= scores) & (scores <= 1))
