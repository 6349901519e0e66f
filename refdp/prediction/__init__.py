"""Private prediction (Dwork & Feldman, "Privacy-preserving Prediction", COLT 2018).

Each predictor answers queries with outputs that are differentially private
with respect to its training set (Definition 1.2 of the paper).
"""
from .walk import ProjectedWalk, walk_empirical_error_bound, walk_step
from .soft_majority import SoftMajority, soft_majority_k, soft_majority_probabilities
from .averaging import AveragedPrediction, averaging_extra_error_bound, clipped_laplace_mean

__all__ = ["ProjectedWalk", "walk_empirical_error_bound", "walk_step"]
__all__ += ["SoftMajority", "soft_majority_k", "soft_majority_probabilities",
            "AveragedPrediction", "averaging_extra_error_bound", "clipped_laplace_mean"]
from .stability import (StablePredictor, stable_prediction, lemma_4_5_lipschitz_extra_loss,
                        lemma_4_5_smooth_extra_loss, lemma_4_6_averaged_rate,
                        classical_gaussian_sigma)
from .convex import (LogisticLoss, HuberLoss, RegularizedERM, ProjectedSGD,
                     erm_stability_rate, psgd_stability_rate)
from .generalization import lemma_6_4_bounds

__all__ += ["StablePredictor", "stable_prediction", "lemma_4_5_lipschitz_extra_loss",
            "lemma_4_5_smooth_extra_loss", "lemma_4_6_averaged_rate", "classical_gaussian_sigma",
            "LogisticLoss", "HuberLoss", "RegularizedERM", "ProjectedSGD",
            "erm_stability_rate", "psgd_stability_rate", "lemma_6_4_bounds"]
