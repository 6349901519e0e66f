"""Private prediction generalises in expectation: e^-eps E[L_S] <= E[L_P] <= e^eps E[L_S] (Lemma 6.4).

Claim
    Dwork & Feldman 2018, Lemma 6.4, first moment (expectation form derived
    in docs/theory/stability.rst): for a prediction algorithm that is eps-DP
    per query and a loss in [0, 1], with L_S the expected loss of the private
    predictions on the training points and L_P the expected loss on a fresh
    point, e^-eps E_S[L_S] <= E_S[L_P] <= e^eps E_S[L_S];
    refdp.prediction.generalization.lemma_6_4_bounds returns that interval.
Setting
    Exact: population x in {0, 1, 2} uniform, P(y = 1 | x) = 1/5, 1/2, 9/10;
    learner A(S)(x) = 1/2 + (1/(2n)) sum_i [x_i = x] (2 y_i - 1), whose rate
    is beta = 1/n (a memoriser: it moves towards the training labels at the
    query's own point); release p = clip(A(S)(x) + Lap(b), 0, 1) with
    b = laplace_scale(eps, beta), i.e. refdp.prediction.stable_prediction;
    loss |p - y|. Every one of the 6^n datasets (n = 3) is enumerated with its
    probability and every expectation over the noise is in closed form, for
    eps in {0.25, 1, 2}. Simulation (full sweep): StablePredictor wrapping
    RegularizedERM (Huber, delta = 1/2, lam = 1/2, R = 1) on a population of 25
    points (u1, u2, 1/2), u in {-0.6, -0.3, 0, 0.3, 0.6}^2, with
    P(y = 1 | x) = 1 / (1 + exp(-4 u1)), n = 20, eps = 1, output clipped to
    [0, 1], absolute loss; 3000 training sets drawn with a fixed seed; for each,
    L_S and L_P are exact given S (closed form over the noise, exact sum over
    the population).
Precision
    Exact part: both inequalities decided in interval arithmetic with
    outward rounding (refdp.verify.verdict.decide_leq_interval, 30 digits;
    certified); the float calculator's interval is checked to contain the
    enclosure of E[L_P]. Simulation: the means of L_S and L_P (each in [0, 1]) get Hoeffding
    intervals at level alpha/4 each, alpha = 1e-6 (half-width
    sqrt(ln(4/alpha)/(2N))); the reported value is the resulting lower
    confidence bound of max(ln(E L_P / E L_S), ln(E L_S / E L_P)), which
    exceeds eps with probability at most alpha if the lemma holds (the
    false-failure rate of the check).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np

from refdp.utils.precision import ctx_rational, iv_context, mp_context
from refdp.mechanisms import laplace_scale
from refdp.prediction.convex import HuberLoss, RegularizedERM
from refdp.prediction.generalization import lemma_6_4_bounds
from refdp.prediction.stability import StablePredictor
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, decide_enclosures, decide_leq_interval, upper, worst_verdict

F = Fraction
P_Y1 = (F(1, 5), F(1, 2), F(9, 10))
POP = tuple((x, y, F(1, 3) * (P_Y1[x] if y == 1 else 1 - P_Y1[x])) for x in range(3) for y in (0, 1))
N = 3
EPSILONS = (0.25, 1.0, 2.0)
ALPHA = 1e-6
SEED = 6406


def clip_mean(a, b, c):
    """E clip(a + Z, 0, 1), Z ~ Lap(b), for a in [0, 1], in the mpmath context ``c``."""
    return a + b / 2 * (c.exp(-a / b) - c.exp(-(1 - a) / b))


def clip_mean_float(a, b):
    """Vectorised float version of E clip(a + Z, 0, 1) for any real a."""
    c = np.clip(a, 0.0, 1.0)
    return (c - b / 2 * (np.exp((c - a) / b) - np.exp(-a / b))
            + b / 2 * (np.exp(-(c - a) / b) - np.exp(-(1 - a) / b)))


def memoriser(ds, x, n):
    return F(1, 2) + F(1, 2 * n) * sum((2 * POP[i][1] - 1) for i in ds if POP[i][0] == x)


def exact_means(epsilon, c=None, learner=memoriser, beta=F(1, N)):
    """(E_S[L_S], E_S[L_P]) in the mpmath context ``c`` (an interval context gives enclosures).

    Default: a real context at 50 digits.
    """
    c = mp_context(50) if c is None else c
    b = ctx_rational(c, F(laplace_scale(epsilon, float(beta))))
    loss = lambda a, y: (clip_mean(ctx_rational(c, a), b, c) if y == 0  # noqa: E731
                         else 1 - clip_mean(ctx_rational(c, a), b, c))
    es, ep = c.mpf(0), c.mpf(0)
    for ds in itertools.product(range(len(POP)), repeat=N):
        prob = ctx_rational(c, math.prod((POP[i][2] for i in ds), start=F(1)))
        preds = {x: learner(ds, x, N) for x in range(3)}
        ls = c.fsum(loss(preds[POP[i][0]], POP[i][1]) for i in ds) / N
        lp = c.fsum(ctx_rational(c, w) * loss(preds[x], y) for x, y, w in POP)
        es += prob * ls
        ep += prob * lp
    return es, ep


def exact_part():
    verdicts, worst, rows = [], None, []
    for eps in EPSILONS:
        cache = {}

        def means(c, eps=eps):
            key = c.prec
            if key not in cache:
                cache[key] = exact_means(eps, c)
            return cache[key]

        e = lambda c, eps=eps: ctx_rational(c, F(eps))   # noqa: E731
        v1, _, _ = decide_leq_interval(lambda c: means(c)[1], lambda c: c.exp(e(c)) * means(c)[0])
        v2, _, _ = decide_leq_interval(lambda c: c.exp(-e(c)) * means(c)[0], lambda c: means(c)[1])
        iv = iv_context(30)
        es_iv, ep_iv = means(iv)
        es, ep = upper(es_iv), upper(ep_iv)
        lo, hi = lemma_6_4_bounds(eps, float(es))
        # the calculator's interval must contain E[L_P]: decided on the enclosure
        v3 = worst_verdict((decide_enclosures(lo, ep_iv), decide_enclosures(ep_iv, hi)))
        verdicts += [v1, v2, v3]
        lr = upper(abs(iv.log(ep_iv / es_iv)))
        rows.append(f"eps={eps}: E[L_S]={float(es):.6f}, E[L_P]={float(ep):.6f}, "
                    f"|ln ratio|={float(lr):.4f}, calculator interval [{lo:.6f}, {hi:.6f}]")
        if worst is None or lr / eps > worst[0] / worst[1]:
            worst = (lr, mpmath.mpf(eps))   # a float, exact in any precision
    return verdicts, worst, rows


def _population():
    us = (-0.6, -0.3, 0.0, 0.3, 0.6)
    X = np.array([[u1, u2, 0.5] for u1 in us for u2 in us])
    p1 = 1 / (1 + np.exp(-4 * X[:, 0]))
    return X, p1


def simulation(n_sets=3000, n=20, epsilon=1.0, seed=SEED):
    X_pop, p1 = _population()
    learner = RegularizedERM(HuberLoss(0.5), 0.5, 1.0, tol=1e-10)
    beta = learner.stability_rate(n)
    rng = np.random.default_rng(seed)
    ls, lp = np.empty(n_sets), np.empty(n_sets)
    for t in range(n_sets):
        idx = rng.integers(0, len(X_pop), size=n)
        y = (rng.random(n) < p1[idx]).astype(float)
        sp = StablePredictor(learner, beta, epsilon, rng=rng).fit(X_pop[idx], y)
        b = sp.scale
        m_train = clip_mean_float(sp._score(X_pop[idx]), b)
        ls[t] = np.mean(np.where(y == 1, 1 - m_train, m_train))
        m_pop = clip_mean_float(sp._score(X_pop), b)
        lp[t] = np.mean(p1 * (1 - m_pop) + (1 - p1) * m_pop)
    h = math.sqrt(math.log(4 / ALPHA) / (2 * n_sets))
    ms, mp_ = float(ls.mean()), float(lp.mean())
    lcb = max(0.0,
              math.log(max(mp_ - h, 1e-300) / (ms + h)),
              math.log(max(ms - h, 1e-300) / (mp_ + h)))
    return ms, mp_, h, lcb, beta


@register("dwork_feldman.lemma_6_4_generalization",
          "eps-DP prediction, loss in [0, 1]: e^-eps E[L_S] <= E[L_P] <= e^eps E[L_S], exactly "
          "over all datasets of a memorising learner wrapped by stable_prediction",
          covers=("refdp.prediction.generalization.lemma_6_4_bounds",), quick=True)
def generalization_exact() -> CheckResult:
    verdicts, (lr, eps), rows = exact_part()
    return CheckResult(lr, eps, worst_verdict(verdicts), 30,
                       f"n={N}, {len(POP) ** N} datasets; " + "; ".join(rows), method="certified")


@register("dwork_feldman.lemma_6_4_generalization_simulation",
          "eps-DP prediction (StablePredictor over Huber ERM): the lemma's ratio is not "
          "contradicted at confidence 1 - 1e-6 on 3000 simulated training sets",
          covers=("refdp.prediction.generalization.lemma_6_4_bounds",), quick=False)
def generalization_simulation() -> CheckResult:
    eps = 1.0
    ms, mp_, h, lcb, beta = simulation(epsilon=eps)
    lo, hi = lemma_6_4_bounds(eps, ms)
    verdict = Verdict.HOLDS if lcb <= eps else Verdict.FAILS
    detail = (f"mean L_S = {ms:.5f}, mean L_P = {mp_:.5f} (Hoeffding half-width {h:.4f} each at "
              f"alpha/4), beta = {beta:.6g}, eps = {eps}; lower confidence bound of |ln ratio| "
              f"= {lcb:.4f}; calculator interval at the mean L_S: [{lo:.5f}, {hi:.5f}]")
    return CheckResult(lcb, eps, verdict, 0, detail, method="statistical")
