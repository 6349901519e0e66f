"""Valid example calls of refdp.accounting's public callables, for the generated fuzz test.

Each entry maps a qualified name to a zero-argument factory returning
``(callable, keyword arguments)``: a tiny valid call naming every parameter
the fuzz perturbs.
"""
import numpy as np

from refdp.accounting import (
    BudgetExhausted, DiscreteGaussian, DiscreteLaplace, Enclosure, EpsilonDelta, Gaussian, Laplace,
    MomentsConversion, Pate2017Epsilon, PrivacyFilter, RandomizedResponse, RenyiConversion,
    advanced_composition, basic_composition, lnmax_neighbour_delta, moments_to_dp,
    optimal_composition_delta, optimal_composition_epsilon, pate2017_epsilon,
    pate_data_independent_log_moments, pate_quick_composition, privacy_profile_delta,
    privacy_profile_epsilon, pure_dp_to_zcdp, rdp_to_dp, renyi_delta, renyi_divergence,
    renyi_epsilon, zcdp_composition, zcdp_to_dp,
)

_ORDERS = np.array([1.0, 2.0, 4.0])

EXAMPLES = {
    "refdp.accounting.pure_dp_to_zcdp": lambda: (pure_dp_to_zcdp, dict(epsilon=1.0)),
    "refdp.accounting.zcdp_to_dp": lambda: (zcdp_to_dp, dict(rho=0.5, delta=1e-5)),
    "refdp.accounting.rdp_to_dp": lambda: (
        rdp_to_dp, dict(order_alpha=2.0, rdp_value=0.5, delta=1e-5, method="cks")),
    "refdp.accounting.MomentsConversion": lambda: (MomentsConversion, dict(
        epsilon_tail=1.0, delta_tail=1e-5, order_tail=2.0, epsilon_rdp=0.9, delta_rdp=1e-5,
        order_rdp=2.0)),
    "refdp.accounting.moments_to_dp": lambda: (moments_to_dp, dict(
        log_moments=np.array([0.1, 0.3, 1.0]), orders=_ORDERS, delta=1e-5, epsilon=None)),
    "refdp.accounting.pate_data_independent_log_moments": lambda: (
        pate_data_independent_log_moments, dict(gamma=0.1, orders=_ORDERS, n_queries=3)),
    "refdp.accounting.EpsilonDelta": lambda: (EpsilonDelta, dict(epsilon=1.0, delta=1e-5)),
    "refdp.accounting.basic_composition": lambda: (
        basic_composition, dict(epsilons=[0.5, 0.25], deltas=[1e-6, 0.0])),
    "refdp.accounting.advanced_composition": lambda: (
        advanced_composition, dict(epsilon=0.1, k=10, delta_prime=1e-6, delta=0.0)),
    "refdp.accounting.zcdp_composition": lambda: (zcdp_composition, dict(rhos=[0.1, 0.2])),
    "refdp.accounting.pate_quick_composition": lambda: (
        pate_quick_composition, dict(gamma=0.05, n_queries=10, delta=1e-5)),
    "refdp.accounting.optimal_composition_delta": lambda: (
        optimal_composition_delta, dict(epsilon=0.5, k=4, epsilon_total=1.0, dps=20)),
    "refdp.accounting.optimal_composition_epsilon": lambda: (
        optimal_composition_epsilon, dict(epsilon=0.5, k=4, delta=1e-3, dps=20)),
    "refdp.accounting.RandomizedResponse": lambda: (
        RandomizedResponse, dict(epsilon=0.5, relation="add-remove")),
    "refdp.accounting.Laplace": lambda: (Laplace, dict(scale=2.0, sensitivity=1.0, relation="replace-one")),
    "refdp.accounting.DiscreteLaplace": lambda: (
        DiscreteLaplace, dict(scale=2.0, sensitivity=1, relation="add-remove")),
    "refdp.accounting.Gaussian": lambda: (Gaussian, dict(sigma=2.0, sensitivity=1.0, relation="add-remove")),
    "refdp.accounting.DiscreteGaussian": lambda: (
        DiscreteGaussian, dict(sigma=2.0, sensitivity=1, relation="add-remove")),
    "refdp.accounting.Enclosure": lambda: (Enclosure, dict(lower=0.5, upper=0.75)),
    "refdp.accounting.privacy_profile_delta": lambda: (privacy_profile_delta, dict(
        mechanisms=[(RandomizedResponse(0.5), 2)], epsilon=0.5, grid_step=0.01)),
    "refdp.accounting.privacy_profile_epsilon": lambda: (privacy_profile_epsilon, dict(
        mechanisms=[(RandomizedResponse(0.5), 2)], delta=1e-3, grid_step=0.01, rtol=1e-6)),
    "refdp.accounting.PrivacyFilter": lambda: (PrivacyFilter, dict(
        epsilon=1.0, delta=1e-5, composition="basic", delta_prime=None)),
    "refdp.accounting.PrivacyFilter.charge": lambda: (PrivacyFilter(epsilon=1.0, delta=1e-5).charge, dict(
        epsilon=0.1, delta=1e-7, count=2, rho=None, owner="example")),
    "refdp.accounting.BudgetExhausted": lambda: (BudgetExhausted, dict(message="refused")),
    "refdp.accounting.RenyiConversion": lambda: (RenyiConversion, dict(epsilon=1.0, delta=1e-5, order=8.0)),
    "refdp.accounting.renyi_divergence": lambda: (
        renyi_divergence, dict(mechanisms=[Gaussian(2.0)], order=2.0)),
    "refdp.accounting.renyi_epsilon": lambda: (
        renyi_epsilon, dict(mechanisms=[Gaussian(2.0)], delta=1e-5, orders=[2.0, 8.0])),
    "refdp.accounting.renyi_delta": lambda: (
        renyi_delta, dict(mechanisms=[Gaussian(2.0)], epsilon=1.0, orders=[2.0, 8.0])),
    "refdp.accounting.Pate2017Epsilon": lambda: (Pate2017Epsilon, dict(
        epsilon=1.0, order=2, log_moments=np.array([0.1, 0.2]), outside_range=0, negative_terms=0,
        script_error=None)),
    "refdp.accounting.pate2017_epsilon": lambda: (
        pate2017_epsilon, dict(counts=[[8, 1, 1]], gamma=0.1, delta=1e-5, moments=4)),
    "refdp.accounting.lnmax_neighbour_delta": lambda: (
        lnmax_neighbour_delta, dict(counts=[[5, 1]], gamma=0.2, epsilon=0.5, grid_step=0.01)),
}

#: Exceptions other than ValueError/TypeError that are a documented answer of a
#: valid call (a budget refusing a charge past it).
ALLOWED_EXCEPTIONS = {
    "refdp.accounting.PrivacyFilter.charge": (BudgetExhausted,),
}
#: Result fields named like privacy parameters that are not guarantees: the
#: epsilon PATE 2017's script prints (negative, or NaN when the script itself
#: fails; reproduced on purpose).
NOT_GUARANTEES = {
    "refdp.accounting.Pate2017Epsilon": ("epsilon",),
    "refdp.accounting.pate2017_epsilon": ("epsilon",),
}
