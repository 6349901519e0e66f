"""Power and validity of the black-box audit's event choice, the pair search and the delta audit.

Statistical tests state their false-failure rate: a test that counts
exceedances over seeded repetitions fails only when the count is so large
that, were each repetition's error probability at most the nominal one, it
would happen with probability below 1e-3 (binomial tail). The other
statistical outcomes use fixed seeds and state their margin.
"""
import math

import numpy as np
import pytest
from scipy import stats

from refdp.audit import (PATTERNS, audit_black_box, audit_delta, pattern_pairs, query_answer_pairs,
                         search_pairs)
from refdp.audit.cli import main as cli_main
from tests._support.audit_mechanisms import laplace, noisy_max_value, rr


def noisy_max_index(scale):
    def mechanism(answers, n, rng):
        a = np.asarray(answers, dtype=float)
        return (a + rng.laplace(0.0, scale, size=(n, a.size))).argmax(axis=1)
    return mechanism


def gaussian(sigma):
    def mechanism(value, n, rng):
        return float(np.asarray(value).reshape(-1)[0]) + rng.normal(0.0, sigma, size=n)
    return mechanism


def _critical(reps, rate, alpha=1e-3):
    """Smallest c with P[Binomial(reps, rate) >= c] <= alpha."""
    return int(stats.binom.isf(alpha, reps, rate)) + 1


# ------------------------------------------------------- validity -------

@pytest.mark.parametrize("mech, pair, truth", [
    (rr(0.75), (0, 1), math.log(3)),          # exactly ln 3, attained by the event "the bit"
    (laplace, (0.0, 1.0), 1.0),               # exactly 1, attained in the tails
])
def test_bound_with_threshold_chosen_on_tune_samples_covers_at_confidence_0_9(mech, pair, truth):
    # the event (threshold included) is chosen on selection samples and the bound is
    # computed on the rest: over seeds, the bound exceeds the true epsilon in at most
    # 10% of runs in expectation; the test fails only on a count with P <= 1e-3
    reps = 60
    seeds = np.random.SeedSequence(2026).spawn(reps)
    above = sum(audit_black_box(mech, [pair], truth, confidence=0.9, n_samples=20_000,
                                initial_samples=2_000, rng=s, progress=False).epsilon_lower > truth
                for s in seeds)
    assert above < _critical(reps, 0.1), f"{above} of {reps} bounds above the true epsilon {truth}"


def test_correct_mechanism_false_alarms_are_rare_over_seeds():
    # report-noisy-max (index) with scale 2/eps is eps-DP: a violation is a false alarm,
    # each with probability <= 0.1 at confidence 0.9
    reps = 30
    seeds = np.random.SeedSequence(11).spawn(reps)
    alarms = sum(audit_black_box(noisy_max_index(4.0), query_answer_pairs(3), 0.5, confidence=0.9,
                                 n_samples=20_000, initial_samples=2_000, rng=s, progress=False).violation
                 for s in seeds)
    assert alarms < _critical(reps, 0.1)


# ---------------------------------------------------------- power -------

def test_threshold_event_reaches_most_of_the_true_epsilon():
    # releasing the noisy maximum of 5 answers, Laplace scale 4: on all answers moved by one
    # the density ratio is e^(5/4) below the answers (exact epsilon 1.25 on that pair)
    r = audit_black_box(noisy_max_value(4.0), query_answer_pairs(5), 0.5, confidence=0.9,
                        n_samples=1_000_000, rng=5, progress=False)
    assert r.violation and 0.95 * 1.25 <= r.epsilon_lower <= 1.25      # measured 1.217
    # the selection stopped on its own and the held-out stage spent the rest of the budget
    k, n, k2, n2 = r.counts
    chosen = next(p for p in r.pairs if p.held_out)
    assert n == n2 == 1_000_000 - chosen.selection_samples and chosen.selection_samples <= 500_000


def test_rare_event_is_chosen_when_its_bound_is_best():
    # a leak of probability 0.002 has an infinite ratio; no floor on the event probability
    # keeps the audit from choosing it (a 1% floor would cap the bound near ln 100 = 4.6)
    def leaky(bit, n, rng):
        return np.where(rng.random(n) < 0.002, 2 + bit, np.where(rng.random(n) < 0.75, bit, 1 - bit))
    r = audit_black_box(leaky, [(0, 1)], 1.0, n_samples=2_000_000, rng=6, progress=False)
    assert r.epsilon_lower > math.log(100)


# ---------------------------------------------------------- pairs -------

def test_pattern_pairs_are_statdp_patterns():
    pairs = pattern_pairs(4)
    assert [p[2] for p in pairs] == list(PATTERNS)
    d, e, _ = pairs[PATTERNS.index("one above rest below")]
    assert d.tolist() == [1, 1, 1, 1] and e.tolist() == [2, 0, 0, 0]
    d, e, _ = pairs[PATTERNS.index("x shift")]
    assert d.tolist() == [1, 1, 0, 0] and e.tolist() == [0, 0, 1, 1]
    assert all(np.max(np.abs(d - e)) <= 1 for d, e, _ in pairs)
    # for one query the patterns collapse: (1) vs (0), (1) vs (2), and (0) vs (1)
    assert [p[2] for p in pattern_pairs(1)] == ["one below", "one above", "x shift"]


def test_search_finds_a_violating_pair_without_being_given_one():
    r = search_pairs(noisy_max_value(4.0), 4, 0.5, n_samples=200_000, screen_samples=40_000, local_rounds=1,
                     rng=1, progress=False)
    assert r.violation and r.epsilon_lower > 0.5
    d, e = r.audit.pair
    assert np.max(np.abs(np.asarray(d) - np.asarray(e))) <= 1      # a neighbouring pair
    assert len(r.screened) > len(PATTERNS) and r.screening_samples > 0
    # the final audit drew its own outputs: its Bonferroni count is its held-out tests only
    # (one test on the held-out pair, plus one per rarer event tested beside the chosen one)
    extra = sum(len(v) for p in r.audit.pairs for v in p.alternates.values())
    assert r.audit.tests == 1 + extra and r.audit.pairs_searched == len(r.finalists)


def test_search_on_a_correct_mechanism_finds_no_violation():
    # eps-DP (index, scale 2/eps): a violation would be a false alarm (probability <= 0.05)
    r = search_pairs(noisy_max_index(4.0), 3, 0.5, n_samples=100_000, screen_samples=20_000, local_rounds=1,
                     rng=2, progress=False)
    assert not r.violation and r.epsilon_lower <= 0.5


@pytest.mark.parametrize("kwargs, name", [
    ({"dim": 0}, "dim"), ({"patterns": ["one below", "zigzag"]}, "patterns"), ({"patterns": []}, "patterns"),
    ({"local_moves": 0}, "local_moves"), ({"screen_samples": 2}, "screen_samples"),
    ({"sensitivity": 0.0}, "sensitivity"),
])
def test_search_pairs_bad_input(kwargs, name):
    args = {"dim": 3, **kwargs}
    dim = args.pop("dim")
    with pytest.raises(ValueError, match=rf"The '{name}' parameter of search_pairs must be .* Got .* instead"):
        search_pairs(noisy_max_index(4.0), dim, 0.5, rng=0, progress=False, **args)


def test_pattern_pairs_bad_input():
    with pytest.raises(ValueError, match=r"The 'dim' parameter of pattern_pairs must be an int"):
        pattern_pairs(0)
    with pytest.raises(ValueError, match=r"unknown pattern 'diagonal'"):
        pattern_pairs(3, ["diagonal"])


def test_cli_search_pairs(tmp_path, capsys):
    src = tmp_path / "nm.py"
    src.write_text("import numpy as np\n"
                   "def nmv(a, n, rng):\n"
                   "    return (np.asarray(a) + rng.laplace(0.0, 4.0, size=(n, len(a)))).max(axis=1)\n")
    code = cli_main([f"{src}:nmv", "--claimed-epsilon", "0.5", "--search-pairs", "3", "--samples", "100000",
                     "--screen-samples", "20000", "--patterns", "all above", "all below", "--seed", "1",
                     "--quiet"])
    out = capsys.readouterr().out
    assert code == 1 and "VIOLATION" in out and "pair search:" in out
    assert cli_main([f"{src}:nmv", "--claimed-epsilon", "0.5", "--search-pairs", "0", "--quiet"]) == 2
    assert "'dim' parameter of search_pairs" in capsys.readouterr().err
    assert cli_main([f"{src}:nmv", "--claimed-epsilon", "0.5", "--search-pairs", "2", "--patterns", "zigzag",
                     "--quiet"]) == 2
    assert "unknown pattern 'zigzag'" in capsys.readouterr().err


# ---------------------------------------------------------- delta -------

def _gauss_delta(eps, sigma):
    """Exact delta(eps) of the Gaussian mechanism, sensitivity 1 (Balle and Wang 2018, Thm 8)."""
    mu = 1.0 / sigma
    return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def test_delta_audit_flags_a_violating_mechanism_and_not_a_correct_one():
    # sigma = 1 at eps = 1 needs delta = 0.1269; claimed 1e-3: violated
    bad = audit_delta(gaussian(1.0), [(0.0, 1.0)], 1.0, 1e-3, n_samples=400_000, rng=3, progress=False)
    assert bad.violation and 1e-3 < bad.delta_lower <= _gauss_delta(1.0, 1.0)
    assert bad.tests == 1 and bad.delta_at_epsilon == 1.0 and bad.epsilon_lower == 0.0
    # sigma = 5 at eps = 1 needs delta = 5e-7 < 1e-3: the claim holds (false alarm <= 0.05)
    good = audit_delta(gaussian(5.0), [(0.0, 1.0)], 1.0, 1e-3, n_samples=400_000, rng=3, progress=False)
    assert not good.violation and good.delta_lower <= 1e-3


def test_delta_audit_bad_input():
    with pytest.raises(ValueError, match=r"The 'delta_at_epsilon' parameter of audit_delta"):
        audit_delta(gaussian(1.0), [(0.0, 1.0)], 1.0, 1e-3, delta_at_epsilon=2.0)
    with pytest.raises(ValueError, match=r"The 'claimed_delta' parameter of audit_delta must be"):
        audit_delta(gaussian(1.0), [(0.0, 1.0)], 1.0, 1.5)
    with pytest.raises(ValueError, match=r"The 'delta_at_epsilon' parameter of audit_black_box"):
        audit_black_box(gaussian(1.0), [(0.0, 1.0)], 1.0, epsilon_bound=False)


def test_cli_claimed_delta_audits_delta_at_the_claimed_epsilon(tmp_path, capsys):
    src = tmp_path / "g.py"
    src.write_text("import numpy as np\n"
                   "def g(x, n, rng):\n"
                   "    return float(np.asarray(x).reshape(-1)[0]) + rng.normal(0.0, 1.0, n)\n"
                   "g.audit_pairs = [(0.0, 1.0)]\n")
    code = cli_main([f"{src}:g", "--claimed-epsilon", "1", "--claimed-delta", "0.001", "--samples", "200000",
                     "--seed", "4", "--quiet"])
    out = capsys.readouterr().out
    assert code == 1 and "delta >= " in out and "at epsilon = 1" in out
