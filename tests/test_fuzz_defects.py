"""Defects found by fuzzing the public API: each input below once wrapped, hung, crashed or
returned a wrong law; each must now give the right result or the standard ValueError."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from refdp import core
from refdp.utils.precision import iv_context, mp_context
from refdp.accounting.pate2017 import lnmax_neighbour_delta, pate2017_epsilon
from refdp.audit import clopper_pearson_lower
from refdp.erm import split_parts
from refdp.learning import (exponential_mechanism_learner, exponential_mechanism_learner_distribution,
                            exponential_mechanism_learner_utility_bound, one_posterior_sample_distribution)
from refdp.mechanisms import (exponential_mechanism, exponential_mechanism_distribution,
                              report_noisy_max_distribution)
from refdp.pate import (PATEAccountant, exact_analysis, exact_delta, lnmax_distribution,
                        partition_by_group, partition_by_record, release_epsilon, smooth_sensitivity)
from refdp.pate._args import MIN_DISCRETE_GAMMA
from refdp.utils.votes import MAX_GAMMA_VOTES

U = 2.0**-53


def run_with_deadline(code: str, seconds: float) -> list:
    """Run ``code`` in a fresh interpreter (nogil loops cannot be interrupted in-process).

    The code appends ``(label, outcome)`` pairs to ``out``; the pairs are returned.
    Fails the test if the interpreter does not finish within ``seconds``.
    """
    prog = "import json, numpy as np\nout = []\n" + textwrap.dedent(code) + "\nprint(json.dumps(out))\n"
    try:
        done = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish within {seconds} s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- uint64 counts and other integers that int64 cannot hold -------------------------------

INT64_RANGE = r"must be an array of integers in the int64 range \[-2\*\*63, 2\*\*63 - 1\]"


@pytest.mark.parametrize("counts", [
    np.array([2**64 - 1, 5], dtype=np.uint64),        # wrapped to -1: the law came out [0.062, 0.938]
    np.array([2**63, 0], dtype=np.uint64),
    [2**64 - 1, 5],                                     # numpy makes this uint64
    [-1, 2**64 - 1],                                    # ... and this float64
    np.array([1e19, 1.0]),
    np.array([9.3e18, 0.0], dtype=np.longdouble),
])
def test_counts_beyond_int64_are_rejected_not_wrapped(counts):
    with pytest.raises(ValueError, match=r"The 'counts' parameter of lnmax_distribution " + INT64_RANGE):
        lnmax_distribution(counts, 0.5)


def test_row_totals_beyond_int64_are_rejected():
    msg = (r"The 'counts' parameter of exact_analysis must be an array whose rows each sum to at most "
           r"2\*\*63 - 1. Got a row summing to 9223372036854775808 at position \(1,\) instead.")
    with pytest.raises(ValueError, match=msg):
        exact_analysis([[1, 1], [2**62, 2**62]], 1e-30)


def test_integer_inputs_that_fit_are_taken_exactly():
    want = lnmax_distribution([5, 3, 0], 0.4)
    for counts in (np.array([5, 3, 0], dtype=np.uint64), np.array([5, 3, 0], dtype=np.uint8),
                   np.array([5.0, 3.0, -0.0]), np.array([5, 3, 0], dtype=">u8"),
                   np.array([5, 9, 3, 9, 0], dtype=np.int16)[::2]):
        np.testing.assert_array_equal(lnmax_distribution(counts, 0.4), want)
    ro = np.array([5, 3, 0])
    ro.setflags(write=False)
    np.testing.assert_array_equal(lnmax_distribution(ro, 0.4), want)
    # the largest int64 counts are accepted and exact (one class: probability 1)
    assert lnmax_distribution(np.array([2**63 - 1], dtype=np.uint64), 1e-30).tolist() == [1.0]


def test_other_integer_arrays_do_not_wrap():
    with pytest.raises(ValueError, match="'counts' parameter of lemma4_log_q " + INT64_RANGE):
        core.lemma4_log_q(np.array([[2**64 - 1, 1]], dtype=np.uint64), 0.1)
    with pytest.raises(ValueError, match="'k' parameter of clopper_pearson_lower " + INT64_RANGE):
        clopper_pearson_lower(np.array([2**64 - 1], dtype=np.uint64), 2**63 - 1, 0.05)
    # unsigned votes beyond int64 are labels outside [0, n_classes), reported at their position
    votes = np.zeros((2, 3), dtype=np.uint64)
    votes[1, 2] = 2**64 - 1
    with pytest.raises(ValueError, match=r"labels in \[0, 2\)\. Got 18446744073709551615 at position "
                                         r"\(teacher=1, query=2\)"):
        core.count_votes(votes, 2)
    assert core.count_votes(np.array([[1, 0]], dtype=np.uint64), 2).tolist() == [[0, 1], [1, 0]]


# --- LNMax: gamma * T bounded, every call terminates ----------------------------------------

def test_listed_lnmax_calls_return_or_raise_quickly():
    out = run_with_deadline("""
        from refdp.pate import lnmax_distribution, exact_analysis
        for label, call in [
            ("law", lambda: lnmax_distribution([2, 0], 1e308)),
            ("law log", lambda: lnmax_distribution([2, 0], 1e308, log=True)),
            ("law exact", lambda: lnmax_distribution([2, 0], 1e308, exact=True, dps=15)),
            ("analysis", lambda: exact_analysis([[3, 0]], 1e308)),
            ("analysis continuous", lambda: exact_analysis([[3, 0]], 1e308, noise="continuous")),
            ("wrong law", lambda: lnmax_distribution([3, 3, 1], 1e20)),
            ("log_q", lambda: exact_analysis([[3, 0]], 2e5, noise="continuous")),
        ]:
            try:
                call()
                out.append((label, "returned"))
            except ValueError as e:
                out.append((label, str(e)))
    """, 60)
    want = {
        "law": "lnmax_distribution", "law log": "lnmax_distribution", "law exact": "lnmax_distribution",
        "analysis": "exact_analysis", "analysis continuous": "exact_analysis",
        "wrong law": "lnmax_distribution", "log_q": "exact_analysis",
    }
    limits = {"law": "4096.0", "law log": "4096.0", "law exact": "4096.0", "analysis": "2730.6666666666665",
              "analysis continuous": "2730.6666666666665", "wrong law": "1170.2857142857142",
              "log_q": "2730.6666666666665"}
    assert [label for label, _ in out] == list(want)
    for label, message in out:
        assert message.startswith(f"The 'gamma' parameter of {want[label]} must be a float in the range "
                                  f"(0, {limits[label]}] (gamma times the "), (label, message)


def test_gamma_limit_is_the_largest_accepted_double():
    for total in (3, 7, 250, 1000, 99991):
        with pytest.raises(ValueError) as info:
            lnmax_distribution([total - 1, 1], 1e9)
        limit = float(str(info.value).split("(0, ")[1].split("]")[0])
        assert Fraction(limit) * total <= MAX_GAMMA_VOTES
        assert Fraction(math.nextafter(limit, math.inf)) * total > MAX_GAMMA_VOTES
        assert np.all(np.isfinite(lnmax_distribution([total - 1, 1], limit)))
        with pytest.raises(ValueError, match="'gamma' parameter of lnmax_distribution"):
            lnmax_distribution([total - 1, 1], math.nextafter(limit, math.inf))


def _largest_gamma(total):
    """The largest double gamma with gamma * total <= MAX_GAMMA_VOTES exactly."""
    g = MAX_GAMMA_VOTES / total
    return g if Fraction(g) * total <= MAX_GAMMA_VOTES else math.nextafter(g, 0.0)


def _mp_log_law(counts, gamma):
    ctx = mp_context(60)
    return [ctx.log(p) for p in report_noisy_max_distribution(counts, 2 * Fraction(gamma), ctx=ctx)]


@pytest.mark.parametrize("counts", [[3, 3, 1], [2, 0], [1000, 0, 0], [240, 10], [125, 125, 0],
                                    [5, 4, 3, 2, 1, 0], [7] * 6 + [6] * 6])
def test_law_at_the_largest_gamma_matches_mpmath(counts):
    gamma = _largest_gamma(sum(counts))             # (3, 3, 1): 1170.3, where 1e20 gave (0.875, 0.875, 0)
    lp = lnmax_distribution(counts, gamma, log=True)
    exact = _mp_log_law(counts, gamma)
    for v, e in zip(lp, exact):
        # the documented bound: 1e-12 (closed forms) + 4 u gamma T (exponents) beyond the spacing near log P
        assert abs(v - float(e)) <= 1e-12 + 4 * U * MAX_GAMMA_VOTES + 4 * U * abs(float(e)), (v, e)
    assert abs(math.fsum(np.exp(lp)) - 1) <= 1e-12


@pytest.mark.parametrize("counts", [[3, 0], [3, 3, 1], [250, 2, 1], [6, 5, 0, 0]])
def test_exact_analysis_log_q_never_below_the_exact_value(counts):
    total = sum(counts)
    ctx = iv_context(60)
    star = int(np.argmax(counts))
    for gamma in (0.05, 1.0, 20.0, 300.0, _largest_gamma(total)):
        if Fraction(gamma) * total > MAX_GAMMA_VOTES:
            continue
        got = exact_analysis([counts], gamma, [2.0], noise="continuous").log_q[0]
        law = report_noisy_max_distribution(counts, 2 * Fraction(gamma), ctx=ctx)
        miss = ctx.fsum(p for j, p in enumerate(law) if j != star)
        assert got >= float(ctx.log(miss).b), (counts, gamma, got)


def test_other_gamma_entry_points_are_bounded():
    c = [[3, 0]]
    for call, owner in [
        (lambda: exact_delta(c, 1e308, 1.0), "exact_delta"),
        (lambda: exact_delta(c, 1e5, 1.0), "exact_delta"),               # used to take minutes
        (lambda: lnmax_neighbour_delta(c, 1e308, 1.0), "lnmax_neighbour_delta"),
        (lambda: smooth_sensitivity(c, 1e308, 8.0, 0.01, statistic="exact"), "smooth_sensitivity"),
        (lambda: smooth_sensitivity(c, 1e308, 8.0, 0.01), "smooth_sensitivity"),      # hung (grid inf - inf)
        (lambda: release_epsilon(c, 1e308, 1e-5, order=8.0, epsilon_release=1.0, delta_release=1e-6, rng=0),
         "release_epsilon"),
        (lambda: smooth_sensitivity(c, 1e308, 8.0, 0.01, statistic="exact", noise="continuous"),
         "smooth_sensitivity"),
        (lambda: exact_analysis(c, 1e-20), "exact_analysis"),            # numpy: maximum size exceeded
        (lambda: exact_analysis(c, 5e-324), "exact_analysis"),           # OverflowError
        (lambda: smooth_sensitivity(c, 1e-5, 8.0, 0.01, statistic="exact"), "smooth_sensitivity"),
    ]:
        # (a gamma whose 1/gamma overflows is refused by the declaration, with its own phrase)
        with pytest.raises(ValueError, match=rf"The 'gamma' parameter of {owner} must be (a float in the range|"
                                             r"large enough that 1/gamma is a finite double)"):
            call()
    # an accountant with exact analyses refuses the counts it cannot analyse (NaN moments before)
    acc = PATEAccountant(1e20, exact=True)
    with pytest.raises(ValueError, match=r"'gamma' parameter of PATEAccountant.add_counts must be a float in the "
                                         r"range \(0, 2730.6666666666665\]"):
        acc.add_counts(c)
    assert acc.n_queries == 0
    # discrete analyses work down to their smallest gamma
    r = exact_analysis([[40, 2, 1]], MIN_DISCRETE_GAMMA, [2.0])
    assert np.all(np.isfinite(r.log_moments)) and r.log_moments[0, 0] >= 0


def test_pate2017_script_overflow_is_reported_like_its_division_by_zero():
    r = pate2017_epsilon([[3, 0]], 1e5, 1e-5)
    assert math.isnan(r.epsilon) and r.order == 0 and r.script_error.startswith("OverflowError")
    r = pate2017_epsilon([[3, 0]], 400.0, 1e-5)      # exp(2 gamma) overflows in the script too
    assert math.isnan(r.epsilon) and r.script_error.startswith("OverflowError")


@pytest.mark.slow
def test_numerical_fallback_terminates_at_the_bound():
    # 2300 classes: the closed form's error bound always fails, so the piece of length
    # gamma * 1 = 8192 is integrated numerically (at most gamma T / 2 + C ln C / 4 + ... intervals)
    out = run_with_deadline("""
        from refdp.pate import lnmax_distribution
        lp = lnmax_distribution([1] + [0] * 2299, 8192.0, log=True)
        out.append(("top", float(lp[0])))
        out.append(("other", float(lp[1])))
    """, 300)
    top, other = out[0][1], out[1][1]
    assert -1e-12 < top <= 0 and other < -8000


# --- the exponential mechanism at the extremes of the doubles ------------------------------

def test_listed_exponential_mechanism_calls():
    p = exponential_mechanism_distribution([0, 3, 1], 1.0, sensitivity=1e-320)    # NaN before
    assert p.tolist() == [0.0, 1.0, 0.0]
    p = exponential_mechanism_distribution([0, 3, 1], 5e-324)
    assert p.tolist() == [1 / 3] * 3
    p = exponential_mechanism_distribution([0, 3, 1], 1e308)
    assert p.tolist() == [0.0, 1.0, 0.0]
    for exact in (False, True):
        q = exponential_mechanism_distribution([0, 3, 1], 1e308, exact=exact, dps=20)
        assert [float(x) for x in q] == [0.0, 1.0, 0.0]
    assert exponential_mechanism([0, 3, 1], 1.0, sensitivity=1e-320, rng=0) == 1


def test_huge_exact_inputs_are_refused_before_they_are_built():
    out = run_with_deadline("""
        from decimal import Decimal
        from fractions import Fraction
        from refdp.mechanisms import exponential_mechanism_distribution as E
        from refdp.mechanisms import report_noisy_max_distribution as R
        for label, call in [
            ("str eps", lambda: E([0, 3, 1], "1e999999999")),
            ("str eps exact", lambda: E([0, 3, 1], "1e999999999", exact=True)),
            ("str tiny exact", lambda: E([0, 3, 1], "1e-999999999", exact=True)),
            ("str score exact", lambda: E(["1e999999999", 0], 1.0, exact=True)),
            ("decimal exact", lambda: E([0, 1], Decimal("1e999999999"), exact=True)),
            ("fraction exact", lambda: E([0, Fraction(1, 2**5000)], 1.0, exact=True)),
            ("int exact", lambda: E([0, 1], 10**1000, exact=True)),
            ("noisy max", lambda: R([0, 1], "1e999999999", exact=True)),
        ]:
            try:
                call()
                out.append((label, "returned"))
            except ValueError as e:
                out.append((label, str(e)))
    """, 60)
    assert len(out) == 8
    for label, message in out:
        param = "scores" if "score" in label or "fraction" in label else "epsilon"
        owner = "report_noisy_max_distribution" if label == "noisy max" else "exponential_mechanism_distribution"
        assert message.startswith(f"The '{param}' parameter of {owner} must be "), (label, message)
        if label != "str eps":
            assert "below 2**2048" in message, (label, message)


def test_float_path_takes_no_strings_exact_path_keeps_numeric_strings():
    with pytest.raises(ValueError, match=r"'epsilon' parameter of exponential_mechanism_distribution must be "
                                         r"a float in the range \(0, inf\) \(numeric strings only with exact=True\)"):
        exponential_mechanism_distribution([0, 1], "1/3")
    with pytest.raises(ValueError, match=r"'scores' parameter .* finite doubles .*Got '1' at position \(1,\)"):
        exponential_mechanism_distribution([0, "1"], 1.0)
    p = exponential_mechanism_distribution(["0", "1/3"], "3/2", exact=True, dps=20)
    assert mpmath.nstr(p[1], 20) == "0.56217650088579810403"
    big = exponential_mechanism_distribution(["1e400", 0], 1, exact=True, dps=20)   # 1e400 < 2**2048
    assert big[0] == 1 and 0 < big[1] < mpmath.mpf("1e-1000000")


def _exact_law(scores, eps, sens, monotone):
    return [float(x) for x in exponential_mechanism_distribution(scores, eps, sensitivity=sens,
                                                                  monotone=monotone, exact=True, dps=30)]


def test_float_law_matches_the_exact_law_across_the_double_range():
    vals = [0.0, -0.0, 5e-324, 1e-320, 2.0**-1022, 1e-300, 1.0, 3.0, 1e10, 1e300, 2.0**1023,
            1.7976931348623157e308]
    rng = np.random.default_rng(3)
    for _ in range(150):
        n = int(rng.integers(1, 5))
        scores = [float(rng.choice(vals)) * float(rng.choice([-1, 1])) for _ in range(n)]
        eps, sens = float(rng.choice(vals[2:])), float(rng.choice(vals[2:]))
        monotone = bool(rng.integers(2))
        p = exponential_mechanism_distribution(scores, eps, sensitivity=sens, monotone=monotone)
        assert np.all(np.isfinite(p)), (scores, eps, sens)
        for a, b in zip(p, _exact_law(scores, eps, sens, monotone)):
            # docstring: relative error about (|w| + 2) 2**-52; here |w| <= 745 wherever the weight is normal
            assert abs(a - b) <= 1e-12 * b + 1e-300, (scores, eps, sens, monotone, a, b)


def test_huge_exponents_are_exact_and_fast():
    # exponents of 2**3000 (gamma-scale 2**2000, spread 2**1001) were evaluated at 900 digits
    scores = [-Fraction(2**1000), 0, Fraction(2**1000)]
    for ctx in (None, iv_context(20)):
        p = exponential_mechanism_distribution(scores, Fraction(2**1000), sensitivity=Fraction(1, 2**1000),
                                               exact=True, dps=20, ctx=ctx)
        assert 1 - 1e-15 < float(p[2] if ctx is None else p[2].b) <= 1.0
        # exp(-2**2999) = 2**-k exp(-r): compare with mpmath at full precision on a smaller case
    small = exponential_mechanism_distribution([0, Fraction(2**70, 3)], 1, exact=True, dps=30)
    ref = mp_context(60)
    want = ref.exp(-ref.mpf(2**70) / 3 / 2)
    assert abs(small[0] / want - 1) < mpmath.mpf(10) ** -28


def test_learners_bound_their_counts():
    with pytest.raises(ValueError, match=r"'n_samples' parameter of exponential_mechanism_learner_distribution "
                                         r"must be an int in the range \[1, 9223372036854775807\]"):
        exponential_mechanism_learner_distribution([0.5, 0.1], 1.0, n_samples=10**400)
    with pytest.raises(ValueError, match="'n_samples' parameter of exponential_mechanism_learner "):
        exponential_mechanism_learner([0.5, 0.1], 1.0, n_samples=np.uint64(2**64 - 1), rng=0)
    # an int beyond the double range is an int, not an OverflowError of the validator
    b = exponential_mechanism_learner_utility_bound(1.0, 0.1, n_samples=10, n_hypotheses=10**400)
    assert 184.6 < b < 184.7
    p = exponential_mechanism_learner_distribution(np.array([0.5, -0.0], dtype=np.longdouble), 1.0,
                                                   n_samples=10)
    np.testing.assert_allclose(p, exponential_mechanism_learner_distribution([0.5, 0.0], 1.0, n_samples=10),
                               rtol=0, atol=0)
    q = one_posterior_sample_distribution(np.array([[0, 1], [1, 0]], dtype=np.longdouble), 1.0, exact=True,
                                          dps=20)
    assert [float(x) for x in q] == [0.5, 0.5]


# --- partition helpers take every rng form ---------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda rng: partition_by_record(11, 3, rng),
    lambda rng: partition_by_group(["a", "b", "a", 7, 8], 3, rng),
    lambda rng: np.concatenate(split_parts(11, 3, rng)),
])
def test_partitions_normalise_rng(call):
    a = call(5)
    b = call(np.random.default_rng(5))
    c = call(np.random.SeedSequence(5))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert call(None).shape == a.shape
    with pytest.raises(ValueError, match="'rng' parameter"):
        call("seed")


def test_partition_sizes_are_validated():
    with pytest.raises(ValueError, match=r"'n_teachers' parameter of partition_by_record must be an int in the "
                                         r"range \[1, 5\] \(at most n\). Got 6 instead."):
        partition_by_record(5, 6)
    with pytest.raises(ValueError, match=r"'n' parameter of partition_by_record"):
        partition_by_record(True, 1)
    with pytest.raises(ValueError, match=r"'groups' parameter of partition_by_group must be a non-empty 1-dimensional"):
        partition_by_group("ab", 2)
    with pytest.raises(ValueError, match=r"'n' parameter of partition_by_record must be an int in the range "
                                         r"\[1, 9223372036854775807\]. Got 18446744073709551615 instead."):
        partition_by_record(np.uint64(2**64 - 1), 2)                  # numpy: maximum allowed size exceeded
    with pytest.raises(ValueError, match=r"'n' parameter of split_parts"):
        split_parts(2**70, 2)
    with pytest.raises(ValueError, match=r"'parts' parameter of split_parts"):
        split_parts(4, 0)
    blocks = split_parts(10, 4, 0)
    assert sorted(np.concatenate(blocks).tolist()) == list(range(10))
    assert sorted(len(b) for b in blocks) == [2, 2, 3, 3]


def test_noisy_max_exact_law_bounds_its_working_precision():
    # every double input is accepted (the largest scaled spread, about 2**3122, takes seconds) ...
    p = report_noisy_max_distribution([-1e308, 1e308], 1e308, sensitivity=5e-324)
    assert p.tolist() == [0.0, 1.0]
    # ... exact rationals beyond it (which took minutes at thousands of digits) are refused
    with pytest.raises(ValueError, match=r"The 'scores' parameter of report_noisy_max_distribution must be scores "
                                         r"whose spread times epsilon / \(2 sensitivity\) is below 2\*\*3200"):
        report_noisy_max_distribution([0, Fraction(2**2040)], Fraction(2**2040),
                                      sensitivity=Fraction(1, 2**2040), exact=True)


@pytest.mark.slow
def test_law_near_the_largest_gamma_random_vectors():
    # 360 (vector, gamma) pairs at 1, 1/2 and 1/10 of the largest gamma; measured worst excess 3.7e-13
    rng = np.random.default_rng(17)
    for _ in range(120):
        c = int(rng.choice([2, 3, 5, 10, 20]))
        t = int(rng.choice([1, 5, 50, 250, 1000]))
        counts = rng.multinomial(t, rng.dirichlet(np.full(c, rng.choice([0.1, 1.0, 10.0])))).tolist()
        for frac in (1.0, 0.5, 0.1):
            gamma = _largest_gamma(t) * frac
            lp = lnmax_distribution(counts, gamma, log=True)
            for v, e in zip(lp, _mp_log_law(counts, gamma)):
                assert abs(v - float(e)) <= 1e-12 + 4 * U * MAX_GAMMA_VOTES + 4 * U * abs(float(e)), (counts, gamma)
