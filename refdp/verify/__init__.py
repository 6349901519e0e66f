"""Exact verification of privacy claims.

* :mod:`refdp.verify.divergences` -- max, hockey-stick and Renyi divergences and
  PATE's log-moment between two finite output distributions, in mpmath or in
  ``mpmath.iv`` interval arithmetic;
* :mod:`refdp.verify.verdict` -- three-valued, fail-closed verdicts
  (HOLDS / FAILS / UNDECIDED);
* :mod:`refdp.verify.neighbours` -- datasets over a finite domain, their
  replace-one and add/remove neighbours, and an adversarial pair search;
* :mod:`refdp.verify.check` -- :func:`check_mechanism`, the exhaustive exact
  check of a mechanism given its output distribution;
* :mod:`refdp.verify.algebraic` -- exact verdicts for laws rational in
  ``e^(epsilon/m)``: :func:`check_algebraic` at one epsilon (tight claims
  decided) and :func:`prove_for_all_epsilon` for every epsilon at once
  (needs sympy: ``pip install 'refdp[exact]'``; imported only when called);
* :mod:`refdp.verify.polynomials` -- the exact rational functions, sign
  decisions and real-root isolation behind them;
* :mod:`refdp.verify.registry` -- the checks run by ``refdp verify``.
"""
from .algebraic import AllEpsilonProof, FailingRange, check_algebraic, prove_for_all_epsilon, summarise_proofs
from .check import MechanismCheck, check_mechanism, check_pairs, higher_precision, summarise
from .divergences import (
    SUM_TOLERANCE,
    as_distribution,
    distribution_pair,
    hockey_stick_divergence,
    log_moment,
    max_divergence,
    renyi_divergence,
)
from .neighbours import (
    add_remove_neighbours,
    adversarial_pairs,
    all_datasets,
    check_domain,
    labelled_domain,
    neighbour_function,
    neighbouring_pairs,
    replace_one_neighbours,
)
from .registry import Check, CheckResult, Outcome, all_checks, register, run_check
from .verdict import (
    Verdict,
    decide_enclosures,
    decide_leq,
    decide_leq_interval,
    enclose,
    ivworkdps,
    lower,
    upper,
    worst_verdict,
)

__all__ = [
    "AllEpsilonProof", "FailingRange", "check_algebraic", "prove_for_all_epsilon", "summarise_proofs",
    "MechanismCheck", "check_mechanism", "check_pairs", "higher_precision", "summarise",
    "SUM_TOLERANCE", "as_distribution", "distribution_pair", "hockey_stick_divergence",
    "log_moment", "max_divergence", "renyi_divergence",
    "add_remove_neighbours", "adversarial_pairs", "all_datasets", "check_domain",
    "labelled_domain", "neighbour_function", "neighbouring_pairs", "replace_one_neighbours",
    "Check", "CheckResult", "Outcome", "all_checks", "register", "run_check",
    "Verdict", "decide_enclosures", "decide_leq", "decide_leq_interval", "enclose",
    "ivworkdps", "lower", "upper", "worst_verdict",
]
