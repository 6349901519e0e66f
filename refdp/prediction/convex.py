"""Prediction-stable learners for convex regression (Theorem 4.9 to Corollary 4.13).

Linear predictors ``h_w(x) = <w, x>`` over points with ``||x|| <= R``,
trained with a loss ``l(z, y)`` that is convex and ``L``-Lipschitz in the
prediction ``z``:

* :class:`RegularizedERM` minimises ``F_S(w) = (1/n) sum_i l(<w, x_i>, y_i)
  + (lam/2) ||w||**2`` ([DF18]_ Theorem 4.9, after [SSSS10]_). Its prediction
  stability rate is ``2 L R**2 / (lam n)`` (the exact minimiser moves by at
  most ``2 L R / (lam n)``, and a prediction by ``R`` times that);
* :class:`ProjectedSGD` makes one pass of projected gradient steps of size
  ``eta <= 2 / (sigma_l R**2)`` in the order of the data and returns the
  average of the iterates ``w_0 .. w_{n-1}`` ([DF18]_ Theorem 4.12, after
  [HRS16]_). Its rate is ``2 eta L R**2 (n - 1) / n``.

Both constants are **derived** and proved in ``docs/theory/stability.rst``;
they differ from the weight-vector bounds of the cited works (``2LR/(lam n)``
from the strong-convexity argument of [SSSS10]_, ``2 eta L R T/n`` from
[HRS16]_ Theorem 3.8 after ``T`` steps with records drawn at random), which
bound the movement of the weight vector, not of the prediction (a prediction
``<w, x>`` moves by up to ``R`` times the weight movement), and whose ``T/n``
factor is ``1`` for one pass. The checks
``proofs_checks/dwork_feldman/theorem_4_9_erm_stability.py`` and
``proofs_checks/dwork_feldman/theorem_4_12_psgd_stability.py`` search all
replace-one neighbours of small datasets exhaustively.

The excess-risk bounds are callables: :func:`theorem_4_9_excess_risk_bound`,
:func:`corollary_4_10_excess_risk_bound`, :func:`corollary_4_11_regularization`,
:func:`theorem_4_12_excess_risk_bound`, :func:`corollary_4_13_excess_risk_bound`.

References
----------
.. [DF18] C. Dwork and V. Feldman, "Privacy-preserving Prediction", COLT 2018,
   Theorem 4.9, Corollaries 4.10 and 4.11, Theorem 4.12, Corollary 4.13.
.. [SSSS10] S. Shalev-Shwartz, O. Shamir, N. Srebro and K. Sridharan,
   "Learnability, Stability and Uniform Convergence", JMLR 11, 2010.
.. [HRS16] M. Hardt, B. Recht and Y. Singer, "Train faster, generalize better:
   Stability of stochastic gradient descent", ICML 2016.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import scipy.optimize

from ..utils.losses import HuberLoss, LogisticLoss
from ..utils.validation import Interval, check_array, check_scalar, parameter_error
from ..utils.constraints import Converted, Optional, constrained
from ..utils.rounding import UNIT_ROUNDOFF as _U, ceil_fraction, ceil_interval, interval_context
from ..utils.validation import POSITIVE

__all__ = [
    "LogisticLoss",
    "HuberLoss",
    "LinearPredictor",
    "RegularizedERM",
    "ProjectedSGD",
    "erm_stability_rate",
    "psgd_stability_rate",
    "theorem_4_9_excess_risk_bound",
    "corollary_4_10_excess_risk_bound",
    "corollary_4_11_regularization",
    "theorem_4_12_excess_risk_bound",
    "corollary_4_13_excess_risk_bound",
]

NONNEGATIVE = Interval(float, 0, None, closed="left")
COUNT = Interval(int, 1, None)


# ---------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------

def _check_loss(loss, owner):
    needed = ("lipschitz", "smoothness", "value", "derivative", "check_labels")
    if not all(hasattr(loss, a) for a in needed):
        raise parameter_error("loss", owner, "a LogisticLoss or HuberLoss instance", loss)
    return loss


def _loss_of(value, name, owner):
    return _check_loss(value, owner)


_LOSS = Converted(_loss_of, "a LogisticLoss or HuberLoss instance", invalid=(None, 1.0, "logistic"))


# ---------------------------------------------------------------------------
# Domain check ||x|| <= R, decided exactly at the boundary
# ---------------------------------------------------------------------------

def _check_points(X, radius, owner, *, d=None):
    """Validate ``X`` (2-D, finite) and ``||x_i|| <= radius`` for every row, exactly."""
    X = check_array(X, "X", owner, ndim=2, shape=(None, d))
    sq = np.einsum("ij,ij->i", X, X)
    r2 = radius * radius
    # Rows comfortably inside are accepted in floating point (relative error of
    # the sum of squares is below (d + 2) * 2**-53); the rest are decided in
    # exact rational arithmetic.
    margin = 1.0 - 4.0 * (X.shape[1] + 2) * _U
    for i in np.flatnonzero(~(sq <= r2 * margin)):
        exact = sum(Fraction(float(v)) ** 2 for v in X[i])
        if exact > Fraction(radius) ** 2:
            raise parameter_error(
                "X", owner, f"an array of rows with Euclidean norm at most radius = {radius!r}",
                _described_norm(X[i], i))
    return X


def _described_norm(row, i):
    from ..utils.validation import Described
    return Described(f"a row of norm {float(np.linalg.norm(row))!r} at position {int(i)}")


class LinearPredictor:
    """The predictor ``x -> <w, x>`` on the ball ``||x|| <= radius``.

    Parameters
    ----------
    w : array_like of float, shape (d,)
    radius : float > 0
        Queries outside the ball are rejected: the stability rates hold only
        there.
    """

    def __init__(self, w, radius):
        self.w = check_array(w, "w", "LinearPredictor", ndim=1, min_size=1)
        self.radius = check_scalar(radius, "radius", "LinearPredictor", POSITIVE)

    def __call__(self, X):
        """Predictions ``X @ w`` (one per row); ``ValueError`` if a row has norm above ``radius``."""
        X = _check_points(X, self.radius, "LinearPredictor", d=self.w.shape[0])
        return X @ self.w

    def __repr__(self):
        return f"LinearPredictor(w={self.w!r}, radius={self.radius!r})"


# ---------------------------------------------------------------------------
# Stability rates
# ---------------------------------------------------------------------------

@constrained(lipschitz=NONNEGATIVE, radius=POSITIVE, lam=POSITIVE, n=COUNT, tol=NONNEGATIVE)
def erm_stability_rate(lipschitz, radius, lam, n, *, tol=0.0):
    """Prediction-stability rate of regularised ERM: ``2 L R**2 / (lam n) + 2 R tol / lam``.

    [DF18]_ Theorem 4.9 (constant **derived**, proof in
    ``docs/theory/stability.rst``). For the exact minimisers ``w, w'`` of
    ``F_S`` and ``F_S'`` on replace-one neighbours, ``||w - w'|| <= 2 L R /
    (lam n)``, hence ``|<w - w', x>| <= 2 L R**2 / (lam n)`` for ``||x|| <=
    R``; the constant 2 is attained (linear zone of the hinge loss). A
    computed ``w_hat`` with ``||grad F_S(w_hat)|| <= tol`` lies within ``tol
    / lam`` of the minimiser, which adds ``2 R tol / lam``.

    Parameters
    ----------
    lipschitz : float >= 0
        ``L``, Lipschitz constant of the loss in the prediction.
    radius : float > 0
        ``R``, bound on ``||x||``.
    lam : float > 0
        Regularisation (strong convexity) parameter.
    n : int >= 1
        Training-set size.
    tol : float >= 0, default 0.0
        Gradient-norm tolerance of the solver (0 for the exact minimiser).

    Returns
    -------
    float
        Rounded up.

    Examples
    --------
    >>> erm_stability_rate(1.0, 1.0, 0.5, 8)
    0.5
    """
    L, R, lm, t = (Fraction(v) for v in (lipschitz, radius, lam, tol))
    return ceil_fraction(2 * L * R * R / (lm * n) + 2 * R * t / lm)


@constrained(lipschitz=NONNEGATIVE, radius=POSITIVE, eta=POSITIVE, n=COUNT)
def psgd_stability_rate(lipschitz, radius, eta, n):
    """Prediction-stability rate of one-pass projected SGD: ``2 eta L R**2 (n - 1) / n``.

    [DF18]_ Theorem 4.12 (constant **derived**, proof in
    ``docs/theory/stability.rst``): the runs on replace-one neighbours agree
    before the differing step, that step moves them apart by at most ``2 eta
    L R``, the later steps are non-expansive when ``eta <= 2 / (sigma_l
    R**2)``, and at most ``n - 1`` of the ``n`` averaged iterates ``w_0 ..
    w_{n-1}`` differ. Attained in the linear zone of the Huber loss.

    Parameters
    ----------
    lipschitz : float >= 0
    radius : float > 0
    eta : float > 0
        Step size (the non-expansiveness condition is checked by
        :class:`ProjectedSGD`, not here).
    n : int >= 1
        Number of steps = training-set size.

    Returns
    -------
    float
        Rounded up.

    Examples
    --------
    >>> psgd_stability_rate(0.5, 1.0, 0.5, 4)
    0.375
    """
    L, R, e = (Fraction(v) for v in (lipschitz, radius, eta))
    return ceil_fraction(2 * e * L * R * R * Fraction(n - 1, n))


# ---------------------------------------------------------------------------
# Learners
# ---------------------------------------------------------------------------

class RegularizedERM:
    """Regularised empirical risk minimisation over linear predictors ([DF18]_ Theorem 4.9).

    ``learner(X, y)`` returns the :class:`LinearPredictor` of the minimiser
    of ``F_S(w) = (1/n) sum_i l(<w, x_i>, y_i) + (lam/2) ||w||**2`` over
    ``w in R^d``.

    Parameters
    ----------
    loss : LogisticLoss or HuberLoss
    lam : float > 0
        Regularisation; ``F_S`` is ``lam``-strongly convex.
    radius : float > 0
        ``R``; training points and queries must satisfy ``||x|| <= R``
        (``ValueError`` otherwise).
    tol : float > 0, default 1e-10
        Required Euclidean norm of ``grad F_S`` at the returned point.

    Notes
    -----
    **Solver.** :func:`scipy.optimize.minimize` (Newton-CG with the exact
    gradient and Hessian-vector products), then Newton steps with the exact Hessian until the gradient
    norm, plus an a-priori bound on its floating-point evaluation error, is
    at most ``tol``; a ``RuntimeError`` is raised if that fails. By strong
    convexity the returned ``w_hat`` is then within ``tol / lam`` of the exact
    minimiser ``w*``. The stability proof is about ``w*``; the rate reported by
    :meth:`stability_rate` adds ``2 R tol / lam`` to cover the solver.

    Examples
    --------
    >>> import numpy as np
    >>> erm = RegularizedERM(LogisticLoss(), lam=0.1, radius=1.0)
    >>> h = erm(np.array([[0.5], [-0.5], [1.0]]), np.array([1.0, -1.0, 1.0]))
    >>> float(h(np.array([[1.0]]))[0]) > 0
    True
    """

    @constrained(loss=_LOSS, lam=POSITIVE, radius=POSITIVE, tol=POSITIVE)
    def __init__(self, loss, lam, radius, *, tol=1e-10):
        self.loss = loss
        self.lam = lam
        self.radius = radius
        self.tol = tol

    def stability_rate(self, n):
        """``erm_stability_rate(L, R, lam, n, tol=tol)`` for training sets of ``n`` records."""
        return erm_stability_rate(self.loss.lipschitz, self.radius, self.lam, n, tol=self.tol)

    def objective(self, w, X, y):
        """``F_S(w)`` and its gradient."""
        z = X @ w
        n = X.shape[0]
        f = float(np.sum(self.loss.value(z, y))) / n + 0.5 * self.lam * float(w @ w)
        g = X.T @ self.loss.derivative(z, y) / n + self.lam * w
        return f, g

    def _hessp(self, w, p, X, y):
        """Hessian-vector product of ``F_S`` at ``w``."""
        curv = self.loss.second_derivative(X @ w, y)
        return X.T @ (curv * (X @ p)) / X.shape[0] + self.lam * p

    def _gradient_error(self, w, n, d):
        # a-priori bound on the rounding error of the computed gradient: each
        # coordinate is a sum of n products of size <= L R plus lam |w_j|.
        scale = self.loss.lipschitz * self.radius + self.lam * float(np.max(np.abs(w)))
        return 4.0 * (n + 8) * _U * scale * math.sqrt(d) + 1e-300

    def __call__(self, X, y):
        owner = "RegularizedERM"
        X = _check_points(X, self.radius, owner)
        y = self.loss.check_labels(y, owner)
        if y.shape[0] != X.shape[0] or X.shape[0] == 0:
            raise parameter_error("y", owner, f"an array of length {X.shape[0]} (one label per row of X)", y)
        n, d = X.shape
        res = scipy.optimize.minimize(
            self.objective, np.zeros(d), args=(X, y), jac=True, hessp=self._hessp,
            method="Newton-CG", options={"xtol": 1e-10, "maxiter": 1000})
        w = np.asarray(res.x, dtype=np.float64)
        w, gn = self._newton(w, X, y)
        h = LinearPredictor(w, self.radius)
        h.gradient_norm = gn
        return h

    def _newton(self, w, X, y):
        n, d = X.shape
        g = self.objective(w, X, y)[1]
        gn = float(np.linalg.norm(g))
        for _ in range(100):
            if gn + self._gradient_error(w, n, d) <= self.tol:
                return w, gn
            curv = self.loss.second_derivative(X @ w, y)
            H = (X.T * curv) @ X / n + self.lam * np.eye(d)
            step = np.linalg.solve(H, g)
            t = 1.0
            for _ in range(60):
                w_new = w - t * step
                g_new = self.objective(w_new, X, y)[1]
                gn_new = float(np.linalg.norm(g_new))
                if gn_new < gn:
                    break
                t *= 0.5
            else:
                break
            w, g, gn = w_new, g_new, gn_new
        if gn + self._gradient_error(w, n, d) <= self.tol:
            return w, gn
        raise RuntimeError(
            f"RegularizedERM did not reach gradient norm {self.tol!r} (reached {gn!r}); "
            "increase tol")

    def __repr__(self):
        return (f"RegularizedERM(loss={self.loss!r}, lam={self.lam!r}, radius={self.radius!r}, "
                f"tol={self.tol!r})")


class ProjectedSGD:
    """One-pass projected stochastic gradient descent with the averaged iterate ([DF18]_ Theorem 4.12).

    From ``w_0 = 0``, for ``t = 1 .. n`` in the order of the data,
    ``w_t = Proj(w_{t-1} - eta l'(<w_{t-1}, x_t>, y_t) x_t)``, where ``Proj``
    is the Euclidean projection onto the ball ``||w|| <= projection_radius``
    (the identity if ``None``). Returns the predictor of ``(1/n) sum_{t=0}^{n-1}
    w_t``, the iterates at which gradients were taken.

    Parameters
    ----------
    loss : LogisticLoss or HuberLoss
    eta : float > 0
        Step size; must satisfy ``eta <= 2 / (loss.smoothness * radius**2)``
        (the gradient step is then non-expansive, which the stability proof
        needs).
    radius : float > 0
        ``R``, bound on ``||x||`` (``ValueError`` for points outside).
    projection_radius : float > 0 or None, default None

    Notes
    -----
    The order of the data is part of the input: the algorithm is
    deterministic, and replace-one neighbours differ at the same position.
    Floating-point iterates differ from the exact ones by rounding only; the
    exhaustive check runs the same recursion in exact rational arithmetic.

    Examples
    --------
    >>> import numpy as np
    >>> sgd = ProjectedSGD(HuberLoss(0.5), eta=0.5, radius=1.0)
    >>> h = sgd(np.array([[1.0], [1.0], [0.5], [-1.0]]), np.array([1.0, 1.0, 0.0, -1.0]))
    >>> h.w
    array([0.296875])
    """

    @constrained(loss=_LOSS, radius=POSITIVE, eta=POSITIVE, projection_radius=Optional(POSITIVE))
    def __init__(self, loss, eta, radius, *, projection_radius=None):
        owner = "ProjectedSGD"
        self.loss = loss
        self.radius = radius
        limit = Fraction(2) / (Fraction(self.loss.smoothness) * Fraction(self.radius) ** 2)
        if Fraction(eta) > limit:
            raise parameter_error("eta", owner,
                                  f"a float in the range (0, 2 / (smoothness * 'radius'**2)] = "
                                  f"(0, {float(limit)!r}]", eta)
        self.eta = eta
        self.projection_radius = projection_radius

    def stability_rate(self, n):
        """``psgd_stability_rate(L, R, eta, n)`` for training sets of ``n`` records."""
        return psgd_stability_rate(self.loss.lipschitz, self.radius, self.eta, n)

    def __call__(self, X, y):
        owner = "ProjectedSGD"
        X = _check_points(X, self.radius, owner)
        y = self.loss.check_labels(y, owner)
        if y.shape[0] != X.shape[0] or X.shape[0] == 0:
            raise parameter_error("y", owner, f"an array of length {X.shape[0]} (one label per row of X)", y)
        n, d = X.shape
        w = np.zeros(d)
        total = np.zeros(d)
        for t in range(n):
            total += w
            z = float(X[t] @ w)
            w = w - self.eta * float(self.loss.derivative(z, y[t])) * X[t]
            if self.projection_radius is not None:
                norm = float(np.linalg.norm(w))
                if norm > self.projection_radius:
                    w = w * (self.projection_radius / norm)
        return LinearPredictor(total / n, self.radius)

    def __repr__(self):
        return (f"ProjectedSGD(loss={self.loss!r}, eta={self.eta!r}, radius={self.radius!r}, "
                f"projection_radius={self.projection_radius!r})")


# ---------------------------------------------------------------------------
# Excess-risk bounds (all derived; proofs in docs/theory/stability.rst)
# ---------------------------------------------------------------------------

def _common(owner, lipschitz, radius, n, norm_bound):
    return (check_scalar(lipschitz, "lipschitz", owner, NONNEGATIVE),
            check_scalar(radius, "radius", owner, POSITIVE),
            check_scalar(n, "n", owner, COUNT),
            check_scalar(norm_bound, "norm_bound", owner, NONNEGATIVE))


def theorem_4_9_excess_risk_bound(lipschitz, radius, lam, n, norm_bound):
    """Excess risk of regularised ERM: ``(lam/2) B**2 + 2 L**2 R**2 / (lam n)``.

    [DF18]_ Theorem 4.9 (**derived** form): for every ``w*`` with ``||w*|| <=
    B``, ``E_S[L_P(w_S)] <= L_P(w*) + (lam/2) B**2 + 2 L**2 R**2 / (lam n)``,
    where ``w_S`` is the exact minimiser of ``F_S`` and ``L_P`` the
    population loss. The last term is ``L`` times the prediction-stability
    rate (generalisation from stability).

    Parameters
    ----------
    lipschitz, radius : float
        ``L`` and ``R``.
    lam : float > 0
    n : int >= 1
    norm_bound : float >= 0
        ``B``, norm of the comparator ``w*``.

    Returns
    -------
    float
        Rounded up.
    """
    owner = "theorem_4_9_excess_risk_bound"
    L, R, n, B = _common(owner, lipschitz, radius, n, norm_bound)
    lam = check_scalar(lam, "lam", owner, POSITIVE)
    L, R, B, lm = (Fraction(v) for v in (L, R, B, lam))
    return ceil_fraction(lm * B * B / 2 + 2 * L * L * R * R / (lm * n))


def corollary_4_10_excess_risk_bound(lipschitz, radius, lam, n, norm_bound, epsilon):
    """Excess risk of the Laplace-private ERM prediction: Theorem 4.9 plus ``2 L**2 R**2 / (lam n epsilon)``.

    [DF18]_ Corollary 4.10 (**derived** form): with ``b = beta / epsilon`` and
    ``beta = 2 L R**2 / (lam n)``, Lemma 4.5 adds ``L b`` to the expected loss
    of every prediction (no clipping, or clipping under the condition of
    Lemma 4.5).

    Returns
    -------
    float
        Rounded up.
    """
    owner = "corollary_4_10_excess_risk_bound"
    L, R, n, B = _common(owner, lipschitz, radius, n, norm_bound)
    lam = check_scalar(lam, "lam", owner, POSITIVE)
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    L, R, B, lm, e = (Fraction(v) for v in (L, R, B, lam, epsilon))
    stab = 2 * L * L * R * R / (lm * n)
    return ceil_fraction(lm * B * B / 2 + stab + stab / e)


def corollary_4_11_regularization(lipschitz, radius, n, norm_bound, epsilon):
    """Regularisation minimising the Corollary 4.10 bound, and the resulting excess risk.

    [DF18]_ Corollary 4.11 (**derived** form): ``(lam/2) B**2 + C / lam``
    with ``C = 2 L**2 R**2 (1 + 1/epsilon) / n`` is minimised at ``lam =
    sqrt(2 C) / B = (2 L R / B) sqrt((1 + 1/epsilon) / n)``, where it equals
    ``2 L R B sqrt((1 + 1/epsilon) / n)``.

    Parameters
    ----------
    lipschitz, radius : float
    n : int >= 1
    norm_bound : float > 0
        ``B``.
    epsilon : float > 0

    Returns
    -------
    lam : float
        The minimiser (rounded to nearest; any ``lam`` is valid).
    bound : float
        ``2 L R B sqrt((1 + 1/epsilon)/n)``, rounded up.
    """
    owner = "corollary_4_11_regularization"
    L = check_scalar(lipschitz, "lipschitz", owner, POSITIVE)
    R = check_scalar(radius, "radius", owner, POSITIVE)
    n = check_scalar(n, "n", owner, COUNT)
    B = check_scalar(norm_bound, "norm_bound", owner, POSITIVE)
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    with interval_context() as iv:
        root = iv.sqrt((1 + 1 / iv.mpf(epsilon)) / n)
        bound = ceil_interval(2 * iv.mpf(L) * iv.mpf(R) * iv.mpf(B) * root)
        lam_iv = 2 * iv.mpf(L) * iv.mpf(R) / iv.mpf(B) * root
        lam = float(lam_iv.mid)
    return lam, bound


def theorem_4_12_excess_risk_bound(lipschitz, radius, eta, n, norm_bound):
    """Excess risk of one-pass PSGD: ``B**2 / (2 eta n) + eta L**2 R**2 / 2``.

    [DF18]_ Theorem 4.12 (**derived** form, online-to-batch conversion): for
    every ``w*`` with ``||w*|| <= B`` in the projection set, ``E_S[L_P(w_bar)]
    <= L_P(w*) + B**2 / (2 eta n) + eta L**2 R**2 / 2`` for the average
    ``w_bar`` of ``w_0 .. w_{n-1}``.

    Returns
    -------
    float
        Rounded up.
    """
    owner = "theorem_4_12_excess_risk_bound"
    L, R, n, B = _common(owner, lipschitz, radius, n, norm_bound)
    eta = check_scalar(eta, "eta", owner, POSITIVE)
    L, R, B, e = (Fraction(v) for v in (L, R, B, eta))
    return ceil_fraction(B * B / (2 * e * n) + e * L * L * R * R / 2)


def corollary_4_13_excess_risk_bound(lipschitz, smoothness, radius, eta, n, norm_bound, epsilon):
    """Excess risk of the Laplace-private PSGD prediction for a smooth loss.

    [DF18]_ Corollary 4.13 (**derived** form): Theorem 4.12 plus the smooth
    extra loss of Lemma 4.5, ``sigma_l beta**2 / epsilon**2`` with ``beta = 2
    eta L R**2 (n - 1) / n``; if that is larger than the Lipschitz extra loss
    ``L beta / epsilon``, the latter is used.

    Parameters
    ----------
    lipschitz : float >= 0
        ``L`` of the loss in the prediction.
    smoothness : float >= 0
        ``sigma_l``, smoothness of the loss in the prediction.
    radius, eta, n, norm_bound, epsilon
        As in :func:`theorem_4_12_excess_risk_bound`; ``epsilon > 0``.

    Returns
    -------
    float
        Rounded up.
    """
    owner = "corollary_4_13_excess_risk_bound"
    L, R, n, B = _common(owner, lipschitz, radius, n, norm_bound)
    s = check_scalar(smoothness, "smoothness", owner, NONNEGATIVE)
    eta = check_scalar(eta, "eta", owner, POSITIVE)
    epsilon = check_scalar(epsilon, "epsilon", owner, POSITIVE)
    L, R, B, e, s, ep = (Fraction(v) for v in (L, R, B, eta, s, epsilon))
    beta = 2 * e * L * R * R * Fraction(n - 1, n)
    extra = min(s * beta * beta / (ep * ep), L * beta / ep)
    return ceil_fraction(B * B / (2 * e * n) + e * L * L * R * R / 2 + extra)
