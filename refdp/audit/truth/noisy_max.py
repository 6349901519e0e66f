"""Exact laws of report-noisy-max: the released index and the released value.

Report-noisy-max adds i.i.d. noise to each answer ``a_i`` and releases the
index of the largest noisy answer (Dwork and Roth 2014, Claim 3.9; Ding,
Wang, Wang, Zhang and Kifer 2018, Algorithms 5-6) or its value (their
Algorithms 7-8, which are not private at the claimed epsilon).

* Index, Laplace or exponential noise:
  ``P[argmax = i] = integral f_i(x) prod_{j != i} F_j(x) dx`` with ``f_i``,
  ``F_j`` the density and distribution function of ``a_j + noise``; products
  of these are piecewise exponential, so the integral is a finite sum of
  closed forms (:mod:`.piecewise`). Ties have probability zero.
* Index, Gumbel noise of scale ``s`` (DP-Auditorium's noisy max): the
  Gumbel-max identity gives ``P[argmax = i] = e^(a_i/s) / sum_j e^(a_j/s)``.
* Value: the density of ``max_i (a_i + noise_i)`` is
  ``d/dx prod_j F_j(x) = sum_i f_i(x) prod_{j != i} F_j(x)``.
"""
from __future__ import annotations

from fractions import Fraction

from .piecewise import (PiecewiseExp, _rat, exponential_cdf, exponential_pdf, laplace_cdf,
                        laplace_pdf)

__all__ = ["index_law", "value_density", "NOISES"]

NOISES = ("laplace", "exponential", "gumbel")


def _laws(noise):
    if noise == "laplace":
        return laplace_pdf, laplace_cdf
    if noise == "exponential":
        return exponential_pdf, exponential_cdf
    raise ValueError(f"no piecewise exponential law for {noise!r} noise")


def _terms(ctx, answers, scale, noise):
    pdf, cdf = _laws(noise)
    answers = [Fraction(a) for a in answers]
    dens = [pdf(ctx, a, scale) for a in answers]
    cdfs = [cdf(ctx, a, scale) for a in answers]
    out = []
    for i in range(len(answers)):
        t = dens[i]
        for j in range(len(answers)):
            if j != i:
                t = t * cdfs[j]
        out.append(t)
    return out


def index_law(ctx, answers, scale, noise="laplace"):
    """``[P[argmax = i] for i]`` as intervals of ``ctx``.

    Parameters
    ----------
    ctx : mpmath interval context
    answers : sequence of rationals
    scale : rational
        Noise scale (Laplace ``b``, exponential mean, Gumbel ``beta``).
    noise : {"laplace", "exponential", "gumbel"}
    """
    if noise == "gumbel":
        w = [ctx.exp(_rat(ctx, Fraction(a) / Fraction(scale))) for a in answers]
        total = sum(w[1:], w[0])
        return [x / total for x in w]
    return [t.integral() for t in _terms(ctx, answers, scale, noise)]


def value_density(ctx, answers, scale, noise="laplace") -> PiecewiseExp:
    """Density of the released maximum ``max_i (a_i + noise_i)``."""
    terms = _terms(ctx, answers, scale, noise)
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total
