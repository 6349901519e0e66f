"""Private learning by sampling (lecture notes "DPML I", Y.-X. Wang, Lecture 9).

* ``exponential_mechanism_learner``: epsilon-DP choice from a finite
  hypothesis class, with probability proportional to
  ``exp(-epsilon n R(h) / 2)``; ``exponential_mechanism_learner_utility_bound``
  is its excess-risk guarantee ``(2 / (n epsilon)) (ln|H| + ln(1 / beta))``.
* ``one_posterior_sample``: one sample from a (tempered) posterior over a
  finite parameter set, ``2tB``-DP for replace-one and ``tB``-DP for
  add/remove neighbours (``posterior_temperature``, ``posterior_epsilon``).
* ``grid_thresholds`` ... ``threshold_learner_sample_size``: the exactly
  computed example of Claim 9.10, pure-DP learning of thresholds needs
  ``n ~ ln(m) / epsilon`` records on a grid of ``m`` points.

Only ``exponential_mechanism_learner`` and ``one_posterior_sample`` release
private output (listed in their modules' ``PRIVATE_MECHANISMS``); the
``*_distribution`` functions return their exact output laws for
verification. Proofs: docs/theory/learning.rst.
"""
from .finite_class import (
    empirical_risks,
    exponential_mechanism_learner,
    exponential_mechanism_learner_distribution,
    exponential_mechanism_learner_utility_bound,
)
from .posterior import (
    one_posterior_sample,
    one_posterior_sample_distribution,
    posterior_epsilon,
    posterior_temperature,
)
from .thresholds_impossibility import (
    grid_threshold_errors,
    grid_thresholds,
    hard_threshold_dataset,
    packing_sample_size,
    packing_success_bound,
    threshold_learner_sample_size,
    threshold_learner_success,
)

__all__ = [
    "empirical_risks",
    "exponential_mechanism_learner",
    "exponential_mechanism_learner_distribution",
    "exponential_mechanism_learner_utility_bound",
    "one_posterior_sample",
    "one_posterior_sample_distribution",
    "posterior_epsilon",
    "posterior_temperature",
    "grid_thresholds",
    "grid_threshold_errors",
    "hard_threshold_dataset",
    "threshold_learner_success",
    "packing_success_bound",
    "packing_sample_size",
    "threshold_learner_sample_size",
]
