"""The exact epsilon of the standard audit benchmarks (the truth a black-box audit is measured against).

* :mod:`.piecewise` -- piecewise exponential functions with interval
  coefficients (Laplace and exponential laws, products, integrals);
* :mod:`.ratio` -- certified supremum of a log density ratio;
* :mod:`.noisy_max`, :mod:`.sparse_vector`, :mod:`.geometric`,
  :mod:`.rappor` -- exact laws of the benchmark mechanisms;
* :mod:`.catalogue` -- the mechanisms of the DP-Sniper, StatDP and
  DP-Auditorium suites, their input pairs and :func:`exact_epsilon`;
* :mod:`.published` -- the lower bounds DP-Sniper and StatDP published.
"""
from .catalogue import MECHANISMS, SuiteMechanism, exact_epsilon, pattern_pairs, worst_pair
from .exact_epsilon import PairEpsilon
from .published import PUBLISHED

__all__ = ["MECHANISMS", "SuiteMechanism", "exact_epsilon", "pattern_pairs", "worst_pair", "PairEpsilon",
           "PUBLISHED"]
