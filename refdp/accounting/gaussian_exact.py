"""Interval enclosures of the normal distribution function and of the Gaussian privacy profile.

``delta(eps) = Phi(mu/2 - eps/mu) - e**eps Phi(-mu/2 - eps/mu)`` is the exact
privacy profile of a Gaussian mechanism with ``mu = Delta / sigma`` (Balle and
Wang 2018, Thm. 8), and of a composition of Gaussians with
``mu**2 = sum Delta_i**2 / sigma_i**2`` (Dong, Roth and Su 2022, Cor. 3.3).

``Phi`` is enclosed rigorously, in an interval context given by the caller:

* ``|z| < 2``: ``erf(x) = (2/sqrt(pi)) e**(-x**2) sum_n (2 x**2)**n x / (2n + 1)!!``,
  a series of positive terms; once the ratio ``2x**2 / (2n + 3)`` of
  successive terms is at most 1/2 the tail is at most the next term divided
  by ``1 - ratio``;
* ``z <= -2``: ``Phi(z) = phi(z) R(-z)`` with the Mills ratio
  ``R(t) = 1/(t + 1/(t + 2/(t + 3/(t + ...))))``, whose successive
  convergents lie alternately above and below ``R(t)`` for ``t > 0``
  (Laplace's continued fraction); the hull of two consecutive convergents
  encloses it;
* ``z >= 2``: ``1 - Phi(-z)``.

Proof and references: ``docs/theory/privacy_profiles.rst``, section 5.
"""
from __future__ import annotations


def _mills(t, iv, rel):
    """Interval containing the Mills ratio ``R(t)`` (``t >= 2``), to relative width ``rel`` if possible."""
    n = 16
    while True:
        a = _convergent(t, n, iv)
        b = _convergent(t, n + 1, iv)
        hull = iv.mpf([min(a.a, b.a), max(a.b, b.b)])
        if hull.delta <= rel * hull.a or n >= 1 << 16:
            return hull
        n *= 2


def _convergent(t, n, iv):
    """The n-th convergent ``1/(t + 1/(t + ... + (n-1)/t))`` of the Mills-ratio continued fraction."""
    x = t
    for j in range(n - 1, 0, -1):
        x = t + j / x
    return 1 / x


def _erf_small(x, iv):
    """``erf(x)`` for ``0 <= x < 2`` (positive series with a bounded tail)."""
    x2 = 2 * x * x
    term = x
    total = iv.mpf(0)
    n = 0
    eps = iv.mpf(2) ** (-iv.prec - 8)
    while True:
        total += term
        ratio = x2 / (2 * n + 3)
        nxt = term * ratio
        if ratio.b <= 0.5 and nxt.b <= eps.b * total.a:
            # tail <= next / (1 - ratio_{n+1}) <= 2 next (ratios decrease)
            total += iv.mpf([0, (2 * nxt).b])
            break
        term = nxt
        n += 1
    return 2 / iv.sqrt(iv.pi) * iv.exp(-x * x) * total


def normal_cdf(z, iv):
    """Interval containing ``Phi(z)`` for an interval (or number) ``z``, in context ``iv``."""
    z = iv.mpf(z)
    rel = iv.mpf(2) ** (-iv.prec + 12)
    if z.b <= -2:
        t = -z
        phi = iv.exp(-z * z / 2) / iv.sqrt(2 * iv.pi)
        return phi * _mills(t, iv, rel.b)
    if z.a >= 2:
        return 1 - normal_cdf(-z, iv)
    if z.a > -2 and z.b < 2:
        x = z / iv.sqrt(2)
        if z.a >= 0:
            return (1 + _erf_small(x, iv)) / 2
        if z.b <= 0:
            return (1 - _erf_small(-x, iv)) / 2
    # an interval straddling a boundary: Phi is increasing, enclose its end points
    lo, hi = normal_cdf(iv.mpf(z.a), iv), normal_cdf(iv.mpf(z.b), iv)
    return iv.mpf([lo.a, hi.b])


def gaussian_delta(mu, epsilon, iv):
    """Interval containing ``Phi(mu/2 - eps/mu) - e**eps Phi(-mu/2 - eps/mu)``."""
    mu, e = iv.mpf(mu), iv.mpf(epsilon)
    first = normal_cdf(mu / 2 - e / mu, iv)
    b = -mu / 2 - e / mu                       # <= -mu/2 < 0
    if b.b <= -2:
        # e^eps phi(b) R(-b) with e^eps phi(b) = exp(eps - b^2/2) / sqrt(2 pi): no overflow
        second = iv.exp(e - b * b / 2) / iv.sqrt(2 * iv.pi) * _mills(-b, iv, (iv.mpf(2) ** (-iv.prec + 12)).b)
    else:
        second = iv.exp(e) * normal_cdf(b, iv)
    return first - second
