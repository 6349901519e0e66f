"""Randomised response is epsilon-DP for every epsilon > 0, proved exactly.

Claim
    Dwork & Roth 2014, Sec. 3.2 (Warner 1965): reporting the true value of a
    record with probability e^eps / (e^eps + k - 1) and each of the k - 1
    other values with probability 1 / (e^eps + k - 1) is eps-DP, and no
    better: the divergence is exactly eps (Claim 3.5 for k = 2).
Setting
    One record over a domain of k values, k in {2, 3, 4}; replace-one
    neighbours (every pair of distinct values). The law is written in
    t = e^eps (m = 1).
Precision
    Exact: ``refdp.verify.prove_for_all_epsilon`` isolates the real roots
    t > 1 of each condition polynomial over the rationals
    (docs/theory/algebraic_verdicts.rst). The wrong variant with e^(2 eps)
    fails for every epsilon; the test suite checks that.
"""
from __future__ import annotations

from refdp.verify.algebraic import prove_for_all_epsilon, summarise_proofs
from refdp.verify.registry import register

SIZES = (2, 3, 4)


def law(k, power=1):
    """Randomised response on ``range(k)`` in ``t = e^eps``; ``power=2`` is the wrong variant."""

    def rr(dataset, t):
        w = t ** power
        return {v: (w if v == dataset[0] else 1) / (w + k - 1) for v in range(k)}

    return rr


def proof(k, power=1):
    return prove_for_all_epsilon(law(k, power), [(v,) for v in range(k)], m=1, domain=range(k))


@register("dwork_roth.randomised_response_all_epsilon",
          "randomised response on k in {2, 3, 4} values is eps-DP for every eps > 0 "
          "(exact: real-root isolation over QQ in t = e^eps)",
          covers=("refdp.verify.prove_for_all_epsilon",))
def all_epsilon():
    return summarise_proofs([proof(k) for k in SIZES], [f"k={k}" for k in SIZES])

