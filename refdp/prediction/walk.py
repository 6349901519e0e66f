"""The exponential projected walk for thresholds and unions of intervals.

Dwork & Feldman, "Privacy-preserving Prediction" (COLT 2018), Section 5, in its
log-odds form: with ``B = ln((1 - alpha) / alpha)`` and step
``s``, the prediction at ``x`` is 1 with probability ``sigmoid(l(x))`` where
``l`` starts at 0 and, for every training record ``(x_i, y_i)`` with
``x_i <= x`` taken in the order of the tie rule below, becomes
``clip(l + s (2 y_i - 1), -B, B)``.

Tie rule: records are processed in lexicographic order of ``(x_i, y_i)``
(label 0 before label 1 at equal ``x``), and a query at ``x`` includes every
record with ``x_i <= x``. This order is a function of the multiset of records
alone, so inserting or deleting a record never changes the relative order of
the others; docs/theory/projected_walk_sweep.rst proves that ``l`` then moves
by at most ``s`` per inserted or deleted record, hence step ``epsilon`` is
epsilon-DP for add/remove neighbours and step ``epsilon / 2`` for replace-one.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.special import expit

from .. import core
from ..utils.repr import params_repr
from ..utils.precision import (ctx_rational, exact_rational, is_interval, is_mpf, iv_context, mp_context, mpf_exact,
                          raw_to_fraction)
from ..utils.validation import (Interval, Options, check_array, check_option,
                           check_scalar, parameter_error)
from ..accounting.budget import check_budget
from ..utils.constraints import RNG, Checked, Converted, constrained
from ..utils.partition import check_classes, labels_to_indices
from ..utils.validation import POSITIVE

__all__ = ["ProjectedWalk", "walk_step", "walk_empirical_error_bound", "exact_walk_state", "exact_walk_log_odds"]

PRIVATE_MECHANISMS = ("refdp.prediction.walk.ProjectedWalk.predict",)

NEIGHBOURS = Options(("replace", "add_remove"))
_EPS = POSITIVE
_ALPHA = Interval(float, 0, 0.5, closed="neither")


@constrained(epsilon=_EPS, neighbours=NEIGHBOURS)
def walk_step(epsilon, neighbours="replace"):
    """Step of the projected walk that makes each prediction epsilon-DP.

    Parameters
    ----------
    epsilon : float > 0
    neighbours : {"replace", "add_remove"}
        ``"replace"``: one record replaced (the step is ``epsilon / 2``, since a
        replacement is a deletion and an insertion); ``"add_remove"``: one record
        added or removed (the step is ``epsilon``).

    Returns
    -------
    float
    """
    return epsilon / 2 if neighbours == "replace" else epsilon


@constrained(n=Interval(int, 1, None), alpha=_ALPHA, n_boundaries=Interval(int, 0, None), opt=Interval(float, 0, 1),
             epsilon=_EPS, neighbours=NEIGHBOURS)
def walk_empirical_error_bound(n, epsilon, alpha, *, n_boundaries=1, opt=0.0, neighbours="replace"):
    """Upper bound on the walk's expected empirical error (docs/theory/projected_walk_error.rst).

    For training data whose points have distinct ``x`` (or whose tied points
    share a label) and any hypothesis h whose labels change ``n_boundaries``
    times along the line (a threshold: 1; a union of k intervals: at most 2k)
    and which errs on a fraction ``opt`` of the training points,

    ``err_S <= alpha + opt + (n_boundaries * B + ln 2) / (s * n)``

    where ``err_S = (1/n) sum_i P[walk(x_i) != y_i]``, ``B = ln((1 - alpha)/alpha)``
    and ``s`` is the step (:func:`walk_step`). The simpler ``alpha + (B/s + 1)/n``
    sometimes quoted for realizable thresholds is too small when ``s < ln 2``: the first run of
    labels also costs up to ``ln(2)/s`` (see the theory page, which gives a
    counterexample).

    Parameters
    ----------
    n : int >= 1
        Training-set size.
    epsilon : float > 0
    alpha : float in (0, 1/2)
    n_boundaries : int >= 0, default 1
    opt : float in [0, 1], default 0
        Empirical error of the comparison hypothesis.
    neighbours : {"replace", "add_remove"}

    Returns
    -------
    float
    """
    s = walk_step.__wrapped__(epsilon, neighbours)
    big_b = math.log((1 - alpha) / alpha)
    if s * n == 0:                 # epsilon so small that the step underflows: only the trivial bound
        return 1.0
    bound = alpha + opt + (n_boundaries * big_b + math.log(2)) / (s * n)
    return min(1.0, bound * (1 + 1e-12))  # rounded up against float error


def exact_walk_state(records, x, step, big_b):
    """The walk's log-odds at query ``x``, exactly, as ``(a, b)`` with ``l = a*step + b*B``.

    Every value the walk takes is an integer combination of the step and of
    ``B``: clipping sets it to ``+-B`` (``a = 0, b = +-1``) and a step adds
    ``+-1`` to ``a``. From ``l = a s`` (b = 0) the walk clips when
    ``|a| > B/s``; from ``l = +B + a s`` when ``a > 0`` or ``a < -2B/s``; from
    ``l = -B + a s`` when ``a < 0`` or ``a > 2B/s``. So only ``floor(B/s)`` and
    ``floor(2B/s)`` are computed numerically (in the context of ``step`` and
    ``big_b``; from interval enclosures the floors are certain, or an
    ArithmeticError is raised) and the walk itself runs in integers. A comparison at equality cannot
    change the result (clipping a value equal to the bound leaves it
    unchanged), so the coefficients are exact and the log-odds can be
    re-evaluated at any precision.

    Parameters
    ----------
    records : iterable of (x_i, y_i)
        Training records in any order; they are sorted by the tie rule here.
    x : number
        Query point.
    step, big_b : mpmath.mpf or interval
        Step ``s`` and bound ``B`` at the caller's precision, or enclosures of
        them.

    Returns
    -------
    (int, int)
    """
    qs, qb = exact_rational(step), exact_rational(big_b)
    ratio = qb / qs if qs is not None and qb is not None else big_b / step
    k1, k2 = _floor(ratio), _floor(2 * ratio)
    a, b = 0, 0
    for xi, yi in sorted(records):
        if xi > x:
            break
        a += 1 if yi == 1 else -1
        if b == 0 and abs(a) > k1:
            a, b = 0, (1 if a > 0 else -1)
        elif b == 1 and (a > 0 or a < -k2):
            a, b = (0, 1) if a > 0 else (0, -1)
        elif b == -1 and (a < 0 or a > k2):
            a, b = (0, -1) if a < 0 else (0, 1)
    return a, b


def _floor(v) -> int:
    """``floor(v)`` of an exact number, a real mpmath number, or the value an interval encloses (certain)."""
    if isinstance(v, Fraction):
        return math.floor(v)
    if is_interval(v):
        lo, hi = (math.floor(raw_to_fraction(r)) for r in v._mpi_)
        if lo != hi:
            raise ArithmeticError(f"floor of {v} is not determined at this precision")
        return lo
    return math.floor(raw_to_fraction(v._mpf_))


def exact_walk_log_odds(records, x, step, big_b):
    """The walk's log-odds at query ``x`` in mpmath (see :func:`exact_walk_state`)."""
    a, b = exact_walk_state(records, x, step, big_b)
    return a * step + b * big_b


def _sort_by_tie_rule(x, y):
    """The records sorted lexicographically by ``(x, y)``, as contiguous arrays.

    Equal ``(x, y)`` records are interchangeable, so only the sorted sequence
    of values matters: sort by ``x`` (an unstable sort suffices) and then, in
    every run of equal ``x``, put the run's zeros before its ones. Same result
    as ``np.lexsort((y, x))`` at about a third of its cost.
    """
    order = np.argsort(x)
    xs = np.ascontiguousarray(x[order])
    ys = y[order].astype(np.int8)
    n = xs.shape[0]
    if n > 1 and np.any(xs[1:] == xs[:-1]):
        starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
        ends = np.r_[starts[1:], n]
        ones = np.add.reduceat(ys.astype(np.int64), starts)
        first_one = np.repeat(ends - ones, ends - starts)
        ys = (np.arange(n) >= first_one).astype(np.int8)
    return xs, np.ascontiguousarray(ys)


def _points(x, name, owner, min_size=0):
    """One-feature points as a 1-D float array: shape ``(n,)`` or, as scikit-learn passes them, ``(n, 1)``."""
    arr = check_array(x, name, owner, ndim=(1, 2), min_size=min_size)
    if arr.ndim == 2:
        if arr.shape[1] != 1:
            raise parameter_error(name, owner, "an array of shape (n,) or (n, 1): thresholds and unions "
                                  "of intervals have one feature", arr)
        arr = arr[:, 0]
    return arr


def _binary_labels(y, n, classes, owner):
    """Indices in ``classes`` (0 for ``classes[0]``, 1 for ``classes[1]``) of labels of shape (n,)."""
    y = np.asarray(y)
    if y.shape != (n,):
        raise parameter_error("y", owner, f"an array of shape ({n},) (one label per point of 'x')", y)
    return labels_to_indices(y, classes, "y", owner)


def _query_points(x, name, owner):
    return _points(x, name, owner)


def _training_points(x, name, owner):
    return _points(x, name, owner, min_size=1)


def _budget_of(value, name, owner):
    return check_budget(value, owner)


_QUERIES = Converted(_query_points, "an array of shape (q,) or (q, 1) of finite floats",
                     invalid=("abc", None, np.zeros((1, 2)), np.zeros((1, 1, 1)), [float("nan")]))
_TRAINING = Converted(_training_points, "a non-empty array of shape (n,) or (n, 1) of finite floats",
                      invalid=("abc", None, np.zeros(0), np.zeros((1, 2)), [float("inf")]))
_LABELS = Checked("in the body: one label per point, each one of the classes",
                  invalid=("abc", None, np.zeros((1, 1, 1))))


class ProjectedWalk:
    """Exponential projected walk: private prediction for thresholds and unions of intervals.

    Dwork & Feldman (COLT 2018), Section 5 (in its log-odds form).
    Each call to :meth:`predict` on one query point is ``epsilon``-DP with
    respect to the training set, for the declared neighbour relation; answering
    ``q`` queries is ``q * epsilon``-DP by basic composition.

    Parameters
    ----------
    epsilon : float > 0
        Privacy parameter per prediction.
    alpha : float in (0, 1/2)
        The walk's bias bound: every prediction is 1 with probability in
        ``[alpha, 1 - alpha]`` (``B = ln((1 - alpha) / alpha)``).
    neighbours : {"replace", "add_remove"}, default "replace"
        Neighbour relation the guarantee refers to; sets the step
        (:func:`walk_step`).
    budget : None or refdp.accounting.PrivacyFilter, default None
        If given, every call of :meth:`predict` on ``q`` points first charges
        ``q`` releases of ``epsilon`` to it, and releases nothing when the
        filter refuses (:class:`refdp.accounting.BudgetExhausted`).
    classes : sequence of two distinct labels, default (0, 1)
        Declared labels (never inferred; ``None`` is refused), as for every
        estimator of refdp: ``classes[1]`` is the label 1 of the walk (a step
        up), ``classes[0]`` the label 0.

    Attributes
    ----------
    step_ : float
        The step ``s``.
    bound_ : float
        ``B``.
    x_, steps_ : ndarray
        Training points sorted by the tie rule and their signed steps (after :meth:`fit`).
    classes_ : ndarray
        The declared labels, in the order of :meth:`predict_proba`'s columns.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.prediction import ProjectedWalk
    >>> x = np.linspace(0, 1, 1000); y = (x > 0.3).astype(int)
    >>> w = ProjectedWalk(epsilon=1.0, alpha=0.01).fit(x, y)
    >>> p = w.predict_proba([0.1, 0.9])      # columns: P[0], P[1]
    >>> bool(p[0, 1] < 0.02 and p[1, 1] > 0.98)
    True
    """

    @constrained(epsilon=_EPS, alpha=_ALPHA, neighbours=NEIGHBOURS,
                 budget=Converted(_budget_of, "None or a PrivacyBudget", invalid=("abc", 1.0)),
                 classes=Checked("at fit, by check_classes: two distinct labels", invalid=()))
    def __init__(self, epsilon, alpha, neighbours="replace", budget=None, *, classes=(0, 1)):
        # validated here and again at fit (set_params may change them in between)
        self.epsilon = epsilon
        self.alpha = alpha
        self.neighbours = neighbours
        self.budget = budget
        self.classes = classes

    def __repr__(self):
        return params_repr(self, ("epsilon", "alpha", "neighbours", "budget", "classes"))

    # -- parameters ---------------------------------------------------------
    def _validated(self):
        owner = type(self).__name__
        eps = check_scalar(self.epsilon, "epsilon", owner, _EPS)
        alpha = check_scalar(self.alpha, "alpha", owner, _ALPHA)
        nb = check_option(self.neighbours, "neighbours", owner, NEIGHBOURS)
        return eps, alpha, nb

    def get_params(self, deep=True):
        return {"epsilon": self.epsilon, "alpha": self.alpha, "neighbours": self.neighbours,
                "budget": self.budget, "classes": self.classes}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self.get_params():
                raise parameter_error(k, type(self).__name__, "one of epsilon, alpha, neighbours, budget, classes",
                                      k)
            setattr(self, k, v if k != "budget" else check_budget(v, type(self).__name__))
        return self

    # -- fitting ------------------------------------------------------------
    @constrained(owner="ProjectedWalk", x=_TRAINING, y=_LABELS)
    def fit(self, x, y):
        """Store the training records sorted by the tie rule ``(x, y)``.

        Parameters
        ----------
        x : array_like of float, shape (n,) or (n, 1), finite, n >= 1
        y : array_like, shape (n,)
            Labels among the declared ``classes``.

        Returns
        -------
        self
        """
        owner = type(self).__name__
        eps, alpha, nb = self._validated()
        classes = check_classes(self.classes, owner, binary=True)
        y = _binary_labels(y, x.shape[0], classes, owner)
        self.step_ = walk_step.__wrapped__(eps, nb)
        self.bound_ = math.log((1 - alpha) / alpha)
        self.x_, self.y_ = _sort_by_tie_rule(x, y)
        self.classes_ = classes
        self.steps_ = self.step_ * (2.0 * self.y_ - 1.0)
        return self

    def _check_fitted(self):
        if not hasattr(self, "x_"):
            raise ValueError(f"This {type(self).__name__} instance is not fitted yet; call fit(x, y) first.")
        # parameters may have changed through set_params: refuse a stale fit
        eps, alpha, nb = self._validated()
        if walk_step(eps, nb) != self.step_ or math.log((1 - alpha) / alpha) != self.bound_:
            raise ValueError(f"The parameters of this {type(self).__name__} changed after fit; call fit again.")

    # -- prediction ---------------------------------------------------------
    def log_odds(self, x_query):
        """Final log-odds ``l(x)`` per query (compiled sweep, O((n + q) log(n + q)))."""
        self._check_fitted()
        xq = _points(x_query, "x_query", type(self).__name__)
        return core.projected_walk_log_odds(self.x_, self.steps_, xq,
                                            lower=-self.bound_, upper=self.bound_)

    @constrained(owner="ProjectedWalk", x_query=_QUERIES)
    def predict_proba(self, x_query):
        """Exact output probabilities per query in float: columns ``P[0]``, ``P[1]``.

        ``P[1] = sigmoid(l(x))`` and ``P[0] = sigmoid(-l(x))``, each computed
        from the log-odds (so neither loses accuracy to ``1 - p``). Agrees
        with :meth:`exact_proba` to about 1e-15 relative (the log-odds are sums
        of at most ``n`` steps; see docs/theory/floating_point.rst). Not
        private: for analysis.

        Parameters
        ----------
        x_query : array_like of float, shape (q,) or (q, 1)

        Returns
        -------
        ndarray of float, shape (q, 2)
            Columns in the order of ``classes_`` (scikit-learn's convention).
        """
        l = self.log_odds(x_query)
        return np.column_stack([expit(-l), expit(l)])

    @constrained(owner="ProjectedWalk", x_query=_QUERIES, rng=RNG)
    def predict(self, x_query, rng=None):
        """Private predictions: ``classes_[1]`` with probability ``predict_proba(x)[:, 1]``, each epsilon-DP.

        One uniform ``u`` per query; the output is ``u < p`` so each computed
        probability is used as is.

        Parameters
        ----------
        x_query : array_like of float, shape (q,) or (q, 1)
        rng : None, int, SeedSequence, BitGenerator or Generator

        Returns
        -------
        ndarray, shape (q,)
            Labels from ``classes_`` (int8 for the default ``(0, 1)``).
        """
        p = expit(self.log_odds(x_query))
        if self.budget is not None and p.shape[0]:
            self.budget.charge(self._validated()[0], count=p.shape[0], owner="ProjectedWalk.predict")
        u = rng.random(p.shape[0])
        one = u < p
        if np.array_equal(self.classes_, [0, 1]):
            return one.astype(np.int8)
        return self.classes_[one.astype(np.int64)]

    @constrained(owner="ProjectedWalk", x=_TRAINING, y=_LABELS)
    def score(self, x, y):
        """Expected accuracy of :meth:`predict` on ``(x, y)``: the mean of ``P[output = y_i]``.

        Computed from :meth:`predict_proba`, without drawing: deterministic and
        not private (it reads the labels ``y`` and the exact probabilities), for
        analysis, as scikit-learn's ``score``.

        Parameters
        ----------
        x : array_like of float, shape (m,) or (m, 1)
        y : array_like, shape (m,)
            Labels among ``classes_``.

        Returns
        -------
        float
        """
        owner = type(self).__name__
        proba = self.predict_proba.__wrapped__(self, x)
        y = _binary_labels(y, proba.shape[0], self.classes_, owner)
        return float(np.mean(proba[np.arange(y.size), y]))

    def exact_proba(self, x_query, dps=50, ctx=None):
        """``P[output = 1]`` per query computed in mpmath at ``dps`` digits.

        The reference the privacy checks use: step and bound are recomputed at
        the working precision from ``epsilon`` and ``alpha`` (converted from
        their decimal representation). With an mpmath context ``ctx`` the
        work is done in it (``dps`` ignored); an interval context
        (:func:`refdp.utils.precision.iv_context`) gives rigorous enclosures.
        """
        self._check_fitted()
        xq = _points(x_query, "x_query", type(self).__name__)
        records = list(zip(self.x_.tolist(), self.y_.tolist()))
        c = mp_context(dps) if ctx is None else ctx
        step, big_b = self.exact_parameters(c)
        out = [1 / (1 + c.exp(-exact_walk_log_odds(records, float(v), step, big_b))) for v in xq]
        return out if ctx is not None else [mpf_exact(p._mpf_) for p in out]

    def exact_states(self, x_query):
        """Exact log-odds per query as integer pairs ``(a, b)``, ``l = a*s + b*B``.

        See :func:`exact_walk_state`; the privacy checks evaluate the pairs at
        two precisions to decide their claims.
        """
        self._check_fitted()
        xq = _points(x_query, "x_query", type(self).__name__)
        records = list(zip(self.x_.tolist(), self.y_.tolist()))
        step, big_b = self.exact_parameters(iv_context(60))
        return [exact_walk_state(records, float(v), step, big_b) for v in xq]

    def exact_parameters(self, ctx=None):
        """``(s, B)`` in the mpmath context ``ctx`` (from str(epsilon), str(alpha)).

        Parameters
        ----------
        ctx : mpmath context, optional
            A real context (values rounded at its precision) or an interval
            context (enclosures). Default: a real context at 50 digits.

        Returns
        -------
        (step, big_b)
        """
        eps, alpha, nb = self._validated()
        c = mp_context(50) if ctx is None else ctx

        def exact(v):
            if is_mpf(v):
                return ctx_rational(c, raw_to_fraction(v._mpf_))
            return ctx_rational(c, Fraction(str(v)))

        e, a = exact(self.epsilon), exact(self.alpha)
        step = e / 2 if nb == "replace" else e
        return step, c.log((1 - a) / a)
