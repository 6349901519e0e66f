"""Valid example calls of refdp.verify's public callables, for the generated fuzz test.

Each entry maps a qualified name to a zero-argument factory returning
``(callable, keyword arguments)``: a tiny valid call naming every parameter
the fuzz perturbs.
"""
from fractions import Fraction

import mpmath

from refdp.verify import (
    AllEpsilonProof, Check, CheckResult, FailingRange, MechanismCheck, Outcome, Verdict,
    add_remove_neighbours, adversarial_pairs, all_checks, all_datasets, as_distribution, check_algebraic,
    check_domain, check_mechanism, check_pairs, decide_enclosures, decide_leq, decide_leq_interval,
    distribution_pair, enclose, higher_precision, hockey_stick_divergence, ivworkdps, labelled_domain,
    log_moment, lower, max_divergence, neighbour_function, neighbouring_pairs, prove_for_all_epsilon,
    register, renyi_divergence, replace_one_neighbours, run_check, summarise, summarise_proofs, upper,
    worst_verdict,
)


def rr(d, ctx):
    """Exact law of randomized response with parameter ln 3 on a one-bit dataset."""
    p = ctx.mpf(3) / 4
    return {d[0]: p, 1 - d[0]: 1 - p}


def rr_t(d, t):
    """The same law, rational in t = e**epsilon."""
    return {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}


def _check():
    return CheckResult(measured=0.5, bound=1.0, verdict="holds", digits=30, method="certified")


def _mechanism_check():
    return check_mechanism(rr, [(0,), (1,)], epsilon=1.2)


def _proof():
    return prove_for_all_epsilon(rr_t, [(0,), (1,)])


_P, _Q = [0.75, 0.25], [0.25, 0.75]

EXAMPLES = {
    "refdp.verify.AllEpsilonProof": lambda: (AllEpsilonProof, dict(
        verdict=Verdict.HOLDS, m=1, failures=(), pairs_checked=1, conditions=4, polynomials=2)),
    "refdp.verify.FailingRange": lambda: (FailingRange, dict(low=None, high=None, pair=((0,), (1,)), output=0)),
    "refdp.verify.check_algebraic": lambda: (check_algebraic, dict(
        law=rr_t, datasets=[(0,), (1,)], epsilon=1, m=1, neighbours="replace", delta=0, domain=None,
        ordered=False, max_dps=50, law_epsilon=None)),
    "refdp.verify.prove_for_all_epsilon": lambda: (prove_for_all_epsilon, dict(
        law=rr_t, datasets=[(0,), (1,)], m=1, neighbours="replace", domain=None, ordered=False)),
    "refdp.verify.summarise_proofs": lambda: (summarise_proofs, dict(proofs=[_proof()], labels=None)),
    "refdp.verify.MechanismCheck": lambda: (MechanismCheck, dict(
        verdict=Verdict.HOLDS, divergence=mpmath.mpf(1), enclosure=None, bound=1.2, kind="max", epsilon=1.2,
        delta=0.0, worst_pair=((0,), (1,)), worst_output=0, event=None, pairs_checked=1, failing_pairs=0,
        undecided_pairs=0, dps=30)),
    "refdp.verify.check_mechanism": lambda: (check_mechanism, dict(
        distribution_fn=rr, datasets=[(0,), (1,)], epsilon=1.2, delta=0.0, neighbours="replace", dps=20,
        domain=None, ordered=False, max_dps=60, certificate=None, algebraic=None, client=None, progress=False)),
    "refdp.verify.check_pairs": lambda: (check_pairs, dict(
        distribution_fn=rr, pairs=[((0,), (1,))], epsilon=1.2, delta=0.0, dps=20, relation="given pairs",
        max_dps=60, client=None, progress=False)),
    "refdp.verify.higher_precision": lambda: (higher_precision, dict(dps=30)),
    "refdp.verify.summarise": lambda: (summarise, dict(results=[_mechanism_check()], labels=None)),
    "refdp.verify.as_distribution": lambda: (as_distribution, dict(dist=_P, name="dist", owner="example")),
    "refdp.verify.distribution_pair": lambda: (distribution_pair, dict(p=_P, q=_Q, owner="example")),
    "refdp.verify.hockey_stick_divergence": lambda: (hockey_stick_divergence, dict(p=_P, q=_Q, epsilon=0.5, dps=None)),
    "refdp.verify.log_moment": lambda: (log_moment, dict(p=_P, q=_Q, lam=2.0, dps=None)),
    "refdp.verify.max_divergence": lambda: (max_divergence, dict(p=_P, q=_Q, with_output=False, dps=None)),
    "refdp.verify.renyi_divergence": lambda: (renyi_divergence, dict(p=_P, q=_Q, order=2.0, dps=None)),
    "refdp.verify.add_remove_neighbours": lambda: (add_remove_neighbours, dict(dataset=(0,), domain=(0, 1), ordered=False)),
    "refdp.verify.adversarial_pairs": lambda: (adversarial_pairs, dict(
        distribution_fn=rr, domain=(0, 1), size=1, neighbours="replace", ordered=False, divergence="max",
        epsilon=None, restarts=1, steps=2, top=1, dps=15, rng=0)),
    "refdp.verify.all_datasets": lambda: (all_datasets, dict(domain=(0, 1), max_size=2, ordered=False, min_size=0)),
    "refdp.verify.check_domain": lambda: (check_domain, dict(domain=(0, 1), owner="example", ordered=True)),
    "refdp.verify.labelled_domain": lambda: (labelled_domain, dict(xs=(0, 1), labels=(0, 1))),
    "refdp.verify.neighbour_function": lambda: (neighbour_function, dict(
        neighbours="replace", domain=(0, 1), ordered=False, owner="example")),
    "refdp.verify.neighbouring_pairs": lambda: (neighbouring_pairs, dict(
        datasets=[(0,), (1,)], neighbours="replace", domain=None, ordered=False, owner="example")),
    "refdp.verify.replace_one_neighbours": lambda: (replace_one_neighbours, dict(dataset=(0,), domain=(0, 1), ordered=False)),
    "refdp.verify.Check": lambda: (Check, dict(name="example", claim="1 <= 2", func=_check, covers=(), quick=True,
                                               module="example", cost=1.0)),
    "refdp.verify.CheckResult": lambda: (CheckResult, dict(
        measured=0.5, bound=1.0, verdict="holds", digits=30, detail="", method="certified", evidence=None)),
    "refdp.verify.Outcome": lambda: (Outcome, dict(check=None, result=None, seconds=0.5, error="")),
    "refdp.verify.all_checks": lambda: (all_checks, dict()),
    "refdp.verify.register": lambda: (register, dict(name="example", claim="1 <= 2", covers=(), quick=True, cost=1.0)),
    "refdp.verify.run_check": lambda: (run_check, dict(check=Check("example", "1 <= 2", _check))),
    "refdp.verify.decide_enclosures": lambda: (decide_enclosures, dict(lhs=Fraction(1, 3), rhs=0.5)),
    "refdp.verify.decide_leq": lambda: (decide_leq, dict(lhs=lambda ctx: ctx.mpf(1) / 3, rhs=lambda ctx: ctx.mpf(1) / 2, dps=20)),
    "refdp.verify.decide_leq_interval": lambda: (decide_leq_interval, dict(
        lhs=lambda ctx: ctx.mpf(1) / 3, rhs=lambda ctx: ctx.mpf(1) / 2, dps=20)),
    "refdp.verify.enclose": lambda: (enclose, dict(x=Fraction(1, 3), ctx=None)),
    "refdp.verify.ivworkdps": lambda: (ivworkdps, dict(dps=20)),
    "refdp.verify.lower": lambda: (lower, dict(x=Fraction(1, 3))),
    "refdp.verify.upper": lambda: (upper, dict(x=Fraction(1, 3))),
    "refdp.verify.Verdict": lambda: (Verdict, dict(value="holds")),
    "refdp.verify.worst_verdict": lambda: (worst_verdict, dict(verdicts=["holds", Verdict.UNDECIDED])),
}
