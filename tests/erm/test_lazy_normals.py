"""The compiled exact normal draws equal their twin and the pure-Python draws, bit for bit.

``refdp.core.lazy_normal_draws`` runs Karney's Algorithm N in ``refdp/_erm.pyx``
(twin ``refdp/twins/erm.py``) on the bit buffer of a
:class:`refdp.utils.lazy_noise.BitSource`. The float-safe releases depend on
every bit, so the kernel must draw exactly what
:func:`refdp.utils.lazy_noise.lazy_normal` draws, leave the buffer and the
bit generator where it leaves them, and, where it stops (a lazy uniform beyond
its 64-digit word), restore the generator so that the Python path draws the
same values.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from refdp import core
from refdp.twins import erm as twin
from refdp.utils import lazy_noise as ln

KINDS = [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64]


def _state(normals):
    return [(z.negative, z.k, z.x.m, z.x.length) for z in normals]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_compiled_draws_equal_the_python_draws(kind):
    for seed in range(60):
        a, b = ln.BitSource(kind(seed)), ln.BitSource(kind(seed))
        a.bits(seed % 70)                              # a part-used word in the buffer
        b.bits(seed % 70)
        fast = ln.lazy_normals(a, 6)
        slow = [ln.lazy_normal(b) for _ in range(6)]
        assert _state(fast) == _state(slow)
        assert (a._buffer, a._left) == (b._buffer, b._left)
        assert a.bits(130) == b.bits(130) and a.bit_generator.random_raw() == b.bit_generator.random_raw()
    # the draws did exercise Algorithm B's branches: several k, digits drawn beyond the first
    ks = [z.k for s in range(40) for z in ln.lazy_normals(ln.BitSource(kind(s)), 5)]
    assert max(ks) >= 2 and min(ks) == 0


@pytest.mark.parametrize("max_length", [64, 3, 2, 1])
def test_kernel_equals_twin_including_where_it_stops(max_length):
    stopped = 0
    for seed in range(80):
        g1, g2 = np.random.PCG64(seed), np.random.PCG64(seed)
        buffer, left = (seed * 0x9E3779B97F4A7C15) % 2**64, seed % 65
        got = core._erm._py_lazy_normals(g1, 7, buffer, left, max_length)
        want = twin.lazy_normals(g2, 7, buffer, left, max_length)
        assert got == want
        assert g1.random_raw() == g2.random_raw()     # the same words consumed
        stopped += not got[0]
    assert stopped == 0 if max_length == 64 else stopped > 10


def test_a_stopped_kernel_falls_back_to_the_same_draws(monkeypatch):
    """With the kernel stopping at 2 digits, the generator is restored and Python draws the same values."""
    real = core._erm._py_lazy_normals
    calls = {"stopped": 0}

    def short(bg, count, buffer, left, max_length=64):
        out = real(bg, count, buffer, left, 2)
        calls["stopped"] += not out[0]
        return out

    want = []
    for seed in range(30):
        src = ln.BitSource(np.random.PCG64(seed))
        noise = ln.LazySphericalLaplace(src, 5, Fraction(2, 3))
        noise.refine(24)
        want.append((noise.integer_bounds(), src.bits(64)))
    monkeypatch.setattr(core._erm, "_py_lazy_normals", short)
    for seed in range(30):
        src = ln.BitSource(np.random.PCG64(seed))
        noise = ln.LazySphericalLaplace(src, 5, Fraction(2, 3))
        noise.refine(24)
        assert (noise.integer_bounds(), src.bits(64)) == want[seed]
    assert calls["stopped"] > 5


def test_other_bit_generators_use_the_python_draws():
    src = ln.BitSource(np.random.MT19937(3))
    assert core.lazy_normal_draws(src.bit_generator, 3, 0, 0) is None
    ref = ln.BitSource(np.random.MT19937(3))
    assert _state(ln.lazy_normals(src, 4)) == _state([ln.lazy_normal(ref) for _ in range(4)])


def test_radii_refined_together_equal_one_by_one():
    for seed in range(20):
        a, b = ln.BitSource(np.random.PCG64(seed)), ln.BitSource(np.random.PCG64(seed))
        na, nb = ln.LazySphericalLaplace(a, 4, Fraction(1)), ln.LazySphericalLaplace(b, 4, Fraction(1))
        for k in (24, 16, 16, 16):                     # denominators beyond 2**64 from the third refinement
            na.refine(k)
            for e in nb.radii:
                e.refine(k)
            for z in nb.normals:
                z.refine(k)
            nb._root_bits += k
            assert na.integer_bounds() == nb.integer_bounds()
        assert a.bits(64) == b.bits(64)
