"""Valid example calls of refdp.erm for the generated fuzz test (tiny and fast)."""
import dataclasses

import numpy as np

from refdp.erm import (
    HuberHingeLoss, LogisticLoss, MarginLoss, ObjectivePerturbationBudget, ObjectivePerturbationZCDPBudget,
    PrivateConfidenceIntervals, PrivateERMResult, PrivateHuberSVM, PrivateLogisticRegression, PrivateMatrix,
    RandomFourierFeatures, TuningResult, check_loss, confidence_intervals, frobenius_sensitivity,
    objective_perturbation, objective_perturbation_budget, objective_perturbation_zcdp,
    objective_perturbation_zcdp_budget, output_perturbation, output_perturbation_rate,
    output_perturbation_sensitivity, output_perturbation_sigma, output_perturbation_zcdp,
    private_confidence_intervals, private_gradient_covariance, private_hessian, private_tuning,
    release_objective_perturbation, release_objective_perturbation_zcdp, release_output_perturbation,
    release_output_perturbation_zcdp, split_budget, split_parts, tuning_selection_distribution,
    vec_f_sensitivity,
)

P = "refdp.erm."


def _data(n=16):
    t = np.linspace(-1.0, 1.0, n)
    X = 0.6 * np.column_stack([t, np.cos(3.0 * t)])          # every row of norm < 1
    y = np.where(t + 0.1 * np.sin(7.0 * t) > 0, 1, -1)
    return X, y


X, Y = _data()
XQ = np.array([[0.1, -0.2], [-0.3, 0.4]])


def _fields(result):
    """The constructor arguments of a dataclass result (nested results kept as objects)."""
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}


def _logistic(**kw):
    args = dict(epsilon=1.0, regularization=0.1, rng=0)
    args.update(kw)
    return PrivateLogisticRegression(**args).fit(X, Y)


def _huber():
    return PrivateHuberSVM(epsilon=1.0, regularization=0.1, rng=0).fit(X, Y)


def _release():
    return objective_perturbation(X, Y, LogisticLoss(), epsilon=1.0, regularization=0.1, rng=0)


def _intervals():
    return private_confidence_intervals(X, Y, LogisticLoss(), regularization=0.1, epsilon=3.0, rng=0)


def _fitted(cls):
    """Build and fit: the estimators follow scikit-learn's protocol (``__init__`` stores its
    arguments unchanged, ``fit`` validates them against the declaration)."""
    def build_and_fit(**params):
        return cls(**params).fit(X, Y)

    return build_and_fit


_ESTIMATOR = dict(epsilon=1.0, regularization=0.1, method="objective", classes=(-1, 1), norm_bound=1.0,
                  clip=False, tol=1e-8, rng=0, improved=True, rho=None)

EXAMPLES = {
    # losses
    P + "MarginLoss": lambda: (MarginLoss, dict()),
    P + "LogisticLoss": lambda: (LogisticLoss, dict()),
    P + "HuberHingeLoss": lambda: (HuberHingeLoss, dict(h=0.5)),
    P + "check_loss": lambda: (check_loss, dict(loss=LogisticLoss(), owner="check_loss")),
    # Algorithm 1 (output perturbation)
    P + "output_perturbation": lambda: (output_perturbation, dict(
        X=X, y=Y, loss=LogisticLoss(), epsilon=1.0, regularization=0.1, tol=1e-8, norm_bound=1.0, clip=False,
        rng=0, secure=True, classes=(-1, 1))),
    P + "output_perturbation_rate": lambda: (output_perturbation_rate, dict(
        epsilon=1.0, n=100, regularization=0.1, tol=1e-8)),
    P + "output_perturbation_sensitivity": lambda: (output_perturbation_sensitivity, dict(
        n=100, regularization=0.1, tol=1e-8)),
    P + "release_output_perturbation": lambda: (release_output_perturbation, dict(
        epsilon=1.0, Z=X, ys=Y.astype(float), loss=LogisticLoss(), regularization=0.1, tol=1e-8, rng=0,
        norm_bound=1.0, clip=False, secure=True)),
    P + "output_perturbation_sigma": lambda: (output_perturbation_sigma, dict(
        rho=0.5, n=100, regularization=0.1, tol=1e-8)),
    P + "output_perturbation_zcdp": lambda: (output_perturbation_zcdp, dict(
        X=X, y=Y, loss=LogisticLoss(), rho=0.5, regularization=0.1, tol=1e-8, norm_bound=1.0, clip=False,
        rng=0, secure=True, classes=(-1, 1))),
    P + "release_output_perturbation_zcdp": lambda: (release_output_perturbation_zcdp, dict(
        rho=0.5, Z=X, ys=Y.astype(float), loss=LogisticLoss(), regularization=0.1, tol=1e-8, rng=0,
        norm_bound=1.0, clip=False, secure=True)),
    # Algorithm 2 (objective perturbation)
    P + "objective_perturbation": lambda: (objective_perturbation, dict(
        X=X, y=Y, loss=LogisticLoss(), epsilon=1.0, regularization=0.1, tol=1e-8, norm_bound=1.0, clip=False,
        rng=0, improved=True, classes=(-1, 1), secure=True)),
    P + "objective_perturbation_budget": lambda: (objective_perturbation_budget, dict(
        epsilon=1.0, curvature=0.25, n=100, regularization=0.1, improved=True)),
    P + "ObjectivePerturbationBudget": lambda: (ObjectivePerturbationBudget, objective_perturbation_budget(
        1.0, 0.25, 100, 0.1)._asdict()),
    P + "release_objective_perturbation": lambda: (release_objective_perturbation, dict(
        budget=objective_perturbation_budget(1.0, 0.25, len(X), 0.1), Z=X, ys=Y.astype(float),
        loss=LogisticLoss(), regularization=0.1, tol=1e-8, rng=0, norm_bound=1.0, clip=False, secure=True)),
    P + "objective_perturbation_zcdp": lambda: (objective_perturbation_zcdp, dict(
        X=X, y=Y, loss=LogisticLoss(), rho=0.5, regularization=0.1, improved=True, tol=1e-8, norm_bound=1.0,
        clip=False, rng=0, classes=(-1, 1), secure=True)),
    P + "objective_perturbation_zcdp_budget": lambda: (objective_perturbation_zcdp_budget, dict(
        rho=0.5, curvature=0.25, n=100, regularization=0.1, improved=True)),
    P + "ObjectivePerturbationZCDPBudget": lambda: (
        ObjectivePerturbationZCDPBudget, objective_perturbation_zcdp_budget(0.5, 0.25, 100, 0.1)._asdict()),
    P + "release_objective_perturbation_zcdp": lambda: (release_objective_perturbation_zcdp, dict(
        budget=objective_perturbation_zcdp_budget(0.5, 0.25, len(X), 0.1), Z=X, ys=Y.astype(float),
        loss=LogisticLoss(), regularization=0.1, tol=1e-8, rng=0, norm_bound=1.0, clip=False, secure=True)),
    P + "PrivateERMResult": lambda: (PrivateERMResult, _fields(_release())),
    # estimators
    P + "PrivateLogisticRegression": lambda: (_fitted(PrivateLogisticRegression), dict(_ESTIMATOR)),
    P + "PrivateLogisticRegression.fit": lambda: (PrivateLogisticRegression(epsilon=1.0, regularization=0.1,
                                                                            rng=0).fit, dict(X=X, y=Y)),
    P + "PrivateLogisticRegression.predict": lambda: (_logistic().predict, dict(X=XQ)),
    P + "PrivateLogisticRegression.predict_proba": lambda: (_logistic().predict_proba, dict(X=XQ)),
    P + "PrivateLogisticRegression.decision_function": lambda: (_logistic().decision_function, dict(X=XQ)),
    P + "PrivateLogisticRegression.score": lambda: (_logistic().score, dict(X=XQ, y=np.array([1, -1]))),
    P + "PrivateHuberSVM": lambda: (_fitted(PrivateHuberSVM), dict(_ESTIMATOR, huber_width=0.5)),
    P + "PrivateHuberSVM.fit": lambda: (PrivateHuberSVM(epsilon=1.0, regularization=0.1, rng=0).fit,
                                        dict(X=X, y=Y)),
    P + "PrivateHuberSVM.predict": lambda: (_huber().predict, dict(X=XQ)),
    P + "PrivateHuberSVM.decision_function": lambda: (_huber().decision_function, dict(X=XQ)),
    P + "PrivateHuberSVM.score": lambda: (_huber().score, dict(X=XQ, y=np.array([1, -1]))),
    # Algorithm 3 (random features)
    P + "RandomFourierFeatures": lambda: (_fitted(RandomFourierFeatures), dict(n_components=4, gamma=1.0, rng=0)),
    P + "RandomFourierFeatures.fit": lambda: (RandomFourierFeatures(4, rng=0).fit, dict(X=X, y=None)),
    P + "RandomFourierFeatures.transform": lambda: (RandomFourierFeatures(4, rng=0).fit(X).transform,
                                                    dict(X=XQ)),
    # Algorithm 4 (tuning)
    P + "private_tuning": lambda: (private_tuning, dict(
        estimator=PrivateLogisticRegression(epsilon=1.0, regularization=0.1, classes=(-1, 1)), X=X, y=Y,
        regularizations=np.array([0.1, 1.0]), rng=0)),
    P + "split_parts": lambda: (split_parts, dict(n=10, parts=3, rng=0)),
    P + "tuning_selection_distribution": lambda: (tuning_selection_distribution, dict(
        mistakes=np.array([3, 1, 2]), epsilon=1.0, exact=False, dps=30, ctx=None)),
    P + "TuningResult": lambda: (TuningResult, dict(estimator=_logistic(), index=0, regularization=0.1)),
    # private matrices and confidence intervals (Wang, Kifer and Lee)
    P + "frobenius_sensitivity": lambda: (frobenius_sensitivity, dict(n=100, bound=1.0)),
    P + "vec_f_sensitivity": lambda: (vec_f_sensitivity, dict(n=100, bound=1.0)),
    P + "private_hessian": lambda: (private_hessian, dict(
        X=X, y=Y, loss=LogisticLoss(), theta=np.array([0.5, -0.25]), regularization=0.1, norm_bound=1.0,
        clip=False, classes=(-1, 1), rng=0, secure=True, epsilon=1.0, rho=None)),
    P + "private_gradient_covariance": lambda: (private_gradient_covariance, dict(
        X=X, y=Y, loss=LogisticLoss(), theta=np.array([0.5, -0.25]), norm_bound=1.0, clip=False,
        classes=(-1, 1), rng=0, secure=True, epsilon=1.0, rho=None)),
    P + "PrivateMatrix": lambda: (PrivateMatrix, _fields(private_hessian(
        X, Y, LogisticLoss(), np.array([0.5, -0.25]), 0.1, epsilon=1.0, rng=0))),
    # ``name`` is the name the messages give to ``shares``
    P + "split_budget": lambda: (split_budget, dict(total=1.0, shares=(0.25, 0.75), owner="split_budget",
                                                    name="shares")),
    P + "confidence_intervals": lambda: (confidence_intervals, dict(
        model=_release(), X=X, y=Y, budget=(0.5, 0.5), total=None, level=0.95, delta=None, monte_carlo=False,
        n_samples=100, rng=0, secure=True)),
    P + "private_confidence_intervals": lambda: (private_confidence_intervals, dict(
        X=X, y=Y, loss=LogisticLoss(), regularization=0.1, epsilon=3.0, rho=None, method="objective",
        improved=True, split=(0.8, 0.1, 0.1), tol=1e-8, norm_bound=1.0, clip=False, classes=(-1, 1),
        level=0.95, delta=None, monte_carlo=False, n_samples=100, rng=0, secure=True)),
    P + "PrivateConfidenceIntervals": lambda: (PrivateConfidenceIntervals, _fields(_intervals())),
}
