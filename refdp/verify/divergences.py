"""Exact divergences between two finite output distributions.

A distribution is a mapping ``output -> probability`` or a sequence of
probabilities indexed by output. Probabilities may be integers,
:class:`fractions.Fraction`, floats (taken as the exact binary numbers they
are), ``mpmath.mpf`` numbers, or ``mpmath.iv`` intervals (taken as enclosures of
the true probabilities). Every divergence is computed in an mpmath context
created for the call at ``dps`` digits (never at mpmath's global precision),
in interval arithmetic as soon as one probability is an interval; in the
latter case the result is an interval guaranteed to contain the divergence of
every pair of distributions inside the enclosures.

An output that has mass under one distribution and none under the other makes
the max divergence infinite; an exact zero is an integer ``0``, ``Fraction(0)``,
``0.0`` or an ``mpf`` zero (an interval that merely touches zero is not exact).

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Definition 3.6 (max divergence) and Lemma 3.17.
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi, "Privacy Amplification by
   Subsampling", NeurIPS 2018, Sec. 2 (the hockey-stick divergence
   characterises (epsilon, delta)-DP).
.. [Mir17] I. Mironov, "Renyi Differential Privacy", CSF 2017, Definition 3.
.. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
   "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
   Data", ICLR 2017, Sec. 3.1 (the log-moment alpha(lambda)).
"""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import mpmath
import numpy as np

from ..utils.precision import exact_rational, is_interval, is_mpf, shared_context
from ..utils import constraints as _c
from ..utils.validation import Described, Interval, parameter_error
from .verdict import enclose, lower, upper
from ..utils.validation import POSITIVE

__all__ = [
    "SUM_TOLERANCE",
    "as_distribution",
    "distribution_pair",
    "max_divergence",
    "hockey_stick_divergence",
    "renyi_divergence",
    "log_moment",
]

#: Largest admissible ``|sum of probabilities - 1|`` of an input distribution.
#: Probabilities are used as given (never renormalised); this tolerance only
#: rejects inputs that are not distributions at all (e.g. a forgotten
#: normalisation), while admitting float rounding of ordinary mechanisms.
SUM_TOLERANCE = Fraction(1, 10**9)

_EPSILON = Interval(float, 0, None, closed="left")
_ORDER = Interval(float, 1, None, closed="neither")
_LAMBDA = POSITIVE
_DIST = _c.Checked("a mapping output -> probability or a sequence of probabilities (checked by as_distribution)",
                   invalid=([], None, "abc", [-0.5, 1.5], [float("nan"), 1.0], {0: -1.0}))
_NAME = _c.InstanceOf((str,), "a str")
_WORK_DPS = _c.Optional(Interval(int, 1, _c.MAX_DPS))


# ---------------------------------------------------------------------------
# Input normalisation
# ---------------------------------------------------------------------------

def _is_interval(x) -> bool:
    return is_interval(x)


def _check_probability(value, output, name, owner):
    if _is_interval(value):
        if upper(value) < 0 or not (mpmath.isfinite(upper(value)) and mpmath.isfinite(lower(value))):
            raise parameter_error(name, owner, "a distribution of non-negative probabilities",
                                  Described(f"{value!r} for output {output!r}"))
        return value
    if is_mpf(value):
        if not mpmath.isfinite(mpmath.mp.make_mpf(value._mpf_)):
            raise parameter_error(name, owner, "a distribution of finite probabilities",
                                  Described(f"{value!r} for output {output!r}"))
    else:
        q = exact_rational(value)
        if q is None:
            if isinstance(value, (float, np.floating)):
                raise parameter_error(name, owner, "a distribution of finite probabilities",
                                      Described(f"{value!r} for output {output!r}"))
            raise parameter_error(name, owner, "a distribution of real probabilities",
                                  Described(f"{value!r} for output {output!r}"))
        # exact conversion: a longdouble keeps every bit, a NumPy float its value
        if isinstance(value, np.longdouble):
            value = q
        elif isinstance(value, (np.floating, np.integer)):
            value = value.item()
    if value < 0:
        raise parameter_error(name, owner, "a distribution of non-negative probabilities",
                              Described(f"{value!r} for output {output!r}"))
    return value


@_c.constrained_with(dict(dist=_DIST, name=_NAME, owner=_NAME))
def as_distribution(dist, name: str = "p", owner: str = "as_distribution") -> dict:
    """Validate a finite distribution and return it as a dict ``output -> probability``.

    Parameters
    ----------
    dist : mapping or sequence
        ``{output: probability}`` or probabilities indexed ``0, 1, ...``.
    name, owner : str
        Used in the error message.

    Returns
    -------
    dict
        The same probabilities (types unchanged, NumPy scalars unwrapped).

    Raises
    ------
    ValueError
        If a probability is negative, not a finite real number, or if the
        probabilities do not sum to 1 within :data:`SUM_TOLERANCE` (the sum is
        evaluated in interval arithmetic, so rounding in the check itself
        cannot reject a valid input).
    """
    if isinstance(dist, Mapping):
        items = list(dist.items())
    elif isinstance(dist, np.ndarray) and dist.ndim != 1:
        raise parameter_error(name, owner, "a 1-dimensional sequence of probabilities", dist)
    elif isinstance(dist, (str, bytes)) or not hasattr(dist, "__len__"):
        raise parameter_error(name, owner, "a mapping output -> probability or a sequence of probabilities",
                              dist)
    else:
        if isinstance(dist, np.ndarray) and dist.ndim != 1:
            raise parameter_error(name, owner, "a 1-dimensional sequence of probabilities", dist)
        items = list(enumerate(dist.tolist() if isinstance(dist, np.ndarray) else dist))
    if not items:
        raise parameter_error(name, owner, "a distribution with at least one output", dist)
    out = {o: _check_probability(v, o, name, owner) for o, v in items}
    # Sum in interval arithmetic (this thread's 60-digit context) with enough bits
    # for every input to be exact or tightly enclosed.
    ctx = shared_context(60, True)
    total = ctx.mpf(0)
    for v in out.values():
        total += enclose(v, ctx)
    tol = enclose(SUM_TOLERANCE, ctx)
    too_small = upper(total) < 1 - upper(tol)
    too_large = lower(total) > 1 + upper(tol)
    if too_small or too_large:
        shown = mpmath.nstr(mpmath.mpf(total.mid), 17)
        raise parameter_error(name, owner,
                              f"a distribution whose probabilities sum to 1 within {float(SUM_TOLERANCE):g}",
                              Described(f"probabilities summing to {shown}"))
    return out


@_c.constrained_with(dict(p=_DIST, q=_DIST, owner=_NAME))
def distribution_pair(p, q, owner: str = "distribution_pair"):
    """Validate two distributions over a common output set.

    Parameters
    ----------
    p, q : mapping or sequence
        See :func:`as_distribution`. Two sequences must have the same length
        (they index the same outputs); mappings may have different keys, a
        missing output having probability exactly 0.

    Returns
    -------
    outputs : list
        The union of outputs, in the order of ``p`` then the new ones of ``q``.
    pv, qv : list
        The probabilities of each output (exact ``0`` where missing).
    """
    pd = as_distribution.__wrapped__(p, "p", owner)
    qd = as_distribution.__wrapped__(q, "q", owner)
    if not isinstance(p, Mapping) and not isinstance(q, Mapping) and len(pd) != len(qd):
        raise parameter_error("q", owner, f"a sequence of the same length as 'p' ({len(pd)})",
                              Described(f"a sequence of length {len(qd)}"))
    outputs = list(pd)
    outputs.extend(o for o in qd if o not in pd)
    return outputs, [pd.get(o, 0) for o in outputs], [qd.get(o, 0) for o in outputs]


# ---------------------------------------------------------------------------
# Arithmetic in mpmath.mp or mpmath.iv
# ---------------------------------------------------------------------------

class _Arith:
    """The few operations the divergences need, in a real or an interval context owned by the call."""

    def __init__(self, interval: bool, dps: int = 30):
        self.interval = interval
        self.ctx = shared_context(dps, interval)        # only used at this precision

    def num(self, x):
        if self.interval:
            return enclose(x, self.ctx)
        if is_mpf(x):
            return self.ctx.make_mpf(x._mpf_)
        q = exact_rational(x)
        if q is not None:
            return self.ctx.mpf(q.numerator) / q.denominator
        return self.ctx.mpf(x)

    @staticmethod
    def exact_zero(x) -> bool:
        if _is_interval(x):
            return lower(x) == 0 and upper(x) == 0
        return x == 0

    def inf(self):
        return self.ctx.mpf("inf")

    def pos(self, x):
        """max(0, x)."""
        if self.interval:
            lo, hi = lower(x), upper(x)
            return self.ctx.mpf([max(lo, 0), max(hi, 0)])
        return x if x > 0 else self.ctx.mpf(0)

    def key(self, x):
        """Order used to pick the worst output: the upper end for intervals."""
        return upper(x) if self.interval else x

    def maximum(self, values):
        if self.interval:
            return self.ctx.mpf([max(lower(v) for v in values), max(upper(v) for v in values)])
        return max(values)


def _input_bits(values) -> int:
    """Mantissa bits the mpmath inputs carry (0 for exact inputs)."""
    bits = 0
    for v in values:
        raws = v._mpi_ if _is_interval(v) else (v._mpf_,) if is_mpf(v) else ()
        for r in raws:
            bits = max(bits, r[3] if r[1] else 0)
    return bits


def _arith_for(*seqs, dps=None) -> _Arith:
    """Arithmetic at ``dps`` digits; by default 30 digits, or more when the inputs carry more bits."""
    values = [v for s in seqs for v in s]
    if dps is None:
        dps = max(30, int(_input_bits(values) * 0.30103) + 10)
    return _Arith(any(_is_interval(v) for v in values), dps)


def _max_divergence(outputs, pv, qv, ar: _Arith):
    """(value, worst output) of max_o |ln p_o - ln q_o|; exact zeros handled."""
    best_val, best_out, vals = None, None, []
    for o, p, q in zip(outputs, pv, qv):
        zp, zq = ar.exact_zero(p), ar.exact_zero(q)
        if zp and zq:
            continue
        if zp or zq:
            v = ar.inf()
        else:
            p, q = ar.num(p), ar.num(q)
            v = abs(ar.ctx.log(p) - ar.ctx.log(q))
        vals.append(v)
        if best_val is None or ar.key(v) > ar.key(best_val):
            best_val, best_out = v, o
    return ar.maximum(vals), best_out


def _hockey_stick(outputs, pv, qv, epsilon, ar: _Arith):
    """(value, largest-contribution output, event) of sum_o max(0, p_o - e^eps q_o)."""
    factor = ar.ctx.exp(ar.num(epsilon))
    total = ar.num(0)
    best_val, best_out, event = None, None, []
    for o, p, q in zip(outputs, pv, qv):
        term = ar.pos(ar.num(p) - factor * ar.num(q))
        total = total + term
        if ar.key(term) > 0:
            event.append(o)
        if best_val is None or ar.key(term) > ar.key(best_val):
            best_val, best_out = term, o
    return total, best_out, tuple(event)


def _power_sum(pv, qv, am1, ar: _Arith):
    """sum_o p_o^a q_o^(1-a) = sum_o p_o (p_o/q_o)^(a-1), given am1 = a - 1 > 0.

    Infinite if some q_o = 0 < p_o.
    """
    total = ar.num(0)
    for p, q in zip(pv, qv):
        if ar.exact_zero(p):
            continue
        if ar.exact_zero(q):
            return ar.inf()
        p, q = ar.num(p), ar.num(q)
        total = total + p * ar.ctx.exp(am1 * (ar.ctx.log(p) - ar.ctx.log(q)))
    return total


# ---------------------------------------------------------------------------
# Public divergences
# ---------------------------------------------------------------------------

@_c.constrained(p=_DIST, q=_DIST, with_output=_c.FLAG, dps=_WORK_DPS)
def max_divergence(p, q, *, with_output: bool = False, dps=None):
    """Symmetric max divergence ``max_o |ln P(o) / Q(o)|``.

    For finite output sets this is ``max(D_inf(P||Q), D_inf(Q||P))`` with
    ``D_inf`` the max divergence of [DR14]_ Definition 3.6 (the maximum over
    events is attained at single outputs). A mechanism is epsilon-DP exactly
    when this is ``<= epsilon`` for every pair of neighbouring datasets.

    Parameters
    ----------
    p, q : mapping or sequence
        Two distributions over the same outputs (see :func:`distribution_pair`).
    with_output : bool, default False
        Also return the output attaining the maximum.
    dps : int, optional
        Digits of the arithmetic (a context owned by the call); default 30,
        or more when the mpmath inputs carry more bits.

    Returns
    -------
    value : mpmath.mpf or mpmath.iv.mpf
        ``+inf`` when one distribution has mass where the other has none.
        Outputs with no mass under either distribution are ignored.
    output : object
        Only with ``with_output=True``.

    Examples
    --------
    Randomised response with ``e^eps = 3``: ``P = (3/4, 1/4)`` and
    ``Q = (1/4, 3/4)`` give ``ln 3``.

    >>> from fractions import Fraction as F
    >>> import mpmath
    >>> mpmath.nstr(max_divergence([F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]), 15)
    '1.09861228866811'
    """
    outputs, pv, qv = distribution_pair.__wrapped__(p, q, "max_divergence")
    value, output = _max_divergence(outputs, pv, qv, _arith_for(pv, qv, dps=dps))
    return (value, output) if with_output else value


@_c.constrained(p=_DIST, q=_DIST, epsilon=_EPSILON, dps=_WORK_DPS)
def hockey_stick_divergence(p, q, epsilon, *, dps=None):
    """Hockey-stick divergence ``delta(eps) = sum_o max(0, P(o) - e^eps Q(o))``.

    A mechanism is (epsilon, delta)-DP exactly when this is ``<= delta`` for
    every ordered pair of neighbouring datasets ([BBG18]_ Sec. 2; [DR14]_
    Lemma 3.17 for the event form ``max_S P(S) - e^eps Q(S)``, attained at
    ``S = {o : P(o) > e^eps Q(o)}``). It is not symmetric: check both orders.

    Parameters
    ----------
    p, q : mapping or sequence
    epsilon : float, epsilon >= 0
        Taken as the exact binary value of the float.
    dps : int, optional
        Digits of the arithmetic (a context owned by the call); default 30,
        or more when the mpmath inputs carry more bits.

    Returns
    -------
    mpmath.mpf or mpmath.iv.mpf
    """
    owner = "hockey_stick_divergence"
    outputs, pv, qv = distribution_pair.__wrapped__(p, q, owner)
    return _hockey_stick(outputs, pv, qv, epsilon, _arith_for(pv, qv, dps=dps))[0]


@_c.constrained(p=_DIST, q=_DIST, order=_ORDER, dps=_WORK_DPS)
def renyi_divergence(p, q, order, *, dps=None):
    """Renyi divergence ``D_a(P||Q) = ln(sum_o P(o)^a Q(o)^(1-a)) / (a - 1)``.

    [Mir17]_ Definition 3, for orders ``a > 1``. Infinite when some output has
    ``P(o) > 0 = Q(o)``.

    Parameters
    ----------
    p, q : mapping or sequence
    order : float, order > 1
    dps : int, optional
        Digits of the arithmetic (a context owned by the call); default 30,
        or more when the mpmath inputs carry more bits.

    Returns
    -------
    mpmath.mpf or mpmath.iv.mpf

    Examples
    --------
    Randomised response with ``P = (3/4, 1/4)``, ``Q = (1/4, 3/4)`` at order 2:
    ``ln(sum_o P(o)^2 / Q(o)) = ln(9/4 + 1/12) = ln(7/3)``.

    >>> from fractions import Fraction as F
    >>> import mpmath
    >>> mpmath.nstr(renyi_divergence([F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)], 2), 12)
    '0.847297860387'
    """
    owner = "renyi_divergence"
    outputs, pv, qv = distribution_pair.__wrapped__(p, q, owner)
    ar = _arith_for(pv, qv, dps=dps)
    am1 = ar.num(order) - 1
    return ar.ctx.log(_power_sum(pv, qv, am1, ar)) / am1


@_c.constrained(p=_DIST, q=_DIST, lam=_LAMBDA, dps=_WORK_DPS)
def log_moment(p, q, lam, *, dps=None):
    """PATE's log-moment ``alpha(lambda) = ln sum_o P(o) (P(o)/Q(o))^lambda``.

    [PATE17]_ Sec. 3.1 (the moments accountant of Abadi et al.); equals
    ``lambda * D_{lambda+1}(P||Q)`` in terms of :func:`renyi_divergence`.

    Parameters
    ----------
    p, q : mapping or sequence
        ``p`` is the distribution on ``d``, ``q`` on the neighbour ``d'``.
    lam : float, lam > 0
        The order lambda (any positive real).
    dps : int, optional
        Digits of the arithmetic (a context owned by the call); default 30,
        or more when the mpmath inputs carry more bits.

    Returns
    -------
    mpmath.mpf or mpmath.iv.mpf
    """
    owner = "log_moment"
    outputs, pv, qv = distribution_pair.__wrapped__(p, q, owner)
    ar = _arith_for(pv, qv, dps=dps)
    return ar.ctx.log(_power_sum(pv, qv, ar.num(lam), ar))
