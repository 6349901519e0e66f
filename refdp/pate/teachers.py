r"""PATE's teachers: one model per disjoint part of the sensitive data, and their votes.

Papernot et al. (2017, Sec. 2.1) split the sensitive data into :math:`T`
disjoint parts and train one teacher on each; for a public query the teachers'
labels form a vote histogram. The privacy argument needs only that one
changed record (or one changed *group* of records) changes **one** teacher.

Partition rules
    *By record* (``groups=None``): a uniformly random permutation of the
    record positions is cut into ``n_teachers`` consecutive blocks of equal
    size (up to one). The assignment depends on the number of records and on
    the random generator only; a replaced record keeps its position, hence its
    teacher, so replace-one neighbours differ in one teacher's part.

    *By group key* (``groups`` given, e.g. a user id): every record with the
    same key goes to the same teacher, chosen by a keyed hash of the key with
    a random 128-bit salt drawn from the generator (BLAKE2b, modulo
    ``n_teachers``). A key's teacher depends on the key and the salt only, not
    on the other keys, so datasets that differ in all records of one group
    differ in one teacher's part: the guarantee is then *group-level*
    (a user who contributes many records is protected as a whole). Parts are
    only balanced in expectation.

Learners
    Any object with ``fit(X, y)`` and ``predict(X)``, given as a factory or as
    an unfitted scikit-learn-style estimator that is cloned per part, exactly
    as in :mod:`refdp.utils.partition` (which this module reuses); each
    teacher gets its own stream from :meth:`numpy.random.Generator.spawn`. An
    empty part, or a part with a single label, gets a constant predictor.

References
----------
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Sec. 2.1.
"""
from __future__ import annotations

import hashlib

import numpy as np

from .. import core
from ..utils.constraints import FLAG, RNG, Checked, constrained
from ..utils.validation import Described, Interval, parameter_error
from ..utils.repr import params_repr
from ..distributed import check_client
from ..utils.partition import (check_classes, check_features, fit_teachers, labels_to_indices,
                               learner_factory, teacher_votes)
from ..utils.rng import spawn_streams
from ._constraints import GAMMA, ClassCount, GroupKeys, NotAbove
from .aggregation import lnmax_labels

__all__ = ["PATETeachers", "partition_by_record", "partition_by_group", "PRIVATE_MECHANISMS"]

#: Public methods of this module that release private output.
PRIVATE_MECHANISMS = ("refdp.pate.PATETeachers.noisy_labels",)

_K = Interval(int, 1, None)
#: A number of teachers of the group partition (a hash modulo it is stored as int64).
_GROUP_K = Interval(int, 1, 2**63 - 1)


@constrained(n=Interval(int, 1, 2**63 - 1), n_teachers=_K, rng=RNG, relations=(NotAbove("n_teachers", "n"),))
def partition_by_record(n, n_teachers, rng=None):
    """Teacher of each of ``n`` records: a random permutation cut into equal blocks.

    Parameters
    ----------
    n : int in [1, 2**63 - 1]
    n_teachers : int in [1, n]
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`refdp.utils.validation.check_rng` (a Generator
        is used as it is).

    Returns
    -------
    ndarray of int64, shape (n,)
        Part sizes differ by at most one.

    Raises
    ------
    ValueError
        ``n < 1``, ``n_teachers`` outside ``[1, n]``, or a bad ``rng``.
    """
    try:
        perm = rng.permutation(n)
        assignment = np.empty(n, dtype=np.int64)
    except (MemoryError, ValueError):
        raise parameter_error("n", "partition_by_record", "small enough that a permutation of n records "
                              "fits in memory", n) from None
    for j, block in enumerate(np.array_split(perm, n_teachers)):
        assignment[block] = j
    return assignment


@constrained(groups=GroupKeys(), n_teachers=_GROUP_K, rng=RNG)
def partition_by_group(groups, n_teachers, rng=None):
    """Teacher of each record from its group key: keyed BLAKE2b hash of the key, modulo ``n_teachers``.

    Parameters
    ----------
    groups : sequence, shape (n,)
        One key per record (ints, strings, ...); NumPy scalars are converted
        to the equal Python values, and keys are compared by their ``repr``
        (so ``5`` and ``np.int64(5)`` are the same key, ``5`` and ``"5"`` are not).
    n_teachers : int >= 1
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Draws the 128-bit salt (normalised with
        :func:`refdp.utils.validation.check_rng`).

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    ValueError
        ``groups`` not one-dimensional, ``n_teachers < 1``, or a bad ``rng``.
    """
    salt = rng.integers(0, 2**63, size=2, dtype=np.int64).tobytes()
    keys = np.asarray(groups, dtype=object).tolist()
    cache = {}
    out = np.empty(len(keys), dtype=np.int64)
    for i, key in enumerate(keys):
        text = repr(key.item() if isinstance(key, np.generic) else key)
        if text not in cache:
            digest = hashlib.blake2b(text.encode("utf-8"), key=salt, digest_size=16).digest()
            cache[text] = int.from_bytes(digest, "little") % n_teachers
        out[i] = cache[text]
    return out


class PATETeachers:
    """An ensemble of teachers trained on disjoint parts of the sensitive data ([PATE17]_ Sec. 2.1).

    Parameters
    ----------
    n_teachers : int >= 1
        Number of teachers T.
    learner : class, callable or estimator
        See :mod:`refdp.utils.partition` (factory, or estimator cloned per part).
    classes : int >= 2 or sequence of distinct labels, default (0, 1)
        The declared classes (never inferred from the data; ``None`` is
        refused): an int ``C`` means ``0..C-1``.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Draws the partition (or the salt of the group hash) and then one
        stream per teacher (:meth:`numpy.random.Generator.spawn`).
    client : distributed.Client, optional
        Train the teachers on a Dask cluster (:mod:`refdp.distributed`), one
        task per teacher from its own spawned stream: the teachers and their
        votes are identical to the local run. The learner must pickle.

    Attributes
    ----------
    classes_ : ndarray
    teachers_ : list
        The fitted teachers.
    part_sizes_ : ndarray of int
    assignment_ : ndarray of int
        Teacher of each training record.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.pate import PATETeachers
    >>> class Threshold:
    ...     def fit(self, X, y):
    ...         self.t_ = X[y == 1, 0].min() if (y == 1).any() else np.inf
    ...         return self
    ...     def predict(self, X):
    ...         return (X[:, 0] >= self.t_).astype(int)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(400, 1)); y = (X[:, 0] > 0.5).astype(int)
    >>> ens = PATETeachers(20, Threshold, rng=1).fit(X, y)
    >>> ens.vote_counts([[0.1], [0.9]]).tolist()
    [[20, 0], [0, 20]]
    """

    @constrained(n_teachers=_K,
                 learner=Checked("a class or zero-argument factory of objects with fit and predict "
                                 "(learner_factory)", invalid=("abc", 1.5, None, object())),
                 classes=ClassCount(),
                 rng=RNG,
                 client=Checked("None, a dask.distributed Client or a scheduler address (check_client)",
                                invalid=(1.5, object())))
    def __init__(self, n_teachers, learner, classes=(0, 1), *, rng=None, client=None):
        owner = "PATETeachers"
        self.n_teachers = n_teachers
        self.classes_ = check_classes(classes, owner)
        self.learner = learner
        self._make = learner_factory(learner, owner)
        self._rng = rng
        self.client = check_client(client, owner)

    def __repr__(self):
        fitted = {"fitted": hasattr(self, "teachers_")}
        return params_repr(self, ("n_teachers", "learner"), dict(classes=self.classes_, **fitted))

    @constrained(owner="PATETeachers",
                 X=Checked("a 2-dimensional array of finite floats with at least one row (check_features)",
                           invalid=("abc", None, np.zeros((0, 2)), np.zeros(3), np.array([[np.nan]]))),
                 y=Checked("labels among the declared classes, one per row of X",
                           invalid=(None, np.zeros(0), np.array([7] * 200))),
                 groups=Checked("None or one group key per row of X", invalid=(np.zeros(1),)))
    def fit(self, X, y, groups=None):
        """Partition the sensitive data and train one teacher per part.

        Parameters
        ----------
        X : array_like of float, shape (n, d)
        y : array_like, shape (n,)
            Labels among the declared classes.
        groups : array_like, shape (n,), optional
            Group key of each record (module docstring); None partitions by record.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Non-finite features, an undeclared label, mismatched lengths, or
            ``n_teachers`` above the number of records (by-record partition).
        """
        owner = "PATETeachers"
        X = check_features(X, "X", owner)
        n = X.shape[0]
        if n < 1:
            raise parameter_error("X", owner, "an array with at least 1 record(s)", X)
        y = np.asarray(y)
        if y.shape != (n,):
            raise parameter_error("y", owner, f"an array of shape ({n},)", y)
        labels_to_indices(y, self.classes_, "y", owner)
        if groups is None:
            if self.n_teachers > n:
                raise parameter_error("n_teachers", owner, f"an int in the range [1, {n}] (at most the "
                                      "number of records)", self.n_teachers)
            assignment = partition_by_record.__wrapped__(n, self.n_teachers, self._rng)
        else:
            g = np.asarray(groups, dtype=object)
            if g.shape != (n,):
                raise parameter_error("groups", owner, f"an array of shape ({n},)",
                                      Described(f"an array of shape {g.shape}"))
            assignment = partition_by_group.__wrapped__(g, self.n_teachers, self._rng)
        streams = spawn_streams(self._rng, self.n_teachers)
        self.teachers_ = fit_teachers(self._make, X, y, assignment, self.n_teachers, streams,
                                      self.classes_, client=self.client, owner="PATETeachers.fit")
        self.assignment_ = assignment
        self.part_sizes_ = np.bincount(assignment, minlength=self.n_teachers)
        self.n_features_in_ = X.shape[1]
        return self

    def _check_queries(self, Xq):
        if not hasattr(self, "teachers_"):
            raise ValueError("This PATETeachers instance is not fitted yet; call fit(X, y) first.")
        Xq = check_features(Xq, "Xq", "PATETeachers", self.n_features_in_)
        if Xq.shape[0] < 1:
            raise parameter_error("Xq", "PATETeachers", "an array with at least 1 query", Xq)
        return Xq

    def votes(self, Xq):
        """Teacher votes, shape (T, Q): the index in ``classes_`` of each teacher's label.

        Not private: these are the sensitive intermediate values.
        """
        Xq = self._check_queries(Xq)
        return teacher_votes(self.teachers_, Xq, self.classes_, "PATETeachers")

    def vote_counts(self, Xq):
        """Vote histograms, shape (Q, C), counted with :func:`refdp.core.count_votes` (not private)."""
        return core.count_votes(self.votes(Xq), len(self.classes_))

    @constrained(owner="PATETeachers",
                 Xq=Checked("a 2-dimensional array of finite floats with n_features_in_ columns",
                            invalid=("abc", None, np.zeros((0, 1)), np.zeros(3), np.array([[np.nan]]))),
                 gamma=GAMMA, rng=RNG, secure=FLAG)
    def noisy_labels(self, Xq, gamma, *, rng=None, secure=True):
        """LNMax labels of the queries ([PATE17]_ Eq. 1), each (2 gamma, 0)-DP.

        Parameters
        ----------
        Xq : array_like of float, shape (Q, d)
        gamma : float > 0
        rng : None, int, SeedSequence, BitGenerator or Generator, optional
        secure : bool, default True
            Exact discrete Laplace noise (:func:`refdp.pate.lnmax_labels`);
            ``False`` is the textbook double-precision path (warns).

        Returns
        -------
        ndarray, shape (Q,)
            Labels among ``classes_``. The Q answers compose: account for
            them with :class:`refdp.pate.PATEAccountant` (``noise="discrete"``
            for ``secure=True``, ``"continuous"`` otherwise).
        """
        counts = self.vote_counts(Xq)          # the votes are checked while counted, once
        return self.classes_[lnmax_labels.__wrapped__(counts, gamma, rng=rng, secure=secure)]
