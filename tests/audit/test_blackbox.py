"""Black-box audit: detects broken mechanisms, stays below correct claims, refuses bad input.

Statistical outcomes here are deterministic (fixed seeds). Over random seeds,
an audit of a correct mechanism would report a violation with probability at
most 1 - confidence (5%); the seeds below are not chosen for luck: each test
also states the margin by which it passes, and the calibration itself is
checked over many seeds by proofs_checks/audit/clopper_pearson_coverage.py.
"""
import math

import numpy as np
import pytest

from refdp.audit import audit_black_box, query_answer_pairs, vectorise
from refdp.audit.events import Objective
from refdp.mechanisms import laplace_mechanism


def rr(p_truth):
    """Randomised response on one bit: report it with probability p_truth."""
    def mechanism(bit, n, rng):
        return np.where(rng.random(n) < p_truth, bit, 1 - bit)
    return mechanism


def leaky_rr(rho, p_truth):
    """With probability rho output ('leak', bit), else randomised response ('rr', reported bit)."""
    def one(bit, rng):
        if rng.random() < rho:
            return ("leak", bit)
        return ("rr", bit if rng.random() < p_truth else 1 - bit)
    return vectorise(one)


def noisy_max_value(eps):
    def mechanism(answers, n, rng):
        a = np.asarray(answers, dtype=float)
        return (a + rng.laplace(0.0, 2.0 / eps, size=(n, a.size))).max(axis=1)
    return mechanism


# ------------------------------------------------------------ findings ----

def test_detects_randomised_response_claiming_too_little():
    # true epsilon ln 9 = 2.197, claimed ln 3 = 1.099
    r = audit_black_box(rr(0.9), [(0, 1)], math.log(3), n_samples=100_000, rng=1)
    assert r.violation and math.log(3) < r.epsilon_lower <= math.log(9)
    k, n, k2, n2 = r.counts
    # the held-out stage spends what the selection left of the budget
    assert n == n2 == 100_000 - r.pairs[0].selection_samples
    # the reported bound is recomputed from the reported evidence
    assert r.epsilon_lower == pytest.approx(math.log(r.p_lower / r.p_upper), rel=1e-12)
    assert r.p_lower <= k / n and r.p_upper >= k2 / n2
    assert r.tests == 1 and r.beta == pytest.approx(0.025)
    assert r.false_alarm_probability == pytest.approx(0.05)
    assert r.samples == 2 * 100_000


def test_exact_claim_is_not_flagged_and_bound_is_close():
    # randomised response is exactly ln 3-DP; the bound stays below and near it
    r = audit_black_box(rr(0.75), [(0, 1, "bit")], math.log(3), n_samples=400_000, rng=2)
    assert not r.violation
    assert math.log(3) - 0.05 < r.epsilon_lower <= math.log(3)
    assert r.pair_label == "bit"


def test_same_seed_same_result_and_different_seed_differs():
    a = audit_black_box(rr(0.75), [(0, 1)], 1.0, n_samples=40_000, rng=5)
    b = audit_black_box(rr(0.75), [(0, 1)], 1.0, n_samples=40_000, rng=5)
    c = audit_black_box(rr(0.75), [(0, 1)], 1.0, n_samples=40_000, rng=6)
    assert a.epsilon_lower == b.epsilon_lower and a.counts == b.counts
    assert a.counts != c.counts


def test_noisy_max_value_violation_on_vector_pairs():
    # releasing the noisy maximum: on all answers shifted by one the ratio reaches
    # e^(5 eps / 2) = e^1.25 at eps = 0.5 (five Laplace tails), claimed 0.5
    r = audit_black_box(noisy_max_value(0.5), query_answer_pairs(5), 0.5, n_samples=100_000, rng=3)
    assert r.violation and 0.5 < r.epsilon_lower <= 1.25
    # one held-out test, plus one per rarer event the selection could not tell from the chosen one
    assert r.pairs_searched == 8 and r.tests == 1 + sum(len(v) for p in r.pairs for v in p.alternates.values())
    assert r.beta == pytest.approx(0.05 / (2 * r.tests), rel=1e-15)
    assert "output <=" in r.event or "output >=" in r.event or "cells" in r.event


def test_discrete_vector_outputs_and_hashable_outputs():
    # per-call mechanism returning tuples (non-numeric outputs), via vectorise
    r = audit_black_box(leaky_rr(0.05, 0.75), [(0, 1)], math.log(3), n_samples=100_000, rng=4)
    # the leak makes the ratio infinite: ('leak', 0) never happens on bit 1
    assert r.violation and r.epsilon_lower > 3
    assert "leak" in r.event


def test_delta_lower_bound_detects_leak_and_respects_true_delta():
    # leaky randomised response (rho = 0.05) is (ln 3, 0.05)-DP exactly: delta(ln 3) = rho
    mech = leaky_rr(0.05, 0.75)
    r = audit_black_box(mech, [(0, 1)], math.log(3), claimed_delta=0.01, delta_at_epsilon=math.log(3),
                        n_samples=100_000, rng=7)
    assert r.delta_lower is not None and 0.01 < r.delta_lower <= 0.05
    assert r.violation and r.tests == 2 and r.beta == pytest.approx(0.0125)
    ok = audit_black_box(mech, [(0, 1)], math.log(3), claimed_delta=0.05, delta_at_epsilon=math.log(3),
                         n_samples=100_000, rng=7)
    assert ok.delta_lower <= 0.05 and not ok.violation
    # a delta bound at an epsilon below the claim does not contradict the claim
    below = audit_black_box(mech, [(0, 1)], math.log(3), claimed_delta=0.05, delta_at_epsilon=0.5,
                            n_samples=100_000, rng=7)
    assert below.delta_lower > 0.05 and not below.violation


def test_claimed_delta_lowers_the_epsilon_bound():
    r0 = audit_black_box(rr(0.9), [(0, 1)], 1.0, n_samples=40_000, rng=8)
    r1 = audit_black_box(rr(0.9), [(0, 1)], 1.0, claimed_delta=0.5, n_samples=40_000, rng=8)
    assert r1.epsilon_lower < r0.epsilon_lower
    assert r1.epsilon_lower == pytest.approx(math.log((r1.p_lower - 0.5) / r1.p_upper))


def test_holdout_pairs_sets_the_bonferroni_count():
    pairs = [(0, 1), (1, 0), (0, 1, "again")]
    r = audit_black_box(rr(0.9), pairs, 1.0, n_samples=20_000, holdout_pairs=2, rng=9)
    assert r.tests == 2 and r.beta == pytest.approx(0.05 / 4)
    assert sum(bool(p.held_out) for p in r.pairs) == 2
    assert r.pairs_searched == 3


def test_tolerance_stops_the_selection_early_and_zero_uses_the_budget():
    quick = audit_black_box(rr(0.5), [(0, 1)], 1.0, n_samples=2_000_000, tolerance=0.05, rng=10)
    assert quick.pairs[0].selection_samples < 1_000_000   # nothing to find: stable at once
    full = audit_black_box(rr(0.5), [(0, 1)], 1.0, n_samples=80_000, tolerance=0, rng=10)
    assert full.pairs[0].selection_samples == 40_000
    assert not quick.violation and not full.violation


def test_float_bits_detects_the_floating_point_laplace_mechanism():
    # Mironov (2012): numpy's Laplace sampler added to f(D) = 0 or 1 leaves
    # bit patterns in the output that identify f(D); refdp's laplace_mechanism
    # documents this for its textbook path (secure=False; the secure default is
    # audited in tests/mechanisms/test_float_safe.py). Ignoring the bits the audit sees an honest
    # Laplace law.
    def mech(value, n, rng):
        return laplace_mechanism(np.full(n, float(value)), 0.5, rng=rng, secure=False)
    plain = audit_black_box(mech, [(0.0, 1.0)], 0.5, n_samples=200_000, rng=11)
    bits = audit_black_box(mech, [(0.0, 1.0)], 0.5, n_samples=200_000, float_bits=True, rng=11)
    assert not plain.violation and plain.epsilon_lower <= 0.5
    assert bits.violation and bits.epsilon_lower > 5
    assert "mantissa bits" in bits.event and bits.counts[2] == 0


def test_progress_goes_to_stderr(capsys):
    audit_black_box(rr(0.75), [(0, 1)], 1.0, n_samples=20_000, progress=True, rng=12)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "outputs per dataset drawn for selection" in captured.err and "held-out" in captured.err
    audit_black_box(rr(0.75), [(0, 1)], 1.0, n_samples=20_000, progress=False, rng=12)
    assert capsys.readouterr().err == ""


def test_summary_and_dict():
    r = audit_black_box(rr(0.9), [(0, 1)], 1.0, n_samples=20_000, rng=13)
    text = r.summary()
    assert "VIOLATION" in text and "false-alarm probability <= 0.05" in text and str(r) == text
    d = r.as_dict()
    assert d["violation"] is True and d["epsilon_lower"] == r.epsilon_lower
    assert d["pair"] == [0, 1] and d["pair_text"] == ["0", "1"] and len(d["pairs"]) == 1


def test_objective_values():
    eps = Objective("epsilon", 0.1)
    assert eps.value(0.6, 0.25) == pytest.approx(math.log(0.5 / 0.25))
    assert eps.value(0.05, 0.25) == -math.inf
    delta = Objective("delta", math.log(2))
    assert delta.value(0.6, 0.25) == pytest.approx(0.1)


# ------------------------------------------------------------ bad input ----

def _raises(n, rng):
    raise ZeroDivisionError("boom")


@pytest.mark.parametrize("mechanism,pairs,match", [
    (lambda d, n, rng: 1 / 0, [(0, 1)], r"raised ZeroDivisionError: division by zero"),
    (lambda d, n, rng: np.zeros(n - 1), [(0, 1)], r"must be a callable .* Got \d+ outputs returned"),
    (lambda d, n, rng: np.full(n, np.nan), [(0, 1)], r"finite numbers\. Got nan in output #0"),
    (lambda d, n, rng: np.where(np.arange(n) == 3, np.inf, 0.0), [(0, 1)], r"Got inf in output #3"),
    (lambda d, n, rng: None, [(0, 1)], r"Got None returned"),
    (lambda d, n, rng: 3.0, [(0, 1)], r"not a sequence of n_samples outputs"),
    (lambda d, n, rng: np.zeros((n, 2)) if d == 0 else np.zeros((n, 3)), [(0, 1)],
     r"same kind and shape on every call"),
    (lambda d, n, rng: np.zeros(n, dtype=complex), [(0, 1)], r"complex outputs"),
    (lambda d, n, rng: [float("nan")] * n if d else ["a"] * n, [(0, 1)], r"nan in output #0"),
])
def test_bad_mechanisms_raise_clear_errors(mechanism, pairs, match):
    with pytest.raises(ValueError, match=r"The 'mechanism' parameter of audit_black_box") as info:
        audit_black_box(mechanism, pairs, 1.0, n_samples=100, rng=0)
    assert info.match(match)


def test_per_call_mechanism_passed_without_vectorise_gets_a_hint():
    def one(d, rng):
        return d
    with pytest.raises(ValueError, match="refdp.audit.vectorise"):
        audit_black_box(one, [(0, 1)], 1.0, n_samples=100)


def test_mechanism_error_chains_the_original():
    def bad(d, n, rng):
        raise KeyError("missing column")
    with pytest.raises(ValueError) as info:
        audit_black_box(bad, [(0, 1)], 1.0, n_samples=100)
    assert isinstance(info.value.__cause__, KeyError)
    assert "on dataset 0 with n_samples=" in str(info.value)


@pytest.mark.parametrize("pairs,match", [
    ([(0, 0)], r"pairs of two different datasets\. Got the same dataset 0 twice"),
    ([(np.ones(3), np.ones(3))], r"the same dataset \[1\.0, 1\.0, 1\.0\] twice"),
    ([([1, 2], [1, 2], "mine")], r"twice in mine"),
    ([], r"non-empty"),
    (None, r"'pairs' parameter"),
    ([(0, 1, 2, 3)], r"pairs \(D, D'\) or \(D, D', label\)"),
    ("ab", r"'pairs' parameter"),
])
def test_bad_pairs(pairs, match):
    with pytest.raises(ValueError, match=match):
        audit_black_box(rr(0.75), pairs, 1.0, n_samples=100)


def test_generator_of_pairs_is_accepted():
    gen = ((b, 1 - b) for b in (0,))
    r = audit_black_box(rr(0.9), gen, 1.0, n_samples=20_000, rng=14)
    assert r.pairs_searched == 1 and r.violation


@pytest.mark.parametrize("kwargs,name", [
    ({"confidence": 0.0}, "confidence"), ({"confidence": 1.0}, "confidence"),
    ({"confidence": 1.5}, "confidence"), ({"confidence": float("nan")}, "confidence"),
    ({"claimed_epsilon": -1.0}, "claimed_epsilon"), ({"claimed_delta": 1.0}, "claimed_delta"),
    ({"delta_at_epsilon": -0.1}, "delta_at_epsilon"), ({"n_samples": 3}, "n_samples"),
    ({"initial_samples": 1}, "initial_samples"), ({"tolerance": -0.1}, "tolerance"),
    ({"holdout_pairs": 0}, "holdout_pairs"), ({"float_bits": 1}, "float_bits"),
    ({"progress": "yes"}, "progress"), ({"rng": "seed"}, "rng"),
])
def test_bad_parameters_name_themselves(kwargs, name):
    args = {"claimed_epsilon": 1.0, "n_samples": 100}
    args.update(kwargs)
    eps = args.pop("claimed_epsilon")
    with pytest.raises(ValueError, match=f"The '{name}' parameter"):
        audit_black_box(rr(0.75), [(0, 1)], eps, **args)


def test_non_callable_mechanism():
    with pytest.raises(ValueError, match="The 'mechanism' parameter of audit_black_box must be a callable"):
        audit_black_box("rr", [(0, 1)], 1.0)
    with pytest.raises(ValueError, match="The 'mechanism' parameter of vectorise"):
        vectorise(3)


def test_vectorise_keeps_audit_attributes():
    def one(d, rng):
        return d
    one.audit_pairs = [(0, 1)]
    batch = vectorise(one)
    assert batch.audit_pairs == [(0, 1)]
    assert batch(7, 3, np.random.default_rng(0)).tolist() == [7, 7, 7]


@pytest.mark.parametrize("name", ["blackbox", "exact", "pairs", "clopper_pearson"])
def test_docstring_examples_run(name):
    import doctest
    import importlib
    module = importlib.import_module(f"refdp.audit.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
