"""Valid example calls of refdp.audit's public callables, for the generated fuzz test.

Each entry maps a qualified name to a zero-argument factory returning
``(callable, keyword arguments)``: a tiny valid call naming every parameter
the fuzz perturbs.
"""
import numpy as np

from refdp.audit import (
    BlackBoxAudit, ExactAudit, PairReport, PairSearch, WhiteBoxERMAudit, audit_black_box, audit_delta,
    audit_exact, clopper_pearson_lower, clopper_pearson_upper, erm_whitebox, pattern_pairs,
    query_answer_pairs, search_pairs, vectorise,
)
from refdp.audit.erm_whitebox import ERMRelease
from refdp.verify import Verdict


def randomized_response(bit, n, rng):
    """ln(3)-DP randomized response on one bit (batch form)."""
    keep = rng.random(n) < 0.75
    return np.where(keep, bit, 1 - bit)


def noisy_sum(a, n, rng):
    return np.asarray(a, dtype=float).sum() + rng.laplace(0.0, 2.0, size=n)


def one_rr(bit, rng):
    return bit if rng.random() < 0.75 else 1 - bit


def rr_law(d, ctx):
    """Exact law of randomized response with parameter ln 3 on the bit ``d == (1,)``.

    Defined for every dataset (the fuzz passes any hashable one in ``pairs``): a
    law that raised on some dataset would raise its own error, which the audit
    rightly passes on unchanged.
    """
    p = ctx.mpf(3) / 4
    bit = int(d == (1,))
    return {bit: p, 1 - bit: 1 - p}


def output_rule(epsilon, n, regularization, curvature, data_norm):
    """Output perturbation as Chaudhuri et al. state it: beta = n Lambda epsilon / 2."""
    return {"noise_rate": n * regularization * epsilon / (2 * data_norm), "regularization": regularization}


_BB = dict(n_samples=4000, initial_samples=400, tolerance=0.01, holdout_pairs=1, float_bits=False, rng=0,
           progress=False, client=None, shard_size=1 << 20, max_selection=None)

EXAMPLES = {
    "refdp.audit.audit_black_box": lambda: (audit_black_box, dict(
        mechanism=randomized_response, pairs=[(0, 1)], claimed_epsilon=1.2, claimed_delta=0.0,
        delta_at_epsilon=None, confidence=0.9, epsilon_bound=True, holdout_test="auto", **_BB)),
    "refdp.audit.audit_delta": lambda: (audit_delta, dict(
        mechanism=randomized_response, pairs=[(0, 1)], claimed_epsilon=1.2, claimed_delta=0.01)),
    "refdp.audit.BlackBoxAudit": lambda: (BlackBoxAudit, dict(
        epsilon_lower=0.5, claimed_epsilon=1.0, claimed_delta=0.0, confidence=0.95, violation=False,
        pair=(0, 1), reversed=False, pair_label="#0", event="{1}", counts=(10, 20, 5, 20), p_lower=0.3,
        p_upper=0.4, delta_at_epsilon=None, delta_lower=None, delta_detail={}, tests=1, beta=0.025,
        pairs_searched=1, samples=80, seconds=0.1, pairs=[])),
    "refdp.audit.PairReport": lambda: (PairReport, dict(index=0, label="#0", datasets=(0, 1))),
    "refdp.audit.vectorise": lambda: (vectorise, dict(mechanism=one_rr)),
    "refdp.audit.audit_exact": lambda: (audit_exact, dict(
        distribution=rr_law, claimed_epsilon=1.1, claimed_delta=0.0, pairs=[((0,), (1,))], datasets=None,
        neighbours="replace", domain=None, ordered=False, orders=(2.0,), dps=20)),
    "refdp.audit.ExactAudit": lambda: (ExactAudit, dict(
        verdict=Verdict.HOLDS, claimed_epsilon=1.1, claimed_delta=0.0, epsilon=1.0986,
        epsilon_enclosure=(1.0986, 1.0987), worst_pair=((0,), (1,)), worst_output=0, delta=0.0,
        delta_pair=((0,), (1,)), delta_event=())),
    "refdp.audit.erm_whitebox": lambda: (erm_whitebox, dict(
        rule=output_rule, epsilon=1.0, n=2, regularization=1.0, data_norm=1.0, loss="logistic", huber_h=0.5,
        mechanism="output", dimension=1, intercept=False, grid_points=None, dps=20, record_search=False)),
    "refdp.audit.WhiteBoxERMAudit": lambda: (WhiteBoxERMAudit, dict(
        verdict=Verdict.HOLDS, epsilon=1.0, ratio=(0.5, 0.6), worst_pair=((), ()), worst_output=(),
        release=ERMRelease(1.0, 1.0), method="certified")),
    "refdp.audit.query_answer_pairs": lambda: (query_answer_pairs, dict(length=3, componentwise=True)),
    "refdp.audit.pattern_pairs": lambda: (pattern_pairs, dict(dim=3, patterns=None)),
    "refdp.audit.search_pairs": lambda: (search_pairs, dict(
        mechanism=noisy_sum, dim=2, claimed_epsilon=0.5, patterns=["one below"], sensitivity=1.0,
        local_rounds=0, local_moves=4, screen_samples=400, finalists=1, confidence=0.9, n_samples=2000,
        claimed_delta=0.0, delta_at_epsilon=None, tolerance=0.01, holdout_pairs=1, float_bits=False,
        rng=0, progress=False, client=None, max_selection=None, holdout_test="binomial")),
    "refdp.audit.PairSearch": lambda: (PairSearch, dict(
        audit=None, screened=[], finalists=[], screening_samples=0)),
    "refdp.audit.clopper_pearson_lower": lambda: (clopper_pearson_lower, dict(k=3, n=10, beta=0.05)),
    "refdp.audit.clopper_pearson_upper": lambda: (clopper_pearson_upper, dict(k=[3, 0], n=[10, 5], beta=0.05)),
}
