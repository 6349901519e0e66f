"""The geometric and truncated geometric mechanisms are epsilon-DP for every epsilon > 0, proved exactly.

Claim
    Ghosh, Roughgarden & Sundararajan 2009, Sec. 2 (Definition of the
    alpha-geometric mechanism, alpha = e^-eps): releasing a count c plus
    two-sided geometric noise, P[z] = (1 - alpha)/(1 + alpha) alpha^|z - c|,
    is eps-DP for counts of sensitivity 1; so is its truncation to
    {0, ..., n}, which moves the mass below 0 to 0 and the mass above n to n
    (a post-processing).
Setting
    Datasets are multisets of bits of size <= 4; the count is the number of
    ones (replace-one and add/remove neighbours change it by at most 1).
    Untruncated: the integers are finitely many cases, because for z <= -1
    (and for z >= n + 1) the ratio P_c(z)/P_c'(z) = alpha^(c - c') does not
    depend on z; the law is checked on the outputs -1, ..., n + 1 with the
    two tails lumped into "z <= -1" (mass alpha^(c+1)/(1 + alpha)) and
    "z >= n + 1", whose ratios are the per-point ratios there. Both laws in
    t = e^eps (m = 1).
Precision
    Exact: ``refdp.verify.prove_for_all_epsilon`` (real-root isolation over
    QQ; docs/theory/algebraic_verdicts.rst). The wrong variant with
    alpha = e^(-2 eps) fails for every epsilon; the test suite checks that.
"""
from __future__ import annotations

from refdp.verify.algebraic import prove_for_all_epsilon, summarise_proofs
from refdp.verify.neighbours import all_datasets
from refdp.verify.registry import register

MAX_SIZE = 4
RELATIONS = ("replace", "add_remove")


def geometric_law(n, power=1):
    """Two-sided geometric noise on the count, outputs 'low' (z <= -1), 0..n, 'high' (z >= n + 1)."""

    def law(dataset, t):
        a = 1 / t ** power                      # alpha = e^(-eps)
        c = sum(dataset)
        out = {"low": a ** (c + 1) / (1 + a), "high": a ** (n + 1 - c) / (1 + a)}
        for z in range(n + 1):
            out[z] = (1 - a) / (1 + a) * a ** abs(z - c)
        return out

    return law


def truncated_geometric_law(n, power=1):
    """The geometric mechanism truncated to {0, ..., n}."""

    def law(dataset, t):
        a = 1 / t ** power
        c = sum(dataset)
        out = {z: (1 - a) / (1 + a) * a ** abs(z - c) for z in range(1, n)}
        out[0] = a ** c / (1 + a)
        out[n] = a ** (n - c) / (1 + a)
        return out

    return law


def proofs(power=1, max_size=MAX_SIZE):
    results, labels = [], []
    datasets = list(all_datasets((0, 1), max_size))
    for name, make in (("geometric", geometric_law), ("truncated geometric", truncated_geometric_law)):
        for relation in RELATIONS:
            # the output range {0..n} is fixed for the sweep: n = max_size + 1 covers every count
            results.append(prove_for_all_epsilon(make(max_size + 1, power), datasets, m=1,
                                                 neighbours=relation, domain=(0, 1)))
            labels.append(f"{name}, n = {max_size + 1}, {relation}")
    return results, labels


@register("ghosh_roughgarden_sundararajan.geometric_mechanism_all_epsilon",
          "the geometric mechanism and its truncation to {0..n} are eps-DP for every eps > 0 on counts "
          "of bits, datasets of size <= 4, replace-one and add/remove (exact: root isolation in t = e^eps)",
          covers=("refdp.verify.prove_for_all_epsilon",))
def all_epsilon():
    return summarise_proofs(*proofs())
