"""Exact verdicts for mechanisms whose output laws are rational functions of e^(epsilon/m).

Randomised response, the geometric mechanisms, the exponential mechanism with
integer scores, the soft majority of teachers, the projected walk with an
integer number of steps to its clipping bound and private tuning's selection
all have output probabilities that are rational functions, with rational
coefficients, of ``t = e^{epsilon/m}`` for a fixed integer ``m``. For such a
law the claim ``P_d(o) <= e^epsilon P_d'(o)`` is the sign condition

    ``t^m c(t) b(t) - a(t) g(t) >= 0`` times ``sign(b(t) g(t))``,

where ``P_d(o) = a/b`` and ``P_d'(o) = c/g``, on a polynomial with rational
coefficients. Two decisions follow (proofs in docs/theory/algebraic_verdicts.rst):

* :func:`check_algebraic` decides the claim at one ``epsilon``: a polynomial
  that is not identically zero does not vanish at ``e^{epsilon/m}``
  (Lindemann-Weierstrass), so interval evaluation at increasing precision
  decides its sign in finitely many steps, and an identically zero one is an
  equality, which holds. Tight claims (randomised response at exactly its
  epsilon) are decided, not left undecided.
* :func:`prove_for_all_epsilon` decides the claim for every ``epsilon > 0`` at
  once, by real-root isolation of each polynomial on ``t > 1``.

The law is called as ``law(dataset, t)`` with ``t`` a sympy symbol standing for
``e^{epsilon/m}``; it returns a mapping ``output -> probability`` or a sequence
of probabilities indexed by output, each a rational function of ``t`` with
rational coefficients (sympy expressions, integers, ``Fraction``; a float is
the exact binary number it holds). sympy is needed (``pip install
'refdp[exact]'``); it is imported only when these functions are called.

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Definition 2.4 (epsilon-DP), Sec. 3.2 (randomised response).
.. [Lin82] F. Lindemann, "Ueber die Zahl pi", Math. Ann. 20 (1882), 213-225;
   K. Weierstrass, "Zu Lindemann's Abhandlung", 1885 (e^r is transcendental
   for every nonzero algebraic r).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
from mpmath.ctx_iv import MPIntervalContext

from ..utils import constraints as _c
from ..utils.validation import Described, Interval, parameter_error
from .check import MechanismCheck
from .neighbours import neighbouring_pairs
from .polynomials import (PointSign, RationalFunctions, Root, leading_sign, negative_segments,
                          roots_above_one)
from .registry import CheckResult
from .verdict import Verdict, worst_verdict

__all__ = ["check_algebraic", "prove_for_all_epsilon", "AllEpsilonProof", "FailingRange", "summarise_proofs"]

#: m of a law rational in e**(epsilon/m): the polynomials' degrees grow with m.
_M = Interval(int, 1, 1000)
_MAX_DPS = Interval(int, 10, _c.MAX_DPS)
_LAW = _c.Callable("a callable (dataset, t) -> distribution with rational entries in t")
_DATASETS = _c.Checked("a non-empty iterable of datasets (checked by neighbouring_pairs)", invalid=([], None))
_NEIGHBOURS = _c.Checked("'replace', 'add_remove' or a callable (checked by neighbour_function)",
                         invalid=("no such", 1.5))
_DOMAIN = _c.Checked("None or a finite domain (checked by check_domain)")
DEFAULT_MAX_DPS = 5000


def _rational(value, name, owner, low_open: bool, high=None):
    """A finite real given as int, float or Fraction, returned as its exact Fraction."""
    expected = ("a rational number (int, float or fractions.Fraction) in the range "
                + ("(0, inf)" if high is None else f"[0, {high}]"))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Rational, float)):
        raise parameter_error(name, owner, expected, value)
    if isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, np.floating):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise parameter_error(name, owner, expected, value)
    f = Fraction(value)
    if (low_open and f <= 0) or f < 0 or (high is not None and f > high):
        raise parameter_error(name, owner, expected, value)
    return f


def _outputs(raw, dataset, owner):
    if isinstance(raw, Mapping):
        return dict(raw), None
    if isinstance(raw, (str, bytes)) or not hasattr(raw, "__iter__"):
        raise parameter_error("law", owner, "a callable returning a mapping output -> probability or a "
                              "sequence of probabilities", Described(f"{raw!r} for dataset {dataset!r}"))
    values = list(raw)
    return dict(enumerate(values)), len(values)


class _Laws:
    """Evaluates ``law(dataset, t)`` once per dataset as reduced elements of ``QQ(t)``.

    Checks that the probabilities sum to 1 identically and that sequences
    have one length; the sign checks depend on the mode and are left to the
    caller.
    """

    def __init__(self, law, functions: RationalFunctions, owner: str):
        if not callable(law):
            raise parameter_error("law", owner, "a callable (dataset, t) -> distribution", law)
        self.law, self.f, self.owner = law, functions, owner
        self.cache: dict = {}
        self.length = None

    def get(self, d):
        if d in self.cache:
            return self.cache[d]
        raw, length = _outputs(self.law(d, self.f.symbol), d, self.owner)
        if length is not None:
            if self.length is not None and length != self.length:
                raise parameter_error("law", self.owner, "sequences of the same length for every dataset",
                                      Described(f"{self.length} and {length} probabilities "
                                                f"(dataset {d!r})"))
            self.length = length
        out = {o: self.f.convert(v, "law", f" (dataset {d!r}, output {o!r})") for o, v in raw.items()}
        if not out:
            raise parameter_error("law", self.owner, "a distribution with at least one output",
                                  Described(f"no output for dataset {d!r}"))
        total = sum(out.values(), self.f.zero)
        if total != self.f.one:
            raise parameter_error("law", self.owner, "probabilities summing to exactly 1 as rational "
                                  "functions of t", Described(f"a sum of {total.as_expr()} for dataset {d!r}"))
        self.cache[d] = out
        return out


# ---------------------------------------------------------------------------
# One epsilon: signs at t0 = exp(epsilon/m)
# ---------------------------------------------------------------------------

@_c.constrained(
    law=_LAW, datasets=_DATASETS,
    epsilon=_c.Checked("a rational number > 0 (int, Fraction or float; checked exactly in the body)",
                       invalid=(0, -1, float("nan"), float("inf"), "abc", None)),
    m=_M, neighbours=_NEIGHBOURS,
    delta=_c.Checked("a rational number in [0, 1] (checked exactly in the body)", invalid=(-1, 2, float("nan"))),
    domain=_DOMAIN, ordered=_c.FLAG, max_dps=_MAX_DPS,
    law_epsilon=_c.Checked("None or a rational number > 0 (checked exactly in the body)", invalid=(0, -1)),
)
def check_algebraic(law, datasets, epsilon, m, neighbours="replace", *, delta=0, domain=None,
                    ordered=False, max_dps=DEFAULT_MAX_DPS, law_epsilon=None):
    """Decide an epsilon-DP or (epsilon, delta)-DP claim exactly for a law rational in ``e^{epsilon/m}``.

    For every neighbouring pair ``(d, d')`` and output ``o`` the claim
    ``P_d(o) <= e^epsilon P_d'(o)`` (Dwork & Roth 2014, Definition 2.4) is the sign of a
    polynomial with rational coefficients at ``t0 = exp(epsilon/m)``. A
    polynomial that is identically zero is an equality, which holds; any other
    one is nonzero at ``t0`` (``epsilon/m`` is a nonzero rational, so ``t0`` is
    transcendental by Lindemann-Weierstrass; docs/theory/algebraic_verdicts.rst, Lemma 1), and
    its sign is found by interval evaluation at increasing precision. So the
    verdict is HOLDS or FAILS, including at the tight epsilon; UNDECIDED comes
    only from the ``max_dps`` cap. With ``delta > 0`` the hockey-stick
    divergence ``sum_o max(0, P_d(o) - e^epsilon P_d'(o)) <= delta`` is decided
    in both directions the same way: the set of outputs in the sum is decided
    exactly, then the sum minus ``delta`` is one more rational function.

    Parameters
    ----------
    law : callable
        ``law(dataset, t)``, ``t`` a sympy symbol for ``e^{epsilon/m}``:
        a mapping ``output -> probability`` or a sequence of probabilities,
        each a rational function of ``t`` with rational coefficients,
        nonnegative at ``t0`` and summing to 1 identically in ``t``.
    datasets : iterable of tuple
        The datasets whose neighbours are examined.
    epsilon : int, float or fractions.Fraction, epsilon > 0
        Used at its exact value (a float is the binary fraction it holds).
    m : int in [1, 1000]
        ``t = e^{epsilon/m}``.
    neighbours : {"replace", "add_remove"} or callable, default "replace"
    delta : int, float or fractions.Fraction, 0 <= delta <= 1, default 0
    domain : iterable, optional
        Default: every element of ``datasets``.
    ordered : bool, default False
    max_dps : int, max_dps >= 10, default 5000
        Largest precision of the interval evaluation, in decimal digits.
    law_epsilon : int, float or fractions.Fraction, optional
        The mechanism's own parameter when it differs from the claimed
        ``epsilon``: ``t`` then stands for ``e^{law_epsilon/m}`` and the claim
        is still ``P <= e^epsilon P'``. The decision stays exact: with
        ``law_epsilon/m = A s`` and ``epsilon = B s`` (``s`` rational, ``A``,
        ``B`` integers) every condition is a polynomial in ``u = e^s``
        (docs/theory/algebraic_verdicts.rst, Proposition 2). Default:
        ``epsilon``.

    Returns
    -------
    MechanismCheck
        With ``method = "algebraic"``; ``divergence`` and ``enclosure`` are the
        worst pair's divergence at about 29 digits (for the report); the
        verdict comes from the exact sign decisions.

    Raises
    ------
    ValueError
        Bad ``epsilon``, ``delta``, ``m`` or ``max_dps``; a law value that is
        not a rational function of ``t`` with rational coefficients; a
        negative probability at ``t0``; probabilities that do not sum to 1
        identically.
    ImportError
        sympy is not installed (``pip install 'refdp[exact]'``).

    Examples
    --------
    Randomised response reporting the bit with probability ``t/(1 + t)``,
    ``t = e^epsilon``, is epsilon-DP exactly:

    >>> rr = lambda d, t: {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}
    >>> check_algebraic(rr, [(0,), (1,)], epsilon=1, m=1).verdict
    <Verdict.HOLDS: 'holds'>

    Run at ``1 + 10**-40`` it is not 1-DP, and the verdict says so:

    >>> from fractions import Fraction
    >>> check_algebraic(rr, [(0,), (1,)], epsilon=1, m=1,
    ...                 law_epsilon=1 + Fraction(1, 10**40)).verdict
    <Verdict.FAILS: 'fails'>
    """
    owner = "check_algebraic"
    eps = _rational(epsilon, "epsilon", owner, low_open=True)
    law_eps = eps if law_epsilon is None else _rational(law_epsilon, "law_epsilon", owner, low_open=True)
    dlt = _rational(delta, "delta", owner, low_open=False, high=1)
    functions = RationalFunctions("t", owner)
    pairs, relation = neighbouring_pairs.__wrapped__(datasets, neighbours, domain=domain, ordered=ordered, owner=owner)
    laws = _Laws(law, functions, owner)
    signs = PointSign(law_eps / m, eps, max_dps)
    ctx = MPIntervalContext()
    ctx.prec = signs.start_bits
    reasons = []
    prepared: dict = {}

    def undecided(what):
        reasons.append(f"{what} not decided within {max_dps} digits")

    def prepare(d):
        """{o: (f, sign of its denominator at t0, enclosure of P(o) or None if 0)}, P(o) >= 0 checked."""
        if d in prepared:
            return prepared[d]
        rec = {}
        for o, f in laws.get(d).items():
            sd, sn = signs.sign(f.denom), signs.sign(f.numer)
            if sd is None or sn is None:
                undecided(f"the sign of P(o = {o!r}) for dataset {d!r}")
                sd = sd or 1
            elif sn * sd < 0:
                raise parameter_error("law", owner, "nonnegative probabilities at t = exp(epsilon/m)",
                                      Described(f"P = {f.as_expr()} < 0 for dataset {d!r}, output {o!r} "
                                                f"at t = exp({law_eps}/{m})"))
            rec[o] = (f, sd, signs.value(f) if f else None)
        prepared[d] = rec
        return rec

    zero = functions.zero
    w = signs.bound()
    rows = []  # (verdict, point, (lo, hi), pair, output, event)
    for d, e in pairs:
        pd, pe = prepare(d), prepare(e)
        outputs = list(dict.fromkeys(list(pd) + list(pe)))
        verdicts, worst, hockey = [], None, []
        for a, b, pa, pb in ((d, e, pd, pe), (e, d, pe, pd)):
            event, over, under = [], zero, zero   # sums of P_a and P_b over the event
            for o in outputs:
                fa, sa, va = pa.get(o, (zero, 1, None))
                fb, sb, vb = pb.get(o, (zero, 1, None))
                if fa == fb and law_eps <= eps:  # P_a = P_b <= e^eps P_b
                    s = 1
                else:  # P_a <= e^eps P_b  <=>  sign(w b_n a_d - a_n b_d) sign(a_d b_d) >= 0
                    s = signs.sign(fa.numer * fb.denom, fb.numer * fa.denom)
                if s is None:
                    undecided(f"P_d(o) <= e^epsilon P_d'(o) for d = {a!r}, d' = {b!r}, o = {o!r}")
                    v = Verdict.UNDECIDED
                else:
                    v = Verdict.HOLDS if s * sa * sb >= 0 else Verdict.FAILS
                if dlt == 0:
                    verdicts.append(v)
                    div = _log_ratio(ctx, va, vb)
                    if worst is None or div[0] > worst[0]:
                        worst = (div[0], div[1], (a, b), o)
                elif v is not Verdict.HOLDS:
                    if v is Verdict.UNDECIDED:
                        verdicts.append(v)
                    event.append(o)
                    over, under = over + fa, under + fb
            if dlt > 0:
                # delta - sum_S (P_a - w P_b) = w Y - Z with Y = sum_S P_b, Z = sum_S P_a - delta
                z = over - functions.convert(dlt, "delta", "")
                s = signs.sign(z.numer * under.denom, under.numer * z.denom)
                s_den = None if s is None else signs.sign(z.denom * under.denom)
                if s is None or s_den is None:
                    undecided(f"the hockey-stick sum for d = {a!r}, d' = {b!r}")
                    verdicts.append(Verdict.UNDECIDED)
                else:
                    verdicts.append(Verdict.HOLDS if s * s_den >= 0 else Verdict.FAILS)
                val = (signs.value(over) - w * signs.value(under)) if event else ctx.mpf(0)
                hockey.append((_mid(val), (_lo(val), _hi(val)), (a, b), tuple(event)))
        verdict = worst_verdict(verdicts)
        if dlt == 0:
            rows.append((verdict, worst[0], worst[1], worst[2], worst[3], ()))
        else:
            best = max(hockey, key=lambda h: h[0])
            rows.append((verdict, best[0], best[1], best[2], best[3][0] if best[3] else None, best[3]))
    verdict = worst_verdict(r[0] for r in rows)
    pool = [r for r in rows if r[0] is verdict] if verdict is not Verdict.HOLDS else rows
    worst = max(pool, key=lambda r: (r[1], r[2][1]))
    digits = int(signs.bits_used / 3.3219280948873626)
    law_t = f"t = exp({law_eps}/{m})" if law_epsilon is not None else f"t = exp(epsilon/{m})"
    note = f"algebraic: exact signs at {law_t} (up to {digits} digits)"
    if reasons:
        note += "; undecided: " + "; ".join(reasons[:3]) + (f" (and {len(reasons) - 3} more)"
                                                             if len(reasons) > 3 else "")
    return MechanismCheck(
        verdict=verdict, divergence=worst[1], enclosure=worst[2],
        bound=delta if dlt > 0 else epsilon,
        kind="max divergence" if dlt == 0 else "hockey-stick divergence",
        epsilon=epsilon, delta=delta, worst_pair=worst[3], worst_output=worst[4], event=worst[5],
        pairs_checked=len(rows),
        failing_pairs=sum(r[0] is Verdict.FAILS for r in rows),
        undecided_pairs=sum(r[0] is Verdict.UNDECIDED for r in rows),
        dps=digits, relation=relation, method="algebraic", note=note,
    )


def _lo(x):
    return mpmath.mp.make_mpf(x._mpi_[0])


def _hi(x):
    return mpmath.mp.make_mpf(x._mpi_[1])


def _mid(x):
    # the exact midpoint of the two ends (no rounding: mpf_add with prec=0 is exact)
    lo, hi = x._mpi_
    return mpmath.mp.make_mpf(mpmath.libmp.mpf_shift(mpmath.libmp.mpf_add(lo, hi, 0), -1))


def _log_ratio(ctx, va, vb):
    """(point, (lo, hi)) of |ln va - ln vb| for enclosures of two probabilities (None: exact zero)."""
    inf = mpmath.mpf("inf")
    if va is None and vb is None:
        return mpmath.mpf(0), (mpmath.mpf(0), mpmath.mpf(0))
    if va is None or vb is None:
        return inf, (inf, inf)
    a = ctx.mpf([max(_lo(va), 0), _hi(va)])
    b = ctx.mpf([max(_lo(vb), 0), _hi(vb)])
    if _lo(a) <= 0 or _lo(b) <= 0:
        return inf, (mpmath.mpf(0), inf)
    r = abs(ctx.log(a) - ctx.log(b))
    return _mid(r), (_lo(r), _hi(r))


# ---------------------------------------------------------------------------
# Every epsilon: signs on t > 1
# ---------------------------------------------------------------------------

@_c.constrained_fields(low=_c.Optional(_c.InstanceOf((Root,), "a Root")),
                       high=_c.Optional(_c.InstanceOf((Root,), "a Root")),
                       pair=_c.InstanceOf((tuple,), "a pair (d, d') of datasets (tuple)"),
                       unchecked="the witness found by the proof")
@dataclass(frozen=True)
class FailingRange:
    """An open range of epsilon on which the claim fails, with its witness.

    Attributes
    ----------
    low, high : Root or None
        The ends as roots ``t*`` of the witness polynomial, with certified
        enclosures of ``epsilon = m ln t*`` (:attr:`Root.epsilon`); ``low =
        None`` is epsilon = 0, ``high = None`` is infinity.
    pair : (tuple, tuple)
        ``(d, d')`` with ``P_d(o) > e^epsilon P_d'(o)`` on the range.
    output : object
        The output ``o``.
    """

    low: Root | None
    high: Root | None
    pair: tuple
    output: object

    @property
    def epsilon(self) -> tuple:
        """``((lo, hi), (lo, hi))``: enclosures of both ends of the epsilon range (mpmath.mpf)."""
        zero, inf = mpmath.mpf(0), mpmath.mpf("inf")
        a = (zero, zero) if self.low is None else self.low.epsilon
        b = (inf, inf) if self.high is None else self.high.epsilon
        return a, b

    def describe(self) -> str:
        a = "0" if self.low is None else self.low.describe()
        b = "inf" if self.high is None else self.high.describe()
        d, e = self.pair
        return (f"fails for epsilon in ({a}, {b}): P_d(o) > e^epsilon P_d'(o) with d = {d!r}, "
                f"d' = {e!r}, o = {self.output!r}")


@_c.constrained_fields(m=_M, pairs_checked=Interval(int, 0, None), conditions=Interval(int, 0, None),
                       polynomials=Interval(int, 0, None), law_pairs=Interval(int, 0, None),
                       unchecked="what the proof found")
@dataclass
class AllEpsilonProof:
    """Result of :func:`prove_for_all_epsilon`.

    Attributes
    ----------
    verdict : Verdict
        HOLDS (the claim holds for every epsilon > 0) or FAILS. Exact: there is
        no UNDECIDED.
    m : int
    failures : tuple of FailingRange
        Every (pair, output, direction) that fails somewhere, with its epsilon
        ranges; the claim fails exactly on their union.
    pairs_checked : int
        Unordered neighbouring pairs.
    conditions : int
        Sign conditions examined (pairs x outputs x 2 directions).
    polynomials : int
        Distinct polynomials among them (each decided once).
    law_pairs : int
        Distinct pairs of laws among the pairs (pairs whose two laws equal
        those of an earlier pair are not decided again).
    relation : str
    """

    verdict: Verdict
    m: int
    failures: tuple
    pairs_checked: int
    conditions: int
    polynomials: int
    relation: str = ""
    law_pairs: int = 0
    evidence: dict = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.verdict is Verdict.HOLDS

    @property
    def passed(self) -> bool:
        return bool(self)

    @property
    def epsilon_ranges(self) -> list:
        """The distinct epsilon ranges of :attr:`failures`, as enclosures of their ends."""
        return list(dict.fromkeys(f.epsilon for f in self.failures))

    @property
    def detail(self) -> str:
        head = (f"for every epsilon > 0 (t = e^(epsilon/{self.m})): {self.verdict.value.upper()}; "
                f"{self.pairs_checked} pairs ({self.relation}; {self.law_pairs} distinct law pairs), "
                f"{self.conditions} sign conditions, "
                f"{self.polynomials} distinct polynomials decided by real-root isolation over QQ")
        if not self.failures:
            return head
        shown = "; ".join(f.describe() for f in self.failures[:3])
        more = f" (and {len(self.failures) - 3} more)" if len(self.failures) > 3 else ""
        return f"{head}; {shown}{more}"

    def as_check_result(self) -> CheckResult:
        """A :class:`refdp.verify.registry.CheckResult`: measured = failing conditions, bound = 0, digits = 0 (exact)."""
        return CheckResult(measured=len(self.failures), bound=0, verdict=self.verdict, digits=0,
                           detail=self.detail, method="algebraic",
                           evidence=[self] if self.evidence else None)

    def __str__(self) -> str:
        return self.detail


@_c.constrained(law=_LAW, datasets=_DATASETS, m=_M, neighbours=_NEIGHBOURS, domain=_DOMAIN, ordered=_c.FLAG)
def prove_for_all_epsilon(law, datasets, m=1, neighbours="replace", *, domain=None, ordered=False):
    """Decide whether a law rational in ``t = e^{epsilon/m}`` is epsilon-DP for every epsilon > 0.

    Each condition ``P_d(o) <= t^m P_d'(o)`` becomes, after the denominators
    are made positive on ``t > 1``, a polynomial ``q(t) >= 0`` with rational
    coefficients. Its sign on ``(1, inf)`` is decided exactly: the positive
    roots of ``q(1 + u)`` are isolated over the rationals with their
    multiplicities (square-free decomposition inside ``sympy.Poly.intervals``)
    and the sign is followed from ``t = 1`` across the roots of odd
    multiplicity (docs/theory/algebraic_verdicts.rst, Proposition 3).

    Parameters
    ----------
    law : callable
        ``law(dataset, t)`` as for :func:`check_algebraic`; additionally every
        denominator must be free of roots ``t > 1`` (the law is defined for
        every epsilon > 0) and every probability nonnegative on ``t > 1``.
    datasets : iterable of tuple
    m : int in [1, 1000], default 1
    neighbours : {"replace", "add_remove"} or callable, default "replace"
    domain : iterable, optional
    ordered : bool, default False

    Returns
    -------
    AllEpsilonProof
        ``bool(result)`` is True only when the claim holds for every epsilon.

    Raises
    ------
    ValueError
        Bad ``m``; a law value that is not a rational function of ``t`` with
        rational coefficients, that has a pole at some ``t > 1``, that is
        negative somewhere on ``t > 1``, or probabilities that do not sum to 1
        identically.
    ImportError
        sympy is not installed (``pip install 'refdp[exact]'``).

    Examples
    --------
    >>> rr = lambda d, t: {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}
    >>> bool(prove_for_all_epsilon(rr, [(0,), (1,)]))
    True
    >>> wrong = lambda d, t: {d[0]: t**2 / (1 + t**2), 1 - d[0]: 1 / (1 + t**2)}
    >>> print(prove_for_all_epsilon(wrong, [(0,), (1,)]).failures[0].describe())
    fails for epsilon in (0, inf): P_d(o) > e^epsilon P_d'(o) with d = (0,), d' = (1,), o = 0
    """
    owner = "prove_for_all_epsilon"
    functions = RationalFunctions("t", owner)
    pairs, relation = neighbouring_pairs.__wrapped__(datasets, neighbours, domain=domain, ordered=ordered, owner=owner)
    laws = _Laws(law, functions, owner)
    tm = functions.ring.gens[0] ** m
    prepared: dict = {}
    decided: dict = {}
    poles: dict = {}

    def segments(q):
        key = functions.key(q)
        if key not in decided:
            decided[key] = negative_segments(functions, q, m)
        return decided[key]

    def prepare(d):
        if d in prepared:
            return prepared[d]
        rec = {}
        for o, f in laws.get(d).items():
            num, den = f.numer, f.denom
            dkey = functions.key(den)
            if dkey not in poles:
                poles[dkey] = roots_above_one(functions, den)
            if poles[dkey]:
                raise parameter_error("law", owner, "probabilities without poles at t > 1 (defined for "
                                      "every epsilon > 0)",
                                      Described(f"P = {f.as_expr()} for dataset {d!r}, output {o!r}"))
            if leading_sign(den) < 0:
                num, den = -num, -den
            neg = segments(num)
            if neg:
                a, b = neg[0]
                where = FailingRange(a, b, (d, d), o).describe().split(":")[0].replace("fails for ", "")
                raise parameter_error("law", owner, "probabilities nonnegative for every epsilon > 0",
                                      Described(f"P = {f.as_expr()} < 0 for {where}, dataset {d!r}, "
                                                f"output {o!r}"))
            rec[o] = (num, den)
        signature = frozenset((o, functions.key(n), functions.key(g)) for o, (n, g) in rec.items())
        prepared[d] = (rec, signature)
        return prepared[d]

    zero, one = functions.ring.zero, functions.ring.one
    failures, conditions, seen = [], 0, set()
    for d, e in pairs:
        (pd, sd), (pe, se) = prepare(d), prepare(e)
        if frozenset((sd, se)) in seen:  # the same two laws were decided for an earlier pair
            continue
        seen.add(frozenset((sd, se)))
        outputs = list(dict.fromkeys(list(pd) + list(pe)))
        for a, b, pa, pb in ((d, e, pd, pe), (e, d, pe, pd)):
            for o in outputs:
                conditions += 1
                na, da = pa.get(o, (zero, one))
                nb, db = pb.get(o, (zero, one))
                q = tm * nb * da - na * db
                for lo, hi in segments(q):
                    failures.append(FailingRange(lo, hi, (a, b), o))
    verdict = Verdict.FAILS if failures else Verdict.HOLDS
    evidence = {"laws": {d: {o: (functions.key(n), functions.key(g)) for o, (n, g) in rec.items()}
                         for d, (rec, _) in prepared.items()},
                "pairs": list(pairs)}
    return AllEpsilonProof(verdict=verdict, m=m, failures=tuple(failures), pairs_checked=len(pairs),
                           conditions=conditions, polynomials=len(decided), relation=relation,
                           law_pairs=len(seen), evidence=evidence)


@_c.constrained(proofs=_c.Checked("a non-empty sequence of AllEpsilonProof (checked in the body)",
                                 invalid=([], None)),
                labels=_c.Checked("None or one label per proof"))
def summarise_proofs(proofs, labels=None) -> CheckResult:
    """Fold several :class:`AllEpsilonProof` into one :class:`refdp.verify.registry.CheckResult`.

    The verdict is FAILS if any proof fails; ``measured`` is the number of
    failing conditions over all proofs (bound 0); the detail names the first
    failing proof, else the last one.

    Parameters
    ----------
    proofs : sequence of AllEpsilonProof
    labels : sequence of str, optional
    """
    proofs = _c.items_of(proofs, "proofs", "summarise_proofs", "a non-empty sequence of AllEpsilonProof",
                         kind=AllEpsilonProof)
    if labels is not None:
        labels = [str(x) for x in _c.items_of(labels, "labels", "summarise_proofs", "None or one label per proof",
                                              length=len(proofs))]
    if not proofs:
        raise parameter_error("proofs", "summarise_proofs", "a non-empty sequence of AllEpsilonProof",
                              Described("no proof"))
    labels = [f"#{i}" for i in range(len(proofs))] if labels is None else list(labels)
    bad = [i for i, p in enumerate(proofs) if not p]
    k = bad[0] if bad else len(proofs) - 1
    conditions = sum(p.conditions for p in proofs)
    detail = (f"{len(proofs)} proofs, {conditions} sign conditions in all, {len(bad)} proofs fail; "
              f"[{labels[k]}]: {proofs[k].detail}")
    return CheckResult(measured=sum(len(p.failures) for p in proofs), bound=0,
                       verdict=Verdict.FAILS if bad else Verdict.HOLDS, digits=0, detail=detail,
                       method="algebraic", evidence=[p for p in proofs if p.evidence])
