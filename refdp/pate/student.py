r"""PATE's student: a model trained on public points labelled by LNMax, within a privacy budget.

Papernot et al. (2017, Sec. 2.2 and Appendix B.2) label a limited number of
public points with the noisy aggregation of the teachers and train any
student model on them; the privacy cost is that of the answered label
queries and stops growing once labelling stops.

**Stopping rule (what is sound).** The student labels points until one more
answer would make the *data-independent* guarantee (PATE Theorem 2 composed
by Theorem 1, converted by the tail bound and the Rényi conversion, the
smaller kept) exceed ``target_epsilon`` at ``delta``. Before each batch it
checks that the whole batch fits, and trims it otherwise, so it never
overspends. The decision uses only public quantities (``gamma``, ``delta``,
the number of answers), so the number of labels is not a function of the
sensitive data.

Deciding with the data-dependent epsilon instead would make the number of
labels depend on the teachers' votes. That number is published (it is the
size of the student's training set), so it would leak information the
moments accountant does not cover: a data-dependent stopping rule needs its
own privacy analysis (for instance a privacy filter or a private threshold
test) and is not offered. The data-dependent epsilon of the answers actually
given is still computed (:attr:`PATEStudent.accountant_`): it is the sharper
statement about them, to be published only through
:func:`refdp.pate.release_epsilon`.

**Least confident first** (Appendix B.2): the first batch is drawn at
random; then the student is retrained after every batch and the next batch is
the unlabelled points on which its largest predicted class probability is
smallest. The selection uses the student (a function of earlier noisy labels
and public data) and the public points only, so it is post-processing of
released outputs: the answers compose adaptively (Theorem 1).

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Sec. 2.2, Theorems 1-2 and Appendix B.2.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from ..utils.constraints import FLAG, RNG, Checked, Nullable, constrained
from ..utils.validation import Described, Interval, Options, parameter_error
from ..utils.repr import params_repr
from ..accounting import moments_to_dp, pate_data_independent_log_moments
from ..accounting.budget import check_budget
from ..utils.partition import check_features, learner_factory, train_teacher
from ..utils.rng import spawn_streams
from ._args import DELTA, POSITIVE
from ._constraints import GAMMA, ORDERS
from .accountant import PATEAccountant
from .aggregation import lnmax_labels

__all__ = ["PATEStudent", "data_independent_budget", "data_independent_epsilon", "PRIVATE_MECHANISMS"]

#: Public methods of this module that release private output.
PRIVATE_MECHANISMS = ("refdp.pate.PATEStudent.fit",)

_SELECTION = Options(("random", "least_confident"))
_COUNT = Interval(int, 0, None)
_BATCH = Interval(int, 1, None)
#: A learner: a class or a zero-argument factory of objects with fit and predict.
LEARNER = Checked("a class or zero-argument factory of objects with fit and predict (learner_factory)",
                  invalid=("abc", 1.5, None, object()))
#: Public points to label or predict (checked against the fitted model's number of features).
QUERIES = Checked("a 2-dimensional array of finite floats with n_features_in_ columns",
                  invalid=("abc", None, np.zeros(3), np.array([[np.nan]]), np.zeros((1, 9)), np.zeros((0, 1))))


@constrained(gamma=GAMMA, delta=DELTA, n_queries=_COUNT, orders=ORDERS)
def data_independent_epsilon(gamma, delta, n_queries, orders=None):
    """Smaller of the tail-bound and Rényi epsilons of ``n_queries`` LNMax answers (PATE Theorem 2).

    Returns
    -------
    float
        An upper bound (interval arithmetic, rounded up); 0 for no answer.
    """
    if n_queries == 0:
        return 0.0
    moments = pate_data_independent_log_moments(gamma, orders, n_queries)
    return moments_to_dp(moments, orders, delta=delta).epsilon


@constrained(gamma=GAMMA, delta=DELTA, target_epsilon=POSITIVE, orders=ORDERS, limit=_COUNT)
def data_independent_budget(gamma, delta, target_epsilon, orders=None, *, limit=10**9):
    """Largest number of LNMax answers whose data-independent epsilon is at most ``target_epsilon``.

    The data-independent epsilon is non-decreasing in the number of answers
    (each answer adds a non-negative log-moment at every order), so the
    budget is found by doubling and bisection.

    Parameters
    ----------
    gamma : float > 0
    delta : float in (0, 1)
    target_epsilon : float > 0
    orders : array_like of float > 0, optional
    limit : int, default 10**9
        Search no further than this.

    Returns
    -------
    int
    """
    target = target_epsilon

    def fits(t):
        return data_independent_epsilon.__wrapped__(gamma, delta, t, orders) <= target

    lo, hi = 0, 1
    while hi <= limit and fits(hi):
        lo, hi = hi, 2 * hi
    hi = min(hi, limit + 1)
    while hi - lo > 1:       # fits(lo), not fits(hi) (or hi beyond the limit)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


class PATEStudent:
    """A student trained on public points labelled by LNMax ([PATE17]_ Sec. 2.2).

    Parameters
    ----------
    learner : class, callable or estimator
        The student model (factory or unfitted estimator, as for the teachers).
        ``selection="least_confident"`` needs ``predict_proba``.
    gamma : float > 0
        LNMax's inverse Laplace scale.
    delta : float in (0, 1)
    target_epsilon : float > 0
        Labelling stops before the data-independent epsilon would exceed it.
    max_queries : int >= 0, optional
        A further cap on the number of labels.
    selection : {"random", "least_confident"}, default "random"
    batch_size : int >= 1, optional
        Labels per round (default: a tenth of the budget, at least 1).
    orders : array_like of float > 0, optional
        Moment orders (default :data:`refdp.accounting.DEFAULT_ORDERS`).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Draws the random selection, the LNMax noise and the student's stream.
    exact : bool, default False
        Build :attr:`accountant_` with ``exact=True``, so that
        ``accountant_.report(delta)`` includes the analyses from the exact
        LNMax law (slower: one exact analysis per batch).
    verbose : bool, default False
        Print one progress line per batch on standard error (labels asked,
        data-independent epsilon so far, seconds).
    budget : None or refdp.accounting.PrivacyFilter, default None
        If given, :meth:`fit` first charges ``(target_epsilon, delta)`` to it
        (the most the labels can cost) and asks the teachers nothing when the
        filter refuses (:class:`refdp.accounting.BudgetExhausted`). Not to be
        confused with the fitted ``budget_``, the number of labels allowed.
    secure : bool, default True
        Draw the labels with ``lnmax_labels(..., secure=True)`` (exact discrete
        Laplace noise, private for the labels returned) and build
        :attr:`accountant_` with ``noise="discrete"``, whose data-dependent
        analyses are proved for that law (docs/theory/pate_discrete.rst).
        ``secure=False`` is the textbook double-precision path (warns; its
        accountant uses ``noise="continuous"``). The stopping rule uses the
        data-independent epsilon, the same for both.

    Attributes
    ----------
    student_ : object
        The fitted student (a constant predictor if all labels agree).
    query_indices_ : ndarray of int
        Public points labelled, in the order they were asked.
    labels_ : ndarray
        Their noisy labels.
    n_queries_ : int
    budget_ : int
        The data-independent budget (before ``max_queries``).
    epsilon_ : float
        Data-independent epsilon of the answers given (public, <= target).
    accountant_ : PATEAccountant
        The answers' vote counts; its data-dependent analyses are private.
    vote_counts_ : ndarray of int, shape (``n_queries_``, ``n_classes``)
        The vote counts of the answers, in the order asked (sensitive: for
        analyses such as :func:`refdp.pate.pate_analysis`).
    """

    @constrained(learner=LEARNER, gamma=GAMMA, delta=DELTA, target_epsilon=POSITIVE, max_queries=Nullable(_COUNT),
                 selection=_SELECTION, batch_size=Nullable(_BATCH), orders=ORDERS, rng=RNG, exact=FLAG,
                 verbose=FLAG, budget=Checked("None or a refdp.accounting.PrivacyBudget (check_budget)",
                                              invalid=("abc", 1.5, object())), secure=FLAG)
    def __init__(self, learner, *, gamma, delta, target_epsilon, max_queries=None,
                 selection="random", batch_size=None, orders=None, rng=None, exact=False, verbose=False,
                 budget=None, secure=True):
        owner = "PATEStudent"
        self.learner = learner
        self._make = learner_factory(learner, owner)
        self.gamma = gamma
        self.delta = delta
        self.target_epsilon = target_epsilon
        self.max_queries = max_queries
        self.selection = selection
        self.batch_size = batch_size
        self.orders = orders
        self._rng = rng
        self.exact = exact
        self.verbose = verbose
        self.budget = check_budget(budget, owner)
        self.secure = secure

    def __repr__(self):
        return params_repr(self, ("learner", "gamma", "delta", "target_epsilon", "max_queries", "selection",
                                  "batch_size", "exact", "budget", "secure"))

    @constrained(owner="PATEStudent",
                 teachers=Checked("a fitted PATETeachers", invalid=("abc", None, 1.5, object())),
                 X_public=Checked("a 2-dimensional array of finite floats with the teachers' number of "
                                  "columns", invalid=("abc", None, np.zeros(3), np.array([[np.nan]]))))
    def fit(self, teachers, X_public):
        """Label public points with the teachers' LNMax within the budget, then train the student.

        Parameters
        ----------
        teachers : PATETeachers
            A fitted ensemble.
        X_public : array_like of float, shape (n, d)
            Unlabelled public points.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Unfitted teachers, a feature mismatch, or ``least_confident``
            selection with a student that has no ``predict_proba``.
        """
        owner = "PATEStudent"
        if not hasattr(teachers, "vote_counts") or not hasattr(teachers, "teachers_"):
            raise parameter_error("teachers", owner, "a fitted PATETeachers", teachers)
        X = check_features(X_public, "X_public", owner, teachers.n_features_in_)
        n = X.shape[0]
        # the parameters were validated by the constructor: the analyses' bodies take them as they are
        self.budget_ = data_independent_budget.__wrapped__(self.gamma, self.delta, self.target_epsilon,
                                                           self.orders)
        total = min(self.budget_, n)
        if self.max_queries is not None:
            total = min(total, self.max_queries)
        # Random selection fixes the points in advance: ask for them in one
        # batch (one pass over the teachers); least-confident selection
        # retrains between batches, a tenth of the labels each.
        batch = self.batch_size or (max(1, total) if self.selection == "random" else max(1, total // 10))
        if self.budget is not None:
            self.budget.charge(self.target_epsilon, self.delta, owner="PATEStudent.fit")
        classes = teachers.classes_
        self.accountant_ = PATEAccountant(self.gamma, orders=self.orders, n_classes=len(classes),
                                          exact=self.exact,
                                          noise="discrete" if self.secure else "continuous")
        asked_counts = []
        started = time.perf_counter()
        stream = spawn_streams(self._rng, 1)[0]
        asked = np.zeros(0, dtype=np.int64)
        labels = np.zeros(0, dtype=np.int64)
        remaining = np.arange(n)
        order = self._rng.permutation(n)
        student = None
        while asked.size < total:
            size = min(batch, total - asked.size)
            # the check: answering this batch keeps the data-independent epsilon <= target
            if data_independent_epsilon.__wrapped__(self.gamma, self.delta, asked.size + size,
                                                    self.orders) > self.target_epsilon:  # pragma: no cover
                break
            if self.selection == "random" or student is None:
                pick = order[asked.size:asked.size + size]
            else:
                pick = self._least_confident(student, X, remaining, size)
            counts = teachers.vote_counts(X[pick])            # counted (and the votes checked) once
            self.accountant_.add_counts.__wrapped__(self.accountant_, counts)
            asked_counts.append(counts)
            new = lnmax_labels.__wrapped__(counts, self.gamma, rng=self._rng, secure=self.secure)
            asked = np.concatenate([asked, pick])
            labels = np.concatenate([labels, new])
            remaining = np.setdiff1d(remaining, pick, assume_unique=True)
            if self.selection == "least_confident":
                student = train_teacher(self._make, X[asked], classes[labels], stream, classes)
                if not hasattr(student, "predict_proba") and type(student).__name__ != "ConstantPredictor":
                    raise parameter_error("learner", owner, "a student with predict_proba for "
                                          "least_confident selection", Described(type(student).__name__))
            if self.verbose:
                eps = data_independent_epsilon.__wrapped__(self.gamma, self.delta, asked.size, self.orders)
                print(f"PATEStudent.fit: {asked.size}/{total} labels, data-independent epsilon {eps:.4g} "
                      f"(target {self.target_epsilon:g}), {time.perf_counter() - started:.1f}s",
                      file=sys.stderr, flush=True)
        self.query_indices_ = asked
        self.vote_counts_ = (np.concatenate(asked_counts) if asked_counts
                             else np.zeros((0, len(classes)), dtype=np.int64))
        self.labels_ = classes[labels] if labels.size else classes[:0]
        self.n_queries_ = int(asked.size)
        self.epsilon_ = data_independent_epsilon.__wrapped__(self.gamma, self.delta, self.n_queries_, self.orders)
        self.student_ = train_teacher(self._make, X[asked], self.labels_, stream, classes)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    @staticmethod
    def _least_confident(student, X, remaining, size):
        """The ``size`` remaining points with the smallest largest class probability (ties: lowest index)."""
        if not hasattr(student, "predict_proba"):      # constant student: every point equally confident
            return remaining[:size]
        proba = np.asarray(student.predict_proba(X[remaining]))
        conf = proba.max(axis=1)
        return remaining[np.argsort(conf, kind="stable")[:size]]

    @constrained(owner="PATEStudent.predict", X=QUERIES)
    def predict(self, X):
        """Predictions of the trained student (public: post-processing of the private labels)."""
        if not hasattr(self, "student_"):
            raise ValueError("This PATEStudent instance is not fitted yet; call fit(teachers, X_public) first.")
        X = check_features(X, "X", "PATEStudent.predict", self.n_features_in_)
        if X.shape[0] < 1:
            raise parameter_error("X", "PATEStudent.predict", "an array with at least 1 row", X)
        return self.student_.predict(X)

    @constrained(owner="PATEStudent.score", X=QUERIES,
                 y=Checked("labels, one per row of X", invalid=(None, np.zeros(0), np.zeros((3, 2)))))
    def score(self, X, y):
        """Accuracy of :meth:`predict` on ``(X, y)`` (scikit-learn's ``score``).

        The student is public, so this costs no privacy; ``y`` are the
        evaluator's labels.
        """
        pred = np.asarray(self.predict.__wrapped__(self, X))
        y = np.asarray(y)
        if y.shape != pred.shape:
            raise parameter_error("y", "PATEStudent.score", f"an array of shape {pred.shape}", y)
        return float(np.mean(pred == y))
