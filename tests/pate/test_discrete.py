"""PATE's analyses for the float-safe LNMax (exact discrete Laplace noise), against brute force."""
import itertools
import json
import math
import warnings

import numpy as np
import pytest

from proofs_checks.pate import discrete_lnmax_analyses as checks
from refdp import core
from refdp.utils.precision import iv_context, mp_context
from refdp.mechanisms.discrete_argmax import discrete_argmax_law
from refdp.pate import (PATEAccountant, PATEStudent, PATETeachers, exact_analysis, exact_delta, lnmax_distribution, lnmax_labels,
                        pate_analysis, release_epsilon, smooth_sensitivity)
from refdp.pate.aggregation import TextbookNoiseWarning
from refdp.pate.discrete_analysis import (difference_pmf, difference_tail, discrete_exact_log_q,
                                          discrete_lemma4_log_q, discrete_lemma4_two_sided_log_q, lnmax_scale)
from refdp.verify.verdict import Verdict


def test_scale_is_the_samplers():
    t = lnmax_scale(0.05)
    assert t == 20 and 1 / lnmax_scale(0.3) <= 0.3 < 1 / lnmax_scale(0.3) * (1 + 2**-46)


@pytest.mark.parametrize("gamma", [0.05, 0.3, 1.0, 2.0, 7.0])
def test_difference_law_sums_to_one_and_tail_is_its_sum(gamma):
    c = mp_context(40)
    t = lnmax_scale(gamma)
    width = int(80 / gamma) + 50
    assert abs(c.fsum(difference_pmf(k, t, c) for k in range(-width, width + 1)) - 1) < 1e-30
    for g in (0, 1, 2, 3, 7, 20):
        brute = c.fsum(difference_pmf(k, t, c) for k in range(g, width + 1))
        assert abs(difference_tail(g, t, c) - brute) < 1e-30
        assert abs(c.exp(difference_tail(g, t, c, log=True)) / difference_tail(g, t, c) - 1) < 1e-35


def test_pmf_is_the_convolution_of_two_discrete_laplace_laws():
    c = mp_context(40)
    t = lnmax_scale(0.7)
    p = c.exp(-1 / c.mpf(float(t)))
    z = (1 - p) / (1 + p)
    for k in (0, 1, 4):
        conv = c.fsum(z * p ** abs(x) * z * p ** abs(x + k) for x in range(-400, 400))
        assert abs(conv - difference_pmf(k, t, c)) < 1e-30


@pytest.mark.parametrize("gamma,g,factor", [(0.05, 1, 1.013), (0.5, 3, 1.17), (2.0, 1, 1.47)])
def test_discrete_tail_exceeds_lemma_4_term(gamma, g, factor):
    # the reason the continuous Lemma 4 cannot be used for secure answers
    c = mp_context(30)
    ratio = difference_tail(g, lnmax_scale(gamma), c) / ((2 + gamma * g) / (4 * c.exp(gamma * g)))
    assert abs(ratio - factor) < 0.005


@pytest.mark.parametrize("gamma", [1e-3, 0.05, 0.5, 1.0, 2.0, 5.0, 30.0])
def test_discrete_lemma_a(gamma):
    # t_d(2) = p^2 (3 + p) / (1 + p)^3 >= p^2 / (1 + p^2) >= 1 / (e^{2 gamma} + 1)
    ctx = iv_context(40)
    t = lnmax_scale(gamma)
    p = ctx.exp(-1 / ctx.mpf(float(t)))
    td2 = difference_tail(2, t, ctx)
    assert abs(td2 - p * p * (3 + p) / (1 + p) ** 3).b < 1e-35
    tau = 1 / (ctx.exp(2 * ctx.mpf(gamma)) + 1)
    # p^2 / (1 + p^2) = tau exactly when 1/t = gamma (e.g. gamma = 0.5), so compare within the enclosures' width
    assert (p * p / (1 + p * p) - tau).a >= -1e-35 and (td2 - p * p / (1 + p * p)).a > 0 and (td2 - tau).a > 0


def _exact_log_miss(row, gamma):
    law = lnmax_distribution(row, gamma, secure=True, ctx=iv_context(30))
    star = int(np.argmax(row))
    return float(iv_context(30).log(sum(law[j] for j in range(len(row)) if j != star)).b)


def test_bounds_against_the_exact_law_on_random_vectors():
    rng = np.random.default_rng(5)
    for _ in range(12):
        C = int(rng.integers(2, 6))
        gamma = float(rng.choice([0.05, 0.3, 1.0]))
        row = rng.multinomial(int(rng.integers(5, 40)), rng.dirichlet(np.full(C, 0.5)))
        arr = row[None, :]
        exact = _exact_log_miss(row.tolist(), gamma)
        assert discrete_lemma4_log_q(arr, gamma)[0] >= exact
        star = int(np.argmax(row))
        gap = int(np.sort(row)[-1] - np.sort(row)[-2])
        one, two = discrete_exact_log_q(arr, gamma, two_sided=False)[0], discrete_exact_log_q(arr, gamma)[0]
        if gap <= 2:
            assert one == two == math.inf
            continue
        assert exact <= one <= exact + 1e-8 * (1 + abs(exact))      # the fast path's margin
        worst = max(_exact_log_miss(list(m), gamma) if int(np.argmax(m)) == star else
                    float(iv_context(30).log(1 - lnmax_distribution(list(m), gamma, secure=True,
                                                                     ctx=iv_context(30))[star]).b)
                    for m in checks.neighbours(tuple(row.tolist())))
        assert two >= max(worst, exact) - 1e-12 and two >= one
        assert discrete_lemma4_two_sided_log_q(arr, gamma)[0] >= max(worst, exact)


def test_continuous_lemma_4_fails_for_the_discrete_law():
    # (0, 3) at gamma = 0.5: class 0 ties win against class 1, and the discrete tail is heavier
    row = [0, 3]
    exact = _exact_log_miss(row, 0.5)
    assert core.lemma4_log_q(np.array([row]), 0.5)[0] < exact <= discrete_lemma4_log_q(np.array([row]), 0.5)[0]


def test_the_check_fails_with_the_continuous_bound():
    st = checks.Setting(4, 2, 0.5)
    st.stats[("lemma4", False)] = core.lemma4_log_q(st.arr, 0.5)
    verdicts, worst, where = checks.q_bounds([st])
    assert Verdict.FAILS in verdicts and worst > 1 and "lemma4, two_sided=False" in where


def test_the_step_check_fails_with_a_too_small_step(monkeypatch):
    monkeypatch.setattr(checks, "statistic_step", lambda g, s, two: 0.5 * g)
    verdicts, worst, _ = checks.step_lemma([checks.Setting(5, 2, 2.0)])
    assert Verdict.FAILS in verdicts and worst > 1


def test_fast_exact_q_against_the_interval_evaluation():
    rng = np.random.default_rng(11)
    for _ in range(25):
        C = int(rng.integers(2, 7))
        gamma = float(rng.choice([0.01, 0.05, 0.3, 1.0, 3.0]))
        counts = rng.multinomial(int(rng.integers(3, 120)), rng.dirichlet(np.full(C, 0.4)), size=2)
        for two in (True, False):
            fast = discrete_exact_log_q(counts, gamma, two_sided=two)
            cert = discrete_exact_log_q(counts, gamma, two_sided=two, certified=True)
            fin = np.isfinite(cert)
            assert np.array_equal(np.isfinite(fast), fin) and np.all(fast[~fin] == cert[~fin])
            # above the enclosure's upper end, by no more than the documented margin
            assert np.all(fast[fin] >= cert[fin])
            assert np.all(fast[fin] - cert[fin] <= 1e-8 * (1 + np.abs(cert[fin])))


def test_accountant_sums_the_per_query_bounds():
    rng = np.random.default_rng(2)
    counts = rng.multinomial(30, [0.7, 0.2, 0.1], size=6)
    orders = [1.0, 4.0, 16.0]
    for two in (True, False):
        acc = PATEAccountant(0.5, orders=orders, two_sided=two, exact=True).add_counts(counts)
        lq = discrete_lemma4_two_sided_log_q(counts, 0.5) if two else discrete_lemma4_log_q(counts, 0.5)
        np.testing.assert_array_equal(acc.log_moments("theorem3"), core.accountant_log_moments(lq, orders, 0.5))
        per = sum(core.accountant_log_moments(lq[i:i + 1], orders, 0.5) for i in range(6))
        np.testing.assert_allclose(acc.log_moments("theorem3"), per, rtol=1e-14)
        ex = exact_analysis(counts, 0.5, orders)                 # the compiled pass the accountant runs
        eq = ex.log_q_two_sided if two else ex.log_q
        np.testing.assert_array_equal(acc.log_moments("theorem3_exact_q"),
                                      core.accountant_log_moments(eq, orders, 0.5))
        # at least the single-law evaluation's q, and within its documented margins of it
        ref = discrete_exact_log_q(counts, 0.5, two_sided=two)
        fin = np.isfinite(ref)
        assert np.array_equal(np.isfinite(eq), fin) and np.all(eq[~fin] == ref[~fin])
        assert np.all(eq[fin] >= ref[fin]) and np.all(eq[fin] - ref[fin] <= 1e-7 * (1 + np.abs(ref[fin])))


def test_defaults_are_discrete_and_continuous_is_the_old_analysis():
    counts = np.tile([232, 4, 3, 3, 2, 2, 1, 1, 1, 1], (50, 1))
    d = pate_analysis(counts, 0.05, 1e-5)
    c = pate_analysis(counts, 0.05, 1e-5, noise="continuous")
    assert d.noise == "discrete" and c.noise == "continuous" and d.as_dict()["noise"] == "discrete"
    assert d.results["data_independent"].epsilon == c.results["data_independent"].epsilon
    # the heavier discrete tail costs a little
    assert c.results["theorem3"].epsilon < d.results["theorem3"].epsilon < 1.05 * c.results["theorem3"].epsilon
    acc = PATEAccountant(0.05, exact=True).add_counts(counts[:20])
    eps = {name: acc.epsilon(1e-5, name).epsilon for name in ("data_independent", "theorem3", "theorem3_exact_q",
                                                               "exact")}
    assert eps["exact"] <= eps["theorem3_exact_q"] <= eps["theorem3"] < eps["data_independent"]
    with pytest.raises(ValueError, match=r"'noise' parameter of PATEAccountant must be one of"):
        PATEAccountant(0.05, noise="laplace")
    with pytest.raises(ValueError, match="'noise' parameter of smooth_sensitivity"):
        smooth_sensitivity(counts, 0.05, 8.0, 0.05, noise="gauss")


def test_lnmax_labels_default_is_secure_and_textbook_path_warns():
    counts = np.tile([5, 4, 0], (1000, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lnmax_labels(counts, 0.5, rng=3).tolist() == lnmax_labels(counts, 0.5, rng=3, secure=True).tolist()
    with pytest.warns(TextbookNoiseWarning, match="not private as implemented"):
        lnmax_labels(counts, 0.5, rng=3, secure=False)


def test_secure_law_of_lnmax_distribution():
    p = lnmax_distribution([[5, 4, 0], [2, 2, 2]], 0.5, secure=True)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-15)
    exact = discrete_argmax_law([5, 4, 0], lnmax_scale(0.5), mp_context(40))
    assert np.allclose(p[0], [float(v) for v in exact], rtol=1e-15, atol=0)
    assert p[1, 0] > p[1, 1] > p[1, 2]              # lowest index among ties
    logs = lnmax_distribution([5, 4, 0], 0.5, secure=True, log=True)
    assert np.allclose(np.exp(logs), p[0], rtol=1e-14)


class _Majority:
    def fit(self, X, y):
        self.label = int(np.bincount(np.asarray(y, dtype=int)).argmax())
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


def test_student_defaults_to_secure_and_discrete_accounting():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] > 0).astype(int)
    ens = PATETeachers(9, _Majority, rng=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st = PATEStudent(_Majority, gamma=0.2, delta=1e-5, target_epsilon=5.0, max_queries=20, rng=2).fit(ens, X[:40])
    assert st.secure and st.accountant_.noise == "discrete"
    with pytest.warns(TextbookNoiseWarning):
        old = PATEStudent(_Majority, gamma=0.2, delta=1e-5, target_epsilon=5.0, max_queries=20, rng=2,
                          secure=False).fit(ens, X[:40])
    assert old.accountant_.noise == "continuous" and old.n_queries_ == st.n_queries_
    with pytest.warns(TextbookNoiseWarning):
        ens.noisy_labels(X[:3], 0.2, rng=0, secure=False)


def test_exact_worst_case_moments_against_the_interval_laws():
    from refdp.pate.discrete_analysis import discrete_exact_log_moments
    counts = [[6, 2, 1], [3, 3, 3], [9, 0, 0]]
    orders = [0.5, 4.0, 32.0]
    fwd, both = discrete_exact_log_moments(counts, 1.0, orders)
    laws = checks.Laws(1.0)
    for i, n in enumerate(counts):
        n = tuple(n)
        worst_f = [max(float(laws.log_moment(laws(n), laws(m), lam).b) for m in checks.neighbours(n))
                   for lam in orders]
        worst_b = [max(max(float(laws.log_moment(laws(n), laws(m), lam).b),
                           float(laws.log_moment(laws(m), laws(n), lam).b)) for m in checks.neighbours(n))
                   for lam in orders]
        assert np.all(fwd[i] >= worst_f) and np.all(both[i] >= worst_b) and np.all(both[i] >= fwd[i])
        assert np.allclose(both[i], worst_b, rtol=1e-6, atol=1e-6)


def test_release_and_smooth_sensitivity_use_the_discrete_statistic():
    counts = np.tile([40, 3, 2], (8, 1))
    ss = smooth_sensitivity(counts, 0.3, 8.0, 0.05, statistic="exact")
    assert ss.noise == "discrete" and ss.step == pytest.approx(0.6)
    ref = PATEAccountant(0.3, orders=[8.0], exact=True).add_counts(counts).log_moments("theorem3_exact_q")[0]
    # the release smooths the single-law q (discrete_exact_log_q); the accountant's exact q comes from
    # the compiled pass over all neighbours, at least as large and within its margins
    assert ss.log_moment <= ref <= ss.log_moment + 1e-7 * (1.0 + ref)
    r = release_epsilon(counts, 0.3, 1e-5, order=8.0, epsilon_release=1.0, delta_release=1e-6, rng=1)
    assert r.smooth_sensitivity.noise == "discrete"


def _brute_delta_discrete(counts, gamma, eps):
    """max over neighbours (each query moves one vote) and directions of the hockey stick, enumerated."""
    ctx = mp_context(40)
    t = lnmax_scale(gamma)
    law = {}

    def get(n):
        if n not in law:
            law[n] = discrete_argmax_law(list(n), t, ctx)
        return law[n]
    opts = [[tuple(m) for m in checks.neighbours(tuple(n))] for n in counts]
    e = ctx.exp(ctx.mpf(eps))
    best = 0
    for combo in itertools.product(*opts):
        P = [get(tuple(n)) for n in counts]
        Q = [get(m) for m in combo]
        for A, B in ((P, Q), (Q, P)):
            total = 0
            for out in itertools.product(*[range(len(n)) for n in counts]):
                a = math.prod(A[k][o] for k, o in enumerate(out))
                b = math.prod(B[k][o] for k, o in enumerate(out))
                total += max(0, a - e * b)
            best = max(best, total)
    return float(best)


@pytest.mark.parametrize("counts,gamma,eps", [([[3, 0]], 1.0, 1.0), ([[2, 1, 0], [1, 1, 1]], 0.7, 0.5)])
def test_exact_delta_discrete_encloses_brute_force(counts, gamma, eps):
    r = exact_delta(counts, gamma, eps)
    truth = _brute_delta_discrete(counts, gamma, eps)
    assert r.lower <= truth <= r.upper and r.upper - r.lower < 1e-2 * truth


def test_cli_noise_option(tmp_path, capsys):
    import argparse

    from refdp.pate import cli

    f = tmp_path / "counts.npy"
    np.save(f, np.tile([40, 3, 2], (5, 1)))

    def run(*extra):
        args = cli.add_arguments(argparse.ArgumentParser()).parse_args(
            ["--votes", str(f), "--counts", "--gamma", "0.3", "--delta", "1e-5", *extra])
        assert cli.run(args) == 0
        return capsys.readouterr().out
    outs = {noise: json.loads(run("--noise", noise, "--json")) for noise in ("discrete", "continuous")}
    assert outs["discrete"]["noise"] == "discrete"
    d, c = (outs[k]["analyses"]["theorem3"]["epsilon_tail"] for k in ("discrete", "continuous"))
    assert d > c
    assert "discrete noise" in run() and "textbook secure=False" in run("--noise", "continuous")


def test_neighbour_laws_by_low_rank_updates_equal_the_direct_sums():
    from refdp.pate.discrete_analysis import fast_log_law_bounds, neighbour_log_law_bounds
    rng = np.random.default_rng(4)
    for gamma in (0.05, 0.5, 3.0):
        row = rng.multinomial(60, rng.dirichlet(np.full(6, 0.5))).tolist()
        moves, lo, hi = neighbour_log_law_bounds(row, lnmax_scale(gamma))
        V = np.array([row] + [[v - (i == a) + (i == b) for i, v in enumerate(row)] for a, b in moves])
        lo2, hi2 = fast_log_law_bounds(V, lnmax_scale(gamma))
        assert np.allclose(lo, lo2, rtol=1e-13, atol=1e-12) and np.allclose(hi, hi2, rtol=1e-13, atol=1e-12)
        assert np.all(lo <= hi)


def test_results_identical_with_other_threads_and_a_tiny_cache(monkeypatch):
    import threading

    import refdp.pate.discrete_analysis as da
    counts = np.random.default_rng(0).multinomial(200, [0.5, 0.2, 0.2, 0.1], size=200)
    ref_l4 = discrete_lemma4_log_q(counts, 0.1)
    ref_q = discrete_exact_log_q(counts[:5], 0.1)
    monkeypatch.setattr(da, "_TAILS_MAX", 3)          # the cache is cleared all the time
    da._TAILS.clear()
    same = []

    def work():
        for _ in range(3):
            same.append(np.array_equal(discrete_lemma4_log_q(counts, 0.1), ref_l4)
                        and np.array_equal(discrete_exact_log_q(counts[:5], 0.1), ref_q))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(same) == 12 and all(same)
