"""The certified inversion sampler returns exactly the index of the exact-integer inversion.

Claim
    (refdp's own; proof in docs/theory/learning.rst, "Sampling".) For
    non-negative doubles p with a positive sum and every uniform u (a multiple
    of 2**-53 in [0, 1)), ``refdp.mechanisms._inversion.certified_inverse_cdf_index``
    returns the same index as ``refdp.mechanisms._inversion.inverse_cdf_index``:
    the smallest k with u T < S_k for the exact running sums S_k, T of p. So
    ``exponential_mechanism_learner`` and ``one_posterior_sample`` use every
    computed probability as it is, like ``refdp.mechanisms.exponential_mechanism``.
Setting
    Laws of 1..300 outcomes (quick: 100 laws, full: 400) drawn to stress the
    bound: uniform, heavy-tailed (U**50), with exact zeros, with subnormal and
    tiny entries next to large ones, with long runs of equal values, and
    unnormalised totals up to 2**900. For each law: 20 uniform u, and for 5
    random k the boundary u = floor(2**53 S_k / T) / 2**53 and its two
    neighbours on the 2**-53 grid, where the certificate usually cannot
    decide and the exact fallback runs. The count of fallbacks is reported (it must be positive, or the
    boundary cases were not reached).
Precision
    Integer indices compared for equality; the reference computes the exact
    sums in Python integers. Any mismatch FAILS.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

import refdp.mechanisms._inversion as fast
from refdp.mechanisms._inversion import inverse_cdf_index
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


def compare(n_laws):
    rng = np.random.default_rng(SEED)
    calls = {"fallback": 0}
    original = fast.inverse_cdf_index

    def counting(p, u):
        calls["fallback"] += 1
        return original(p, u)

    mismatches, draws, first = 0, 0, ""
    fast.inverse_cdf_index = counting
    try:
        for _ in range(n_laws):
            p = random_law(rng)
            us = [float(r) / GRID for r in rng.integers(0, GRID, 20)] + boundary_uniforms(p, rng)
            for u in us:
                draws += 1
                got, want = fast.certified_inverse_cdf_index(p, u), inverse_cdf_index(p, u)
                if got != want:
                    mismatches += 1
                    if not first:
                        first = f"; first mismatch: n={p.size}, u={u!r}: {got} != {want}"
    finally:
        fast.inverse_cdf_index = original
    verdict = Verdict.HOLDS if mismatches == 0 and calls["fallback"] > 0 else Verdict.FAILS
    detail = (f"{n_laws} laws, {draws} (law, u) pairs, seed {SEED}: {mismatches} mismatches; "
              f"exact fallback taken {calls['fallback']} times (boundary u){first}")
    return CheckResult(mismatches, 0, verdict, 0, detail, method="certified")


@register("learning.certified_inversion_equals_exact",
          "the learners' certified float inversion returns the exact-integer inversion's index for every "
          "tested (law, u), boundary u included (100 stress laws)",
          covers=COVERS)
def quick():
    return compare(100)


@register("learning.certified_inversion_equals_exact_full",
          "as learning.certified_inversion_equals_exact with 400 stress laws",
          covers=COVERS, quick=False)
def full():
    return compare(400)
