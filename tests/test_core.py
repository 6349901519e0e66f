"""Compiled kernels against their pure-Python twins and exact mpmath values."""
import math
import threading

import mpmath
import numpy as np
import pytest
import scipy.special
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from refdp import _core, core
from refdp.twins import core as _twins
from refdp.verify import reference as ref

RTOL = 1e-12

# ---------------------------------------------------------------- walk ----

walk_x = st.lists(st.sampled_from([-1e300, -3.5, -1.0, 0.0, 0.0, 0.25, 1.0, 2.0, 7.5, 1e300]),
                  min_size=0, max_size=30)


@given(x=walk_x, labels=st.lists(st.integers(0, 1), min_size=30, max_size=30),
       queries=st.lists(st.sampled_from([-np.inf, -2.0, -1.0, 0.0, 0.1, 1.0, 3.0, 1e300, np.inf]),
                        min_size=0, max_size=12),
       s=st.sampled_from([1e-3, 0.05, 0.5, 1.0, 3.0]),
       bound=st.sampled_from([0.0, 0.1, 1.0, math.log(99.0), 50.0]))
def test_walk_kernel_equals_twin(x, labels, queries, s, bound):
    # Sort by (x, y): the documented tie rule.
    y = np.array(labels[: len(x)], dtype=np.int64)
    xa = np.array(x, dtype=np.float64)
    order = np.lexsort((y, xa))
    xa, y = xa[order], y[order]
    steps = s * (2.0 * y - 1.0)
    qa = np.array(queries, dtype=np.float64)
    got = core.projected_walk_log_odds(xa, steps, np.nan_to_num(qa, posinf=1e308, neginf=-1e308),
                                       lower=-bound, upper=bound)
    qs = np.nan_to_num(qa, posinf=1e308, neginf=-1e308)
    order_q = np.argsort(qs, kind="stable")
    want = np.empty(len(qs))
    want[order_q] = _twins.projected_walk_log_odds(xa, steps, qs[order_q], 0.0, -bound, bound)
    np.testing.assert_array_equal(got, want)
    assert np.all(np.abs(got) <= bound)


def test_walk_hand_example():
    # records (0, 1), (1, 1), (2, 0); B = 1.5, s = 1:
    # l after x=0: 1; after x=1: 1.5 (clipped); after x=2: 0.5
    got = core.projected_walk_log_odds([0.0, 1.0, 2.0], [1.0, 1.0, -1.0], [2.0, 0.5, -1.0, 1.0],
                                       lower=-1.5, upper=1.5)
    np.testing.assert_array_equal(got, [0.5, 1.0, 0.0, 1.5])


def test_walk_empty_training_and_queries():
    assert core.projected_walk_log_odds([], [], [1.0, 2.0], lower=-1, upper=1).tolist() == [0.0, 0.0]
    assert core.projected_walk_log_odds([0.0], [1.0], [], lower=-1, upper=1).shape == (0,)


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=[1.0, 0.0], steps=[1, 1], queries=[0.0]), "'x' parameter .* sorted"),
    (dict(x=[0.0, 1.0], steps=[1], queries=[0.0]), "'steps' parameter .* shape"),
    (dict(x=[0.0, np.nan], steps=[1, 1], queries=[0.0]), "'x' parameter .* finite"),
    (dict(x=[0.0], steps=[1], queries=[[0.0]]), "'queries' parameter .* 1-dimensional"),
    (dict(x=[0.0], steps=[1], queries=[np.inf]), "'queries' parameter .* finite"),
])
def test_walk_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        core.projected_walk_log_odds(**kwargs, lower=-1, upper=1)


def test_walk_bad_bounds():
    with pytest.raises(ValueError, match="'upper' parameter"):
        core.projected_walk_log_odds([0.0], [1.0], [0.0], lower=1, upper=0)
    with pytest.raises(ValueError, match="'start' parameter"):
        core.projected_walk_log_odds([0.0], [1.0], [0.0], lower=-1, upper=1, start=2)


# --------------------------------------------------------------- votes ----

VOTE_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", VOTE_DTYPES)
@given(data=st.data())
def test_count_votes_equals_twin(dtype, data):
    n_classes = data.draw(st.integers(1, 12))
    shape = data.draw(st.tuples(st.integers(0, 8), st.integers(0, 9)))
    votes = data.draw(hnp.arrays(dtype, shape, elements=st.integers(0, n_classes - 1)))
    got = core.count_votes(votes, n_classes)
    want, bad = _twins.count_votes(votes, n_classes)
    assert bad == -1
    assert got.dtype == np.int64 and got.shape == (shape[1], n_classes)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got.sum(axis=1), np.full(shape[1], shape[0]))


@pytest.mark.parametrize("dtype", VOTE_DTYPES)
@given(data=st.data())
def test_count_votes_reports_first_bad_position(dtype, data):
    n_classes = data.draw(st.integers(1, 5))
    info = np.iinfo(dtype)
    shape = data.draw(st.tuples(st.integers(1, 6), st.integers(1, 6)))
    votes = data.draw(hnp.arrays(dtype, shape, elements=st.integers(0, n_classes - 1)))
    t = data.draw(st.integers(0, shape[0] - 1))
    q = data.draw(st.integers(0, shape[1] - 1))
    bad_values = [n_classes, int(info.max)] + ([-1, int(info.min)] if info.min < 0 else [])
    votes[t, q] = data.draw(st.sampled_from(bad_values))
    _, first = _twins.count_votes(votes, n_classes)
    ft, fq = divmod(first, shape[1])
    with pytest.raises(ValueError, match=rf"\(teacher={ft}, query={fq}\)"):
        core.count_votes(votes, n_classes)
    assert (ft, fq) <= (t, q)


def test_count_votes_non_contiguous_and_byteswapped():
    rng = np.random.default_rng(1)
    votes = rng.integers(0, 4, size=(7, 11))
    want = _twins.count_votes(votes, 4)[0]
    np.testing.assert_array_equal(core.count_votes(np.asfortranarray(votes), 4), want)
    np.testing.assert_array_equal(core.count_votes(votes.astype(">i4"), 4), want)
    np.testing.assert_array_equal(core.count_votes(votes.T.copy().T, 4), want)


@pytest.mark.parametrize("votes, n_classes, match", [
    (np.zeros((2, 2)) + 0.5, 3, "'votes' parameter .* integers"),
    (np.zeros(3, dtype=int), 3, "'votes' parameter .* 2-dimensional"),
    (np.zeros((2, 2), dtype=int), 0, "'n_classes' parameter .* \\[1, inf\\)"),
    (np.zeros((2, 2), dtype=int), 2.5, "'n_classes' parameter"),
])
def test_count_votes_bad_input(votes, n_classes, match):
    with pytest.raises(ValueError, match=match):
        core.count_votes(votes, n_classes)


# ------------------------------------------------------- Laplace tails ----

def test_laplace_difference_tail_matches_integral():
    # P[Y - X > g] for X, Y iid Lap(1/gamma), by numerical integration in mpmath.
    gamma = mpmath.mpf("0.7")
    with mpmath.workdps(30):
        for g in [0, 0.5, 3, 20]:
            b = 1 / gamma
            pdf = lambda t: gamma / 2 * mpmath.exp(-gamma * abs(t))
            # P[Y > X + g] = int pdf_X(t) P[Y > t + g] dt
            sf = lambda u: (mpmath.exp(-u / b) / 2) if u >= 0 else 1 - mpmath.exp(u / b) / 2
            exact = mpmath.quad(lambda t: pdf(t) * sf(t + g), [-mpmath.inf, -g, 0, mpmath.inf])
            got = core.laplace_difference_tail(g, 0.7)
            assert abs(got - exact) <= 1e-14 * exact


counts_strategy = st.integers(1, 12).flatmap(
    lambda c: hnp.arrays(np.int64, st.tuples(st.integers(1, 6), st.just(c)),
                         elements=st.integers(0, 300)))


@given(counts=counts_strategy, gamma=st.sampled_from([1e-3, 0.01, 0.05, 0.5, 2.0, 40.0]))
def test_lemma4_kernel_equals_twin_and_never_undercuts(counts, gamma):
    got = core.lemma4_log_q(counts, gamma)
    want = _twins.lemma4_log_q(counts, gamma)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    with mpmath.workdps(40):
        for row, lq in zip(counts, got):
            exact = ref.lemma4_q(row, gamma)
            if exact == 0:
                assert lq == -np.inf
                continue
            lexact = mpmath.log(exact)
            assert mpmath.mpf(lq) >= lexact, (row, lq, lexact)
            assert mpmath.mpf(lq) - lexact <= 1e-12 * (1 + abs(lexact))


def test_lemma4_edges():
    # one class: q = 0; ties give 1/2 per tied class; huge gaps stay finite in log space
    assert core.lemma4_log_q([[5]], 0.1)[0] == -np.inf
    assert core.lemma4_log_q([[3, 3]], 0.1)[0] >= math.log(0.5)
    lq = core.lemma4_log_q([[10**6, 0]], 1.0)[0]
    assert np.isfinite(lq) and lq < -10**5
    with pytest.raises(ValueError, match="'counts' parameter .* \\[0, inf\\)"):
        core.lemma4_log_q([[1, -1]], 0.1)
    with pytest.raises(ValueError, match="'gamma' parameter"):
        core.lemma4_log_q([[1, 0]], 0.0)
    with pytest.raises(ValueError, match="'gamma' parameter .* finite"):
        core.lemma4_log_q([[2, 0]], 1e308)


# ---------------------------------------------------------- accountant ----

@given(counts=counts_strategy,
       gamma=st.sampled_from([0.01, 0.05, 0.2, 1.0]),
       orders=hnp.arrays(np.float64, st.integers(1, 6),
                         elements=st.sampled_from([0.1, 0.5, 1.0, 2.0, 3.5, 8.0, 32.0, 256.0])))
def test_accountant_kernel_equals_twin_and_never_undercuts(counts, gamma, orders):
    lq = core.lemma4_log_q(counts, gamma)
    got = core.accountant_log_moments(lq, orders, gamma)
    want = _twins.accountant_log_moments(lq, orders, gamma)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0)
    with mpmath.workdps(40):
        for k, lam in enumerate(orders):
            exact = mpmath.fsum(ref.per_query_bound(mpmath.exp(mpmath.mpf(v)), lam, gamma) for v in lq)
            assert mpmath.mpf(got[k]) >= exact, (lam, got[k], exact)
            assert mpmath.mpf(got[k]) - exact <= 1e-11 * (1 + exact)


def test_accountant_uses_theorem3_only_in_its_validity_range():
    gamma = 0.05
    threshold = (math.exp(2 * gamma) - 1) / (math.exp(4 * gamma) - 1)
    orders = np.array([1.0, 8.0])
    for q in [threshold * (1 + 1e-9), 0.5, 0.9]:
        got = core.accountant_log_moments([math.log(q)], orders, gamma)
        indep = np.minimum(2 * gamma**2 * orders * (orders + 1), 2 * gamma * orders)
        np.testing.assert_allclose(got, indep, rtol=1e-14)
    # just inside the range Theorem 3 is applied (it wins once q is small)
    q = threshold * (1 - 1e-9)
    with mpmath.workdps(40):
        t3 = [ref.theorem3(mpmath.mpf(q), lam, gamma) for lam in orders]
    assert all(t is not None for t in t3)
    got = core.accountant_log_moments([math.log(1e-4)], orders, gamma)
    assert np.all(got < 0.01 * 2 * gamma**2 * orders * (orders + 1))


def test_accountant_edges():
    assert core.accountant_log_moments([], [1.0, 2.0], 0.1).tolist() == [0.0, 0.0]
    got = core.accountant_log_moments([-np.inf], [1.0], 0.1)
    assert 0.0 <= got[0] <= 1e-12
    with pytest.raises(ValueError, match="'log_q' parameter .* nan at position"):
        core.accountant_log_moments([-1.0, np.nan], [1.0], 0.1)
    # q >= 1 (log q >= 0) is legal and vacuous: the data-independent bound is used
    got = core.accountant_log_moments([0.5, np.inf], [1.0], 0.1)
    np.testing.assert_allclose(got, 2 * 2 * 0.1**2 * 1 * 2, rtol=1e-14)
    with pytest.raises(ValueError, match="'orders' parameter .* \\(0, inf\\)"):
        core.accountant_log_moments([-1.0], [0.0], 0.1)
    with pytest.raises(ValueError, match="'orders' parameter .* at least 1"):
        core.accountant_log_moments([-1.0], [], 0.1)


# --------------------------------------------------------- logsumexp ------

@given(x=hnp.arrays(np.float64, st.integers(0, 50),
                    elements=st.floats(-1e300, 1e300) | st.sampled_from([-np.inf, 0.0, 700.0, -745.0])))
def test_logsumexp_equals_twin_and_scipy(x):
    got = core.logsumexp(x)
    want = _twins.logsumexp(x)
    if math.isinf(want) or math.isnan(want):
        assert got == want or (math.isnan(got) and math.isnan(want))
    else:
        assert got == pytest.approx(want, rel=RTOL, abs=1e-300)
        assert got == pytest.approx(float(scipy.special.logsumexp(x)), rel=RTOL, abs=1e-300)


def test_logsumexp_special_values():
    assert core.logsumexp([]) == -np.inf
    assert core.logsumexp([-np.inf, -np.inf]) == -np.inf
    assert core.logsumexp([1.0, np.inf]) == np.inf
    assert math.isnan(core.logsumexp([1.0, np.nan]))
    assert core.logsumexp([0.0] * 4) == pytest.approx(math.log(4), rel=1e-15)


# ----------------------------------------------------- GIL is released ----

@pytest.mark.parametrize("kernel", ["votes", "walk", "accountant"])
def test_kernels_release_the_gil(kernel):
    """While a kernel runs in a thread, the main thread keeps executing Python.

    With the GIL held for the whole kernel the main thread could not run a
    single bytecode until the kernel returned; we require it to make progress
    on at least 3 separate polls while the worker is still inside the kernel.
    """
    rng = np.random.default_rng(0)
    if kernel == "votes":
        votes = rng.integers(0, 10, size=(400, 200_000)).astype(np.int8)
        call = lambda: _core._py_count_votes(votes, 10)
    elif kernel == "walk":
        x = np.sort(rng.random(3_000_000))
        steps = np.where(rng.random(x.size) < 0.5, -0.1, 0.1)
        qs = np.sort(rng.random(3_000_000))
        call = lambda: [_core._py_projected_walk_log_odds(x, steps, qs, 0.0, -2.0, 2.0) for _ in range(5)]
    else:
        lq = np.log(rng.random(200_000) * 1e-3)
        orders = np.linspace(0.5, 64, 64)
        call = lambda: _core._py_accountant_log_moments(lq, orders, 0.05)
    started, done = threading.Event(), threading.Event()

    def worker():
        started.set()
        call()
        done.set()

    th = threading.Thread(target=worker)
    th.start()
    started.wait()
    polls = 0
    while not done.is_set():
        polls += 1
        done.wait(0.001)
    th.join()
    assert polls >= 3


# ------------------------------------------- blocked paths of the kernels --

@pytest.mark.parametrize("shape, n_classes", [
    ((253, 2100), 5), ((600, 1500), 32), ((9, 2049), 33), ((3, 700), 200), ((256, 1025), 2),
])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int64])
def test_count_votes_blocked_paths(shape, n_classes, dtype):
    """Several query blocks, > 252 teachers (byte-counter flushes), > 32 classes (direct path).

    The reference is a vectorised bincount (the Python twin is too slow at
    these sizes; it is compared on small shapes above).
    """
    if np.iinfo(dtype).max < n_classes:
        pytest.skip("labels do not fit the dtype")
    rng = np.random.default_rng(sum(shape) + n_classes)
    votes = rng.integers(0, n_classes, size=shape).astype(dtype)
    n_teachers, n_queries = shape
    flat = votes.astype(np.int64) + n_classes * np.arange(n_queries)[None, :]
    want = np.bincount(flat.ravel(), minlength=n_queries * n_classes).reshape(n_queries, n_classes)
    np.testing.assert_array_equal(core.count_votes(votes, n_classes), want)
    # bad votes in the last teacher's row, in two different blocks: the first is reported
    bad = n_classes if np.iinfo(dtype).max >= n_classes else -1
    votes[-1, n_queries - 3] = bad
    votes[-1, n_queries // 2] = bad
    with pytest.raises(ValueError, match=rf"\(teacher={n_teachers - 1}, query={n_queries // 2}\)"):
        core.count_votes(votes, n_classes)


def test_accountant_with_repeated_log_q_equals_twin():
    """More than half the log q values repeat: the kernel evaluates each distinct value once."""
    rng = np.random.default_rng(8)
    base = core.lemma4_log_q(rng.multinomial(250, [0.9] + [0.1 / 9] * 9, size=40), 0.05)
    lq = rng.choice(base, size=5000)
    orders = np.linspace(0.5, 64, 64)
    np.testing.assert_allclose(core.accountant_log_moments(lq, orders, 0.05),
                               _twins.accountant_log_moments(lq, orders, 0.05), rtol=RTOL)
