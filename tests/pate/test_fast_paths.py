"""The fast paths of the PATE analysis give the values of the reference evaluations, bit for bit.

Each fast path is compared with the evaluation it replaced, still in the tree
or written out here, on a fixed set of vote histograms and parameters:

* Lemma 4 and its two-sided counterpart in one compiled pass
  (:func:`refdp.core.lemma4_log_q_pair`) against ``core.lemma4_log_q`` and
  :func:`refdp.pate.accountant.lemma4_two_sided_log_q`, and its twin;
* the data-independent log-moments by exact integer arithmetic against the
  interval evaluation of every order in a new context (and the cases where the
  exact path must defer to it);
* the certified (epsilon, delta) conversions in this thread's interval context
  against the same formulas in a new context per evaluation;
* the whole report of ``pate_analysis`` and the accountant against the
  validated public building blocks.
"""
import math
import threading

import numpy as np
import pytest

from refdp import core
from refdp.accounting import DEFAULT_ORDERS, moments_to_dp, pate_data_independent_log_moments
from refdp.accounting import moments as moments_module
from refdp.accounting.conversions import _epsilon_at_order
from refdp.accounting.composition import pate_quick_composition
from refdp.pate import PATEAccountant, pate_analysis
from refdp.pate.accountant import lemma4_two_sided_log_q
from refdp.twins import core as twin
from refdp.utils.rounding import ceil_interval, interval_context


def histograms():
    """Fixed vote histograms: agreeing and split votes, ties, gaps 0..3, one and two classes."""
    rng = np.random.default_rng(20240519)
    out = []
    for c in (1, 2, 3, 10, 40):
        p = rng.dirichlet(np.full(c, 0.3), 60)
        out.append(np.array([rng.multinomial(250, row) for row in p]))
    special = np.array([[5, 5, 0], [6, 4, 0], [7, 4, 0], [8, 4, 1], [0, 0, 9], [3, 3, 3], [1, 0, 0]])
    out.append(special)
    out.append(np.array([[10**6, 0, 3], [2000, 1990, 0]]))     # gaps beyond the kernel's table
    return out


@pytest.mark.parametrize("gamma", [0.05, 0.3, 1e-3, 2.0])
def test_lemma4_pair_equals_the_two_separate_evaluations(gamma):
    for counts in histograms():
        one, two = core.lemma4_log_q_pair(counts, gamma)
        np.testing.assert_array_equal(one, core.lemma4_log_q(counts, gamma))
        np.testing.assert_array_equal(two, lemma4_two_sided_log_q(counts, gamma))
        t1, t2 = core.lemma4_log_q_pair(counts, gamma, compiled=False)
        np.testing.assert_array_equal(np.isinf(t2), np.isinf(two))
        fin = np.isfinite(two)
        np.testing.assert_allclose(t1, one, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(t2[fin], two[fin], rtol=1e-13, atol=1e-13)


def _data_independent_reference(gamma, orders, n):
    """The interval evaluation of PATE Theorem 2 and the pure-DP bound, in a new context."""
    out = np.empty(len(orders))
    with interval_context() as iv:
        g = iv.mpf(gamma)
        for i, lam_f in enumerate(orders):
            lam = iv.mpf(float(lam_f))
            renyi = 2 * g * g * lam * (lam + 1)
            pure = 2 * g * lam
            bound = renyi if renyi.b <= pure.b else pure
            out[i] = ceil_interval(n * bound)
    return out


def test_data_independent_exact_path_equals_the_interval_evaluation():
    rng = np.random.default_rng(7)
    gammas = [0.05, 0.5, 1.0, 2.0**-20, 3.0, 1e-9, 0.1, float(np.nextafter(0.5, 1))]
    gammas += list(rng.uniform(1e-4, 4.0, 12)) + list(np.exp(rng.uniform(-30, 5, 8)))
    orders_sets = [np.asarray(DEFAULT_ORDERS), np.linspace(0.5, 64, 64),
                   np.exp(rng.uniform(-40, 12, 40)), np.array([2.0**-200, 1e-300, 7.5, 1e12, 2.0**60])]
    deferred = 0
    for gamma in gammas:
        gn, gd = float(gamma).as_integer_ratio()
        for orders in orders_sets:
            for n in (0, 1, 7, 100, 10**5, 2**62 + 1):
                got = pate_data_independent_log_moments(float(gamma), orders, n)
                want = _data_independent_reference(float(gamma), orders, n)
                np.testing.assert_array_equal(got, want, err_msg=f"gamma={gamma!r}, n={n}")
                deferred += sum(moments_module._data_independent_exact(gn, gd, float(x), n) is None
                                for x in orders)
    assert deferred > 0          # the extreme orders above go through the interval evaluation


def test_data_independent_exact_path_defers_near_ties_and_boundaries():
    # gamma (lambda + 1) = 1: Theorem 2 and the pure-DP bound are equal, the choice is left to intervals
    assert moments_module._data_independent_exact(1, 4, 3.0, 5) is None
    # exact doubles are returned as they are
    assert moments_module._data_independent_exact(1, 4, 1.0, 3) == 0.75     # 3 * 2 * (1/4)^2 * 1 * 2
    # a value just below a double (relative distance about 2**-199): the interval evaluation decides
    lam = 1.0
    num = (1 << 200) - 1                          # gamma = (2**200 - 1) / 2**203 is not a double,
    assert moments_module._data_independent_exact(num, 1 << 203, lam, 1) is None   # E = 2 gamma^2 * 2


@pytest.mark.parametrize("delta", [1e-5, 0.3, 1e-300])
def test_conversion_in_the_thread_context_equals_new_contexts(delta):
    rng = np.random.default_rng(3)
    orders = np.asarray(DEFAULT_ORDERS)
    for _ in range(20):
        lm = np.sort(rng.uniform(0, 30, orders.size)) * rng.uniform(0.01, 3)
        lm[rng.random(orders.size) < 0.1] = np.inf
        got = moments_to_dp(lm, orders, delta=delta)
        for method, eps, order in (("classic", got.epsilon_tail, got.order_tail),
                                   ("cks", got.epsilon_rdp, got.order_rdp)):
            i = int(np.flatnonzero(orders == order)[0])
            with interval_context() as iv:
                v = _epsilon_at_order(iv.mpf(orders[i]), iv.mpf(lm[i]), -iv.ln(iv.mpf(delta)), iv.ln, method)
                assert eps == max(0.0, ceil_interval(v))
    with interval_context() as iv:
        g = iv.mpf(0.05)
        want = ceil_interval(4 * 100 * g * g + 2 * g * iv.sqrt(2 * 100 * -iv.ln(iv.mpf(delta))))
    assert pate_quick_composition(0.05, 100, delta) == want


def test_rigorous_epsilon_at_order_equals_the_shared_formula():
    rng = np.random.default_rng(5)
    with interval_context() as iv:
        for lam in list(DEFAULT_ORDERS) + list(np.exp(rng.uniform(-10, 8, 30))):
            for lm in (0.0, 1e-9, 3.7, 250.0, 1e-300):
                lid = -iv.ln(iv.mpf(1e-7))
                for method in ("classic", "cks"):
                    want = _epsilon_at_order(iv.mpf(float(lam)), iv.mpf(lm), lid, iv.ln, method)
                    got = moments_module._rigorous_epsilon_at_order(iv, float(lam), iv.mpf(lm), lid, method)
                    assert got._mpi_ == want._mpi_
                    upper = moments_module._epsilon_upper_at_order(iv, float(lam), lm, lid, method)
                    assert upper == want._mpi_[1]


@pytest.mark.parametrize("two_sided", [False, True])
def test_report_equals_the_validated_building_blocks(two_sided):
    counts = np.vstack([h for h in histograms() if h.shape[1] == 10])
    gamma, delta = 0.05, 1e-5
    orders = np.linspace(0.5, 64, 64)
    r = pate_analysis(counts, gamma, delta, orders=orders, two_sided=two_sided, noise="continuous")
    lq = lemma4_two_sided_log_q(counts, gamma) if two_sided else core.lemma4_log_q(counts, gamma)
    lm = core.accountant_log_moments(lq, orders, gamma)
    np.testing.assert_array_equal(r.log_moments["theorem3"], lm)
    assert r.results["theorem3"] == moments_to_dp(lm, orders, delta=delta)
    di = _data_independent_reference(gamma, orders, counts.shape[0])
    np.testing.assert_array_equal(r.log_moments["data_independent"], di)
    assert r.results["data_independent"] == moments_to_dp(di, orders, delta=delta)
    # the accountant, fed in batches, gives the same
    acc = PATEAccountant(gamma, orders=orders, two_sided=two_sided, noise="continuous")
    acc.add_counts(counts[:17]).add_counts(counts[17:])
    assert acc.epsilon(delta) == r.results["theorem3"]


def test_report_is_the_same_with_other_threads_converting():
    counts = histograms()[3]
    want = pate_analysis(counts, 0.05, 1e-5, noise="continuous")
    results, stop = [], threading.Event()

    def other():
        while not stop.is_set():
            moments_to_dp(np.linspace(1, 9, 63), DEFAULT_ORDERS, delta=0.01)
            pate_data_independent_log_moments(0.3, DEFAULT_ORDERS, 17)

    threads = [threading.Thread(target=other) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(5):
            results.append(pate_analysis(counts, 0.05, 1e-5, noise="continuous"))
    finally:
        stop.set()
        for t in threads:
            t.join()
    for r in results:
        assert r.results == want.results
        for name in want.log_moments:
            np.testing.assert_array_equal(r.log_moments[name], want.log_moments[name])


def test_accountant_keeps_the_gamma_overflow_error():
    with pytest.raises(ValueError, match=r"gamma.*PATEAccountant\.add_counts.*max\(counts\)"):
        PATEAccountant(1e306, noise="continuous").add_counts(np.array([[1000, 3]]))


def test_valid_counts_and_orders_pass_as_they_are_and_bad_ones_get_the_full_checks():
    from refdp.pate._args import check_orders
    from refdp.utils.votes import check_counts

    counts = histograms()[3]
    assert check_counts(counts, "o") is counts                      # int64, C-contiguous: returned as is
    orders = np.linspace(0.5, 64, 64)
    assert check_orders(orders, "o") is orders
    # every other form goes through the full checks, with their messages
    np.testing.assert_array_equal(check_counts(counts.astype(np.int32), "o"), counts)
    np.testing.assert_array_equal(check_counts(np.asfortranarray(counts), "o"), counts)
    bad_counts = [np.array([[3, -1]]), np.array([[0, 0], [1, 2]]), np.zeros((0, 3), dtype=np.int64),
                  np.array([[2**62, 2**62]])]
    for bad in bad_counts:
        with pytest.raises(ValueError, match="The 'counts' parameter of o must be"):
            check_counts(bad, "o")
    for bad in (np.array([1.0, np.nan]), np.array([0.0, 1.0]), np.array([1.0, np.inf]), np.zeros(0),
                np.array([-2.0])):
        with pytest.raises(ValueError, match="The 'orders' parameter of o must be"):
            check_orders(bad, "o")
    with pytest.raises(ValueError, match="rows each sum to n_teachers = 250"):
        check_counts(np.array([[240, 9]]), "o", n_teachers=250)


@pytest.mark.parametrize("noise", ["continuous", "discrete"])
@pytest.mark.parametrize("two_sided", [False, True])
def test_the_other_side_of_lemma4_on_demand_equals_both_computed_at_once(noise, two_sided):
    # the accountant computes its own side when counts are added and the other one when asked
    batches = histograms()[2:5]
    acc = PATEAccountant(0.05, two_sided=two_sided, noise=noise)
    for counts in batches:
        acc.add_counts(counts)
    for two in (two_sided, not two_sided, two_sided):
        got = acc.log_moments(two_sided=two)
        if noise == "continuous":
            lq = np.concatenate([core.lemma4_log_q_pair(c, 0.05)[1 if two else 0] for c in batches])
        else:
            from refdp.pate.discrete_analysis import discrete_lemma4_log_q, discrete_lemma4_two_sided_log_q
            f = discrete_lemma4_two_sided_log_q if two else discrete_lemma4_log_q
            lq = np.concatenate([f(c, 0.05) for c in batches])
        np.testing.assert_array_equal(got, core.accountant_log_moments(lq, acc.orders, 0.05))
    assert all(p is None for p in acc._pending)            # both sides known: no counts kept
    before = acc.epsilon(1e-5, two_sided=not two_sided)
    acc.add_counts(batches[0])                               # a new batch after both sides were asked for
    assert acc.epsilon(1e-5, two_sided=not two_sided).epsilon >= before.epsilon


def test_one_accountant_asked_for_the_other_side_from_several_threads():
    batches = histograms()[2:5]
    ref = PATEAccountant(0.05, two_sided=False, noise="continuous")
    for counts in batches:
        ref.add_counts(counts)
    want = ref.log_moments(two_sided=True)
    for _ in range(5):
        acc = PATEAccountant(0.05, two_sided=False, noise="continuous")
        for counts in batches:
            acc.add_counts(counts)
        got, errors = [], []

        def ask():
            try:
                got.append(acc.log_moments(two_sided=True))
            except Exception as exc:              # reported in the main thread
                errors.append(exc)

        workers = [threading.Thread(target=ask) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert not errors and len(got) == 4
        for g in got:
            np.testing.assert_array_equal(g, want)
