"""Tests of the soft majority (Dwork & Feldman 2018, Theorem 4.1) and of the partition."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from proofs_checks.dwork_feldman.partition_votes import PointMajority, VoteLaw
from proofs_checks.common.sampler_law import binomial_acceptance
from proofs_checks.dwork_feldman.theorem_4_1_soft_majority_accuracy import error_probability
from proofs_checks.dwork_feldman.theorem_4_1_soft_majority_privacy import mixture, sweep
from refdp.mechanisms import exponential_mechanism_distribution
from refdp.prediction import SoftMajority, soft_majority_k, soft_majority_probabilities
from refdp.utils.partition import ConstantPredictor, random_partition
from refdp.utils.rng import spawn_streams
from refdp.verify.check import summarise
from refdp.verify.verdict import Verdict


class Threshold:
    """1-D threshold learner: 1 at and above the smallest point labelled 1."""

    def fit(self, X, y):
        ones = X[y == 1, 0]
        self.t = ones.min() if ones.size else np.inf
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= self.t).astype(int)


class Recorder:
    """Remembers its training set and its random stream; predicts its first label."""

    def __init__(self, rng=None):
        self.rng = rng

    def fit(self, X, y):
        self.X, self.y = X.copy(), y.copy()
        return self

    def predict(self, X):
        return np.full(len(X), self.y[0])


def threshold_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 1))
    return X, (X[:, 0] >= 0.5).astype(int)


# -- validation ----------------------------------------------------------------

@pytest.mark.parametrize("epsilon", [0, -1.0, math.nan, math.inf, "1", None, True])
def test_rejects_bad_epsilon(epsilon):
    with pytest.raises(ValueError, match="The 'epsilon' parameter of SoftMajority must be a float"):
        SoftMajority(epsilon, 3, Threshold)


def test_message_shape():
    with pytest.raises(ValueError) as info:
        SoftMajority(-1.0, 3, Threshold)
    assert str(info.value) == ("The 'epsilon' parameter of SoftMajority must be a float in the range "
                               "(0, inf). Got -1.0 instead.")


@pytest.mark.parametrize("k", [0, -2, 1.5, math.nan, "3"])
def test_rejects_bad_k(k):
    with pytest.raises(ValueError, match="The 'k' parameter of SoftMajority"):
        SoftMajority(1.0, k, Threshold)


def test_k_larger_than_n_replace_one_is_an_error():
    X, y = threshold_data(5)
    with pytest.raises(ValueError, match=r"The 'k' parameter of SoftMajority must be an int in the range \[1, 5\]"):
        SoftMajority(1.0, 6, Threshold).fit(X, y)


def test_k_larger_than_n_add_remove_gives_empty_parts():
    X, y = threshold_data(3)
    sm = SoftMajority(1.0, 8, Threshold, neighbours="add_remove", rng=1).fit(X, y)
    assert sm.part_sizes_.sum() == 3 and (sm.part_sizes_ == 0).sum() >= 5
    empty = [t for t, m in zip(sm.teachers_, sm.part_sizes_) if m == 0]
    assert all(isinstance(t, ConstantPredictor) and t.label == 0 for t in empty)
    # an empty training set is a valid dataset under add/remove: every vote is the constant
    sm.fit(np.empty((0, 1)), np.empty(0, dtype=int))
    assert sm.vote_counts([[0.3]]).tolist() == [[8, 0]]


def test_empty_training_set_rejected_under_replace():
    with pytest.raises(ValueError, match="The 'X' parameter of SoftMajority"):
        SoftMajority(1.0, 1, Threshold).fit(np.empty((0, 1)), np.empty(0))


def test_rejects_label_outside_classes():
    X, y = threshold_data(20)
    y[7] = 2
    with pytest.raises(ValueError, match=r"The 'y' parameter of SoftMajority .*Got 2 at position \(7,\)"):
        SoftMajority(1.0, 2, Threshold).fit(X, y)


def test_rejects_nan_in_X_and_in_queries():
    X, y = threshold_data(20)
    X[3, 0] = np.nan
    with pytest.raises(ValueError, match="The 'X' parameter of SoftMajority must be an array of finite"):
        SoftMajority(1.0, 2, Threshold).fit(X, y)
    X, y = threshold_data(20)
    sm = SoftMajority(1.0, 2, Threshold, rng=0).fit(X, y)
    with pytest.raises(ValueError, match="The 'Xq' parameter of SoftMajority must be an array of finite"):
        sm.predict([[np.nan]])


def test_rejects_query_shape_mismatch():
    X, y = threshold_data(20)
    sm = SoftMajority(1.0, 2, Threshold, rng=0).fit(X, y)
    with pytest.raises(ValueError, match=r"The 'Xq' parameter of SoftMajority must be an array of shape \(any, 1\)"):
        sm.predict_proba(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="The 'Xq' parameter of SoftMajority must be a 2-dimensional"):
        sm.predict(np.zeros(3))


def test_rejects_length_mismatch_and_unfitted():
    X, y = threshold_data(20)
    with pytest.raises(ValueError, match="The 'y' parameter of SoftMajority must be an array of shape"):
        SoftMajority(1.0, 2, Threshold).fit(X, y[:-1])
    with pytest.raises(ValueError, match="not fitted"):
        SoftMajority(1.0, 2, Threshold).predict(X)


@pytest.mark.parametrize("classes", [1, 0, [1], [0, 0], "ab", [[0, 1]], [0.0, math.nan]])
def test_rejects_bad_classes(classes):
    with pytest.raises(ValueError, match="The 'classes' parameter of SoftMajority"):
        SoftMajority(1.0, 2, Threshold, classes=classes)


def test_rejects_bad_neighbours_learner_and_rng():
    with pytest.raises(ValueError, match="The 'neighbours' parameter of SoftMajority"):
        SoftMajority(1.0, 2, Threshold, neighbours="add")
    with pytest.raises(ValueError, match="The 'learner' parameter of SoftMajority"):
        SoftMajority(1.0, 2, 3)
    with pytest.raises(ValueError, match="The 'learner' parameter of SoftMajority"):
        SoftMajority(1.0, 2, lambda: 3).fit(*threshold_data(10))
    with pytest.raises(ValueError, match="The 'rng' parameter"):
        SoftMajority(1.0, 2, Threshold, rng="seed")


def test_rejects_teacher_predicting_undeclared_label():
    class Bad(Threshold):
        def predict(self, X):
            return np.full(len(X), 5)

    sm = SoftMajority(1.0, 2, Bad, rng=0).fit(*threshold_data(50))
    with pytest.raises(ValueError, match="The 'learner' parameter of SoftMajority .*Got 5 from teacher"):
        sm.vote_counts([[0.2]])


# -- soft_majority_k -----------------------------------------------------------

@pytest.mark.parametrize("epsilon", [0.05, 0.3, 1.0, 2.0, 7.5])
@pytest.mark.parametrize("alpha", [1e-6, 0.01, 0.1, 0.5, 0.99])
def test_k_binary_is_spec_formula(epsilon, alpha):
    # reference: ceil(4 ln(2/alpha)/eps) evaluated at 60 digits from the exact floats
    with mpmath.workdps(60):
        ref = int(mpmath.ceil(4 * mpmath.log(2 / mpmath.mpf(alpha)) / mpmath.mpf(epsilon)))
    assert soft_majority_k(epsilon, alpha) == ref


@pytest.mark.parametrize("n_classes", [2, 3, 5, 10, 100])
@pytest.mark.parametrize("epsilon,alpha", [(0.1, 0.01), (1.0, 0.1), (3.0, 0.4)])
def test_k_satisfies_the_proof_inequality(n_classes, epsilon, alpha):
    # (C - 1) exp(-eps k / 4) <= alpha / 2, the bound of docs/theory/soft_majority.rst
    k = soft_majority_k(epsilon, alpha, n_classes)
    with mpmath.workdps(50):
        assert (n_classes - 1) * mpmath.exp(-mpmath.mpf(epsilon) * k / 4) <= mpmath.mpf(alpha) / 2
        # and k is the smallest such integer
        assert (n_classes - 1) * mpmath.exp(-mpmath.mpf(epsilon) * (k - 1) / 4) > mpmath.mpf(alpha) / 2 or k == 1


def test_binary_k_is_not_enough_for_many_classes():
    # The factor C - 1 in soft_majority_k is needed: with the binary k and C = 10 classes,
    # 3k/4 correct votes and k/4 wrong ones on a single class, the error exceeds alpha/2.
    eps, alpha, c = 1.0, 0.1, 10
    k = soft_majority_k(eps, alpha)            # 12 (binary formula)
    counts = (k - k // 4, k // 4) + (0,) * (c - 2)
    with mpmath.workdps(30):
        err = error_probability(counts, eps, 30)
        assert err > mpmath.mpf(alpha) / 2
        k_c = soft_majority_k(eps, alpha, c)   # 21
        err_c = error_probability((k_c - k_c // 4, k_c // 4) + (0,) * (c - 2), eps, 30)
        assert err_c <= mpmath.mpf(alpha) / 2


@pytest.mark.parametrize("args", [(0, 0.1), (1.0, 0), (1.0, 1.0), (1.0, 0.1, 1), (1.0, 0.1, 2.5)])
def test_k_helper_validation(args):
    with pytest.raises(ValueError, match="parameter of soft_majority_k"):
        soft_majority_k(*args)


# -- probabilities ---------------------------------------------------------------

def test_probabilities_match_formula_in_mpmath():
    counts = np.array([[5, 0, 2], [0, 0, 7], [3, 3, 1], [7, 0, 0]])
    eps = 0.7
    p = soft_majority_probabilities(counts, eps)
    with mpmath.workdps(40):
        for row, prow in zip(counts, p):
            w = [mpmath.exp(mpmath.mpf(eps) * int(c) / 2) for c in row]
            z = mpmath.fsum(w)
            for wi, pi in zip(w, prow):
                assert abs(pi - wi / z) <= 1e-15 * (wi / z)
    assert np.allclose(p.sum(axis=1), 1.0, rtol=0, atol=4e-16)
    exact = soft_majority_probabilities(counts[0], eps, exact=True, dps=40)
    assert all(abs(float(e) - f) <= 1e-15 * float(e) for e, f in zip(exact, p[0]))


def test_probabilities_validation():
    with pytest.raises(ValueError, match="The 'counts' parameter of soft_majority_probabilities"):
        soft_majority_probabilities([[1, -1]], 1.0)
    with pytest.raises(ValueError, match="The 'epsilon' parameter of soft_majority_probabilities"):
        soft_majority_probabilities([1, 2], 0.0)


# -- fitting, votes, predictions -------------------------------------------------

def test_vote_counts_and_predict_proba_agree_with_teachers():
    X, y = threshold_data(300)
    sm = SoftMajority(1.5, 7, Threshold, rng=3).fit(X, y)
    q = np.linspace(0, 1, 11)[:, None]
    votes = np.array([t.predict(q) for t in sm.teachers_])
    counts = sm.vote_counts(q)
    assert counts.tolist() == [[int((votes[:, i] == c).sum()) for c in (0, 1)] for i in range(11)]
    assert np.array_equal(sm.predict_proba(q), soft_majority_probabilities(counts, 1.5))
    ex = sm.exact_proba(q[:2], dps=30)
    assert abs(float(ex[0][1]) - sm.predict_proba(q[:1])[0, 1]) <= 1e-15


def test_same_seed_same_output_and_string_classes():
    X, y = threshold_data(100)
    labels = np.array(["neg", "pos"])[y]
    a = SoftMajority(1.0, 5, _StringThreshold, classes=["neg", "pos"], rng=11)
    b = SoftMajority(1.0, 5, _StringThreshold, classes=["neg", "pos"], rng=11)
    pa = a.fit(X, labels).predict(np.linspace(0, 1, 50)[:, None])
    pb = b.fit(X, labels).predict(np.linspace(0, 1, 50)[:, None])
    assert pa.tolist() == pb.tolist() and set(pa) <= {"neg", "pos"}


class _StringThreshold(Threshold):
    def fit(self, X, y):
        return super().fit(X, (y == "pos").astype(int))

    def predict(self, X):
        return np.array(["neg", "pos"])[super().predict(X)]


def test_predict_follows_predict_proba():
    # Each of the 3 classes' counts over n draws is Binomial(n, p); acceptance intervals at
    # a = 1e-6/3 each (Bonferroni): the false-failure rate of this test is <= 1e-6.
    X = np.array([[0.0]] * 6 + [[1.0]] * 3)
    y = np.array([0, 0, 1, 2, 2, 2, 1, 1, 0])
    sm = SoftMajority(0.8, 4, PointMajority, classes=3, rng=5).fit(X, y)
    q = np.zeros((20000, 1))
    draws = sm.predict(q, rng=6)
    p = sm.predict_proba(q[:1])[0]
    counts = np.bincount(draws, minlength=3)
    for c, pc in zip(counts, p):
        lo, hi = binomial_acceptance(len(q), pc, 1e-6 / 3)
        assert lo <= c <= hi


def test_empty_query_set():
    X, y = threshold_data(20)
    sm = SoftMajority(1.0, 2, Threshold, rng=0).fit(X, y)
    assert sm.vote_counts(np.empty((0, 1))).shape == (0, 2)
    assert sm.predict_proba(np.empty((0, 1))).shape == (0, 2)
    assert sm.predict(np.empty((0, 1))).shape == (0,)


def test_predict_uses_construction_rng_when_none():
    X, y = threshold_data(100)
    q = np.full((30, 1), 0.5)
    a = SoftMajority(0.5, 5, Threshold, rng=8).fit(X, y).predict(q)
    b = SoftMajority(0.5, 5, Threshold, rng=8).fit(X, y).predict(q)
    assert a.tolist() == b.tolist()


# -- partition and teachers ----------------------------------------------------

def test_partition_ignores_the_data_and_replace_one_changes_one_part():
    X, y = threshold_data(40, seed=2)
    X2, y2 = X.copy(), y.copy()
    X2[17, 0], y2[17] = 0.99, 1 - y2[17]
    a = SoftMajority(1.0, 4, Recorder, rng=21).fit(X, y)
    b = SoftMajority(1.0, 4, Recorder, rng=21).fit(X2, y2)
    assert a.part_sizes_.tolist() == b.part_sizes_.tolist()

    def training_set(t):
        if isinstance(t, ConstantPredictor):  # empty or single-label part: its label
            return ("constant", t.label)
        return (tuple(t.X[:, 0]), tuple(t.y))

    differ = [j for j, (ta, tb) in enumerate(zip(a.teachers_, b.teachers_))
              if training_set(ta) != training_set(tb)]
    assert len(differ) == 1


def test_random_partition_is_uniform_and_reproducible():
    a = random_partition(10, 3, np.random.default_rng(0))
    b = random_partition(10, 3, np.random.default_rng(0))
    assert a.tolist() == b.tolist() and a.min() >= 0 and a.max() < 3
    assert random_partition(0, 4, np.random.default_rng(0)).shape == (0,)
    with pytest.raises(ValueError, match="The 'k' parameter of random_partition"):
        random_partition(3, 0, np.random.default_rng(0))


def test_each_teacher_gets_its_own_stream():
    X = np.arange(60, dtype=float)[:, None]
    y = np.arange(60) % 2
    sm = SoftMajority(1.0, 4, Recorder, rng=9).fit(X, y)
    draws = [t.rng.random() for t in sm.teachers_ if isinstance(t, Recorder)]
    assert len(draws) == 4 and len(set(draws)) == 4
    sm2 = SoftMajority(1.0, 4, Recorder, rng=9).fit(X, y)
    assert draws == [t.rng.random() for t in sm2.teachers_]


def test_spawn_fallback_without_seed_sequence():
    class NoSpawn:
        def __init__(self):
            self.g = np.random.default_rng(3)

        def spawn(self, k):
            raise TypeError

        def integers(self, *a, **kw):
            return self.g.integers(*a, **kw)

    streams = spawn_streams(NoSpawn(), 3)
    assert len({s.random() for s in streams}) == 3


def test_estimator_instances_are_cloned_with_their_params():
    class Est:
        def __init__(self, depth=1, random_state=None):
            self.depth, self.random_state = depth, random_state

        def get_params(self, deep=True):
            return {"depth": self.depth, "random_state": self.random_state}

        def set_params(self, **p):
            for k, v in p.items():
                setattr(self, k, v)
            return self

        def fit(self, X, y):
            self.fitted = True
            return self

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    proto = Est(depth=4)
    X = np.arange(40, dtype=float)[:, None]
    y = np.arange(40) % 2
    sm = SoftMajority(1.0, 3, proto, rng=0).fit(X, y)
    learned = [t for t in sm.teachers_ if isinstance(t, Est)]
    assert learned and all(t is not proto and t.depth == 4 for t in learned)
    assert all(isinstance(t.random_state, np.random.RandomState) for t in learned)
    assert not hasattr(proto, "fitted")


def test_single_label_part_gets_constant_predictor():
    X = np.arange(10, dtype=float)[:, None]
    y = np.ones(10, dtype=int)
    sm = SoftMajority(1.0, 2, Threshold, rng=0).fit(X, y)
    assert all(isinstance(t, ConstantPredictor) and t.label == 1 for t in sm.teachers_)


# -- exact privacy sweep flags the 2 eps error ------------------------------------

def _wrong(counts, epsilon, ctx):
    """exp(eps n_y): the classic error, only 2 eps-DP."""
    return exponential_mechanism_distribution(list(counts), epsilon, monotone=True, ctx=ctx)


@pytest.mark.parametrize("labels", [(0, 1), (0, 1, 2)])
def test_privacy_sweep_holds_for_theorem_and_flags_exp_eps_n(labels):
    configs = (((0, 1), labels, 3),)
    good = summarise(*sweep(configs, (1.0,)))
    bad = summarise(*sweep(configs, (1.0,), probabilities=_wrong))
    assert good.verdict is Verdict.HOLDS and good.measured <= 1
    assert bad.verdict is Verdict.FAILS and bad.measured > 1


def test_vote_law_matches_brute_force_over_assignments():
    # F(D, k)/k^n from the memoised recursion equals the direct enumeration of all k^n assignments
    data = ((0, 0), (0, 1), (0, 1), (1, 0), (1, 1))
    k = 3
    law = VoteLaw((0, 1), (0, 1))
    total, items = law.law(data, k, 0)
    brute = {}
    for assign in np.ndindex(*(k,) * len(data)):
        parts = [tuple(sorted(r for r, a in zip(data, assign) if a == j)) for j in range(k)]
        votes = [law.votes(p)[0] for p in parts]
        c = (votes.count(0), votes.count(1))
        brute[c] = brute.get(c, 0) + 1
    assert total == k ** len(data) and dict(items) == brute
    with mpmath.workdps(30):
        p = mixture((total, items), 1.0)
        assert abs(p[0] + p[1] - 1) < mpmath.mpf(10) ** -28
    assert Fraction(sum(w for _, w in items), total) == 1


@pytest.mark.parametrize("counts,epsilon", [([7, 5, 0], 0.5), ([3, 3, 3, 2], 1.0), ([20, 19], 0.1),
                                             ([4, 1, 0], 3e-20)])     # 3e-20: x beyond 64 bits, exact twin
def test_exact_soft_majority_sampler_follows_the_exact_law(counts, epsilon):
    # H0: the index has the law exp(eps n_j / 2) / sum. Exact binomial acceptance interval per
    # class at level 1e-6 / (4 cases * classes) (Bonferroni), 20,000 draws per case.
    from fractions import Fraction
    from scipy import stats
    from refdp.prediction.soft_majority import _exact_soft_majority_index, soft_majority_probabilities
    n = 20_000
    rng = np.random.default_rng(123)
    draws = np.array([_exact_soft_majority_index(counts, Fraction(epsilon) / 2, rng) for _ in range(n)])
    law = soft_majority_probabilities(counts, epsilon, exact=True, dps=30)
    got = np.bincount(draws, minlength=len(counts))
    a = 1e-6 / (4 * len(counts))
    for j, p in enumerate(law):
        lo, hi = stats.binom.ppf(a / 2, n, float(p)), stats.binom.isf(a / 2, n, float(p))
        assert lo <= got[j] <= hi, (counts, epsilon, j, got[j], lo, hi)


def test_exact_soft_majority_sampler_is_deterministic_for_a_seed():
    from fractions import Fraction
    from refdp.prediction.soft_majority import _exact_soft_majority_index
    a = [_exact_soft_majority_index([5, 4, 0], Fraction(1, 2), np.random.default_rng(9)) for _ in range(3)]
    assert len(set(a)) == 1
    assert _exact_soft_majority_index([0], Fraction(1, 2), np.random.default_rng(9)) == 0
