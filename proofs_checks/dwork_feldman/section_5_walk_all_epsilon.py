"""The projected walk with an integer number of steps to its bound is epsilon-DP for every epsilon, proved exactly.

Claim
    Dwork & Feldman 2018, Sec. 5, as implemented by
    :class:`refdp.prediction.ProjectedWalk` (tie rule and proof in
    docs/theory/projected_walk_sweep.rst): with step s = eps/2 (replace-one)
    or s = eps (add/remove), predicting 1 with probability sigmoid(l(x)) is
    eps-DP, l the walk's log-odds clipped to [-B, B].
Setting
    The walk's states come from the library: ``exact_walk_state`` gives
    l = a s + b B in integers. When B = K s for an integer K (alpha =
    1/(1 + e^(K s))), e^l = t^(a + b K) with t = e^s, so the law
    P[1] = t^j / (1 + t^j) is rational in t = e^(eps/m), m = 2 (replace-one)
    or 1 (add/remove). Every multiset of labelled records over
    {0, 1, 2, 3} x {0, 1} of size <= 4, every neighbour, queries at
    -1, 0, 1, 2, 3 (the prediction at each query is one output pair), K in
    {1, 2, 3}. The law at a query depends on the dataset only through the
    state a + b K, so one neighbouring pair per distinct pair of states is
    decided.
Precision
    Exact, for every epsilon at once: ``refdp.verify.prove_for_all_epsilon``
    (real-root isolation over QQ; docs/theory/algebraic_verdicts.rst). The
    wrong variant (step eps under replace-one) fails; the test suite checks
    that.
"""
from __future__ import annotations

from proofs_checks.dwork_feldman.partition_votes import representative_neighbours
from refdp.prediction.walk import exact_walk_state
from refdp.verify.algebraic import prove_for_all_epsilon, summarise_proofs
from refdp.verify.neighbours import all_datasets, labelled_domain, neighbour_function
from refdp.verify.registry import register

DOMAIN = labelled_domain(range(4))
QUERIES = (-1.0, 0.0, 1.0, 2.0, 3.0)
KS = (1, 2, 3)
MAX_SIZE = 4


def law(big_k, power=1):
    """Outputs (query, label); P[(x, 1)] = t^j/(1 + t^j), j = power (a + b K), per query point.

    The walk at each query is a separate mechanism; listing every query's
    pair of outputs in one mapping (each pair summing to 1) would not be a
    distribution, so the law is one query at a time (see :func:`proofs`).
    """

    def walk(query):
        def at(dataset, t):
            a, b = exact_walk_state(dataset, query, 1, big_k)  # the step is the unit: B = K steps
            w = t ** (power * (a + b * big_k))
            return {1: w / (1 + w), 0: 1 / (1 + w)}
        return at

    return walk


def representatives(big_k, relation, query, max_size=MAX_SIZE):
    """One neighbouring pair per distinct pair of walk states at ``query``, and the number of pairs.

    The law at a query is a function of the state ``a + b K`` alone, so
    pairs with the same two states are the same condition.
    """
    neighbours = neighbour_function(relation, DOMAIN)
    state, reps, n_pairs = {}, {}, 0
    for d in all_datasets(DOMAIN, max_size):
        for e in neighbours(d):
            for x in (d, e):
                if x not in state:
                    a, b = exact_walk_state(x, query, 1, big_k)
                    state[x] = a + b * big_k
            n_pairs += 1
            reps.setdefault(frozenset((state[d], state[e])), (d, e))
    return list(reps.values()), n_pairs


def proofs(max_size=MAX_SIZE, power=1, ks=KS):
    results, labels = [], []
    for big_k in ks:
        for relation, m in (("replace", 2), ("add_remove", 1)):
            for x in QUERIES:
                reps, n_pairs = representatives(big_k, relation, x, max_size)
                results.append(prove_for_all_epsilon(
                    law(big_k, power)(x), [d for d, _ in reps], m=m,
                    neighbours=representative_neighbours(reps, relation)))
                labels.append(f"K={big_k}, {relation}, query {x}: {n_pairs} neighbour pairs, "
                              f"{len(reps)} distinct state pairs")
    return results, labels


@register("dwork_feldman.walk_privacy_all_epsilon",
          "ProjectedWalk with B = K steps (K in {1, 2, 3}) is eps-DP for every eps > 0, replace-one "
          "(step eps/2) and add/remove (step eps), |S| <= 4, five queries (exact: root isolation)",
          covers=("refdp.prediction.walk.ProjectedWalk.predict",))
def all_epsilon():
    return summarise_proofs(*proofs())
