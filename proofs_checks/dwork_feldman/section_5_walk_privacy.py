"""The exponential projected walk is epsilon-DP per prediction (Dwork & Feldman 2018, Sec. 5).

Claim
    For :class:`refdp.prediction.ProjectedWalk` with step epsilon/2 under
    replace-one neighbours and step epsilon under add/remove neighbours, every
    prediction satisfies max_o |ln P[o | S] / P[o | S']| <= epsilon, for every
    pair of neighbouring training sets S, S' and every query point.
Preconditions
    Records sorted by the tie rule (x, y); a query at x includes every record
    with x_i <= x (docs/theory/projected_walk_sweep.rst).
Method
    Exhaustive: every multiset of labelled records of size <= N over the domain
    {0, 1, 2, 3} x {0, 1}, every neighbour of it, queries at -1, 0, 1, 2, 3.
    The walk's log-odds are obtained exactly from the class as integer pairs
    (a, b) with l = a s + b B (``ProjectedWalk.exact_states``); each distinct
    pair of log-odds and each output is decided in mpmath.
Precision
    Interval arithmetic with outward rounding at 30 decimal digits
    (refdp.verify.verdict.decide_leq_interval; certified); an undecided
    comparison fails.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath

from refdp.prediction import ProjectedWalk
from refdp.verify.neighbours import all_datasets, neighbour_function, labelled_domain
from refdp.utils.precision import ctx_rational
from refdp.verify.registry import CheckResult, combined_method, register
from refdp.verify.verdict import Verdict, decide_leq_interval, upper

DOMAIN = labelled_domain(range(4))
QUERIES = (-1.0, 0.0, 1.0, 2.0, 3.0)
DPS = 30


def _states(walk, dataset):
    if not dataset:
        return tuple((0, 0) for _ in QUERIES)
    x = [r[0] for r in dataset]
    y = [r[1] for r in dataset]
    return tuple(walk.fit(x, y).exact_states(QUERIES))


def _log_prob(state, output, epsilon, alpha, walk_relation, c):
    """ln P[output] of the walk in state ``(a, b)``, enclosed in the interval context ``c``."""
    a, b = state
    e, al = ctx_rational(c, Fraction(epsilon)), ctx_rational(c, Fraction(alpha))
    step = e / 2 if walk_relation == "replace" else e
    l = a * step + b * c.log((1 - al) / al)
    # ln sigmoid(l) for output 1, ln sigmoid(-l) for output 0
    z = l if output == 1 else -l
    return -c.log(1 + c.exp(-z))


def walk_privacy(epsilon="1", alpha="0.1", walk_relation="replace", relation="replace", max_size=6):
    """Worst |ln P/P'| of the walk over all neighbours of all datasets of size <= max_size.

    ``walk_relation`` sets the walk's step (what the walk was built for);
    ``relation`` is the neighbour relation checked. ``epsilon`` and ``alpha``
    are decimal strings so the exact values are unambiguous.
    """
    walk = ProjectedWalk(epsilon=float(epsilon), alpha=float(alpha), neighbours=walk_relation)
    cache = {}
    pairs = {}
    neighbours = neighbour_function(relation, DOMAIN)
    for d in all_datasets(DOMAIN, max_size):
        if d not in cache:
            cache[d] = _states(walk, d)
        sd = cache[d]
        for d2 in neighbours(d):
            if d2 not in cache:
                cache[d2] = _states(walk, d2)
            sd2 = cache[d2]
            for q, (u, v) in enumerate(zip(sd, sd2)):
                key = (min(u, v), max(u, v))
                if key[0] != key[1] and key not in pairs:
                    pairs[key] = (d, d2, QUERIES[q])
    worst, worst_at, verdicts = mpmath.mpf(0), "no differing pair", []
    for (u, v), (d, d2, q) in pairs.items():
        for output in (0, 1):
            def loss(c, u=u, v=v, output=output):
                return abs(_log_prob(u, output, epsilon, alpha, walk_relation, c)
                           - _log_prob(v, output, epsilon, alpha, walk_relation, c))
            verdict, value, _ = decide_leq_interval(loss, lambda c: ctx_rational(c, Fraction(epsilon)), DPS)
            value = upper(value)
            verdicts.append(verdict)
            if value > worst:
                worst, worst_at = value, f"S={list(d)}, S'={list(d2)}, query={q}, output={output}"
    verdict = (Verdict.FAILS if Verdict.FAILS in verdicts else
               Verdict.UNDECIDED if Verdict.UNDECIDED in verdicts else Verdict.HOLDS)
    detail = f"{worst_at}; {len(cache)} datasets, {len(pairs)} distinct log-odds pairs"
    return CheckResult(worst, mpmath.mpf(epsilon), verdict, DPS, detail, method="certified")


COVERS = ("refdp.prediction.walk.ProjectedWalk.predict",)


@register("dwork_feldman.walk_privacy_replace_quick",
          "ProjectedWalk(step eps/2): max |ln P/P'| <= eps over all replace-one neighbours, |S| <= 4",
          covers=COVERS)
def replace_quick():
    return walk_privacy(relation="replace", walk_relation="replace", max_size=4)


@register("dwork_feldman.walk_privacy_add_remove_quick",
          "ProjectedWalk(step eps): max |ln P/P'| <= eps over all add/remove neighbours, |S| <= 4",
          covers=COVERS)
def add_remove_quick():
    return walk_privacy(relation="add_remove", walk_relation="add_remove", max_size=4)


@register("dwork_feldman.walk_privacy_replace",
          "ProjectedWalk(step eps/2), eps in {0.1, 1, 2}: max |ln P/P'| <= eps, replace-one, |S| <= 6",
          covers=COVERS, quick=False)
def replace_full():
    results = [walk_privacy(epsilon=e, alpha=a, relation="replace", walk_relation="replace", max_size=6)
               for e, a in (("0.1", "0.01"), ("1", "0.1"), ("2", "0.3"))]
    return _combine(results)


@register("dwork_feldman.walk_privacy_add_remove",
          "ProjectedWalk(step eps), eps in {0.1, 1, 2}: max |ln P/P'| <= eps, add/remove, |S| <= 6",
          covers=COVERS, quick=False)
def add_remove_full():
    results = [walk_privacy(epsilon=e, alpha=a, relation="add_remove", walk_relation="add_remove",
                            max_size=6)
               for e, a in (("0.1", "0.01"), ("1", "0.1"), ("2", "0.3"))]
    return _combine(results)


def _combine(results):
    """Worst ratio measured/bound across runs; the verdict fails closed."""
    worst = max(results, key=lambda r: r.measured / r.bound)
    verdicts = [r.verdict for r in results]
    verdict = (Verdict.FAILS if Verdict.FAILS in verdicts else
               Verdict.UNDECIDED if Verdict.UNDECIDED in verdicts else Verdict.HOLDS)
    return CheckResult(worst.measured, worst.bound, verdict, DPS, worst.detail,
                       method=combined_method(results))
