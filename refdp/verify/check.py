"""Exact, fail-closed privacy checks of mechanisms with finitely many outputs.

:func:`check_mechanism` enumerates neighbouring pairs of datasets, computes
the output distributions exactly and decides the privacy claim for every pair:

* ``delta == 0``: pure epsilon-DP, ``max_o |ln P(o)/P'(o)| <= epsilon``
  ([DR14]_ Definition 2.4 via the max divergence, Definition 3.6);
* ``delta > 0``: (epsilon, delta)-DP, ``sum_o max(0, P(o) - e^eps P'(o)) <= delta``
  in both directions ([BBG18]_ Sec. 2).

**Protocol for the distribution function.** ``distribution_fn(dataset)``
returns a mapping ``output -> probability`` or a sequence of probabilities
indexed by output. It must compute from exact inputs
(integers, fractions, strings, exactly representable floats) at the current
mpmath precision ``mpmath.mp.dps``. The checker calls it twice per dataset,
under ``mpmath.workdps(dps)`` and under ``mpmath.workdps(2 * dps + 10)`` (with
``mpmath.iv`` set to the same precision). Each probability is then enclosed in
an interval:

* an ``mpmath.iv`` interval returned by the function is used as it is (a
  rigorous enclosure, if the function computed it with ``mpmath.iv``);
* an integer, ``Fraction`` or float returned identically at both precisions is
  exact (a float is the exact binary number it holds, so a float mechanism is
  checked as the distribution its floats define);
* anything else (``mpmath.mpf``) is enclosed by the higher-precision value
  plus or minus the difference of the two evaluations plus ``10**-dps`` times
  its magnitude. An ``mpf`` zero is enclosed by ``[0, 10**-dps]``: an exact zero
  must be returned as an exact number (``0``, ``Fraction(0)``, ``0.0``).

The divergence of each pair is then computed in ``mpmath.iv`` interval
arithmetic at ``2 * dps + 10`` digits and compared with the bound by
:func:`refdp.verify.verdict.decide_enclosures`: HOLDS, FAILS or UNDECIDED, and
UNDECIDED counts as a failure. The enclosure of an ``mpf`` probability is an
estimate (two evaluations agreeing), not a proof; the interval arithmetic that
follows it is rigorous.

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Definitions 2.4 and 3.6.
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi, "Privacy Amplification by
   Subsampling", NeurIPS 2018, Sec. 2.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from .._validation import Described, Interval, check_scalar, parameter_error
from .divergences import as_distribution
from .neighbours import check_domain, neighbour_function
from .registry import CheckResult
from .verdict import Verdict, decide_enclosures, enclose, ivworkdps, lower, upper, worst_verdict

__all__ = ["MechanismCheck", "check_mechanism", "check_pairs", "higher_precision", "summarise"]

_EPSILON = Interval(float, 0, None, closed="left")
_DELTA = Interval(float, 0, 1, closed="both")
_DPS = Interval(int, 5, None)


def higher_precision(dps: int) -> int:
    """The second precision of the two-precision protocol: ``2 * dps + 10`` digits."""
    return 2 * dps + 10


@dataclass
class MechanismCheck:
    """Result of :func:`check_mechanism` or :func:`check_pairs`.

    Attributes
    ----------
    verdict : Verdict
        Worst verdict over all pairs (FAILS if any pair fails, else UNDECIDED
        if any is undecided, else HOLDS). Only HOLDS passes.
    divergence : mpmath.mpf
        Divergence of the worst pair, evaluated at the higher precision.
    enclosure : tuple of mpmath.mpf
        ``(lower, upper)`` interval enclosing that divergence.
    bound : float
        ``epsilon`` (pure DP) or ``delta`` (approximate DP).
    kind : str
        ``"max divergence"`` or ``"hockey-stick divergence"``.
    epsilon, delta : float
    worst_pair : tuple
        ``(d, d')``; for the hockey-stick divergence, the direction with the
        larger value, ``sum_o max(0, P_d(o) - e^eps P_d'(o))``. Among failing
        pairs if any fail, else among undecided pairs if any, else among all:
        the one with the largest divergence.
    worst_output : object
        Output attaining the max divergence, or contributing most to the
        hockey-stick sum.
    event : tuple
        Hockey-stick only: the outputs with ``P_d(o) > e^eps P_d'(o)``.
    pairs_checked, failing_pairs, undecided_pairs : int
        Unordered pairs examined, and how many of them FAIL / are UNDECIDED.
    dps : int
        Working precision; the second evaluation used ``2 * dps + 10``.
    relation : str
        Description of the neighbour relation.
    method : str
        How the verdict was reached: ``"estimated"`` (the two-precision
        protocol of this module), ``"algebraic"``
        (:func:`refdp.verify.algebraic.check_algebraic`: exact sign decisions).
    note : str
        How the comparison was made, shown in :attr:`detail` instead of the
        two precisions when set.
    """

    verdict: Verdict
    divergence: object
    enclosure: tuple
    bound: float
    kind: str
    epsilon: float
    delta: float
    worst_pair: tuple
    worst_output: object
    event: tuple = ()
    pairs_checked: int = 0
    failing_pairs: int = 0
    undecided_pairs: int = 0
    dps: int = 30
    relation: str = ""
    method: str = "estimated"
    note: str = ""

    @property
    def passed(self) -> bool:
        """True only for HOLDS (UNDECIDED fails closed)."""
        return self.verdict.passed

    @property
    def detail(self) -> str:
        """One paragraph naming the worst pair, output and the enclosure."""
        digits = min(self.dps, 20)
        d, e = self.worst_pair
        lo, hi = self.enclosure
        what = (f"max divergence {mpmath.nstr(self.divergence, digits)} vs epsilon = {self.epsilon!r}"
                if self.kind == "max divergence" else
                f"hockey-stick divergence at epsilon = {self.epsilon!r}: "
                f"{mpmath.nstr(self.divergence, digits)} vs delta = {self.delta!r}")
        how = self.note or f"dps {self.dps} and {higher_precision(self.dps)}"
        text = (f"{what}: {self.verdict.value.upper()} "
                f"(enclosure [{mpmath.nstr(lo, digits)}, {mpmath.nstr(hi, digits)}] of width "
                f"{mpmath.nstr(hi - lo, 3)}, {how}); "
                f"worst pair d = {d!r}, d' = {e!r}; worst output {self.worst_output!r}")
        if self.kind != "max divergence":
            text += f"; event {self.event!r}"
        text += (f"; {self.pairs_checked} pairs checked"
                 + (f" ({self.relation})" if self.relation else "")
                 + f", {self.failing_pairs} fail, {self.undecided_pairs} undecided")
        return text

    def as_check_result(self) -> CheckResult:
        """The :class:`refdp.verify.registry.CheckResult` for ``refdp verify``."""
        return CheckResult(measured=self.divergence, bound=self.bound, verdict=self.verdict,
                           digits=self.dps, detail=self.detail)

    def __str__(self) -> str:
        return self.detail


# ---------------------------------------------------------------------------
# Evaluating distributions at two precisions
# ---------------------------------------------------------------------------

_EXACT = (int, Fraction, float)


def _exact(v) -> bool:
    return isinstance(v, _EXACT) and not isinstance(v, bool)


class _Distributions:
    """Evaluates and caches the enclosed distribution of each dataset."""

    def __init__(self, fn, dps, owner):
        self.fn, self.dps, self.hi, self.owner = fn, dps, higher_precision(dps), owner
        self.cache = {}
        with mpmath.workdps(self.hi):
            self.pad = mpmath.mpf(10) ** (-dps)

    def _call(self, d, prec):
        with mpmath.workdps(prec), ivworkdps(prec):
            raw = self.fn(d)
            dist = as_distribution(raw, "distribution_fn", f"{self.owner} (dataset {d!r})")
        length = None if isinstance(raw, Mapping) else len(dist)
        return dist, length

    def get(self, d):
        if d in self.cache:
            return self.cache[d]
        lo, len_lo = self._call(d, self.dps)
        hi, len_hi = self._call(d, self.hi)
        if len_lo != len_hi:
            raise parameter_error("distribution_fn", f"{self.owner} (dataset {d!r})",
                                  "a distribution with the same outputs at every precision",
                                  Described(f"{len_lo} outputs at dps {self.dps} and "
                                            f"{len_hi} at dps {self.hi}"))
        outputs = list(hi)
        outputs.extend(o for o in lo if o not in hi)
        enc, point, logenc, logpoint = {}, {}, {}, {}
        with mpmath.workdps(self.hi), ivworkdps(self.hi):
            for o in outputs:
                a, b = lo.get(o, 0), hi.get(o, 0)
                if isinstance(b, mpmath.iv.mpf):
                    e = mpmath.iv.mpf([max(lower(b), 0), upper(b)])
                    p = mpmath.mpf(b.mid)
                elif _exact(a) and _exact(b) and a == b:
                    e = enclose(b)
                    p = mpmath.mpf(b.numerator) / b.denominator if isinstance(b, Fraction) else mpmath.mpf(b)
                else:
                    c = _to_mpf(b)
                    ca = _to_mpf(a) if not isinstance(a, mpmath.iv.mpf) else mpmath.mpf(a.mid)
                    r = abs(c - ca) + (self.pad * abs(c) if c != 0 else self.pad)
                    r = r * (1 + self.pad)
                    e = enclose(c) + mpmath.iv.mpf([-r, r])
                    e = mpmath.iv.mpf([max(lower(e), 0), upper(e)])
                    p = c
                enc[o], point[o] = e, p
                if not (lower(e) == 0 and upper(e) == 0):
                    logenc[o] = mpmath.iv.log(e)
                    logpoint[o] = mpmath.log(p) if p > 0 else mpmath.mpf("-inf")
        rec = (outputs, enc, point, logenc, logpoint, len_hi)
        self.cache[d] = rec
        return rec


def _to_mpf(v):
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    if isinstance(v, numbers.Real) and not isinstance(v, mpmath.mpf):
        return mpmath.mpf(float(v)) if not isinstance(v, numbers.Integral) else mpmath.mpf(int(v))
    return mpmath.mpf(v)


def _same_point(a, b) -> bool:
    """True when both intervals are the same single point (exact, equal values)."""
    return a._mpi_[0] == a._mpi_[1] == b._mpi_[0] == b._mpi_[1]


def _pair_max(rec_d, rec_e):
    """((lower, upper), point, worst output) of max_o |ln P_d(o) - ln P_e(o)|.

    The enclosure of a maximum is [max of lower ends, max of upper ends]; the
    worst output is the one with the largest upper end (ties: largest point).
    """
    out_d, _, _, lg_d, lp_d, _ = rec_d
    out_e, _, _, lg_e, lp_e, _ = rec_e
    inf = mpmath.mpf("inf")
    lo_max = hi_max = pt_max = None
    worst = None
    for o in dict.fromkeys(list(out_d) + list(out_e)):
        zd, ze = o not in lg_d, o not in lg_e
        if zd and ze:
            continue
        if zd or ze:
            lo_v = hi_v = pt = inf
        elif _same_point(rec_d[1][o], rec_e[1][o]):
            lo_v = hi_v = pt = mpmath.mpf(0)  # equal exact probabilities: ratio exactly 1
        else:
            v = abs(lg_d[o] - lg_e[o])
            lo_v, hi_v, pt = lower(v), upper(v), abs(lp_d[o] - lp_e[o])
        if worst is None or (hi_v, pt) > (hi_max, pt_max):
            worst = o
        lo_max = lo_v if lo_max is None else max(lo_max, lo_v)
        hi_max = hi_v if hi_max is None else max(hi_max, hi_v)
        pt_max = pt if pt_max is None else max(pt_max, pt)
    return (lo_max, hi_max), pt_max, worst


def _pair_hockey(rec_d, rec_e, factor_enc, factor_pt):
    """(enclosure, point, worst output, event) of sum_o max(0, P_d(o) - e^eps P_e(o))."""
    out_d, enc_d, pt_d, *_ = rec_d
    out_e, enc_e, pt_e, *_ = rec_e
    outputs = dict.fromkeys(list(out_d) + list(out_e))
    zero_iv = mpmath.iv.mpf(0)
    total = zero_iv
    total_pt = mpmath.mpf(0)
    best, best_out, event = None, None, []
    for o in outputs:
        t = enc_d.get(o, zero_iv) - factor_enc * enc_e.get(o, zero_iv)
        t = mpmath.iv.mpf([max(lower(t), 0), max(upper(t), 0)])
        total = total + t
        tp = pt_d.get(o, 0) - factor_pt * pt_e.get(o, 0)
        if tp > 0:
            total_pt += tp
            event.append(o)
        if best is None or upper(t) > best:
            best, best_out = upper(t), o
    return (lower(total), upper(total)), total_pt, best_out, tuple(event)


def check_pairs(distribution_fn, pairs, epsilon, delta=0.0, dps=30, *, relation="given pairs",
                _owner="check_pairs"):
    """Decide a DP claim exactly on given pairs of neighbouring datasets.

    Parameters
    ----------
    distribution_fn : callable
        ``dataset -> distribution``; see the module docstring for the protocol.
    pairs : iterable of (dataset, dataset)
        Hashable datasets (tuples). Each unordered pair is decided once, in
        both directions.
    epsilon : float, epsilon >= 0
    delta : float, 0 <= delta <= 1, default 0
    dps : int, dps >= 5, default 30
    relation : str
        How the pairs were produced (shown in the report).

    Returns
    -------
    MechanismCheck

    Raises
    ------
    ValueError
        Bad ``epsilon``, ``delta``, ``dps``; no pair; a distribution that is not
        one (negative probability, not summing to 1 within
        :data:`refdp.verify.divergences.SUM_TOLERANCE`); two distributions
        given as sequences of different lengths.
    """
    owner = _owner
    epsilon = check_scalar(epsilon, "epsilon", owner, _EPSILON)
    delta = check_scalar(delta, "delta", owner, _DELTA)
    dps = check_scalar(dps, "dps", owner, _DPS)
    if not callable(distribution_fn):
        raise parameter_error("distribution_fn", owner, "a callable dataset -> distribution", distribution_fn)
    dists = _Distributions(distribution_fn, dps, owner)
    hi = dists.hi
    seen = set()
    rows = []  # (verdict, point, (lo, hi), pair, output, event)
    with mpmath.workdps(hi), ivworkdps(hi):
        eps_enc = enclose(epsilon)
        bound_enc = enclose(delta if delta > 0 else epsilon)
        factor_enc = mpmath.iv.exp(eps_enc)
        factor_pt = mpmath.exp(mpmath.mpf(epsilon))
        for pair in pairs:
            try:
                d, e = pair
                key = frozenset((d, e))
            except (TypeError, ValueError):
                raise parameter_error("pairs", owner, "an iterable of pairs of hashable datasets",
                                      pair) from None
            if d == e or key in seen:
                continue
            seen.add(key)
            rd, re_ = dists.get(d), dists.get(e)
            if rd[5] is not None and re_[5] is not None and rd[5] != re_[5]:
                raise parameter_error(
                    "distribution_fn", owner, "sequences of the same length for every dataset",
                    Described(f"{rd[5]} probabilities for {d!r} and {re_[5]} for {e!r}"))
            if delta == 0:
                (lo_v, hi_v), pt, out = _pair_max(rd, re_)
                ev = ()
                oriented = (d, e)
            else:
                a = _pair_hockey(rd, re_, factor_enc, factor_pt)
                b = _pair_hockey(re_, rd, factor_enc, factor_pt)
                if (b[0][1], b[1]) > (a[0][1], a[1]):
                    a, oriented = b, (e, d)
                else:
                    oriented = (d, e)
                (lo_v, hi_v), pt, out, ev = a
            verdict = decide_enclosures(mpmath.iv.mpf([lo_v, hi_v]), bound_enc)
            rows.append((verdict, pt, (lo_v, hi_v), oriented, out, ev))
    if not rows:
        raise parameter_error("pairs", owner, "at least one pair of distinct datasets",
                              Described("no pair"))
    verdict = worst_verdict(r[0] for r in rows)
    pool = [r for r in rows if r[0] is verdict] if verdict is not Verdict.HOLDS else rows
    worst = max(pool, key=lambda r: (r[1], r[2][1]))
    return MechanismCheck(
        verdict=verdict, divergence=worst[1], enclosure=worst[2],
        bound=delta if delta > 0 else epsilon,
        kind="max divergence" if delta == 0 else "hockey-stick divergence",
        epsilon=epsilon, delta=delta, worst_pair=worst[3], worst_output=worst[4], event=worst[5],
        pairs_checked=len(rows),
        failing_pairs=sum(r[0] is Verdict.FAILS for r in rows),
        undecided_pairs=sum(r[0] is Verdict.UNDECIDED for r in rows),
        dps=dps, relation=relation,
    )


def check_mechanism(distribution_fn, datasets, epsilon, delta=0.0, neighbours="replace", dps=30, *,
                    domain=None, ordered=False, algebraic=None):
    """Decide epsilon-DP (or (epsilon, delta)-DP) over all neighbours of given datasets.

    Parameters
    ----------
    distribution_fn : callable
        ``dataset -> {output: probability}`` or a sequence of probabilities
        indexed by output, computed at the current mpmath precision (see the
        module docstring: it is called under ``mpmath.workdps(dps)`` and
        ``mpmath.workdps(2 * dps + 10)``).
    datasets : iterable of tuple
        The datasets whose neighbours are examined (e.g.
        :func:`refdp.verify.neighbours.all_datasets`). With ``ordered=False``
        each is sorted (a multiset).
    epsilon : float, epsilon >= 0
    delta : float, 0 <= delta <= 1, default 0
        ``0``: decide ``max divergence <= epsilon``; ``> 0``: decide
        ``hockey-stick divergence at epsilon <= delta`` in both directions.
    neighbours : {"replace", "add_remove"} or callable, default "replace"
        Replace-one or add/remove neighbours over ``domain``, or a callable
        ``dataset -> iterable of datasets``.
    dps : int, dps >= 5, default 30
        Working precision in decimal digits.
    domain : iterable, optional
        The finite record domain; default: every element appearing in
        ``datasets``.
    ordered : bool, default False
        Datasets are sequences (True) or multisets (False).
    algebraic : int, optional
        When given, ``distribution_fn(dataset, t)`` is a law rational in
        ``t = e^{epsilon/algebraic}`` and the claim is decided exactly by
        :func:`refdp.verify.algebraic.check_algebraic` with ``m = algebraic``
        (``dps`` is then unused; epsilon may be a ``Fraction``).

    Returns
    -------
    MechanismCheck
        Verdict, worst pair, worst output and the exact divergence.

    Examples
    --------
    Randomised response on one bit with ``P[report the bit] = 3/4`` is
    ``ln 3``-DP and no better:

    >>> from fractions import Fraction as F
    >>> rr = lambda d: {d[0]: F(3, 4), 1 - d[0]: F(1, 4)}
    >>> r = check_mechanism(rr, [(0,), (1,)], epsilon=1.1)
    >>> r.verdict, mpmath.nstr(r.divergence, 10)
    (<Verdict.HOLDS: 'holds'>, '1.098612289')
    >>> check_mechanism(rr, [(0,), (1,)], epsilon=1.0).verdict
    <Verdict.FAILS: 'fails'>
    """
    if algebraic is not None:
        from .algebraic import check_algebraic

        return check_algebraic(distribution_fn, datasets, epsilon, algebraic, neighbours, delta=delta,
                               domain=domain, ordered=ordered)
    owner = "check_mechanism"
    if isinstance(datasets, (str, bytes, Mapping)) or not hasattr(datasets, "__iter__"):
        raise parameter_error("datasets", owner, "an iterable of datasets (tuples)", datasets)
    try:
        ds = [tuple(d) if ordered else tuple(sorted(d)) for d in datasets]
    except TypeError:
        raise parameter_error("datasets", owner, "an iterable of datasets (tuples of comparable elements)",
                              datasets) from None
    if not ds:
        raise parameter_error("datasets", owner, "a non-empty iterable of datasets", Described("no dataset"))
    if domain is None and not callable(neighbours):
        elems = {x for d in ds for x in d}
        if not elems:
            raise parameter_error("domain", owner, "given when every dataset is empty", domain)
        domain = elems
    if domain is not None:
        domain = check_domain(domain, owner, ordered=ordered)
    nbr = neighbour_function(neighbours, domain, ordered=ordered, owner=owner)
    relation = (neighbours if isinstance(neighbours, str) else getattr(neighbours, "__name__", "callable"))
    relation += ", ordered" if ordered else ", multisets"

    def pairs():
        for d in dict.fromkeys(ds):
            for e in nbr(d):
                yield d, e

    return check_pairs(distribution_fn, pairs(), epsilon, delta, dps, relation=relation, _owner=owner)


def summarise(results, labels=None) -> CheckResult:
    """Fold several :class:`MechanismCheck` results into one :class:`CheckResult`.

    The verdict is the worst one (:func:`refdp.verify.verdict.worst_verdict`);
    ``measured``, ``bound`` and the detail come from the most critical result:
    among those carrying that verdict, the one with the largest ratio
    ``divergence / bound``.

    Parameters
    ----------
    results : sequence of MechanismCheck
    labels : sequence of str, optional
        A name for each result (e.g. ``"eps=1.0, m=3, replace"``), shown in
        the detail.

    Returns
    -------
    CheckResult
    """
    results = list(results)
    if not results:
        raise parameter_error("results", "summarise", "a non-empty sequence of MechanismCheck",
                              Described("no result"))
    labels = [f"#{i}" for i in range(len(results))] if labels is None else list(labels)
    verdict = worst_verdict(r.verdict for r in results)

    def ratio(r):
        if r.bound > 0:
            return r.divergence / r.bound
        return mpmath.mpf("inf") if r.divergence > 0 else mpmath.mpf(0)

    pool = [i for i, r in enumerate(results) if r.verdict is verdict]
    k = max(pool, key=lambda i: ratio(results[i]))
    worst = results[k]
    pairs = sum(r.pairs_checked for r in results)
    n_fail = sum(r.verdict is Verdict.FAILS for r in results)
    n_und = sum(r.verdict is Verdict.UNDECIDED for r in results)
    detail = (f"{len(results)} sweeps, {pairs} pairs in all ({n_fail} sweeps fail, {n_und} undecided); "
              f"most critical [{labels[k]}]: {worst.detail}")
    return CheckResult(measured=worst.divergence, bound=worst.bound, verdict=verdict,
                       digits=min(r.dps for r in results), detail=detail)
