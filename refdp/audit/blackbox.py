"""Black-box audit: a lower bound on the epsilon of a mechanism from its samples.

The procedure (the idea of choosing the event on one sample and bounding its
probabilities on another is that of StatDP [DWWZK18]_ and DP-Sniper
[BSBV21]_; the proofs are on the theory page of the audit):

1. **Selection** (per candidate pair ``(D, D')``). Draw outputs of ``M(D)``
   and ``M(D')`` in batches of doubling size; split each batch into a *fit*
   half and a *tune* half. Fit score functions on the fit half
   (:mod:`refdp.audit.events`), and on the tune half choose the score, the
   threshold, the direction (``D`` over ``D'`` or the reverse) and so the
   event ``E`` whose *projected* held-out bound is largest: the bound the
   held-out stage would certify on the rest of the budget, were the tune
   frequencies (moved two standard errors against the event) the true
   probabilities. Stop when a doubling no longer finds a better event (the
   events chosen before and after it, scored on the same tune samples,
   differ by at most ``tolerance`` times the projected bound, once 1/32 of
   the budget was drawn; never, if ``tolerance = 0``), or when
   ``n_samples / 2`` outputs per dataset were drawn.
2. **Held-out bound.** For the ``holdout_pairs`` pairs with the best
   projected values, draw *fresh* outputs (the rest of the budget,
   ``n_samples`` minus the selection's outputs), in shards of
   ``shard_size`` outputs, each from its own stream (a
   :class:`numpy.random.SeedSequence` spawn key ``(pair, side, shard)``
   under a root drawn from ``rng``), so that the shards can run anywhere
   (``client=``: a Dask cluster) with the same counts,
   and count ``k`` of ``n`` outputs of ``M(D)`` and ``k'`` of ``n'`` outputs
   of ``M(D')`` in ``E``. Beside the chosen event, up to two rarer events
   that the selection outputs cannot tell from it are counted too (the
   guard of step 1 leans to larger events; :func:`_alternate`), and the
   largest of their bounds is reported. With ``beta = (1 - confidence) /
   (2 m)``, ``m`` the number of held-out tests (every event tested, on every
   held-out pair, for every objective; decided before any held-out output
   is drawn), report

   * ``epsilon_lower = ln((p_lo - delta) / p'_hi)`` (0 if not positive), with
     ``p_lo`` the Clopper--Pearson lower bound of ``k/n`` and ``p'_hi`` the
     upper bound of ``k'/n'``, each at error ``beta``, and ``delta`` the
     claimed delta;
   * optionally ``delta_lower = p_lo - e^eps p'_hi`` (0 if not positive) at a
     given ``eps``, for an event chosen for that objective.

   With ``holdout_test="conditional"`` (or ``"auto"`` and a candidate whose
   projection prefers it) an epsilon bound at ``delta = 0`` is instead
   ``ln(theta_L / (1 - theta_L))``, ``theta_L`` the Clopper--Pearson lower
   bound of ``k`` of ``k + k'`` at error ``2 beta``, the pair's held-out sizes
   being drawn Poisson (:func:`refdp.audit.events.conditional_bound`,
   :func:`poisson_sizes`).

**Guarantee.** If ``M`` is ``(eps*, delta)``-DP on the pairs searched, then
``P[epsilon_lower > eps*] <= 1 - confidence``: conditionally on everything the
selection saw, ``E``, the direction and the held-out sizes are fixed and the
held-out counts are binomial, so each Clopper--Pearson bound fails with
probability at most ``beta``, and a union bound over the ``2 m`` bounds gives
the rest (a conditional test is one bound at error ``2 beta``: given the sum
of two independent Poisson counts, the first is binomial). Searching many
events and pairs in step 1 costs nothing, because step 2 never reuses its
samples; stopping step 1 when the projected value is
stable is allowed for the same reason. The false-alarm probability (a
correct claim reported as violated) is therefore at most ``1 - confidence``.

The guarantee assumes the calls of the mechanism are independent draws (a
mechanism that keeps state between calls, e.g. a privacy budget or a cache,
is not covered) and holds for any score family, however poor: a bad event
gives a weak bound, never a wrong one.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting
   Violations of Differential Privacy", ACM CCS 2018.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper:
   Black-Box Discovery of Differential Privacy Violations using Classifiers",
   IEEE S&P 2021.
.. [CP34] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
   limits illustrated in the case of the binomial", Biometrika 26(4), 1934.
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..utils.constraints import (FLAG, MAX_SAMPLES, PRIVACY, PROBABILITY_RESULT, RNG, Callable, Checked, InstanceOf,
                                 Optional, Options, constrained, constrained_fields)
from ..utils.validation import Described, Interval, parameter_error
from ._sampling import Sample, describe_dataset, draw, same_dataset
from .clopper_pearson import lower_unchecked, upper_unchecked
from .events import (HOLDOUT_TESTS, SELECTION_Z, Objective, _OutcomeScore, build_scores, cannot_tell,
                     conditional_bound, projected_conditional, rescore, select_events)
from .pooling import MAX_POOL_PAIRS, choose_pools, pooled_row

__all__ = ["BlackBoxAudit", "PairReport", "audit_black_box", "audit_delta", "check_pairs_argument"]

_OWNER = "audit_black_box"
_EPS = Interval(float, 0, None, closed="left")
_DELTA = Interval(float, 0, 1, closed="left")
_CONF = Interval(float, 0, 1, closed="neither")
_CHUNK = 1 << 20  # largest single call of the mechanism

# Declared constraints shared with refdp.audit.pairs.search_pairs.
MECHANISM = Callable("a callable (dataset, n_samples, rng) -> outputs")
PAIRS = Checked("a non-empty iterable of pairs (D, D') or (D, D', label) of different datasets "
                "(checked by check_pairs_argument)",
                invalid=(None, "abc", [], [(1, 1)], [(1,)], {0: 1}))
CLAIMED_EPSILON = _EPS
CLAIMED_DELTA = _DELTA
#: The epsilon at which a delta is bounded: e**epsilon must be a finite double
#: (beyond 700 no delta bound can be positive anyway).
EPSILON_FOR_DELTA = Interval(float, 0, 700, closed="both")
DELTA_AT_EPSILON = Optional(EPSILON_FOR_DELTA)
CONFIDENCE = _CONF
N_SAMPLES = Interval(int, 4, MAX_SAMPLES)
TOLERANCE = Interval(float, 0, None, closed="left")
HOLDOUT_PAIRS = Interval(int, 1, 1 << 20)
PROGRESS = Options((None, True, False))
CLIENT = Checked("None, a dask.distributed Client or a scheduler address (checked by check_client)",
                 invalid=(1.5, object()))
MAX_SELECTION = Optional(Interval(int, 2, MAX_SAMPLES))
POOL_PAIRS = Interval(int, 1, MAX_POOL_PAIRS)
_MIN_SELECTION = 32  # the selection draws at least 1/32 of the budget before it may stop
#: A second event tested at the held-out stage holds at most this share of the
#: chosen event's tune outputs (a rarer event: the guard leans to larger ones).
RARER = 0.75
#: Default held-out outputs per dataset in one shard (one stream, one task on a cluster).
SHARD_SIZE = 1 << 20


@constrained_fields(index=Interval(int, 0, None), unchecked="what the audit recorded for the pair")
@dataclass
class PairReport:
    """What the audit did on one candidate pair.

    Attributes
    ----------
    index : int
        Position of the pair in the list searched.
    label : str
        The pair's label (given, or ``"pair #i"``).
    datasets : tuple
        ``(D, D')`` as given.
    selection_samples : int
        Outputs drawn per dataset for the selection (fit + tune).
    provisional : dict
        Objective kind -> projected held-out value of the chosen event, from
        the tune samples.
    events : dict
        Objective kind -> description of the chosen event.
    directions : dict
        Objective kind -> 0 if the event bounds ``P[M(D) in E] / P[M(D') in E]``,
        1 for the reverse ratio.
    held_out : dict
        Objective kind -> held-out result (only for pairs that were held out):
        ``{"k": k, "n": n, "k_other": k', "n_other": n', "p_lower": ...,
        "p_upper": ..., "bound": ...}``; when more than one event was tested
        on the pair (see ``alternates``), the row of the largest bound, with
        ``"events_tested"`` and the other events' rows in ``"other_events"``.
    alternates : dict
        Objective kind -> descriptions of the rarer events tested at the
        held-out stage beside the chosen one (at most two), because the
        selection outputs could not tell them from it (see
        :func:`audit_black_box`). Every tested event counts in the
        Bonferroni correction.
    """

    index: int
    label: str
    datasets: tuple
    selection_samples: int = 0
    provisional: dict = field(default_factory=dict)
    events: dict = field(default_factory=dict)
    directions: dict = field(default_factory=dict)
    held_out: dict = field(default_factory=dict)
    alternates: dict = field(default_factory=dict)


@constrained_fields(
    epsilon_lower=PRIVACY, claimed_epsilon=PRIVACY, claimed_delta=PROBABILITY_RESULT,
    confidence=PROBABILITY_RESULT, p_lower=PROBABILITY_RESULT, p_upper=PROBABILITY_RESULT,
    delta_at_epsilon=Optional(PRIVACY), delta_lower=Optional(PROBABILITY_RESULT), beta=PROBABILITY_RESULT,
    delta_detail=InstanceOf((dict,), "a dict (the pair, event and counts of delta_lower)"),
    unchecked="what the audit recorded",
)
@dataclass
class BlackBoxAudit:
    """Result of :func:`audit_black_box`.

    Attributes
    ----------
    epsilon_lower : float
        Lower bound on the mechanism's epsilon (at the claimed delta), valid
        with probability at least ``confidence``; 0 when no evidence.
    claimed_epsilon, claimed_delta, confidence : float
    violation : bool
        ``epsilon_lower > claimed_epsilon`` (or, if requested,
        ``delta_lower > claimed_delta`` at ``delta_at_epsilon``).
    pair : tuple or None
        ``(D, D')`` ordered so that the event is likelier under ``D``.
    reversed : bool
        True when that order is the reverse of the pair as given.
    pair_label, event : str
        The held-out pair attaining ``epsilon_lower`` and its event.
    counts : tuple
        ``(k, n, k', n')``: held-out outputs of ``M(D)`` and of ``M(D')`` in the event.
    p_lower, p_upper : float
        Clopper--Pearson bounds on ``P[M(D) in E]`` (below) and ``P[M(D') in E]`` (above).
    delta_at_epsilon, delta_lower : float or None
        The requested delta bound, with its pair, event and counts in
        ``delta_detail``.
    tests : int
        Held-out tests ``m``; each bound has error ``beta = (1 - confidence) / (2 m)``.
    beta : float
    pairs_searched : int
    samples : int
        Outputs drawn in all (both datasets, every pair, selection and held-out).
    seconds : float
    pairs : list of PairReport
    holdout_test : str
        The test of ``epsilon_lower``: ``"binomial"`` (``ln(p_lower /
        p_upper)``, two bounds at error ``beta``) or ``"conditional"`` (one
        bound at error ``2 beta`` on ``P[M(D) in E] / (P[M(D) in E] +
        P[M(D') in E])`` from the counts of Poisson-sized held-out samples;
        ``p_lower`` and ``p_upper`` are then shown for information).
    pooled : tuple of dict
        Empty unless ``epsilon_lower`` comes from a pooled test
        (``pool_pairs > 1``): then one entry per pair of the pool, with its
        ``pair_label``, ``pair`` ``(D, D')`` in the order of the ratio,
        ``event`` and held-out counts ``k`` of ``n`` and ``k_other`` of
        ``n_other``. ``counts`` are the sums, ``pair`` is the first member's,
        ``pair_label`` joins the members' labels; ``p_lower`` and
        ``p_upper`` bound the pooled frequencies (for information).
    """

    epsilon_lower: float
    claimed_epsilon: float
    claimed_delta: float
    confidence: float
    violation: bool
    pair: tuple | None
    reversed: bool
    pair_label: str
    event: str
    counts: tuple
    p_lower: float
    p_upper: float
    delta_at_epsilon: float | None
    delta_lower: float | None
    delta_detail: dict
    tests: int
    beta: float
    pairs_searched: int
    samples: int
    seconds: float
    pairs: list
    holdout_test: str = "binomial"
    pooled: tuple = ()

    @property
    def passed(self) -> bool:
        """True when no violation was found; ``bool(audit)`` is the same.

        Passing a black-box audit is evidence, not a proof of privacy.
        """
        return not self.violation

    def __bool__(self) -> bool:
        return self.passed

    @property
    def false_alarm_probability(self) -> float:
        """Upper bound on the probability of reporting a violation of a true claim."""
        return 1.0 - self.confidence

    def summary(self) -> str:
        """A few lines for people: the bound, the evidence, the guarantee."""
        head = (f"epsilon >= {self.epsilon_lower:.4g} at confidence {self.confidence:g} "
                f"(claimed epsilon = {self.claimed_epsilon:g}"
                + (f", delta = {self.claimed_delta:g}" if self.claimed_delta else "") + "): "
                + ("VIOLATION" if self.violation else "no violation found"))
        lines = [head]
        if self.pair is not None:
            k, n, k2, n2 = self.counts
            turned = " (taken in reverse)" if self.reversed else ""
            lines.append(f"  pair {self.pair_label}{turned}: D = {describe_dataset(self.pair[0])}, "
                         f"D' = {describe_dataset(self.pair[1])}")
            lines.append(f"  event: {self.event}")
            lines.append(f"  held out: {k}/{n} outputs of M(D) and {k2}/{n2} of M(D') in the event; "
                         f"P[M(D) in E] >= {self.p_lower:.6g}, P[M(D') in E] <= {self.p_upper:.6g}")
            for m in self.pooled:
                lines.append(f"    pooled: pair {m['pair_label']}: {m['k']}/{m['n']} of M(D) and "
                             f"{m['k_other']}/{m['n_other']} of M(D') in the event ({m['event']})")
            if self.holdout_test == "conditional":
                lines.append("  bound from the conditional test: held-out sizes Poisson, "
                             f"P[M(D) in E] / (P[M(D) in E] + P[M(D') in E]) bounded at error {2 * self.beta:.3g}")
            label = self.pooled[0]["pair_label"] if self.pooled else self.pair_label
            row = next((p.held_out.get("epsilon", {}) for p in self.pairs if p.label == label and p.held_out), {})
            tried = row.get("events_tested", 1)
            if "members" in row:
                lines.append(("  one conditional test on the counts summed over "
                              f"{len(self.pooled)} pairs; " if self.pooled else "  ")
                             + f"{tried} pool(s) of events of up to {row.get('pool_pairs')} pairs tested "
                             "(the best on the selection outputs and those it could not tell from it), "
                             "each counts in the correction")
            elif tried > 1:
                lines.append(f"  {tried} events tested on this pair (the selection could not tell them apart); "
                             "the largest bound is reported, each counts in the correction")
        if self.delta_at_epsilon is not None:
            lines.append(f"  delta >= {self.delta_lower:.4g} at epsilon = {self.delta_at_epsilon:g}"
                         + (f" (pair {self.delta_detail.get('pair_label')}, event: "
                            f"{self.delta_detail.get('event')})" if self.delta_detail else ""))
        lines.append(f"  {self.pairs_searched} pair(s) searched, {self.tests} held-out test(s), "
                     f"each bound at error {self.beta:.3g} (Bonferroni); {self.samples} outputs drawn "
                     f"in {self.seconds:.3g} s")
        lines.append(f"  false-alarm probability <= {self.false_alarm_probability:.3g}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        """JSON-ready summary: datasets as JSON values (arrays as lists), with their text in ``pair_text``."""
        return {
            "epsilon_lower": self.epsilon_lower,
            "claimed_epsilon": self.claimed_epsilon,
            "claimed_delta": self.claimed_delta,
            "confidence": self.confidence,
            "false_alarm_probability": self.false_alarm_probability,
            "violation": self.violation,
            "pair": None if self.pair is None else [_json_dataset(d) for d in self.pair],
            "pair_text": None if self.pair is None else [describe_dataset(d) for d in self.pair],
            "reversed": self.reversed,
            "pair_label": self.pair_label,
            "event": self.event,
            "counts": list(self.counts),
            "p_lower": self.p_lower,
            "p_upper": self.p_upper,
            "delta_at_epsilon": self.delta_at_epsilon,
            "delta_lower": self.delta_lower,
            "delta_detail": self.delta_detail,
            "tests": self.tests,
            "beta": self.beta,
            "pairs_searched": self.pairs_searched,
            "holdout_test": self.holdout_test,
            "pooled": [dict(m, pair=[_json_dataset(d) for d in m["pair"]]) for m in self.pooled],
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "pairs": [{"label": p.label, "selection_samples": p.selection_samples,
                       "provisional": p.provisional, "events": p.events,
                       "held_out": p.held_out, "alternates": p.alternates} for p in self.pairs],
        }

    def __str__(self) -> str:
        return self.summary()


def _json_dataset(d):
    """A dataset as a JSON value: arrays and tuples as lists, NumPy scalars as numbers, else its text."""
    if isinstance(d, np.ndarray):
        return d.tolist()
    if isinstance(d, np.generic):
        return d.item()
    if isinstance(d, (list, tuple)):
        return [_json_dataset(v) for v in d]
    if d is None or isinstance(d, (bool, int, float, str)):
        return d
    return repr(d)


def check_pairs_argument(pairs, owner):
    """Validate candidate pairs: a non-empty iterable of ``(D, D')`` or ``(D, D', label)``.

    Returns a list of ``(D, D', label)``; identical datasets in a pair are an error.
    """
    if pairs is None or isinstance(pairs, (str, bytes, Mapping)) or not hasattr(pairs, "__iter__") \
            or (isinstance(pairs, np.ndarray) and pairs.ndim == 0):
        raise parameter_error("pairs", owner, "an iterable of pairs (D, D') or (D, D', label)", pairs)
    out = []
    for i, item in enumerate(pairs):
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) not in (2, 3):
            raise parameter_error("pairs", owner, "an iterable of pairs (D, D') or (D, D', label)",
                                  Described(f"{item!r:.80} at position {i}"))
        d, e = item[0], item[1]
        label = str(item[2]) if len(item) == 3 else f"#{i}"
        if same_dataset(d, e):
            raise parameter_error("pairs", owner, "pairs of two different datasets",
                                  Described(f"the same dataset {describe_dataset(d)} twice in "
                                            f"{label} (position {i})"))
        out.append((d, e, label))
    if not out:
        raise parameter_error("pairs", owner, "a non-empty iterable of pairs", Described("no pair"))
    return out


class _Progress:
    def __init__(self, mode):
        self.mode, self.t0 = mode, time.perf_counter()

    def __call__(self, text):
        if self.mode is True or (self.mode is None and time.perf_counter() - self.t0 > 5.0):
            print(f"[audit {time.perf_counter() - self.t0:7.1f}s] {text}", file=sys.stderr, flush=True)


def _chunk(layout):
    """Outputs per call of the mechanism: about 2**21 numbers, at most 2**20 outputs."""
    width = int(np.prod(layout[1])) if layout is not None and layout[0] else 1
    return int(max(1 << 12, min(_CHUNK, (1 << 21) // max(width, 1))))


def _draw_many(mechanism, dataset, n, rng, layout):
    parts = []
    chunk = _chunk(layout)
    while n > 0:
        m = min(n, chunk)
        s, layout = draw(mechanism, dataset, m, rng, _OWNER, layout)
        parts.append(s)
        n -= m
    return Sample.concat(parts), layout


def _select(mechanism, d, e, rng, objectives, beta, n_budget, n_max, n0, tolerance, float_bits, report,
            progress, test="binomial", alternates=None, floor=None):
    """Step 1 on one pair: the best candidate per objective and the selection size.

    Batches double the selection samples; after each, every candidate is
    scored by the bound it would get from the ``n_budget - total`` held-out
    outputs that would remain if the selection stopped now. The selection
    stops when the event chosen after a doubling beats the one chosen before
    it, both scored on the new tune samples, by at most ``tolerance`` times
    the projected bound (once at least ``n_budget / 32`` outputs
    were drawn: on smaller samples a weak signal hides under the noise and
    two batches without progress prove little), or when ``n_max`` outputs
    were drawn.

    With a list ``alternates``, it receives one list per objective: the
    rarer events the final tune samples cannot tell from the chosen one
    (:func:`_alternate`; at most two). With ``floor`` (one value per
    objective), they are looked for only when some objective's projected
    value reaches its floor (below it the pair cannot be held out); else
    the lists are empty.
    """
    n_min = min(n_max, n_budget // _MIN_SELECTION)
    fit, tune = [[], []], [[], []]
    layout, shape = None, ()
    total, best = 0, None
    batch = n0
    while True:
        for side, data in enumerate((d, e)):
            s, layout = _draw_many(mechanism, data, batch, rng, layout)
            half = batch // 2
            fit[side].append(s.take(slice(0, half)))
            tune[side].append(s.take(slice(half, batch)))
        shape = layout[1]
        total += batch
        fa, fb = Sample.concat(fit[0]), Sample.concat(fit[1])
        ta, tb = Sample.concat(tune[0]), Sample.concat(tune[1])
        fit = [[fa], [fb]]
        tune = [[ta], [tb]]
        scores = build_scores(fa, fb, shape, float_bits=float_bits, rng=rng)
        n_project = max(1, n_budget - total)
        previous = best
        # "auto" selects and stops exactly as "binomial" does, then picks the test below
        best = select_events(scores, ta, tb, objectives, beta, n_project=n_project,
                             test="binomial" if test == "auto" else test)
        values = tuple(-math.inf if c is None else c.value for c in best)
        shown = ", ".join(f"{o.kind} {v:.4g}" for o, v in zip(objectives, values))
        progress(f"{report.label}: {total} outputs per dataset drawn for selection; projected {shown}")
        if total >= n_max:
            break
        if tolerance > 0 and total >= n_min and previous is not None:
            # the event chosen before this doubling, scored on the same tune samples
            before = tuple(-math.inf if c is None else rescore(c, ta, tb, beta, n_project) for c in previous)
            if all(_converged(v0, v1, tolerance) for v0, v1 in zip(before, values)):
                break
        batch = min(total, n_max - total)  # doubling
    n_project = max(1, n_budget - total)
    chosen = best
    if test == "auto":
        best = [None if c is None else _prefer_conditional(c, beta, n_project) for c in best]
    # the values the pairs are ranked by (after the choice of test)
    wanted = floor is None or any(c is not None and c.value >= f for c, f in zip(best, floor))
    if alternates is not None and not wanted:
        alternates.extend([] for _ in objectives)
    elif alternates is not None:
        alternates.extend(_alternate(scores, fa, fb, ta, tb, objectives, beta, n_project, test, chosen))
        if test == "auto":
            alternates[:] = [[_prefer_conditional(c, beta, n_project) for c in group] for group in alternates]
    report.selection_samples = total
    for o, c in zip(objectives, best):
        report.provisional[o.kind] = None if c is None else c.value
        report.events[o.kind] = None if c is None else c.description
        report.directions[o.kind] = None if c is None else c.numerator
    return best, total, layout


def _alternate(scores, fa, fb, ta, tb, objectives, beta, n_project, test, best):
    """Per objective, up to two rarer events that may beat the chosen one at the held-out stage.

    The selection's guard moves every tune frequency
    :data:`refdp.audit.events.SELECTION_Z` standard errors against the event
    it scores; that costs a rare event of large ratio more than a larger
    event of smaller ratio, so on small tune samples the choice leans to the
    larger event (``tests/audit/test_selection_guard.py``). The candidates
    here are the best event at half the guard among those holding at most
    :data:`RARER` times the tune outputs of the chosen event ``c``, and the
    best such event of a size at least 5% away from the first one's (two
    rare outcomes of close ratios can swap places on the tune samples). A
    candidate ``a`` is kept when the tune samples cannot tell it from
    ``c``: when its projected value without guard, ``v0(a)``, is within one
    standard error of the difference of ``c``'s, ``v0(c) - v0(a) <
    sqrt(s(a)**2 + s(c)**2)``, where ``s(x) = v0(x) - v1(x)`` is what one
    standard error of the guard costs ``x`` (``v1``: the value at one
    standard error; the two estimates are treated as independent, which can
    only make the answer "cannot tell" more frequent). The held-out stage
    tests ``c`` and every kept candidate, each counting in the Bonferroni
    correction, and reports the largest bound. Everything here reads
    selection outputs only.

    Returns
    -------
    list
        Per objective, a (possibly empty) list of candidates.
    """
    cap = [None if c is None else int(RARER * (c.tune_counts[0] + c.tune_counts[2])) for c in best]
    if any(isinstance(sc, _OutcomeScore) for sc in scores):
        # the outcomes ranked on every selection output as well: on few outcomes of close ratios
        # the fit half alone can rank the best outcome below the next, and then no event of its
        # outcome score holds the best one without the other
        scores = scores + [_OutcomeScore(Sample.concat([fa, ta]), Sample.concat([fb, tb]))]
    mode = "binomial" if test == "auto" else test
    first = select_events(scores, ta, tb, objectives, beta, n_project=n_project, test=mode,
                          z_sel=SELECTION_Z / 2, below=cap)
    taken = [None if a is None else a.tune_counts[0] + a.tune_counts[2] for a in first]
    second = select_events(scores, ta, tb, objectives, beta, n_project=n_project, test=mode,
                           z_sel=SELECTION_Z / 2, below=cap, avoid=taken)
    out = []
    for c, group in zip(best, zip(first, second)):
        kept = []
        if c is not None:
            c0, c1 = (rescore(c, ta, tb, beta, n_project, z_sel=z) for z in (0.0, 1.0))
            for a in group:
                if a is None or not (math.isfinite(c0) and math.isfinite(c1)):
                    continue
                a0, a1 = (rescore(a, ta, tb, beta, n_project, z_sel=z) for z in (0.0, 1.0))
                if cannot_tell(c0, c1, a0, a1):
                    # its value at the full guard, as every candidate's (the "auto" test compares it)
                    kept.append(dataclasses.replace(a, value=rescore(a, ta, tb, beta, n_project)))
        out.append(kept)
    return out


def _held_out_row(c, counts, n_hold, overflow, beta, objective):
    """The held-out result of one tested candidate from its counts ``(in M(D) outputs, in M(D') outputs)``."""
    ka, kb = counts
    k_num, k_den = (ka, kb) if c.numerator == 0 else (kb, ka)
    n_num, n_den = n_hold if c.numerator == 0 else n_hold[::-1]
    lo = float(lower_unchecked(k_num, n_num, beta))
    hi = float(upper_unchecked(k_den, n_den, beta))
    test = "conditional" if c.test == "conditional" and overflow is not None else "binomial"
    if test == "conditional":
        # one bound at error 2 beta on p / (p + p'); a size past the budget reports nothing
        raw = -math.inf if overflow else float(conditional_bound(k_num, k_den, 2 * beta))
    else:
        raw = float(objective.value(lo, hi))
    bound = max(0.0, raw) if math.isfinite(raw) else 0.0
    return {"k": k_num, "n": n_num, "k_other": k_den, "n_other": n_den,
            "p_lower": lo, "p_upper": hi, "bound": bound, "event": c.description,
            "direction": c.numerator, "test": test}


def _prefer_conditional(candidate, beta, n_project):
    """The candidate with the conditional test when its projected bound beats the binomial one.

    Decided on the candidate's tune counts only (the projection of
    :func:`refdp.audit.events.select_events`), so the held-out guarantee is
    unchanged; the delta bound and a claimed delta above 0 stay binomial.
    """
    obj = candidate.objective
    if obj.kind != "epsilon" or obj.param != 0 or not 2 * beta < 1:
        return candidate
    k, n, k2, n2 = candidate.tune_counts
    value = float(projected_conditional(k, n, k2, n2, n_project, beta))
    if value > candidate.value:
        return dataclasses.replace(candidate, test="conditional", value=value)
    return candidate


def _converged(before, after, tolerance):
    """True when a doubling of the selection improved the projected bound by at most ``tolerance`` of it."""
    if not math.isfinite(after):
        return not math.isfinite(before) or after < 0  # nothing found twice; an infinite bound stays
    if not math.isfinite(before):
        return False
    return after - before <= tolerance * max(abs(after), 1e-3)


def held_out_entropy(rng):
    """128 bits from the audit's generator: the root of every held-out shard's stream."""
    return tuple(int(x) for x in rng.integers(0, 2**32, size=4, dtype=np.uint64))


def stream_kind(rng):
    """The bit generator type of the held-out streams.

    The audit generator's own type when it can be seeded from a
    :class:`numpy.random.SeedSequence` (every NumPy bit generator,
    randomgen's ChaCha and AESCounter), else PCG64.
    """
    kind = type(rng.bit_generator)
    try:
        kind(np.random.SeedSequence(0))
    except (TypeError, ValueError):
        return np.random.PCG64
    return kind


def shard_generator(kind, entropy, key):
    """The generator of one held-out shard: ``kind(SeedSequence(entropy, spawn_key=key))``.

    ``key = (pair index, side, shard index)``: the stream depends on the
    seed, the pair, the side and the shard only, never on where the shard
    runs.
    """
    seq = np.random.SeedSequence(list(entropy), spawn_key=tuple(int(k) for k in key))
    return np.random.Generator(kind(seq))


def poisson_sizes(kind, entropy, pair, rest):
    """Poisson held-out sizes ``(N, N')`` of one pair for the conditional test, or None if ``rest`` is too small.

    Both are drawn with mean ``rest - ceil(8 sqrt(rest))`` from the stream
    ``SeedSequence(entropy, spawn_key=(pair, 2, 0))`` (side 2: neither
    dataset's shards), independent of every output. A size above ``rest``
    (probability below ``1e-13`` each) is returned as drawn: the caller
    reports no bound then.
    """
    lam = rest - math.ceil(8 * math.sqrt(rest))
    if lam < 1:
        return None
    g = shard_generator(kind, entropy, (pair, 2, 0))
    return tuple(int(x) for x in g.poisson(lam, size=2))


def held_out_shards(pairs_to_hold, n_hold, shard_size):
    """The shard list of the held-out stage: ``(pair, side, shard, outputs)`` in a fixed order.

    ``pairs_to_hold`` are pair indices (increasing), ``n_hold`` maps each to
    its held-out outputs per dataset (an int, or ``(n, n')`` when the two
    sides differ: Poisson-sized held-out samples). Shard ``j`` of a side holds outputs
    ``[j * shard_size, min((j + 1) * shard_size, n))``; the list depends on
    the budget and ``shard_size`` only.
    """
    items = []
    for p in pairs_to_hold:
        sizes = n_hold[p] if isinstance(n_hold[p], tuple) else (n_hold[p], n_hold[p])
        for side in (0, 1):
            n = sizes[side]
            for j in range(-(-n // shard_size)):
                items.append((p, side, j, min(shard_size, n - j * shard_size)))
    return items


class HeldOutTask:
    """Count one held-out shard's outputs in the chosen events (picklable: runs on a worker).

    Holds the mechanism, the datasets, the events and the output layout of
    each held-out pair, the bit generator type and the entropy of the
    streams. Called on ``(pair, side, shard, n)``, it
    draws ``n`` outputs of that side's dataset from the shard's own stream
    (:func:`shard_generator`) in calls of at most the audit's chunk size and
    returns the number in each event: only these counts leave the worker.
    """

    def __init__(self, mechanism, kind, entropy, plan):
        self.mechanism = mechanism
        self.kind = kind
        self.entropy = entropy
        self.plan = plan  # pair index -> (D, D', events, layout)

    def __call__(self, item):
        p, side, j, n = item
        d, e, events, layout = self.plan[p]
        data = (d, e)[side]
        rng = shard_generator(self.kind, self.entropy, (p, side, j))
        counts = [0] * len(events)
        chunk = _chunk(layout)
        left = n
        while left > 0:
            m = min(left, chunk)
            s, layout = draw(self.mechanism, data, m, rng, _OWNER, layout, copy=False)
            for i, ev in enumerate(events):
                counts[i] += int(np.count_nonzero(ev.contains(s)))
            left -= m
        return counts


def _held_out(task, items, client, say):
    """Step 2: event counts of every shard, locally in order or on the cluster (same numbers)."""
    total = sum(it[3] for it in items)
    if client is not None:
        from ..distributed import map_ordered

        return map_ordered(client, task, items, label="audit: held-out shards", progress=say.mode is not False,
                           amounts=[it[3] for it in items], unit="outputs")
    out, done = [], 0
    t0 = last = time.perf_counter()
    for i, it in enumerate(items):
        out.append(task(it))
        done += it[3]
        now = time.perf_counter()
        if now - last >= 1.0 or i + 1 == len(items):   # at most about once a second
            last = now
            say(f"held out: shard {i + 1}/{len(items)} done, {done}/{total} outputs, "
                f"{done / max(now - t0, 1e-9):.3g} outputs/s")
    return out


@constrained(
    mechanism=MECHANISM, pairs=PAIRS, claimed_epsilon=CLAIMED_EPSILON, claimed_delta=CLAIMED_DELTA,
    delta_at_epsilon=DELTA_AT_EPSILON, confidence=CONFIDENCE, n_samples=N_SAMPLES,
    initial_samples=Interval(int, 2, MAX_SAMPLES), tolerance=TOLERANCE, holdout_pairs=HOLDOUT_PAIRS,
    float_bits=FLAG, epsilon_bound=FLAG, rng=RNG, progress=PROGRESS, client=CLIENT,
    shard_size=Interval(int, 1, MAX_SAMPLES), max_selection=MAX_SELECTION, holdout_test=Options(HOLDOUT_TESTS),
    pool_pairs=POOL_PAIRS,
)
def audit_black_box(mechanism, pairs, claimed_epsilon, *, claimed_delta=0.0, delta_at_epsilon=None,
                    confidence=0.95, n_samples=1_000_000, initial_samples=20_000, tolerance=0.01,
                    holdout_pairs=1, float_bits=False, epsilon_bound=True, rng=None, progress=None,
                    client=None, shard_size=SHARD_SIZE, max_selection=None, holdout_test="binomial",
                    pool_pairs=1):
    """Lower-bound the epsilon of a black-box mechanism at a stated confidence.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, n_samples, rng)`` returns ``n_samples`` outputs:
        an array whose first dimension is ``n_samples`` (scalars, vectors or
        arrays of numbers) or a sequence of hashable values. A per-call
        mechanism ``(dataset, rng) -> output`` is accepted after
        :func:`refdp.audit.vectorise`. ``rng`` is a
        :class:`numpy.random.Generator`; a mechanism may ignore it (the audit
        is then not reproducible).
    pairs : iterable
        Candidate neighbouring pairs ``(D, D')`` or ``(D, D', label)`` (a
        generator is consumed first). Every pair is searched; only the
        ``holdout_pairs`` held out count in the Bonferroni correction.
    claimed_epsilon : float >= 0
    claimed_delta : float in [0, 1), default 0
        The epsilon bound is on the smallest epsilon with ``(epsilon,
        claimed_delta)``-DP.
    delta_at_epsilon : float in [0, 700], optional
        Also report a lower bound on the delta the mechanism needs at this
        epsilon (an event chosen for that objective, one more test per
        held-out pair). It counts as a violation when it exceeds
        ``claimed_delta`` and ``delta_at_epsilon >= claimed_epsilon``.
    confidence : float in (0, 1), default 0.95
        Probability that every reported bound holds; ``1 - confidence``
        bounds the false-alarm probability.
    n_samples : int >= 4, default 1_000_000
        Outputs drawn per dataset of each pair: the selection at most half,
        the held-out stage the rest (for the held-out pairs).
    initial_samples : int >= 2, default 20_000
        Outputs per dataset in the first selection batch.
    tolerance : float >= 0, default 0.01
        Selection stops once a doubling of its samples finds an event better
        by at most this fraction of the projected bound (and at least 1/32
        of the budget was drawn); 0 never stops early (the selection uses
        half the budget).
    holdout_pairs : int in [1, 2**20], default 1
        How many pairs (best provisional values first) get held-out bounds.
        The Bonferroni correction counts every event tested on them: one per
        pair and objective, plus each rarer event the selection outputs
        could not tell from the chosen one (at most two more; named in
        ``PairReport.alternates``), whose bound is reported when it is the
        larger.
    float_bits : bool, default False
        Also search events on the sign, exponent and last mantissa bits of
        float outputs (Mironov's floating-point attack).
    epsilon_bound : bool, default True
        False: only the delta bound at ``delta_at_epsilon`` is computed (one
        held-out test per pair instead of two); see :func:`audit_delta`.
    rng : None, int, SeedSequence, BitGenerator or Generator
        Normalised with :func:`numpy.random.default_rng` and passed to the
        mechanism.
    progress : bool or None, default None
        Progress lines on stderr: always (True), never (False), or once the
        audit has run for 5 seconds (None).
    client : distributed.Client, optional
        Draw the held-out outputs on a Dask cluster (:mod:`refdp.distributed`,
        extra ``refdp[distributed]``): one task per shard, only the event
        counts come back. The result is identical to the local run
        (``client=None``) for the same seed, budget and ``shard_size``,
        whatever the number of workers. The mechanism must pickle.
    shard_size : int >= 1, default 2**20
        Held-out outputs per dataset in one shard. Shard ``j`` of a side of
        pair ``p`` draws from its own stream,
        ``SeedSequence(root, spawn_key=(p, side, j))`` with ``root`` 128
        bits drawn from ``rng`` after the selection; so the bound depends
        on the seed, the budget and ``shard_size``, not on where or in
        which order the shards run. The selection (step 1) always runs
        in this process, from ``rng``.
    max_selection : int >= 2, optional
        Most outputs per dataset drawn for the selection (default, and at
        most, ``n_samples // 2``); when it is below ``n_samples / 32`` the
        selection draws exactly this many (its early stop needs
        ``n_samples / 32``). For budgets far beyond
        what one process holds in memory (the selection keeps its outputs),
        e.g. ``n_samples = 10**10`` on a cluster with ``max_selection =
        10**7``: the held-out stage gets the rest of the budget. The
        guarantee does not depend on it (the held-out outputs are fresh).
    holdout_test : {"binomial", "conditional", "auto"}, default "binomial"
        How the epsilon bound (at ``claimed_delta = 0``) is certified.
        ``"binomial"``: ``ln(p_lower / p_upper)``, two Clopper--Pearson
        bounds at error ``beta`` each. ``"conditional"``: the held-out sizes
        of the pair are drawn Poisson with mean ``r - ceil(8 sqrt(r))`` (``r``
        the rest of the budget; a size above ``r``, probability below
        ``1e-13``, makes the bound 0), so that the two counts in the event
        are independent Poisson variables and, given their sum, the first is
        binomial with success probability ``p / (p + p')``; one
        Clopper--Pearson bound on it at error ``2 beta``
        (:func:`refdp.audit.events.conditional_bound`) bounds ``ln(p / p')``.
        Its error shrinks with the two counts' variances added before the
        quantile is taken, so it is tighter when the event is rare;
        ``"auto"`` selects and stops exactly as ``"binomial"`` does, then
        takes the conditional test for the chosen event when its projected
        bound is larger (a choice made on selection outputs only, so the
        guarantee is unchanged). The delta bound and an epsilon bound
        at ``claimed_delta > 0`` always use the binomial test.
    pool_pairs : int in [1, 4], default 1
        Above 1 (only with ``holdout_test`` ``"conditional"`` or ``"auto"``,
        ``claimed_delta = 0`` and the epsilon bound asked for): the events
        of the ``pool_pairs`` pairs with the best projected epsilon values
        (each pair's chosen event and rarer alternatives) may be pooled,
        one event per pair, into one conditional test on the summed counts
        (:mod:`refdp.audit.pooling`: valid because, given each pair's total,
        the summed count is a sum of binomials each of success probability
        at most ``e^eps / (1 + e^eps)``). The best combination on the
        selection outputs is tested, with up to two the selection cannot
        tell from it; each counts in the Bonferroni correction and replaces
        the per-pair epsilon tests, and every pool's pairs draw the rest of
        their budget (Poisson sizes). A mechanism that violates its claim
        by about as much on several pairs gets a bound from several times
        the outputs of one pair; the epsilon bound then always uses the
        conditional test. ``BlackBoxAudit.pooled`` lists the members.

    Returns
    -------
    BlackBoxAudit

    Raises
    ------
    ValueError
        For bad parameters, a pair of identical datasets, no pair, or a
        mechanism that raises, returns the wrong number of outputs, NaN or
        infinite values, or outputs of different kinds or shapes between
        calls (the message names the dataset and the problem).

    Examples
    --------
    Randomised response on one bit that claims ``ln 3`` but reports the bit
    with probability 0.9 (true epsilon ``ln 9 = 2.197``):

    >>> import numpy as np
    >>> def rr(bit, n, rng):
    ...     return np.where(rng.random(n) < 0.9, bit, 1 - bit)
    >>> r = audit_black_box(rr, [(0, 1)], claimed_epsilon=np.log(3), n_samples=100_000, rng=1)
    >>> r.violation, round(r.epsilon_lower, 2)
    (True, 2.17)
    """
    owner = _OWNER
    t0 = time.perf_counter()
    plist = check_pairs_argument(pairs, owner)
    if client is not None:
        from ..distributed import check_client, check_picklable

        check_client(client, owner)
        check_picklable(mechanism, "mechanism", owner)
    say = _Progress(progress)

    if not epsilon_bound and delta_at_epsilon is None:
        raise parameter_error("delta_at_epsilon", owner, "a float >= 0 when epsilon_bound is False",
                              delta_at_epsilon)
    pooling = pool_pairs > 1
    if pooling and (holdout_test == "binomial" or claimed_delta != 0 or not epsilon_bound):
        raise parameter_error("pool_pairs", owner, "1 unless holdout_test is 'conditional' or 'auto', "
                              "claimed_delta is 0 and the epsilon bound is asked for", pool_pairs)
    objectives = [Objective("epsilon", claimed_delta)] if epsilon_bound else []
    if delta_at_epsilon is not None:
        objectives.append(Objective("delta", delta_at_epsilon))
    kinds = [o.kind for o in objectives]
    k_hold = min(holdout_pairs, len(plist))
    tests = k_hold * len(objectives)
    alpha = 1.0 - confidence
    beta = alpha / (2 * tests)
    n_max = max(2, n_samples // 2)
    if max_selection is not None:
        n_max = min(n_max, max_selection)
    n0 = min(max(2, initial_samples), n_max)

    reports, candidates, layouts, alternates = [], [], [], []
    drawn = 0
    for i, (d, e, label) in enumerate(plist):
        rep = PairReport(i, label, (d, e))
        alts = []
        # a pair whose values stay below the k_hold-th best so far (the pool_pairs-th when pooling) cannot
        # be held out: no rarer events for it
        k_floor = max(k_hold, pool_pairs)
        floor = [sorted((c[oi].value for c in candidates if c[oi] is not None), reverse=True)[k_floor - 1]
                 if sum(c[oi] is not None for c in candidates) >= k_floor else -math.inf
                 for oi in range(len(objectives))]
        best, used, layout = _select(mechanism, d, e, rng, objectives, beta, n_samples, n_max, n0, tolerance,
                                     bool(float_bits), rep, say, holdout_test, alternates=alts, floor=floor)
        drawn += 2 * used
        reports.append(rep)
        candidates.append(best)
        alternates.append(alts)
        layouts.append(layout)

    # choose the held-out pairs per objective: best provisional values first
    chosen = {}  # pair index -> list of objective indices
    pools = []   # pooling: the pools tested for the epsilon objective (index 0), which they replace
    for oi in range(len(objectives)):
        ranked = sorted(range(len(plist)), key=lambda p: (
            -(candidates[p][oi].value if candidates[p][oi] is not None else -math.inf), p))
        if pooling and oi == 0:
            groups = {p: [candidates[p][0]] + list(alternates[p][0] if alternates[p] else [])
                      for p in ranked[:pool_pairs] if candidates[p][0] is not None}
            room = {p: n_samples - reports[p].selection_samples for p in groups}
            pools = choose_pools(groups, room, alpha / tests)
            tests += max(len(pools), 1) - k_hold  # nothing to test still counts one (harmless)
            continue
        for p in ranked[:k_hold]:
            chosen.setdefault(p, []).append(oi)

    # every event tested at the held-out stage counts in the Bonferroni correction: each rarer
    # event kept by _alternate (on selection outputs only) adds one test
    tested = {}  # (pair, objective index) -> candidates tested there
    for p, objs in sorted(chosen.items()):
        for oi in objs:
            if candidates[p][oi] is not None:
                tested[(p, oi)] = [candidates[p][oi]] + (alternates[p][oi] if oi < len(alternates[p]) else [])
                tests += len(tested[(p, oi)]) - 1
    beta = alpha / (2 * tests)
    for (p, oi), group in tested.items():
        if len(group) > 1:
            reports[p].alternates[objectives[oi].kind] = [c.description for c in group[1:]]

    # the events each pool needs counted on each of its pairs (one pair can serve several pools)
    pooled_on = {}  # pair index -> distinct candidates, in order of first use
    for pool in pools:
        for p, c in pool.members:
            if not any(c is x for x in pooled_on.setdefault(p, [])):
                pooled_on[p].append(c)

    # step 2: every held-out pair's shards, counted locally or on the cluster
    entropy = held_out_entropy(rng)
    plan, n_hold, live_of, overflow = {}, {}, {}, {}
    for p in sorted(set(chosen) | set(pooled_on)):
        live = [oi for oi in chosen.get(p, []) if candidates[p][oi] is not None]
        if not live and p not in pooled_on:
            continue
        d, e, label = plist[p]
        live_of[p] = live
        rest = n_samples - reports[p].selection_samples  # the rest of the budget
        n_hold[p], overflow[p] = (rest, rest), None
        if p in pooled_on or any(c.test == "conditional" for oi in live for c in tested[(p, oi)]):
            sizes = poisson_sizes(stream_kind(rng), entropy, p, rest)
            if sizes is not None:
                n_hold[p], overflow[p] = (min(sizes[0], rest), min(sizes[1], rest)), max(sizes) > rest
            elif p in pooled_on:
                overflow[p] = True  # too small a budget for Poisson sizes: the pools on it report nothing
        events = [c.event for oi in live for c in tested[(p, oi)]] + [c.event for c in pooled_on.get(p, [])]
        plan[p] = (d, e, events, layouts[p])
        if n_hold[p][0] == n_hold[p][1]:
            say(f"{label}: drawing {n_hold[p][0]} fresh outputs per dataset for the held-out bound")
        else:
            say(f"{label}: drawing {n_hold[p][0]} and {n_hold[p][1]} fresh outputs (Poisson sizes) "
                f"for the held-out bound")
    items = held_out_shards(sorted(plan), n_hold, shard_size)
    task = HeldOutTask(mechanism, stream_kind(rng), entropy, plan)
    shard_counts = _held_out(task, items, client, say)
    totals = {p: [[0, 0] for _ in plan[p][2]] for p in plan}
    for (p, side, _, _), counts in zip(items, shard_counts):
        for i, k in enumerate(counts):
            totals[p][i][side] += k

    results = {}  # (pair, objective) -> dict
    pool_counts = {}  # (pair, id of a pooled candidate) -> its counts
    for p in sorted(plan):
        drawn += sum(n_hold[p])
        flat = iter(totals[p])
        for oi in live_of[p]:
            rows = [_held_out_row(c, next(flat), n_hold[p], overflow[p], beta, objectives[oi])
                    for c in tested[(p, oi)]]
            row = max(rows, key=lambda r: r["bound"])  # the larger bound; the first event on ties
            if len(rows) > 1:
                row["events_tested"] = len(rows)
                row["other_events"] = [r for r in rows if r is not row]
            reports[p].held_out[objectives[oi].kind] = row
            results[(p, oi)] = row
        for c in pooled_on.get(p, []):
            pool_counts[(p, id(c))] = tuple(next(flat))
    if pools:
        labels = [label for _, _, label in plist]
        rows = [pooled_row(pool, [pool_counts[(p, id(c))] for p, c in pool.members], n_hold, overflow, beta,
                           labels) for pool in pools]
        row = max(rows, key=lambda r: r["bound"])  # the larger bound; the best projected pool on ties
        row["events_tested"] = len(rows)
        row["other_events"] = [r for r in rows if r is not row]
        row["pool_pairs"] = pool_pairs
        first = row["members"][0]
        for m in row["members"]:
            reports[m["pair"]].held_out["epsilon"] = row
        results[(first["pair"], 0)] = row

    def best_of(kind):
        if kind not in kinds:
            return None, None
        oi = kinds.index(kind)
        rows = [(p, r) for (p, o), r in results.items() if o == oi]
        if not rows:
            return None, None
        return max(rows, key=lambda pr: (pr[1]["bound"], -pr[0]))

    p_eps, row_eps = best_of("epsilon")
    pooled = ()
    if row_eps is None:
        eps_lower, pair, label, counts, lo, hi = 0.0, None, "", (0, 0, 0, 0), 0.0, 1.0
        event = "no event found" if epsilon_bound else "no epsilon bound asked for"
        turned, test = False, "binomial"
    else:
        label = plist[p_eps][2]
        turned = row_eps["direction"] == 1
        pair = _oriented(plist[p_eps], row_eps["direction"])
        if len(row_eps.get("members", ())) > 1:
            label = " + ".join(m["pair_label"] for m in row_eps["members"])
            pooled = tuple(dict(m, pair=_oriented(plist[m["pair"]], m["direction"])) for m in row_eps["members"])
        eps_lower, event = row_eps["bound"], row_eps["event"]
        counts = (row_eps["k"], row_eps["n"], row_eps["k_other"], row_eps["n_other"])
        lo, hi, test = row_eps["p_lower"], row_eps["p_upper"], row_eps["test"]
    violation = eps_lower > claimed_epsilon
    delta_lower, delta_detail = None, {}
    if delta_at_epsilon is not None:
        p_del, row_del = best_of("delta")
        delta_lower = 0.0 if row_del is None else row_del["bound"]
        if row_del is not None:
            dd, de, dl = plist[p_del]
            delta_detail = {"pair_label": dl, "event": row_del["event"],
                            "counts": [row_del["k"], row_del["n"], row_del["k_other"], row_del["n_other"]],
                            "p_lower": row_del["p_lower"], "p_upper": row_del["p_upper"],
                            "direction": row_del["direction"]}
        # delta(eps) is non-increasing in eps: a delta bound at eps >= the claimed
        # epsilon exceeding the claimed delta contradicts the claim
        violation = violation or (delta_lower > claimed_delta and delta_at_epsilon >= claimed_epsilon)
    seconds = time.perf_counter() - t0
    say(f"done: epsilon >= {eps_lower:.4g}" + (f", delta >= {delta_lower:.4g}" if delta_lower is not None else ""))
    return BlackBoxAudit(
        epsilon_lower=eps_lower, claimed_epsilon=claimed_epsilon, claimed_delta=claimed_delta,
        confidence=confidence, violation=violation, pair=pair, reversed=turned, pair_label=label, event=event,
        counts=counts, p_lower=lo, p_upper=hi, delta_at_epsilon=delta_at_epsilon,
        delta_lower=delta_lower, delta_detail=delta_detail, tests=tests, beta=beta,
        pairs_searched=len(plist), samples=drawn, seconds=seconds, pairs=reports, holdout_test=test, pooled=pooled)


def _oriented(entry, direction):
    """``(D, D')`` of a pair entry ``(D, D', label)``, in the order of the event's ratio."""
    d, e, _ = entry
    return (e, d) if direction == 1 else (d, e)


@constrained(mechanism=MECHANISM, pairs=PAIRS, claimed_epsilon=EPSILON_FOR_DELTA, claimed_delta=CLAIMED_DELTA)
def audit_delta(mechanism, pairs, claimed_epsilon, claimed_delta, **options):
    """Audit an ``(epsilon, delta)`` claim through a lower bound on delta at the claimed epsilon.

    For an event ``E`` and neighbours ``D, D'``, an ``(epsilon, delta)``-DP
    mechanism satisfies ``delta >= P[M(D) in E] - e^epsilon P[M(D') in E]``
    ([DR14]_ Definition 2.4; the supremum of the right side over events is
    the hockey-stick divergence). The event ``E`` and the direction are
    chosen on selection samples; the report is ``delta_lower = p_lo -
    e^epsilon p'_hi``, with ``p_lo`` the Clopper--Pearson lower bound of the
    held-out frequency under ``D`` and ``p'_hi`` the upper bound under
    ``D'``, each at error ``(1 - confidence) / (2 m)`` for ``m`` held-out
    pairs (a union bound over both bounds of every test). A violation is
    reported when ``delta_lower > claimed_delta``; for a true claim this
    happens with probability at most ``1 - confidence``.

    Parameters
    ----------
    mechanism, pairs :
        As for :func:`audit_black_box`.
    claimed_epsilon : float in [0, 700]
    claimed_delta : float in [0, 1)
    **options
        Any other keyword of :func:`audit_black_box` (``confidence``,
        ``n_samples``, ``tolerance``, ``holdout_pairs``, ``float_bits``,
        ``rng``, ``progress``, ``client``, ``shard_size``, ``max_selection``).

    Returns
    -------
    BlackBoxAudit
        With ``delta_at_epsilon = claimed_epsilon``, ``delta_lower`` and
        ``delta_detail`` filled in, and ``epsilon_lower = 0`` (not computed).

    References
    ----------
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of
       Differential Privacy", Foundations and Trends in TCS 9(3-4), 2014.

    Examples
    --------
    Randomised response (``ln 3``) that leaks the bit with probability 0.05 is
    exactly ``(ln 3, 0.05)``-DP; a claim of ``delta = 0.01`` is refuted:

    >>> import numpy as np
    >>> def leaky(bit, n, rng):
    ...     leak = rng.random(n) < 0.05
    ...     return np.where(leak, 2 + bit, np.where(rng.random(n) < 0.75, bit, 1 - bit))
    >>> r = audit_delta(leaky, [(0, 1)], np.log(3), 0.01, n_samples=200_000, rng=3)
    >>> bool(r.violation), bool(0.01 < r.delta_lower <= 0.05)
    (True, True)
    """
    for name in ("delta_at_epsilon", "epsilon_bound", "claimed_delta"):
        if name in options:
            raise parameter_error(name, "audit_delta", "not given (audit_delta sets it)", options[name])
    return audit_black_box(mechanism, pairs, claimed_epsilon, claimed_delta=claimed_delta,
                           delta_at_epsilon=claimed_epsilon, epsilon_bound=False, **options)
