"""Valid example calls of refdp.learning for the generated fuzz test."""
from fractions import Fraction

import numpy as np

from refdp.learning import (
    empirical_risks, exponential_mechanism_learner, exponential_mechanism_learner_distribution,
    exponential_mechanism_learner_utility_bound, grid_threshold_errors, grid_thresholds,
    hard_threshold_dataset, one_posterior_sample, one_posterior_sample_distribution, packing_sample_size,
    packing_success_bound, posterior_epsilon, posterior_temperature, threshold_learner_sample_size,
    threshold_learner_success,
)

P = "refdp.learning."
LOSSES = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])

EXAMPLES = {
    P + "empirical_risks": lambda: (empirical_risks, dict(losses=LOSSES)),
    P + "exponential_mechanism_learner": lambda: (exponential_mechanism_learner, dict(
        risks=np.array([0.5, 0.1, 0.3]), epsilon=1.0, n_samples=100, rng=0)),
    P + "exponential_mechanism_learner_distribution": lambda: (exponential_mechanism_learner_distribution, dict(
        risks=[Fraction(0), Fraction(1, 4)], epsilon=2.0, n_samples=4, exact=True, dps=20, ctx=None)),
    P + "exponential_mechanism_learner_utility_bound": lambda: (exponential_mechanism_learner_utility_bound, dict(
        epsilon=1.0, beta=0.05, n_samples=1000, n_hypotheses=10)),
    P + "posterior_temperature": lambda: (posterior_temperature, dict(epsilon=1.0, loss_bound=2.0,
                                                                      neighbours="replace")),
    P + "posterior_epsilon": lambda: (posterior_epsilon, dict(loss_bound=0.5, temperature=1.0,
                                                              neighbours="add_remove")),
    P + "one_posterior_sample": lambda: (one_posterior_sample, dict(
        losses=LOSSES, loss_bound=1.0, log_prior=np.array([0.0, -1.0]), epsilon=1.0, temperature=None,
        neighbours="replace", rng=0)),
    P + "one_posterior_sample_distribution": lambda: (one_posterior_sample_distribution, dict(
        losses=[[0, 1, 1], [1, 0, 0]], loss_bound=1.0, log_prior=None, epsilon=None, temperature=0.5,
        neighbours="replace", exact=False, dps=20, ctx=None)),
    P + "grid_thresholds": lambda: (grid_thresholds, dict(m=8)),
    P + "grid_threshold_errors": lambda: (grid_threshold_errors, dict(
        x=np.array([0.1, 0.6, 0.9]), y=np.array([0, 1, 1]), m=4)),
    P + "hard_threshold_dataset": lambda: (hard_threshold_dataset, dict(m=8, n=4, i=3)),
    P + "threshold_learner_success": lambda: (threshold_learner_success, dict(
        m=8, n=4, epsilon=1.0, i=1, dps=20, ctx=None)),
    P + "packing_success_bound": lambda: (packing_success_bound, dict(m=8, n=4, epsilon=1.0)),
    P + "packing_sample_size": lambda: (packing_sample_size, dict(m=8, epsilon=1.0, beta=0.5)),
    P + "threshold_learner_sample_size": lambda: (threshold_learner_sample_size, dict(
        m=8, epsilon=1.0, beta=0.5, dps=20)),
}
