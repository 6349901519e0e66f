"""A catalogue of deliberately wrong mechanisms (and their correct versions).

Each entry carries an exact output distribution written here in mpmath (or in
fractions), independently of refdp's mechanisms, so that the checker of
:mod:`refdp.verify.check` can be tested on mechanisms whose flaw is known:

* ``exponential_mechanism``: P[h] prop. to exp(eps u(d, h) / (2 Delta)) on the
  histogram utility, which moves in both directions under replace-one
  (McSherry & Talwar 2007, Theorem 6). Wrong: the scale halved,
  exp(eps u / Delta), which is only 2 eps-DP.
* ``noisy_max_with_value``: report-noisy-max with Lap(1/eps) on monotone
  counting queries under add/remove (Dwork & Roth 2014, Claim 3.9) is eps-DP
  for the index. Wrong: also releasing the noisy maximum. The value is
  discretised into buckets of a fixed grid (post-processing, so a violation on
  buckets is a violation of the continuous mechanism); the bucket masses are
  closed-form integrals of piecewise exponentials.
* ``projected_walk``: the exponential projected walk (Dwork & Feldman 2018,
  Sec. 5; docs/theory/projected_walk_error.rst). Step s = eps/2 is eps-DP under replace-one, s = eps is
  eps-DP under add/remove and not under replace-one.
* ``soft_majority``: exp(eps n_y / 2) over the votes of k learners trained on
  a fixed split of the data (Dwork & Feldman 2018, Theorem 4.1). Wrong:
  exp(eps n_y), which is 2 eps-DP.
* ``leaky_randomised_response``: with probability rho output the true bit,
  otherwise randomised response; (eps, rho)-DP. Wrong: leak with 2 delta.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath

from refdp.verify import all_datasets, labelled_domain

# ---------------------------------------------------------------------------
# Exact distribution functions (each computes at the current mpmath precision)
# ---------------------------------------------------------------------------


def histogram(dataset, domain):
    """Counts of each domain element in the dataset."""
    return [sum(1 for r in dataset if r == h) for h in domain]


def exponential_mechanism(epsilon, divisor, domain):
    """P[h] = exp(eps c_h / divisor) / Z with c the histogram of the dataset.

    ``divisor = 2`` is the general (two-sided) scale for a utility of
    sensitivity 1; ``divisor = 1`` is the one-sided (monotone) scale.
    """

    def dist(dataset):
        eps = mpmath.mpf(epsilon)
        weights = [mpmath.exp(eps * c / divisor) for c in histogram(dataset, domain)]
        z = mpmath.fsum(weights)
        return {h: w / z for h, w in zip(domain, weights)}

    return dist


def _laplace_pieces(z_sign, eq, b):
    """Pieces of f(v - q) and F(v - q) of Lap(b) on a side of q, as {k: coef}.

    A piece {k: c} stands for sum_k c e^(k v / b); ``eq = exp(q / b)``.
    ``z_sign`` is +1 on v >= q and -1 on v <= q.
    """
    if z_sign > 0:
        density = {-1: eq / (2 * b)}
        cdf = {0: mpmath.mpf(1), -1: -eq / 2}
    else:
        density = {1: 1 / (2 * b * eq)}
        cdf = {1: 1 / (2 * eq)}
    return density, cdf


def _multiply(a, b):
    out = {}
    for ka, ca in a.items():
        for kb, cb in b.items():
            out[ka + kb] = out.get(ka + kb, 0) + ca * cb
    return out


def _mpf(x):
    """A Fraction rounded once to the working precision."""
    return mpmath.mpf(x.numerator) / x.denominator


def _integrate(poly, lo, hi, b):
    """Integral over (lo, hi] of sum_k c e^(k v / b); lo may be -inf, hi +inf."""
    total = mpmath.mpf(0)
    for k, c in poly.items():
        if k == 0:
            if lo is None or hi is None:
                raise ArithmeticError("non-integrable constant term on an infinite bucket")
            total += c * (_mpf(hi) - _mpf(lo))
            continue
        top = 0 if hi is None else mpmath.exp(k * _mpf(hi) / b)
        bottom = 0 if lo is None else mpmath.exp(k * _mpf(lo) / b)
        if (hi is None and k > 0) or (lo is None and k < 0):
            raise ArithmeticError("divergent term on an infinite bucket")
        total += c * b / k * (top - bottom)
    return total


def cumulative_counts(dataset, domain):
    """Monotone counting queries q_j(d) = #{x in d : x <= j}, one per j in domain."""
    return [sum(1 for r in dataset if r <= j) for j in domain]


def noisy_max_with_value(epsilon, domain, grid):
    """Exact law of (argmax_j (q_j + Z_j), bucket of the max), Z_j i.i.d. Lap(1/eps).

    Outputs are ``(j, t)``: candidate j, and bucket t of the noisy maximum in
    the partition of the line by the sorted breakpoints ``grid`` (bucket 0 is
    (-inf, grid[0]], bucket len(grid) is (grid[-1], inf)). The grid must contain
    every integer score that can occur, so that no bucket straddles a kink of
    the density f(v - q_j) prod_{i != j} F(v - q_i).
    """
    grid = tuple(Fraction(g) for g in grid)
    edges = [None, *grid, None]

    def dist(dataset):
        b = 1 / mpmath.mpf(epsilon)
        q = cumulative_counts(dataset, domain)
        pieces = {}  # (side, q) -> (density piece, cdf piece)
        for v in set(q):
            eq = mpmath.exp(mpmath.mpf(v) / b)
            pieces[(1, v)] = _laplace_pieces(1, eq, b)
            pieces[(-1, v)] = _laplace_pieces(-1, eq, b)
        out = {}
        for j in range(len(domain)):
            for t in range(len(grid) + 1):
                lo, hi = edges[t], edges[t + 1]
                # a point inside the bucket decides the side of every kink
                mid = (hi - 1 if lo is None else lo + 1 if hi is None else (lo + hi) / 2)
                poly = pieces[(1 if mid >= q[j] else -1, q[j])][0]
                for i in range(len(domain)):
                    if i != j:
                        poly = _multiply(poly, pieces[(1 if mid >= q[i] else -1, q[i])][1])
                out[(domain[j], t)] = _integrate(poly, lo, hi, b)
        return out

    return dist


def noisy_max_index(epsilon, domain, grid):
    """The index alone: the marginal of :func:`noisy_max_with_value` (correct version)."""
    joint = noisy_max_with_value(epsilon, domain, grid)

    def dist(dataset):
        p = joint(dataset)
        return {h: mpmath.fsum(v for (j, _), v in p.items() if j == h) for h in domain}

    return dist


def projected_walk(step, alpha, query):
    """Exact law of the exponential projected walk's prediction at ``query`` (Dwork & Feldman 2018, Sec. 5).

    l starts at 0; for each record (x_i, y_i) with x_i <= query, in increasing
    order of (x_i, y_i), l = clip(l + step (2 y_i - 1), -B, B) with
    B = ln((1 - alpha) / alpha); the output is 1 with probability sigmoid(l).
    ``step`` and ``alpha`` are exact inputs (floats, fractions or strings).
    """
    alpha = Fraction(alpha)

    def dist(dataset):
        s = mpmath.mpf(step)
        bound = mpmath.log(mpmath.mpf((1 - alpha).numerator) * alpha.denominator
                           / (mpmath.mpf(alpha.numerator) * (1 - alpha).denominator))
        log_odds = mpmath.mpf(0)
        for x, y in sorted(dataset):
            if x <= query:
                log_odds = min(max(log_odds + s * (2 * y - 1), -bound), bound)
        p1 = 1 / (1 + mpmath.exp(-log_odds))
        p0 = 1 / (1 + mpmath.exp(log_odds))
        return {0: p0, 1: p1}

    return dist


def soft_majority(epsilon, divisor, parts, labels):
    """Exact law of soft majority over ``parts`` learners on a fixed split by position.

    Record i belongs to part i mod ``parts``; each learner predicts the most
    frequent label of its part (smallest label among ties, ``labels[0]`` for an
    empty part). Output y with probability prop. to exp(eps n_y / divisor),
    n_y the number of learners predicting y. ``divisor = 2`` is Theorem 4.1's
    mechanism; ``divisor = 1`` is the 2 eps-DP error. (A random split drawn
    independently of the data mixes these laws with data-independent weights,
    so a bound for every fixed split is a bound for the random one.)
    """

    def dist(dataset):
        votes = []
        for k in range(parts):
            part = dataset[k::parts]
            counts = [sum(1 for r in part if r == y) for y in labels]
            votes.append(labels[counts.index(max(counts))] if part else labels[0])
        eps = mpmath.mpf(epsilon)
        weights = [mpmath.exp(eps * votes.count(y) / divisor) for y in labels]
        z = mpmath.fsum(weights)
        return {y: w / z for y, w in zip(labels, weights)}

    return dist


def leaky_randomised_response(epsilon, leak):
    """With probability ``leak`` output ("leak", bit), else randomised response on the bit.

    The dataset is one bit; randomised response reports it with probability
    e^(eps/2) / (1 + e^(eps/2)), so the non-leaking part is (eps/2)-DP and the
    whole is (eps, leak)-DP with hockey-stick divergence exactly ``leak``.
    """
    leak = Fraction(leak)

    def dist(dataset):
        bit = dataset[0]
        e = mpmath.exp(mpmath.mpf(epsilon) / 2)
        keep = (1 - mpmath.mpf(leak.numerator) / leak.denominator)
        return {("leak", bit): leak, ("leak", 1 - bit): Fraction(0),
                ("rr", bit): keep * e / (1 + e), ("rr", 1 - bit): keep / (1 + e)}

    return dist


# ---------------------------------------------------------------------------
# The catalogue
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One mechanism of the catalogue with the claim checked and the expected verdict."""

    name: str
    claim: str
    distribution: Callable
    datasets: tuple
    domain: tuple
    epsilon: float
    delta: float = 0.0
    neighbours: str = "replace"
    ordered: bool = False
    wrong: bool = True


EPS = 1.0
_EM_DOMAIN = (0, 1, 2)
_NM_DOMAIN = (0, 1, 2)
_NM_GRID = tuple(range(-2, 7))  # every count 0..4 that can occur, and a margin
_WALK_DOMAIN = labelled_domain(range(3))
_SM_LABELS = (0, 1, 2)

CATALOGUE = (
    Case("exponential mechanism, scale halved",
         "exp(eps u / Delta) on the replace-one histogram utility is eps-DP",
         exponential_mechanism(EPS, 1, _EM_DOMAIN),
         tuple(all_datasets(_EM_DOMAIN, 4)), _EM_DOMAIN, EPS),
    Case("exponential mechanism",
         "exp(eps u / (2 Delta)) on the replace-one histogram utility is eps-DP",
         exponential_mechanism(EPS, 2, _EM_DOMAIN),
         tuple(all_datasets(_EM_DOMAIN, 4)), _EM_DOMAIN, EPS, wrong=False),
    Case("exponential mechanism, monotone scale, add/remove",
         "exp(eps u / Delta) is eps-DP when u only increases (add/remove histogram)",
         exponential_mechanism(EPS, 1, _EM_DOMAIN),
         tuple(all_datasets(_EM_DOMAIN, 4)), _EM_DOMAIN, EPS, neighbours="add_remove", wrong=False),
    Case("noisy max returning the noisy value",
         "(argmax, bucketed max) of counts + Lap(1/eps) is eps-DP (add/remove)",
         noisy_max_with_value(EPS, _NM_DOMAIN, _NM_GRID),
         tuple(all_datasets(_NM_DOMAIN, 3)), _NM_DOMAIN, EPS, neighbours="add_remove"),
    Case("noisy max",
         "argmax of monotone counts + Lap(1/eps) is eps-DP (add/remove)",
         noisy_max_index(EPS, _NM_DOMAIN, _NM_GRID),
         tuple(all_datasets(_NM_DOMAIN, 3)), _NM_DOMAIN, EPS, neighbours="add_remove", wrong=False),
    Case("projected walk, step eps, replace-one",
         "the projected walk with step s = eps is eps-DP under replace-one",
         projected_walk(EPS, Fraction(1, 10), 1),
         tuple(all_datasets(_WALK_DOMAIN, 3)), _WALK_DOMAIN, EPS),
    Case("projected walk, step eps/2, replace-one",
         "the projected walk with step s = eps/2 is eps-DP under replace-one",
         projected_walk(EPS / 2, Fraction(1, 10), 1),
         tuple(all_datasets(_WALK_DOMAIN, 3)), _WALK_DOMAIN, EPS, wrong=False),
    Case("projected walk, step eps, add/remove",
         "the projected walk with step s = eps is eps-DP under add/remove",
         projected_walk(EPS, Fraction(1, 10), 1),
         tuple(all_datasets(_WALK_DOMAIN, 3)), _WALK_DOMAIN, EPS, neighbours="add_remove", wrong=False),
    Case("soft majority with exp(eps n_y)",
         "exp(eps n_y) over the votes of 3 learners is eps-DP (replace-one)",
         soft_majority(EPS, 1, 3, _SM_LABELS),
         tuple(all_datasets(_SM_LABELS, 4, ordered=True)), _SM_LABELS, EPS, ordered=True),
    Case("soft majority",
         "exp(eps n_y / 2) over the votes of 3 learners is eps-DP (replace-one)",
         soft_majority(EPS, 2, 3, _SM_LABELS),
         tuple(all_datasets(_SM_LABELS, 4, ordered=True)), _SM_LABELS, EPS, ordered=True, wrong=False),
    Case("leaky randomised response, leak 2 delta",
         "leaking the bit with probability 2 delta is (eps, delta)-DP",
         leaky_randomised_response(EPS, Fraction(2, 64)),
         ((0,), (1,)), (0, 1), EPS, delta=1 / 64),
    Case("leaky randomised response",
         "leaking the bit with probability delta is (eps, delta)-DP",
         leaky_randomised_response(EPS, Fraction(1, 64)),
         ((0,), (1,)), (0, 1), EPS, delta=1 / 64, wrong=False),
)

WRONG = tuple(c for c in CATALOGUE if c.wrong)
CORRECT = tuple(c for c in CATALOGUE if not c.wrong)

__all__ = ["Case", "CATALOGUE", "WRONG", "CORRECT", "histogram", "cumulative_counts",
           "exponential_mechanism", "noisy_max_with_value", "noisy_max_index",
           "projected_walk", "soft_majority", "leaky_randomised_response"]
