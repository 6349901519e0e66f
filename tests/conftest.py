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
def _reset_mpmath_precision(request):
    """Every test starts at mpmath's default precision, and a test that leaves it changed fails.

    Library code must never change the global precision (it uses contexts
    owned by the call); a test that sets it on purpose restores it itself
    (``mpmath.workdps``) or is marked ``changes_global_precision``.
    """
    mpmath.mp.dps = 15
    mpmath.iv.prec = 53
    yield
    leaked = (mpmath.mp.prec, mpmath.iv.prec) != (53, 53)
    mpmath.mp.dps = 15
    mpmath.iv.prec = 53
    if leaked and request.node.get_closest_marker("changes_global_precision") is None:
        pytest.fail("the test left mpmath's global precision changed", pytrace=False)


@pytest.fixture(scope="module")
def client():
    """A real Dask LocalCluster of 2 worker processes (the distributed tests; skipped without the extra)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
