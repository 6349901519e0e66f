"""Valid example calls of refdp.prediction for the generated fuzz test."""
import numpy as np

from refdp.prediction import (
    AveragedPrediction, HuberLoss, LogisticLoss, ProjectedSGD, ProjectedWalk, RegularizedERM, SoftMajority,
    StablePredictor, averaging_extra_error_bound, classical_gaussian_sigma, clipped_laplace_mean,
    erm_stability_rate, lemma_4_5_lipschitz_extra_loss, lemma_4_5_smooth_extra_loss, lemma_4_6_averaged_rate,
    lemma_6_4_bounds, psgd_stability_rate, soft_majority_k, soft_majority_probabilities, stable_prediction,
    walk_empirical_error_bound, walk_step,
)

P = "refdp.prediction."


class Threshold:
    """1-D threshold learner: 1 at and above the smallest point labelled 1."""

    def fit(self, X, y):
        ones = X[y == 1, 0]
        self.t = ones.min() if ones.size else np.inf
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= self.t).astype(int)


def mean_learner(X, y):
    m = float(np.mean(y))
    return lambda Xq: np.full(len(Xq), m)


X1 = np.array([[0.1], [0.2], [0.3], [0.6], [0.7], [0.8]])
Y1 = np.array([0, 0, 0, 1, 1, 1])
X2 = np.array([[0.1, -0.2], [0.2, 0.1], [-0.3, 0.2], [0.0, 0.3]])
Y2 = np.array([0.0, 1.0, 1.0, 0.0])


def _walk():
    return ProjectedWalk(1.0, 0.1).fit(X1[:, 0], Y1)


def _soft():
    return SoftMajority(1.0, 3, Threshold, rng=0).fit(X1, Y1)


def _avg():
    return AveragedPrediction(1.0, 3, Threshold, rng=0).fit(X1, Y1)


def _stable():
    return StablePredictor(mean_learner, 0.5, 1.0, rng=0).fit(X2, Y2)


EXAMPLES = {
    P + "walk_step": lambda: (walk_step, dict(epsilon=1.0, neighbours="replace")),
    P + "walk_empirical_error_bound": lambda: (walk_empirical_error_bound, dict(
        n=100, epsilon=1.0, alpha=0.1, n_boundaries=1, opt=0.0, neighbours="replace")),
    P + "ProjectedWalk": lambda: (ProjectedWalk, dict(epsilon=1.0, alpha=0.1, neighbours="replace", budget=None,
                                                      classes=(0, 1))),
    P + "ProjectedWalk.fit": lambda: (ProjectedWalk(1.0, 0.1).fit, dict(x=X1[:, 0], y=Y1)),
    P + "ProjectedWalk.predict_proba": lambda: (_walk().predict_proba, dict(x_query=np.array([0.25, 0.65]))),
    P + "ProjectedWalk.predict": lambda: (_walk().predict, dict(x_query=np.array([0.25, 0.65]), rng=0)),
    P + "ProjectedWalk.score": lambda: (_walk().score, dict(x=X1[:, 0], y=Y1)),
    P + "soft_majority_k": lambda: (soft_majority_k, dict(epsilon=1.0, alpha=0.1, n_classes=2)),
    P + "soft_majority_probabilities": lambda: (soft_majority_probabilities, dict(
        counts=np.array([[3, 1], [0, 4]]), epsilon=1.0, exact=False, dps=20, ctx=None)),
    P + "SoftMajority": lambda: (SoftMajority, dict(epsilon=1.0, k=3, learner=Threshold, classes=(0, 1),
                                                    neighbours="replace", rng=0, budget=None)),
    P + "SoftMajority.fit": lambda: (SoftMajority(1.0, 3, Threshold, rng=0).fit, dict(X=X1, y=Y1)),
    P + "SoftMajority.predict_proba": lambda: (_soft().predict_proba, dict(Xq=X1[:2])),
    P + "SoftMajority.predict": lambda: (_soft().predict, dict(Xq=X1[:2], rng=0)),
    P + "SoftMajority.score": lambda: (_soft().score, dict(X=X1, y=Y1)),
    P + "clipped_laplace_mean": lambda: (clipped_laplace_mean, dict(v=0.5, scale=3.0, exact=False, dps=20,
                                                                    ctx=None)),
    P + "averaging_extra_error_bound": lambda: (averaging_extra_error_bound, dict(epsilon=1.0, k=5, tight=True)),
    P + "AveragedPrediction": lambda: (AveragedPrediction, dict(epsilon=1.0, k=3, learner=Threshold,
                                                                classes=(0, 1), neighbours="replace", rng=0,
                                                                budget=None)),
    P + "AveragedPrediction.fit": lambda: (AveragedPrediction(1.0, 3, Threshold, rng=0).fit, dict(X=X1, y=Y1)),
    P + "AveragedPrediction.predict_proba": lambda: (_avg().predict_proba, dict(Xq=X1[:2])),
    P + "AveragedPrediction.predict": lambda: (_avg().predict, dict(Xq=X1[:2], rng=0)),
    P + "AveragedPrediction.score": lambda: (_avg().score, dict(X=X1, y=Y1)),
    P + "lemma_4_5_lipschitz_extra_loss": lambda: (lemma_4_5_lipschitz_extra_loss, dict(
        lipschitz=1.0, beta=0.1, epsilon=1.0)),
    P + "lemma_4_5_smooth_extra_loss": lambda: (lemma_4_5_smooth_extra_loss, dict(
        smoothness=1.0, beta=0.1, epsilon=1.0)),
    P + "lemma_4_6_averaged_rate": lambda: (lemma_4_6_averaged_rate, dict(beta=0.1, k=4)),
    P + "classical_gaussian_sigma": lambda: (classical_gaussian_sigma, dict(beta=0.1, epsilon=0.5, delta=1e-5)),
    P + "stable_prediction": lambda: (stable_prediction, dict(
        values=np.array([0.2, 0.7]), beta=0.1, epsilon=1.0, delta=None, rho=None, noise="laplace",
        output_range=(0.0, 1.0), rng=0, secure=True)),
    P + "StablePredictor": lambda: (StablePredictor, dict(
        learner=mean_learner, beta=0.5, epsilon=1.0, delta=None, rho=None, noise="laplace",
        output_range=(0.0, 1.0), k=1, rng=0, secure=True, budget=None)),
    P + "StablePredictor.fit": lambda: (StablePredictor(mean_learner, 0.5, 1.0, rng=0).fit, dict(X=X2, y=Y2)),
    P + "StablePredictor.predict": lambda: (_stable().predict, dict(X=X2[:2])),
    P + "LogisticLoss": lambda: (LogisticLoss, dict()),
    P + "HuberLoss": lambda: (HuberLoss, dict(delta=1.0)),
    P + "RegularizedERM": lambda: (RegularizedERM, dict(loss=LogisticLoss(), lam=0.1, radius=1.0, tol=1e-10)),
    P + "ProjectedSGD": lambda: (ProjectedSGD, dict(loss=LogisticLoss(), eta=0.1, radius=1.0,
                                                    projection_radius=None)),
    P + "erm_stability_rate": lambda: (erm_stability_rate, dict(lipschitz=1.0, radius=1.0, lam=0.1, n=100,
                                                                tol=0.0)),
    P + "psgd_stability_rate": lambda: (psgd_stability_rate, dict(lipschitz=1.0, radius=1.0, eta=0.1, n=100)),
    P + "lemma_6_4_bounds": lambda: (lemma_6_4_bounds, dict(epsilon=0.5, empirical_loss=0.1, delta=0.0)),
}
