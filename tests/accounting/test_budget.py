"""The privacy filter: a budget tracked across queries, charged by the releasing estimators."""
import copy
import math
import pickle
import threading
from fractions import Fraction

import numpy as np
import pytest

from refdp.accounting import (BudgetExhausted, PrivacyFilter, advanced_composition, optimal_composition_epsilon,
                              zcdp_to_dp)
from refdp.utils.rounding import ceil_fraction
from refdp.pate import PATEStudent, PATETeachers
from refdp.prediction import AveragedPrediction, ProjectedWalk, SoftMajority, StablePredictor


def admitted(budget, *args, **kwargs):
    """Number of single charges admitted before the first refusal."""
    n = 0
    while True:
        try:
            budget.charge(*args, **kwargs)
        except BudgetExhausted:
            return n
        n += 1


def test_basic_is_exact_and_refuses_the_charge_past_the_budget():
    b = PrivacyFilter(1.0)
    assert admitted(b, 0.25) == 4 and b.spent == (1.0, 0.0)
    # The double 0.1 exceeds 1/10, so ten charges of 0.1 exceed 1: the
    # comparison is exact, never rounded in the spender's favour.
    assert Fraction(0.1) * 10 > 1
    assert admitted(PrivacyFilter(1.0), 0.1) == 9
    # deltas add too
    b = PrivacyFilter(1.0, 1e-6)
    b.charge(0.1, 4e-7)
    b.charge(0.1, 4e-7)
    with pytest.raises(BudgetExhausted, match="refused 1 release"):
        b.charge(0.1, 4e-7)
    assert b.n_charges == 2


def test_a_batch_is_admitted_whole_or_not_at_all():
    b = PrivacyFilter(1.0)
    b.charge(0.25, count=3)
    with pytest.raises(BudgetExhausted):
        b.charge(0.25, count=2)
    assert b.n_charges == 3 and b.spent.epsilon == 0.75
    b.charge(0.25)
    assert b.n_charges == 4


def test_advanced_matches_the_theorem_and_never_undercuts_the_optimal_composition():
    eps0, total, dp = 0.01, 1.0, 5e-7
    b = PrivacyFilter(total, 1e-6, composition="advanced")
    k = admitted(b, eps0)
    assert advanced_composition(eps0, k, dp).epsilon <= total < advanced_composition(eps0, k + 1, dp).epsilon
    assert k > 100          # basic composition alone would stop at 99
    spent = b.spent
    assert spent.epsilon >= optimal_composition_epsilon(eps0, k, spent.delta)
    c = PrivacyFilter(1.0, 1e-6, composition="advanced")
    c.charge(0.01)
    with pytest.raises(ValueError, match="'epsilon' parameter of PrivacyFilter.charge must be the same"):
        c.charge(0.02)
    # with few charges the basic bound is the smaller and is the one used
    d = PrivacyFilter(1.0, 1e-6, composition="advanced")
    assert admitted(d, 0.25) == 4 and d.spent.epsilon == 1.0


def test_zcdp_composes_rho_and_refuses_approximate_dp_charges():
    b = PrivacyFilter(1.0, 1e-6, composition="zcdp")
    k = admitted(b, 0.01)
    rho = Fraction(0.01) ** 2 / 2
    assert zcdp_to_dp(float(k * rho), 1e-6) <= 1.0 < zcdp_to_dp(float((k + 1) * rho), 1e-6)
    z = PrivacyFilter(1.0, 1e-6, composition="zcdp")
    z.charge(0.0, rho=0.01)
    assert z.spent.epsilon == zcdp_to_dp(0.01, 1e-6)
    with pytest.raises(ValueError, match="'delta' parameter of PrivacyFilter.charge must be 0 under"):
        z.charge(0.1, 1e-7)
    with pytest.raises(ValueError, match="'rho' parameter of PrivacyFilter.charge must be None under"):
        PrivacyFilter(1.0).charge(0.0, rho=0.01)


def test_threads_share_one_ledger():
    b = PrivacyFilter(1000.0)
    got = []

    def spend():
        got.append(admitted(b, 0.25))

    threads = [threading.Thread(target=spend) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(got) == 4000 == b.n_charges


def test_one_budget_is_never_copied():
    b = PrivacyFilter(1.0)
    assert copy.copy(b) is b and copy.deepcopy(b) is b
    assert copy.deepcopy({"budget": b})["budget"] is b
    with pytest.raises(TypeError, match="second budget"):
        pickle.dumps(b)


@pytest.mark.parametrize("kwargs,name", [
    (dict(epsilon=0), "epsilon"), (dict(epsilon=-1.0), "epsilon"), (dict(epsilon=math.nan), "epsilon"),
    (dict(epsilon=1.0, delta=1.0), "delta"), (dict(epsilon=1.0, delta=-1e-9), "delta"),
    (dict(epsilon=1.0, composition="optimal"), "composition"),
    (dict(epsilon=1.0, composition="advanced"), "delta"), (dict(epsilon=1.0, composition="zcdp"), "delta"),
    (dict(epsilon=1.0, delta=1e-6, composition="advanced", delta_prime=2e-6), "delta_prime"),
    (dict(epsilon=1.0, delta=1e-6, delta_prime=1e-7), "delta_prime"),
])
def test_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=f"The '{name}' parameter of PrivacyFilter must be .* Got .* instead"):
        PrivacyFilter(**kwargs)


@pytest.mark.parametrize("args,kwargs,name", [
    ((-0.1,), {}, "epsilon"), ((math.inf,), {}, "epsilon"), ((0.1, 1.0), {}, "delta"),
    ((0.1,), dict(count=0), "count"), ((0.1,), dict(count=1.5), "count"),
])
def test_bad_charges(args, kwargs, name):
    with pytest.raises(ValueError, match=f"The '{name}' parameter of PrivacyFilter.charge"):
        PrivacyFilter(1.0).charge(*args, **kwargs)


# -- the estimators charge before they release --------------------------------------


class Majority:
    def fit(self, X, y):
        self.label = int(2 * np.sum(y) >= len(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


def _refuses_without_drawing(predict, rng):
    """``predict(rng)`` raises BudgetExhausted and leaves ``rng`` untouched (nothing was drawn)."""
    state = copy.deepcopy(rng.bit_generator.state)
    with pytest.raises(BudgetExhausted):
        predict(rng)
    assert rng.bit_generator.state == state


def test_projected_walk_charges_each_query():
    x = np.linspace(0, 1, 50)
    b = PrivacyFilter(1.0)
    w = ProjectedWalk(0.25, 0.05, budget=b).fit(x, (x > 0.5).astype(int))
    w.predict([0.1, 0.9], rng=0)
    w.predict([0.5], rng=0)
    assert b.n_charges == 3 and b.spent.epsilon == 0.75
    _refuses_without_drawing(lambda g: w.predict([0.1, 0.2], rng=g), np.random.default_rng(1))
    w.predict([0.3], rng=0)
    assert b.n_charges == 4
    assert w.get_params()["budget"] is b
    with pytest.raises(ValueError, match="'budget' parameter of ProjectedWalk must be None or a "
                                         "refdp.accounting.PrivacyFilter"):
        ProjectedWalk(0.25, 0.05, budget=1.0)


@pytest.mark.parametrize("cls", [SoftMajority, AveragedPrediction])
def test_subsample_and_aggregate_charge_each_query(cls):
    X = np.zeros((40, 1))
    y = (np.arange(40) % 4 != 0).astype(int)
    b = PrivacyFilter(1.0)
    model = cls(epsilon=0.5, k=4, learner=Majority, rng=0, budget=b).fit(X, y)
    model.predict(X[:2], rng=1)
    assert b.n_charges == 2 and b.spent.epsilon == 1.0
    _refuses_without_drawing(lambda g: model.predict(X[:1], rng=g), np.random.default_rng(2))


def test_stable_predictor_charges_its_guarantee():
    def learner(X, y):
        m = float(np.mean(y))
        return lambda Q: np.full(len(Q), m)

    X = np.zeros((30, 1))
    y = np.linspace(0, 1, 30)
    b = PrivacyFilter(5.0, 1e-6, composition="zcdp")
    sp = StablePredictor(learner, beta=1 / 30, rho=0.05, noise="gaussian", rng=0, budget=b).fit(X, y)
    sp.predict(X[:3])
    # the sum 3 rho is formed exactly and rounded up before the conversion
    assert b.n_charges == 3 and b.spent.epsilon == zcdp_to_dp(ceil_fraction(3 * Fraction(0.05)), 1e-6)
    basic = PrivacyFilter(1.0)
    lap = StablePredictor(learner, beta=1 / 30, epsilon=0.4, rng=0, budget=basic).fit(X, y)
    lap.predict(X[:2])
    with pytest.raises(BudgetExhausted):
        lap.predict(X[:1])


def test_pate_student_charges_its_target_before_asking_the_teachers():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    ens = PATETeachers(10, Majority, rng=1).fit(X, y)
    b = PrivacyFilter(3.0, 1e-5)
    st = PATEStudent(Majority, gamma=0.1, delta=1e-5, target_epsilon=2.0, rng=2, budget=b)
    st.fit(ens, X[:50])
    assert b.spent == (2.0, 1e-5)
    again = PATEStudent(Majority, gamma=0.1, delta=1e-5, target_epsilon=2.0, rng=2, budget=b)
    with pytest.raises(BudgetExhausted, match="PATEStudent.fit"):
        again.fit(ens, X[:50])
    assert not hasattr(again, "labels_")
    assert st.score(X[50:], y[50:]) == np.mean(st.predict(X[50:]) == y[50:])


def test_estimators_and_analyses_have_readable_reprs():
    from refdp.pate import PATEAccountant, pate_analysis

    b = PrivacyFilter(2.0, 1e-5)
    shown = [
        repr(ProjectedWalk(0.5, 0.1, budget=b)),
        repr(SoftMajority(1.0, 3, Majority)),
        repr(AveragedPrediction(1.0, 3, Majority)),
        repr(StablePredictor(lambda X, y: None, 0.1, rho=0.5, noise="gaussian")),
        repr(PATETeachers(5, Majority)),
        repr(PATEStudent(Majority, gamma=0.1, delta=1e-5, target_epsilon=1.0, budget=b)),
        repr(PATEAccountant(0.1)),
        repr(pate_analysis([[5, 0], [3, 2]], 0.1, 1e-5)),
    ]
    assert shown[0] == ("ProjectedWalk(epsilon=0.5, alpha=0.1, neighbours='replace', "
                        "budget=PrivacyFilter(epsilon=2, delta=1e-05, composition='basic'), classes=(0, 1))")
    assert shown[1] == "SoftMajority(epsilon=1, k=3, learner=Majority, classes=[0, 1], neighbours='replace', budget=None)"
    assert "rho=0.5" in shown[3] and "noise='gaussian'" in shown[3]
    assert shown[4] == "PATETeachers(n_teachers=5, learner=Majority, classes=[0, 1], fitted=False)"
    assert shown[6].startswith("PATEAccountant(gamma=0.1,") and "n_queries=0" in shown[6]
    assert shown[7].startswith("PATEAnalysis(gamma=0.1, delta=1e-05, n_queries=2") and "data_independent=" in shown[7]
    for text in shown:
        assert " object at 0x" not in text


@pytest.mark.parametrize("cls", [SoftMajority, AveragedPrediction])
def test_subsample_and_aggregate_score_is_the_expected_accuracy(cls):
    X = np.zeros((40, 1))
    y = (np.arange(40) % 4 != 0).astype(int)
    model = cls(epsilon=1.0, k=8, learner=Majority, rng=0).fit(X, y)
    proba = model.predict_proba(X[:5])
    assert proba.shape == (5, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    assert model.score(X[:4], [1, 1, 0, 1]) == pytest.approx((3 * proba[0, 1] + proba[0, 0]) / 4, rel=1e-14)
    with pytest.raises(ValueError, match=f"'y' parameter of {cls.__name__}.score must be an array of labels"):
        model.score(X[:2], [1, 7])


def test_student_keeps_its_counts_runs_the_exact_analysis_and_reports_progress(capsys):
    from refdp.pate import pate_analysis

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    ens = PATETeachers(10, Majority, rng=1).fit(X, y)
    class Soft(Majority):
        def predict_proba(self, X):
            return np.tile([1.0 - self.label, self.label], (len(X), 1))

    st = PATEStudent(Soft, gamma=0.2, delta=1e-5, target_epsilon=20.0, max_queries=12,
                     selection="least_confident", batch_size=4, exact=True, verbose=True, rng=2).fit(ens, X[:50])
    err = capsys.readouterr().err
    assert err.count("PATEStudent.fit:") == 3 and "12/12 labels" in err
    assert st.vote_counts_.shape == (12, 2) and (st.vote_counts_.sum(axis=1) == 10).all()
    mine = st.accountant_.report(1e-5)
    again = pate_analysis(st.vote_counts_, 0.2, 1e-5, exact=True)
    assert "exact" in mine.results and mine.noise == "discrete"
    for name in mine.results:
        assert mine.results[name].epsilon == pytest.approx(again.results[name].epsilon, rel=1e-12)


def test_advanced_filter_refuses_a_charge_whose_bound_overflows():
    # the composed bound exceeds the largest float: a refusal, the ledger unchanged
    f = PrivacyFilter(1.0, 1e-3, composition="advanced")
    f.charge(0.01, count=50)
    with pytest.raises(BudgetExhausted):
        f.charge(0.01, count=10 ** 400)
    assert f.n_charges == 50 and f.spent.epsilon <= 1.0
