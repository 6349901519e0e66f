"""Targets for ``refdp audit``: refdp's Laplace and (epsilon, delta) Gaussian mechanisms, float-safe and textbook.

Each target is the batch path of ``benchmarks/audit/secure_noise.py``
(``n`` independent releases of ``laplace_mechanism(value, epsilon)``, which
that script checks against the public function), with the pair
``f(D) = 0`` vs ``f(D') = 1`` as ``audit_pairs``. For example::

    refdp audit benchmarks/audit/refdp_targets.py:laplace_eps01 --claimed-epsilon 0.1 --float-bits --seed 2024

The ``gaussian_approx_*`` targets are ``gaussian_mechanism_approx(value,
epsilon, 1e-5)`` likewise (audit them with ``--claimed-delta 1e-5``).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from secure_noise import PAIR_1D, gaussian_approx_batch, laplace_batch  # noqa: E402

laplace_eps01 = laplace_batch(0.1, True)
laplace_eps01_float = laplace_batch(0.1, False)
laplace_eps1 = laplace_batch(1.0, True)
laplace_eps1_float = laplace_batch(1.0, False)
gaussian_approx_eps01 = gaussian_approx_batch(0.1, True)
gaussian_approx_eps01_float = gaussian_approx_batch(0.1, False)
gaussian_approx_eps1 = gaussian_approx_batch(1.0, True)
gaussian_approx_eps1_float = gaussian_approx_batch(1.0, False)
for _target in (laplace_eps01, laplace_eps01_float, laplace_eps1, laplace_eps1_float, gaussian_approx_eps01,
                gaussian_approx_eps01_float, gaussian_approx_eps1, gaussian_approx_eps1_float):
    _target.audit_pairs = PAIR_1D
