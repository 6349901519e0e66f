"""Candidate neighbouring pairs of query answers, after StatDP's input patterns.

Mechanisms such as report-noisy-max and the sparse vector technique take a
vector of query answers, each of sensitivity 1, so on neighbouring datasets
every answer may move by at most 1 (all of them at once, each in its own
direction). Ding et al. ([DWWZK18]_, Sec. 5) search such mechanisms on a short
list of patterns around the vector of ones, and DP-Sniper ([BSBV21]_) reuses
the list. :func:`query_answer_pairs` produces the same kind of list for any
length: each pair is labelled, and each is a pair of neighbours under the
stated sensitivity assumption.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting
   Violations of Differential Privacy", ACM CCS 2018.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper:
   Black-Box Discovery of Differential Privacy Violations using Classifiers",
   IEEE S&P 2021.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..utils.constraints import FLAG, RNG, Checked, constrained, constrained_fields
from ..utils.validation import Described, Interval, Options, parameter_error
from .events import HOLDOUT_TESTS
from .blackbox import (CLAIMED_DELTA, CLAIMED_EPSILON, CLIENT, CONFIDENCE, DELTA_AT_EPSILON, HOLDOUT_PAIRS,
                       MAX_SELECTION, MECHANISM, N_SAMPLES, POOL_PAIRS, PROGRESS, TOLERANCE)
from ..utils.validation import POSITIVE

__all__ = ["query_answer_pairs", "pattern_pairs", "search_pairs", "PairSearch", "PATTERNS"]


#: Length of the generated inputs (their arrays are built in memory).
_LENGTH = Interval(int, 1, 1 << 24)
_PATTERNS = Checked("None, a pattern name or a non-empty sequence of names from PATTERNS "
                    "(checked by _check_patterns)", invalid=([], "no such pattern", 1.5, ["x"]))


@constrained(length=_LENGTH, componentwise=FLAG)
def query_answer_pairs(length, *, componentwise=True):
    """Labelled pairs ``(D, D', label)`` of query-answer vectors differing by at most 1 per entry.

    With ``D = (1, ..., 1)`` and ``h = length // 2``, the pairs are

    * ``first lower``: ``D' = (0, 1, ..., 1)``;
    * ``first higher``: ``D' = (2, 1, ..., 1)``;
    * ``first higher, rest lower``: ``D' = (2, 0, ..., 0)`` (componentwise only);
    * ``first lower, rest higher``: ``D' = (0, 2, ..., 2)`` (componentwise only);
    * ``half higher, half lower``: ``D' = (2, ..., 2, 0, ..., 0)`` with ``h``
      twos (componentwise only);
    * ``all higher``: ``D' = (2, ..., 2)`` (componentwise only);
    * ``all lower``: ``D' = (0, ..., 0)`` (componentwise only);
    * ``crossing``: ``D = (1, ..., 1, 0, ..., 0)`` and
      ``D' = (0, ..., 0, 1, ..., 1)``, ``h`` leading entries (componentwise only).

    Parameters
    ----------
    length : int >= 1
        Number of queries.
    componentwise : bool, default True
        True: every answer may change between neighbours (counting queries of
        one record each, as for report-noisy-max and the sparse vector
        technique). False: only one entry changes (a histogram under
        add/remove), which leaves the first two pairs.

    Returns
    -------
    list of (ndarray, ndarray, str)
        Float arrays of shape ``(length,)``; pairs that coincide for small
        ``length`` are listed once.

    Examples
    --------
    >>> [label for _, _, label in query_answer_pairs(5)][:3]
    ['first lower', 'first higher', 'first higher, rest lower']
    >>> d, e, label = query_answer_pairs(4)[-1]
    >>> d.tolist(), e.tolist(), label
    ([1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], 'crossing')
    """
    k, h = length, length // 2
    ones = np.ones(k)

    def vec(head, head_len, rest):
        return np.array([head] * head_len + [rest] * (k - head_len), dtype=np.float64)

    cands = [(ones, vec(0, 1, 1), "first lower"), (ones, vec(2, 1, 1), "first higher")]
    if componentwise:
        cands += [
            (ones, vec(2, 1, 0), "first higher, rest lower"),
            (ones, vec(0, 1, 2), "first lower, rest higher"),
            (ones, vec(2, h, 0), "half higher, half lower"),
            (ones, np.full(k, 2.0), "all higher"),
            (ones, np.zeros(k), "all lower"),
            (vec(1, h, 0), vec(0, h, 1), "crossing"),
        ]
    out, seen = [], set()
    for d, e, label in cands:
        key = (d.tobytes(), e.tobytes())
        if key in seen or np.array_equal(d, e):
            continue
        seen.add(key)
        out.append((d, e, label))
    return out


# ---------------------------------------------------------------------------
# Searching for a violating pair
# ---------------------------------------------------------------------------

#: The input patterns of StatDP ([DWWZK18]_ Sec. 5, reused by DP-Sniper), by
#: name: ``D = (1, ..., 1)`` and ``D'`` as below, except ``x shift``.
PATTERNS = (
    "one below",             # D' = (0, 1, ..., 1)
    "one above",             # D' = (2, 1, ..., 1)
    "one above rest below",  # D' = (2, 0, ..., 0)
    "one below rest above",  # D' = (0, 2, ..., 2)
    "half half",             # D' = (2, ..., 2, 0, ..., 0), dim // 2 twos
    "all above",             # D' = (2, ..., 2)
    "all below",             # D' = (0, ..., 0)
    "x shift",               # D = (1, .., 1, 0, .., 0), D' = (0, .., 0, 1, .., 1)
)


@constrained(dim=_LENGTH, patterns=_PATTERNS)
def pattern_pairs(dim, patterns=None):
    """Labelled pairs ``(D, D', label)`` of length ``dim`` from the named patterns.

    Parameters
    ----------
    dim : int >= 1
        Length of the inputs (number of query answers).
    patterns : sequence of str, optional
        Names from :data:`PATTERNS` (default: all of them). Pairs that
        coincide for small ``dim`` (or with ``D = D'``) are listed once.

    Returns
    -------
    list of (ndarray, ndarray, str)

    Examples
    --------
    >>> [label for _, _, label in pattern_pairs(3, ["one below", "x shift"])]
    ['one below', 'x shift']
    """
    names = _check_patterns(patterns, "pattern_pairs")
    h = dim // 2
    ones = np.ones(dim)

    def vec(head, head_len, rest):
        return np.array([head] * head_len + [rest] * (dim - head_len), dtype=np.float64)

    table = {
        "one below": (ones, vec(0, 1, 1)),
        "one above": (ones, vec(2, 1, 1)),
        "one above rest below": (ones, vec(2, 1, 0)),
        "one below rest above": (ones, vec(0, 1, 2)),
        "half half": (ones, vec(2, h, 0)),
        "all above": (ones, np.full(dim, 2.0)),
        "all below": (ones, np.zeros(dim)),
        "x shift": (vec(1, h, 0), vec(0, h, 1)),
    }
    out, seen = [], set()
    for name in names:
        d, e = table[name]
        key = (d.tobytes(), e.tobytes())
        if key in seen or np.array_equal(d, e):
            continue
        seen.add(key)
        out.append((d, e, name))
    return out


def _check_patterns(patterns, owner):
    if patterns is None:
        return list(PATTERNS)
    if isinstance(patterns, str):
        patterns = [patterns]
    try:
        names = list(patterns)
    except TypeError:
        raise parameter_error("patterns", owner, f"a sequence of names from {list(PATTERNS)}",
                              patterns) from None
    if not all(isinstance(name, str) for name in names):
        raise parameter_error("patterns", owner, f"a sequence of names from {list(PATTERNS)}",
                              patterns)
    if not names:
        raise parameter_error("patterns", owner, f"a non-empty sequence of names from {list(PATTERNS)}",
                              patterns)
    for name in names:
        if name not in PATTERNS:
            raise parameter_error("patterns", owner, f"names from {list(PATTERNS)}",
                                  Described(f"unknown pattern {name!r}"))
    return names


def _local_moves(d, e, sensitivity, limit, rng):
    """Neighbours of the pair ``(D, D')``: one entry of ``D'`` moved to another allowed value."""
    moves = []
    for i in range(len(d)):
        for v in (d[i] - sensitivity, d[i], d[i] + sensitivity):
            if v != e[i]:
                e2 = e.copy()
                e2[i] = v
                if not np.array_equal(d, e2):
                    moves.append((d, e2))
    # shifting both inputs by one keeps the difference and moves where the answers sit
    for s in (-sensitivity, sensitivity):
        moves.append((d + s, e + s))
    if len(moves) > limit:
        keep = np.sort(rng.choice(len(moves), limit, replace=False))
        moves = [moves[i] for i in keep]
    return moves


@constrained_fields(screening_samples=Interval(int, 0, None), unchecked="what the search recorded")
@dataclass
class PairSearch:
    """Result of :func:`search_pairs`.

    Attributes
    ----------
    audit : BlackBoxAudit
        The final audit of the finalists, on outputs drawn after the search.
    screened : list of dict
        Every pair screened: ``label``, ``D``, ``D'``, ``projected`` (the
        held-out bound its best event was projected to reach), ``samples``
        (outputs per dataset the screening drew) and ``stage`` (``pattern``
        or ``local``).
    finalists : list of str
        Labels of the pairs handed to the final audit.
    screening_samples : int
        Outputs drawn by the screening (both datasets, all pairs).
    """

    audit: object
    screened: list
    finalists: list
    screening_samples: int

    @property
    def violation(self) -> bool:
        return self.audit.violation

    @property
    def epsilon_lower(self) -> float:
        return self.audit.epsilon_lower

    def __bool__(self) -> bool:
        return not self.violation

    def summary(self) -> str:
        lines = [self.audit.summary(),
                 f"  pair search: {len(self.screened)} pair(s) screened on {self.screening_samples} outputs "
                 f"not reused by the audit; finalists: {', '.join(self.finalists)}"]
        top = sorted(self.screened, key=lambda r: -r["projected"])[:5]
        for r in top:
            lines.append(f"    {r['label']}: projected epsilon >= {r['projected']:.4g} ({r['stage']})")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        out = self.audit.as_dict()
        out["pair_search"] = {
            "screened": [{"label": r["label"], "D": r["D"].tolist(), "D'": r["D'"].tolist(),
                          "projected": r["projected"], "samples": r["samples"], "stage": r["stage"]}
                         for r in self.screened],
            "finalists": self.finalists, "screening_samples": self.screening_samples}
        return out

    def __str__(self) -> str:
        return self.summary()


@constrained(
    mechanism=MECHANISM, dim=_LENGTH, claimed_epsilon=CLAIMED_EPSILON, patterns=_PATTERNS,
    sensitivity=POSITIVE, local_rounds=Interval(int, 0, 1000),
    local_moves=Interval(int, 1, 1 << 20), screen_samples=N_SAMPLES, finalists=Interval(int, 1, None),
    confidence=CONFIDENCE, n_samples=N_SAMPLES, claimed_delta=CLAIMED_DELTA,
    delta_at_epsilon=DELTA_AT_EPSILON, tolerance=TOLERANCE, holdout_pairs=HOLDOUT_PAIRS, float_bits=FLAG,
    rng=RNG, progress=PROGRESS, client=CLIENT, max_selection=MAX_SELECTION, holdout_test=Options(HOLDOUT_TESTS),
    pool_pairs=POOL_PAIRS,
)
def search_pairs(mechanism, dim, claimed_epsilon, *, patterns=None, sensitivity=1.0, local_rounds=2,
                 local_moves=16, screen_samples=100_000, finalists=3, confidence=0.95, n_samples=1_000_000,
                 claimed_delta=0.0, delta_at_epsilon=None, tolerance=0.01, holdout_pairs=1, float_bits=False,
                 rng=None, progress=None, client=None, max_selection=None, holdout_test="binomial",
                 pool_pairs=1):
    """Search neighbouring inputs for a violation, then audit the best on fresh outputs.

    1. **Patterns.** The pairs of :func:`pattern_pairs` (StatDP's patterns,
       [DWWZK18]_) of length ``dim``.
    2. **Screening.** On each pair the event selection of
       :func:`refdp.audit.audit_black_box` runs on ``screen_samples`` outputs
       per dataset; its best event gives a *projected* bound (what the
       held-out stage of the final audit would certify if the estimates were
       right).
    3. **Local search.** Around the best pair so far, ``local_moves`` pairs
       that move one entry of ``D'`` to another value within ``sensitivity``
       of ``D`` (or shift both inputs by ``sensitivity``) are screened; this
       repeats ``local_rounds`` times, from the best pair found.
    4. **Final audit.** The ``finalists`` best pairs are audited by
       :func:`refdp.audit.audit_black_box` with fresh outputs (its own
       selection, then held-out bounds on ``holdout_pairs`` of them).

    **Multiplicity.** The screening and the local search only choose which
    pairs reach the final audit; the final audit never reuses their outputs,
    so, conditionally on them, its finalists are fixed pairs and its
    guarantee holds as stated: the Bonferroni correction counts the
    ``holdout_pairs`` held-out tests (times the objectives). The
    false-alarm probability is at most ``1 - confidence`` however many pairs
    were screened.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, n_samples, rng)``, datasets being float arrays of
        shape ``(dim,)`` (vectors of query answers).
    dim : int >= 1
    claimed_epsilon : float >= 0
    patterns : sequence of str, optional
        Names from :data:`PATTERNS`; default all.
    sensitivity : float > 0, default 1
        How far one entry may move between neighbours (local search).
    local_rounds : int >= 0, default 2
    local_moves : int >= 1, default 16
        Pairs screened per round of the local search (a random subset when
        there are more).
    screen_samples : int >= 4, default 100_000
        Outputs per dataset and pair for the screening.
    finalists : int >= 1, default 3
    confidence, n_samples, claimed_delta, delta_at_epsilon, tolerance, holdout_pairs, float_bits, progress :
        Passed to the final :func:`refdp.audit.audit_black_box`.
    max_selection : int, optional
        Passed to the final :func:`refdp.audit.audit_black_box`.
    holdout_test : {"binomial", "conditional", "auto"}, default "binomial"
        Passed to the final :func:`refdp.audit.audit_black_box` (the
        screening always projects the binomial test).
    pool_pairs : int in [1, 4], default 1
        Passed to the final :func:`refdp.audit.audit_black_box`: the events
        of up to this many finalists may be pooled into one conditional
        test (with ``holdout_test`` ``"conditional"`` or ``"auto"``).
    rng : None, int, SeedSequence, BitGenerator or Generator
        Seeds the screening, the local search and the final audit.
    client : distributed.Client, optional
        Passed to the final :func:`refdp.audit.audit_black_box`: its held-out
        outputs are drawn on the cluster (same result). The screening runs
        in this process.

    Returns
    -------
    PairSearch

    Examples
    --------
    Report-noisy-max that releases the noisy maximum claims 0.5 but is not
    0.5-DP; the search finds a violating pair without being given one:

    >>> import numpy as np
    >>> def noisy_max_value(a, n, rng):
    ...     return (a + rng.laplace(0.0, 4.0, size=(n, a.size))).max(axis=1)
    >>> r = search_pairs(noisy_max_value, 4, 0.5, n_samples=200_000, screen_samples=40_000,
    ...                  local_rounds=1, rng=1, progress=False)
    >>> bool(r.violation)
    True
    """
    from .blackbox import _Progress, _select, audit_black_box, check_pairs_argument
    from .events import Objective

    owner = "search_pairs"
    names = _check_patterns(patterns, owner)
    if client is not None:  # refused before the screening, not after it
        from ..distributed import check_client, check_picklable

        check_client(client, owner)
        check_picklable(mechanism, "mechanism", owner)
    say = _Progress(progress)
    # the objective the final audit will certify, projected on its held-out size
    objectives = [Objective("epsilon", float(claimed_delta))]
    beta = (1.0 - confidence) / (2 * holdout_pairs)
    screened, drawn, seen = [], 0, set()

    def screen(pairs, stage):
        nonlocal drawn
        for d, e, label in check_pairs_argument(pairs, owner):
            key = (np.asarray(d).tobytes(), np.asarray(e).tobytes())
            if key in seen:
                continue
            seen.add(key)
            from .blackbox import PairReport
            rep = PairReport(len(screened), label, (d, e))
            best, used, _ = _select(mechanism, d, e, rng, objectives, beta, n_samples, screen_samples,
                                    min(screen_samples, 20_000), 0.0, bool(float_bits), rep, say)
            drawn += 2 * used
            value = -math.inf if best[0] is None else best[0].value
            screened.append({"label": label, "D": np.asarray(d, dtype=np.float64),
                             "D'": np.asarray(e, dtype=np.float64), "projected": value,
                             "samples": used, "stage": stage})
            say(f"screened {label}: projected epsilon >= {value:.4g}")

    screen(pattern_pairs.__wrapped__(dim, names), "pattern")
    for r in range(local_rounds):
        top = max(screened, key=lambda s: s["projected"])
        moves = _local_moves(top["D"], top["D'"], sensitivity, local_moves, rng)
        before = top["projected"]
        screen([(d, e, f"local {r + 1}.{i}: {_show(d)} vs {_show(e)}") for i, (d, e) in enumerate(moves)],
               "local")
        if max(s["projected"] for s in screened) <= before:
            break
    ranked = sorted(screened, key=lambda s: -s["projected"])[:finalists]
    final_pairs = [(s["D"], s["D'"], s["label"]) for s in ranked]
    # every argument was validated above (same declarations): no second validation
    audit = audit_black_box.__wrapped__(mechanism, final_pairs, claimed_epsilon, claimed_delta=claimed_delta,
                            delta_at_epsilon=delta_at_epsilon, confidence=confidence, n_samples=n_samples,
                            tolerance=tolerance, holdout_pairs=holdout_pairs, float_bits=float_bits,
                            rng=rng, progress=progress, client=client, max_selection=max_selection,
                            holdout_test=holdout_test, pool_pairs=pool_pairs)
    return PairSearch(audit, screened, [s["label"] for s in ranked], drawn)


def _show(x):
    x = np.asarray(x)
    return "(" + ", ".join(f"{v:g}" for v in x[:12]) + (", ..." if x.size > 12 else "") + ")"
