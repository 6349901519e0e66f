"""Exact audit: the divergences of a mechanism whose output distribution is known.

A friendly front-end to :mod:`refdp.verify`: give the output distribution of
a mechanism (a function ``dataset -> probabilities`` or a finite table
``{dataset: probabilities}``) and the neighbouring pairs to examine (or
datasets and a neighbour relation), and :func:`audit_exact` returns

* the exact max divergence ``max_o |ln P(o)/P'(o)|`` over the pairs (the
  smallest epsilon for pure DP on them), with the worst pair and output,
  decided against the claimed epsilon in interval arithmetic
  (:func:`refdp.verify.check_pairs`, fail closed);
* the hockey-stick divergence ``delta(eps) = sum_o max(0, P(o) - e^eps P'(o))``
  at the claimed epsilon, worst ordered pair and event, decided against the
  claimed delta when it is positive;
* optionally Renyi divergences at given orders, maximised over the pairs and
  both directions.

The distribution function follows the protocol of
:mod:`refdp.verify.check`: it is called at two mpmath precisions and should
compute from exact inputs. A table of floats or fractions is exact as it
stands.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import mpmath
import numpy as np

from ..utils.precision import GLOBAL_MPMATH_LOCK, mp_context
from ..utils.constraints import (FLAG, PRIVACY, PRIVACY_OR_INF, PROBABILITY_RESULT, AnyOf, Callable, Checked,
                                 Converted, InstanceOf, constrained, constrained_fields)
from ..utils.validation import Described, Interval, check_scalar, parameter_error
from ..verify import check_mechanism, check_pairs, renyi_divergence
from ..verify.neighbours import NEIGHBOURS
from ..verify.verdict import Verdict, takes_context

__all__ = ["ExactAudit", "audit_exact"]

_OWNER = "audit_exact"
_EPS = Interval(float, 0, None, closed="left")
_DELTA = Interval(float, 0, 1, closed="left")
_ORDER = Interval(float, 1, None, closed="neither")


def _epsilon_enclosure(value, name, owner):
    """``(lower, upper)``, numbers in [0, inf] with lower <= upper, kept exact (mpmath values stay)."""
    what = "a pair (lower, upper) of numbers in the range [0, inf], lower <= upper"
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)) or len(value) != 2:
        raise parameter_error(name, owner, what, value)
    for v in value:
        if isinstance(v, (bool, str, bytes)) or v is None:
            raise parameter_error(name, owner, what, value)
        try:
            x = float(v)
        except (TypeError, ValueError, OverflowError):
            raise parameter_error(name, owner, what, value) from None
        if not 0.0 <= x <= math.inf:
            raise parameter_error(name, owner, what, value)
    if not value[0] <= value[1]:
        raise parameter_error(name, owner, what, value)
    return tuple(value)


@constrained_fields(claimed_epsilon=PRIVACY, claimed_delta=PROBABILITY_RESULT, epsilon=PRIVACY_OR_INF,
                    epsilon_enclosure=Converted(_epsilon_enclosure, "a pair (lower, upper) in [0, inf]",
                                                invalid=(math.nan, (math.nan, 1.0), (2.0, 1.0), (-1.0, 0.0),
                                                         None, "ab", (0.5,))),
                    delta=PROBABILITY_RESULT, delta_pair=InstanceOf((tuple,), "a pair (d, d') of datasets (tuple)"),
                    delta_event=InstanceOf((tuple,), "a tuple of outputs"), unchecked="what the audit found")
@dataclass
class ExactAudit:
    """Result of :func:`audit_exact`.

    Attributes
    ----------
    verdict : Verdict
        The claim decided: ``max divergence <= claimed_epsilon`` when
        ``claimed_delta == 0``, else ``delta(claimed_epsilon) <=
        claimed_delta`` in both directions. UNDECIDED fails closed.
    claimed_epsilon, claimed_delta : float
    epsilon : mpmath.mpf
        Max divergence of the worst pair (``inf``, no guarantee, when an
        output is possible under one dataset only).
    epsilon_enclosure : tuple of mpmath.mpf
        ``(lower, upper)`` enclosing ``epsilon``.
    worst_pair : tuple
    worst_output : object
    delta : mpmath.mpf
        Largest hockey-stick divergence at ``claimed_epsilon`` over ordered pairs.
    delta_pair : tuple
        The ordered pair ``(d, d')`` attaining it.
    delta_event : tuple
        The outputs with ``P_d(o) > e^eps P_d'(o)``.
    renyi : dict
        ``order -> (value, (d, d'))``, the largest Renyi divergence.
    pairs_checked : int
    max_check, delta_check : refdp.verify.MechanismCheck
        The underlying checks.
    """

    verdict: Verdict
    claimed_epsilon: float
    claimed_delta: float
    epsilon: object
    epsilon_enclosure: tuple
    worst_pair: tuple
    worst_output: object
    delta: object
    delta_pair: tuple
    delta_event: tuple
    renyi: dict = field(default_factory=dict)
    pairs_checked: int = 0
    max_check: object = None
    delta_check: object = None

    @property
    def violation(self) -> bool:
        """True unless the claim HOLDS (an undecided comparison counts as a violation)."""
        return not self.verdict.passed

    @property
    def passed(self) -> bool:
        """True only when the claim HOLDS; ``bool(audit)`` is the same."""
        return self.verdict.passed

    def __bool__(self) -> bool:
        return self.passed

    def summary(self) -> str:
        """A few lines for people."""
        # the claim at its exact value (shortest round-trip repr): a holding claim never
        # prints below the exact epsilon because of rounding
        claim = f"({self.claimed_epsilon!r}, {self.claimed_delta!r})-DP" if self.claimed_delta else \
            f"{self.claimed_epsilon!r}-DP"
        lines = [f"claim {claim}: {self.verdict.value.upper()} over {self.pairs_checked} pair(s)",
                 f"  exact epsilon (max divergence) = {mpmath.nstr(self.epsilon, 12)} on "
                 f"d = {self.worst_pair[0]!r}, d' = {self.worst_pair[1]!r}, output {self.worst_output!r}",
                 f"  delta at epsilon = {self.claimed_epsilon!r}: {mpmath.nstr(self.delta, 12)} on "
                 f"d = {self.delta_pair[0]!r}, d' = {self.delta_pair[1]!r}, event {self.delta_event!r}"]
        for order, (value, pair) in self.renyi.items():
            lines.append(f"  Renyi divergence of order {order:g}: {mpmath.nstr(value, 12)} on {pair!r}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        """JSON-ready summary (numbers as strings of 17 significant digits)."""
        return {
            "verdict": self.verdict.value,
            "violation": self.violation,
            "claimed_epsilon": self.claimed_epsilon,
            "claimed_delta": self.claimed_delta,
            "epsilon": mpmath.nstr(self.epsilon, 17),
            "epsilon_enclosure": [mpmath.nstr(v, 17) for v in self.epsilon_enclosure],
            "worst_pair": [repr(d) for d in self.worst_pair],
            "worst_output": repr(self.worst_output),
            "delta": mpmath.nstr(self.delta, 17),
            "delta_pair": [repr(d) for d in self.delta_pair],
            "delta_event": [repr(o) for o in self.delta_event],
            "renyi": {str(o): [mpmath.nstr(v, 17), [repr(d) for d in p]] for o, (v, p) in self.renyi.items()},
            "pairs_checked": self.pairs_checked,
        }

    def __str__(self) -> str:
        return self.summary()


def _hashable(d):
    """Datasets as given, with lists (and nested lists) turned into tuples."""
    if isinstance(d, list):
        return tuple(_hashable(x) for x in d)
    if hasattr(d, "tolist") and not isinstance(d, (str, bytes)):
        return _hashable(d.tolist())
    return d


def _pairs_list(pairs, table):
    if isinstance(pairs, (str, bytes, Mapping)) or not hasattr(pairs, "__iter__") \
            or (isinstance(pairs, np.ndarray) and pairs.ndim == 0):
        raise parameter_error("pairs", _OWNER, "an iterable of pairs (d, d') or (d, d', label)", pairs)
    out = []
    for i, item in enumerate(pairs):
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) not in (2, 3):
            raise parameter_error("pairs", _OWNER, "an iterable of pairs (d, d') or (d, d', label)",
                                  Described(f"{item!r:.80} at position {i}"))
        d, e = _hashable(item[0]), _hashable(item[1])
        try:
            hash(d), hash(e)
        except TypeError:
            raise parameter_error("pairs", _OWNER, "pairs of hashable datasets (tuples)",
                                  Described(f"{item!r:.80} at position {i}")) from None
        if d == e:
            raise parameter_error("pairs", _OWNER, "pairs of two different datasets",
                                  Described(f"the same dataset {d!r} twice at position {i}"))
        if table is not None:
            for x in (d, e):
                if x not in table:
                    raise parameter_error("pairs", _OWNER, "pairs of datasets listed in the table",
                                          Described(f"{x!r} at position {i}, not in the table"))
        out.append((d, e))
    if not out:
        raise parameter_error("pairs", _OWNER, "a non-empty iterable of pairs", Described("no pair"))
    return out


@constrained(
    distribution=Checked("a callable dataset -> probabilities or a table {dataset: probabilities} of at "
                         "least two datasets (checked in the body)", invalid=(None, 1.5, {}, {(0,): [1.0]})),
    claimed_epsilon=_EPS, claimed_delta=_DELTA,
    pairs=Checked("None or a non-empty iterable of pairs of different datasets (checked by _pairs_list)",
                  invalid=([], "abc", [((0,), (0,))])),
    datasets=Checked("None or datasets over the domain (checked by refdp.verify.check_mechanism)"),
    # checked here too: with 'pairs' given, refdp.verify never sees it
    neighbours=AnyOf((NEIGHBOURS, Callable("a callable dataset -> neighbours"))),
    domain=Checked("None or the finite domain (checked by refdp.verify.check_domain)"),
    ordered=FLAG,
    orders=Checked("a sequence of floats in the range (1, inf) (checked in the body)",
                   invalid=("abc", 1.5, [0.5], [float("nan")])),
    dps=Interval(int, 5, 5000),
)
def audit_exact(distribution, claimed_epsilon, *, claimed_delta=0.0, pairs=None, datasets=None,
                neighbours="replace", domain=None, ordered=False, orders=(), dps=30):
    """Exact divergences of a mechanism given its output distribution (docs/theory/audit.rst).

    Parameters
    ----------
    distribution : callable or mapping
        ``distribution(dataset)`` returns ``{output: probability}`` or a
        sequence of probabilities indexed by output (see
        :func:`refdp.verify.check_mechanism` for the precision protocol;
        ``distribution(dataset, ctx)`` computes in the context it is given,
        an interval context for the privacy checks and a real context at
        ``dps`` digits for the Renyi divergences); or a table
        ``{dataset: probabilities}``.
    claimed_epsilon : float >= 0
    claimed_delta : float in [0, 1), default 0
    pairs : iterable of (d, d') or (d, d', label), optional
        Neighbouring pairs to examine (lists become tuples). For a table the
        default is every pair of its datasets; for a function, give ``pairs``
        or ``datasets``.
    datasets : iterable, optional
        Examine every neighbour of each (``neighbours``, ``domain``,
        ``ordered`` as in :func:`refdp.verify.check_mechanism`).
    neighbours : {"replace", "add_remove"} or callable, default "replace"
    domain : iterable, optional
    ordered : bool, default False
    orders : sequence of float > 1, default ()
        Renyi orders to report.
    dps : int >= 5, default 30
        Working precision (the check also evaluates at ``2 dps + 10`` digits).

    Returns
    -------
    ExactAudit

    Raises
    ------
    ValueError
        Bad parameters; no pair; a pair of identical datasets; a dataset
        missing from the table; a distribution that is not one.

    Examples
    --------
    Randomised response reporting the bit with probability 3/4 is exactly
    ``ln 3``-DP:

    >>> from fractions import Fraction as F
    >>> table = {0: [F(3, 4), F(1, 4)], 1: [F(1, 4), F(3, 4)]}
    >>> r = audit_exact(table, claimed_epsilon=1.0)
    >>> r.verdict.value, mpmath.nstr(r.epsilon, 10), r.worst_output
    ('fails', '1.098612289', 0)
    >>> mpmath.nstr(r.delta, 10)     # delta(1) = 3/4 - e * 1/4
    '0.07042954289'
    """
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__") \
            or (isinstance(orders, np.ndarray) and orders.ndim == 0):
        raise parameter_error("orders", _OWNER, "a sequence of floats in the range (1, inf)", orders)
    orders = [check_scalar(o, "orders", _OWNER, _ORDER) for o in orders]
    table = None
    if isinstance(distribution, Mapping):
        table = {_hashable(k): v for k, v in distribution.items()}
        if len(table) < 2:
            raise parameter_error("distribution", _OWNER, "a table of at least two datasets",
                                  Described(f"a table of {len(table)} dataset(s)"))

        def fn(d):
            return table[d]
    elif callable(distribution):
        fn = distribution
    else:
        raise parameter_error("distribution", _OWNER,
                              "a callable dataset -> probabilities or a table {dataset: probabilities}",
                              distribution)
    if pairs is not None and datasets is not None:
        raise parameter_error("datasets", _OWNER, "None when 'pairs' is given", datasets)
    if datasets is not None:
        datasets = [_hashable(d) for d in datasets]
        first = check_mechanism(fn, datasets, claimed_epsilon, 0.0, neighbours, dps,
                                domain=domain, ordered=ordered)
        # the same pairs, in the order check_mechanism examined them, for the other checks
        plist = None

        def run(delta):
            return check_mechanism(fn, datasets, claimed_epsilon, delta, neighbours, dps,
                                   domain=domain, ordered=ordered)
    else:
        if pairs is None:
            if table is None:
                raise parameter_error("pairs", _OWNER, "given (or 'datasets') for a distribution function",
                                      pairs)
            keys = list(table)
            pairs = [(keys[i], keys[j]) for i in range(len(keys)) for j in range(i + 1, len(keys))]
        plist = _pairs_list(pairs, table)

        def run(delta):
            return check_pairs(fn, plist, claimed_epsilon, delta, dps, relation="given pairs",
                               _owner=_OWNER)
        first = run(0.0)
    hs = run(claimed_delta if claimed_delta > 0 else 1.0)
    verdict = first.verdict if claimed_delta == 0 else hs.verdict
    renyi = {}
    if orders:
        if plist is None:
            from ..verify.neighbours import neighbour_function
            dom = domain if domain is not None or callable(neighbours) else {x for d in datasets for x in d}
            nbr = neighbour_function(neighbours, dom, ordered=ordered, owner=_OWNER)
            canon = (lambda d: tuple(d)) if ordered else (lambda d: tuple(sorted(d)))
            plist = [(canon(d), e) for d in dict.fromkeys(map(canon, datasets)) for e in nbr(canon(d))]
        cache = {}
        with_ctx = takes_context(fn, 1)

        def law(d):
            if d not in cache:
                if with_ctx:
                    cache[d] = fn(d, mp_context(dps))
                else:
                    # a law of the legacy protocol computes with the global mpmath
                    # functions "at the current precision": the only use of the
                    # global precision left, serialised with refdp's other uses
                    with GLOBAL_MPMATH_LOCK, mpmath.workdps(dps):
                        cache[d] = fn(d)
            return cache[d]
        for order in orders:
            best = None
            for d, e in plist:
                for a, b in ((d, e), (e, d)):
                    v = renyi_divergence(law(a), law(b), order)
                    if best is None or v > best[0]:
                        best = (v, (a, b))
            renyi[order] = best
    return ExactAudit(
        verdict=verdict, claimed_epsilon=claimed_epsilon, claimed_delta=claimed_delta,
        epsilon=first.divergence, epsilon_enclosure=first.enclosure, worst_pair=first.worst_pair,
        worst_output=first.worst_output, delta=hs.divergence, delta_pair=hs.worst_pair,
        delta_event=hs.event, renyi=renyi, pairs_checked=first.pairs_checked,
        max_check=first, delta_check=hs)
