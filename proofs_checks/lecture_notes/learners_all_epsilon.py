"""The exponential-mechanism learner and one posterior sample are epsilon-DP for every epsilon, proved exactly.

Claim
    Lecture notes (Y.-X. Wang, "DPML I", Sec. 9.1.2 and Sec. 9.2; proofs in
    docs/theory/learning.rst), as implemented in :mod:`refdp.learning`:
    (a) sampling h with probability proportional to exp(-eps n R(h) / 2), R
    the empirical risk of a loss in [0, 1], is eps-DP for replace-one
    neighbours; (b) one sample from the tempered posterior
    pi(theta) exp(-tau sum_i loss(z_i, theta)), loss in [0, B], with
    tau = eps / (2B) (replace-one) or eps / B (add/remove), is eps-DP.
Setting
    (a) As lecture_notes.exponential_mechanism_learner_privacy: records
    (x, y), x in {0, 1, 2}, y in {0, 1}; the 8 labelings with the 0/1 loss
    (law in t = e^(eps/2), m = 2: P[h] = t^-errors(h) / sum) and the 27 soft
    predictors with |h(x) - y| in {0, 1/2, 1} (t = e^(eps/4), m = 4:
    P[h] = t^-(2 n R(h)) / sum); every multiset of 1 to 2 records (quick)
    or 1 to 3 records (full).
    (b) As lecture_notes.one_posterior_sample_privacy: records in {0, 1, 2},
    the loss table B * SHAPE with entries in {0, B/2, B}, so that
    exp(-tau loss) = t^-(2 SHAPE) (replace-one) or t^-(4 SHAPE)
    (add/remove) with t = e^(eps/4), m = 4, whatever B; a prior with
    rational weights (1, 20, 1/3, 2) (the law is rational in t only when
    e^r(theta) is rational; these approximate the check's log-prior
    (0, 3, -1, 1/2)) and the prior (1, 3000, 1, 1); every multiset of at most
    3 records, both relations.
Precision
    Exact, for every epsilon at once: ``refdp.verify.prove_for_all_epsilon``
    (real-root isolation over QQ; docs/theory/algebraic_verdicts.rst). The
    wrong variants (exp(-eps n R) for the learner; tau = eps/B under
    replace-one for the posterior) fail; the test suite checks that.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

from proofs_checks.lecture_notes.one_posterior_sample_privacy import SHAPE
from refdp.verify.algebraic import prove_for_all_epsilon, summarise_proofs
from refdp.verify.neighbours import all_datasets, labelled_domain
from refdp.verify.registry import register

XS = (0, 1, 2)
DOMAIN = labelled_domain(XS)
HALF = Fraction(1, 2)
CLASSES = {
    "labelings, 0/1 loss": (list(itertools.product((0, 1), repeat=len(XS))), 2),
    "soft predictors, |h(x) - y|": (list(itertools.product((0, HALF, 1), repeat=len(XS))), 4),
}
PRIORS = ((1, 20, Fraction(1, 3), 2), (1, 3000, 1, 1))
RECORDS = (0, 1, 2)


def learner_law(hypotheses, m, power=1):
    """P[h] proportional to t^(-power (m/2) n R(h)), t = e^(eps/m): exp(-eps n R / 2) for power 1."""

    def law(dataset, t):
        exps = []
        for h in hypotheses:
            errors = sum(abs(h[x] - y) for x, y in dataset)       # n R(h), a multiple of 1/2
            exps.append(int(power * Fraction(m, 2) * errors))
        weights = [t ** -k for k in exps]
        total = sum(weights)
        return [w / total for w in weights]

    return law


def posterior_law(prior, relation, power=1):
    """P[theta] proportional to prior[theta] t^(-c sum_i SHAPE[theta][z_i]), c = 2 (replace) or 4 (add/remove)."""
    c = (2 if relation == "replace" else 4) * power

    def law(dataset, t):
        weights = [w * t ** -int(c * sum(row[z] for z in dataset)) for w, row in zip(prior, SHAPE)]
        total = sum(weights)
        return [w / total for w in weights]

    return law


def learner_proofs(power=1, max_size=3):
    datasets = list(all_datasets(DOMAIN, max_size, min_size=1))
    results, labels = [], []
    for name, (hypotheses, m) in CLASSES.items():
        results.append(prove_for_all_epsilon(learner_law(hypotheses, m, power), datasets, m=m,
                                             neighbours="replace", domain=DOMAIN))
        labels.append(f"{name}, t = e^(eps/{m})")
    return results, labels


def posterior_proofs(power=1, max_size=3):
    datasets = list(all_datasets(RECORDS, max_size))
    results, labels = [], []
    for prior in PRIORS:
        for relation in ("replace", "add_remove"):
            results.append(prove_for_all_epsilon(posterior_law(prior, relation, power), datasets, m=4,
                                                 neighbours=relation, domain=RECORDS))
            labels.append(f"prior {prior}, {relation}")
    return results, labels


@register("lecture_notes.exponential_mechanism_learner_all_epsilon",
          "exp(-eps n R(h)/2) over 8 labelings (0/1 loss) and 27 soft predictors is eps-DP for every "
          "eps > 0, replace-one, datasets of 1..2 records (exact: root isolation)",
          covers=("refdp.learning.finite_class.exponential_mechanism_learner",
                  "refdp.learning.finite_class.exponential_mechanism_learner_distribution"))
def learner_all_epsilon():
    return summarise_proofs(*learner_proofs(max_size=2))


@register("lecture_notes.exponential_mechanism_learner_all_epsilon_full",
          "as lecture_notes.exponential_mechanism_learner_all_epsilon, datasets of 1..3 records",
          covers=("refdp.learning.finite_class.exponential_mechanism_learner",
                  "refdp.learning.finite_class.exponential_mechanism_learner_distribution"),
          quick=False)
def learner_all_epsilon_full():
    return summarise_proofs(*learner_proofs(max_size=3))


@register("lecture_notes.one_posterior_sample_all_epsilon",
          "one tempered posterior sample (tau = eps/(2B) replace-one, eps/B add/remove, rational prior "
          "weights) is eps-DP for every eps > 0, datasets of <= 3 records (exact: root isolation)",
          covers=("refdp.learning.posterior.one_posterior_sample",
                  "refdp.learning.posterior.posterior_temperature"))
def posterior_all_epsilon():
    return summarise_proofs(*posterior_proofs())
