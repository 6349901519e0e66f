"""Private empirical risk minimisation (Chaudhuri, Monteleoni and Sarwate, JMLR 2011).

======================================  ==========================================
:func:`output_perturbation`             Algorithm 1: minimiser plus noise
:func:`objective_perturbation`          Algorithm 2: minimiser of a noisy objective
:func:`objective_perturbation_budget`   epsilon', Delta and beta of Algorithm 2
                                        (``improved=True``: Wang, Kifer and Lee)
:func:`output_perturbation_zcdp`        Algorithm 1 with Gaussian noise (rho-zCDP)
:func:`objective_perturbation_zcdp`     Algorithm 2 with Gaussian noise (rho-zCDP)
:class:`PrivateLogisticRegression`      estimator, logistic loss (Corollary 2)
:class:`PrivateHuberSVM`                estimator, Huber hinge loss (Corollaries 3, 4)
:class:`RandomFourierFeatures`          Algorithm 3: kernel features with ``||x|| <= 1``
:func:`private_tuning`                  Algorithm 4: private choice of ``Lambda``
:class:`LogisticLoss`, :class:`HuberHingeLoss`  losses with their constants
:func:`private_hessian`, :func:`private_gradient_covariance`  private matrices (Wang, Kifer and Lee)
:func:`confidence_intervals`            private intervals for a release (Wang, Kifer and Lee)
:func:`private_confidence_intervals`    fit and intervals within one budget
======================================  ==========================================

Every release is epsilon-DP (or rho-zCDP for the ``*_zcdp`` releases and
estimators fitted with ``rho``) for replace-one neighbours under the data
assumption ``||x|| <= 1`` (enforced; see ``norm_bound`` and ``clip``). Proofs
are in ``docs/theory/erm.rst``; the checks are in ``proofs_checks/chaudhuri/``
and ``proofs_checks/wang_kifer_lee/``.
"""
from .estimators import PrivateHuberSVM, PrivateLogisticRegression
from ..utils.losses import HuberHingeLoss, LogisticLoss, MarginLoss, check_loss
from .objective_perturbation import (ObjectivePerturbationBudget, objective_perturbation,
                                     objective_perturbation_budget, release_objective_perturbation)
from .output_perturbation import (output_perturbation, output_perturbation_rate,
                                  output_perturbation_sensitivity, release_output_perturbation)
from .output_perturbation import (output_perturbation_sigma, output_perturbation_zcdp,
                                  release_output_perturbation_zcdp)
from .objective_perturbation_zcdp import (ObjectivePerturbationZCDPBudget, objective_perturbation_zcdp,
                                          objective_perturbation_zcdp_budget,
                                          release_objective_perturbation_zcdp)
from .random_features import RandomFourierFeatures
from .private_matrices import (PrivateMatrix, frobenius_sensitivity, private_gradient_covariance,
                               private_hessian, vec_f_sensitivity)
from .confidence_intervals import (DEFAULT_SPLIT, PrivateConfidenceIntervals, confidence_intervals,
                                   private_confidence_intervals, split_budget)
from .result import PrivateERMResult
from .tuning import TuningResult, private_tuning, split_parts, tuning_selection_distribution

__all__ = [
    "MarginLoss", "LogisticLoss", "HuberHingeLoss", "check_loss",
    "PrivateERMResult",
    "output_perturbation", "output_perturbation_rate", "output_perturbation_sensitivity",
    "release_output_perturbation",
    "ObjectivePerturbationBudget", "objective_perturbation", "objective_perturbation_budget",
    "release_objective_perturbation",
    "output_perturbation_sigma", "output_perturbation_zcdp", "release_output_perturbation_zcdp",
    "ObjectivePerturbationZCDPBudget", "objective_perturbation_zcdp", "objective_perturbation_zcdp_budget",
    "release_objective_perturbation_zcdp",
    "PrivateLogisticRegression", "PrivateHuberSVM",
    "RandomFourierFeatures",
    "PrivateMatrix", "frobenius_sensitivity", "vec_f_sensitivity", "private_hessian", "private_gradient_covariance",
    "PrivateConfidenceIntervals", "confidence_intervals", "private_confidence_intervals", "split_budget",
    "DEFAULT_SPLIT",
    "TuningResult", "private_tuning", "split_parts", "tuning_selection_distribution",
    "PRIVATE_MECHANISMS",
]

#: Fully qualified names of the public callables that release private output;
#: each is covered by a registered check in ``proofs_checks``.
PRIVATE_MECHANISMS = (
    "refdp.erm.output_perturbation",
    "refdp.erm.release_output_perturbation",
    "refdp.erm.objective_perturbation",
    "refdp.erm.release_objective_perturbation",
    "refdp.erm.PrivateLogisticRegression.fit",
    "refdp.erm.PrivateHuberSVM.fit",
    "refdp.erm.private_tuning",
    "refdp.erm.private_hessian",
    "refdp.erm.private_gradient_covariance",
    "refdp.erm.confidence_intervals",
    "refdp.erm.private_confidence_intervals",
    "refdp.erm.output_perturbation_zcdp",
    "refdp.erm.release_output_perturbation_zcdp",
    "refdp.erm.objective_perturbation_zcdp",
    "refdp.erm.release_objective_perturbation_zcdp",
)
