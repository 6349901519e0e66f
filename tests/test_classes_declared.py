"""One rule for ``classes`` across refdp: the declared labels, written out, never None, never inferred.

Every estimator and release that reads labels takes ``classes``: an int
``C >= 2`` (``0..C-1``) or a sequence of distinct labels in the order of the
output columns, ``classes[1]`` the positive label of a binary one. The
default is the pair written in the signature: ``(0, 1)`` for prediction and
PATE, ``(-1, 1)`` for ERM. ``None`` declares nothing and is refused with the
standard message.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from refdp.erm import (LogisticLoss, PrivateHuberSVM, PrivateLogisticRegression, objective_perturbation,
                       objective_perturbation_zcdp, output_perturbation, output_perturbation_zcdp,
                       private_confidence_intervals, private_gradient_covariance, private_hessian)
from refdp.pate import PATETeachers
from refdp.prediction import AveragedPrediction, ProjectedWalk, SoftMajority


class Majority:
    def fit(self, X, y):
        self.label = y[0] if len(y) else 0
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


PREDICTION = (SoftMajority, AveragedPrediction, PATETeachers, ProjectedWalk)
ERM_FUNCTIONS = (output_perturbation, output_perturbation_zcdp, objective_perturbation,
                 objective_perturbation_zcdp, private_confidence_intervals, private_hessian,
                 private_gradient_covariance)
ERM_ESTIMATORS = (PrivateLogisticRegression, PrivateHuberSVM)


def _default(obj):
    return inspect.signature(obj).parameters["classes"].default


def test_every_default_is_a_written_pair():
    for obj in PREDICTION:
        assert _default(obj) == (0, 1), obj
    for obj in ERM_FUNCTIONS + ERM_ESTIMATORS:
        assert _default(obj) == (-1, 1), obj


def _none_message(owner):
    return rf"The 'classes' parameter of {owner} must be .*such as \(0, 1\).*Got None instead"


def test_none_is_refused_by_the_prediction_estimators():
    with pytest.raises(ValueError, match=_none_message("SoftMajority")):
        SoftMajority(1.0, 3, Majority, classes=None)
    with pytest.raises(ValueError, match=_none_message("AveragedPrediction")):
        AveragedPrediction(1.0, 3, Majority, classes=None)
    with pytest.raises(ValueError, match=_none_message("PATETeachers")):
        PATETeachers(3, Majority, classes=None)
    with pytest.raises(ValueError, match=_none_message("ProjectedWalk")):
        ProjectedWalk(1.0, 0.1, classes=None).fit([0.0, 1.0], [0, 1])


def test_none_is_refused_by_the_erm_releases():
    X = np.array([[0.5, 0.0], [-0.5, 0.1], [0.2, 0.3], [0.0, -0.4]])
    y = np.array([1, -1, 1, -1])
    loss = LogisticLoss()
    calls = {
        "output_perturbation": lambda: output_perturbation(X, y, loss, epsilon=1.0, regularization=0.1,
                                                           classes=None, rng=0),
        "output_perturbation_zcdp": lambda: output_perturbation_zcdp(X, y, loss, rho=1.0, regularization=0.1,
                                                                     classes=None, rng=0),
        "objective_perturbation": lambda: objective_perturbation(X, y, loss, epsilon=1.0, regularization=0.1,
                                                                 classes=None, rng=0),
        "objective_perturbation_zcdp": lambda: objective_perturbation_zcdp(X, y, loss, rho=1.0,
                                                                           regularization=0.1, classes=None,
                                                                           rng=0),
        "private_confidence_intervals": lambda: private_confidence_intervals(X, y, loss, regularization=0.1,
                                                                             epsilon=1.0, classes=None, rng=0),
        # None meant (-1, 1) here and (0, 1) in the releases above: now it means nothing anywhere
        "private_hessian": lambda: private_hessian(X, y, loss, np.zeros(2), 0.1, epsilon=1.0, classes=None,
                                                   rng=0),
        "private_gradient_covariance": lambda: private_gradient_covariance(X, y, loss, np.zeros(2), epsilon=1.0,
                                                                           classes=None, rng=0),
    }
    for owner, call in calls.items():
        with pytest.raises(ValueError, match=_none_message(owner)):
            call()
    for cls in ERM_ESTIMATORS:
        with pytest.raises(ValueError, match=_none_message(f"{cls.__name__}.fit")):
            cls(epsilon=1.0, regularization=0.1, classes=None).fit(X, y)


def test_the_positive_label_is_classes_1_for_the_walk():
    x = np.linspace(0, 1, 200)
    y01 = (x > 0.4).astype(int)
    named = np.where(y01 == 1, "yes", "no")
    plain = ProjectedWalk(1.0, 0.05).fit(x, y01)
    walk = ProjectedWalk(1.0, 0.05, classes=("no", "yes")).fit(x, named)
    assert walk.classes_.tolist() == ["no", "yes"]
    assert np.array_equal(walk.predict_proba([0.1, 0.9]), plain.predict_proba([0.1, 0.9]))
    out = walk.predict([0.1, 0.9] * 50, rng=1)
    assert set(out.tolist()) <= {"no", "yes"}
    assert np.array_equal(out == "yes", plain.predict([0.1, 0.9] * 50, rng=1) == 1)
    assert plain.predict([0.5], rng=0).dtype == np.int8
    assert walk.score(x, named) == plain.score(x, y01)
    # the declared pair decides which label steps up: reversing it mirrors the probabilities
    mirrored = ProjectedWalk(1.0, 0.05, classes=("yes", "no")).fit(x, named)
    assert np.allclose(mirrored.predict_proba([0.9])[:, ::-1], plain.predict_proba([0.9]), rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="'y' parameter of ProjectedWalk .* declared 'classes'"):
        ProjectedWalk(1.0, 0.05).fit(x, named)
    assert ProjectedWalk(1.0, 0.05, classes=("no", "yes")).get_params()["classes"] == ("no", "yes")
    with pytest.raises(ValueError, match="'classes' parameter of ProjectedWalk"):
        ProjectedWalk(1.0, 0.05, classes=(0, 1, 2)).fit(x, y01)
