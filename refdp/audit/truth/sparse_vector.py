"""Exact laws of the sparse vector technique and its variants.

All variants compare noisy answers ``q_i + nu_i`` with a noisy threshold
``T + rho`` (Lyu, Su and Li, "Understanding the Sparse Vector Technique for
Differential Privacy", PVLDB 10(6), 2017, Figure 1, Algorithms 1-6; Wang,
Ding, Wang, Kifer and Zhang, PLDI 2019, for NumericalSVT). Given the
threshold noise ``rho = r`` the answers are independent, so the probability
of an answer pattern is a one-dimensional integral over ``r``:

``P[pattern] = integral p_rho(r) prod_{i answered} P[q_i + nu_i >= T + r]^{[i above]}
P[q_i + nu_i < T + r]^{[i below]} dr``.

With Laplace noise each factor is a Laplace distribution function in ``r``
(an indicator of a half-line for Algorithm 5, which adds no noise to the
answers), so the integrand is piecewise exponential and the integral a
finite sum of closed forms (:mod:`.piecewise`), evaluated in interval
arithmetic.

Patterns are tuples of codes ``1`` (above), ``0`` (below) and ``-1`` (not
answered: after the ``c``-th positive answer), as in DP-Sniper's
implementation.

Algorithm 3 releases the noisy answer itself when it is above the
threshold; with ``c = 1`` the output "below for the first ``k - 1`` queries,
value ``v`` at query ``k``" has density
``f_nu(v - q_k) G_k(v - T)`` where ``G_k(s) = integral_{-inf}^{s} p_rho(r)
prod_{i<k} P[q_i + nu_i < T + r] dr`` -- again piecewise exponential
(:func:`svt3_densities`).
"""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from .piecewise import laplace_cdf, laplace_pdf, laplace_sf, step_above, step_below

__all__ = ["patterns", "PatternLaw", "svt3_densities"]


def patterns(n, cutoff):
    """Every output pattern of ``n`` queries with at most ``cutoff`` positive answers (``None``: no cutoff)."""
    if cutoff is None:
        out = []
        for mask in range(2 ** n):
            out.append(tuple((mask >> (n - 1 - i)) & 1 for i in range(n)))
        return out
    out = [tuple([0] * n)]
    for m in range(1, cutoff + 1):
        for pos in combinations(range(n), m):
            p = [0] * n
            for i in pos:
                p[i] = 1
            if m == cutoff:
                for i in range(pos[-1] + 1, n):
                    p[i] = -1
            out.append(tuple(p))
    return out


class PatternLaw:
    """Probabilities of the answer patterns of a sparse vector variant.

    Parameters
    ----------
    ctx : mpmath interval context
    threshold : rational
        ``T``.
    rho_scale : rational
        Scale of the Laplace noise on the threshold.
    nu_scale : rational or None
        Scale of the Laplace noise on each answer; ``None`` for none
        (Algorithm 5).
    """

    def __init__(self, ctx, threshold, rho_scale, nu_scale):
        self.ctx = ctx
        self.threshold = Fraction(threshold)
        self.rho = laplace_pdf(ctx, 0, Fraction(rho_scale))
        self.nu_scale = None if nu_scale is None else Fraction(nu_scale)
        self._factor_cache = {}
        self._cache = {}

    def _factor(self, q, code):
        key = (q, code)
        if key not in self._factor_cache:
            m = Fraction(q) - self.threshold    # above <=> nu >= r - m
            if self.nu_scale is None:
                f = step_below(self.ctx, m) if code == 1 else step_above(self.ctx, m)
            else:
                f = (laplace_sf if code == 1 else laplace_cdf)(self.ctx, m, self.nu_scale)
            self._factor_cache[key] = f
        return self._factor_cache[key]

    def probability(self, answers, pattern):
        """``P[pattern]`` on the query answers ``answers`` (an interval)."""
        items = tuple(sorted((Fraction(q), c) for q, c in zip(answers, pattern) if c != -1))
        if items not in self._cache:
            f = self.rho
            for q, c in items:
                f = f * self._factor(q, c)
            self._cache[items] = self.ctx.mpf(0) if f.is_zero() else f.integral()
        return self._cache[items]


def svt3_densities(ctx, answers, threshold, rho_scale, nu_scale):
    """Algorithm 3 with ``c = 1``: the atom "all below" and the density of each "value at k" output.

    Returns
    -------
    atom : interval
        ``P[every answer below the threshold]``.
    densities : list of PiecewiseExp
        ``densities[k](v)``: density of "below for queries ``0..k-1``, noisy
        answer ``v`` released for query ``k``".
    """
    T = Fraction(threshold)
    law = PatternLaw(ctx, T, rho_scale, nu_scale)
    n = len(answers)
    atom = law.probability(answers, (0,) * n)
    out = []
    prefix = law.rho
    for k in range(n):
        G = prefix.antiderivative().shifted(T)            # G_k(v - T)
        out.append(laplace_pdf(ctx, Fraction(answers[k]), Fraction(nu_scale)) * G)
        prefix = prefix * law._factor(Fraction(answers[k]), 0)
    return atom, out


def _below_prefix(law, answers, below):
    """``p_rho(r) prod_{i in below} P[q_i + nu_i < T + r]`` as a piecewise function of ``r``."""
    f = law.rho
    for i in sorted(below):
        f = f * law._factor(Fraction(answers[i]), 0)
    return f


def svt3_released_pieces(ctx, answers, threshold, rho_scale, nu_scale, cutoff):
    """Algorithm 3 with cutoff ``c``: the atom and the density factors of every output with values.

    An output of Algorithm 3 is a sequence of ``below`` answers and released
    noisy values; it stops after the ``c``-th value. Given the threshold noise
    ``r`` the answers are independent, so the density of "values ``v_j`` at the
    positions ``K = (k_1 < ... < k_m)``, every other answered query below" is

    ``prod_j f_nu(v_j - q_(k_j)) * G_K(min_j v_j - T)``, with
    ``G_K(s) = integral_{-inf}^{s} p_rho(r) prod_{i below} P[q_i + nu_i < T + r] dr``

    (a value is released only when it is at least ``T + r``, so every value
    must exceed ``T + r``: the smallest decides). The answered queries are
    all ``n`` when ``m < c`` and those up to ``k_m`` when ``m = c``.

    Returns
    -------
    atom : interval
        ``P[every answer below]``.
    pieces : dict
        ``{K: G_K(v - T)}`` (a :class:`~.piecewise.PiecewiseExp` in ``v``) for
        every non-empty tuple ``K`` of at most ``c`` positions.
    """
    T = Fraction(threshold)
    law = PatternLaw(ctx, T, rho_scale, nu_scale)
    n = len(answers)
    atom = law.probability(answers, (0,) * n)
    pieces = {}
    for m in range(1, cutoff + 1):
        for K in combinations(range(n), m):
            last = K[-1] if m == cutoff else n - 1
            below = [i for i in range(last + 1) if i not in K]
            pieces[K] = _below_prefix(law, answers, below).antiderivative().shifted(T)
    return atom, pieces
