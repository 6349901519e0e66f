"""The conditional held-out test (Poisson-sized held-out samples, one bound on p / (p + p')).

Statistical tests state their false-failure rate as in test_power.py: a count of
exceedances over seeded repetitions fails only when, were each repetition's
error probability at most the nominal one, it would happen with probability
below 1e-3 (binomial tail).
"""
import json
import math

import numpy as np
import pytest
from scipy import stats

from refdp.audit import audit_black_box, audit_delta, query_answer_pairs
from refdp.audit.cli import main as cli_main
from refdp.audit.events import conditional_bound
from tests._support.audit_mechanisms import laplace, noisy_max_value, rr


def _critical(reps, rate, alpha=1e-3):
    return int(stats.binom.isf(alpha, reps, rate)) + 1


@pytest.mark.parametrize("s", [1, 2, 7, 40, 300, 5000])
@pytest.mark.parametrize("error", [0.05, 0.0125])
def test_conditional_bound_exact_coverage(s, error):
    # given K + K' = s, K ~ Binomial(s, theta): the probability that the bound exceeds
    # logit(theta) = ln(p / p'), summed exactly over the outcomes, is at most the error
    k = np.arange(s + 1)
    bounds = conditional_bound(k, s - k, error)
    for theta in np.linspace(0.001, 0.999, 97):
        bad = bounds > math.log(theta) - math.log1p(-theta)
        assert stats.binom.pmf(k[bad], s, theta).sum() <= error * (1 + 1e-9)
    # and it is not trivially small: all s outcomes in the numerator bound theta by error^(1/s)
    assert bounds[s] == pytest.approx(math.log(error ** (1 / s) / (1 - error ** (1 / s))), rel=1e-6)


def test_conditional_bound_edges():
    assert conditional_bound(0, 10, 0.05) == -math.inf
    assert conditional_bound(0, 0, 0.05) == -math.inf
    assert math.isfinite(conditional_bound(3, 0, 0.05))


def test_conditional_audit_reports_the_bound_of_its_counts_and_is_reproducible():
    kw = dict(n_samples=200_000, rng=4, progress=False, holdout_test="conditional")
    r = audit_black_box(rr(0.75), [(0, 1)], 1.0, **kw)
    again = audit_black_box(rr(0.75), [(0, 1)], 1.0, **kw)
    assert r.holdout_test == "conditional" and r.as_dict()["holdout_test"] == "conditional"
    assert (r.epsilon_lower, r.counts) == (again.epsilon_lower, again.counts)
    k, n, k2, n2 = r.counts
    rest = 200_000 - r.pairs[0].selection_samples
    assert n != n2 and max(n, n2) <= rest        # Poisson sizes, within the budget
    assert abs(n - (rest - math.ceil(8 * math.sqrt(rest)))) < 8 * math.sqrt(rest)
    assert r.epsilon_lower == max(0.0, conditional_bound(k, k2, 2 * r.beta))
    assert "conditional test" in r.summary()


def _bound_of(r):
    """The bound recomputed from the reported counts under the reported test."""
    k, n, k2, n2 = r.counts
    if r.holdout_test == "conditional":
        return max(0.0, conditional_bound(k, k2, 2 * r.beta))
    return max(0.0, math.log(r.p_lower / r.p_upper))


def test_auto_reports_the_test_it_used():
    # the noisy maximum below all answers: an event of probability about 1/32, where one bound on
    # p / (p + p') is much tighter than two separate ones
    rare = audit_black_box(noisy_max_value(4.0), [(np.zeros(5), np.ones(5))], 0.5, n_samples=400_000, rng=1,
                           progress=False, holdout_test="auto")
    assert rare.holdout_test == "conditional" and rare.violation
    assert rare.epsilon_lower == pytest.approx(_bound_of(rare), rel=1e-12)
    binomial = audit_black_box(noisy_max_value(4.0), [(np.zeros(5), np.ones(5))], 0.5, n_samples=400_000,
                               rng=1, progress=False)
    assert binomial.holdout_test == "binomial"
    assert binomial.epsilon_lower == pytest.approx(_bound_of(binomial), rel=1e-12)


def test_delta_bounds_stay_binomial():
    r = audit_delta(rr(0.9), [(0, 1)], 1.0, 0.01, n_samples=100_000, rng=2, progress=False,
                    holdout_test="conditional")
    row = r.pairs[0].held_out["delta"]
    assert row["test"] == "binomial" and row["n"] == row["n_other"]


@pytest.mark.parametrize("mech, pair, truth", [
    (rr(0.75), (0, 1), math.log(3)),
    (laplace, (0.0, 1.0), 1.0),
])
def test_conditional_bound_covers_at_confidence_0_9(mech, pair, truth):
    # as for the binomial test: over seeds the bound exceeds the true epsilon in at most 10%
    # of runs in expectation; the test fails only on a count with probability <= 1e-3
    reps = 60
    seeds = np.random.SeedSequence(2027).spawn(reps)
    above = sum(audit_black_box(mech, [pair], truth, confidence=0.9, n_samples=20_000, initial_samples=2_000,
                                rng=s, progress=False, holdout_test="conditional").epsilon_lower > truth
                for s in seeds)
    assert above < _critical(reps, 0.1), f"{above} of {reps} bounds above the true epsilon {truth}"


def test_holdout_test_is_validated():
    with pytest.raises(ValueError, match="The 'holdout_test' parameter of audit_black_box must be"):
        audit_black_box(rr(0.75), [(0, 1)], 1.0, n_samples=1000, holdout_test="fisher")


def test_cli_holdout_test(tmp_path, capsys):
    mod = tmp_path / "rrmod.py"
    mod.write_text("import numpy as np\n"
                   "def rr(bit, n, rng):\n"
                   "    return np.where(rng.random(n) < 0.9, bit, 1 - bit)\n")
    code = cli_main([f"{mod}:rr", "--claimed-epsilon", "1", "--pair", "[0, 1]", "--samples", "100000",
                     "--seed", "3", "--holdout-test", "conditional", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["violation"] and data["holdout_test"] == "conditional"
