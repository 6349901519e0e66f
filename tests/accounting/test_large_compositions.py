"""Large compositions without a ``grid_step``: the grid is coarsened when the PLD would be too long.

With ``grid_step=None`` (the default) a composition whose privacy-loss
distribution is planned above ``MAX_POINTS`` points on the default grid is
computed on a coarser one. Checked here, with ``MAX_POINTS`` lowered so that
the cases stay small: the coarse enclosure meets the fine one and is no
narrower, it contains refdp's exact Gaussian reference, the composed PLD
stays near the cap whatever ``k``, an explicit ``grid_step`` is never
coarsened, and below the cap the default is exactly the 1e-3 grid.
"""
from __future__ import annotations

import pytest

from refdp.accounting import privacy_profile_delta, privacy_profile_epsilon
from refdp.accounting import profiles
from refdp.accounting.audit_peers import reference_epsilon
from refdp.accounting.profiles import Gaussian, Laplace, RandomizedResponse


class _Spy:
    """Records the grid step and the upper PLD's length of every composition built."""

    def __init__(self, monkeypatch):
        self.seen = []
        real = profiles._Composition
        spy = self

        class Recording(real):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                spy.seen.append((float(self.h), self.upper.m.size))

        monkeypatch.setattr(profiles, "_Composition", Recording)


def test_below_the_cap_the_default_is_the_fine_grid():
    mechs = [(Laplace(10.0), 100), (RandomizedResponse(0.1), 20)]
    assert privacy_profile_epsilon(mechs, 1e-6) == privacy_profile_epsilon(mechs, 1e-6, grid_step=1e-3)
    assert privacy_profile_delta(mechs, 2.0) == privacy_profile_delta(mechs, 2.0, grid_step=1e-3)


@pytest.mark.parametrize("mechs, delta", [
    ([(Laplace(1.0), 300)], 1e-5),
    ([(Laplace(2.0), 200), (Gaussian(3.0), 10)], 1e-8),
])
def test_coarse_enclosure_meets_the_fine_one(monkeypatch, mechs, delta):
    spy = _Spy(monkeypatch)
    fine = privacy_profile_epsilon(mechs, delta, grid_step=1e-3)
    monkeypatch.setattr(profiles, "MAX_POINTS", 2 ** 14)
    coarse = privacy_profile_epsilon(mechs, delta)
    (h_fine, n_fine), (h_coarse, n_coarse) = spy.seen
    assert h_fine <= 1e-3 < h_coarse and n_coarse < n_fine
    assert n_coarse <= 2 ** 15                                  # planned near the cap
    assert coarse.lower <= fine.upper and fine.lower <= coarse.upper
    # both are certified; the coarse one is wider, and its guarantee no better
    assert coarse.upper >= fine.upper - 1e-9 * fine.upper
    assert coarse.upper - coarse.lower >= fine.upper - fine.lower
    # an explicit grid step is kept, even above the cap
    spy.seen.clear()
    assert privacy_profile_epsilon(mechs, delta, grid_step=1e-3) == fine
    assert spy.seen[0][0] == h_fine


def test_coarse_gaussian_contains_the_exact_reference(monkeypatch):
    mechs = [(Gaussian(1.0), 400)]
    exact = reference_epsilon(mechs, 1e-6)                      # Balle-Wang, in interval arithmetic
    monkeypatch.setattr(profiles, "MAX_POINTS", 2 ** 12)
    spy = _Spy(monkeypatch)
    coarse = privacy_profile_epsilon(mechs, 1e-6)
    assert spy.seen[0][0] > 1e-3
    assert coarse.lower <= exact.upper and exact.lower <= coarse.upper


def test_huge_k_stays_near_the_cap(monkeypatch):
    monkeypatch.setattr(profiles, "MAX_POINTS", 2 ** 13)
    spy = _Spy(monkeypatch)
    small = privacy_profile_epsilon([(Laplace(1.0), 10 ** 4)], 1e-5)
    big = privacy_profile_epsilon([(Laplace(1.0), 10 ** 6)], 1e-5)
    (_, n_small), (_, n_big) = spy.seen
    assert n_small <= 2 ** 14 and n_big <= 2 ** 14
    # epsilon grows with k (about 0.37 k here); the guarantee is above the lower end
    assert 0.3 * 10 ** 6 < big.upper < 0.5 * 10 ** 6 and big.lower <= big.upper
    assert 0.3 * 10 ** 4 < small.upper < 0.5 * 10 ** 4
