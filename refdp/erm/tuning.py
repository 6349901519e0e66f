"""Private choice of the regularisation parameter (Algorithm 4).

Chaudhuri, Monteleoni and Sarwate (2011), Algorithm 4: with candidate values
``Lambda_1 .. Lambda_m``,

1. split the data into ``m + 1`` disjoint parts (here: a uniformly random
   permutation, then consecutive blocks whose sizes differ by at most one; the
   split does not look at the records);
2. train ``f_i`` on part ``i`` with ``Lambda_i`` by an epsilon-DP algorithm
   (Algorithm 1 or 2);
3. count ``z_i``, the mistakes of ``f_i`` on part ``m + 1``;
4. release ``f_i`` with probability proportional to ``exp(-epsilon z_i / 2)``
   (the exponential mechanism with utility ``-z_i``, sensitivity 1:
   :func:`refdp.mechanisms.exponential_mechanism`).

The whole procedure is epsilon-DP (replace-one): a record lies in one part
only; in a training part it changes the law of one ``f_i`` by at most a factor
``e^epsilon`` and nothing else, and in the held-out part it changes every
``z_i`` by at most 1, which the exponential mechanism pays ``epsilon`` for.
Proof in ``docs/theory/erm.rst``.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Algorithm 4.
.. [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
   Privacy", FOCS 2007.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..utils.constraints import DPS, FLAG, RNG, Array, Checked, constrained, constrained_fields
from ..utils.validation import Interval, check_scalar, parameter_error
from ..mechanisms import exponential_mechanism, exponential_mechanism_distribution
from ..utils.rng import spawn_streams
from ._data import check_classes, feature_array, label_array, signed_labels
from .output_perturbation import FEATURES, LABELS
from ..utils.validation import POSITIVE

__all__ = ["TuningResult", "private_tuning", "tuning_selection_distribution", "split_parts"]



@constrained_fields(index=Interval(int, 0, None), regularization=POSITIVE, unchecked="the released estimator")
class TuningResult(NamedTuple):
    """Outcome of :func:`private_tuning`.

    Attributes
    ----------
    estimator : object
        The released model ``f_i``, fitted on part ``i``.
    index : int
        ``i`` (0-based): the chosen candidate.
    regularization : float
        ``Lambda_i``.
    """

    estimator: object
    index: int
    regularization: float


@constrained(n=Interval(int, 1, 2**63 - 1), parts=Interval(int, 1, None), rng=RNG)
def split_parts(n, parts, rng=None):
    """Indices of ``parts`` disjoint blocks of a uniformly random permutation of ``range(n)``.

    Block sizes differ by at most one (:func:`numpy.array_split`); the split
    depends only on ``n``, ``parts`` and ``rng`` (None, an int seed, a
    SeedSequence, a BitGenerator or a Generator).
    """
    if parts > n:
        raise parameter_error("parts", "split_parts", f"an int in the range [1, {n}] (at most n)", parts)
    try:
        perm = rng.permutation(n)
    except (MemoryError, ValueError):
        raise parameter_error("n", "split_parts", "small enough that a permutation of n indices fits in memory",
                              n) from None
    return np.array_split(perm, parts)


@constrained(mistakes=Array(ndim=1, dtype="integer", interval=Interval(int, 0, None)), epsilon=POSITIVE,
             exact=FLAG, dps=DPS,
             ctx=Checked("None or an mpmath context (checked by exponential_mechanism_distribution)",
                         invalid=(1.5, "ctx", object())))
def tuning_selection_distribution(mistakes, epsilon, *, exact=False, dps=50, ctx=None):
    """Law of the index chosen in step 4: ``P[i]`` proportional to ``exp(-epsilon z_i / 2)``.

    Parameters
    ----------
    mistakes : sequence of int
        ``z_1 .. z_m``.
    epsilon : float > 0
    exact : bool, default False
        Compute in mpmath (see
        :func:`refdp.mechanisms.exponential_mechanism_distribution`).
    dps : int, default 50
    ctx : mpmath context, optional
        Compute in this context (implies ``exact=True``; ``dps`` is then
        ignored): an interval context (:func:`refdp.utils.precision.iv_context`)
        gives rigorous enclosures computed with outward rounding; see
        :func:`refdp.mechanisms.exponential_mechanism_distribution`.

    Returns
    -------
    ndarray, list of mpmath.mpf or list of intervals

    Examples
    --------
    >>> from refdp.erm import tuning_selection_distribution
    >>> tuning_selection_distribution([0, 2], 1.0).round(6).tolist()
    [0.731059, 0.268941]
    """
    return exponential_mechanism_distribution([-int(v) for v in mistakes], epsilon, sensitivity=1.0,
                                              exact=exact, dps=dps, ctx=ctx)


@constrained(estimator=Checked("a PrivateLogisticRegression or PrivateHuberSVM with declared classes "
                               "(checked in the body)", invalid=("abc", None, 1.5, object())),
             X=FEATURES, y=LABELS,
             regularizations=Array(ndim=1, interval=POSITIVE), rng=RNG)
def private_tuning(estimator, X, y, regularizations, *, rng=None):
    """Choose ``Lambda`` among candidates and release one model, epsilon-DP end to end ([CMS11]_ Algorithm 4).

    Parameters
    ----------
    estimator : PrivateLogisticRegression or PrivateHuberSVM
        Unfitted template; its ``epsilon`` is used both to train every
        candidate and to select (the total is ``epsilon``). Its classes must be
        declared (not ``"infer"``). Its ``rng`` is ignored: every random
        choice is drawn from ``rng``.
    X : array_like of float, shape (n, d)
    y : array_like, shape (n,)
    regularizations : sequence of float > 0
        ``Lambda_1 .. Lambda_m``, ``m >= 1``; ``n >= m + 1``.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Normalised with :func:`numpy.random.default_rng`; draws the split,
        one independent stream per candidate (by
        :meth:`numpy.random.Generator.spawn`) and the selection.

    Returns
    -------
    TuningResult
        Only the chosen model is released (the others and the mistake
        counts are private and discarded).

    Raises
    ------
    ValueError
        On an invalid template (undeclared classes, ``epsilon <= 0``), a
        non-positive candidate, too few records, or invalid data.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import PrivateLogisticRegression, private_tuning
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(3000, 2))
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> out = private_tuning(PrivateLogisticRegression(epsilon=1.0), X, y, [1e-3, 1e-2, 1e-1], rng=1)
    >>> out.index in (0, 1, 2), out.estimator.result_.n
    (True, 750)
    """
    owner = "private_tuning"
    if not (callable(getattr(estimator, "get_params", None)) and callable(getattr(estimator, "fit", None))):
        raise parameter_error("estimator", owner, "an unfitted PrivateLogisticRegression or PrivateHuberSVM",
                              estimator)
    params = estimator.get_params()
    if not {"epsilon", "regularization", "classes", "rng"} <= set(params):
        raise parameter_error("estimator", owner, "an unfitted PrivateLogisticRegression or PrivateHuberSVM",
                              estimator)
    if isinstance(params["classes"], str):
        raise parameter_error("estimator", owner, "an estimator with declared classes (not 'infer': the "
                              "label set would leak)", estimator)
    epsilon = check_scalar(params["epsilon"], "estimator.epsilon", owner, POSITIVE)
    lams = regularizations
    X = feature_array(X, owner, min_rows=1)
    y = label_array(y, owner)
    n, m = X.shape[0], lams.shape[0]
    signed_labels(y, check_classes(params["classes"], owner, binary=True), n, owner)
    if n < m + 1:
        raise parameter_error("X", owner, f"an array with at least len(regularizations) + 1 = {m + 1} rows "
                              "(one part per candidate and a held-out part)", X)
    parts = split_parts.__wrapped__(n, m + 1, rng)
    streams = spawn_streams(rng, m)
    held_out = parts[m]
    models, mistakes = [], []
    for i in range(m):
        model = type(estimator)(**params).set_params(regularization=float(lams[i]), rng=streams[i])
        model.fit(X[parts[i]], y[parts[i]])
        models.append(model)
        mistakes.append(int(np.sum(model.predict(X[held_out]) != y[held_out])))
    index = exponential_mechanism([-z for z in mistakes], epsilon, sensitivity=1.0, rng=rng)
    return TuningResult(models[index], int(index), float(lams[index]))
