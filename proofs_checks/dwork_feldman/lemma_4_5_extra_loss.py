"""Extra expected loss of Laplace noise on a prediction: <= L b and <= sigma b^2 (Lemma 4.5).

Claim
    Dwork & Feldman 2018, Lemma 4.5 (constants derived in
    docs/theory/stability.rst): for Z ~ Lap(b) and every prediction a and
    label y, E l(a + Z, y) - l(a, y) <= L b when l(., y) is L-Lipschitz and
    <= sigma b^2 when it is sigma-smooth; b = beta/epsilon gives L beta /
    epsilon and sigma beta^2 / epsilon^2. For the absolute loss |p - y| with
    y in {0, 1} and the noisy prediction clipped to [0, 1] (a convex loss
    minimised inside the range), the clipped extra loss is at most the
    unclipped one, b exp(-|a - y|/b), and so at most b.
Setting
    Fixed predictors from the library: RegularizedERM with the logistic loss
    (lam = 1; L = 1, sigma = 1/4) and with the Huber loss (delta = 1/4,
    lam = 1; L = 1/4, sigma = 1), each fitted on the 1-D training set
    x = (-1, -1/2, 1/2, 1), y = (-1, +1, +1, +1); predictions a at the
    queries {-1, 0, 1}; labels +-1; epsilon in {0.5, 2} and b =
    StablePredictor.scale for the learner's declared rate. The bounds are
    StablePredictor.extra_loss_bound(lipschitz=L) and
    (smoothness=sigma). Clipped absolute loss: a in {0, 1/8, 1/2, 7/8, 1},
    y in {0, 1}, b in {1/8, 1, 4}.
Precision
    Logistic and Huber expectations by mpmath.quad (split at 0 and at the
    Huber kinks) of (l(a + z, y) - l(a, y)) e^{-|z|/b} / (2b), decided with
    refdp.verify.verdict.decide_leq at 10 and 30 digits (the difference of
    the two evaluations serves as the quadrature error estimate). The
    clipped absolute loss uses the closed form of E clip(a + Z, 0, 1) (proof
    in docs/theory/stability.rst), decided with decide_leq at 30 and 70
    digits.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from refdp.prediction.convex import HuberLoss, LogisticLoss, RegularizedERM
from refdp.prediction.stability import StablePredictor
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import decide_leq, worst_verdict

F = Fraction
QUERIES = (-1.0, 0.0, 1.0)
EPSILONS = (0.5, 2.0)
DELTA = 0.25


def _mp(x):
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _loss(kind, z, y):
    if kind == "logistic":
        return mpmath.log1p(mpmath.exp(-y * z))
    r = abs(z - y)
    d = mpmath.mpf(DELTA)
    return r * r / 2 if r <= d else d * r - d * d / 2


def expected_gap(kind, a, y, b):
    """E l(a + Z, y) - l(a, y) for Z ~ Lap(b), by quadrature at the current precision."""
    a, y, b = _mp(a), _mp(y), _mp(b)
    base = _loss(kind, a, y)
    # fold the symmetric density onto [0, inf): E g(Z) = int_0^inf (g(z) + g(-z)) e^{-z/b} / (2b) dz
    f = lambda z: ((_loss(kind, a + z, y) + _loss(kind, a - z, y) - 2 * base)  # noqa: E731
                   * mpmath.exp(-z / b) / (2 * b))
    pts = {mpmath.mpf(0)}
    if kind == "huber":
        pts |= {abs(y - a - DELTA), abs(y - a + DELTA)}
    pts = sorted(pts)
    return mpmath.quad(f, pts + [mpmath.inf])


def clip_mean(a, b):
    """E clip(a + Z, 0, 1) for Z ~ Lap(b) (closed form, mpmath)."""
    a, b = _mp(a), _mp(b)
    c = min(max(a, 0), 1)
    return (c - b / 2 * (mpmath.exp((c - a) / b) - mpmath.exp(-a / b))
            + b / 2 * (mpmath.exp(-(c - a) / b) - mpmath.exp(-(1 - a) / b)))


TRAIN_X = np.array([[-1.0], [-0.5], [0.5], [1.0]])
TRAIN_Y = np.array([-1.0, 1.0, 1.0, 1.0])


def _fixed_predictions(kind):
    X, y = TRAIN_X, TRAIN_Y
    loss = LogisticLoss() if kind == "logistic" else HuberLoss(DELTA)
    learner = RegularizedERM(loss, 1.0, 1.0, tol=1e-12)
    h = learner(X, y)
    return loss, learner, h(np.array([[q] for q in QUERIES]))


def run():
    verdicts, worst, where = [], None, ""
    for kind in ("logistic", "huber"):
        loss, learner, preds = _fixed_predictions(kind)
        beta = learner.stability_rate(4)
        for eps in EPSILONS:
            sp = StablePredictor(learner, beta, eps, output_range=None, secure=False)  # continuous Laplace law
            bounds = (("Lipschitz", sp.extra_loss_bound(lipschitz=loss.lipschitz)),
                      ("smooth", sp.extra_loss_bound(smoothness=loss.smoothness)))
            for a in preds:
                for y in (-1.0, 1.0):
                    cache = {}

                    def gap(a=a, y=y, b=sp.scale):
                        key = mpmath.mp.prec
                        if key not in cache:
                            cache[key] = expected_gap(kind, float(a), y, b)
                        return cache[key]

                    for name, bound in bounds:
                        v, lhs, rhs = decide_leq(gap, lambda bound=bound: mpmath.mpf(bound), dps=10)
                        verdicts.append(v)
                        ratio = float(lhs / rhs)
                        if worst is None or ratio > worst[0]:
                            worst = (ratio, lhs, rhs)
                            where = (f"{kind} loss, {name} bound, epsilon={eps}, a={float(a):.6g}, "
                                     f"y={y:+g}, b={sp.scale:.6g}")
    # clipped absolute loss
    clip_worst = 0.0
    for b in (F(1, 8), F(1), F(4)):
        for a in (F(0), F(1, 8), F(1, 2), F(7, 8), F(1)):
            for y in (0, 1):
                def clipped(a=a, y=y, b=b):
                    m = clip_mean(a, b)
                    return (m if y == 0 else 1 - m) - abs(_mp(a) - y)

                def unclipped(a=a, y=y, b=b):
                    return _mp(b) * mpmath.exp(-abs(_mp(a) - y) / _mp(b))

                v1, lhs, rhs = decide_leq(clipped, unclipped, dps=30)
                v2, _, _ = decide_leq(clipped, lambda b=b: _mp(b), dps=30)
                verdicts += [v1, v2]
                clip_worst = max(clip_worst, float(lhs / _mp(b)))
    return verdicts, worst, where, clip_worst


@register("dwork_feldman.lemma_4_5_extra_loss",
          "Laplace noise on a prediction adds at most L b (Lipschitz) and sigma b^2 (smooth) "
          "expected loss; clipping to [0, 1] only lowers the absolute loss",
          covers=("refdp.prediction.stability.StablePredictor.extra_loss_bound",
                  "refdp.prediction.stability.lemma_4_5_lipschitz_extra_loss",
                  "refdp.prediction.stability.lemma_4_5_smooth_extra_loss"),
          quick=True)
def extra_loss() -> CheckResult:
    verdicts, (ratio, lhs, rhs), where, clip_worst = run()
    detail = (f"largest extra loss / bound = {ratio:.4f} at {where}; clipped absolute loss: "
              f"largest extra loss / b = {clip_worst:.4f} (<= unclipped b e^(-|a-y|/b)); "
              f"{len(verdicts)} decisions")
    return CheckResult(lhs, rhs, worst_verdict(verdicts), 10, detail, method="estimated")
