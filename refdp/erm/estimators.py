"""Private linear classifiers with a scikit-learn compatible interface.

:class:`PrivateLogisticRegression` and :class:`PrivateHuberSVM` wrap
:func:`refdp.erm.output_perturbation` (``method="output"``, Algorithm 1 of
Chaudhuri, Monteleoni and Sarwate 2011) and
:func:`refdp.erm.objective_perturbation` (``method="objective"``, Algorithm 2)
with the logistic loss (Corollary 2) and the Huber hinge loss (Corollaries 3
and 4). They follow scikit-learn's estimator protocol (``get_params``,
``set_params``, ``fit``, ``predict``, ``decision_function``, ``score``,
estimator tags) without importing scikit-learn, and pass its estimator checks
when it is installed.

Privacy
    ``fit`` is epsilon-DP (rho-zCDP when ``rho`` is set) with respect to the
    training set (replace-one neighbours) when the labels are *declared*
    (``classes``, default ``(-1, 1)``; ``classes=(0, 1)`` maps 0 to -1). With ``classes="infer"`` the two
    classes are read from ``y``, which reveals which labels occur: that mode
    exists for label-agnostic tooling and is not covered by the guarantee.
    The fitted state holds only the release and public parameters
    (``result_``, a :class:`refdp.erm.PrivateERMResult`); the non-private
    minimiser is never stored. ``predict`` and ``decision_function`` are
    post-processing of the release.

Model
    No intercept is fitted (the paper's linear model ``sign(f^T x)``); add a
    constant feature to the data (it counts towards ``||x||``) for one.
    ``coef_`` is ``theta / norm_bound`` with shape ``(1, d)``, so that
    ``decision_function(X) = X @ coef_.ravel()``.
"""
from __future__ import annotations

import numpy as np
import scipy.special

from ..utils.constraints import FLAG, RNG, AnyOf, Checked, Nullable, constrained, declared, validate_declared
from ..utils.validation import Described, Interval, Options, parameter_error
from ._params import ParamsMixin
from ._constraints import BINARY_CLASSES
from ._data import feature_array, label_array, prepare_data
from ._sklearn_compat import not_fitted
from ..utils.losses import HuberHingeLoss, LogisticLoss
from .objective_perturbation import objective_perturbation_budget, release_objective_perturbation
from .objective_perturbation_zcdp import objective_perturbation_zcdp_budget, release_objective_perturbation_zcdp
from .output_perturbation import (DEFAULT_TOL, FEATURES, LABELS, release_output_perturbation,
                                  release_output_perturbation_zcdp)
from ..utils.validation import POSITIVE

__all__ = ["PrivateLogisticRegression", "PrivateHuberSVM"]

METHODS = Options(("objective", "output"))
#: The constructor parameters shared by both classifiers (declared once; validated at ``fit``,
#: as scikit-learn's protocol requires: ``__init__`` stores its arguments unchanged).
PARAMETERS = dict(epsilon=Nullable(POSITIVE), regularization=POSITIVE, method=METHODS,
                  classes=AnyOf((BINARY_CLASSES, Options(("infer",)))), norm_bound=POSITIVE, clip=FLAG,
                  tol=POSITIVE, rng=RNG, improved=FLAG, rho=Nullable(POSITIVE))
#: Features and labels of prediction (post-processing; checked against the fitted model).
QUERIES = Checked("a 2-dimensional array of finite floats with n_features_in_ columns",
                  invalid=("abc", None, np.zeros((0, 2)), np.zeros(2), np.zeros((1, 7)), np.array([[np.nan, 0.0]])))


class _PrivateLinearClassifier(ParamsMixin):
    """Shared protocol of the private ERM classifiers (parameters, fit, prediction)."""

    def _loss(self, params):
        raise NotImplementedError

    # -- scikit-learn tags (read by scikit-learn only; it is imported lazily) --
    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(multi_class=False, poor_score=True),
                    input_tags=InputTags())

    def _more_tags(self):            # scikit-learn < 1.6
        return {"binary_only": True, "poor_score": True, "requires_y": True}

    # -- fitting ------------------------------------------------------------
    def _classes(self, classes, y, owner):
        if isinstance(classes, str):                    # "infer" (validated)
            y = label_array(y, owner)
            labels = np.unique(y) if y.size else y
            if labels.size != 2:
                what = (f"continuous values ({labels.size} distinct labels)"
                        if labels.dtype.kind == "f" and np.any(labels != np.round(labels))
                        else f"{labels.size} class(es)")
                raise parameter_error("y", owner, "an array with exactly two distinct labels "
                                      "(classes='infer'; Only binary classification is supported.)",
                                      Described(what))
            return labels
        return classes

    @constrained(X=FEATURES, y=LABELS)
    def fit(self, X, y):
        """Train privately and store the release (epsilon-DP, or rho-zCDP if ``rho`` is set, in ``(X, y)``).

        Parameters
        ----------
        X : array_like of float, shape (n, d)
            Rows with ``||x|| <= norm_bound`` (or any rows with ``clip=True``).
        y : array_like, shape (n,)
            Labels among the declared ``classes``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On invalid parameters (``epsilon <= 0``, ``regularization <= 0``,
            an unknown ``method``, ``improved`` not a bool, ``rho`` given
            together with ``epsilon``, ...), NaN features, rows outside the
            ball without ``clip``, or undeclared labels. The constructor's
            parameters are validated here, against their declaration on
            ``__init__`` (scikit-learn's protocol).
        """
        owner = f"{type(self).__name__}.fit"
        p = validate_declared(type(self).__init__, self.get_params(), owner)
        zcdp = p["rho"] is not None
        if zcdp and p["epsilon"] is not None:
            raise parameter_error("epsilon", owner, "None when 'rho' is given (a fit is either epsilon-DP "
                                  "or rho-zCDP)", self.epsilon)
        if not zcdp and p["epsilon"] is None:
            raise parameter_error("epsilon", owner, POSITIVE.describe() + " (or None with rho given)",
                                  self.epsilon)
        loss = self._loss(p)
        y = label_array(y, owner)
        classes = self._classes(p["classes"], y, owner)
        Z, ys = prepare_data(owner, X, y, norm_bound=p["norm_bound"], clip=p["clip"], classes=classes)
        budget_value, regularization = (p["rho"] if zcdp else p["epsilon"]), p["regularization"]
        common = dict(tol=p["tol"], rng=p["rng"], norm_bound=p["norm_bound"], clip=p["clip"])
        # every argument is validated above: the releases are called without a second validation
        if p["method"] == "output" and zcdp:
            result = release_output_perturbation_zcdp.__wrapped__(Z, ys, loss, budget_value, regularization,
                                                                  **common)
        elif p["method"] == "output":
            result = release_output_perturbation.__wrapped__(Z, ys, loss, budget_value, regularization, **common)
        elif zcdp:
            budget = objective_perturbation_zcdp_budget.__wrapped__(budget_value, loss.curvature, Z.shape[0],
                                                                    regularization, improved=p["improved"])
            result = release_objective_perturbation_zcdp.__wrapped__(Z, ys, loss, regularization, budget,
                                                                     **common)
        else:
            budget = objective_perturbation_budget.__wrapped__(budget_value, loss.curvature, Z.shape[0],
                                                               regularization, improved=p["improved"])
            result = release_objective_perturbation.__wrapped__(Z, ys, loss, regularization, budget, **common)
        self.result_ = result
        self.classes_ = classes
        self.n_features_in_ = Z.shape[1]
        self.coef_ = (result.theta / result.norm_bound)[None, :]
        self.intercept_ = np.zeros(1)
        return self

    # -- prediction (post-processing of the release) -------------------------
    def _check_fitted(self):
        if not hasattr(self, "result_"):
            raise not_fitted(self)

    @constrained(X=QUERIES)
    def decision_function(self, X):
        """``X @ coef_.ravel()``: positive for ``classes_[1]``.

        Parameters
        ----------
        X : array_like of float, shape (q, d)

        Returns
        -------
        ndarray of float, shape (q,)
        """
        owner = f"{type(self).__name__}.decision_function"
        self._check_fitted()
        # at least one row, as declared (and as scikit-learn's check_array requires)
        X = feature_array(X, owner, n_features=self.n_features_in_, min_rows=1)
        return X @ self.coef_[0]

    @constrained(X=QUERIES)
    def predict(self, X):
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``."""
        positive = self.decision_function.__wrapped__(self, X) > 0
        return self.classes_[positive.astype(np.int64)]

    @constrained(X=QUERIES, y=Checked("labels, one per row of X",
                                      invalid=(None, np.zeros(0), np.zeros((3, 2)))))
    def score(self, X, y):
        """Accuracy of :meth:`predict` on ``(X, y)``."""
        predicted = self.predict.__wrapped__(self, X)
        y = label_array(y, f"{type(self).__name__}.score")
        if y.shape != predicted.shape:
            raise parameter_error("y", f"{type(self).__name__}.score",
                                  f"an array of shape {predicted.shape}, one label per row of X", y)
        return float(np.mean(predicted == y))


class PrivateLogisticRegression(_PrivateLinearClassifier):
    """Differentially private L2-regularised logistic regression ([CMS11]_ Corollary 2).

    Minimises ``(1/n) sum_i ln(1 + exp(-y_i f^T x_i)) + (regularization/2)
    ||f||^2`` privately, by objective perturbation (Algorithm 2) or output
    perturbation (Algorithm 1).

    Parameters
    ----------
    epsilon : float > 0 or None, default 1.0
        Privacy parameter of ``fit`` (replace-one neighbours); None when
        ``rho`` is given.
    regularization : float > 0, default 0.01
        ``Lambda``.
    method : {"output", "objective"}, default "output"
        Both are released float-safe (private for the doubles returned):
        ``"output"`` by the grid construction of Theorem 3 of
        ``docs/theory/secure_noise.rst``, ``"objective"`` by its Theorem 7
        (exact noise draw, certified grid cell of the exact minimiser).
        Objective perturbation adds less noise for the same epsilon when
        ``n Lambda`` is not small (Chaudhuri et al., Section 5).
    classes : pair of labels or "infer", default (-1, 1)
        Declared labels; ``classes[0]`` is mapped to -1 and ``classes[1]`` to
        +1. ``"infer"`` reads them from ``y`` (not private; see the module
        docstring).
    norm_bound : float > 0, default 1.0
        Public bound ``B`` on ``||x||``; rows are divided by it.
    clip : bool, default False
        Project rows with ``||x|| > B`` onto that sphere instead of raising.
    tol : float > 0, default 1e-8
        Solver tolerance (see :func:`refdp.erm.output_perturbation` and
        :func:`refdp.erm.objective_perturbation`).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Noise source, normalised with :func:`numpy.random.default_rng` at every
        ``fit`` (an int seed gives the same noise at every fit; a Generator is
        shared and advances).
    improved : bool, default True
        Objective perturbation only: True uses the budget of Wang, Kifer and
        Lee (one Jacobian factor ``1 + c/(n Lambda)`` instead of its square;
        see :func:`refdp.erm.objective_perturbation_budget`), which leaves
        more of the budget to the noise; False uses the square (Algorithm 2
        of Chaudhuri et al. as published). The same default as every refdp
        entry point.
    rho : float > 0 or None, default None
        If given, ``fit`` is rho-zCDP with Gaussian noise
        (:func:`refdp.erm.output_perturbation_zcdp` or
        :func:`refdp.erm.objective_perturbation_zcdp`), and ``epsilon`` must
        be None.

    Attributes
    ----------
    result_ : PrivateERMResult
        The release and its public parameters.
    coef_ : ndarray, shape (1, d)
    intercept_ : ndarray, shape (1,)
        Always 0.
    classes_ : ndarray, shape (2,)
    n_features_in_ : int

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
       Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import PrivateLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(2000, 2))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, 0)
    >>> clf = PrivateLogisticRegression(epsilon=1.0, regularization=0.05, classes=(0, 1), rng=1)
    >>> clf.fit(X, y).score(X, y) > 0.9
    True
    """

    @declared(**PARAMETERS)
    def __init__(self, epsilon=1.0, regularization=0.01, method="output", *, classes=(-1, 1),
                 norm_bound=1.0, clip=False, tol=DEFAULT_TOL, rng=None, improved=True, rho=None):
        self.epsilon = epsilon
        self.regularization = regularization
        self.method = method
        self.classes = classes
        self.norm_bound = norm_bound
        self.clip = clip
        self.tol = tol
        self.rng = rng
        self.improved = improved
        self.rho = rho

    def _loss(self, params):
        return LogisticLoss()

    @constrained(X=QUERIES)
    def predict_proba(self, X):
        """``[1 - s, s]`` with ``s = 1 / (1 + exp(-decision_function(X)))`` (post-processing)."""
        s = scipy.special.expit(self.decision_function.__wrapped__(self, X))
        return np.column_stack([1.0 - s, s])


class PrivateHuberSVM(_PrivateLinearClassifier):
    """Differentially private linear SVM with the Huber hinge loss ([CMS11]_ Corollaries 3 and 4).

    Minimises ``(1/n) sum_i l_h(y_i f^T x_i) + (regularization/2) ||f||^2``
    with the Huber hinge loss of width ``huber_width`` (curvature ``1 / (2
    huber_width)``), by objective or output perturbation.

    Parameters
    ----------
    epsilon : float > 0, default 1.0
    regularization : float > 0, default 0.01
    method : {"output", "objective"}, default "output"
        ``"output"`` is float-safe; ``"objective"`` is not (see
        :class:`PrivateLogisticRegression`'s ``method``).
    huber_width : float > 0, default 0.5
        ``h``; smaller values approach the hinge loss but raise the
        curvature ``c = 1/(2h)`` that objective perturbation pays for.
    classes, norm_bound, clip, tol, rng, improved, rho
        As in :class:`PrivateLogisticRegression`.

    Attributes
    ----------
    result_, coef_, intercept_, classes_, n_features_in_
        As in :class:`PrivateLogisticRegression`.

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
       Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import PrivateHuberSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(2000, 2))
    >>> y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    >>> clf = PrivateHuberSVM(epsilon=1.0, regularization=0.05, method="output", rng=1)
    >>> clf.fit(X, y).score(X, y) > 0.9
    True
    """

    @declared(huber_width=POSITIVE, **PARAMETERS)
    def __init__(self, epsilon=1.0, regularization=0.01, method="output", huber_width=0.5, *,
                 classes=(-1, 1), norm_bound=1.0, clip=False, tol=DEFAULT_TOL, rng=None, improved=True,
                 rho=None):
        self.epsilon = epsilon
        self.regularization = regularization
        self.method = method
        self.huber_width = huber_width
        self.classes = classes
        self.norm_bound = norm_bound
        self.clip = clip
        self.tol = tol
        self.rng = rng
        self.improved = improved
        self.rho = rho

    def _loss(self, params):
        try:
            return HuberHingeLoss(params["huber_width"])
        except ValueError:
            # the loss's own message named its 'h' (huber_width = 1e308 gives a zero curvature)
            raise parameter_error("huber_width", f"{type(self).__name__}.fit", "a float such that "
                                  "1 / (2 huber_width) is finite and positive", params["huber_width"]) from None
