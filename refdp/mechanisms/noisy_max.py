"""Report-noisy-max with Laplace noise, and its exact output distribution.

PATE's LNMax aggregator (Papernot et al. 2017, Sec. 2.1) is the special case
``scores = counts``, ``sensitivity = 1``, ``epsilon = 2 gamma`` (Laplace scale
``1 / gamma``).

References
----------
- [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
  Privacy", 2014, Section 3.3, Claim 3.9.
- [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
  "Semi-supervised Knowledge Transfer for Deep Learning from Private Training
  Data", ICLR 2017, Eq. (1) and Lemma 4.
- [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..utils.constraints import CONTEXT, DIGITS, FLAG, POSITIVE, RNG, SIZE, Array, constrained
from ..utils.validation import Described, parameter_error
from ._constraints import EXACT_POSITIVE, EXACT_SCORES
from ..utils.exact import decimal_digits, to_mpf
from .discrete_argmax import argmax_grid, discrete_argmax, discrete_argmax_law, grid_indices
from ..utils.precision import ctx_expm1, law_context, mpf_values
from ..utils.rounding import upward_quotient

__all__ = ["report_noisy_max", "report_noisy_max_distribution"]


@constrained(scores=Array(ndim=1), epsilon=POSITIVE, sensitivity=POSITIVE, monotone=FLAG, size=SIZE,
             secure=FLAG, rng=RNG)
def report_noisy_max(scores, epsilon, *, sensitivity=1.0, monotone=False, rng=None, size=None,
                     secure=True):
    """Return ``argmax_j (scores[j] + Z_j)`` with ``Z_j`` i.i.d. Laplace(b) (or its float-safe form).

    The scale is ``b = 2 sensitivity / epsilon``: if every score may move by
    up to ``sensitivity`` in *either* direction between neighbours
    (``max_j |u(D, j) - u(D', j)| <= sensitivity``), the output is epsilon-DP.
    With ``monotone=True`` the scale is ``b = sensitivity / epsilon``, which is
    epsilon-DP only when, for every pair of neighbours, all scores move in the
    *same* direction by at most ``sensitivity`` ([DR14]_ Claim 3.9, e.g.
    counting queries under add/remove).

    PATE's LNMax ([PATE17]_ Eq. 1) with noise Lap(1/gamma) on vote counts is
    ``report_noisy_max(counts, 2 * gamma)``: one changed record moves one vote,
    so one count goes down and another up (not monotone), and the release is
    (2 gamma)-DP.

    Parameters
    ----------
    scores : array_like of float, shape (n_candidates,)
        Finite scores, at least one.
    epsilon : float > 0
        Privacy parameter of one release.
    sensitivity : float > 0, default 1.0
        Largest change of any one score between neighbours.
    monotone : bool, default False
        Use the smaller scale ``sensitivity / epsilon`` (see above).
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of randomness, normalised with :func:`numpy.random.default_rng`.
    size : None, int or tuple of int, optional
        Number of independent releases. ``None`` returns one int.
    secure : bool, default True
        Float-safe release (``docs/theory/secure_noise.rst``, Theorem 5): the
        scores are rounded to the grid ``g Z`` of step ``g``, the largest power
        of two ``<= sensitivity / 2**10``, exact discrete Laplace noise of scale
        ``t >= c (floor(sensitivity / g) + 1) / epsilon`` grid steps (``c = 2``,
        or 1 with ``monotone``) is added to the integer indices, and the
        lowest index among the noisy maxima is returned. Its law is
        :func:`report_noisy_max_distribution` with ``secure=True``, exactly.
        Cost: the noise scale is larger by a factor ``1 + 2**-10`` at most.
        ``secure=False`` keeps the textbook double-precision Laplace noise:
        **not private as implemented** (below), kept for comparison and
        teaching only.

    Returns
    -------
    int or ndarray of int
        The winning index, or an array of shape ``size`` of independent
        winners (each release spends epsilon).

    See Also
    --------
    report_noisy_max_distribution : the exact law of the output.

    Notes
    -----
    With ``secure=True`` the proof is [DR14]_ Claim 3.9's, carried out for
    integer scores, discrete Laplace noise and lowest-index tie-breaking
    (``docs/theory/secure_noise.rst``, Theorem 5); the guarantee holds for the
    index returned. With ``secure=False`` the noise is added to ``scores -
    max(scores)`` in doubles and noisy ties, which have probability 0 for
    real-valued noise but not for doubles, go to the lowest index; the
    guarantee is then about real-valued noise only: as for
    :func:`laplace_mechanism`, double-precision sampling is not exactly
    private ([Mir12]_), though only the index is released.

    References
    ----------
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.
    .. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private
       Training Data", ICLR 2017.
    .. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
       Differential Privacy", ACM CCS 2012.

    Examples
    --------
    >>> from refdp.mechanisms import report_noisy_max
    >>> report_noisy_max([10, 12, 3], 1.0, rng=0)
    1
    >>> report_noisy_max([10, 12, 3], 1.0, rng=0, size=5).tolist()
    [1, 1, 1, 1, 0]
    """
    owner = "report_noisy_max"
    shape = size
    scale = upward_quotient(sensitivity if monotone else 2.0 * sensitivity, epsilon)
    if math.isinf(scale):
        raise parameter_error("epsilon", owner,
                              f"large enough that the Laplace scale is finite "
                              f"('sensitivity' = {sensitivity!r})", epsilon)
    if secure:
        g, _, t = argmax_grid(sensitivity, epsilon, monotone)
        return discrete_argmax(grid_indices(scores, g, owner), t, shape, rng)
    with np.errstate(over="ignore"):
        centred = scores - scores.max()      # a score more than 1.8e308 below the top is -inf
    noise = rng.laplace(0.0, scale, size=(() if shape is None else shape) + scores.shape)
    winners = np.argmax(centred + noise, axis=-1)
    return int(winners) if shape is None else winners


@constrained(exact=FLAG, monotone=FLAG, dps=DIGITS, scores=EXACT_SCORES, epsilon=EXACT_POSITIVE,
             sensitivity=EXACT_POSITIVE, secure=FLAG, ctx=CONTEXT)
def report_noisy_max_distribution(scores, epsilon, *, sensitivity=1.0, monotone=False,
                                  exact=False, dps=50, ctx=None, secure=False):
    """Exact output distribution of :func:`report_noisy_max` ([DR14]_ Sec. 3.3).

    With ``b`` the Laplace scale (``2 sensitivity / epsilon``, or
    ``sensitivity / epsilon`` when ``monotone=True``), ``F_b`` and ``f_b``
    its CDF and density,

    ``P[argmax = j] = integral over t of f_b(t - s_j) prod_{i != j} F_b(t - s_i) dt``.

    Between consecutive distinct scores every factor is a monomial or a
    binomial in ``u = exp(t / b)``, so the integrand is a Laurent polynomial in
    ``u``; its coefficients are multiplied out and each monomial is integrated
    in closed form (see the theory page for the derivation and the error
    analysis). Ties between scores are allowed.

    Parameters
    ----------
    scores : sequence of real numbers, shape (n_candidates,)
        Finite scores, at least one. Each may be an int, float,
        :class:`fractions.Fraction`, :class:`decimal.Decimal` or numeric string
        (``"0.1"``, ``"1/3"``) and is used at its exact value.
    epsilon, sensitivity : real number > 0
        As in :func:`report_noisy_max`; exact types accepted as for ``scores``.
    monotone : bool, default False
        Use the scale ``sensitivity / epsilon``.
    exact : bool, default False
        If True return mpmath numbers, otherwise doubles.
    dps : int in [1, 10000], default 50
        Decimal digits of the mpmath computation.
    ctx : mpmath context, optional
        Compute in this context instead (``exact`` and ``dps`` are then
        ignored): with an interval context (:func:`refdp.utils.precision.iv_context`)
        the result is a list of rigorous enclosures (every operation rounded
        outward); with a real context, a list of its numbers. The context is
        not modified.
    secure : bool, default False
        The law of the float-safe release (``report_noisy_max(...,
        secure=True)``, its default) instead of the real-valued mechanism:
        lowest index of ``max_j (k_j + Z_j)`` with ``k_j = round(s_j / g)``
        (ties to even), ``g`` the grid step for ``float(sensitivity)`` and
        ``Z_j`` discrete Laplace of the sampler's scale ``t``; every score
        must then be a double (or exactly representable as one) so that
        the indices are those the sampler computes. Summed over the pieces
        between the indices as geometric series in closed form
        (:func:`refdp.mechanisms.discrete_argmax.discrete_argmax_law`).

    Returns
    -------
    ndarray of float, list of mpmath.mpf or list of intervals
        ``P[argmax = j]`` for each ``j``. The law is that of real-valued noise
        at the exact scale (the sampler's scale is this one rounded upward).

    Notes
    -----
    All breakpoints, interval lengths and exponents are formed exactly in
    rational arithmetic; the polynomial work runs at ``dps + n_candidates + 20
    + log10(1 + n_candidates * spread)`` digits, ``spread`` being the range of
    ``scores / b``. Expanding the product loses at most ``n_candidates *
    log10(3)`` digits to cancellation, so the mpmath results are accurate to
    about ``dps`` significant digits and the doubles (``exact=False``, with
    ``dps >= 17``) to within one unit in the last place.
    The cost is ``O(n_candidates**3)`` mpmath operations. For two
    candidates the result is the Laplace-difference tail ``(2 + g / b) /
    (4 exp(g / b))`` at the gap ``g`` ([PATE17]_ Lemma 4).

    References
    ----------
    .. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Foundations and Trends in Theoretical Computer Science 9(3-4),
       2014.
    .. [PATE17] N. Papernot, M. Abadi, U. Erlingsson, I. Goodfellow and K. Talwar,
       "Semi-supervised Knowledge Transfer for Deep Learning from Private
       Training Data", ICLR 2017.

    Examples
    --------
    >>> from refdp.mechanisms import report_noisy_max_distribution
    >>> report_noisy_max_distribution([1, 0], 2.0).round(6).tolist()
    [0.72409, 0.27591]
    >>> p = report_noisy_max_distribution([1, 0], 2, exact=True, dps=20)
    >>> import mpmath
    >>> mpmath.nstr(p[1], 20)   # (2 + 1) / (4 e): PATE Lemma 4, gamma = 1, gap 1
    '0.2759095808785817412'
    """
    owner = "report_noisy_max_distribution"
    s, eps, sens = scores, epsilon, sensitivity
    if secure:
        for v in s:
            if Fraction(float(v)) != v:
                raise parameter_error("scores", owner,
                                      "exactly representable as doubles when secure=True, "
                                      "so that the grid indices are those report_noisy_max computes",
                                      str(v))
        g, _, t = argmax_grid(float(sens), eps, monotone)
        k = [round(v / Fraction(g)) for v in s]          # round half to even, as numpy.rint
        work = law_context(ctx, dps, 20 + len(k))
        probs = mpf_values(discrete_argmax_law(k, t, work), ctx, dps)
    else:
        inverse_scale = eps / (sens if monotone else 2 * sens)
        spread = inverse_scale * (max(s) - min(s))
        if spread and spread.numerator.bit_length() - spread.denominator.bit_length() >= MAX_SPREAD_BITS:
            # the expansion cancels over about n * spread: the working precision grows with it
            raise parameter_error("scores", owner, f"scores whose spread times epsilon / (2 sensitivity) is below "
                                  f"2**{MAX_SPREAD_BITS} (every double input is)",
                                  Described(f"a scaled spread of about 2**{spread.numerator.bit_length() - spread.denominator.bit_length()}"))
        probs = _argmax_law([inverse_scale * v for v in s], dps, ctx)
    if exact or ctx is not None:
        return probs
    return np.array([float(p) for p in probs])


#: Largest scaled spread ``epsilon (max u - min u) / (2 sensitivity)`` (in bits) of the
#: exact law: every double input stays below ``2**3123``; the work grows about
#: quadratically with it (about 10 s at ``2**3300``).
MAX_SPREAD_BITS = 3200


def _argmax_law(a, dps, ctx=None):
    """P[argmax_j (a_j + Z_j) = j] for Z_j i.i.d. Laplace(1), a_j exact rationals.

    Sum over the pieces (-inf, v_1], [v_1, v_2], ..., [v_K, inf) cut by the
    distinct sorted values v_k of ``a``; see :func:`_piece`. Computed in a
    refinement of ``ctx`` (see :func:`refdp.utils.precision.law_context`).
    """
    n = len(a)
    values = sorted(set(a))
    spread = values[-1] - values[0]
    extra = n + 20 + decimal_digits(n * spread)
    work = law_context(ctx, dps, extra)
    total = [work.mpf(0)] * n
    pieces = [("left", values[0], None)]
    pieces += [("bounded", lo, hi - lo) for lo, hi in zip(values, values[1:])]
    pieces += [("right", values[-1], None)]
    for kind, r, length in pieces:
        for j, p in enumerate(_piece(a, kind, r, length, work)):
            total[j] += p
    return mpf_values(total, ctx, dps)


def _piece(a, kind, r, length, c):
    """Contribution of one piece of the real line to every P[argmax = j].

    On the piece, with reference point ``r`` (its left end; the right end for
    the left piece) and ``w = exp(t - r)``, ``v = 1 / w``, every ``a_i <= r``
    ("lower") gives the CDF factor ``1 - alpha_i v`` with ``alpha_i =
    exp(a_i - r) / 2 <= 1/2``, and every ``a_i`` at or beyond the right end
    ("upper") gives ``beta_i w`` with ``beta_i = exp(r - a_i) / 2``. The density
    factor of an upper ``j`` equals its CDF factor; that of a lower ``j`` is
    ``alpha_j v``. Monomials ``w**U v**m = exp((U - m)(t - r))`` integrate to
    ``J(U - m)``. Every operation is done in the context ``c``.
    """
    n = len(a)
    lower = [i for i in range(n) if a[i] <= r] if kind != "left" else []
    upper = [i for i in range(n) if kind == "left" or a[i] > r]
    n_up = len(upper)

    if kind == "left":          # integral over (-inf, r], kappa >= 1
        def J(kappa):
            return 1 / c.mpf(kappa)
    elif kind == "right":       # integral over [r, inf), kappa <= -1
        def J(kappa):
            return -1 / c.mpf(kappa)
    else:                       # integral over [r, r + length]
        L = to_mpf(length, c)

        def J(kappa):
            return L if kappa == 0 else ctx_expm1(c, kappa * L) / kappa

    # B = prod_{upper} beta_i, exponent formed exactly
    log_b = sum((r - a[i] for i in upper), Fraction(0))
    B = c.ldexp(c.exp(to_mpf(log_b, c)), -n_up)

    alpha_of = {}
    for i in lower:
        if a[i] not in alpha_of:
            alpha_of[a[i]] = c.ldexp(c.exp(to_mpf(a[i] - r, c)), -1)

    # Q(v) = prod_{lower} (1 - alpha_i v), coefficients q[0..len(lower)]
    q = [c.mpf(1)]
    for i in lower:
        al = alpha_of[a[i]]
        q = [q[0]] + [q[m] - al * q[m - 1] for m in range(1, len(q))] + [-al * q[-1]]
    jvals = {kappa: J(kappa) for kappa in range(n_up - len(q), n_up + 1) if kind == "bounded"
             or (kind == "left" and kappa >= 1) or (kind == "right" and kappa <= -1)}

    out = [c.mpf(0)] * n
    if upper:
        shared = B * c.fsum(q[m] * jvals[n_up - m] for m in range(len(q)))
        for j in upper:
            out[j] = shared
    by_value = {}
    for j in lower:
        key = a[j]
        if key not in by_value:
            al = alpha_of[key]
            # Q_j = Q / (1 - alpha_j v): synthetic division, |alpha_j| <= 1/2 keeps it stable
            qj = [q[0]]
            for m in range(1, len(q) - 1):
                qj.append(q[m] + al * qj[-1])
            by_value[key] = B * al * c.fsum(qj[m] * jvals[n_up - m - 1] for m in range(len(qj)))
        out[j] = by_value[key]
    return out
