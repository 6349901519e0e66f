"""The shared part of the subsample-and-aggregate predictors (Dwork & Feldman, COLT 2018, Sec. 4).

:class:`TeacherEnsemble` holds the parameters, the fit (random partition and
one teacher per part, :mod:`refdp.utils.partition`) and the teachers' votes of
:class:`refdp.prediction.SoftMajority` and
:class:`refdp.prediction.AveragedPrediction`; each subclass implements its
private aggregation.

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Sec. 4 and Theorem 4.1.
"""
from __future__ import annotations

import numpy as np

from .. import core
from ..utils.repr import params_repr
from ..utils.partition import (check_classes, check_features, fit_teachers, labels_to_indices, learner_factory,
                               random_partition, teacher_votes)
from ..utils.rng import spawn_streams
from ..utils.validation import Interval, Options, check_option, check_rng, check_scalar, parameter_error
from ..accounting.budget import check_budget
from ..utils.constraints import Checked, constrained
from ..utils.validation import POSITIVE

_NAN, _INF = float("nan"), float("inf")
#: The ensembles validate in the body, so that messages name the concrete class
#: (SoftMajority, AveragedPrediction); the declarations say what is checked.
_BODY = "checked in the body, in messages named after the subclass"
_FEATURES = Checked(f"a 2-dimensional array of finite floats ({_BODY})",
                    invalid=([[_NAN]], [[_INF]], [1.0, 2.0], "abc", None))
_QUERIES = Checked(f"a 2-dimensional array of finite floats with the training data's columns ({_BODY})",
                   invalid=([[_NAN]], [[_INF]], [1.0, 2.0], "abc", None))
_RNG = Checked(f"None, an int seed or a numpy Generator ({_BODY})", invalid=("abc", -1, 1.5))
_Y = Checked(f"an array of labels in the declared classes, one per row ({_BODY})",
             invalid=([5, 7, 9], [0], "abc", None))

__all__ = ["TeacherEnsemble"]


NEIGHBOURS = Options(("replace", "add_remove"))
_EPSILON = POSITIVE
_K = Interval(int, 1, None)


class TeacherEnsemble:
    """Shared part of the subsample-and-aggregate predictors: parameters, fit, votes.

    Subclasses set ``_binary`` and implement the private aggregation. The
    parameters are validated at construction (one message shape); the fitted
    state is ``classes_``, ``n_features_in_``, ``teachers_`` and
    ``part_sizes_``.
    """

    _binary = False

    @constrained(owner="TeacherEnsemble",
                 epsilon=Checked(f"a float in the range (0, inf) ({_BODY})", invalid=(0.0, -1.0, _NAN, _INF, "abc")),
                 k=Checked(f"an int in the range [1, inf) ({_BODY})", invalid=(0, -1, 1.5, True, "abc")),
                 learner=Checked(f"a learner class, factory or unfitted estimator ({_BODY})", invalid=(None, 1.0)),
                 classes=Checked(f"distinct labels, two for binary ensembles ({_BODY})", invalid=((0,), (1, 1), None)),
                 neighbours=Checked(f"'replace' or 'add_remove' ({_BODY})", invalid=("abc", None, 1)),
                 rng=_RNG,
                 budget=Checked(f"None or a PrivacyBudget ({_BODY})", invalid=("abc", 1.0)))
    def __init__(self, epsilon, k, learner, classes=(0, 1), neighbours="replace", rng=None, budget=None):
        owner = type(self).__name__
        self.epsilon = check_scalar(epsilon, "epsilon", owner, _EPSILON)
        self.k = check_scalar(k, "k", owner, _K)
        self.neighbours = check_option(neighbours, "neighbours", owner, NEIGHBOURS)
        self.classes = classes
        self.classes_ = check_classes(classes, owner, binary=self._binary)
        self.learner = learner
        self._make = learner_factory(learner, owner)
        self._rng = check_rng(rng)
        self.budget = check_budget(budget, owner)

    def __repr__(self):
        return params_repr(self, ("epsilon", "k", "learner"),
                           {"classes": self.classes_, "neighbours": self.neighbours, "budget": self.budget})

    @constrained(owner="TeacherEnsemble", X=_FEATURES, y=_Y)
    def score(self, X, y):
        """Expected accuracy of :meth:`predict` on ``(X, y)``: the mean of ``P[output = y_i]``.

        Computed from the exact output probabilities (:meth:`predict_proba`)
        without drawing: deterministic and not private (it reads ``y`` and the
        probabilities), for analysis, in the role of scikit-learn's ``score``.
        """
        owner = f"{type(self).__name__}.score"
        if not hasattr(self, "teachers_"):
            raise ValueError(f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first.")
        X = check_features(X, "X", owner, self.n_features_in_)
        if X.shape[0] < 1:
            raise parameter_error("X", owner, "an array with at least 1 row", X)
        proba = self.predict_proba(X)
        y = np.asarray(y)
        if y.shape != (proba.shape[0],):
            raise parameter_error("y", owner, f"an array of shape ({proba.shape[0]},)", y)
        idx = labels_to_indices(y, self.classes_, "y", owner)
        return float(np.mean(proba[np.arange(y.size), idx]))

    def _charge(self, n_queries, owner):
        """Charge ``n_queries`` answers of ``epsilon`` to :attr:`budget` (if any) before releasing them."""
        if self.budget is not None and n_queries:
            self.budget.charge(self.epsilon, count=n_queries, owner=owner)

    @constrained(owner="TeacherEnsemble", X=_FEATURES, y=_Y)
    def fit(self, X, y):
        """Split the training set at random into ``k`` parts and train one teacher per part.

        Parameters
        ----------
        X : array_like of float, shape (n, d)
            Training points, finite.
        y : array_like, shape (n,)
            Labels, each one of the declared classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On NaN or infinite features, a label outside the declared classes,
            a length mismatch, or ``k > n`` under replace-one neighbours (under
            add/remove the size ``n`` is not public, so ``k > n`` is allowed
            and the surplus parts are empty; see
            docs/theory/soft_majority.rst).

        Notes
        -----
        The assignment of records to parts is drawn first
        (:func:`random_partition`), then one random stream per teacher is
        spawned; both come from the generator given at construction, so a
        fixed seed fixes the teachers.
        """
        owner = type(self).__name__
        X = check_features(X, "X", owner)
        n = X.shape[0]
        if self.neighbours == "replace" and n < 1:
            raise parameter_error("X", owner, "an array with at least 1 record(s)", X)
        y = np.asarray(y)
        if y.shape != (n,):
            raise parameter_error("y", owner, f"an array of shape ({n},)", y)
        labels_to_indices(y, self.classes_, "y", owner)
        if self.neighbours == "replace" and self.k > n:
            raise parameter_error("k", owner, f"an int in the range [1, {n}] (at most the number of "
                                  "records, replace-one neighbours)", self.k)
        assignment = random_partition(n, self.k, self._rng)
        streams = spawn_streams(self._rng, self.k)
        self.teachers_ = fit_teachers(self._make, X, y, assignment, self.k, streams, self.classes_)
        self.part_sizes_ = np.bincount(assignment, minlength=self.k)
        self.n_features_in_ = X.shape[1]
        return self

    def _queries(self, Xq):
        owner = type(self).__name__
        if not hasattr(self, "teachers_"):
            raise ValueError(f"This {owner} instance is not fitted yet; call fit(X, y) first.")
        return check_features(Xq, "Xq", owner, self.n_features_in_)

    def vote_counts(self, Xq):
        """Teacher votes per query and class (not private: for analysis only).

        Parameters
        ----------
        Xq : array_like of float, shape (q, d)

        Returns
        -------
        ndarray of int64, shape (q, n_classes)
            ``counts[i, c]`` is the number of teachers predicting ``classes_[c]``
            at ``Xq[i]`` (``n_y(x)`` of [DF18]_ Theorem 4.1), counted with
            :func:`refdp.core.count_votes`.
        """
        Xq = self._queries(Xq)
        votes = teacher_votes(self.teachers_, Xq, self.classes_, type(self).__name__)
        return core.count_votes(votes, len(self.classes_))
