"""The certified inversion sampler returns exactly the index of the exact-integer path.

Claim
    (refdp's own; proof in docs/theory/learning.rst, "Sampling", Propositions
    6 and 7.) For non-negative doubles p with a positive sum, every first 53
    bits u (a multiple of 2**-53 in [0, 1)) and every further bits,
    ``refdp.utils.inversion.certified_inverse_cdf_index`` returns the
    index of the exact-integer path ``refined_index`` fed the same bits: the k
    with U in [S_{k-1}/T, S_k/T) for the exact running sums S_k, T of p, so
    P[k] = p_k / T exactly. When no further bit is read, that index is
    ``inverse_cdf_index(p, u)``, the smallest k with u T < S_k. So
    ``exponential_mechanism_learner``, ``one_posterior_sample`` and
    ``refdp.mechanisms.exponential_mechanism`` draw the normalised computed
    probabilities exactly.
Setting
    Laws of 1..300 outcomes (quick: 100 laws, full: 400) drawn to stress the
    bound: uniform, heavy-tailed (U**50), with exact zeros, with subnormal and
    tiny entries next to large ones, with long runs of equal values, and
    unnormalised totals up to 2**900. For each law: 20 uniform u, and for 5
    random k the boundary u = floor(2**53 S_k / T) / 2**53 and its two
    neighbours on the 2**-53 grid, where the certificate usually cannot
    decide and the exact path runs (further bits: four fixed 64-bit words). The count of exact paths is reported (it must be positive, or the
    boundary cases were not reached).
Precision
    Integer indices compared for equality; the reference computes the exact
    sums in Python integers. Any mismatch FAILS.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

import refdp.utils.inversion as fast
from refdp.utils.inversion import inverse_cdf_index
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict

SEED = 53
GRID = 2**53
COVERS = ("refdp.learning.finite_class.exponential_mechanism_learner",
          "refdp.learning.posterior.one_posterior_sample",
          "refdp.mechanisms.exponential_mechanism")


def random_law(rng):
    """A non-negative double vector with a positive sum, from one of several stress families."""
    n = int(rng.integers(1, 301))
    kind = int(rng.integers(0, 6))
    if kind == 0:
        p = rng.random(n)
    elif kind == 1:
        p = rng.random(n) ** 50
    elif kind == 2:
        p = rng.random(n) * (rng.random(n) < 0.3)
    elif kind == 3:
        p = np.where(rng.random(n) < 0.5, rng.random(n) * 1e-310, rng.random(n) * 10.0 ** rng.integers(-300, 1, n))
    elif kind == 4:
        p = np.repeat(rng.random(max(1, n // 20)), 20)[:n]
    else:
        p = rng.random(n) * 2.0**900
    if not p.sum() > 0:
        p[0] = 5e-324
    return p


def boundary_uniforms(p, rng, count=5):
    """u on the 2**-53 grid at and next to the exact u T = S_k, for ``count`` random k."""
    sums, total = [], Fraction(0)
    for v in p:
        total += Fraction(float(v))
        sums.append(total)
    out = set()
    for k in rng.integers(0, len(sums), count):
        r = int(sums[k] / total * GRID)
        for d in (-1, 0, 1):
            if 0 <= r + d < GRID:
                out.add((r + d) / GRID)
    return sorted(out)


WORDS = (0x9E3779B97F4A7C15, 0x2545F4914F6CDD1D, 0x0123456789ABCDEF, 0xFEDCBA9876543210)


class _Words:
    """A stand-in Generator whose bit generator returns WORDS in order."""

    def __init__(self):
        words = list(WORDS)
        self.bit_generator = type("Bits", (), {"random_raw": lambda self: np.uint64(words.pop(0))})()


def compare(n_laws):
    rng = np.random.default_rng(SEED)
    calls = {"exact": 0}
    original = fast.refined_index

    def counting(*args):
        calls["exact"] += 1
        return original(*args)

    mismatches, draws, first = 0, 0, ""
    fast.refined_index = counting
    try:
        for _ in range(n_laws):
            p = random_law(rng)
            partial = list(itertools.accumulate(fast._as_integers(p)))
            us = [float(r) / GRID for r in rng.integers(0, GRID, 20)] + boundary_uniforms(p, rng)
            for u in us:
                draws += 1
                got = fast.certified_inverse_cdf_index(p, u, _Words())
                it, used = iter(WORDS), []

                def word():
                    used.append(1)
                    return next(it)
                want = original(partial, int(u * GRID), 53, word)
                if not used and want != inverse_cdf_index(p, u):
                    want = -1                       # decided by 53 bits: must be the left-end index
                if got != want:
                    mismatches += 1
                    if not first:
                        first = f"; first mismatch: n={p.size}, u={u!r}: {got} != {want}"
    finally:
        fast.refined_index = original
    verdict = Verdict.HOLDS if mismatches == 0 and calls["exact"] > 0 else Verdict.FAILS
    detail = (f"{n_laws} laws, {draws} (law, u) pairs, seed {SEED}: {mismatches} mismatches; "
              f"exact path taken {calls['exact']} times (boundary u){first}")
    return CheckResult(mismatches, 0, verdict, 0, detail, method="certified")


@register("refdp.certified_inversion_equals_exact",
          "the certified float inversion returns the exact-integer path's index for every tested (law, u, "
          "further bits), boundary u included (100 stress laws)",
          covers=COVERS)
def quick():
    return compare(100)


@register("refdp.certified_inversion_equals_exact_full",
          "as refdp.certified_inversion_equals_exact with 400 stress laws",
          covers=COVERS, quick=False)
def full():
    return compare(400)
