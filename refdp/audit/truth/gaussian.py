"""Report-noisy-max with Gaussian noise: certified index law and density-ratio limits.

The mechanism adds i.i.d. ``N(0, sigma^2)`` noise to each answer ``a_i`` and
releases the index of the largest noisy answer, or its value (the Gaussian
members of the report-noisy-max family of Ding, Wang, Wang, Zhang and Kifer,
CCS 2018, Algorithms 5-8, whose Laplace and exponential members are in
:mod:`.noisy_max`). In units of ``sigma`` (``alpha_i = a_i / sigma``):

* **Index.** ``P[argmax = i] = integral phi(z - alpha_i) prod_{j != i}
  Phi(z - alpha_j) dz``. Products of normal distribution functions have no
  closed form, so the integral is enclosed by *rigorous quadrature*
  (:func:`index_law`): the real line is cut at ``min alpha - R`` and
  ``max alpha + R``; each tail is at most the mass of ``phi(z - alpha_i)``
  beyond the cut (the product of distribution functions is in [0, 1]),
  enclosed by the normal tail; between the cuts the integrand is expanded,
  on boxes of width ``h``, in its Taylor polynomial of degree ``K`` about the
  box centre (exact interval coefficients) with the Lagrange remainder
  bounded by the degree ``K + 1`` coefficient enclosed over the whole box.
  Taylor coefficients of ``phi(u + s) = phi(u) e^(-u s - s^2/2)`` follow the
  recurrence ``k e_k = -u e_(k-1) - e_(k-2)`` (Hermite), and those of
  ``Phi(u + s)`` are ``Phi(u)`` then ``phi``'s shifted by one and divided by
  ``k``. ``Phi`` itself is enclosed by its series ``1/2 + phi(t) sum_k
  t^(2k+1) / (2k+1)!!``, whose terms have one sign, with the tail bounded
  geometrically once the term ratio ``t^2/(2k+3)`` is below 1/2
  (:func:`normal_cdf`). Every step is interval arithmetic, so the returned
  intervals contain the exact probabilities.
* **Value.** The density of ``max_i (alpha_i + Z_i)`` is ``p(z) = sum_i
  phi(z - alpha_i) prod_{j != i} Phi(z - alpha_j)``. Mills' inequality
  ``phi(t) |t| / (1 + t^2) <= Phi(t) <= phi(t) / |t|`` (``t < 0``) gives
  ``ln p_D(z) = -sum_j (z - alpha_j)^2 / 2 + O(ln |z|)`` as ``z -> -inf``,
  so ``ln p_D(z) / p_D'(z) = z (sum alpha - sum alpha') + O(ln |z|)``; as
  ``z -> +inf``, ``p_D(z) = m_D phi(z - max alpha) (1 + o(1))`` (``m_D`` the
  multiplicity of the maximum), so the log-ratio grows like ``z (max alpha -
  max alpha')``. The supremum is therefore certified infinite when ``sum
  alpha < sum alpha'`` or ``max alpha > max alpha'`` (:func:`value_epsilon`),
  with a certified finite lower bound at an explicit output besides.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...utils.precision import iv_context
from .exact_epsilon import PairEpsilon, interval_ends
from .piecewise import _rat

__all__ = ["normal_cdf", "index_law", "value_epsilon", "value_log_ratio"]

#: cut-off radius in units of sigma: Phi(-R) < 1.2e-19 at R = 9
_RADIUS = 9
#: box width (units of sigma) and Taylor degree of the quadrature
_STEP = Fraction(1, 2)
_DEGREE = 16


def _working(ctx):
    """A private context with 30 more digits than ``ctx`` (the series of Phi cancels near 1/2)."""
    return iv_context(max(int(ctx.dps), 30) + 30)


def _phi(ctx, t):
    return ctx.exp(-t * t / 2) / ctx.sqrt(2 * ctx.pi)


def normal_cdf(ctx, t):
    """Enclosure of the standard normal distribution function ``Phi(t)``.

    Parameters
    ----------
    ctx : mpmath interval context
    t : interval of ``ctx`` (narrow: a point or a few ulps wide)

    Notes
    -----
    ``Phi(t) = 1/2 + phi(t) S(t)`` with ``S(t) = sum_{k >= 0} t^(2k+1) /
    (2k+1)!!`` (Abramowitz and Stegun 26.2.11). All terms have the sign of
    ``t``, and ``|T_(k+1) / T_k| = t^2 / (2k + 3)``; once that ratio is at
    most 1/2 the remaining sum is at most twice the next term, which is
    added as a symmetric error interval. The result is intersected with
    [0, 1].
    """
    t2 = t * t
    term = t
    total = term
    k = 0
    eps = ctx.mpf(2) ** (-ctx.prec - 10)
    t2_hi = float(ctx.mpf(t2.b)) if t2.b != math.inf else math.inf
    while True:
        k += 1
        term = term * t2 / (2 * k + 1)
        ratio_ok = t2_hi / (2 * k + 3) <= 0.5
        if ratio_ok:
            mag = max(abs(term.a), abs(term.b))
            if mag < eps or k > 4000:
                tail = 2 * mag    # sum_{j >= k+1} |T_j| <= |T_k| (r + r^2 + ...) <= |T_k| for r <= 1/2
                total = total + term + ctx.mpf([-tail, tail])
                break
        total = total + term
    out = ctx.mpf(1) / 2 + _phi(ctx, t) * total
    lo = max(out.a, ctx.mpf(0).a)
    hi = min(out.b, ctx.mpf(1).b)
    return ctx.mpf([lo, hi])


def _phi_series(ctx, u, n):
    """Taylor coefficients ``[c_0, ..., c_(n-1)]`` of ``phi(u + s)`` in ``s``."""
    e = [ctx.mpf(1), -u]
    for k in range(2, n):
        e.append((-u * e[k - 1] - e[k - 2]) / k)
    p = _phi(ctx, u)
    return [p * x for x in e[:n]]


def _cdf_series(ctx, u, cdf_u, n):
    """Taylor coefficients of ``Phi(u + s)``: ``Phi(u)``, then ``phi``'s divided by their index."""
    ph = _phi_series(ctx, u, n - 1)
    return [cdf_u] + [ph[k - 1] / k for k in range(1, n)]


def _mul(a, b, n):
    out = []
    for k in range(n):
        s = a[0] * b[k]
        for j in range(1, k + 1):
            s += a[j] * b[k - j]
        out.append(s)
    return out


def _cdf_on(ctx, cache, x):
    """``Phi(x)`` for a Fraction ``x`` (cached)."""
    if x not in cache:
        cache[x] = normal_cdf(ctx, _rat(ctx, x))
    return cache[x]


def _index_law_work(ctx, alphas, step=_STEP, degree=_DEGREE, radius=_RADIUS):
    n = len(alphas)
    alphas = [Fraction(a) for a in alphas]
    lo_end = math.floor(min(alphas)) - radius
    m = math.ceil((math.ceil(max(alphas)) + radius - lo_end) / step)
    hi_end = lo_end + m * step          # the boxes cover [lo_end, hi_end] exactly; the tails start there
    cache = {}
    half = step / 2
    hpow = [ctx.mpf(1)]
    hv = _rat(ctx, half)
    for _ in range(degree + 3):
        hpow.append(hpow[-1] * hv)
    weights = [2 * hpow[k + 1] / (k + 1) if k % 2 == 0 else None for k in range(degree + 1)]
    rem_weight = 2 * hpow[degree + 2] / (degree + 2)
    totals = [ctx.mpf(0) for _ in range(n)]
    K = degree + 1
    for b in range(m):
        left = lo_end + b * step
        right = left + step
        centre = left + half
        box = ctx.mpf([_rat(ctx, left).a, _rat(ctx, right).b])
        cz = _rat(ctx, centre)
        # series at the centre (degree K - 1) and over the box (degree K, for the remainder)
        at_c, at_box = [], []
        for a in alphas:
            u_c = cz - _rat(ctx, a)
            u_b = box - _rat(ctx, a)
            cdf_c = _cdf_on(ctx, cache, centre - a)
            cdf_b = ctx.mpf([_cdf_on(ctx, cache, left - a).a, _cdf_on(ctx, cache, right - a).b])  # Phi increases
            at_c.append((_phi_series(ctx, u_c, K), _cdf_series(ctx, u_c, cdf_c, K)))
            at_box.append((_phi_series(ctx, u_b, K + 1), _cdf_series(ctx, u_b, cdf_b, K + 1)))

        def products(series, length):
            # prefix and suffix products of the distribution-function series: prod_{j != i} in O(n)
            one = [ctx.mpf(1)] + [ctx.mpf(0)] * (length - 1)
            pre = [one]
            for _, c in series:
                pre.append(_mul(pre[-1], c, length))
            suf = [one]
            for _, c in reversed(series):
                suf.append(_mul(suf[-1], c, length))
            suf = suf[::-1]
            return [_mul(series[i][0], _mul(pre[i], suf[i + 1], length), length) for i in range(n)]
        g_c = products(at_c, K)
        g_b = products(at_box, K + 1)
        for i in range(n):
            s = ctx.mpf(0)
            for k in range(0, K, 2):
                s += g_c[i][k] * weights[k]
            r = g_b[i][K]
            mag = max(abs(r.a), abs(r.b)) * rem_weight.b
            totals[i] += s + ctx.mpf([-mag, mag])
    out = []
    for i, a in enumerate(alphas):
        # tails: 0 <= integral beyond a cut <= mass of phi(z - alpha_i) beyond it
        tail = _cdf_on(ctx, cache, lo_end - a).b + _cdf_on(ctx, cache, a - hi_end).b
        p = totals[i] + ctx.mpf([0, tail])
        out.append(ctx.mpf([max(p.a, ctx.mpf(0).a), min(p.b, ctx.mpf(1).b)]))
    return out


def index_law(ctx, answers, sigma, *, step=_STEP, degree=_DEGREE):
    """``[P[argmax_i (a_i + N(0, sigma^2)) = i] for i]`` as intervals of ``ctx``.

    Parameters
    ----------
    ctx : mpmath interval context
        The context of the returned intervals (the quadrature runs in a
        private context 30 digits finer).
    answers : sequence of rationals
    sigma : rational > 0
        Standard deviation of the noise.
    step, degree : optional
        Box width in units of ``sigma`` and Taylor degree of the quadrature
        (the enclosure is valid for any choice; these set its width).

    Returns
    -------
    list of intervals
        Each contains the exact probability; ties have probability zero.
    """
    w = _working(ctx)
    s = Fraction(sigma)
    law = _index_law_work(w, [Fraction(a) / s for a in answers], step=Fraction(step), degree=int(degree))
    out = []
    for p in law:
        lo, hi = interval_ends(p)
        out.append(ctx.mpf([_rat(ctx, lo).a, _rat(ctx, hi).b]))
    return out


def _density(ctx, alphas, z, cache):
    """Density of the maximum (in units of sigma) at the Fraction ``z``."""
    cdfs = [_cdf_on(ctx, cache, z - a) for a in alphas]
    total = ctx.mpf(0)
    for i, a in enumerate(alphas):
        t = _phi(ctx, _rat(ctx, z - a))
        for j, c in enumerate(cdfs):
            if j != i:
                t = t * c
        total += t
    return total


def value_log_ratio(ctx, d, e, sigma, v):
    """Enclosure of ``ln p_D(v) / p_D'(v)`` for the released maximum at the output ``v``."""
    w = _working(ctx)
    s = Fraction(sigma)
    a = [Fraction(x) / s for x in d]
    b = [Fraction(x) / s for x in e]
    z = Fraction(v) / s
    cache = {}
    pd, pe = _density(w, a, z, cache), _density(w, b, z, cache)
    if not (pd.a > 0 and pe.a > 0):
        raise ValueError(f"cannot certify that both densities are positive at v = {v}")
    lo, hi = interval_ends(w.ln(pd) - w.ln(pe))
    return lo, hi


def value_epsilon(ctx, d, e, sigma):
    """``sup_v ln p_D(v) / p_D'(v)`` for the released noisy maximum with Gaussian noise.

    Returns
    -------
    PairEpsilon
        ``[0, 0]`` when the answers are a permutation of each other (the two
        laws are equal); certified infinite when ``sum a < sum a'`` (the limit
        ``v -> -inf``) or ``max a > max a'`` (``v -> +inf``), see the module
        notes. Otherwise the supremum is finite; only a certified *lower*
        bound (the largest log-ratio on a grid of 81 outputs within 8 sigma of the
        answers) is returned, with
        the upper end ``inf`` (not certified).
    """
    a = sorted(Fraction(x) for x in d)
    b = sorted(Fraction(x) for x in e)
    if a == b:
        return PairEpsilon(Fraction(0), Fraction(0), "equal laws (the answers are a permutation)")
    s = Fraction(sigma)
    if sum(a) < sum(b) or max(a) > max(b):
        # a concrete output where the ratio is already large: far in the diverging tail
        if sum(a) < sum(b):
            where, v = "v -> -inf (sum a < sum a')", min(a + b) - 8 * s
        else:
            where, v = "v -> +inf (max a > max a')", max(a + b) + 8 * s
        lo, hi = value_log_ratio(ctx, d, e, s, v)
        return PairEpsilon(math.inf, math.inf,
                           f"{where}; at v = {float(v):g} the log-ratio is already in "
                           f"[{float(lo):.6g}, {float(hi):.6g}]")
    # the limits at both ends are lower bounds of the supremum (exact): at +inf the ratio tends to the
    # ratio of the multiplicities of the maxima (equal maxima here); at -inf, when the sums are equal,
    # p(z) = prod_j phi(z - alpha_j) (n / |z|^(n-1)) (1 + o(1)), so the log-ratio tends to
    # (sum alpha'^2 - sum alpha^2) / 2
    limits = []
    if max(a) == max(b):
        limits.append((ctx.ln(ctx.mpf(a.count(max(a)))) - ctx.ln(ctx.mpf(b.count(max(b)))), "v -> +inf"))
    if sum(a) == sum(b):
        q = (sum(x * x for x in b) - sum(x * x for x in a)) / (2 * s * s)
        limits.append((_rat(ctx, q), "v -> -inf"))
    best = None
    for value, where in limits:
        lo, _ = interval_ends(value)
        if best is None or lo > best[0]:
            best = (lo, where)
    span = max(a + b) - min(a + b)
    for k in range(-40, 41):   # outputs within 8 sigma of the answers (the series of Phi stays accurate)
        v = (min(a + b) + max(a + b)) / 2 + Fraction(k, 40) * (span / 2 + 8 * s)
        lo, _ = value_log_ratio(ctx, d, e, s, v)
        if best is None or lo > best[0]:
            best = (lo, f"v = {float(v):g}")
    return PairEpsilon(max(best[0], Fraction(0)), math.inf,
                       f"lower bound at {best[1]} (finite supremum; upper end not certified)")
