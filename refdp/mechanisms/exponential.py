"""The exponential mechanism over a finite set of candidates (McSherry and Talwar 2007).

References
----------
- [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
  Privacy", FOCS 2007, Theorem 6.
- [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
  Privacy", 2014, Definition 3.4 and Theorem 3.10.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import core
from ..utils.precision import law_context, mp_context, mpf_values, refined
from ..utils.constraints import CONTEXT, DIGITS, FLAG, POSITIVE, RNG, Array, Checked, constrained
from ..utils.validation import Described, parameter_error
from ._constraints import EXACT_POSITIVE, EXACT_SCORES
from ..utils.exact import decimal_digits, float_inputs, fraction_vector, to_fraction, to_mpf
from ..utils.inversion import certified_inverse_cdf_index

__all__ = ["exponential_mechanism", "exponential_mechanism_distribution"]


#: Smallest positive normal double: a smaller factor ``epsilon / (2 sensitivity)``
#: would carry a relative error above the unit roundoff.
_TINY = 2.0**-1022


def _float_probabilities(scores, epsilon, sensitivity, monotone):
    """Probabilities in double precision, normalised with refdp.core.logsumexp.

    The log-weights ``w_h = c (u_h - max u)`` (``c = epsilon / (2 sensitivity)``
    or ``epsilon / sensitivity``) are formed in floating point when ``c`` is a
    normal double and no difference of scores overflows (three roundings:
    relative error at most ``3 * 2**-53`` in ``w_h``); otherwise (subnormal
    or overflowing ``c``, score differences beyond the double range) each
    ``w_h`` is the exact rational ``c (u_h - max u)`` rounded once, ``-inf``
    when it is below ``-max double`` (its weight underflows to 0 either way).
    """
    denom = sensitivity if monotone else 2.0 * sensitivity
    factor = epsilon / denom
    top = scores.max()
    with np.errstate(over="ignore"):
        diff = scores - top
    if math.isfinite(denom) and _TINY <= factor < math.inf and np.all(np.isfinite(diff)):
        with np.errstate(over="ignore", under="ignore"):
            # a product that overflows is -inf: weight 0
            w = diff * factor
    else:
        c = Fraction(epsilon) / (Fraction(sensitivity) * (1 if monotone else 2))
        t = Fraction(float(top))
        w = np.array([_round_log_weight(c * (Fraction(float(v)) - t)) for v in scores], dtype=np.float64)
    return np.exp(w - core.logsumexp(w))


_REDUCE_BITS = 64


def _log2_bound(x: Fraction) -> int:
    """An integer ``b`` with ``|x| < 2**b``."""
    return abs(x.numerator).bit_length() - x.denominator.bit_length() + 1


def _exp_nonpositive(x: Fraction, work):
    """``exp(x)`` for a rational ``x <= 0`` in the context ``work`` (rounded once, or enclosed).

    For ``|x| < 2**64`` this is ``work.exp`` of ``x`` (``work`` carries the
    digits of ``|x|``). Beyond, ``x = -(k log 2 + r)`` with the integer ``k``
    from a low-precision quotient and ``r`` (``|r| <= 1``) formed with
    ``log2 |x| + 64`` more bits than ``work`` (absolute error below
    ``2**-(work.prec + 60)``), so ``exp(x) = 2**-k exp(-r)`` with an exact
    scaling: same accuracy, without evaluating ``exp`` at thousands of digits.
    """
    lg = _log2_bound(x)
    if lg <= _REDUCE_BITS:
        return work.exp(to_mpf(x, work))
    m = -x
    low = mp_context(int((lg + 64) / 3.32) + 10)
    k = int(low.floor(to_mpf(m, low) / low.ln2))
    hi = refined(work, lg + 64)
    r = to_mpf(m, hi) - k * hi.ln2
    return work.ldexp(work.exp(-work.convert(r)), -k)


def _round_log_weight(x: Fraction) -> float:
    """``x <= 0`` rounded to the nearest double, ``-inf`` below the double range."""
    try:
        return float(x)
    except OverflowError:
        return -math.inf



@constrained(scores=Array(ndim=1), epsilon=POSITIVE, sensitivity=POSITIVE, monotone=FLAG, rng=RNG)
def exponential_mechanism(scores, epsilon, *, sensitivity=1.0, monotone=False, rng=None):
    """Sample a candidate index with probability proportional to ``exp(epsilon u / (2 Delta))``.

    For a utility ``u(D, h)`` whose sensitivity ``Delta = max_h max |u(D, h) -
    u(D', h)|`` over neighbours is at most ``sensitivity``, returning ``h``
    with probability ``exp(epsilon u(D, h) / (2 Delta)) / sum_h' exp(epsilon
    u(D, h') / (2 Delta))`` is epsilon-DP ([MT07]_ Theorem 6, [DR14]_
    Theorem 3.10). Higher scores are more likely.

    Parameters
    ----------
    scores : array_like of float, shape (n_candidates,)
        Utilities ``u(D, h)``, finite, at least one.
    epsilon : float > 0
        Privacy parameter.
    sensitivity : float > 0, default 1.0
        Sensitivity ``Delta`` of the utility.
    monotone : bool, default False
        If True, use ``exp(epsilon u / Delta)``. This is epsilon-DP only when,
        for every pair of neighbours, the utilities of *all* candidates move in
        the same direction (all ``u(D', h) >= u(D, h)`` or all ``<=``);
        otherwise it is only 2 epsilon-DP.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    int
        Index of the chosen candidate.

    See Also
    --------
    exponential_mechanism_distribution : the probabilities used here.

    Notes
    -----
    **Sampling.** The probabilities ``p`` are those returned by
    ``exponential_mechanism_distribution(..., exact=False)``, used as
    computed. Let ``S_k = p[0] + ... + p[k]`` and ``T = S_{n-1}`` be their
    *exact* running sums (doubles are dyadic rationals). The output is the
    ``k`` whose interval ``[S_{k-1}/T, S_k/T)`` holds an ideal uniform ``U``,
    so candidate ``k`` is returned with probability exactly ``p[k] / T``
    (never if ``p[k] == 0``). ``U`` is revealed lazily: its first 53 bits are
    ``rng.random()``; the floating-point running sums pick a candidate that
    an a-priori summation error bound certifies, and when the 53 bits cannot
    decide (probability about ``4 n 2**-53`` per draw) the sums are formed in
    integer arithmetic and further 64-bit words of ``rng``'s bit generator
    refine ``U`` until its interval lies inside one candidate's
    (``docs/theory/learning.rst``, "Sampling", Propositions 6 and 7; the
    check ``refdp.certified_inversion_equals_exact``). The doubles ``p``
    themselves carry the rounding stated in
    :func:`exponential_mechanism_distribution`. A total-variation gap ``eta``
    from an epsilon-DP law gives ``(epsilon, (1 + e**epsilon) eta)``-DP.

    References
    ----------
    .. [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
       Privacy", FOCS 2007, Theorem 6.
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.

    Examples
    --------
    >>> from refdp.mechanisms import exponential_mechanism
    >>> exponential_mechanism([0.0, 3.0, 1.0], 2.0, rng=0)
    1
    """
    p = _float_probabilities(scores, epsilon, sensitivity, monotone)
    return certified_inverse_cdf_index(p, rng.random(), rng)


@constrained(exact=FLAG, monotone=FLAG, dps=DIGITS, ctx=CONTEXT,
             # converted in the body: the float path refuses numeric strings before conversion
             scores=Checked(EXACT_SCORES.describe() + " (converted in the body)", EXACT_SCORES.invalid_examples()),
             epsilon=Checked(EXACT_POSITIVE.describe() + " (converted in the body)",
                             EXACT_POSITIVE.invalid_examples()),
             sensitivity=Checked(EXACT_POSITIVE.describe() + " (converted in the body)",
                                 EXACT_POSITIVE.invalid_examples()))
def exponential_mechanism_distribution(scores, epsilon, *, sensitivity=1.0, monotone=False,
                                       exact=False, dps=50, ctx=None):
    """Output distribution of :func:`exponential_mechanism`.

    ``P[h] = exp(c u_h) / sum_h' exp(c u_h')`` with ``c = epsilon / (2
    sensitivity)``, or ``c = epsilon / sensitivity`` when ``monotone=True``
    ([MT07]_, [DR14]_ Definition 3.4).

    Parameters
    ----------
    scores : sequence of real numbers, shape (n_candidates,)
        Utilities, finite, at least one. With ``exact=True`` each may be an
        int, float, :class:`fractions.Fraction`, :class:`decimal.Decimal` or a
        numeric string (``"0.1"``, ``"1/3"``), and is used at its exact value.
    epsilon, sensitivity : real number > 0
        As in :func:`exponential_mechanism`; exact types accepted as for
        ``scores``.
    monotone : bool, default False
        Use ``c = epsilon / sensitivity`` (see :func:`exponential_mechanism`).
    exact : bool, default False
        If False return doubles computed with :func:`refdp.core.logsumexp`:
        each has relative error at most about ``(|w_h| + 2) 2**-52``, where
        ``w_h = c (u_h - max u) <= 0`` is its log-weight (or underflows to
        0). If True compute in mpmath.
    dps : int in [1, 10000], default 50
        Decimal digits of the mpmath results (``exact=True`` only).
    ctx : mpmath context, optional
        Compute in this context instead (``exact`` and ``dps`` are then
        ignored): with an interval context (:func:`refdp.utils.precision.iv_context`)
        the result is a list of rigorous enclosures computed with outward
        rounding; with a real context, a list of its numbers. The context is
        not modified (the work is done in a refined copy).

    Returns
    -------
    ndarray of float, list of mpmath.mpf or list of intervals
        The probabilities, in candidate order. With ``exact=True`` they are
        correctly rounded to ``dps`` digits up to a relative error of a few
        units in the last digit: the exponents ``c (u_h - max u)`` are formed
        exactly in rational arithmetic and the work is done with
        ``dps + 10 + log10(1 + max |c (u_h - max u)|)`` digits.

    References
    ----------
    .. [MT07] F. McSherry and K. Talwar, "Mechanism Design via Differential
       Privacy", FOCS 2007, Theorem 6.
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.

    Examples
    --------
    >>> from refdp.mechanisms import exponential_mechanism_distribution
    >>> exponential_mechanism_distribution([0, 1], 2.0).round(6).tolist()
    [0.268941, 0.731059]
    >>> p = exponential_mechanism_distribution(["0", "1/3"], "3/2", exact=True, dps=20)
    >>> import mpmath
    >>> mpmath.nstr(p[1], 20)   # exp(1/4) / (1 + exp(1/4))
    '0.56217650088579810403'
    """
    owner = "exponential_mechanism_distribution"
    if not exact and ctx is None:
        _no_strings(scores, epsilon, sensitivity, owner)
    s = fraction_vector(scores, "scores", owner)
    eps = to_fraction(epsilon, "epsilon", owner, positive=True)
    sens = to_fraction(sensitivity, "sensitivity", owner, positive=True)
    if not exact and ctx is None:
        return _float_probabilities(*float_inputs(s, eps, sens, owner), monotone)
    c = eps / (sens if monotone else 2 * sens)
    top = max(s)
    exponents = [c * (v - top) for v in s]            # exact, all <= 0
    lowest = min(exponents)
    # exponents beyond 2**64 in magnitude are reduced by multiples of log 2 (_exp_nonpositive)
    extra = 10 + (decimal_digits(lowest) if _log2_bound(lowest) <= _REDUCE_BITS else 20)
    work = law_context(ctx, dps, extra)
    weights = [_exp_nonpositive(x, work) if x != 0 else work.mpf(1) for x in exponents]
    total = work.fsum(weights)
    return mpf_values([w / total for w in weights], ctx, dps)


def _no_strings(scores, epsilon, sensitivity, owner):
    """The float path takes real numbers: a str is not one (numeric strings need ``exact=True``)."""
    for name, value in (("epsilon", epsilon), ("sensitivity", sensitivity)):
        if isinstance(value, str):
            raise parameter_error(name, owner, "a float in the range (0, inf) (numeric strings "
                                  "only with exact=True)", value)
    if isinstance(scores, (list, tuple)) or (isinstance(scores, np.ndarray) and scores.dtype.kind in "OUS"):
        items = scores.tolist() if isinstance(scores, np.ndarray) else scores
        for i, v in enumerate(items if isinstance(items, list) else [items]):
            if isinstance(v, (str, bytes)):
                raise parameter_error("scores", owner, "an array of finite doubles (numeric strings "
                                      "only with exact=True)", Described(f"{v!r} at position ({i},)"))
