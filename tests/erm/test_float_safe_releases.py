"""The float-safe objective-perturbation releases are bit-identical to their record.

The record (``tests/_support/float_safe_releases.py``) holds the releases of
the pure-Python lazy draw and cell search (commit 57bfe0d) for a fixed set of
problems, seeds and search modes; the compiled draw, the integer box
arithmetic and the solver changes must release the same cells for the same
seeds. The test also counts what the cases exercised (refinements of the
draw, Newton steps of the search, the exact stage, quasi-Newton start points), so that the record keeps
covering every branch of the search, and checks that a release moved by one
grid step differs from its record (the comparison can fail).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from refdp.erm import _grid_minimiser as gm
from refdp.utils import lazy_noise
from tests._support import float_safe_releases as rec


def test_releases_equal_their_record_bit_for_bit(monkeypatch):
    record = rec.load()
    seen = {"refine": 0, "newton": 0, "exact": 0, "quasi-newton": 0}
    quasi = gm.quasi_newton_point

    def counted_quasi(*a, **k):
        point = quasi(*a, **k)
        seen["quasi-newton"] += point is not None
        return point

    monkeypatch.setattr(gm, "quasi_newton_point", counted_quasi)
    newton, exact = gm.GridMinimiser.newton_step, gm._exact_stage

    def count(name, f):
        def wrapped(*a, **k):
            seen[name] += 1
            return f(*a, **k)
        return wrapped

    for law in (lazy_noise.LazySphericalLaplace, lazy_noise.LazyGaussianVector):
        monkeypatch.setattr(law, "refine", count("refine", law.refine))
    monkeypatch.setattr(gm.GridMinimiser, "newton_step", count("newton", newton))
    monkeypatch.setattr(gm, "_exact_stage", count("exact", exact))
    now = rec.releases()
    assert len(now) == len(record) == len(rec.cases()) > 150
    differing = [k for k in record if now[k] != record[k]]
    assert differing == []
    # each release draws its first digits with one refine() call: count the others
    seen["refine"] -= len(record)
    assert seen["refine"] > 20 and seen["newton"] > 20 and seen["exact"] >= 20, seen
    assert seen["quasi-newton"] >= 10, seen


def test_a_release_one_step_away_differs_from_its_record():
    record = rec.load()
    m, problem, seed = rec.cases()[0]
    theta = rec.release(problem, seed)
    step = rec.release_result(problem, seed).grid_step
    moved = theta + np.where(np.arange(theta.size) == 0, step, 0.0)
    assert [float(t).hex() for t in theta] == record[rec.key(m, problem, seed)]
    assert [float(t).hex() for t in moved] != record[rec.key(m, problem, seed)]


# ---------------------------------------------------------------- the boxes of b

def _reference_boxes(noise):
    """The spherical-Laplace boxes by the definition's interval products (Fractions throughout)."""
    from fractions import Fraction

    def mul(a, b):
        p = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
        return min(p), max(p)

    def root(q, bits):
        scale = 1 << bits
        r = math.isqrt(q.numerator * scale * scale // q.denominator)
        return Fraction(r, scale), Fraction(r + 1, scale)

    lo = sum(e.bounds()[0] for e in noise.radii) / noise.beta
    hi = sum(e.bounds()[1] for e in noise.radii) / noise.beta
    if noise.dim == 1:
        return [(-hi, -lo)] if noise.sign else [(lo, hi)]
    boxes = [z.bounds() for z in noise.normals]
    sq_lo = sum(Fraction(0) if a <= 0 <= b else min(a * a, b * b) for a, b in boxes)
    sq_hi = sum(max(a * a, b * b) for a, b in boxes)
    n_lo, n_hi = root(sq_lo, noise._root_bits)[0], root(sq_hi, noise._root_bits)[1]
    if n_lo <= 0:
        return [(-hi, hi) for _ in boxes]
    out = []
    for box in boxes:
        t = mul(box, (1 / n_hi, 1 / n_lo))
        out.append(mul((max(t[0], Fraction(-1)), min(t[1], Fraction(1))), (lo, hi)))
    return out


@pytest.mark.parametrize("dim", [1, 2, 3, 7, 31])
def test_spherical_boxes_equal_the_interval_products(dim):
    from fractions import Fraction

    for seed in range(8):
        src = lazy_noise.BitSource(np.random.default_rng([dim, seed]).bit_generator)
        noise = lazy_noise.LazySphericalLaplace(src, dim, Fraction(3, 7))
        for bits in (0, 1, 2, 5, 16):        # from undrawn digits (direction unknown) to fine boxes
            if bits:
                noise.refine(bits)
            assert noise.bounds() == _reference_boxes(noise)
        # a coordinate refined further than the others (unequal lengths)
        if dim > 1:
            noise.normals[0].refine(3)
            noise.radii[0].refine(2)
            assert noise.bounds() == _reference_boxes(noise)


def test_gaussian_boxes_equal_sigma_times_the_normal_cells():
    from fractions import Fraction

    src = lazy_noise.BitSource(np.random.default_rng(9).bit_generator)
    noise = lazy_noise.LazyGaussianVector(src, 6, Fraction(5, 3))
    for bits in (0, 1, 9):
        if bits:
            noise.refine(bits)
        noise.normals[2].refine(1)
        assert noise.bounds() == [(noise.sigma * lo, noise.sigma * hi)
                                  for lo, hi in (z.bounds() for z in noise.normals)]


def test_bits_are_the_bits_of_single_draws():
    """``BitSource.bits(k)`` takes whole runs of the buffered word: the same bits as ``k`` calls of ``bit()``."""
    chunked = lazy_noise.BitSource(np.random.PCG64(3))
    single = lazy_noise.BitSource(np.random.PCG64(3))
    sizes = np.random.default_rng(1).integers(0, 150, size=500)
    for i, k in enumerate(sizes.tolist()):
        want = 0
        for _ in range(k):
            want = (want << 1) | single.bit()
        assert chunked.bits(k) == want
        if i % 3 == 0:
            assert chunked.bit() == single.bit()
