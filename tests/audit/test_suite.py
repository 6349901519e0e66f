"""The audit benchmark (benchmarks/audit): its mechanisms follow their definitions, and a fast
subset of it is audited on every test run; the whole suite runs behind the slow marker.

Statistical tests state their false-failure rate: the sampler checks use exact
binomial acceptance intervals at ALPHA = 1e-6 (Bonferroni over outputs); the
audits use fixed seeds (deterministic) and would report a false alarm on a
correct mechanism with probability at most 1 - confidence = 5% per audit
over random seeds.
"""
import os
import sys

import numpy as np
import pytest
from scipy import stats

from refdp.audit import audit_black_box, query_answer_pairs
from refdp.mechanisms import report_noisy_max_distribution
from tests._support.paths import BENCHMARKS

BENCH = os.path.join(BENCHMARKS, "audit")
sys.path.insert(0, BENCH)
import run_suite  # noqa: E402
import suite  # noqa: E402

ALPHA = 1e-6


def _accept(count, n, p, a):
    """Exact binomial acceptance interval at level a (both tails a/2)."""
    return int(stats.binom.ppf(a / 2, n, p)) <= count <= int(stats.binom.isf(a / 2, n, p))


def test_noisy_max_index_follows_the_exact_law():
    n, answers = 200_000, [1.0, 0.0, 2.0, 2.0, 1.0]
    draws = suite.noisy_max("laplace", "index")(answers, n, np.random.default_rng(1))
    law = report_noisy_max_distribution(answers, 0.1)   # scale 2/0.1 = 20, the suite's
    counts = np.bincount(draws, minlength=5)
    assert all(_accept(c, n, p, ALPHA / 5) for c, p in zip(counts, law))


def test_svt_variants_follow_their_definitions():
    rng = np.random.default_rng(2)
    ones = np.ones(10)
    # SVT5 has no noise on the answers: on D = (1, ..., 1) with T = 1 every answer
    # is above exactly when rho <= 0, probability 1/2, and otherwise none is
    out = suite.svt(5)(ones, 100_000, rng)
    rows_all = np.all(out == 1, axis=1)
    assert np.all(rows_all | np.all(out == 0, axis=1))
    assert _accept(int(rows_all.sum()), 100_000, 0.5, ALPHA)
    # with c = 1, SVT1, SVT2 and SVT4 stop after the first positive answer
    for v in (1, 2, 4):
        out = suite.svt(v)(ones, 20_000, rng)
        assert set(np.unique(out)) <= {-1, 0, 1}
        for row in out[:2000]:
            pos = np.flatnonzero(row == 1)
            assert pos.size <= 1
            if pos.size:
                assert np.all(row[pos[0] + 1:] == -1) and np.all(row[:pos[0]] == 0)
            else:
                assert np.all(row == 0)
    # SVT3 releases the noisy answer at the first positive, then "aborted"
    out = suite.svt(3)(ones, 5000, rng)
    for row in out[:500]:
        real = np.flatnonzero((row != suite.FALSE_) & (row != suite.ABORTED))
        assert real.size <= 1
        if real.size:
            assert np.all(row[real[0] + 1:] == suite.ABORTED) and np.all(row[:real[0]] == suite.FALSE_)
    # SVT6 has no cutoff: several positive answers in one run
    out = suite.svt(6)(ones, 2000, rng)
    assert np.max(out.sum(axis=1)) > 1


def test_naive_sampler_has_finitely_many_values():
    out = suite.naive_grid_laplace(12)(0.0, 100_000, np.random.default_rng(3))
    assert np.unique(out).size <= 2 ** 12 - 1
    shifted = suite.naive_grid_laplace(12)(1.0, 100_000, np.random.default_rng(3))
    # the two supports barely meet: the values of f(D) + noise are not those of f(D') + noise
    assert np.isin(shifted, out).mean() < 0.01


def test_cases_are_well_formed():
    names = set()
    for case in suite.cases():
        assert case.name not in names
        names.add(case.name)
        assert case.pairs and case.pairs_text and case.truth
        for d, e, label in case.pairs:
            assert label
            diff = np.abs(np.asarray(d, dtype=float) - np.asarray(e, dtype=float))
            assert 0 < diff.max() <= 1   # neighbours: every answer moves by at most one
        if case.dpsniper:
            assert case.dpsniper in suite.DPSNIPER_REFERENCE
    assert len(query_answer_pairs(10)) == 8


FAST = {  # name -> budget for the fast subset
    "NoisyHist1": 100_000,
    "NoisyHist2": 100_000,
    "ReportNoisyMax1": 50_000,
    "SVT5": 40_000,
    "randomised response, eps = ln 3": 100_000,
    "randomised response claiming ln 2": 100_000,
}


@pytest.mark.parametrize("case", [c for c in suite.cases() if c.name in FAST], ids=lambda c: c.name)
def test_fast_subset_is_classified_correctly(case):
    r = audit_black_box(case.mechanism, case.pairs, case.claimed_epsilon, n_samples=FAST[case.name],
                        rng=2024, progress=False)
    assert r.violation == case.broken, r.summary()


@pytest.mark.slow
def test_whole_suite_is_classified_correctly(tmp_path, capsys):
    # every broken mechanism detected and no false alarm (about 20 minutes on two cores)
    assert run_suite.main(["--json", str(tmp_path / "suite.json"), "--no-float"]) == 0
