"""The float-safe objective-perturbation releases are bit-identical to their record.

The record (``tests/_support/float_safe_releases.py``) holds the releases of
the pure-Python lazy draw and cell search (commit 57bfe0d) for a fixed set of
problems, seeds and search modes; the compiled draw, the integer box
arithmetic and the solver changes must release the same cells for the same
seeds. The test also counts what the cases exercised (refinements of the
draw, Newton steps of the search, the exact stage), so that the record keeps
covering every branch of the search, and checks that a release moved by one
grid step differs from its record (the comparison can fail).
"""
from __future__ import annotations

import numpy as np

from refdp.erm import _grid_minimiser as gm
from refdp.utils import lazy_noise
from tests._support import float_safe_releases as rec


def test_releases_equal_their_record_bit_for_bit(monkeypatch):
    record = rec.load()
    seen = {"refine": 0, "newton": 0, "exact": 0}
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


def test_a_release_one_step_away_differs_from_its_record():
    record = rec.load()
    m, problem, seed = rec.cases()[0]
    theta = rec.release(problem, seed)
    step = rec.release_result(problem, seed).grid_step
    moved = theta + np.where(np.arange(theta.size) == 0, step, 0.0)
    assert [float(t).hex() for t in theta] == record[rec.key(m, problem, seed)]
    assert [float(t).hex() for t in moved] != record[rec.key(m, problem, seed)]
