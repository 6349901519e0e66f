"""Valid example calls of refdp.pate for the generated fuzz test (tiny and fast)."""
import dataclasses

import numpy as np

from refdp.pate import (EpsilonRelease, ExactAnalysis, ExactDelta, PATEAccountant, PATEAnalysis, PATEStudent,
                        PATETeachers, SmoothSensitivity, data_independent_budget,
                        data_independent_epsilon, exact_analysis, exact_delta, lnmax_distribution, lnmax_labels,
                        partition_by_group, partition_by_record, pate_analysis, release_epsilon,
                        smooth_laplace_parameters, smooth_sensitivity)

P = "refdp.pate."
COUNTS = np.array([[5, 1, 0], [3, 3, 0]])


class Threshold:
    """A one-feature threshold learner (fit/predict), the smallest teacher."""

    def fit(self, X, y):
        self.t_ = X[y == 1, 0].min() if (y == 1).any() else np.inf
        return self

    def predict(self, X):
        return (X[:, 0] >= self.t_).astype(int)


def _data(n=24):
    X = np.linspace(0.0, 1.0, n)[:, None]
    return X, (X[:, 0] > 0.5).astype(int)


def _teachers():
    X, y = _data()
    return PATETeachers(4, Threshold, rng=1).fit(X, y)


def _student():
    return PATEStudent(Threshold, gamma=0.5, delta=1e-5, target_epsilon=5.0, max_queries=3,
                       rng=2).fit(_teachers(), np.linspace(0.0, 1.0, 6)[:, None])


def _fields(result):
    """The constructor arguments of a result (nested results kept as objects)."""
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}


def _release():
    return release_epsilon(np.array([[9, 1, 0]]), 0.2, 1e-5, order=4.0, epsilon_release=1.0, delta_release=1e-5,
                           rng=0)


def _accountant():
    return PATEAccountant(0.2, orders=np.array([2.0, 8.0]), n_classes=3)


EXAMPLES = {
    P + "lnmax_labels": lambda: (lnmax_labels, dict(counts=COUNTS, gamma=0.5, rng=0, secure=True)),
    P + "lnmax_distribution": lambda: (lnmax_distribution, dict(
        counts=np.array([3, 1, 0]), gamma=0.5, log=False, exact=False, dps=20, ctx=None, secure=False)),
    P + "exact_analysis": lambda: (exact_analysis, dict(
        counts=COUNTS, gamma=0.2, orders=np.array([2.0, 8.0]), n_threads=None, noise="discrete")),
    P + "exact_delta": lambda: (exact_delta, dict(
        counts=np.array([[3, 0]]), gamma=1.0, epsilon=1.0, grid_step=1e-2, max_combinations=16,
        method="enumerate", noise="continuous")),
    P + "pate_analysis": lambda: (pate_analysis, dict(
        counts=COUNTS, gamma=0.2, delta=1e-5, orders=np.array([2.0, 8.0]), exact=False, two_sided=True,
        n_teachers=None, noise="discrete")),
    P + "PATEAccountant": lambda: (PATEAccountant, dict(
        gamma=0.2, orders=np.array([2.0, 8.0]), n_classes=3, n_teachers=None, exact=False, two_sided=True,
        noise="discrete")),
    P + "PATEAccountant.add_counts": lambda: (_accountant().add_counts, dict(counts=COUNTS)),
    P + "PATEAccountant.add_votes": lambda: (_accountant().add_votes, dict(
        votes=np.array([[0, 1], [0, 1], [2, 0]]))),
    P + "PATEAccountant.log_moments": lambda: (_accountant().add_counts(COUNTS).log_moments, dict(
        analysis="theorem3", two_sided=None)),
    P + "PATEAccountant.epsilon": lambda: (_accountant().add_counts(COUNTS).epsilon, dict(
        delta=1e-5, analysis="theorem3", two_sided=True)),
    P + "PATEAccountant.report": lambda: (_accountant().add_counts(COUNTS).report, dict(delta=1e-5)),
    P + "smooth_sensitivity": lambda: (smooth_sensitivity, dict(
        counts=np.array([[9, 1, 0]]), gamma=0.2, order=4.0, beta=0.1, statistic="lemma4", two_sided=True,
        noise="discrete")),
    P + "smooth_laplace_parameters": lambda: (smooth_laplace_parameters, dict(epsilon=1.0, delta=1e-5)),
    P + "release_epsilon": lambda: (release_epsilon, dict(
        counts=np.array([[9, 1, 0]]), gamma=0.2, delta=1e-5, order=4.0, epsilon_release=1.0,
        delta_release=1e-5, statistic="lemma4", two_sided=True, rng=0, secure=True, noise="discrete")),
    P + "data_independent_epsilon": lambda: (data_independent_epsilon, dict(
        gamma=0.2, delta=1e-5, n_queries=10, orders=np.array([2.0, 8.0]))),
    P + "data_independent_budget": lambda: (data_independent_budget, dict(
        gamma=0.2, delta=1e-5, target_epsilon=2.0, orders=np.array([2.0, 8.0]), limit=1000)),
    P + "partition_by_record": lambda: (partition_by_record, dict(n=10, n_teachers=3, rng=0)),
    P + "partition_by_group": lambda: (partition_by_group, dict(
        groups=np.array(["a", "b", "a", "c"], dtype=object), n_teachers=2, rng=0)),
    P + "PATETeachers": lambda: (PATETeachers, dict(
        n_teachers=4, learner=Threshold, classes=(0, 1), rng=1, client=None)),
    P + "PATETeachers.fit": lambda: (PATETeachers(4, Threshold, rng=1).fit, dict(
        X=_data()[0], y=_data()[1], groups=None)),
    P + "PATETeachers.noisy_labels": lambda: (_teachers().noisy_labels, dict(
        Xq=np.array([[0.1], [0.9]]), gamma=0.5, rng=0, secure=True)),
    P + "PATEStudent": lambda: (PATEStudent, dict(
        learner=Threshold, gamma=0.5, delta=1e-5, target_epsilon=5.0, max_queries=3, selection="random",
        batch_size=None, orders=None, rng=2, exact=False, verbose=False, budget=None, secure=True)),
    P + "PATEStudent.fit": lambda: (PATEStudent(Threshold, gamma=0.5, delta=1e-5, target_epsilon=5.0,
                                                max_queries=3, rng=2).fit,
                                    dict(teachers=_teachers(), X_public=np.linspace(0.0, 1.0, 6)[:, None])),
    P + "PATEStudent.predict": lambda: (_student().predict, dict(X=np.array([[0.2], [0.8]]))),
    P + "PATEStudent.score": lambda: (_student().score, dict(X=np.array([[0.2], [0.8]]), y=np.array([0, 1]))),
    P + "SmoothSensitivity": lambda: (SmoothSensitivity, _fields(_release().smooth_sensitivity)),
    P + "EpsilonRelease": lambda: (EpsilonRelease, _fields(_release())),
    P + "ExactAnalysis": lambda: (ExactAnalysis, _fields(exact_analysis(COUNTS, 0.2, np.array([2.0, 8.0])))),
    P + "ExactDelta": lambda: (ExactDelta, _fields(exact_delta(np.array([[3, 0]]), 1.0, 1.0, grid_step=1e-2))),
    P + "PATEAnalysis": lambda: (PATEAnalysis, _fields(pate_analysis(COUNTS, 0.2, 1e-5,
                                                                     orders=np.array([2.0, 8.0])))),
}
