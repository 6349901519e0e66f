"""The mechanisms of the DP-Sniper, StatDP and DP-Auditorium benchmarks and their exact epsilon.

Each :class:`SuiteMechanism` is written here from the published description
of the mechanism (the papers cited in its ``source``) with the parameters of
DP-Sniper's default experiment (Bichsel, Steffen, Bogunovic and Vechev,
IEEE S&P 2021: claimed epsilon 0.1; 5 inputs for histograms and noisy max,
10 for the sparse vector variants, ``c = 1`` and threshold 0.5 for SVT1 and 1
for SVT2-6, ``c = 2`` for SVT34Parallel and NumericalSVT, 20 parallel
Laplace mechanisms of epsilon 0.005, RAPPOR with 4 hashes into 20 bits) and
its exact law (:mod:`.noisy_max`, :mod:`.sparse_vector`, :mod:`.rappor` and
closed forms). :func:`pattern_pairs` gives the input pairs both tools
search: StatDP's patterns (Ding, Wang, Wang, Zhang and Kifer, CCS 2018,
Sec. 5.1), clipped to the input domain, in both orders.

:func:`exact_epsilon` returns, for one ordered pair, a certified enclosure of
``sup_o ln p_D(o) / p_D'(o)`` (:class:`.exact_epsilon.PairEpsilon`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from ...utils.precision import iv_context
from ...utils.validation import Options, check_option, parameter_error
from . import gaussian, noisy_max, sparse_vector
from .exact_epsilon import PairEpsilon, combine_max, discrete_epsilon, interval_ends
from .geometric import truncated_geometric_law
from .piecewise import laplace_pdf
from .rappor import rappor_epsilon
from .ratio import sup_log_ratio

__all__ = ["SuiteMechanism", "MECHANISMS", "pattern_pairs", "exact_epsilon", "worst_pair"]

_OWNER = "exact_epsilon"
EPS = Fraction(1, 10)


def pattern_pairs(dimension, componentwise, low, high, as_float=True):
    """StatDP's input patterns around ``D = (1, ..., 1)``, clipped to ``[low, high]``, both orders.

    One above / one below (``componentwise=False`` stops here: the inputs
    differ in one entry), then one above rest below, one below rest above,
    half-half, all above, all below and the crossing pair ``(1,..,1,0,..,0)``
    vs ``(0,..,0,1,..,1)``.
    """
    n, h = dimension, dimension // 2
    ones = [1] * n
    raw = [(ones, [0] + [1] * (n - 1)), (ones, [2] + [1] * (n - 1))]
    if componentwise:
        raw += [(ones, [2] + [0] * (n - 1)), (ones, [0] + [2] * (n - 1)),
                (ones, [2] * h + [0] * (n - h)), (ones, [2] * n), (ones, [0] * n),
                ([1] * h + [0] * (n - h), [0] * h + [1] * (n - h))]
    out = []
    for a, b in raw:
        a = tuple(max(low, min(high, x)) for x in a)
        b = tuple(max(low, min(high, x)) for x in b)
        if as_float:
            a, b = tuple(float(x) for x in a), tuple(float(x) for x in b)
        out += [(a, b), (b, a)]
    return out


@dataclass
class SuiteMechanism:
    """One benchmark mechanism: its description, claim, input pairs and exact epsilon."""

    name: str
    source: str
    claimed_epsilon: Fraction
    dimension: int
    componentwise: bool
    domain: tuple
    as_float: bool
    law: str                       # how the exact value is computed (for the docs)
    epsilon: object = field(repr=False, default=None)   # (ctx, d, e) -> PairEpsilon
    suites: tuple = ("DP-Sniper", "StatDP")

    def pairs(self):
        return pattern_pairs(self.dimension, self.componentwise, *self.domain, as_float=self.as_float)


# --------------------------------------------------------------- closed forms --

def _laplace_vector(scale, copies=1):
    """``sup ln`` of two product-Laplace densities: ``copies * sum_i |a_i - a'_i| / scale``."""
    def epsilon(ctx, d, e):
        diff = sum(abs(Fraction(x) - Fraction(y)) for x, y in zip(d, e)) * copies
        lo, hi = interval_ends(ctx.mpf(diff.numerator) / diff.denominator / ctx.mpf(Fraction(scale).numerator)
                               * Fraction(scale).denominator)
        sides = ["v_%d <= %s" % (i, x) if Fraction(x) < Fraction(y) else "v_%d >= %s" % (i, x)
                 for i, (x, y) in enumerate(zip(d, e)) if x != y]
        return PairEpsilon(lo, hi, "outputs with " + ", ".join(sides) + (" (every copy)" if copies > 1 else ""))
    return epsilon


def _geometric(eps, n):
    def epsilon(ctx, d, e):
        law_d = truncated_geometric_law(ctx, eps, n, int(d[0]))
        law_e = truncated_geometric_law(ctx, eps, n, int(e[0]))
        return discrete_epsilon(ctx, law_d, law_e)
    return epsilon


def _rappor(**kw):
    def epsilon(ctx, d, e):
        total, nbits, a, b = rappor_epsilon(ctx, _hash_input(d[0]), _hash_input(e[0]), **kw)
        lo, hi = interval_ends(total)
        return PairEpsilon(lo, hi, f"every differing bit reported as in the first filter "
                                   f"(bits {a} vs {b}; {nbits} differ)")
    return epsilon


def _hash_input(x):
    # the value is hashed as written: DP-Sniper's integer inputs as "1", StatDP's float inputs as "1.0"
    return x


# ------------------------------------------------------------- noisy max --

def _rnm_index(noise, scale):
    def epsilon(ctx, d, e):
        a = noisy_max.index_law(ctx, [Fraction(x) for x in d], scale, noise)
        b = noisy_max.index_law(ctx, [Fraction(x) for x in e], scale, noise)
        return discrete_epsilon(ctx, dict(enumerate(a)), dict(enumerate(b)))
    return epsilon


def _sup(ctx, num, den, where, floor=None, tol=1e-9):
    s = sup_log_ratio(num, den, floor=floor, tol=tol)
    if s.infinite:
        return PairEpsilon(math.inf, math.inf, f"{where}: {s.witness}")
    return PairEpsilon(s.lower, s.upper, f"{where}: v = {s.witness}")


def _rnm_value(noise, scale):
    def epsilon(ctx, d, e):
        num = noisy_max.value_density(ctx, [Fraction(x) for x in d], scale, noise)
        den = noisy_max.value_density(ctx, [Fraction(x) for x in e], scale, noise)
        return _sup(ctx, num, den, "released maximum")
    return epsilon


def _rnm_gaussian_index(sigma):
    def epsilon(ctx, d, e):
        a = gaussian.index_law(ctx, [Fraction(x) for x in d], sigma)
        b = gaussian.index_law(ctx, [Fraction(x) for x in e], sigma)
        return discrete_epsilon(ctx, dict(enumerate(a)), dict(enumerate(b)))
    return epsilon


def _rnm_gaussian_value(sigma):
    def epsilon(ctx, d, e):
        return gaussian.value_epsilon(ctx, d, e, sigma)
    return epsilon


# ---------------------------------------------------------- sparse vector --

def _svt(threshold, rho_scale, nu_scale, cutoff):
    def epsilon(ctx, d, e):
        law = sparse_vector.PatternLaw(ctx, threshold, rho_scale, nu_scale)
        pats = sparse_vector.patterns(len(d), cutoff)
        a = {p: law.probability(d, p) for p in pats}
        b = {p: law.probability(e, p) for p in pats}
        return discrete_epsilon(ctx, a, b)
    return epsilon


def _svt3(threshold, rho_scale, nu_scale):
    def epsilon(ctx, d, e):
        atom_d, dens_d = sparse_vector.svt3_densities(ctx, d, threshold, rho_scale, nu_scale)
        atom_e, dens_e = sparse_vector.svt3_densities(ctx, e, threshold, rho_scale, nu_scale)
        n = len(d)
        parts = [discrete_epsilon(ctx, {"all below": atom_d}, {"all below": atom_e})]
        for k in range(n):
            parts.append(_sup(ctx, dens_d[k], dens_e[k], f"below for queries < {k}, value released at {k}"))
        return combine_max(parts)
    return epsilon


def _numerical_svt(threshold, rho_scale, nu_scale, value_scale, cutoff):
    """Pattern law times independent Laplace values: ``sup = max_pattern [ln P/P' + sum_above |q - q'|/b]``."""
    def epsilon(ctx, d, e):
        law = sparse_vector.PatternLaw(ctx, threshold, rho_scale, nu_scale)
        parts = []
        b = Fraction(value_scale)
        for p in sparse_vector.patterns(len(d), cutoff):
            base = discrete_epsilon(ctx, {p: law.probability(d, p)}, {p: law.probability(e, p)})
            shift = sum(abs(Fraction(x) - Fraction(y)) for x, y, c in zip(d, e, p) if c == 1) / b
            lo, hi = interval_ends(ctx.mpf(shift.numerator) / shift.denominator)
            parts.append(PairEpsilon(base.lower + lo, base.upper + hi,
                                     f"pattern {p} with each released value beyond its answer"))
        return combine_max(parts)
    return epsilon


def _svt3_released(threshold, rho_scale, nu_scale, cutoff, tol=1e-9):
    """Algorithm 3 with cutoff ``c``: the atom and every output with released values.

    For values at positions ``K`` the log-ratio is ``sum_j ln A_j(v_j) +
    ln R_K(min_j v_j)`` with ``A_j(v) = f_nu(v - q_j) / f_nu(v - q'_j)`` and
    ``R_K = G_K / G'_K`` (:func:`.sparse_vector.svt3_released_pieces`). Its
    supremum is the largest over the position ``j0`` of the smallest value
    ``v``: the other values range over ``[v, inf)``, where the supremum of
    ``A_j`` is ``A_j(v)`` when ``q_j < q'_j`` (``A_j`` does not increase) and
    its limit ``e^((q_j - q'_j)/b)`` otherwise (``A_j`` does not decrease).
    Each case is one supremum of a ratio of piecewise exponential densities
    (:func:`.ratio.sup_log_ratio`), so the result is a certified enclosure.
    """
    b = Fraction(nu_scale)

    def epsilon(ctx, d, e, floor=None):
        atom_d, pd = sparse_vector.svt3_released_pieces(ctx, d, threshold, rho_scale, nu_scale, cutoff)
        atom_e, pe = sparse_vector.svt3_released_pieces(ctx, e, threshold, rho_scale, nu_scale, cutoff)
        parts = [discrete_epsilon(ctx, {"all below": atom_d}, {"all below": atom_e})]
        # one value before two: the cheaper suprema first, so that the later ones can stop as soon as
        # they are certified not to exceed the best lower end found (their enclosures stay valid)
        for K in sorted(pd, key=len):
            for j0 in K:
                num = laplace_pdf(ctx, Fraction(d[j0]), b) * pd[K]
                den = laplace_pdf(ctx, Fraction(e[j0]), b) * pe[K]
                const = Fraction(0)
                for j in K:
                    if j == j0:
                        continue
                    if Fraction(d[j]) < Fraction(e[j]):
                        num = num * laplace_pdf(ctx, Fraction(d[j]), b)
                        den = den * laplace_pdf(ctx, Fraction(e[j]), b)
                    else:
                        const += (Fraction(d[j]) - Fraction(e[j])) / b
                lo, hi = interval_ends(ctx.mpf(const.numerator) / const.denominator)
                known = max([p.lower for p in parts] + ([floor] if floor is not None else []))
                s = _sup(ctx, num, den, f"values released at {K}, the smallest at {j0}", floor=known - hi,
                         tol=tol)
                parts.append(PairEpsilon(s.lower + lo, s.upper + hi, s.witness))
        return combine_max(parts)
    return epsilon


def _svt34(threshold, eps, cutoff):
    """SVT3 and SVT4 side by side on the same answers (independent noise): exact.

    The two outputs are independent given the input, so the log density ratio
    of the pair is the sum of the two parts' log-ratios, each a function of its
    own output; the supremum of the sum is the sum of the suprema, in the same
    direction ``D -> D'``. SVT4's part is its pattern law (pattern integrals);
    SVT3's part, which releases up to ``c`` correlated noisy values, is
    :func:`_svt3_released`.
    """
    def epsilon(ctx, d, e, floor=None):
        svt4 = _svt(threshold, 4 / eps, 1 / (eps * 3 / 4), cutoff)(ctx, d, e)
        svt3 = _svt3_released(threshold, 2 / eps, cutoff / (eps / 2), cutoff, tol=1e-8)(
            ctx, d, e, floor=None if floor is None else floor - svt4.upper)
        return PairEpsilon(svt4.lower + svt3.lower, svt4.upper + svt3.upper,
                           f"SVT3 output: {svt3.witness}; SVT4 pattern {svt4.witness}")
    epsilon.accepts_floor = True
    epsilon.screen = _svt34_lower(threshold, eps, cutoff)
    return epsilon


def _svt34_lower(threshold, eps, cutoff):
    """SVT3 and SVT4 run side by side on the same answers (independent noise).

    The exact epsilon of a pair is the sum of the two parts' suprema in the
    same direction. SVT4's part is exact (pattern integrals); for SVT3's part
    only the law of its answer pattern (which queries were above), a
    post-processing of its output, is used, so the value is a certified
    *lower bound* of the exact epsilon (the upper end is reported as
    infinite: not certified).
    """
    def epsilon(ctx, d, e):
        svt4 = _svt(threshold, 4 / eps, 1 / (eps * 3 / 4), cutoff)(ctx, d, e)
        svt3 = _svt(threshold, 2 / eps, cutoff / (eps / 2), cutoff)(ctx, d, e)
        return PairEpsilon(svt4.lower + svt3.lower, math.inf,
                           f"SVT3 pattern {svt3.witness} with SVT4 pattern {svt4.witness} "
                           f"(lower bound: SVT3's released values not used)")
    return epsilon


def _build():
    e = EPS
    lyu = "Lyu, Su and Li, PVLDB 2017, Figure 1, Algorithm %d"
    ding = "Ding, Wang, Wang, Zhang and Kifer, CCS 2018, Algorithm %d"
    m = []

    def add(name, source, claimed, dim, comp, domain, as_float, law, fn, suites=("DP-Sniper", "StatDP")):
        m.append(SuiteMechanism(name, source, Fraction(claimed), dim, comp, domain, as_float, law, fn, suites))
    add("LaplaceMechanism", "Dwork, McSherry, Nissim and Smith 2006; Laplace(1/eps)", e, 1, False, (-10, 10),
        True, "closed form: |a - a'| / b", _laplace_vector(1 / e))
    add("TruncatedGeometricMechanism", "Balcer and Vadhan, arXiv:1709.05396, Algorithm 4.8 (n = 5)", e, 1,
        False, (0, 5), False, "exact rational law", _geometric(e, 5))
    add("NoisyHist1", ding % 9 + "; Laplace(1/eps)", e, 5, False, (0, 10), False,
        "closed form: sum |a_i - a'_i| / b", _laplace_vector(1 / e))
    add("NoisyHist2", ding % 10 + "; Laplace(eps), a wrong scale", e, 5, False, (0, 10), False,
        "closed form: sum |a_i - a'_i| / b", _laplace_vector(e))
    add("ReportNoisyMax1", ding % 5 + "; Laplace(2/eps), index", e, 5, True, (-10, 10), True,
        "piecewise exponential integrals", _rnm_index("laplace", 2 / e))
    add("ReportNoisyMax2", ding % 6 + "; Exponential(2/eps), index", e, 5, True, (-10, 10), True,
        "piecewise exponential integrals", _rnm_index("exponential", 2 / e))
    add("ReportNoisyMax3", ding % 7 + "; Laplace(2/eps), value", e, 5, True, (-10, 10), True,
        "certified sup of the density ratio", _rnm_value("laplace", 2 / e))
    add("ReportNoisyMax4", ding % 8 + "; Exponential(2/eps), value", e, 5, True, (-10, 10), True,
        "certified sup of the density ratio", _rnm_value("exponential", 2 / e))
    add("ReportNoisyMax (Gaussian), index", ding % 5 + " with N(0, (2/eps)^2) noise, index", e, 5, True,
        (-10, 10), True, "certified quadrature (Taylor models)", _rnm_gaussian_index(2 / e), suites=())
    add("ReportNoisyMax (Gaussian), value", ding % 7 + " with N(0, (2/eps)^2) noise, value", e, 5, True,
        (-10, 10), True, "tail asymptotics (Mills' inequality)", _rnm_gaussian_value(2 / e), suites=())
    add("SparseVectorTechnique1", lyu % 1 + " (c = 1, T = 0.5)", e, 10, True, (-10, 10), True,
        "pattern integrals", _svt(Fraction(1, 2), 2 / e, 4 / e, 1))
    add("SparseVectorTechnique2", lyu % 2 + " (c = 1, T = 1)", e, 10, True, (-10, 10), True,
        "pattern integrals (with c = 1 the threshold is never redrawn)", _svt(1, 2 / e, 4 / e, 1))
    add("SparseVectorTechnique3", lyu % 3 + " (c = 1, T = 1): releases noisy answers", e, 10, True,
        (-10, 10), True, "atom + certified sup of the density ratios", _svt3(1, 2 / e, 2 / e))
    add("SparseVectorTechnique4", lyu % 4 + " (c = 1, T = 1)", e, 10, True, (-10, 10), True,
        "pattern integrals", _svt(1, 4 / e, 1 / (e * 3 / 4), 1))
    add("SparseVectorTechnique5", lyu % 5 + " (T = 1): no answer noise, no cutoff", e, 10, True, (-10, 10),
        True, "pattern integrals (half-line indicators)", _svt(1, 2 / e, None, None))
    add("SparseVectorTechnique6", lyu % 6 + " (T = 1): no cutoff", e, 10, True, (-10, 10), True,
        "pattern integrals", _svt(1, 2 / e, 2 / e, None))
    # claims: RAPPOR's epsilon_1 = h ln(q*(1 - p*) / (p*(1 - q*))) for one report, and
    # epsilon_inf = 2 h ln((1 - f/2) / (f/2)) for the permanent response (their Sec. 4)
    add("Rappor", "Erlingsson, Pihur and Korolova, CCS 2014 (h = 4, k = 20, f = 0.75, p = 0.45, q = 0.55)",
        Fraction(8 * math.log(Fraction(41, 39))), 1, False, (-10, 10), False, "closed form over the Bloom filter bits",
        _rappor(f=Fraction(3, 4), p=Fraction(9, 20), q=Fraction(11, 20)))
    add("OneTimeRappor", "Erlingsson, Pihur and Korolova, CCS 2014, permanent response only (f = 0.95)",
        Fraction(8 * math.log(Fraction(21, 19))), 1, False, (-10, 10), False, "closed form over the Bloom filter bits",
        _rappor(f=Fraction(19, 20), p=None, q=None))
    add("LaplaceParallel", "20 Laplace mechanisms of eps = 0.005 on one value", e, 1, False, (-10, 10), True,
        "closed form: 20 |a - a'| / b", _laplace_vector(200, copies=20))
    add("SVT34Parallel", lyu % 3 + " and " + (lyu % 4).split(", ")[-1] + " side by side (c = 2, T = 1)",
        2 * e, 10, True, (-10, 10), True,
        "SVT4 pattern integrals + SVT3's released values (certified sup of the density ratios)", _svt34(1, e, 2))
    add("PrefixSum", "Wang, Ding, Wang, Kifer and Zhang, PLDI 2019; prefix sums of a + Laplace(1/eps)", e, 10,
        True, (-10, 10), True, "closed form (a unit-Jacobian bijection of NoisyHist)", _laplace_vector(1 / e))
    add("NumericalSVT", "Wang, Ding, Wang, Kifer and Zhang, PLDI 2019 (c = 2, T = 1)", e, 10, True, (-10, 10),
        True, "pattern integrals + Laplace value factors", _numerical_svt(1, 3 / e, 12 / e, 6 / e, 2))
    add("NoisyMax (Gumbel)", "DP-Auditorium's noisy max: Gumbel(2/eps) on counts, index", e, 5, False,
        (0, 10), False, "closed form (Gumbel-max)", _rnm_index("gumbel", 2 / e), suites=("DP-Auditorium",))
    return m


MECHANISMS = _build()
_BY_NAME = {x.name: x for x in MECHANISMS}


def exact_epsilon(name, d, e, *, dps=30):
    """Certified enclosure of ``sup_o ln p_D(o) / p_D'(o)`` for a benchmark mechanism.

    Parameters
    ----------
    name : str
        One of ``[m.name for m in MECHANISMS]``.
    d, e : sequence of numbers
        The ordered pair ``(D, D')`` of inputs.
    dps : int, default 30
        Digits of the interval context.

    Returns
    -------
    PairEpsilon
    """
    check_option(name, "name", _OWNER, Options(tuple(_BY_NAME)))
    mech = _BY_NAME[name]
    if len(d) != mech.dimension or len(e) != mech.dimension:
        raise parameter_error("d", _OWNER, f"two inputs of length {mech.dimension}", (d, e))
    return mech.epsilon(iv_context(dps), tuple(d), tuple(e))


def worst_pair(name, *, dps=30):
    """The exact epsilon of every pattern pair and the worst, as ``(worst, {(D, D'): PairEpsilon})``.

    For a mechanism whose law is costly (SVT34Parallel) the pairs are taken
    in the order of a cheap certified lower bound, and each later pair's
    suprema stop as soon as they are certified not to exceed the best lower
    end found so far: the worst pair's enclosure is as tight as alone, and
    the other pairs' enclosures stay valid but may be wider (their upper
    ends lie at or below the worst pair's lower end).
    """
    mech = _BY_NAME[check_option(name, "name", _OWNER, Options(tuple(_BY_NAME)))]
    ctx = iv_context(dps)
    values = {}
    if getattr(mech.epsilon, "accepts_floor", False):
        pairs = sorted(mech.pairs(), key=lambda p: -mech.epsilon.screen(ctx, *p).lower)
        best = None
        for d, e in pairs:
            values[(d, e)] = v = mech.epsilon(ctx, d, e, floor=best)
            best = v.lower if best is None else max(best, v.lower)
    for d, e in mech.pairs():
        if (d, e) not in values:
            values[(d, e)] = mech.epsilon(ctx, d, e)
    worst = max(values, key=lambda k: (values[k].lower, values[k].upper))
    return worst, values
