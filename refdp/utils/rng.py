"""Random streams: independent child generators of one caller's generator.

Every random refdp call takes ``rng=`` (normalised by
:func:`refdp.utils.validation.check_rng`); a computation that hands work to
several independent parties (teachers, parts of a data set, workers) gives
each its own child stream, so results depend on the seed only, never on the
order or the place the parts are computed in.
"""
from __future__ import annotations

import numpy as np

__all__ = ["spawn_streams"]


def spawn_streams(rng, k):
    """``k`` independent child generators of ``rng`` (one per teacher).

    Uses :meth:`numpy.random.Generator.spawn`; if the generator's bit generator
    carries no seed sequence to spawn from, each child is seeded with 128 bits
    drawn from ``rng``.
    """
    try:
        return rng.spawn(k)
    except (TypeError, ValueError, AttributeError):
        return [np.random.default_rng(rng.integers(0, 2**32, size=4, dtype=np.uint64)) for _ in range(k)]
