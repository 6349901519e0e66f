"""The exponential mechanism with integer scores is epsilon-DP for every epsilon > 0, proved exactly.

Claim
    McSherry & Talwar 2007, Theorem 6 (Dwork & Roth 2014, Theorem 3.10), as
    implemented by ``refdp.mechanisms.exponential_mechanism_distribution``:
    P[h] = exp(c u(D, h)) / sum_h' exp(c u(D, h')) with c = eps / (2 Delta)
    is eps-DP, and c = eps / Delta suffices when every neighbour moves all
    utilities in the same direction (``monotone=True``).
Setting
    As mcsherry_talwar.exponential_mechanism_privacy_exhaustive: multisets over range(k),
    k = 1..4, of size <= 3; candidates are the domain elements, the utility
    is the histogram count (Delta = 1). Replace-one with the general scale,
    law written in t = e^(eps/2) (m = 2, P[h] = t^u_h / sum t^u_h');
    add/remove with the monotone scale, t = e^eps (m = 1). The laws are
    compared with the library's exact law at eps = 1 in the test suite.
Precision
    Exact, for every epsilon at once: ``refdp.verify.prove_for_all_epsilon``
    (real-root isolation over QQ; docs/theory/algebraic_verdicts.rst). The
    wrong variant exp(eps u / Delta) under replace-one fails for every
    epsilon; the test suite checks that.
"""
from __future__ import annotations

from refdp.verify.algebraic import prove_for_all_epsilon, summarise_proofs
from refdp.verify.neighbours import all_datasets
from refdp.verify.registry import register

DOMAIN_SIZES = (1, 2, 3, 4)
MAX_SIZE = 3
COVERS = ("refdp.mechanisms.exponential_mechanism", "refdp.mechanisms.exponential_mechanism_distribution")


def law(k, power=1):
    """Histogram-count utilities over range(k): P[h] = t^(power u_h) / sum_h' t^(power u_h')."""

    def exp_mech(dataset, t):
        weights = [t ** (power * dataset.count(h)) for h in range(k)]
        total = sum(weights)
        return [w / total for w in weights]

    return exp_mech


def proofs(max_size=MAX_SIZE, power=1):
    results, labels = [], []
    for k in DOMAIN_SIZES:
        datasets = list(all_datasets(range(k), max_size))
        relations = (("add_remove", 1),) if k == 1 else (("replace", 2), ("add_remove", 1))
        for relation, m in relations:
            results.append(prove_for_all_epsilon(law(k, power), datasets, m=m, neighbours=relation,
                                                 domain=range(k)))
            labels.append(f"k={k}, {relation}, t = e^(eps/{m})")
    return results, labels


@register("mcsherry_talwar.exponential_mechanism_all_epsilon",
          "exp(eps u/2) (replace-one) and exp(eps u) for monotone u (add/remove) are eps-DP for every "
          "eps > 0: histogram counts over <= 4 candidates, datasets of size <= 3 (exact: root isolation)",
          covers=COVERS)
def all_epsilon():
    return summarise_proofs(*proofs())
