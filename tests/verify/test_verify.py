"""Tests of refdp.verify: divergences, verdicts, neighbours and check_mechanism."""
from __future__ import annotations

import math
import re
from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from refdp.verify import (
    SUM_TOLERANCE,
    CheckResult,
    Verdict,
    adversarial_pairs,
    add_remove_neighbours,
    all_datasets,
    check_mechanism,
    check_pairs,
    decide_enclosures,
    decide_leq,
    decide_leq_interval,
    hockey_stick_divergence,
    labelled_domain,
    log_moment,
    max_divergence,
    renyi_divergence,
    replace_one_neighbours,
    summarise,
    worst_verdict,
)
from tests._support.paths import DOCS

# The divergence tests compute their mpmath reference values at a raised global precision (refdp
# itself never reads it); the reset fixture of tests/conftest.py restores it after each test.
pytestmark = pytest.mark.changes_global_precision

MESSAGE = re.compile(r"^The '[^']+' parameter of .+ must be .+\. Got .+ instead\.$", re.S)


def rr(epsilon):
    """Randomised response on one bit, reporting it with probability e^eps / (1 + e^eps)."""

    def dist(dataset):
        e = mpmath.exp(mpmath.mpf(epsilon))
        return {dataset[0]: e / (1 + e), 1 - dataset[0]: 1 / (1 + e)}

    return dist


# ---------------------------------------------------------------------------
# Divergences on hand-computed examples
# ---------------------------------------------------------------------------

P_RR, Q_RR = [F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]


def test_max_divergence_randomised_response():
    # |ln((3/4)/(1/4))| = ln 3 on both outputs
    mpmath.mp.dps = 40   # for the reference value only; refdp never reads it
    value, output = max_divergence(P_RR, Q_RR, with_output=True, dps=40)
    assert abs(value - mpmath.log(3)) < mpmath.mpf(10) ** -38
    assert output in (0, 1)


def test_hockey_stick_randomised_response():
    # sum_o max(0, P - e^0.5 Q) = (3/4 - e^0.5/4) + max(0, 1/4 - 3 e^0.5/4) = 3/4 - e^0.5/4
    mpmath.mp.dps = 40
    want = mpmath.mpf(3) / 4 - mpmath.exp(mpmath.mpf(0.5)) / 4
    assert abs(hockey_stick_divergence(P_RR, Q_RR, 0.5, dps=40) - want) < mpmath.mpf(10) ** -38
    # at eps >= ln 3 the divergence is zero: e^eps Q dominates P everywhere
    assert hockey_stick_divergence(P_RR, Q_RR, 1.1) == 0


def test_renyi_and_log_moment_randomised_response():
    # order 2: ln(sum p^2/q) = ln(9/4 + 1/12) = ln(7/3); alpha(1) = 1 * D_2 = ln(7/3)
    mpmath.mp.dps = 40
    want = mpmath.log(mpmath.mpf(7) / 3)
    assert abs(renyi_divergence(P_RR, Q_RR, 2, dps=40) - want) < mpmath.mpf(10) ** -38
    assert abs(log_moment(P_RR, Q_RR, 1, dps=40) - want) < mpmath.mpf(10) ** -38
    # order 3: ln(sum p^3/q^2) / 2 = ln((27/64)/(1/16) + (1/64)/(9/16)) / 2 = ln(27/4 + 1/36) / 2
    #        = ln(244/36) / 2
    assert abs(renyi_divergence(P_RR, Q_RR, 3, dps=40) - mpmath.log(mpmath.mpf(244) / 36) / 2) < mpmath.mpf(10) ** -38


def test_asymmetric_support():
    # P = (1/2, 1/2, 0), Q = (1/4, 1/4, 1/2)
    p = {"a": F(1, 2), "b": F(1, 2)}          # "c" missing: probability exactly 0
    q = {"a": F(1, 4), "b": F(1, 4), "c": F(1, 2)}
    mpmath.mp.dps = 30
    assert max_divergence(p, q) == mpmath.inf
    # total variation at eps = 0 in both directions: 1/4 + 1/4 = 1/2 and 1/2
    assert hockey_stick_divergence(p, q, 0) == mpmath.mpf(1) / 2
    assert hockey_stick_divergence(q, p, 0) == mpmath.mpf(1) / 2
    # eps = 0.5: P || Q = 2 (1/2 - e^0.5/4); Q || P = 1/2 (only output "c")
    e = mpmath.exp(mpmath.mpf(0.5))
    assert abs(hockey_stick_divergence(p, q, 0.5) - 2 * (mpmath.mpf(1) / 2 - e / 4)) < mpmath.mpf(10) ** -28
    assert hockey_stick_divergence(q, p, 0.5) == mpmath.mpf(1) / 2
    # D_2(P||Q) = ln(2 * (1/4)/(1/4)) = ln 2; D_2(Q||P) infinite
    assert abs(renyi_divergence(p, q, 2) - mpmath.log(2)) < mpmath.mpf(10) ** -28
    assert renyi_divergence(q, p, 2) == mpmath.inf
    assert log_moment(q, p, 0.5) == mpmath.inf


def test_mixed_numeric_types_agree():
    mpmath.mp.dps = 30
    exact = max_divergence([F(1, 2), F(1, 4), F(1, 4)], [F(1, 4), F(1, 2), F(1, 4)])
    mixed = max_divergence(np.array([0.5, 0.25, 0.25]), [mpmath.mpf(1) / 4, 0.5, F(1, 4)])
    assert exact == mixed == mpmath.log(2)


def test_interval_inputs_give_enclosures():
    mpmath.mp.dps = 30
    mpmath.iv.dps = 30
    try:
        p = [mpmath.iv.mpf(3) / 4, mpmath.iv.mpf(1) / 4]
        value = max_divergence(p, Q_RR)
        assert hasattr(value, "_mpi_")          # an interval (of a context owned by the call)
        assert value.a <= mpmath.log(3) <= value.b
        assert value.delta < mpmath.mpf(10) ** -28
    finally:
        mpmath.iv.dps = 15


# ---------------------------------------------------------------------------
# Renyi divergence against closed forms
# ---------------------------------------------------------------------------


def bernoulli_renyi(p, q, a):
    """Closed form D_a(Ber(p) || Ber(q)) = ln(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) / (a - 1)."""
    return mpmath.log(p ** a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("order", [1.5, 2, 7.25, 32])
def test_renyi_randomised_response_closed_form(epsilon, order):
    mpmath.mp.dps = 40
    e = mpmath.exp(mpmath.mpf(epsilon))
    p = e / (1 + e)
    got = renyi_divergence([p, 1 - p], [1 - p, p], order, dps=40)
    want = bernoulli_renyi(p, 1 - p, mpmath.mpf(order))
    assert abs(got - want) < mpmath.mpf(10) ** -35
    # eps-DP => (eps^2/2)-zCDP (Bun & Steinke 2016, Prop. 3.3): D_a <= a eps^2 / 2, and D_a <= eps
    assert got <= min(mpmath.mpf(order) * mpmath.mpf(epsilon) ** 2 / 2, mpmath.mpf(epsilon))


@pytest.mark.parametrize("n", [1, 5, 12])
def test_renyi_binomial_is_n_times_bernoulli(n):
    # Bin(n, p) is a sufficient statistic of n i.i.d. Ber(p): D_a(Bin(n,p)||Bin(n,q)) = n D_a(Ber p||Ber q)
    mpmath.mp.dps = 40
    p, q, a = mpmath.mpf(3) / 10, mpmath.mpf(1) / 2, mpmath.mpf(2.5)

    def binom(r):
        return [mpmath.binomial(n, k) * r ** k * (1 - r) ** (n - k) for k in range(n + 1)]

    got = renyi_divergence(binom(p), binom(q), 2.5, dps=40)
    assert abs(got - n * bernoulli_renyi(p, q, a)) < mpmath.mpf(10) ** -34


@pytest.mark.parametrize("lam", [0.5, 1, 2, 8])
def test_log_moment_is_lambda_times_renyi(lam):
    mpmath.mp.dps = 40
    p, q = [F(1, 2), F(1, 3), F(1, 6)], [F(1, 3), F(1, 3), F(1, 3)]
    assert abs(log_moment(p, q, lam) - lam * renyi_divergence(p, q, lam + 1)) < mpmath.mpf(10) ** -35


probabilities = st.lists(st.integers(1, 50), min_size=2, max_size=6)


@given(probabilities, probabilities)
def test_divergence_orderings(a, b):
    # D_a is non-decreasing in a and bounded by D_inf <= max divergence; alpha(lambda) >= 0;
    # the hockey-stick divergence vanishes at eps above the max divergence.
    k = min(len(a), len(b))
    p = [F(x, sum(a[:k])) for x in a[:k]]
    q = [F(x, sum(b[:k])) for x in b[:k]]
    mpmath.mp.dps = 30
    d2, d4, d16 = (renyi_divergence(p, q, o) for o in (2, 4, 16))
    dmax = max_divergence(p, q)
    tol = mpmath.mpf(10) ** -25
    assert -tol <= d2 <= d4 + tol and d4 <= d16 + tol and d16 <= dmax + tol
    assert log_moment(p, q, 3) >= -tol
    assert hockey_stick_divergence(p, q, float(dmax) + 1e-9) == 0
    tv = sum(max(0, x - y) for x, y in zip(p, q))  # total variation, exact in fractions
    assert abs(hockey_stick_divergence(p, q, 0) - mpmath.mpf(tv.numerator) / tv.denominator) < tol


# ---------------------------------------------------------------------------
# Verdicts: equality within precision is UNDECIDED and fails closed
# ---------------------------------------------------------------------------


def test_equality_at_the_bound_is_undecided_and_fails_closed():
    # Randomised response with eps = 1 has max divergence exactly 1 = the claimed bound. The
    # enclosure of ln(P/P') has positive width, so "<= 1" can be neither proved nor refuted:
    # UNDECIDED, and UNDECIDED does not pass.
    r = check_mechanism(rr(1.0), [(0,), (1,)], epsilon=1.0)
    assert r.verdict is Verdict.UNDECIDED
    assert not r.passed and not r.verdict.passed
    lo, hi = r.enclosure
    assert lo <= 1 <= hi and hi - lo < mpmath.mpf(10) ** -28
    assert r.as_check_result().verdict is Verdict.UNDECIDED
    # the two-precision decide_leq agrees: undecided
    v, _, _ = decide_leq(lambda: mpmath.log(mpmath.e / (1 + mpmath.e)) + mpmath.log(1 + mpmath.e),
                         lambda: mpmath.mpf(1))
    assert v is Verdict.UNDECIDED


def test_margin_beyond_precision_decided_by_more_digits():
    # randomised response at eps_mech = 1 - 1e-40 against the bound 1: the margin 1e-40 is below
    # the resolution of 30 digits (UNDECIDED) and above that of 60 digits (HOLDS).
    def dist(d):
        e = mpmath.exp(1 - mpmath.mpf(10) ** -40)
        return {d[0]: e / (1 + e), 1 - d[0]: 1 / (1 + e)}

    assert check_mechanism(dist, [(0,), (1,)], 1.0, dps=30, max_dps=30).verdict is Verdict.UNDECIDED
    assert check_mechanism(dist, [(0,), (1,)], 1.0, dps=60).verdict is Verdict.HOLDS
    # adaptive precision: undecided at 30 digits, retried at 60 and decided
    r = check_mechanism(dist, [(0,), (1,)], 1.0, dps=30)
    assert r.verdict is Verdict.HOLDS and r.max_dps_used == 60 and r.method == "estimated"
    assert check_mechanism(dist, [(0,), (1,)], 1.0 - 2 ** -52, dps=60).verdict is Verdict.FAILS


def test_exact_point_equality_holds():
    # with exact (binary) probabilities the hockey-stick divergence is a point: 1/64 <= 1/64 HOLDS
    def dist(d):
        return {("leak", d[0]): F(1, 64), ("rr", 0): F(63, 128), ("rr", 1): F(63, 128)}

    r = check_mechanism(dist, [(0,), (1,)], epsilon=0.0, delta=1 / 64)
    assert r.verdict is Verdict.HOLDS and r.divergence == mpmath.mpf(1) / 64
    assert r.enclosure[0] == r.enclosure[1]


def test_precision_dependent_values_widen_the_enclosure():
    # randomised response (3/4, 1/4) perturbed by 10^-(dps/2): 1e-15 at 30 digits, 1e-35 at 70.
    # The divergence is ln 3 + O(1e-35), below the next double above ln 3 by about 1e-16, but the
    # evaluations disagree by 1e-15, so the enclosure is that wide and the claim is UNDECIDED.
    def dist(d):
        wobble = mpmath.mpf(10) ** -(mpmath.mp.dps // 2)
        p = mpmath.mpf(3) / 4 + wobble
        return {0: p, 1: 1 - p} if d[0] == 0 else {0: F(1, 4), 1: F(3, 4)}

    eps = math.nextafter(float(mpmath.log(3)), math.inf)
    r = check_mechanism(dist, [(0,), (1,)], epsilon=eps, max_dps=30)
    lo, hi = r.enclosure
    assert hi - lo > mpmath.mpf(10) ** -16
    assert lo < eps < hi
    assert r.verdict is Verdict.UNDECIDED
    # with adaptive precision the wobble shrinks below the margin: an estimate, labelled so
    r = check_mechanism(dist, [(0,), (1,)], epsilon=eps)
    assert r.verdict is Verdict.HOLDS and r.method == "estimated"


def test_mpf_zero_against_an_exact_zero_is_not_a_failure():
    # an mpf zero at both precisions is an estimated zero: against an exact 0 (or another mpf
    # zero) it contributes nothing -- it used to be a false FAILS; the verdict says "estimated"
    def inexact(d):
        return {0: mpmath.mpf(1) / 2, 1: mpmath.mpf(1) / 2, 2: mpmath.mpf(0) if d[0] else 0}

    def exact(d):
        return {0: F(1, 2), 1: F(1, 2), 2: 0}

    r = check_mechanism(inexact, [(0,), (1,)], 1.0)
    assert r.verdict is Verdict.HOLDS and r.method == "estimated"
    r = check_mechanism(exact, [(0,), (1,)], 0.0)
    assert r.verdict is Verdict.HOLDS and r.divergence == 0 and r.method == "certified"


def test_decide_leq_interval_three_values():
    assert decide_leq_interval(lambda: mpmath.iv.log(2), lambda: F(7, 10))[0] is Verdict.HOLDS
    assert decide_leq_interval(lambda: mpmath.iv.log(2), lambda: F(69, 100))[0] is Verdict.FAILS
    assert decide_leq_interval(lambda: mpmath.iv.log(mpmath.iv.exp(2)), lambda: 2)[0] is Verdict.UNDECIDED
    # an exact point equality holds
    assert decide_enclosures(F(1, 2), 0.5) is Verdict.HOLDS


def test_worst_verdict():
    H, U, X = Verdict.HOLDS, Verdict.UNDECIDED, Verdict.FAILS
    assert worst_verdict([H, H]) is H
    assert worst_verdict([H, U, H]) is U
    assert worst_verdict([U, X, H]) is X
    assert worst_verdict([]) is H


# ---------------------------------------------------------------------------
# check_mechanism
# ---------------------------------------------------------------------------


def test_check_mechanism_reports_worst_pair_and_output():
    r = check_mechanism(rr(0.5), [(0,), (1,)], epsilon=1.0)
    assert r.verdict is Verdict.HOLDS
    assert set(r.worst_pair) == {(0,), (1,)}
    assert abs(r.divergence - mpmath.mpf(0.5)) < mpmath.mpf(10) ** -29
    assert r.pairs_checked == 1 and r.failing_pairs == 0
    res = r.as_check_result()
    assert isinstance(res, CheckResult) and res.digits == 30
    assert "worst pair" in res.detail and "(0,)" in res.detail


def test_check_mechanism_approximate_dp_direction_and_event():
    # leak (d[0], "leak") with probability 1/8 else RR at eps 0.5: delta(1.0) = 1/8 in both directions
    def dist(d):
        e = mpmath.exp(mpmath.mpf(0.5))
        keep = mpmath.mpf(7) / 8
        return {("leak", d[0]): F(1, 8), ("leak", 1 - d[0]): 0,
                ("rr", d[0]): keep * e / (1 + e), ("rr", 1 - d[0]): keep / (1 + e)}

    r = check_mechanism(dist, [(0,), (1,)], epsilon=1.0, delta=0.1)
    assert r.verdict is Verdict.FAILS
    assert r.divergence == mpmath.mpf(1) / 8
    d, _ = r.worst_pair
    assert r.event == (("leak", d[0]),) and r.worst_output == ("leak", d[0])
    assert check_mechanism(dist, [(0,), (1,)], epsilon=1.0, delta=0.125).verdict is Verdict.HOLDS


def test_distribution_fn_called_at_both_precisions():
    seen = []

    def dist(d):
        seen.append(mpmath.mp.dps)
        return rr(1.0)(d)

    check_mechanism(dist, [(0,), (1,)], epsilon=2.0, dps=25)
    assert sorted(set(seen)) == [25, 60]
    assert len(seen) == 4  # each dataset once per precision (cached)


def test_callable_neighbours_and_sequence_outputs():
    # a counting mechanism on bit strings: output the count of ones + {-1, 0, +1} uniformly is not
    # pure DP in general (support shifts); neighbours given as a callable flipping one bit
    def flip(d):
        return [d[:i] + (1 - d[i],) + d[i + 1:] for i in range(len(d))]

    def shifted(d):
        c = sum(d)
        return [F(1, 3) if abs(k - c) <= 1 else 0 for k in range(-1, 5)]

    r = check_mechanism(shifted, list(all_datasets((0, 1), 3, ordered=True, min_size=3)),
                        epsilon=5.0, neighbours=flip, ordered=True)
    assert r.verdict is Verdict.FAILS and r.divergence == mpmath.inf
    d, e = r.worst_pair
    assert sum(x != y for x, y in zip(d, e)) == 1


def test_summarise_picks_the_failing_sweep():
    ok = check_mechanism(rr(0.5), [(0,), (1,)], 1.0)
    bad = check_mechanism(rr(1.5), [(0,), (1,)], 1.0)
    res = summarise([ok, bad], ["ok", "bad"])
    assert res.verdict is Verdict.FAILS and "[bad]" in res.detail
    assert abs(res.measured - mpmath.mpf(1.5)) < 1e-20


# ---------------------------------------------------------------------------
# Bad inputs: one message shape
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda: max_divergence([0.5, 0.6], [0.5, 0.5]),                    # sums to 1.1
    lambda: max_divergence([F(1, 2), F(1, 2) + 2 * SUM_TOLERANCE], [0.5, 0.5]),
    lambda: max_divergence([1.5, -0.5], [0.5, 0.5]),                   # negative
    lambda: max_divergence([0.5, 0.5], [0.25, 0.25, 0.5]),             # different lengths
    lambda: max_divergence([0.5, float("nan")], [0.5, 0.5]),
    lambda: max_divergence([], []),
    lambda: max_divergence("ab", [0.5, 0.5]),
    lambda: hockey_stick_divergence([0.5, 0.5], [0.5, 0.5], -1.0),     # eps < 0
    lambda: renyi_divergence([0.5, 0.5], [0.5, 0.5], 1.0),             # order <= 1
    lambda: log_moment([0.5, 0.5], [0.5, 0.5], 0),
    lambda: check_mechanism(rr(1.0), [(0,), (1,)], -0.5),
    lambda: check_mechanism(rr(1.0), [(0,), (1,)], 1.0, delta=1.5),
    lambda: check_mechanism(rr(1.0), [(0,), (1,)], 1.0, neighbours="swap"),
    lambda: check_mechanism(rr(1.0), [(0,), (1,)], 1.0, dps=2),
    lambda: check_mechanism(rr(1.0), [], 1.0),
    lambda: check_mechanism(rr(1.0), [(0,)], 1.0, domain=(0,)),         # no neighbour at all
    lambda: check_mechanism(lambda d: [0.5, 0.6], [(0,), (1,)], 1.0),  # not a distribution
    lambda: check_mechanism(lambda d: [1.0] if d == (0,) else [0.5, 0.5], [(0,), (1,)], 1.0),
    lambda: check_pairs(rr(1.0), [(0,)], 1.0),
    lambda: replace_one_neighbours((0, 3), (0, 1, 2)),                  # 3 not in the domain
    lambda: list(all_datasets((0, 1, 0), 2)),                           # repeated element
    lambda: list(all_datasets((0, 1), -1)),
    lambda: adversarial_pairs(rr(1.0), (0, 1), 0),
])
def test_bad_inputs_raise_one_message_shape(call):
    with pytest.raises(ValueError) as info:
        result = call()
        if hasattr(result, "__next__"):
            list(result)
    assert MESSAGE.match(str(info.value)), str(info.value)


def test_bad_distribution_message_names_dataset_and_values():
    with pytest.raises(ValueError, match=r"dataset \(1,\).*summing to 1\.1"):
        check_mechanism(lambda d: [0.5, 0.5] if d == (0,) else [0.5, 0.6], [(0,), (1,)], 1.0)
    with pytest.raises(ValueError, match=r"-0\.5 for output 1"):
        max_divergence([1.5, -0.5], [0.5, 0.5])


def test_sum_tolerance_admits_float_rounding():
    p = [0.1] * 10  # sums to 0.9999999999999999 in floating point
    assert sum(p) != 1.0
    assert max_divergence(p, p) == 0


# ---------------------------------------------------------------------------
# Neighbours
# ---------------------------------------------------------------------------


def is_replace(d, e, ordered):
    if len(d) != len(e):
        return False
    if ordered:
        return sum(x != y for x, y in zip(d, e)) == 1
    return sum((Counter(d) - Counter(e)).values()) == 1


def is_add_remove(d, e, ordered):
    small, big = (d, e) if len(d) < len(e) else (e, d)
    if len(big) != len(small) + 1:
        return False
    if ordered:
        return any(big[:i] + big[i + 1:] == small for i in range(len(big)))
    return sum((Counter(big) - Counter(small)).values()) == 1 and not Counter(small) - Counter(big)


sizes = st.integers(0, 5)
domains = st.integers(1, 4)


@given(sizes, domains, st.data())
def test_replace_one_counts(n, m, data):
    dom = tuple(range(m))
    d = tuple(data.draw(st.lists(st.sampled_from(dom), min_size=n, max_size=n)))
    seq = list(replace_one_neighbours(d, dom, ordered=True))
    assert len(seq) == len(set(seq)) == n * (m - 1)
    assert all(is_replace(d, e, True) for e in seq)
    ms = list(replace_one_neighbours(d, dom))
    assert len(ms) == len(set(ms)) == len(set(d)) * (m - 1)
    assert all(is_replace(tuple(sorted(d)), e, False) and e == tuple(sorted(e)) for e in ms)


@given(sizes, domains, st.data())
def test_add_remove_counts(n, m, data):
    dom = tuple(range(m))
    d = tuple(data.draw(st.lists(st.sampled_from(dom), min_size=n, max_size=n)))
    runs = sum(1 for i in range(n) if i == 0 or d[i] != d[i - 1])
    seq = list(add_remove_neighbours(d, dom, ordered=True))
    assert len(seq) == len(set(seq)) == runs + (n + 1) * m - n
    assert all(is_add_remove(d, e, True) for e in seq)
    ms = list(add_remove_neighbours(d, dom))
    assert len(ms) == len(set(ms)) == len(set(d)) + m
    assert all(is_add_remove(tuple(sorted(d)), e, False) for e in ms)


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("relation", [replace_one_neighbours, add_remove_neighbours])
def test_neighbour_relations_are_symmetric_and_complete(ordered, relation):
    dom = (0, 1, 2)
    universe = set(all_datasets(dom, 4, ordered=ordered))
    pred = is_replace if relation is replace_one_neighbours else is_add_remove
    for d in all_datasets(dom, 3, ordered=ordered):
        got = set(relation(d, dom, ordered=ordered))
        assert got == {e for e in universe if pred(d, e, ordered)}  # sizes <= 4: all in universe
        for e in got:
            assert d in set(relation(e, dom, ordered=ordered))


def test_all_datasets_counts():
    # multisets of size n over m elements: C(m + n - 1, n); sequences: m^n
    for m in range(1, 5):
        for n in range(0, 5):
            ms = list(all_datasets(range(m), n, min_size=n))
            assert len(ms) == len(set(ms)) == math.comb(m + n - 1, n)
            seqs = list(all_datasets(range(m), n, ordered=True, min_size=n))
            assert len(seqs) == len(set(seqs)) == m ** n


def test_labelled_domain():
    assert labelled_domain([2, 1]) == ((1, 0), (1, 1), (2, 0), (2, 1))
    assert labelled_domain([0], labels=("a", "b", "c")) == ((0, "a"), (0, "b"), (0, "c"))


# ---------------------------------------------------------------------------
# Adversarial search
# ---------------------------------------------------------------------------


def walk(step, query=2, alpha=F(1, 10)):
    def dist(dataset):
        bound = mpmath.log((1 - mpmath.mpf(alpha.numerator) / alpha.denominator)
                           / (mpmath.mpf(alpha.numerator) / alpha.denominator))
        lo = mpmath.mpf(0)
        for x, y in sorted(dataset):
            if x <= query:
                lo = min(max(lo + mpmath.mpf(step) * (2 * y - 1), -bound), bound)
        return {1: 1 / (1 + mpmath.exp(-lo)), 0: 1 / (1 + mpmath.exp(lo))}

    return dist


def test_adversarial_search_finds_a_violation_on_larger_data():
    dom = labelled_domain(range(4))
    found = adversarial_pairs(walk(1.0), dom, 6, restarts=2, steps=10, rng=7)
    assert found and all(is_replace(d, e, False) for (d, e), _ in found)
    assert [v for _, v in found] == sorted((v for _, v in found), reverse=True)
    r = check_pairs(walk(1.0), [pair for pair, _ in found], 1.0)
    assert r.verdict is Verdict.FAILS and r.divergence > 1.4
    # deterministic for a seed
    assert adversarial_pairs(walk(1.0), dom, 6, restarts=2, steps=10, rng=7) == found
    # the correct step passes on the pairs the search finds most dangerous for it
    safe = adversarial_pairs(walk(0.5), dom, 6, restarts=2, steps=10, rng=7)
    assert check_pairs(walk(0.5), [pair for pair, _ in safe], 1.0).verdict is Verdict.HOLDS


# ---------------------------------------------------------------------------
# The examples of docs/verification.rst print what the page says they print
# ---------------------------------------------------------------------------


def _rst_blocks(path):
    """(language, dedented body) of every ``.. code-block::`` of a page, in order."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"(\s*)\.\. code-block:: (\w+)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1)) + 3
        i += 1
        body = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) >= indent):
            body.append(lines[i][indent:])
            i += 1
        blocks.append((m.group(2), "\n".join(body).strip("\n")))
    return blocks


def test_verification_page_examples(capsys):
    import os

    page = os.path.join(DOCS, "verification.rst")
    blocks = _rst_blocks(page)
    pairs = [(code, out) for (lang, code), (lang2, out) in zip(blocks, blocks[1:])
             if lang == "python" and lang2 == "text"]
    assert len(pairs) == 2
    for code, expected in pairs:
        exec(compile(code + "\n", "verification.rst", "exec"), {"__name__": "verification_example"})
        printed = capsys.readouterr().out.strip("\n")
        assert printed == expected


def test_dataset_generators_check_their_arguments_when_called():
    # the refusal comes at the call, not at the first iteration
    with pytest.raises(ValueError, match=r"^The 'domain' parameter of all_datasets"):
        all_datasets([], 2)
    for gen in (replace_one_neighbours, add_remove_neighbours):
        with pytest.raises(ValueError, match=rf"^The 'dataset' parameter of {gen.__name__}"):
            gen(None, (0, 1))
        with pytest.raises(ValueError, match=rf"^The 'dataset' parameter of {gen.__name__}"):
            gen(np.array(0), (0, 1))
        # a dataset outside the domain: the message names both sides of the relation
        with pytest.raises(ValueError, match=r"elements of 'domain'"):
            gen((0,), (5, 6))


def test_datasets_of_unhashable_records_are_refused():
    with pytest.raises(ValueError, match=r"^The 'datasets' parameter of check_mechanism"):
        check_mechanism(lambda d: [1.0], np.zeros((2, 1, 1), dtype=int), epsilon=1.0)


def test_verdict_of_a_non_value_names_value():
    assert Verdict("holds") is Verdict.HOLDS and Verdict(Verdict.FAILS) is Verdict.FAILS
    for bad in ("maybe", np.array([]), 1, None):
        with pytest.raises(ValueError, match=r"^The 'value' parameter of Verdict"):
            Verdict(bad)
