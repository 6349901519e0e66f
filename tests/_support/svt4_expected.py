"""Expected selection counts of SVT4's two best outcomes, shared by the audit's selection tests.

``P`` holds the outcomes' probabilities under D and ``Q`` under D' (ratios
0.1725 and 0.1433); :func:`expected_sample` gives a sample whose counts are
the expected ones, so the selection tests are deterministic.
"""
import numpy as np

from refdp.audit._sampling import Sample
from refdp.audit.events import Objective

P = np.array([0.0167, 0.0136])
Q = P * np.exp([-0.1725, -0.1433])
OBJ = [Objective("epsilon", 0.0)]
BETA = 0.025
BUDGET = 10_000_000


def expected_sample(p, n):
    """``n`` one-column outputs 0, 1 and 2, with ``round(p n)`` of outcomes 0 and 1."""
    c = np.round(p * n).astype(int)
    counts = [int(c[0]), int(c[1]), n - int(c.sum())]
    return Sample(np.concatenate([np.full(k, float(i)) for i, k in enumerate(counts)]).reshape(-1, 1))
