"""Exact, fail-closed privacy checks of mechanisms with finitely many outputs.

:func:`check_mechanism` enumerates neighbouring pairs of datasets, computes
the output distributions and decides the privacy claim for every pair:

* ``delta == 0``: pure epsilon-DP, ``max_o |ln P(o)/P'(o)| <= epsilon``
  ([DR14]_ Definition 2.4 via the max divergence, Definition 3.6);
* ``delta > 0``: (epsilon, delta)-DP, ``sum_o max(0, P(o) - e^eps P'(o)) <= delta``
  in both directions ([BBG18]_ Sec. 2).

**Protocol for the distribution function.** ``distribution_fn`` returns a
mapping ``output -> probability`` or a sequence of probabilities indexed by
output, listing the whole support. It is called in one of two ways:

* ``distribution_fn(dataset, ctx)`` -- *the context protocol* (used when the
  function takes a second positional parameter): ``ctx`` is an mpmath
  **interval** context created for this call (``ctx.exp``, ``ctx.log``,
  ``ctx.mpf``, ...), so a law written with it returns rigorous enclosures
  whatever other threads do. Its verdicts are **certified**.
* ``distribution_fn(dataset)`` -- *the legacy protocol*: the function computes
  with the global ``mpmath`` functions at "the current precision". It is
  evaluated under ``mpmath.workdps`` while holding
  :data:`refdp.utils.precision.GLOBAL_MPMATH_LOCK` (so refdp's own verifications
  never disturb each other), and the global precision is checked before and
  after each call.

Each probability is then enclosed in an interval:

* an mpmath interval (of any context) is used as it is (a rigorous
  enclosure; at the two evaluation precisions the two enclosures are
  intersected);
* an exact number -- ``int``, ``Fraction``, a float or any NumPy real type
  (``longdouble`` through its exact binary value) -- is exact;
* an ``mpf`` (of any context) is *estimated*: the law is evaluated again at
  ``2 * dps + 10`` digits, and the value is enclosed by the higher-precision
  value plus or minus the difference of the two evaluations plus ``10**-dps``
  times its magnitude (an ``mpf`` zero at both precisions is taken as zero).
  The verdict of a check that used one such value is labelled **estimated**:
  it is the agreement of two evaluations, not a proof, and under the legacy
  protocol another thread that changes mpmath's global precision and
  restores it while the law runs can falsify it undetected.

The divergence of each pair is computed in interval arithmetic in a context
owned by the call and compared with the bound by
:func:`refdp.verify.verdict.decide_enclosures`. A pair whose verdict is
UNDECIDED is retried at twice the precision, up to ``max_dps`` digits; only
then is it UNDECIDED, with the reason. UNDECIDED counts as a failure.

**Probability mass.** The enclosure of the sum of each distribution is
computed. A sum certainly above 1 is not a distribution: no pair involving
it can HOLD. A sum certainly below 1 leaves mass unlisted, which could sit on
an output the neighbour never produces: for ``delta == 0`` no such pair can
HOLD, and for ``delta > 0`` the possible missing mass ``1 - lower(sum)`` is
added to the hockey-stick divergence (charged adversarially). Sums more than
:data:`refdp.verify.divergences.SUM_TOLERANCE` from 1 are rejected with a
ValueError (a forgotten normalisation). A law whose enclosure of the sum
contains 1 is taken to list its whole support.

**Outputs.** Output keys are compared as the values a mechanism releases:
``-0.0`` and ``0.0`` are different outputs (their bits differ), and every NaN
is one output per bit pattern, not a key that never matches itself.

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Definitions 2.4 and 3.6.
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi, "Privacy Amplification by
   Subsampling", NeurIPS 2018, Sec. 2.
"""
from __future__ import annotations

import math
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
from mpmath import libmp

from ..utils.precision import (
    GLOBAL_MPMATH_LOCK,
    exact_rational,
    is_interval,
    is_mpf,
    iv_context,
    mp_context,
    mpf_exact,
    shared_context,
    raw_to_fraction,
)
from ..utils import constraints as _c
from ..utils.validation import Described, Interval, check_scalar, parameter_error
from .divergences import SUM_TOLERANCE, _check_probability
from .neighbours import neighbouring_pairs
from .registry import CheckResult
from .verdict import Verdict, _raw_bounds, decide_enclosures, takes_context, worst_verdict

__all__ = ["MechanismCheck", "check_mechanism", "check_pairs", "higher_precision", "summarise",
           "CERTIFIED", "ESTIMATED", "ALGEBRAIC"]

#: Method labels: how a verdict was reached.
CERTIFIED = "certified"
ESTIMATED = "estimated"
ALGEBRAIC = "algebraic"

_EPSILON = Interval(float, 0, None, closed="left")
_DELTA = Interval(float, 0, 1, closed="both")
_DPS = Interval(int, 5, _c.MAX_DPS)
_MAX_DPS = Interval(int, 5, 100_000)

_ZERO = libmp.fzero
_ONE = libmp.fone
_INF = libmp.finf


@_c.constrained(dps=Interval(int, 1, None))
def higher_precision(dps: int) -> int:
    """The second precision of the two-precision estimate: ``2 * dps + 10`` digits."""
    return 2 * dps + 10


def _gt(a, b) -> bool:
    return libmp.mpf_gt(a, b)


def _rmax(a, b):
    return a if libmp.mpf_ge(a, b) else b


def _nstr(raw, digits) -> str:
    return mpmath.nstr(mpf_exact(raw), digits)


@_c.constrained_fields(epsilon=_c.PRIVACY, delta=_c.PROBABILITY_RESULT, unchecked="what the check found")
@dataclass
class MechanismCheck:
    """Result of :func:`check_mechanism` or :func:`check_pairs`.

    ``bool(result)`` is True only when the verdict is HOLDS.

    Attributes
    ----------
    verdict : Verdict
        Worst verdict over all pairs (FAILS if any pair fails, else UNDECIDED
        if any is undecided, else HOLDS). Only HOLDS passes.
    divergence : mpmath.mpf
        Divergence of the worst pair (midpoint of its enclosure).
    enclosure : tuple of mpmath.mpf
        ``(lower, upper)`` interval enclosing that divergence.
    bound : float
        ``epsilon`` (pure DP) or ``delta`` (approximate DP).
    kind : str
        ``"max divergence"`` or ``"hockey-stick divergence"``.
    epsilon, delta : float
    worst_pair : tuple
        ``(d, d')``; for the hockey-stick divergence, the direction with the
        larger value. Among failing pairs if any fail, else among undecided
        pairs if any, else among all: the one with the largest divergence.
    worst_output : object
        Output attaining the max divergence, or contributing most to the
        hockey-stick sum.
    event : tuple
        Hockey-stick only: the outputs with ``P_d(o) > e^eps P_d'(o)``.
    pairs_checked, failing_pairs, undecided_pairs : int
        Unordered pairs examined, and how many of them FAIL / are UNDECIDED.
    dps : int
        Starting precision in decimal digits.
    relation : str
        Description of the neighbour relation.
    method : {"certified", "estimated", "algebraic"}
        ``"certified"``: every probability was exact or an interval enclosure
        and the comparison is a proof; ``"estimated"``: some probability was
        enclosed by the two-precision estimate; ``"algebraic"``: decided by
        exact polynomial arithmetic (:mod:`refdp.verify.algebraic`).
    max_dps_used : int
        The highest precision the adaptive refinement reached.
    reason : str
        Why the verdict is UNDECIDED (empty otherwise).
    note : str
        How the comparison was made, shown in :attr:`detail` when set
        (algebraic verdicts).
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
    method: str = CERTIFIED
    max_dps_used: int = 0
    reason: str = ""
    evidence: dict = field(default=None, repr=False, compare=False)
    note: str = ""

    @property
    def passed(self) -> bool:
        """True only for HOLDS (UNDECIDED fails closed)."""
        return self.verdict.passed

    def __bool__(self) -> bool:
        return self.passed

    @property
    def detail(self) -> str:
        """One paragraph naming the worst pair, output, the enclosure and the method."""
        digits = min(self.dps, 20)
        d, e = self.worst_pair
        lo, hi = self.enclosure
        what = (f"max divergence {mpmath.nstr(self.divergence, digits)} vs epsilon = {self.epsilon!r}"
                if self.kind == "max divergence" else
                f"hockey-stick divergence at epsilon = {self.epsilon!r}: "
                f"{mpmath.nstr(self.divergence, digits)} vs delta = {self.delta!r}")
        wctx = mp_context(higher_precision.__wrapped__(self.max_dps_used or self.dps) + 10)
        width = wctx.mpf(hi) - wctx.mpf(lo) if mpmath.isfinite(hi) else mpmath.inf
        how = self.note or f"up to {self.max_dps_used or self.dps} digits"
        text = (f"{what}: {self.verdict.value.upper()} ({self.method}; "
                f"enclosure [{mpmath.nstr(lo, digits)}, {mpmath.nstr(hi, digits)}] of width "
                f"{mpmath.nstr(width, 3)}, {how}); "
                f"worst pair d = {d!r}, d' = {e!r}; worst output {self.worst_output!r}")
        if self.kind != "max divergence":
            text += f"; event {self.event!r}"
        text += (f"; {self.pairs_checked} pairs checked"
                 + (f" ({self.relation})" if self.relation else "")
                 + f", {self.failing_pairs} fail, {self.undecided_pairs} undecided")
        if self.reason:
            text += f"; undecided because {self.reason}"
        return text

    def as_check_result(self) -> CheckResult:
        """The :class:`refdp.verify.registry.CheckResult` for ``refdp verify``."""
        return CheckResult(measured=self.divergence, bound=self.bound, verdict=self.verdict,
                           digits=self.dps, detail=self.detail, method=self.method,
                           evidence=[self] if self.evidence else None)

    def __str__(self) -> str:
        return self.detail


# ---------------------------------------------------------------------------
# Output keys
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class FloatOutput:
    """An output key for a float whose value does not identify it: ``-0.0`` or a NaN.

    ``-0.0 == 0.0`` and ``nan != nan`` in Python, but a released ``-0.0`` is
    distinguishable from ``0.0`` and every NaN bit pattern is one value. Keys
    are compared by their IEEE-754 binary64 bits.
    """

    bits: int

    def __repr__(self) -> str:
        v = struct.unpack("<d", struct.pack("<Q", self.bits))[0]
        return "-0.0" if v == 0 else f"nan(0x{self.bits:016x})"


def canonical_output(o):
    """The key under which output ``o`` is compared (see :class:`FloatOutput`)."""
    if isinstance(o, (float, np.floating)) and not isinstance(o, np.longdouble):
        f = float(o)
        if math.isnan(f) or (f == 0 and math.copysign(1.0, f) < 0):
            return FloatOutput(struct.unpack("<Q", struct.pack("<d", f))[0])
        return f
    if isinstance(o, np.longdouble):
        if np.isnan(o) or (o == 0 and np.signbit(o)):
            return FloatOutput(int.from_bytes(np.array(o).tobytes(), "little") | (1 << 127))
        return o
    if isinstance(o, tuple):
        return tuple(canonical_output(x) for x in o)
    return o


# ---------------------------------------------------------------------------
# Evaluating laws
# ---------------------------------------------------------------------------

class _Tampered(Exception):
    """The global mpmath precision changed while a legacy law ran."""


class _Record:
    """The enclosed distribution of one dataset at one precision level.

    ``enc[o] = (lo_raw, hi_raw)``; ``exact[o]`` the Fraction when exact;
    outputs of exactly zero probability are dropped.
    """

    __slots__ = ("enc", "exact", "estimated", "sum", "length", "logs", "level")

    def __init__(self):
        self.enc, self.exact, self.logs = {}, {}, {}
        self.estimated = False
        self.sum = (_ZERO, _ZERO)
        self.length = None
        self.level = 0


def _items(raw, owner, d):
    name = "distribution_fn"
    where = f"{owner} (dataset {d!r})"
    if isinstance(raw, Mapping):
        items = list(raw.items())
        length = None
    elif isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__"):
        raise parameter_error(name, where, "a mapping output -> probability or a sequence of probabilities",
                              raw)
    else:
        if isinstance(raw, np.ndarray) and raw.ndim != 1:
            raise parameter_error(name, where, "a 1-dimensional sequence of probabilities", raw)
        items = list(enumerate(raw))
        length = len(items)
    if not items:
        raise parameter_error(name, where, "a distribution with at least one output", raw)
    out = {}
    for o, v in items:
        k = canonical_output(o)
        if k in out:
            raise parameter_error(name, where, "a distribution with distinct outputs",
                                  Described(f"output {o!r} listed twice"))
        out[k] = _check_value(v, o, where)
    return out, length


def _check_value(v, o, where):
    """A validated probability: an interval or mpf as given, anything exact as a Fraction."""
    v = _check_probability(v, o, "distribution_fn", where)
    return v if is_interval(v) or is_mpf(v) else exact_rational(v)


class _Law:
    """Evaluates, encloses and caches a law's distributions per precision level."""

    def __init__(self, fn, owner):
        self.fn, self.owner = fn, owner
        self.with_ctx = takes_context(fn, 1)
        self.cache = {}   # (d, level) -> _Record; exact laws under (d, None)
        self.calls = 0

    def _evaluate(self, d, dps):
        self.calls += 1
        if self.with_ctx:
            return _items(self.fn(d, shared_context(dps, True)), self.owner, d)
        # Legacy protocol only: such a law computes "at the current precision" with
        # the global mpmath functions, so the global precision must be set for it
        # (under the lock, checked before and after; its verdicts are estimated).
        for _ in range(3):
            with GLOBAL_MPMATH_LOCK, mpmath.workdps(dps):
                saved_iv = mpmath.iv.prec
                try:
                    mpmath.iv.dps = dps
                    want = (mpmath.mp.prec, mpmath.iv.prec)
                    raw = self.fn(d)
                    got = (mpmath.mp.prec, mpmath.iv.prec)
                    if got == want:
                        return _items(raw, self.owner, d)
                finally:
                    mpmath.iv.prec = saved_iv
        raise _Tampered()

    def get(self, d, level):
        rec = self.cache.get((d, None)) or self.cache.get((d, level))
        if rec is not None:
            return rec
        first, len1 = self._evaluate(d, level)
        if all(not is_mpf(v) for v in first.values()):
            rec = self._enclose(first, None, level)
            rec.length = len1
            exact_only = len(rec.exact) == len(rec.enc)
            self.cache[(d, None) if exact_only else (d, level)] = rec
            return rec
        hi = higher_precision.__wrapped__(level)
        second, len2 = self._evaluate(d, hi)
        if len1 != len2:
            raise parameter_error("distribution_fn", f"{self.owner} (dataset {d!r})",
                                  "a distribution with the same outputs at every precision",
                                  Described(f"{len1} outputs at dps {level} and {len2} at dps {hi}"))
        rec = self._enclose(second, first, level)
        rec.length = len2
        self.cache[(d, level)] = rec
        return rec

    def _enclose(self, values, other, level):
        rec = _Record()
        rec.level = level
        hi = higher_precision.__wrapped__(level)
        ivc = shared_context(hi + 10, True)
        total = ivc.mpf(0)
        outputs = list(values)
        if other is not None:
            outputs.extend(o for o in other if o not in values)
        for o in outputs:
            b = values.get(o, Fraction(0))
            a = other.get(o, Fraction(0)) if other is not None else b
            if isinstance(b, Fraction) and isinstance(a, Fraction) and a == b:
                if b == 0:
                    continue
                rec.exact[o] = b
                lo_hi = _raw_bounds(b)
            elif is_interval(b):
                lo, up = b._mpi_
                if is_interval(a):
                    lo, up = _rmax(lo, a._mpi_[0]), (a._mpi_[1] if libmp.mpf_lt(a._mpi_[1], up) else up)
                    if libmp.mpf_gt(lo, up):
                        raise parameter_error(
                            "distribution_fn", self.owner,
                            "enclosures that contain the true probability at every precision",
                            Described(f"disjoint enclosures {a!r} and {b!r} for output {o!r}"))
                lo_hi = (_rmax(lo, _ZERO), up)
            else:
                rec.estimated = True
                ctx = mp_context(hi + 10)
                c = ctx.make_mpf(b._mpf_) if is_mpf(b) else ctx.mpf(_raw_mpf(b))
                ca = (ctx.make_mpf(a._mpf_) if is_mpf(a) else
                      ctx.make_mpf(a._mpi_[0]) if is_interval(a) else ctx.mpf(_raw_mpf(a)))
                if c == 0 and ca == 0:
                    continue
                pad = ctx.mpf(10) ** (-level)
                r = (abs(c - ca) + pad * abs(c)) * (1 + pad)
                e = ivc.mpf(mpf_exact(c._mpf_)) + ivc.mpf([mpf_exact((-r)._mpf_), mpf_exact(r._mpf_)])
                lo_hi = (_rmax(e._mpi_[0], _ZERO), e._mpi_[1])
            if lo_hi[1] == _ZERO:
                continue
            rec.enc[o] = lo_hi
            total += ivc.mpf([mpf_exact(lo_hi[0]), mpf_exact(lo_hi[1])])
        rec.sum = total._mpi_
        return rec


def _raw_mpf(q):
    """An mpf holding the exact rational ``q`` when dyadic, else rounded to nearest at 300 bits."""
    q = Fraction(q)
    return mpf_exact(libmp.from_rational(q.numerator, q.denominator, 300, libmp.round_nearest))


# ---------------------------------------------------------------------------
# Pair divergences at one precision level
# ---------------------------------------------------------------------------

class _Level:
    """Interval arithmetic at one precision level (a context owned by the check)."""

    def __init__(self, level, epsilon: Fraction):
        self.level = level
        self.ctx = iv_context(higher_precision.__wrapped__(level) + 10)
        c = self.ctx
        self.eps = c.mpf(epsilon.numerator) / c.mpf(epsilon.denominator)
        self.factor = c.exp(self.eps)

    def iv(self, lo_hi):
        return self.ctx.mpf([mpf_exact(lo_hi[0]), mpf_exact(lo_hi[1])])

    def log(self, rec, o):
        key = (id(self), o)
        v = rec.logs.get(key)
        if v is None:
            v = self.ctx.log(self.iv(rec.enc[o]))
            rec.logs[key] = v
        return v


def _pair_max(rd, re_, lv: _Level):
    """((lo_raw, hi_raw), worst output) of max_o |ln P_d(o) - ln P_e(o)|."""
    lo_max = hi_max = _ZERO
    worst, worst_key = None, None
    for o in dict.fromkeys(list(rd.enc) + list(re_.enc)):
        ed, ee = rd.enc.get(o), re_.enc.get(o)
        if ed is None or ee is None:
            other = ee if ed is None else ed
            v = (_INF, _INF) if _gt(other[0], _ZERO) else (_ZERO, _INF)
        elif o in rd.exact and o in re_.exact and rd.exact[o] == re_.exact[o]:
            v = (_ZERO, _ZERO)
        elif ed[0] == _ZERO or ee[0] == _ZERO:
            v = (_ZERO, _INF)
        else:
            x = abs(lv.log(rd, o) - lv.log(re_, o))
            v = (_rmax(x._mpi_[0], _ZERO), x._mpi_[1])
        key = (v[1], v[0])
        if worst is None or libmp.mpf_gt(key[0], worst_key[0]) or (
                key[0] == worst_key[0] and libmp.mpf_gt(key[1], worst_key[1])):
            worst, worst_key = o, key
        lo_max, hi_max = _rmax(lo_max, v[0]), _rmax(hi_max, v[1])
    return (lo_max, hi_max), worst


def _pair_hockey(rd, re_, lv: _Level):
    """((lo_raw, hi_raw), worst output, event) of sum_o max(0, P_d(o) - e^eps P_e(o)) + missing mass."""
    c = lv.ctx
    total = c.mpf(0)
    best, best_out, event = None, None, []
    for o in dict.fromkeys(list(rd.enc) + list(re_.enc)):
        ed = rd.enc.get(o)
        if ed is None:
            continue  # P_d(o) = 0 contributes nothing
        t = lv.iv(ed)
        ee = re_.enc.get(o)
        if ee is not None:
            t = t - lv.factor * lv.iv(ee)
        lo, hi = t._mpi_
        if not _gt(hi, _ZERO):
            continue
        if ee is None or _gt(libmp.mpf_add(lo, hi), _ZERO):   # midpoint of the term > 0
            event.append(o)
        t = c.mpf([mpf_exact(_rmax(lo, _ZERO)), mpf_exact(hi)])
        total = total + t
        if best is None or _gt(hi, best):
            best, best_out = hi, o
    # mass of P_d certainly missing from the listed outputs is charged in full
    # (it may sit where P_e = 0); a sum whose enclosure contains 1 is taken to
    # list the whole support
    if libmp.mpf_lt(rd.sum[1], _ONE):
        missing = (c.mpf(1) - lv.iv(rd.sum))._mpi_[1]
        total = total + c.mpf([0, mpf_exact(missing)])   # anywhere from 0 to all of it
    return total._mpi_, best_out, tuple(event)


def _mass_problem(rec, delta_zero: bool) -> str:
    """A reason why no pair with this record can HOLD, or ''."""
    lo, hi = rec.sum
    if _gt(lo, _ONE):
        return f"its probabilities sum to more than 1 (at least {_nstr(lo, 20)})"
    if delta_zero and libmp.mpf_lt(hi, _ONE):
        return (f"its probabilities sum to less than 1 (at most {_nstr(hi, 20)}): the missing mass may "
                f"sit on an output the neighbour never produces")
    return ""


def _check_sum(rec, owner, d):
    lo, hi = rec.sum
    tol = SUM_TOLERANCE
    lo_q, hi_q = raw_to_fraction(lo), raw_to_fraction(hi)
    if hi_q < 1 - tol or lo_q > 1 + tol:
        shown = mpmath.nstr(mpf_exact(lo), 17)
        raise parameter_error("distribution_fn", f"{owner} (dataset {d!r})",
                              f"a distribution whose probabilities sum to 1 within {float(tol):g}",
                              Described(f"probabilities summing to {shown}"))


def _exact_ratio(r):
    """``divergence / bound`` for values without an exact rational form, in a private context."""
    c = mp_context(60)
    if r.bound > 0:
        return raw_to_fraction((c.mpf(r.divergence) / c.mpf(r.bound))._mpf_)
    return math.inf if r.divergence > 0 else Fraction(0)


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------

def _exact_epsilon(epsilon, name, owner):
    q = exact_rational(epsilon)
    if q is None:
        check_scalar(epsilon, name, owner, _EPSILON)   # raises with the standard message
        raise parameter_error(name, owner, "a finite real number", epsilon)
    return q


_IN_BODY = "checked in the body, so that the errors of check_mechanism name it"


@_c.constrained(
    distribution_fn=_c.Checked("a callable dataset -> distribution (" + _IN_BODY + ")", invalid=(None, 1.5)),
    pairs=_c.Checked("an iterable of pairs of distinct hashable datasets (checked in the body)",
                     invalid=([], None, 1.5, [((0,), (0,))])),
    epsilon=_c.Checked("a float or Fraction in [0, inf) (" + _IN_BODY + ")",
                       invalid=(-1.0, float("nan"), float("inf"), "1", None)),
    delta=_c.Checked("a float in [0, 1] (" + _IN_BODY + ")", invalid=(-1.0, 2.0, float("nan"), None)),
    dps=_c.Checked("an int in [5, 5000] (" + _IN_BODY + ")", invalid=(0, 1.5, 10 ** 9)),
    relation=_c.InstanceOf((str,), "a str"),
    max_dps=_c.Checked("an int in [dps, 100000] (" + _IN_BODY + ")", invalid=(0, 10 ** 9)),
    client=_c.Checked("None or a dask.distributed Client (checked by check_client)", invalid=(1.5,)),
    progress=_c.Checked("a bool or a progress callback (used by the distributed run)"),
    _owner=_c.InstanceOf((str,), "a str"),
)
def check_pairs(distribution_fn, pairs, epsilon, delta=0.0, dps=30, *, relation="given pairs",
                max_dps=200, client=None, progress=False, _owner="check_pairs"):
    """Decide a DP claim exactly on given pairs of neighbouring datasets.

    Parameters
    ----------
    distribution_fn : callable
        ``(dataset, ctx) -> distribution`` or ``dataset -> distribution``;
        see the module docstring for the protocol.
    pairs : iterable of (dataset, dataset)
        Hashable datasets (tuples). Each unordered pair is decided once, in
        both directions.
    epsilon : float, int or Fraction, epsilon >= 0
        Taken at its exact value (a float at its binary value, a
        ``numpy.longdouble`` too).
    delta : float, 0 <= delta <= 1, default 0
    dps : int, dps >= 5, default 30
        Starting precision in decimal digits.
    relation : str
        How the pairs were produced (shown in the report).
    max_dps : int, default 200
        Undecided pairs are retried at doubled precision up to this many
        digits.
    client : distributed.Client, optional
        Decide the pairs on a Dask cluster (:mod:`refdp.distributed`) in two
        phases: each dataset's law is evaluated and enclosed once (datasets
        sharded by index), then the pairs are cut into contiguous shards by
        index, each sent with the records of its datasets, and the shards'
        summaries are combined exactly, so the result is identical to the
        local run whatever the number of workers. The law
        must pickle. The result then carries no ``evidence`` (no certificate).
    progress : bool, default False
        With ``client``, report shards done on standard error.

    Returns
    -------
    MechanismCheck
        ``bool(result)`` is True only for HOLDS.

    Raises
    ------
    ValueError
        Bad ``epsilon``, ``delta``, ``dps``, ``max_dps``; no pair; a
        distribution that is not one (negative or non-real probability, a sum
        more than :data:`refdp.verify.divergences.SUM_TOLERANCE` away from
        1); two distributions given as sequences of different lengths.
    """
    owner = _owner
    check_scalar(float(epsilon) if isinstance(epsilon, Fraction) else epsilon, "epsilon", owner, _EPSILON)
    eps_q = _exact_epsilon(epsilon, "epsilon", owner)
    delta = check_scalar(delta, "delta", owner, _DELTA)
    delta_q = exact_rational(delta)
    dps = check_scalar(dps, "dps", owner, _DPS)
    max_dps = check_scalar(max_dps, "max_dps", owner, _MAX_DPS)
    if max_dps < dps:
        raise parameter_error("max_dps", owner, f"an int >= dps ({dps})", max_dps)
    if not callable(distribution_fn):
        raise parameter_error("distribution_fn", owner, "a callable dataset -> distribution", distribution_fn)
    seen, plist = set(), []
    for pair in _c.items_of(pairs, "pairs", owner, "an iterable of pairs of hashable datasets"):
        try:
            d, e = pair
            key = frozenset((d, e))
        except (TypeError, ValueError):
            raise parameter_error("pairs", owner, "an iterable of pairs of hashable datasets", pair) from None
        if d == e or key in seen:
            continue
        seen.add(key)
        plist.append((d, e))
    if not plist:
        raise parameter_error("pairs", owner, "at least one pair of distinct datasets", Described("no pair"))

    if client is None:
        law = _Law(distribution_fn, owner)
        rows, top, estimated = _decide_all(law, plist, eps_q, delta_q, dps, max_dps, owner)
        summaries = [_summarise_rows(rows, top, estimated)]
    else:
        from ..distributed import check_client, check_picklable, map_ordered, n_workers

        check_client(client, owner)
        check_picklable(distribution_fn, "distribution_fn", owner)
        workers = n_workers(client)
        # phase 1: each dataset's law once, at the starting precision, sharded by dataset index
        datasets = list(dict.fromkeys(x for pair in plist for x in pair))
        size = max(1, -(-len(datasets) // (4 * workers)))
        parts = map_ordered(client, _LawTask(distribution_fn, dps, owner),
                            [datasets[i:i + size] for i in range(0, len(datasets), size)],
                            label=f"{owner}: laws", progress=progress)
        records = {}
        for part in parts:
            records.update(part)
        # phase 2: pairs sharded by index, each shard sent with the records of its datasets
        size = max(1, -(-len(plist) // (4 * workers)))
        shards = []
        for i in range(0, len(plist), size):
            shard = plist[i:i + size]
            mine = {}
            for d in dict.fromkeys(x for pair in shard for x in pair):
                for key in ((d, None), (d, dps)):
                    if key in records:
                        mine[key] = records[key]
            shards.append((shard, mine))
        task = _ShardTask(distribution_fn, eps_q, delta_q, dps, max_dps, owner)
        summaries = map_ordered(client, task, shards, label=f"{owner}: pairs", progress=progress)
    result = _combine(summaries, plist_len=len(plist), epsilon=epsilon, delta=delta, dps=dps,
                      relation=relation)
    if client is None:
        result.evidence = {"law": law, "rows": rows, "pairs": plist, "epsilon": eps_q, "delta": delta_q}
    return result


def _decide_all(law, plist, eps_q, delta_q, dps, max_dps, owner):
    """Decide every pair, retrying undecided ones at doubled precision.

    Returns (rows, the highest level used, whether any evaluation was estimated).
    """
    levels = [dps]
    while levels[-1] < max_dps:
        levels.append(min(2 * levels[-1], max_dps))
    rows = [None] * len(plist)
    pending = list(range(len(plist)))
    top = dps
    estimated = False
    for level in levels:
        lv = _Level(level, eps_q)
        top = level
        still = []
        for i in pending:
            d, e = plist[i]
            row = _decide_pair(law, d, e, lv, delta_q, owner)
            estimated |= row["estimated"]
            rows[i] = row
            if row["verdict"] is Verdict.UNDECIDED and row["retry"]:
                still.append(i)
        pending = still
        if not pending:
            break
    return rows, top, estimated


def _summarise_rows(rows, top, estimated) -> dict:
    """What a shard of pairs contributes to the verdict: small and picklable (no laws, no records)."""
    verdict = worst_verdict(r["verdict"] for r in rows)
    pool = [r for r in rows if r["verdict"] is verdict] if verdict is not Verdict.HOLDS else rows
    worst = max(pool, key=lambda r: (mpf_exact(r["enc"][1]), mpf_exact(r["enc"][0])))
    return {"verdict": verdict, "top": top,
            "worst": {k: worst[k] for k in ("enc", "pair", "output", "event")},
            "estimated": estimated,
            "failing": sum(r["verdict"] is Verdict.FAILS for r in rows),
            "undecided": sum(r["verdict"] is Verdict.UNDECIDED for r in rows),
            "reasons": sorted({r["reason"] for r in rows if r["verdict"] is Verdict.UNDECIDED and r["reason"]})}


#: Laws evaluated on this worker process, by sweep token: the shards of one
#: sweep that land on the same worker share one cache of the records they
#: were sent and of the datasets evaluated again at a higher precision.
#: Only the latest sweeps are kept.
_WORKER_LAWS: dict = {}
_WORKER_LAWS_KEPT = 2


class _ShardTask:
    """Decide one shard of pairs on a worker (a picklable callable: the law and the claim)."""

    def __init__(self, distribution_fn, eps_q, delta_q, dps, max_dps, owner):
        import uuid

        self.args = (distribution_fn, eps_q, delta_q, dps, max_dps, owner)
        self.token = uuid.uuid4().hex

    def __call__(self, item):
        shard, records = item
        distribution_fn, eps_q, delta_q, dps, max_dps, owner = self.args
        law = _WORKER_LAWS.get(self.token)
        if law is None:
            while len(_WORKER_LAWS) >= _WORKER_LAWS_KEPT:
                _WORKER_LAWS.pop(next(iter(_WORKER_LAWS)))
            law = _WORKER_LAWS[self.token] = _Law(distribution_fn, owner)
        law.cache.update(records)   # evaluated in phase 1; higher precisions are evaluated here
        return _summarise_rows(*_decide_all(law, shard, eps_q, delta_q, dps, max_dps, owner))


class _LawTask:
    """Phase 1 of a distributed sweep: evaluate and enclose the law on a shard of datasets (on a worker).

    Returns the law's cache entries (``(dataset, level) -> record``, exact
    laws under ``(dataset, None)``) at the starting precision: what the
    local run's cache holds for these datasets before any retry. A legacy
    law whose global precision was changed while it ran is left out (the
    pair task evaluates it again and reports it as the local run does).
    """

    def __init__(self, distribution_fn, dps, owner):
        self.args = (distribution_fn, dps, owner)

    def __call__(self, datasets):
        distribution_fn, dps, owner = self.args
        law = _Law(distribution_fn, owner)
        for d in datasets:
            try:
                law.get(d, dps)
            except _Tampered:
                pass
        return law.cache


def _combine(summaries, *, plist_len, epsilon, delta, dps, relation) -> "MechanismCheck":
    """One verdict from the shards' summaries, exactly as if the pairs had been decided in one loop.

    The verdict is the worst; the worst pair is the first one (in pair order)
    attaining the largest upper end among the pairs with that verdict, which is
    the first maximum among the shards' own worst pairs, shards being
    contiguous in pair order.
    """
    verdict = worst_verdict(s["verdict"] for s in summaries)
    pool = [s["worst"] for s in summaries if verdict is Verdict.HOLDS or s["verdict"] is verdict]
    worst = max(pool, key=lambda r: (mpf_exact(r["enc"][1]), mpf_exact(r["enc"][0])))
    top = max(s["top"] for s in summaries)
    lo, hi = worst["enc"]
    if hi == _INF:
        mid = mpmath.inf if lo == _INF else mpf_exact(hi)
    else:
        c = mp_context(higher_precision.__wrapped__(top) + 10)
        mid = mpf_exact(((c.make_mpf(lo) + c.make_mpf(hi)) / 2)._mpf_)
    reasons = sorted({r for s in summaries for r in s["reasons"]})
    return MechanismCheck(
        verdict=verdict, divergence=mid, enclosure=(mpf_exact(lo), mpf_exact(hi)),
        bound=delta if delta > 0 else epsilon,
        kind="max divergence" if delta == 0 else "hockey-stick divergence",
        epsilon=epsilon, delta=delta, worst_pair=worst["pair"], worst_output=worst["output"],
        event=worst["event"], pairs_checked=plist_len,
        failing_pairs=sum(s["failing"] for s in summaries),
        undecided_pairs=sum(s["undecided"] for s in summaries),
        dps=dps, relation=relation,
        method=ESTIMATED if any(s["estimated"] for s in summaries) else CERTIFIED,
        max_dps_used=top, reason="; ".join(reasons[:3]),
    )


def _decide_pair(law, d, e, lv, delta_q, owner):
    try:
        rd, re_ = law.get(d, lv.level), law.get(e, lv.level)
    except _Tampered:
        return {"verdict": Verdict.UNDECIDED, "enc": (_ZERO, _INF), "pair": (d, e), "output": None,
                "event": (), "estimated": True, "retry": True, "records": None,
                "reason": "mpmath's global precision was changed by other code while the law ran"}
    for rec, ds in ((rd, d), (re_, e)):
        _check_sum(rec, owner, ds)
    if rd.length is not None and re_.length is not None and rd.length != re_.length:
        raise parameter_error(
            "distribution_fn", owner, "sequences of the same length for every dataset",
            Described(f"{rd.length} probabilities for {d!r} and {re_.length} for {e!r}"))
    estimated = rd.estimated or re_.estimated
    delta_zero = delta_q == 0
    if delta_zero:
        enc, out = _pair_max(rd, re_, lv)
        ev, oriented = (), (d, e)
    else:
        a = _pair_hockey(rd, re_, lv)
        b = _pair_hockey(re_, rd, lv)
        if libmp.mpf_gt(b[0][1], a[0][1]):
            a, oriented = b, (e, d)
        else:
            oriented = (d, e)
        enc, out, ev = a
    bound = Fraction(delta_q) if not delta_zero else None
    if delta_zero:
        verdict = decide_enclosures(lv.ctx.mpf([mpf_exact(enc[0]), mpf_exact(enc[1])]), lv.eps)
    else:
        verdict = decide_enclosures(lv.ctx.mpf([mpf_exact(enc[0]), mpf_exact(enc[1])]), bound)
    reason, retry = "", True
    if verdict is Verdict.HOLDS:
        problems = [p for p in (_mass_problem(rd, delta_zero), _mass_problem(re_, delta_zero)) if p]
        if problems:
            verdict, retry = Verdict.UNDECIDED, False
            reason = "a distribution " + problems[0]
    elif verdict is Verdict.UNDECIDED:
        if enc[1] == _INF and enc[0] != _INF:
            reason = ("an output has probability enclosed by an interval touching 0 on one side and "
                      "positive on the other")
        else:
            reason = f"the enclosures still overlap at {higher_precision.__wrapped__(lv.level)} digits"
    return {"verdict": verdict, "enc": enc, "pair": oriented, "output": out, "event": ev,
            "estimated": estimated, "retry": retry, "records": (rd, re_), "reason": reason}


@_c.constrained(
    distribution_fn=_c.Checked("a callable dataset -> distribution (checked by check_pairs)", invalid=(None, 1.5)),
    datasets=_c.Checked("a non-empty iterable of datasets (checked by neighbouring_pairs)", invalid=([], None)),
    epsilon=_c.Checked("a float or Fraction in [0, inf) (checked by check_pairs)",
                       invalid=(-1.0, float("nan"), float("inf"), "1", None)),
    delta=_c.Checked("a float in [0, 1] (checked by check_pairs)", invalid=(-1.0, 2.0, float("nan"), None)),
    neighbours=_c.Checked("'replace', 'add_remove' or a callable (checked by neighbour_function)",
                          invalid=("no such", 1.5)),
    dps=_c.Checked("an int in [5, 5000] (checked by check_pairs)", invalid=(0, 1.5, 10 ** 9)),
    domain=_c.Checked("None or a finite domain (checked by check_domain)"),
    ordered=_c.FLAG,
    max_dps=_c.Checked("an int in [dps, 100000] (checked by check_pairs)", invalid=(0, 10 ** 9)),
    certificate=_c.Optional(_c.InstanceOf((str, os.PathLike), "a directory (str or path)")),
    algebraic=_c.Optional(Interval(int, 1, 1000)),
    client=_c.Checked("None or a dask.distributed Client (checked by check_client)", invalid=(1.5,)),
    progress=_c.Checked("a bool or a progress callback (used by the distributed run)"),
)
def check_mechanism(distribution_fn, datasets, epsilon, delta=0.0, neighbours="replace", dps=30, *,
                    domain=None, ordered=False, max_dps=200, certificate=None, algebraic=None,
                    client=None, progress=False):
    """Decide epsilon-DP (or (epsilon, delta)-DP) over all neighbours of given datasets.

    Parameters
    ----------
    distribution_fn : callable
        ``(dataset, ctx) -> {output: probability}`` (or a sequence of
        probabilities indexed by output), computing with the interval context
        ``ctx`` it is given (certified); or ``dataset -> distribution``
        computing with exact numbers (certified) or the global mpmath
        functions (estimated). See the module docstring.
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
    max_dps : int, default 200
        Undecided pairs are retried at doubled precision up to this many digits.
    certificate : str or path-like, optional
        Write a JSON certificate of the verdict there
        (:func:`refdp.verify.certificate.write_certificate`), to be re-checked
        by ``refdp check-certificate``.
    algebraic : int, optional
        When given, ``distribution_fn(dataset, t)`` is a law rational in
        ``t = e^{epsilon/algebraic}`` and the claim is decided exactly by
        :func:`refdp.verify.algebraic.check_algebraic` with ``m = algebraic``
        (``dps`` is then unused; epsilon may be a ``Fraction``).
    client : distributed.Client, optional
        Decide the neighbouring pairs on a Dask cluster, sharded by index
        (see :func:`check_pairs`); the result is identical to the local run.
        Not with ``certificate`` or ``algebraic``.
    progress : bool, default False
        With ``client``, report shards done on standard error.

    Returns
    -------
    MechanismCheck
        Verdict, worst pair, worst output, the divergence's enclosure and the
        method (certified or estimated). ``bool(result)`` is True only for
        HOLDS.

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

    A law written with the interval context it is given is certified at any
    epsilon, even one that the divergence meets only in the 41st digit:

    >>> from fractions import Fraction
    >>> def rr_eps(d, ctx, eps=1):
    ...     p = ctx.exp(eps) / (1 + ctx.exp(eps))
    ...     return {d[0]: p, 1 - d[0]: 1 - p}
    >>> r = check_mechanism(rr_eps, [(0,), (1,)], epsilon=Fraction(1) + Fraction(1, 10**40))
    >>> r.verdict, r.method
    (<Verdict.HOLDS: 'holds'>, 'certified')
    """
    if client is not None and (certificate is not None or algebraic is not None):
        raise parameter_error("client", "check_mechanism", "None when certificate or algebraic is given "
                              "(a distributed run keeps no evidence)", client)
    if algebraic is not None:
        from .algebraic import check_algebraic

        return check_algebraic(distribution_fn, datasets, epsilon, algebraic, neighbours, delta=delta,
                               domain=domain, ordered=ordered)
    owner = "check_mechanism"
    plist, relation = neighbouring_pairs.__wrapped__(datasets, neighbours, domain=domain, ordered=ordered, owner=owner)

    result = check_pairs.__wrapped__(distribution_fn, plist, epsilon, delta, dps, relation=relation,
                         max_dps=max_dps, client=client, progress=progress, _owner=owner)
    if result.evidence is not None:
        result.evidence["relation"] = relation
    if certificate is not None:
        from .certificate import write_certificate
        write_certificate(result, certificate, name="check_mechanism")
    return result


@_c.constrained(results=_c.Checked("a non-empty sequence of MechanismCheck (checked in the body)",
                                  invalid=([], None, [1.5])),
                labels=_c.Checked("None or one label per result"))
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
    results = _c.items_of(results, "results", "summarise", "a non-empty sequence of MechanismCheck",
                          kind=MechanismCheck)
    if labels is not None:
        labels = [str(x) for x in _c.items_of(labels, "labels", "summarise", "None or one label per result",
                                              length=len(results))]
    if not results:
        raise parameter_error("results", "summarise", "a non-empty sequence of MechanismCheck",
                              Described("no result"))
    labels = [f"#{i}" for i in range(len(results))] if labels is None else list(labels)
    verdict = worst_verdict(r.verdict for r in results)

    def ratio(r):
        # exact rationals: no global mpmath precision is involved
        div = r.divergence
        if is_mpf(div):
            if div._mpf_ in (libmp.finf, libmp.fnan):
                return math.inf
            d = raw_to_fraction(div._mpf_)
        else:
            d = exact_rational(div)
        b = exact_rational(r.bound)
        if d is None or b is None:
            return _exact_ratio(r)
        if b > 0:
            return d / b
        return math.inf if d > 0 else Fraction(0)

    pool = [i for i, r in enumerate(results) if r.verdict is verdict]
    k = max(pool, key=lambda i: ratio(results[i]))
    worst = results[k]
    pairs = sum(r.pairs_checked for r in results)
    n_fail = sum(r.verdict is Verdict.FAILS for r in results)
    n_und = sum(r.verdict is Verdict.UNDECIDED for r in results)
    detail = (f"{len(results)} sweeps, {pairs} pairs in all ({n_fail} sweeps fail, {n_und} undecided); "
              f"most critical [{labels[k]}]: {worst.detail}")
    method = ESTIMATED if any(r.method == ESTIMATED for r in results) else (
        ALGEBRAIC if all(r.method == ALGEBRAIC for r in results) else CERTIFIED)
    return CheckResult(measured=worst.divergence, bound=worst.bound, verdict=verdict,
                       digits=min(r.dps for r in results), detail=detail, method=method,
                       evidence=[r for r in results if getattr(r, "evidence", None)])
