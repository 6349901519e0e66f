"""Privacy accounting: conversions, composition, and the moments accountant's (epsilon, delta).

Every float epsilon or delta returned here is an upper bound of the exact value
of its formula (rounded toward safety, checked against mpmath in the tests).

One concept per module:

* ``conversions``: pure DP to zCDP, zCDP to (epsilon, delta), Rényi DP to
  (epsilon, delta);
* ``moments``: log-moments (PATE's moments accountant) to (epsilon, delta), and
  PATE's data-independent log-moments;
* ``composition``: basic, advanced (Dwork–Rothblum–Vadhan), zCDP and PATE's
  closed form;
* ``optimal_composition``: the exact optimal composition of k epsilon-DP
  mechanisms (Kairouz–Oh–Viswanath), the reference the others are checked
  against;
* ``profiles``: certified privacy profiles (delta(epsilon), epsilon(delta))
  of compositions of randomized response, Laplace, discrete Laplace, Gaussian
  and discrete Gaussian mechanisms, as enclosures ``(lower, upper)``;
* ``budget``: a privacy filter, the budget that the releasing estimators
  charge and that refuses the query past it;
* ``renyi``: exact Rényi divergences of the same compositions at any real
  order, as enclosures, and their conversion to (epsilon, delta);
* ``pate2017``: the epsilon PATE 2017's analysis script publishes, and the
  exact delta of the same LNMax answers at it;
* ``audit_peers``: other libraries' accountants against refdp's certified
  values (``refdp audit-accountant``; imports the peers only in workers).
"""
from .budget import BudgetExhausted, PrivacyFilter
from .composition import (EpsilonDelta, advanced_composition, basic_composition,
                          pate_quick_composition, zcdp_composition)
from .conversions import pure_dp_to_zcdp, rdp_to_dp, zcdp_to_dp
from .moments import (DEFAULT_ORDERS, MomentsConversion, moments_to_dp,
                      pate_data_independent_log_moments)
from .optimal_composition import optimal_composition_delta, optimal_composition_epsilon
from .profiles import (DiscreteGaussian, DiscreteLaplace, Enclosure, Gaussian, Laplace,
                       RandomizedResponse, privacy_profile_delta, privacy_profile_epsilon)
from .renyi import RenyiConversion, renyi_delta, renyi_divergence, renyi_epsilon
from .pate2017 import Pate2017Epsilon, lnmax_neighbour_delta, pate2017_epsilon

__all__ = [
    "pure_dp_to_zcdp", "zcdp_to_dp", "rdp_to_dp",
    "DEFAULT_ORDERS", "MomentsConversion", "moments_to_dp", "pate_data_independent_log_moments",
    "EpsilonDelta", "basic_composition", "advanced_composition", "zcdp_composition",
    "pate_quick_composition",
    "optimal_composition_delta", "optimal_composition_epsilon",
    "RandomizedResponse", "Laplace", "DiscreteLaplace", "Gaussian", "DiscreteGaussian",
    "Enclosure", "privacy_profile_delta", "privacy_profile_epsilon",
    "PrivacyFilter", "BudgetExhausted",
    "RenyiConversion", "renyi_divergence", "renyi_epsilon", "renyi_delta",
    "Pate2017Epsilon", "pate2017_epsilon", "lnmax_neighbour_delta",
]
