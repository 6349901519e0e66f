"""The exact epsilon of the audit benchmarks (refdp.audit.truth) against known values and independent laws."""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from refdp.utils.precision import iv_context, raw_to_fraction
from refdp.audit.truth import MECHANISMS, exact_epsilon, pattern_pairs
from refdp.audit.truth import catalogue, noisy_max, sparse_vector
from refdp.audit.truth.exact_epsilon import combine_max, interval_ends
from refdp.audit.truth.geometric import truncated_geometric_law
from refdp.audit.truth.piecewise import laplace_pdf
from refdp.audit.truth.rappor import bloom_bits, murmur3_32
from refdp.audit.truth.ratio import sup_log_ratio
from refdp.mechanisms import report_noisy_max_distribution

X = ((1.0,) * 5 + (0.0,) * 5, (0.0,) * 5 + (1.0,) * 5)
ONE, HALF = (1.0,) * 10, (2.0,) * 5 + (0.0,) * 5


def contains(p, value):
    return p.lower <= value <= p.upper


def both(name, d, e):
    return combine_max([exact_epsilon(name, d, e), exact_epsilon(name, e, d)])


def test_pattern_pairs_are_statdps_patterns():
    pairs = pattern_pairs(5, True, -10, 10)
    assert len(pairs) == 16 and ((1.0,) * 5, (0.0, 1.0, 1.0, 1.0, 1.0)) in pairs
    assert ((1.0, 1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 1.0, 1.0, 1.0)) in pairs      # the crossing pair
    assert len(pattern_pairs(1, False, 0, 5, as_float=False)) == 4
    assert pattern_pairs(3, True, 0, 1)[4] == ((1.0,) * 3, (1.0, 0.0, 0.0))      # clipped to the domain


def test_laplace_family_closed_forms():
    assert contains(exact_epsilon("LaplaceMechanism", (1.0,), (0.0,)), Fraction(1, 10))
    assert contains(exact_epsilon("NoisyHist2", (1,) * 5, (0, 1, 1, 1, 1)), 10)
    assert contains(exact_epsilon("LaplaceParallel", (1.0,), (0.0,)), Fraction(1, 10))  # 20 x 0.005
    assert contains(exact_epsilon("PrefixSum", ONE, (0.0,) * 10), 1)


def test_truncated_geometric_is_exactly_ln_9_8():
    # Balcer and Vadhan, Theorem 4.7: ln(1 + 2^-k)-DP with k = ceil(ln(2/eps)) = 3 at eps = 0.1
    ctx = iv_context(30)
    law = truncated_geometric_law(ctx, Fraction(1, 10), 5, 2)
    lo, hi = interval_ends(sum(law.values(), ctx.mpf(0)))
    assert lo <= 1 <= hi
    worst = max((both("TruncatedGeometricMechanism", d, e) for d, e in pattern_pairs(1, False, 0, 5, False)),
                key=lambda p: p.lower)
    assert contains(worst, Fraction(0)) is False
    assert worst.lower <= math.log(9 / 8) + 1e-15 and worst.upper >= math.log(9 / 8) - 1e-15
    assert worst.upper - worst.lower < 1e-20


def test_noisy_max_index_law_equals_refdp_closed_form():
    # an independent implementation: refdp.mechanisms.report_noisy_max_distribution
    ctx = iv_context(30)
    answers = [1, 0, 2, 2, Fraction(1, 2)]
    ours = noisy_max.index_law(ctx, answers, 20)
    theirs = report_noisy_max_distribution(answers, Fraction(1, 10), exact=True, dps=40)
    slack = Fraction(1, 10 ** 35)   # theirs is rounded to 40 digits
    for a, b in zip(ours, theirs):
        lo, hi = interval_ends(a)
        b = raw_to_fraction(b._mpf_)
        assert lo - slack <= b <= hi + slack and hi - lo < Fraction(1, 10 ** 25)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_index_law_against_quadrature(noise):
    ctx = iv_context(20)
    a = [1.0, 0.0, 2.0]
    law = noisy_max.index_law(ctx, [Fraction(x) for x in a], 20, noise)
    dist = stats.laplace if noise == "laplace" else stats.expon
    for i in range(3):
        def f(x, i=i):
            v = dist.pdf(x - a[i], scale=20)
            for j in range(3):
                if j != i:
                    v *= dist.cdf(x - a[j], scale=20)
            return v
        q, err = integrate.quad(f, -800, 800, points=a, limit=200, epsabs=1e-13)
        assert abs(float(law[i].mid) - q) < 1e-9


def test_noisy_max_index_variants_are_private_on_every_pattern_pair():
    for name in ("ReportNoisyMax1", "ReportNoisyMax2"):
        worst = max((exact_epsilon(name, d, e) for d, e in pattern_pairs(5, True, -10, 10)),
                    key=lambda p: p.lower)
        assert worst.upper <= Fraction(1, 10) + Fraction(1, 10 ** 20)
        assert worst.lower > Fraction(9, 100)


def test_noisy_max_value_is_five_tails():
    # D = 0 vs D' = 1: the density ratio tends to e^(5/20) at -infinity (five Laplace(20) tails)
    p = exact_epsilon("ReportNoisyMax3", (0.0,) * 5, (1.0,) * 5)
    assert contains(p, Fraction(1, 4)) and p.upper - p.lower < 1e-8
    # exponential noise: outputs between the two maxima are impossible under D'
    assert exact_epsilon("ReportNoisyMax4", (1.0,) * 5, (2.0,) * 5).infinite


def test_sup_log_ratio_of_two_laplace_densities():
    ctx = iv_context(25)
    s = sup_log_ratio(laplace_pdf(ctx, 0, 3), laplace_pdf(ctx, Fraction(1, 2), 3))
    assert s.lower <= Fraction(1, 6) <= s.upper and s.upper - s.lower < 1e-8


def test_sparse_vector_table_1_properties():
    # Lyu, Su and Li 2017, Table 1: SVT1 and SVT2 are eps-DP, SVT4 is ((1 + 6c)/4) eps-DP, SVT5 is not private
    eps = Fraction(1, 10)
    for name in ("SparseVectorTechnique1", "SparseVectorTechnique2"):
        for d, e in (X, (ONE, HALF)):
            assert both(name, d, e).upper <= eps
    svt4 = both("SparseVectorTechnique4", ONE, HALF)
    assert eps < svt4.lower and svt4.upper <= Fraction(7, 4) * eps
    assert exact_epsilon("SparseVectorTechnique5", HALF, ONE).infinite
    assert both("SparseVectorTechnique6", *X).lower > eps          # no cutoff: above the claim


def test_sparse_vector_patterns_against_sampling():
    # the exact pattern law of SVT1 (c = 1) against 400k runs of a direct simulation;
    # each count must lie in its two-sided binomial interval at level 1e-7 (Bonferroni over the
    # 4 patterns: false-failure rate <= 4e-7)
    ctx = iv_context(20)
    q = [1.0, 0.0, 2.0]
    law = sparse_vector.PatternLaw(ctx, Fraction(1, 2), 20, 40)
    rng = np.random.default_rng(7)
    n = 400_000
    rho = rng.laplace(0, 20, size=(n, 1))
    above = (np.asarray(q) + rng.laplace(0, 40, size=(n, 3))) >= 0.5 + rho
    first = np.where(above.any(axis=1), above.argmax(axis=1), 3)
    for k, pat in enumerate([(1, -1, -1), (0, 1, -1), (0, 0, 1), (0, 0, 0)]):
        p = float(law.probability(q, pat).mid)
        lo, hi = stats.binom.ppf([0.5e-7, 1 - 0.5e-7], n, p)
        assert lo <= np.count_nonzero(first == k) <= hi


def test_svt3_law_has_total_mass_one():
    ctx = iv_context(20)
    atom, dens = sparse_vector.svt3_densities(ctx, (1, 0, 2), 1, 20, 20)
    lo, hi = interval_ends(sum((d.integral() for d in dens), atom))
    assert lo <= 1 <= hi and hi - lo < 1e-15


@pytest.mark.slow
def test_svt3_small_case_is_certified():
    eps = catalogue._svt3(1, 20, 20)(iv_context(20), (1, 1), (0, 1))
    assert eps.upper != math.inf and eps.upper - eps.lower < 1e-6
    assert eps.lower > Fraction(1, 20) - Fraction(1, 10 ** 15)   # the released answer moves by 1 at scale 20


def test_murmur3_reference_vectors_and_rappor_bits():
    assert murmur3_32(b"", 0) == 0 and murmur3_32(b"", 1) == 0x514E28B7
    assert murmur3_32(b"Hello, world!", 1234) == 0xFAF6CDB3
    assert murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747B28C) == 0x2FA826CD
    assert bloom_bits(1, 4, 20) == {3, 10, 13} and bloom_bits(0, 4, 20) == {0, 11, 18}
    # six differing bits, each ln(0.5125 / 0.4875)
    p = exact_epsilon("Rappor", (1,), (0,))
    assert p.upper - p.lower < 1e-20 and abs(float(p.lower) - 6 * math.log(0.5125 / 0.4875)) < 1e-12
    # StatDP's wrapper hashes "1.0" and "0.0": other bits, eight of them differ
    assert bloom_bits(1.0, 4, 20) == {6, 14, 18} and bloom_bits(0.0, 4, 20) == {7, 9, 13, 19}


def test_rappor_matches_the_mmh3_library():
    mmh3 = pytest.importorskip("mmh3")
    for v in (0, 1, 2, -3, 1.0, "a"):
        assert bloom_bits(v, 4, 20) == {mmh3.hash(str(v), seed=i) % 20 for i in range(4)}


def test_every_mechanism_has_pairs_and_a_law():
    names = [m.name for m in MECHANISMS]
    assert len(names) == len(set(names)) >= 20
    for m in MECHANISMS:
        assert m.pairs() and callable(m.epsilon)


def test_bad_input():
    with pytest.raises(ValueError, match="'name' parameter of exact_epsilon"):
        exact_epsilon("NoSuchMechanism", (1,), (0,))
    with pytest.raises(ValueError, match="'d' parameter of exact_epsilon"):
        exact_epsilon("NoisyHist1", (1, 1), (0, 1))


# ------------------------------------------------- Gaussian report-noisy-max --

def test_normal_cdf_encloses_scipy_values():
    from refdp.audit.truth.gaussian import normal_cdf
    from refdp.utils.precision import mp_context
    ctx, ref = iv_context(40), mp_context(60)     # mpmath's ncdf (erfc), a different algorithm
    for t in (0, -0.5, -1, -3.25, -9, 2.5, 7):
        lo, hi = interval_ends(normal_cdf(ctx, ctx.mpf(t)))
        exact = raw_to_fraction(ref.ncdf(t)._mpf_)
        assert hi - lo < 1e-30 and lo - Fraction(1, 10 ** 50) <= exact <= hi + Fraction(1, 10 ** 50)
        assert abs(float(lo) - stats.norm.cdf(t)) <= 1e-14 * stats.norm.cdf(t)


def test_gaussian_noisy_max_index_law_against_quadrature():
    # an independent computation: scipy's adaptive quadrature of the same integrals
    from refdp.audit.truth.gaussian import index_law
    ctx = iv_context(20)
    a, sigma = [1, 0, 2], 3
    law = index_law(ctx, a, sigma)
    total = sum(law, ctx.mpf(0))
    assert total.a <= 1 <= total.b and total.b - total.a < 1e-12
    for i in range(3):
        def f(x, i=i):
            v = stats.norm.pdf(x - a[i], scale=sigma)
            for j in range(3):
                if j != i:
                    v *= stats.norm.cdf(x - a[j], scale=sigma)
            return v
        q, _ = integrate.quad(f, -60, 60, points=a, limit=200, epsabs=1e-14)
        lo, hi = interval_ends(law[i])
        assert hi - lo < 1e-12 and float(lo) - 1e-12 <= q <= float(hi) + 1e-12


def test_gaussian_noisy_max_index_exceeds_the_laplace_claim():
    # N(0, 20^2) noise in place of Laplace(20): 0.1 is exceeded on (1,...,1) vs (0,2,2,2,2)
    p = exact_epsilon("ReportNoisyMax (Gaussian), index", (1.0,) * 5, (0.0,) + (2.0,) * 4)
    assert p.upper - p.lower < 1e-10
    assert Fraction(119, 1000) < p.lower and p.upper < Fraction(1191, 10000)


def test_gaussian_noisy_max_value_is_unbounded():
    from refdp.audit.truth.gaussian import value_log_ratio
    name = "ReportNoisyMax (Gaussian), value"
    d, e = (0.0, 1.0, 1.0, 1.0, 1.0), (1.0,) * 5          # sum a < sum a': the ratio grows at -inf
    assert exact_epsilon(name, d, e).infinite
    # the growth the asymptotics predict, ln p_D/p_D' ~ v (sum a - sum a') / sigma^2, seen in scipy's log-cdf
    def log_density(a, v):
        terms = [stats.norm.logpdf(v - a[i], scale=20) + sum(stats.norm.logcdf(v - a[j], scale=20)
                                                               for j in range(5) if j != i) for i in range(5)]
        return np.logaddexp.reduce(terms)
    r = [log_density(d, v) - log_density(e, v) for v in (-400, -800)]
    assert r[1] - r[0] > 400 / 400 * 0.9
    lo, hi = value_log_ratio(iv_context(20), d, e, 20, -160)
    assert abs(float(lo) - (log_density(d, -160) - log_density(e, -160))) < 1e-9
    # permuted answers: one law; the reverse direction is finite, with the exact limit ln(5/4) at +inf below it
    assert exact_epsilon(name, (1.0, 0.0, 2.0, 2.0, 2.0), (2.0, 2.0, 0.0, 1.0, 2.0)).upper == 0
    rev = exact_epsilon(name, e, d)
    assert not rev.infinite and rev.lower >= Fraction(math.log(5 / 4)) - Fraction(1, 10 ** 15)


# ------------------------------------------------------- SVT3 with cutoff c --

def test_svt3_released_densities_integrate_to_the_pattern_law():
    # the density of "values at K" integrated over the values is P[answers above exactly at K]:
    # with the smallest value at j0, the others are above it with probability sf_j(v)
    from refdp.audit.truth.piecewise import laplace_sf
    ctx = iv_context(25)
    q, T, rho, nu = (1, 0, 2, 1), 1, 20, 40
    atom, pieces = sparse_vector.svt3_released_pieces(ctx, q, T, rho, nu, 2)
    law = sparse_vector.PatternLaw(ctx, T, rho, nu)
    total = atom
    for K, G in pieces.items():
        mass = ctx.mpf(0)
        for j0 in K:
            f = laplace_pdf(ctx, q[j0], nu) * G
            for j in K:
                if j != j0:
                    f = f * laplace_sf(ctx, q[j], nu)
            mass += f.integral()
        pattern = [0] * len(q)
        for j in K:
            pattern[j] = 1
        if len(K) == 2:
            pattern[K[-1] + 1:] = [-1] * (len(q) - K[-1] - 1)
        lo, hi = interval_ends(mass - law.probability(q, tuple(pattern)))
        assert lo <= 0 <= hi and hi - lo < 1e-15, K
        total += mass
    lo, hi = interval_ends(total)
    assert lo <= 1 <= hi


def test_svt3_released_with_cutoff_one_is_svt3():
    ctx = iv_context(20)
    a = catalogue._svt3_released(1, 20, 20, 1)(ctx, (1, 1), (0, 1))
    b = catalogue._svt3(1, 20, 20)(ctx, (1, 1), (0, 1))
    assert a.lower == b.lower and abs(a.upper - b.upper) < 1e-12


def test_svt34_parallel_is_the_sum_of_its_parts_and_pruning_stays_valid():
    ctx = iv_context(20)
    d, e = (1, 1), (2, 0)
    full = catalogue._svt34(1, Fraction(1, 10), 2)(ctx, d, e)
    lower = catalogue._svt34_lower(1, Fraction(1, 10), 2)(ctx, d, e)
    assert full.upper != math.inf and full.upper - full.lower < 1e-7
    assert full.lower >= lower.lower                # the released values only add to the pattern law's value
    # a floor above the value: the suprema stop early, the enclosure stays valid (wider, never wrong)
    pruned = catalogue._svt34(1, Fraction(1, 10), 2)(ctx, d, e, floor=full.upper + 1)
    assert pruned.lower <= full.lower and pruned.upper >= full.upper - Fraction(1, 10 ** 7)
    assert pruned.upper <= full.upper + 1
