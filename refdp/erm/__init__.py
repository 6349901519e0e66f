"""Private empirical risk minimisation (Chaudhuri, Monteleoni and Sarwate, JMLR 2011).

======================================  ==========================================
:func:`output_perturbation`             Algorithm 1: minimiser plus noise
:func:`objective_perturbation`          Algorithm 2: minimiser of a noisy objective
:func:`objective_perturbation_budget`   epsilon', Delta and beta of Algorithm 2
:class:`PrivateLogisticRegression`      estimator, logistic loss (Corollary 2)
:class:`PrivateHuberSVM`                estimator, Huber hinge loss (Corollaries 3, 4)
:class:`RandomFourierFeatures`          Algorithm 3: kernel features with ``||x|| <= 1``
:func:`private_tuning`                  Algorithm 4: private choice of ``Lambda``
:class:`LogisticLoss`, :class:`HuberHingeLoss`  losses with their constants
======================================  ==========================================

Every release is epsilon-DP for replace-one neighbours under the data
assumption ``||x|| <= 1`` (enforced; see ``norm_bound`` and ``clip``). Proofs
are in ``docs/theory/erm.rst``; the checks are ``proofs_checks/chaudhuri_*.py``.
"""
from .estimators import PrivateHuberSVM, PrivateLogisticRegression
from .losses import HuberHingeLoss, LogisticLoss, MarginLoss, check_loss
from .objective_perturbation import (ObjectivePerturbationBudget, objective_perturbation,
                                     objective_perturbation_budget, release_objective_perturbation)
from .output_perturbation import (output_perturbation, output_perturbation_rate,
                                  output_perturbation_sensitivity, release_output_perturbation)
from .random_features import RandomFourierFeatures
from .result import PrivateERMResult
from .tuning import TuningResult, private_tuning, split_parts, tuning_selection_distribution

__all__ = [
    "MarginLoss", "LogisticLoss", "HuberHingeLoss", "check_loss",
    "PrivateERMResult",
    "output_perturbation", "output_perturbation_rate", "output_perturbation_sensitivity",
    "release_output_perturbation",
    "ObjectivePerturbationBudget", "objective_perturbation", "objective_perturbation_budget",
    "release_objective_perturbation",
    "PrivateLogisticRegression", "PrivateHuberSVM",
    "RandomFourierFeatures",
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
)
