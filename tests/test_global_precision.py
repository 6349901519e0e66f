"""refdp's checks neither depend on nor change mpmath's process-global precision.

mpmath keeps the precision of its module-level contexts (``mpmath.mp``,
``mpmath.iv``) in process-global state. refdp computes in contexts owned by
each call (:mod:`refdp.utils.precision`), so a check gives the same verdict, method
and measured value while other threads change that precision, and leaves it
as it found it.
"""
import threading

import mpmath
import pytest

from refdp.verify.registry import all_checks, run_check

#: Quick certified checks across mechanisms, prediction, learning and PATE.
CHECKS = (
    "mcsherry_talwar.exponential_mechanism_privacy_exhaustive",
    "dwork_feldman.walk_privacy_replace_quick",
    "dwork_feldman.averaging_privacy_exhaustive",
    "lecture_notes.claim_9_10_group_privacy_hard_pairs",
    "pate.lnmax_labels_privacy_exhaustive",
)


def _key(value):
    """An exact, hashable form of a measured value (raw mpf/interval tuples, or the value)."""
    if hasattr(value, "_mpi_"):
        return ("interval", value._mpi_)
    if hasattr(value, "_mpf_"):
        return ("mpf", value._mpf_)
    return ("value", value)


def _run():
    checks = {c.name: c for c in all_checks()}
    out = {}
    for name in CHECKS:
        outcome = run_check(checks[name])
        assert outcome.result is not None, outcome.error
        res = outcome.result
        out[name] = (res.verdict, res.method, _key(res.measured), _key(res.bound))
    return out


@pytest.fixture
def restore_global_precision():
    saved = (mpmath.mp.prec, mpmath.iv.prec)
    yield
    mpmath.mp.prec, mpmath.iv.prec = saved


def test_checks_are_certified_and_hold():
    for name, (verdict, method, _, _) in _run().items():
        assert verdict.passed, name
        assert method == "certified", name


def test_results_do_not_depend_on_threads_changing_the_global_precision(restore_global_precision):
    reference = _run()
    stop = threading.Event()

    def with_workdps():
        while not stop.is_set():
            for dps in (15, 5, 100):
                with mpmath.workdps(dps):
                    mpmath.exp(mpmath.mpf(1) / 3)

    def setting_globals():
        while not stop.is_set():
            mpmath.mp.dps = 15
            mpmath.iv.prec = 20
            mpmath.mp.dps = 8
            mpmath.iv.prec = 300

    threads = [threading.Thread(target=with_workdps, daemon=True),
               threading.Thread(target=setting_globals, daemon=True)]
    for t in threads:
        t.start()
    try:
        disturbed = _run()
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert disturbed == reference


def test_checks_leave_the_global_precision_unchanged(restore_global_precision):
    mpmath.mp.prec = 77
    mpmath.iv.prec = 91
    _run()
    assert (mpmath.mp.prec, mpmath.iv.prec) == (77, 91)
