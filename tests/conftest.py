"""Test configuration: deterministic hypothesis profile, mpmath precision reset."""
import os

import mpmath
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "refdp",
    derandomize=True,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("refdp-thorough", parent=settings.get_profile("refdp"), max_examples=2000)
settings.load_profile(os.environ.get("REFDP_HYPOTHESIS_PROFILE", "refdp"))


@pytest.fixture(autouse=True)
def _reset_mpmath_precision():
    """Every test starts at mpmath's default precision and cannot leak a change."""
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
