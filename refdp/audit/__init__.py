"""Auditing other implementations: black-box lower bounds, exact audits, pair search.

* :func:`audit_black_box` -- a lower bound on the epsilon (and delta) of a
  mechanism known only through samples, at a stated confidence, with events
  chosen on one part of the samples and Clopper--Pearson bounds computed on
  fresh ones (:mod:`refdp.audit.blackbox`, :mod:`refdp.audit.events`);
* :func:`audit_delta` -- a lower bound on the delta a mechanism needs at its
  claimed epsilon (hockey-stick events), to audit an ``(epsilon, delta)`` claim;
* :func:`search_pairs` -- candidate neighbouring inputs from standard
  patterns and a local search, screened, the best audited on fresh outputs
  (:mod:`refdp.audit.pairs`);
* :func:`audit_exact` -- the exact divergences of a mechanism whose output
  distribution is known, with the worst pair and output
  (:mod:`refdp.audit.exact`, a front-end to :mod:`refdp.verify`);
* :func:`erm_whitebox` -- decide whether another library's private-ERM rule
  (objective or output perturbation, any data norm, optional unpenalised
  intercept) gives an epsilon-DP release, from exact output densities
  (:mod:`refdp.audit.erm_whitebox`);
* :mod:`refdp.audit.truth` -- the exact epsilon of the DP-Sniper, StatDP and
  DP-Auditorium benchmark mechanisms on their input pairs;
* :func:`query_answer_pairs` -- StatDP-style candidate pairs of query answers
  (:mod:`refdp.audit.pairs`);
* :func:`clopper_pearson_lower`, :func:`clopper_pearson_upper` -- exact
  binomial bounds rounded toward safety;
* ``refdp audit module:callable`` -- the command line (:mod:`refdp.audit.cli`).
"""
from ._sampling import vectorise
from .blackbox import BlackBoxAudit, PairReport, audit_black_box, audit_delta
from .clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from .erm_whitebox import WhiteBoxERMAudit, erm_whitebox
from .exact import ExactAudit, audit_exact
from .pairs import PATTERNS, PairSearch, pattern_pairs, query_answer_pairs, search_pairs

__all__ = [
    "audit_black_box", "audit_delta", "BlackBoxAudit", "PairReport", "vectorise",
    "audit_exact", "ExactAudit",
    "erm_whitebox", "WhiteBoxERMAudit",
    "query_answer_pairs", "pattern_pairs", "search_pairs", "PairSearch", "PATTERNS",
    "clopper_pearson_lower", "clopper_pearson_upper",
]
