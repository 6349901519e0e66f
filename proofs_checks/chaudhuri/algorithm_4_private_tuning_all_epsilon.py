"""Private tuning's selection step is epsilon-DP for every epsilon > 0, proved exactly.

Claim
    Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 4, step 4, as implemented
    by ``refdp.erm.tuning_selection_distribution``: releasing f_i with
    probability proportional to exp(-eps z_i / 2), z_i the mistakes of f_i on
    the held-out part, is eps-DP with respect to the held-out part
    (replace-one). The composition with the training step is in
    docs/theory/erm.rst.
Setting
    As chaudhuri.private_tuning_selection: the three fixed classifiers
    sign(theta x), theta in {-1, 1/2, 2}, held-out multisets of 1 to 3
    records (x, y), x in {-1, -1/2, 1/2, 1}, y = +-1, every replace-one
    neighbour. Law in t = e^(eps/2) (m = 2): P[i] = t^-z_i / sum_j t^-z_j.
Precision
    Exact, for every epsilon at once: ``refdp.verify.prove_for_all_epsilon``
    (real-root isolation over QQ; docs/theory/algebraic_verdicts.rst). The
    wrong variant exp(-eps z_i) fails; the test suite checks that.
"""
from __future__ import annotations

from proofs_checks.chaudhuri.algorithm_4_private_tuning import XS, mistakes
from refdp.verify.algebraic import prove_for_all_epsilon
from refdp.verify.neighbours import all_datasets, labelled_domain
from refdp.verify.registry import register

MAX_SIZE = 3


def law(power=1):
    """P[i] proportional to t^(-power z_i), t = e^(eps/2)."""

    def selection(dataset, t):
        weights = [t ** (-power * z) for z in mistakes(dataset)]
        total = sum(weights)
        return [w / total for w in weights]

    return selection


def proof(power=1, max_size=MAX_SIZE):
    domain = labelled_domain(XS, labels=(-1, 1))
    return prove_for_all_epsilon(law(power), list(all_datasets(domain, max_size, min_size=1)), m=2,
                                 neighbours="replace", domain=domain)


@register("chaudhuri.private_tuning_selection_all_epsilon",
          "Algorithm 4's selection exp(-eps z_i/2) is eps-DP for every eps > 0 on every held-out multiset "
          "of 1..3 records (exact: root isolation in t = e^(eps/2))",
          covers=("refdp.erm.private_tuning", "refdp.erm.tuning_selection_distribution"))
def all_epsilon():
    return proof().as_check_result()
