"""PATE teachers (partition, learners, votes) and the budgeted student."""
import numpy as np
import pytest

from refdp.pate import (PATEStudent, PATETeachers, data_independent_budget, data_independent_epsilon,
                        partition_by_group, partition_by_record)


class Centroid:
    """Nearest-centroid classifier (numpy only), with class probabilities."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.centres_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def _d(self, X):
        return ((np.asarray(X)[:, None, :] - self.centres_[None, :, :]) ** 2).sum(axis=2)

    def predict(self, X):
        return self.classes_[np.argmin(self._d(X), axis=1)]

    def predict_proba(self, X):
        w = np.exp(-(self._d(X) - self._d(X).min(axis=1, keepdims=True)))
        return w / w.sum(axis=1, keepdims=True)


class Seeded:
    """A learner with an ``rng`` parameter: predicts a random label drawn at fit time."""

    def __init__(self, rng=None):
        self.rng = rng

    def fit(self, X, y):
        self.label_ = int(np.random.default_rng(self.rng).integers(0, 3))
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


def blobs(n, rng, k=3):
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])[:k]
    y = rng.integers(0, k, n)
    return centres[y] + rng.normal(size=(n, 2)), y


def test_partitions():
    rng = np.random.default_rng(0)
    a = partition_by_record(103, 10, rng)
    sizes = np.bincount(a, minlength=10)
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == 103
    g = partition_by_group(["u1", "u2", "u1", 7, 7, "u3"], 4, np.random.default_rng(1))
    assert g[0] == g[2] and g[3] == g[4]
    assert np.array_equal(g, partition_by_group(["u1", "u2", "u1", 7, 7, "u3"], 4, np.random.default_rng(1)))
    # a key's teacher does not depend on the other keys
    h = partition_by_group(["u1", "zz"], 4, np.random.default_rng(1))
    assert h[0] == g[0]
    # NumPy scalars are the same keys as the equal Python values
    a = partition_by_group(np.array([7, 8]), 5, np.random.default_rng(2))
    b = partition_by_group([7, np.int64(8)], 5, np.random.default_rng(2))
    assert np.array_equal(a, b)


def test_teachers_votes_and_noisy_labels():
    rng = np.random.default_rng(1)
    X, y = blobs(600, rng)
    ens = PATETeachers(25, Centroid, classes=3, rng=2).fit(X, y)
    assert len(ens.teachers_) == 25 and ens.part_sizes_.sum() == 600
    Xq, yq = blobs(50, rng)
    votes = ens.votes(Xq)
    counts = ens.vote_counts(Xq)
    assert votes.shape == (25, 50) and counts.shape == (50, 3) and np.all(counts.sum(axis=1) == 25)
    labels = ens.noisy_labels(Xq, 0.5, rng=3)
    assert np.mean(labels == yq) > 0.9
    assert np.array_equal(labels, ens.noisy_labels(Xq, 0.5, rng=3))
    grouped = PATETeachers(10, Centroid, classes=3, rng=2).fit(X, y, groups=np.arange(600) // 6)
    assert grouped.part_sizes_.sum() == 600


def test_independent_streams_and_sklearn_estimators():
    X, y = blobs(90, np.random.default_rng(4))
    a = PATETeachers(9, Seeded, classes=3, rng=5).fit(X, y)
    b = PATETeachers(9, Seeded, classes=3, rng=5).fit(X, y)
    la = [t.label_ for t in a.teachers_ if hasattr(t, "label_")]
    assert la == [t.label_ for t in b.teachers_ if hasattr(t, "label_")] and len(set(la)) > 1
    from sklearn.tree import DecisionTreeClassifier     # test-only dependency

    ens = PATETeachers(5, DecisionTreeClassifier(max_depth=3), classes=3, rng=0).fit(X, y)
    assert ens.vote_counts(X[:4]).sum() == 20
    assert all(t is not ens.learner for t in ens.teachers_)


def test_budget_is_the_largest_within_target():
    T = data_independent_budget(0.05, 1e-5, 2.0)
    assert data_independent_epsilon(0.05, 1e-5, T) <= 2.0 < data_independent_epsilon(0.05, 1e-5, T + 1)
    assert data_independent_budget(0.05, 1e-5, 1e-9) == 0
    assert data_independent_epsilon(0.05, 1e-5, 0) == 0.0


@pytest.mark.parametrize("selection", ["random", "least_confident"])
def test_student_stops_within_budget(selection):
    rng = np.random.default_rng(6)
    X, y = blobs(900, rng)
    ens = PATETeachers(30, Centroid, classes=3, rng=7).fit(X, y)
    public, truth = blobs(300, rng)
    st = PATEStudent(Centroid, gamma=0.1, delta=1e-5, target_epsilon=4.0, selection=selection,
                     batch_size=10, rng=8).fit(ens, public[:200])
    assert st.n_queries_ == min(st.budget_, 200) and st.epsilon_ <= 4.0
    assert len(np.unique(st.query_indices_)) == st.n_queries_
    assert st.accountant_.n_queries == st.n_queries_
    assert np.mean(st.predict(public[200:]) == truth[200:]) > 0.8     # Bayes accuracy is about 0.95
    capped = PATEStudent(Centroid, gamma=0.1, delta=1e-5, target_epsilon=4.0, max_queries=5,
                         selection=selection, rng=8).fit(ens, public)
    assert capped.n_queries_ == 5


def test_least_confident_asks_near_the_boundary():
    rng = np.random.default_rng(9)
    X = rng.uniform(-1, 1, size=(500, 2))
    y = (X[:, 0] > 0).astype(int)
    ens = PATETeachers(20, Centroid, rng=1).fit(X, y)
    public = rng.uniform(-1, 1, size=(400, 2))
    st = PATEStudent(Centroid, gamma=0.2, delta=1e-5, target_epsilon=50.0, max_queries=60,
                     selection="least_confident", batch_size=20, rng=3).fit(ens, public)
    later = public[st.query_indices_[20:], 0]
    first = public[st.query_indices_[:20], 0]
    assert np.mean(np.abs(later)) < np.mean(np.abs(first))


@pytest.mark.parametrize("call,name,owner", [
    (lambda: PATETeachers(0, Centroid), "n_teachers", "PATETeachers"),
    (lambda: PATETeachers(3, 42), "learner", "PATETeachers"),
    (lambda: PATETeachers(50, Centroid).fit(np.zeros((10, 2)), np.zeros(10, int)), "n_teachers", "PATETeachers"),
    (lambda: PATETeachers(2, Centroid).fit(np.zeros((4, 2)), [0, 1, 2, 0]), "y", "PATETeachers"),
    (lambda: PATETeachers(2, Centroid).fit(np.zeros((4, 2)), [0, 1, 1, 0], groups=[1, 2]), "groups",
     "PATETeachers"),
    (lambda: PATEStudent(Centroid, gamma=0.1, delta=1e-5, target_epsilon=0.0), "target_epsilon", "PATEStudent"),
    (lambda: PATEStudent(Centroid, gamma=0.1, delta=0.0, target_epsilon=1.0), "delta", "PATEStudent"),
    (lambda: PATEStudent(Centroid, gamma=0.1, delta=1e-5, target_epsilon=1.0, selection="best"), "selection",
     "PATEStudent"),
    (lambda: PATEStudent(Centroid, gamma=0.1, delta=1e-5, target_epsilon=1.0).fit(object(), [[0.0]]),
     "teachers", "PATEStudent"),
])
def test_bad_input(call, name, owner):
    with pytest.raises(ValueError, match=f"The '{name}' parameter of {owner}"):
        call()


def test_unfitted_errors():
    with pytest.raises(ValueError, match="not fitted"):
        PATETeachers(2, Centroid).votes([[0.0, 0.0]])
    with pytest.raises(ValueError, match="not fitted"):
        PATEStudent(Centroid, gamma=0.1, delta=1e-5, target_epsilon=1.0).predict([[0.0]])
