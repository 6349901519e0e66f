"""The inversion sampler draws index k with probability exactly p_k / T (docs/theory/learning.rst, Prop. 7)."""
from __future__ import annotations

import itertools
import time
from fractions import Fraction

import numpy as np
import pytest

from refdp.utils.inversion import (_as_integers, certified_inverse_cdf_index, inverse_cdf_index,
                                   refined_index)


class _Exhausted(Exception):
    pass


def _enumerated_law(probabilities, first_bits, word_bits, depth):
    """Mass of each index over all bit strings of U, by running :func:`refined_index` on every prefix.

    The first ``first_bits`` bits and up to ``depth`` words of ``word_bits`` bits are
    enumerated; returns ``(mass, undecided)`` as Fractions. The exact law P satisfies
    ``mass[k] <= P[k] <= mass[k] + undecided``.
    """
    partial = list(itertools.accumulate(_as_integers(probabilities)))
    mass = [Fraction(0)] * len(partial)
    undecided = Fraction(0)

    def run(r, words):
        it = iter(words)
        used = [0]

        def next_word():
            try:
                w = next(it)
            except StopIteration:
                raise _Exhausted from None
            used[0] += 1
            return w
        return refined_index(partial, r, first_bits, next_word, word_bits), used[0]

    stack = [(r, ()) for r in range(2**first_bits)]
    while stack:
        r, words = stack.pop()
        try:
            k, used = run(r, words)
        except _Exhausted:
            if len(words) == depth:
                undecided += Fraction(1, 2 ** (first_bits + word_bits * len(words)))
            else:
                stack.extend((r, words + (w,)) for w in range(2**word_bits))
            continue
        assert used == len(words)          # a prefix is extended only while undecided
        mass[k] += Fraction(1, 2 ** (first_bits + word_bits * used))
    return mass, undecided


def _exact(probabilities):
    ps = [Fraction(float(p)) for p in probabilities]
    return [p / sum(ps) for p in ps]


@pytest.mark.parametrize("p", [
    [0.125, 0.0, 0.3125, 0.5625],               # dyadic boundaries: the enumeration ends
    [2.0**-9, 0.5, 0.0, 0.5 - 2.0**-9],
    [0.25, 0.25, 0.5],
])
def test_enumerated_law_equals_normalised_probabilities_dyadic(p):
    mass, undecided = _enumerated_law(p, first_bits=3, word_bits=2, depth=6)
    assert undecided == 0
    assert mass == _exact(p)


@pytest.mark.parametrize("p", [
    [1.0, 1.0, 1.0],                            # boundaries 1/3, 2/3: never dyadic
    [0.1, 0.2, 0.0, 0.3, 0.4],
    [1.0, 2.0**-20, 2.0],                       # p_1 / T < 2**-(first_bits) : below the first grid
])
def test_enumerated_law_brackets_normalised_probabilities(p):
    exact = _exact(p)
    for depth in (4, 8):
        mass, undecided = _enumerated_law(p, first_bits=3, word_bits=2, depth=depth)
        assert undecided <= Fraction(len(p) - 1, 2 ** (3 + 2 * depth))     # at most n - 1 straddled intervals
        for m, e in zip(mass, exact):
            assert m <= e <= m + undecided
        assert all(m == 0 for m, e in zip(mass, exact) if e == 0)


class _ScriptedBits:
    """A stand-in bit generator whose ``random_raw`` returns the given 64-bit words."""

    def __init__(self, words):
        self._words = list(words)

    def random_raw(self):
        return np.uint64(self._words.pop(0))


class _ScriptedRng:
    def __init__(self, words):
        self.bit_generator = _ScriptedBits(words)


def test_tiny_probability_old_law_zero_new_law_positive():
    p = np.array([1.0, 2.0**-61, 2.0])
    partial = list(itertools.accumulate(_as_integers(p)))
    s0, s1, total = partial[0], partial[1], partial[2]
    assert Fraction(s1 - s0, total) < Fraction(1, 2**60)
    # the old rule returns 1 for u = r 2**-53 iff S_0 2**53 <= r T < S_1 2**53: count those r exactly
    lo = -((-s0 * 2**53) // total)              # ceil(S_0 2**53 / T)
    hi = -((-s1 * 2**53) // total)              # ceil(S_1 2**53 / T): r < hi
    assert max(0, hi - lo) == 0                 # old law of index 1: 0
    # the new sampler: the 53-bit interval r0 straddles S_0/T; the next word places U in [S_0/T, S_1/T)
    r0 = (s0 * 2**53) // total
    assert inverse_cdf_index(p, r0 / 2**53) == 0
    target = (s0 * 2**117 + total - 1) // total          # ceil(S_0 2**117 / T)
    assert target >> 64 == r0
    word = target & (2**64 - 1)
    assert certified_inverse_cdf_index(p, r0 / 2**53, _ScriptedRng([word])) == 1
    # that word's interval [target 2**-117, (target+1) 2**-117) has positive mass, so P[1] > 0;
    # by Proposition 7, P[1] = p_1 / T exactly. Same law found by enumeration at small widths:
    mass, undecided = _enumerated_law([1.0, 2.0**-20, 2.0], 3, 2, 12)
    assert mass[1] > 0 and mass[1] <= _exact([1.0, 2.0**-20, 2.0])[1] <= mass[1] + undecided


def test_first_53_bits_decide_as_before():
    rng = np.random.default_rng(5)
    p = rng.random(50)
    p[::7] = 0.0
    for _ in range(2000):
        u = rng.random()
        k = certified_inverse_cdf_index(p, u, _ScriptedRng([]))      # no word may be needed
        assert k == inverse_cdf_index(p, u)


def test_boundary_uniform_takes_more_bits():
    p = np.array([0.25, 0.75])            # boundary 1/4 is dyadic: intervals never straddle it
    assert certified_inverse_cdf_index(p, 0.25, _ScriptedRng([])) == 1
    p = np.array([1.0, 1.0, 1.0])         # boundary 1/3 straddled by r0 = floor(2**53 / 3)
    r0 = 2**53 // 3
    assert certified_inverse_cdf_index(p, r0 / 2**53, _ScriptedRng([0])) == 0
    assert certified_inverse_cdf_index(p, r0 / 2**53, _ScriptedRng([2**64 - 1])) == 1


def test_refinement_reads_mt19937_words():
    p = np.array([1.0, 1.0, 1.0])
    rng = np.random.Generator(np.random.MT19937(3))
    assert certified_inverse_cdf_index(p, (2**53 // 3) / 2**53, rng) in (0, 1)
