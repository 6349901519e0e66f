"""Targets for ``refdp audit``: refdp's Laplace mechanism, float-safe and textbook, at epsilon 0.1 and 1.

Each target is the batch path of ``benchmarks/audit/secure_noise.py``
(``n`` independent releases of ``laplace_mechanism(value, epsilon)``, which
that script checks against the public function), with the pair
``f(D) = 0`` vs ``f(D') = 1`` as ``audit_pairs``. For example::

    refdp audit benchmarks/audit/refdp_targets.py:laplace_eps01 --claimed-epsilon 0.1 --float-bits --seed 2024
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from secure_noise import PAIR_1D, laplace_batch  # noqa: E402

laplace_eps01 = laplace_batch(0.1, True)
laplace_eps01_float = laplace_batch(0.1, False)
laplace_eps1 = laplace_batch(1.0, True)
laplace_eps1_float = laplace_batch(1.0, False)
for _target in (laplace_eps01, laplace_eps01_float, laplace_eps1, laplace_eps1_float):
    _target.audit_pairs = PAIR_1D
