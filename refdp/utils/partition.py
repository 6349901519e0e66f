"""Random partition of a training set and the teachers trained on its parts.

Subsample-and-aggregate as used by Dwork & Feldman, "Privacy-preserving
Prediction" (COLT 2018), Sec. 4: the training set is split at random into
``k`` disjoint parts and one non-private learner ("teacher") is trained on each.

Partition rule
    Every record is assigned independently and uniformly at random to one of
    the ``k`` parts (:func:`random_partition`); the assignment depends on the
    number of records and the random generator only, never on their values.
    Under replace-one, the replaced record keeps its assignment, so exactly one
    part changes by one record; under add/remove, the inserted record receives
    its own independent assignment and the others keep theirs, so again
    exactly one part changes by one record. docs/theory/soft_majority.rst turns
    this into a coupling of the two partitions and proves the privacy of the
    aggregations built on it. Parts need not have equal sizes; a part may be
    empty.

Degenerate parts
    A part with no record gets the constant predictor of the first declared
    class, and a part whose records all carry the same label gets the constant
    predictor of that label (many learners refuse to fit a single class). Both
    rules are functions of the part alone, so they are part of "the learner"
    in the privacy argument.

Learners
    A learner is anything with ``fit(X, y)`` and ``predict(X)``. It is given
    either as a factory (a class or any callable returning a fresh unfitted
    learner) or as an unfitted estimator instance that is cloned for every
    part (:func:`sklearn.base.clone` if scikit-learn is importable, otherwise
    ``type(est)(**est.get_params())``, otherwise a deep copy). Each part gets
    its own random stream from :meth:`numpy.random.Generator.spawn`: a factory
    whose signature has an ``rng`` parameter receives it as ``rng=...``; an
    estimator with an ``rng`` or ``random_state`` parameter gets it through
    ``set_params`` (``random_state`` as a :class:`numpy.random.RandomState`
    over the stream's bit generator).

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Sec. 4 and Theorem 4.1.
"""
from __future__ import annotations

import copy
import inspect

import numpy as np

from .validation import Described, Interval, check_array, check_scalar, parameter_error

__all__ = [
    "ConstantPredictor",
    "learner_factory",
    "random_partition",
    "train_teacher",
    "fit_teachers",
    "teacher_votes",
    "check_classes",
    "label_indices",
    "labels_to_indices",
    "check_features",
]


class ConstantPredictor:
    """The data-independent predictor of an empty or single-label part.

    Parameters
    ----------
    label : object
        The label predicted everywhere.
    """

    def __init__(self, label):
        self.label = label

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(len(X), self.label)

    def __repr__(self):
        return f"ConstantPredictor({self.label!r})"


def _is_estimator(obj) -> bool:
    return (not isinstance(obj, type) and callable(getattr(obj, "fit", None))
            and callable(getattr(obj, "predict", None)))


def _clone(est):
    """A fresh unfitted copy: sklearn's clone, else ``type(est)(**get_params())``, else a deep copy."""
    get_params = getattr(est, "get_params", None)
    if callable(get_params):
        try:
            from sklearn.base import clone
        except ImportError:
            pass
        else:
            return clone(est)
        params = get_params(deep=False) if _accepts(get_params, "deep") else get_params()
        return type(est)(**params)
    return copy.deepcopy(est)


def _set_param(est, name, value):
    setter = getattr(est, "set_params", None)
    if callable(setter):
        setter(**{name: value})
    else:
        setattr(est, name, value)


def _accepts(fn, name) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params


def learner_factory(learner, owner: str):
    """Normalise ``learner`` into ``make(stream) -> fresh unfitted learner``.

    Parameters
    ----------
    learner : class, callable or estimator instance
        See the module docstring.
    owner : str
        Name used in error messages.

    Returns
    -------
    callable
        ``make(stream)`` where ``stream`` is a :class:`numpy.random.Generator`.

    Raises
    ------
    ValueError
        If ``learner`` is neither a callable nor an object with ``fit`` and
        ``predict``.
    """
    if _is_estimator(learner):
        params = {}
        get_params = getattr(learner, "get_params", None)
        if callable(get_params):
            params = get_params(deep=False) if _accepts(get_params, "deep") else get_params()

        def make(stream):
            est = _clone(learner)
            if "rng" in params:
                _set_param(est, "rng", stream)
            elif "random_state" in params:
                _set_param(est, "random_state", np.random.RandomState(stream.bit_generator))
            return est

        return make
    if callable(learner):
        takes_rng = _accepts(learner, "rng")

        def make(stream):
            est = learner(rng=stream) if takes_rng else learner()
            if not _is_estimator(est):
                raise parameter_error("learner", owner,
                                      "a factory returning objects with fit(X, y) and predict(X)",
                                      Described(f"a factory returning {type(est).__name__}"))
            return est

        return make
    raise parameter_error("learner", owner,
                          "a class or callable returning a learner, or an estimator with "
                          "fit(X, y) and predict(X)", learner)


def random_partition(n, k, rng):
    """Assign each of ``n`` records independently and uniformly to one of ``k`` parts.

    Parameters
    ----------
    n : int >= 0
        Number of records.
    k : int >= 1
        Number of parts.
    rng : numpy.random.Generator
        Already normalised (:func:`refdp.utils.validation.check_rng`).

    Returns
    -------
    ndarray of int64, shape (n,)
        ``assignment[i]`` is the part of record ``i``; the ``n`` entries are
        independent and uniform on ``{0, ..., k - 1}`` ([DF18]_ Sec. 4, with
        the rule of docs/theory/soft_majority.rst).
    """
    n = check_scalar(n, "n", "random_partition", Interval(int, 0, None))
    k = check_scalar(k, "k", "random_partition", Interval(int, 1, None))
    return rng.integers(0, k, size=n, dtype=np.int64)


def train_teacher(make, X, y, stream, classes):
    """Train one teacher on one part, with the degenerate-part rules.

    Parameters
    ----------
    make : callable
        From :func:`learner_factory`.
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
        Labels (declared classes only).
    stream : numpy.random.Generator
    classes : ndarray
        The declared classes; ``classes[0]`` is the empty-part constant.

    Returns
    -------
    object
        A fitted learner, or a :class:`ConstantPredictor` for an empty part
        (``classes[0]``) or a part with a single label (that label).
    """
    if len(y) == 0:
        return ConstantPredictor(classes[0])
    if np.all(y == y[0]):
        return ConstantPredictor(y[0])
    est = make(stream)
    est.fit(X, y)
    return est


def fit_teachers(make, X, y, assignment, k, streams, classes, client=None, owner="fit_teachers"):
    """Train ``k`` teachers, teacher ``j`` on the records with ``assignment == j``.

    Records keep their original relative order inside each part. With a Dask
    ``client`` each teacher is one task on the cluster, trained from the same
    part and the same spawned stream as locally, so the fitted teachers (and
    their votes) are identical to the local run.
    """
    def part(j):
        idx = np.flatnonzero(assignment == j)
        return X[idx], y[idx], streams[j]

    if client is None:
        # one part at a time: its copy of the data is freed once its teacher is trained
        return [train_teacher(make, *part(j), classes) for j in range(k)]
    from ..distributed import check_picklable, map_ordered

    parts = [part(j) for j in range(k)]     # every part is sent, so all are built

    check_picklable(make, "learner", owner)
    return map_ordered(client, _TrainTask(make, classes), parts, label=f"{owner}: teachers")


class _TrainTask:
    """Train one teacher on a worker (picklable: the learner factory and the classes)."""

    def __init__(self, make, classes):
        self.make, self.classes = make, classes

    def __call__(self, part):
        Xj, yj, stream = part
        return train_teacher(self.make, Xj, yj, stream, self.classes)


#: Most classes an int declaration may name (its labels ``0..C-1`` are allocated).
MAX_CLASSES = 2**20


def check_classes(classes, owner: str, *, binary: bool = False):
    """Validate the declared classes; returns them as a 1-D array.

    One rule for every estimator and release of refdp that reads labels: an
    int ``C >= 2`` means ``0..C-1``; otherwise a sequence of at least two
    distinct labels, in the order that indexes the output probabilities (for
    two classes, ``classes[1]`` is the positive label: 1 of the prediction
    papers, +1 of the ERM ones). With ``binary=True`` exactly two classes are
    required. ``None`` is not a declaration and is refused: every signature
    writes its default pair out (``(0, 1)`` for prediction and PATE,
    ``(-1, 1)`` for ERM). The classes are never inferred from the training
    labels: the set of labels present in the data is itself private.
    """
    expected = ("an int >= 2 or a sequence of distinct labels such as (0, 1)" if not binary
                else "a sequence of exactly two distinct labels such as (0, 1) or (-1, 1)")
    if classes is None:
        raise parameter_error("classes", owner, expected + " (classes are declared, never inferred; "
                              "None declares nothing)", classes)
    if isinstance(classes, (int, np.integer)) and not isinstance(classes, (bool, np.bool_)):
        if classes < 2 or (binary and classes != 2) or classes > MAX_CLASSES:
            raise parameter_error("classes", owner, expected + f" (at most {MAX_CLASSES} classes)", classes)
        return np.arange(int(classes))
    if isinstance(classes, (str, bytes)) or not hasattr(classes, "__len__"):
        raise parameter_error("classes", owner, expected, classes)
    arr = np.asarray(classes)
    if arr.ndim != 1 or arr.size < 2 or (binary and arr.size != 2):
        raise parameter_error("classes", owner, expected, classes)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise parameter_error("classes", owner, expected, classes)
    if len(np.unique(arr)) != arr.size:
        raise parameter_error("classes", owner, expected, Described(f"{list(arr.tolist())!r} (repeated labels)"))
    return arr


def label_indices(values, classes):
    """Index of each value in ``classes``.

    Returns
    -------
    indices : ndarray of int64
        Same shape as ``values`` (meaningless where ``ok`` is False).
    ok : ndarray of bool
        Whether each value is a declared class.
    """
    values = np.asarray(values)
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    try:
        pos = np.clip(np.searchsorted(sorted_classes, values), 0, len(classes) - 1)
        ok = np.asarray(sorted_classes[pos] == values, dtype=bool)
        if ok.shape != values.shape:
            raise TypeError
    except (TypeError, ValueError):  # incomparable types: nothing matches
        pos = np.zeros(values.shape, dtype=np.int64)
        ok = np.zeros(values.shape, dtype=bool)
    return order[pos].astype(np.int64), ok


def labels_to_indices(values, classes, name: str, owner: str):
    """Indices of 1-D ``values`` in ``classes``; ValueError naming the first unknown label."""
    idx, ok = label_indices(values, classes)
    if not ok.all():
        i = int(np.argmin(ok))
        raise parameter_error(name, owner, f"an array of labels among the declared 'classes' "
                              f"{classes.tolist()!r}", Described(f"{np.asarray(values)[i].item()!r} at position ({i},)"))
    return idx


def teacher_votes(teachers, Xq, classes, owner: str):
    """``votes[t, q]``: index in ``classes`` of teacher ``t``'s label for query ``q``.

    Raises
    ------
    ValueError
        If a teacher predicts a label outside the declared classes or returns
        the wrong number of predictions.
    """
    votes = np.empty((len(teachers), Xq.shape[0]), dtype=np.int64)
    for t, teacher in enumerate(teachers):
        pred = np.asarray(teacher.predict(Xq))
        if pred.shape != (Xq.shape[0],):
            raise parameter_error("learner", owner, f"a learner whose predict returns shape ({Xq.shape[0]},)",
                                  Described(f"shape {pred.shape} from teacher {t}"))
        idx, ok = label_indices(pred, classes)
        if not ok.all():
            q = int(np.argmin(ok))
            raise parameter_error("learner", owner, f"a learner predicting labels among the declared classes "
                                  f"{classes.tolist()!r}", Described(f"{pred[q].item()!r} from teacher {t} at query {q}"))
        votes[t] = idx
    return votes


def check_features(X, name: str, owner: str, n_features=None):
    """2-D finite float array, optionally with a required number of columns."""
    X = check_array(X, name, owner, ndim=2)
    if n_features is not None and X.shape[1] != n_features:
        raise parameter_error(name, owner, f"an array of shape (any, {n_features})", X)
    return X
