"""The losses of refdp's learners, with the constants their proofs use.

Chaudhuri, Monteleoni and Sarwate (2011) train linear classifiers ``f`` by
minimising ``J(f, D) = (1/n) sum_i l(y_i f^T x_i) + (Lambda/2) ||f||^2``
over records with ``||x_i|| <= 1`` and labels ``y_i in {-1, +1}``. The loss
``l`` is a function of the margin ``m = y f^T x``. The privacy theorems need

* ``l`` convex and differentiable with ``|l'(m)| <= 1`` (Theorem 1, output
  perturbation: the minimiser then has L2 sensitivity ``2 / (n Lambda)``);
* in addition ``l`` twice differentiable with ``0 <= l''(m) <= c``
  (Theorem 2, objective perturbation; Corollary 4 extends it to the Huber
  loss, which is twice differentiable except at two margins).

A loss declares these constants as data (:class:`MarginLoss`); the
mechanisms read ``curvature`` (``c``) and never assume more than
``lipschitz <= 1``. A new loss is added by subclassing :class:`MarginLoss`
and declaring its constants; :func:`check_loss` validates the declaration.

The prediction-stable learners of Dwork and Feldman (2018, Theorem 4.9 and
4.12; :mod:`refdp.prediction.convex`) read a loss in *labelled* form
``l(z, y)`` of a prediction ``z = <w, x>`` and a label ``y``, with its
Lipschitz constant ``L`` and smoothness in ``z``. :class:`LogisticLoss` serves
both: called with a label, ``value(z, y) = l(y z)`` and likewise its
derivatives in ``z``. :class:`HuberLoss` is the (regression) Huber loss
``h(z - y)`` of those learners; :class:`HuberHingeLoss` is the classification
loss of [CMS11]_.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Sections
   3.4.1 (logistic regression, Corollary 2) and 3.4.2 (Huber support vector
   machines, Corollaries 3 and 4).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import scipy.special

from .precision import ctx_rational, is_interval_context
from .rounding import UNIT_ROUNDOFF
from .validation import Interval, check_array, check_scalar, parameter_error
from types import MappingProxyType

from .constraints import Checked, InstanceOf, constrained
from .validation import POSITIVE

__all__ = ["MarginLoss", "LogisticLoss", "HuberHingeLoss", "HuberLoss", "check_loss", "exact_number"]

UNIT = Interval(float, 0, 1, closed="right")


def exact_number(q, ctx):
    """The exact real ``q`` (an int or :class:`~fractions.Fraction`) in the mpmath context ``ctx``.

    ``ctx`` is a real context such as :data:`mpmath.mp` (rounded once at its
    precision) or an interval context such as :data:`mpmath.iv` or
    :func:`refdp.utils.precision.iv_context` (an enclosure, rounded outward).
    """
    if is_interval_context(ctx):
        return ctx_rational(ctx, Fraction(q))
    q = Fraction(q)
    return ctx.mpf(q.numerator) / q.denominator


class MarginLoss:
    """Protocol of a margin loss ``l(m)``, ``m = y f^T x``, with its declared constants.

    Subclasses implement :meth:`value`, :meth:`derivative` and
    :meth:`second_derivative` on float arrays, and :meth:`derivative_exact`
    and :meth:`second_derivative_exact` on exact rational margins (used by
    the exact privacy checks), and set the class attributes below.

    Attributes
    ----------
    name : str
        Short name (``"logistic"``, ``"huber_hinge"``).
    curvature : float
        ``c``, an upper bound of ``l''`` ([CMS11]_ Theorem 2). Must be > 0
        and finite.
    lipschitz : float
        An upper bound of ``|l'|``; the theorems of [CMS11]_ need ``<= 1``.
    twice_differentiable : bool
        False when ``l''`` jumps at finitely many margins (the Huber loss);
        objective perturbation then holds in the sense of [CMS11]_
        Corollary 4 (the output density exists except on a null set).
    """

    name = "margin loss"
    curvature = math.inf
    lipschitz = 1.0
    twice_differentiable = True

    def value(self, m):
        """``l(m)`` for a float array of margins."""
        raise NotImplementedError

    def derivative(self, m):
        """``l'(m)`` for a float array of margins."""
        raise NotImplementedError

    def second_derivative(self, m):
        """``l''(m)`` for a float array of margins."""
        raise NotImplementedError

    def derivative_rounding(self) -> float:
        """A bound of ``|computed l'(m) - l'(m)|`` for a double ``m`` (evaluation error only).

        ``8 u`` (``u = 2**-53``) for a derivative evaluated to a few units in
        the last place of a value in ``[-1, 1]``; losses whose formula loses
        more override it.
        """
        return 8 * UNIT_ROUNDOFF

    def derivative_exact(self, m: Fraction, ctx=mpmath.mp):
        """``l'(m)`` at an exact rational margin, in ``ctx`` (``mpmath.mp`` or ``mpmath.iv``)."""
        raise NotImplementedError

    def second_derivative_exact(self, m: Fraction, ctx=mpmath.mp):
        """``l''(m)`` at an exact rational margin, in ``ctx``."""
        raise NotImplementedError

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self).__name__, tuple(sorted(vars(self).items()))))


class LogisticLoss(MarginLoss):
    """Logistic loss ``l(m) = ln(1 + exp(-m))`` ([CMS11]_ Section 3.4.1, Corollary 2).

    ``l'(m) = -1 / (1 + e^m)`` lies in ``(-1, 0)`` and ``l''(m) = e^m / (1 +
    e^m)^2`` in ``(0, 1/4]`` (maximal at ``m = 0``): ``c = 1/4``. The loss is
    smooth, so Theorems 1 and 2 apply directly.

    In labelled form (a second argument ``y in {-1, +1}``, as the learners of
    :mod:`refdp.prediction.convex` call it) the first argument is the
    prediction ``z`` and the methods return ``l(y z)`` and its derivatives in
    ``z``: ``d l / d z = -y / (1 + exp(y z))`` (``L = 1``) and ``d**2 l / d
    z**2 = s (1 - s) <= 1/4`` with ``s = 1 / (1 + exp(y z))``
    (:attr:`smoothness`); as a function of ``w`` it is ``R``-Lipschitz and
    ``R**2 / 4``-smooth on ``||x|| <= R``.

    Examples
    --------
    >>> from refdp.erm import LogisticLoss
    >>> loss = LogisticLoss()
    >>> loss.curvature, float(loss.derivative(0.0)), float(loss.second_derivative(0.0))
    (0.25, -0.5, 0.25)
    """

    name = "logistic"
    curvature = 0.25
    smoothness = 0.25
    lipschitz = 1.0
    twice_differentiable = True

    def check_labels(self, y, owner):
        """Labels of the labelled form: a 1-D float array with entries in {-1, +1}."""
        y = check_array(y, "y", owner, ndim=1)
        if not np.all((y == 1.0) | (y == -1.0)):
            i = int(np.argmax((y != 1.0) & (y != -1.0)))
            raise parameter_error("y", owner, "an array of labels in {-1, +1}",
                                  float(y[i]))
        return y

    def value(self, m, y=None):
        """``l(m)``, or with a label ``l(y z) = ln(1 + exp(-y z))`` at the prediction ``z = m``, computed stably."""
        if y is not None:
            return np.logaddexp(0.0, -y * m)
        return np.logaddexp(0.0, -np.asarray(m, dtype=np.float64))

    def derivative(self, m, y=None):
        """``l'(m)``, or with a label ``d l / d z = -y / (1 + exp(y z))``."""
        if y is not None:
            return -y * scipy.special.expit(-y * m)
        return -scipy.special.expit(-np.asarray(m, dtype=np.float64))

    def second_derivative(self, m, y=None):
        """``l''(m)``, or with a label ``d**2 l / d z**2 = s (1 - s)``, ``s = 1 / (1 + exp(y z))``."""
        if y is not None:
            s = scipy.special.expit(-y * m)
            return s * (1.0 - s)
        m = np.asarray(m, dtype=np.float64)
        return scipy.special.expit(m) * scipy.special.expit(-m)

    def derivative_exact(self, m, ctx=mpmath.mp):
        return -1 / (1 + ctx.exp(exact_number(m, ctx)))

    def second_derivative_exact(self, m, ctx=mpmath.mp):
        e = ctx.exp(exact_number(-abs(Fraction(m)), ctx))      # symmetric in m
        return e / (1 + e) ** 2

    def __repr__(self):
        return "LogisticLoss()"


class HuberHingeLoss(MarginLoss):
    """Huber hinge loss of width ``h`` ([CMS11]_ Section 3.4.2, equation (23)).

    ``l(m) = 0`` for ``m > 1 + h``, ``(1 + h - m)^2 / (4h)`` for ``|1 - m| <=
    h`` and ``1 - m`` for ``m < 1 - h``. It is convex and differentiable with
    ``l'(m) in [-1, 0]``, and its second derivative is ``1 / (2h)`` on the
    quadratic zone and 0 elsewhere: ``c = 1/(2h)``. As ``h -> 0`` it tends to
    the hinge loss ``max(0, 1 - m)``, which is not admissible (not
    differentiable). ``l''`` is undefined at ``m = 1 +- h``; this
    implementation returns ``1/(2h)`` there (closed quadratic zone).

    Parameters
    ----------
    h : float > 0, default 0.5
        Width of the quadratic zone.

    Examples
    --------
    >>> from refdp.erm import HuberHingeLoss
    >>> loss = HuberHingeLoss(0.5)
    >>> loss.curvature, loss.value([0.0, 1.0, 2.0]).tolist()
    (1.0, [1.0, 0.125, 0.0])
    """

    name = "huber_hinge"
    lipschitz = 1.0
    twice_differentiable = False

    @constrained(owner="HuberHingeLoss", h=POSITIVE)
    def __init__(self, h=0.5):
        self.h = h
        c = 1.0 / (2.0 * self.h)
        if not (math.isfinite(c) and c > 0):
            raise parameter_error("h", "HuberHingeLoss", "a float such that 1 / (2 h) is finite and positive",
                                  h)
        if Fraction(c) < 1 / (2 * Fraction(self.h)):   # declare an upper bound of l''
            c = math.nextafter(c, math.inf)
        self.curvature = c

    def value(self, m):
        m = np.asarray(m, dtype=np.float64)
        h = self.h
        r = 1.0 + h - m
        return np.where(m > 1.0 + h, 0.0, np.where(m < 1.0 - h, 1.0 - m, r * r / (4.0 * h)))

    def derivative(self, m):
        m = np.asarray(m, dtype=np.float64)
        h = self.h
        return np.where(m > 1.0 + h, 0.0, np.where(m < 1.0 - h, -1.0, -(1.0 + h - m) / (2.0 * h)))

    def second_derivative(self, m):
        m = np.asarray(m, dtype=np.float64)
        h = self.h
        return np.where(np.abs(1.0 - m) <= h, 1.0 / (2.0 * h), 0.0)

    def derivative_rounding(self) -> float:
        """``-(1 + h - m) / (2h)`` loses ``u (1 + h) / (2h)`` to the rounding of ``1 + h``, plus a few ulps."""
        u = UNIT_ROUNDOFF
        return math.nextafter(u * (1.0 + self.h) / (2.0 * self.h) * (1 + 4 * u) + 8 * u, math.inf)

    def derivative_exact(self, m, ctx=mpmath.mp):
        m, h = Fraction(m), Fraction(self.h)
        if m > 1 + h:
            v = Fraction(0)
        elif m < 1 - h:
            v = Fraction(-1)
        else:
            v = -(1 + h - m) / (2 * h)
        return exact_number(v, ctx)

    def second_derivative_exact(self, m, ctx=mpmath.mp):
        m, h = Fraction(m), Fraction(self.h)
        return exact_number(1 / (2 * h) if abs(1 - m) <= h else Fraction(0), ctx)

    def __repr__(self):
        return f"HuberHingeLoss(h={self.h!r})"


class HuberLoss:
    """Huber loss ``l(z, y) = h(z - y)`` with ``h(r) = r**2/2`` for ``|r| <= delta``, else ``delta |r| - delta**2/2``.

    Convex in ``z``; ``l'(z, y) = clip(z - y, -delta, delta)``, so ``L =
    delta``; ``l''`` is ``0`` or ``1``, so the smoothness is ``1``. Labels are
    any finite reals. As a function of ``w`` it is ``delta R``-Lipschitz and
    ``R**2``-smooth on ``||x|| <= R``.

    Parameters
    ----------
    delta : float > 0, default 1.0
        Width of the quadratic zone.
    """

    smoothness = 1.0
    name = "huber"

    @constrained(owner="HuberLoss", delta=POSITIVE)
    def __init__(self, delta=1.0):
        self.delta = delta
        self.lipschitz = self.delta

    def check_labels(self, y, owner):
        return check_array(y, "y", owner, ndim=1)

    def value(self, z, y):
        r = np.abs(z - y)
        d = self.delta
        return np.where(r <= d, 0.5 * r * r, d * r - 0.5 * d * d)

    def derivative(self, z, y):
        return np.clip(z - y, -self.delta, self.delta)

    def second_derivative(self, z, y):
        return (np.abs(z - y) <= self.delta).astype(np.float64)

    def __repr__(self):
        return f"HuberLoss(delta={self.delta!r})"


def check_loss(loss, owner: str) -> MarginLoss:
    """Validate a loss object and its declared constants.

    Raises
    ------
    ValueError
        If ``loss`` is not a :class:`MarginLoss`, declares a curvature ``c``
        outside ``(0, inf)`` or a Lipschitz bound outside ``(0, 1]``.
    """
    if not isinstance(owner, str):
        raise parameter_error("owner", "check_loss", "a str (the name used in error messages)", owner)
    if not isinstance(loss, MarginLoss):
        raise parameter_error("loss", owner, "a MarginLoss instance (e.g. LogisticLoss() or "
                              "HuberHingeLoss(h))", loss)
    check_scalar(loss.curvature, "loss.curvature", owner, POSITIVE)
    check_scalar(loss.lipschitz, "loss.lipschitz", owner, UNIT)
    return loss


# check_loss is itself the check of a loss; its second parameter is named like the
# decorator's own ``owner``, so its declaration is attached directly (the body enforces it).
check_loss.__constraints__ = MappingProxyType({
    "loss": Checked("a MarginLoss with curvature in (0, inf) and lipschitz in (0, 1] (this check)",
                    invalid=("logistic", 1.0, None, object())),
    "owner": InstanceOf((str,), "a str (the name used in error messages)"),
})
