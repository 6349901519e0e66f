"""PATE's moments accountant: the paper's figures, Theorem 3 against mpmath, two-sided bounds, bad input."""
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_checks.pate.reference import lemma4_two_sided_q
from refdp.accounting import DEFAULT_ORDERS, pate_quick_composition
from refdp.pate import ANALYSES, PATEAccountant, pate_analysis
from refdp.verify import reference as ref


def agreeing_votes(n_queries, n_teachers=250, n_classes=10, agreement=0.9, seed=0):
    """Votes of teachers that agree with probability ``agreement`` on a per-query true class.

    Each teacher votes the query's class with probability 0.9, otherwise a
    uniformly random other class: generated data, not the paper's votes.
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_classes, n_queries)
    wrong = (truth[None, :] + rng.integers(1, n_classes, (n_teachers, n_queries))) % n_classes
    return np.where(rng.random((n_teachers, n_queries)) < agreement, truth[None, :], wrong)


def test_paper_data_independent_figures():
    # PATE Sec. 3.1: (4 T gamma^2 + 2 gamma sqrt(2 T ln(1/delta)), delta)
    assert round(pate_quick_composition(0.05, 100, 1e-5), 2) == 5.80
    assert 26 <= pate_quick_composition(0.05, 1000, 1e-6) < 27      # "about 26": 26.62
    # the moments accountant on the same settings (data-independent, Theorem 2)
    acc = PATEAccountant(0.05, n_classes=10).add_votes(agreeing_votes(100))
    r = acc.report(1e-5)
    assert r.quick_composition == pate_quick_composition(0.05, 100, 1e-5)
    di = r.results["data_independent"]
    assert 5.2 < di.epsilon_tail < 5.4 and di.epsilon_rdp < di.epsilon_tail     # 5.30 and 4.73


def test_data_dependent_analyses_on_agreeing_teachers():
    votes = agreeing_votes(30)
    acc = PATEAccountant(0.05, n_classes=10, exact=True, noise="continuous").add_votes(votes)
    eps = {name: acc.epsilon(1e-5, name) for name in ANALYSES}
    assert (eps["exact"].epsilon_tail <= eps["theorem3_exact_q"].epsilon_tail * (1 + 1e-9)
            <= eps["theorem3"].epsilon_tail * (1 + 1e-9) < eps["data_independent"].epsilon_tail)
    assert eps["theorem3"].epsilon < 1.0
    for name in ANALYSES:
        assert eps[name].epsilon_rdp <= eps[name].epsilon_tail
        assert eps[name].order_tail in DEFAULT_ORDERS and eps[name].order_rdp in DEFAULT_ORDERS
    for name in ANALYSES[1:]:
        assert np.all(acc.log_moments(name, two_sided=False) <= acc.log_moments(name) * (1 + 1e-12))


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.2, 1.0]), st.booleans())
def test_theorem3_composition_matches_mpmath(seed, gamma, two_sided):
    rng = np.random.default_rng(seed)
    c = int(rng.integers(2, 6))
    counts = rng.multinomial(int(rng.integers(3, 60)), rng.dirichlet(np.full(c, 0.3)), size=4)
    orders = [0.5, 4.0, 32.0]
    got = PATEAccountant(gamma, orders=orders, two_sided=two_sided,
                         noise="continuous").add_counts(counts).log_moments()
    for k, lam in enumerate(orders):
        with mpmath.workdps(40):      # the references run at mpmath's global precision: restored on exit
            total = mpmath.mpf(0)
            for row in counts.tolist():
                q = lemma4_two_sided_q(row, gamma) if two_sided else ref.lemma4_q(row, gamma)
                total += ref.per_query_bound(1 if q is None else q, lam, gamma)
            # 1e-12 relative, plus the kernel's absolute rounding margin (below 1e-12 per query)
            assert total <= got[k] <= total + 1e-12 * (abs(total) + len(counts))


def test_votes_counts_and_batches_agree():
    votes = agreeing_votes(40, seed=3)
    a = PATEAccountant(0.05, n_classes=10).add_votes(votes)
    b = PATEAccountant(0.05, n_teachers=250).add_counts(np.array([np.bincount(v, minlength=10) for v in votes.T]))
    c = PATEAccountant(0.05, n_classes=10).add_votes(votes[:, :15]).add_votes(votes[:, 15:])
    assert a.n_queries == b.n_queries == c.n_queries == 40
    np.testing.assert_array_equal(a.log_moments(), b.log_moments())
    np.testing.assert_allclose(a.log_moments(), c.log_moments(), rtol=1e-13)
    ea = PATEAccountant(0.05, n_classes=10, exact=True, noise="continuous").add_votes(votes[:, :6])
    eb = PATEAccountant(0.05, n_classes=10, exact=True, noise="continuous").add_votes(votes[:, :3]).add_votes(votes[:, 3:6])
    np.testing.assert_allclose(ea.log_moments("exact"), eb.log_moments("exact"), rtol=1e-13)


def test_empty_accountant_and_one_call_function():
    acc = PATEAccountant(0.1)
    assert acc.n_queries == 0 and np.all(acc.log_moments() == 0)
    assert acc.epsilon(1e-5).epsilon_tail < 1.0   # ln(1/delta) / 256
    counts = np.tile([232, 4, 3, 3, 2, 2, 1, 1, 1, 1], (20, 1))
    r = pate_analysis(counts, 0.05, 1e-5, exact=True, n_teachers=250, noise="continuous")
    d = r.as_dict()
    assert set(d["analyses"]) == set(ANALYSES) and d["analyses"]["exact"]["data_dependent"]
    assert not d["analyses"]["data_independent"]["data_dependent"]
    assert "theorem3" in r.table() and r.n_queries == 20 and len(r.orders) == 63


@pytest.mark.parametrize("call,name,owner", [
    (lambda: PATEAccountant(0.0), "gamma", "PATEAccountant"),
    (lambda: PATEAccountant(-0.1), "gamma", "PATEAccountant"),
    (lambda: PATEAccountant(0.1, orders=[1.0, 0.0]), "orders", "PATEAccountant"),
    (lambda: PATEAccountant(0.1, orders=[-1.0]), "orders", "PATEAccountant"),
    (lambda: PATEAccountant(0.1).epsilon(0.0), "delta", "PATEAccountant.epsilon"),
    (lambda: PATEAccountant(0.1).epsilon(1.0), "delta", "PATEAccountant.epsilon"),
    (lambda: PATEAccountant(0.1).epsilon(1.5), "delta", "PATEAccountant.epsilon"),
    (lambda: PATEAccountant(0.1, n_classes=3).add_votes(np.zeros((0, 4), dtype=int)), "votes",
     "PATEAccountant.add_votes"),
    (lambda: PATEAccountant(0.1, n_classes=3).add_votes([[0, 1], [2, 3]]), "votes", r"PATEAccountant\.add_votes"),
    (lambda: PATEAccountant(0.1, n_classes=3).add_votes([[0, -1]]), "votes", r"PATEAccountant\.add_votes"),
    (lambda: PATEAccountant(0.1).add_votes([[0, 1]]), "n_classes", "PATEAccountant"),
    (lambda: PATEAccountant(0.1, n_teachers=5).add_counts([[3, 2], [4, 0]]), "counts",
     "PATEAccountant.add_counts"),
    (lambda: PATEAccountant(0.1, n_classes=3).add_counts([[3, 2]]), "counts", "PATEAccountant.add_counts"),
    (lambda: PATEAccountant(0.1).log_moments("exact"), "analysis", "PATEAccountant.log_moments"),
    (lambda: PATEAccountant(0.1).log_moments("moments"), "analysis", "PATEAccountant.log_moments"),
    (lambda: pate_analysis([[3, 1]], 0.1, 0.0), "delta", "pate_analysis"),
    (lambda: pate_analysis([[3, 1]], 0.1, 1e-5, n_teachers=5), "counts", "pate_analysis"),
])
def test_bad_input_is_rejected_with_one_message_shape(call, name, owner):
    with pytest.raises(ValueError, match=rf"The '{name}' parameter of {owner} must be .* Got .* instead\."):
        call()
