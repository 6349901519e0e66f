"""Pooled conditional tests: one epsilon bound from events on several pairs.

When a mechanism violates its claim on more than one pair by about the same
amount (SVT4 on StatDP's "half higher, half lower" and "crossing" pairs:
exact log-ratios 0.17247 and 0.17166), one held-out test on one pair uses
only that pair's outputs. The conditional test of
:func:`refdp.audit.events.conditional_bound` can add them up.

**Why the sum is a valid test.** Let the held-out sizes of pair ``j`` be
independent Poisson variables of one mean (:func:`refdp.audit.blackbox.poisson_sizes`),
the streams of different pairs independent, and ``E_j`` an event chosen for
pair ``j`` on selection outputs, with numerator dataset ``D_j`` and
denominator ``D'_j``. Given the totals ``s_j = K_j + K'_j``, the counts
``K_j`` are independent, ``K_j ~ Binomial(s_j, theta_j)`` with ``theta_j =
p_j / (p_j + p'_j)``. If the mechanism is ``eps``-DP on every pair, each
``theta_j <= theta(eps) = e^eps / (1 + e^eps)``, so ``K = sum K_j`` is
stochastically at most ``Binomial(s, theta(eps))``, ``s = sum s_j`` (couple
each Bernoulli trial with one of probability ``theta(eps)``). The
Clopper--Pearson lower bound ``theta_L(K, s)`` increases with ``K``, hence
``P[theta_L > theta(eps)] <= error`` and ``ln(theta_L / (1 - theta_L)) <=
eps`` with probability at least ``1 - error``. A single event is the case of
one pair. Which pools are tested is decided on selection outputs only, and
every tested pool counts in the Bonferroni correction, so the audit's
guarantee is unchanged (docs/theory/audit.rst, "Pooled tests").

**Which pools.** For the ``pool_pairs`` pairs with the best projected epsilon
values, the events each pair would test (the chosen one and its rarer
alternatives) are combined in every way that takes at most one event per
pair; each combination is scored by the bound the held-out stage would give
its summed counts were the tune frequencies, moved
:data:`refdp.audit.events.SELECTION_Z` standard errors of the pooled
estimate against the pool, the true probabilities. The best is tested,
with up to two more that the tune samples cannot tell from it (the rule of
:func:`refdp.audit.blackbox._alternate`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from .clopper_pearson import lower_unchecked, upper_unchecked
from .events import SELECTION_Z, cannot_tell, conditional_bound

__all__ = ["Pool", "choose_pools", "pooled_row", "MAX_POOL_PAIRS", "MAX_POOLS"]

#: Most pairs whose events may be pooled (the combinations grow as 4**pairs).
MAX_POOL_PAIRS = 4
#: Most pools tested at the held-out stage (the best and two the tune samples cannot tell from it).
MAX_POOLS = 3


@dataclass(frozen=True)
class Pool:
    """Events of different pairs whose held-out counts are added in one conditional test.

    ``members`` is a tuple of ``(pair index, Candidate)``, one per pair, in
    increasing pair order; ``value`` is its projected bound.
    """

    members: tuple
    value: float

    @property
    def pairs(self):
        return tuple(p for p, _ in self.members)


def _projection(members, n_project, z, error):
    """The conditional bound at the pooled tune frequencies moved ``z`` standard errors against the pool.

    ``members`` are ``(pair, Candidate)``; a member's tune counts ``(k, n, k',
    n')`` (numerator first) estimate its expected held-out counts ``k / n *
    N_j`` and ``k' / n' * N_j``, ``N_j = n_project[pair]``. The sums are
    moved by ``z`` times their standard deviations (binomial tune counts,
    independent across pairs and datasets).
    """
    mu = var = mu_o = var_o = 0.0
    for p, c in members:
        k, n, k2, n2 = c.tune_counts
        big = float(n_project[p])
        f, f2 = k / n, k2 / n2
        mu += f * big
        var += f * (1.0 - f) / n * big * big
        mu_o += f2 * big
        var_o += f2 * (1.0 - f2) / n2 * big * big
    return float(conditional_bound(max(mu - z * math.sqrt(var), 0.0), mu_o + z * math.sqrt(var_o), error))


def choose_pools(groups, n_project, error):
    """The pools to test: the best combination and up to two the tune samples cannot tell from it.

    Parameters
    ----------
    groups : dict
        Pair index -> list of Candidates (epsilon objective, claimed delta 0)
        the pair would test: the chosen event first, then its rarer
        alternatives. Only pairs in ``groups`` are pooled.
    n_project : dict
        Pair index -> the held-out outputs per dataset it would get.
    error : float in (0, 1)
        The error of one conditional test, as projected.

    Returns
    -------
    list of Pool
        Best first; a pool of one member is a single event. Every
        combination taking at most one event per pair is scored (a pool's
        projected value :func:`_projection` at the full guard); a runner-up
        ``a`` is kept beside the best ``b`` when ``v0(b) - v0(a) <
        sqrt(s(a)**2 + s(b)**2)``, ``v0`` the value without guard and
        ``s`` what one standard error of the guard costs (the estimates
        treated as independent, which can only keep more:
        :func:`refdp.audit.events.cannot_tell`).
    """
    order = sorted(groups)
    options = [[None] + [(p, c) for c in groups[p]] for p in order]
    scored = []
    for combo in itertools.product(*options):
        members = tuple(m for m in combo if m is not None)
        if not members:
            continue
        v = _projection(members, n_project, SELECTION_Z, error)
        if math.isfinite(v):
            scored.append((v, members))
    if not scored:
        return []
    # best value first; on ties fewer members, then the order of the pairs and events as given
    scored.sort(key=lambda t: -t[0])
    best_v, best = scored[0]
    b0, b1 = (_projection(best, n_project, z, error) for z in (0.0, 1.0))
    pools = [Pool(best, best_v)]
    for v, members in scored[1:]:
        if len(pools) == MAX_POOLS:
            break
        a0, a1 = (_projection(members, n_project, z, error) for z in (0.0, 1.0))
        if cannot_tell(b0, b1, a0, a1):
            pools.append(Pool(members, v))
    return pools


def pooled_row(pool, member_counts, sizes, overflow, beta, labels):
    """The held-out result of one pool.

    Parameters
    ----------
    pool : Pool
    member_counts : list of (int, int)
        Per member, its event's held-out counts in the outputs of ``(D, D')``
        of its pair (as given, not yet ordered by direction).
    sizes : dict
        Pair index -> the pair's held-out sizes ``(N, N')``.
    overflow : dict
        Pair index -> True when a Poisson size exceeded the budget (the pool
        then reports no bound).
    beta : float
        The audit's error per bound: the conditional test is at ``2 beta``,
        the pooled frequencies' Clopper--Pearson bounds at ``beta``.
    labels : list of str
        Pair labels, by pair index.

    Returns
    -------
    dict
        ``k`` and ``k_other``: the summed counts of the numerator's and the
        denominator's datasets; ``n`` and ``n_other``: the summed sizes;
        ``bound``; ``members``: per pair its label, event, direction and
        counts; ``event``: the members' events joined (the event itself for
        one member); ``direction``: the first member's; ``p_lower`` and
        ``p_upper``: Clopper--Pearson bounds of the pooled frequencies ``k /
        n`` and ``k_other / n_other`` (for information).
    """
    k = k_o = n = n_o = 0
    members, over = [], False
    for (p, c), (ka, kb) in zip(pool.members, member_counts):
        num, den = (ka, kb) if c.numerator == 0 else (kb, ka)
        sn, sd = sizes[p] if c.numerator == 0 else sizes[p][::-1]
        k, k_o, n, n_o = k + num, k_o + den, n + sn, n_o + sd
        over = over or bool(overflow[p])
        members.append({"pair": p, "pair_label": labels[p], "event": c.description, "direction": c.numerator,
                        "k": num, "n": sn, "k_other": den, "n_other": sd})
    raw = -math.inf if over else float(conditional_bound(k, k_o, 2 * beta))
    bound = max(0.0, raw) if math.isfinite(raw) else 0.0
    event = ("; ".join(f"{m['pair_label']}: {m['event']}" for m in members) if len(members) > 1
             else members[0]["event"])
    return {"k": k, "n": n, "k_other": k_o, "n_other": n_o, "bound": bound, "members": members,
            "event": event, "direction": members[0]["direction"], "test": "conditional",
            "p_lower": float(lower_unchecked(k, n, beta)), "p_upper": float(upper_unchecked(k_o, n_o, beta))}
