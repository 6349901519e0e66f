"""Certified verdicts: regression tests for the ways a verdict could say "holds" wrongly.

Each test fails on the verifier before contexts owned by the call, exact
numeric conversion, distinct float output keys, missing-mass charging and
honest truth values were introduced.
"""
import json
import math
import threading
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from refdp.audit import audit_exact
from refdp.check_certificate import check_certificate, exp_bounds
from refdp.check_certificate import main as check_certificate_main
from refdp.verify import Verdict, check_mechanism, worst_verdict
from refdp.verify.registry import CheckResult

PAIR = [(0,), (1,)]


def rr_law(eps: F):
    """Randomised response at exactly eps, written with the interval context it is given."""
    def law(d, ctx):
        t = ctx.exp(ctx.mpf(eps.numerator) / eps.denominator)
        return {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}
    return law


# ---------------------------------------------------------------------------
# Global mpmath state
# ---------------------------------------------------------------------------

class Hammer:
    """Threads that keep changing mpmath's global precision while a test runs."""

    def __init__(self):
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._restoring, daemon=True),
                        threading.Thread(target=self._setting, daemon=True)]

    def _restoring(self):
        while not self.stop.is_set():
            with mpmath.workdps(15):
                mpmath.exp(mpmath.mpf(1) / 3)

    def _setting(self):
        while not self.stop.is_set():
            mpmath.mp.dps = 15
            mpmath.iv.prec = 20

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()
        mpmath.mp.dps = 15
        mpmath.iv.prec = 53


def test_context_laws_give_identical_verdicts_while_other_threads_change_precision():
    # divergence exactly eps + 2e-16 against the claim eps: must FAIL every time (it said HOLDS in
    # 19 of 739 runs when the law computed at the global precision beside such threads)
    eps = F(1)
    mech = rr_law(eps + F(2, 10 ** 16))
    quiet = [check_mechanism(mech, PAIR, eps) for _ in range(3)]
    with Hammer():
        loud = [check_mechanism(mech, PAIR, eps) for _ in range(40)]
    for r in quiet + loud:
        assert r.verdict is Verdict.FAILS and r.method == "certified"
        assert r.enclosure == quiet[0].enclosure


def test_legacy_laws_never_hold_wrongly_beside_a_thread_setting_the_precision():
    # a law computing with the global mpmath at "the current precision": the checker holds a lock
    # and checks the precision before and after; a change is detected, never a wrong HOLDS
    eps = mpmath.mpf(1)

    def legacy(d):
        t = mpmath.exp(eps + mpmath.mpf(2) * mpmath.mpf(10) ** -16)
        return {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}

    stop = threading.Event()

    def setter():
        while not stop.is_set():
            mpmath.mp.dps = 15

    th = threading.Thread(target=setter, daemon=True)
    th.start()
    try:
        verdicts = [check_mechanism(legacy, PAIR, 1.0).verdict for _ in range(40)]
    finally:
        stop.set()
        th.join()
        mpmath.mp.dps = 15
    assert Verdict.HOLDS not in verdicts


def test_checks_leave_global_precision_unchanged():
    mpmath.mp.dps, mpmath.iv.prec = 23, 71
    check_mechanism(rr_law(F(1)), PAIR, 1.5)
    check_mechanism(lambda d: {d[0]: F(3, 4), 1 - d[0]: F(1, 4)}, PAIR, 1.5, delta=0.1)
    assert (mpmath.mp.dps, mpmath.iv.prec) == (23, 71)
    mpmath.mp.dps, mpmath.iv.prec = 15, 53


# ---------------------------------------------------------------------------
# Numeric types and output keys
# ---------------------------------------------------------------------------

@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="longdouble is binary64 here")
def test_longdouble_probabilities_are_taken_exactly():
    # p = 3/4 + dp with ln(p/(1-p)) = c + 3.5e-17 for the claim c = ln 3 + 1e-20 (a rational);
    # rounded to float64, p is exactly 3/4 and the divergence ln 3 < c would HOLD
    with mpmath.workdps(60):
        c = F(mpmath.nstr(mpmath.log(3), 50)) + F(1, 10 ** 20)
        target = mpmath.mpf(c.numerator) / c.denominator + mpmath.mpf("3.5e-17")
        p = mpmath.exp(target) / (1 + mpmath.exp(target))
        p_ld = np.longdouble(mpmath.nstr(p, 30))
    assert float(p_ld) == 0.75

    def law(d):
        q = np.longdouble(1) - p_ld
        return {d[0]: p_ld, 1 - d[0]: q}

    assert check_mechanism(law, PAIR, c).verdict is Verdict.FAILS
    assert check_mechanism(lambda d: {k: float(v) for k, v in law(d).items()}, PAIR, c).verdict is Verdict.HOLDS


def test_nan_outputs_are_one_output_and_signed_zeros_are_two():
    nan_law = lambda d: {float("nan"): F(1, 2), 1.0: F(1, 2)}  # a fresh NaN object on every call
    assert check_mechanism(nan_law, PAIR, 0.5).verdict is Verdict.HOLDS
    # -0.0 and 0.0 compare equal in Python but are distinguishable releases
    zero_law = lambda d: {(-0.0 if d[0] else 0.0): F(1)}
    assert check_mechanism(zero_law, PAIR, 10.0).verdict is Verdict.FAILS
    r = check_mechanism(lambda d: {np.float64(-0.0) if d[0] else np.float64(0.0): 1}, PAIR, 1.0)
    assert r.verdict is Verdict.FAILS


def test_missing_mass_is_charged():
    short = F(1, 10 ** 12)

    def law(d):
        return {0: F(1, 2), 1: F(1, 2) - short}       # the same on every dataset, mass missing

    r = check_mechanism(law, PAIR, 1.0)
    assert r.verdict is Verdict.UNDECIDED and "missing mass" in r.reason
    assert check_mechanism(law, PAIR, 1.0, delta=1e-13).verdict is Verdict.UNDECIDED
    assert check_mechanism(law, PAIR, 1.0, delta=1e-11).verdict is Verdict.HOLDS
    # a hidden violation: the missing mass sits on an output only d = (0,) produces
    assert check_mechanism(lambda d: {0: F(1, 2), 1: F(1, 2) - (short if d[0] == 0 else 0)},
                           PAIR, 1.0).verdict is not Verdict.HOLDS


def test_more_than_unit_mass_never_holds():
    law = lambda d: {0: F(1, 2), 1: F(1, 2) + F(1, 10 ** 15)}
    assert check_mechanism(law, PAIR, 1.0).verdict is Verdict.UNDECIDED


# ---------------------------------------------------------------------------
# Truth values and verdict names
# ---------------------------------------------------------------------------

def test_verdicts_and_results_are_false_unless_they_hold():
    assert not Verdict.FAILS and not Verdict.UNDECIDED and Verdict.HOLDS
    assert Verdict.FAILS == "fails" and Verdict.HOLDS == "holds" and f"{Verdict.FAILS}" == "fails"
    bad = check_mechanism(lambda d: {d[0]: F(3, 4), 1 - d[0]: F(1, 4)}, PAIR, 1.0)
    assert bad.verdict == "fails" and not bad
    good = check_mechanism(lambda d: {d[0]: F(3, 4), 1 - d[0]: F(1, 4)}, PAIR, 1.1)
    assert good and good.as_check_result()
    assert not CheckResult(0, 1, "fails", 0)
    audit = audit_exact(lambda d: {d[0]: F(3, 4), 1 - d[0]: F(1, 4)}, claimed_epsilon=1.0, pairs=[PAIR])
    assert not audit and audit.violation


def test_worst_verdict_rejects_what_is_not_a_verdict():
    assert worst_verdict(["fails"]) is Verdict.FAILS
    assert worst_verdict(["holds", Verdict.UNDECIDED]) is Verdict.UNDECIDED
    for junk in ([None], [True], ["maybe"], [1]):
        with pytest.raises(ValueError, match="verdicts"):
            worst_verdict(junk)


# ---------------------------------------------------------------------------
# Adaptive precision and certificates
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [F(1, 10), F(1), F(7, 2)])
def test_tight_claims_decided_by_adaptive_precision(eps, tmp_path):
    law = rr_law(eps)
    above = check_mechanism(law, PAIR, eps * (1 + F(1, 10 ** 40)), certificate=tmp_path / "h.json")
    below = check_mechanism(law, PAIR, eps * (1 - F(1, 10 ** 40)), certificate=tmp_path / "f.json")
    assert above.verdict is Verdict.HOLDS and above.method == "certified" and above.max_dps_used > 30
    assert below.verdict is Verdict.FAILS and below.method == "certified"
    assert check_certificate(tmp_path / "h.json")["confirmed"]
    assert check_certificate(tmp_path / "f.json")["confirmed"]
    exact = check_mechanism(law, PAIR, eps, max_dps=60)   # a transcendental equality: undecided
    assert exact.verdict is Verdict.UNDECIDED and "overlap" in exact.reason


def test_a_tampered_certificate_is_not_confirmed(tmp_path, capsys):
    path = tmp_path / "c.json"
    check_mechanism(rr_law(F(1)), PAIR, F(11, 10), certificate=path)
    assert check_certificate_main([str(path)]) == 0
    cert = json.loads(path.read_text())
    cert["claim"]["epsilon"] = "1"
    path.write_text(json.dumps(cert))
    assert check_certificate_main([str(path)]) == 1
    assert "NOT CONFIRMED" in capsys.readouterr().out


def test_a_certificate_without_laws_exits_2(tmp_path, capsys):
    # a check that compares computed bounds writes a certificate with nothing to re-check: the
    # command must not report it as confirmed (exit 0 is for "every certificate confirmed")
    from refdp.verify.certificate import FORMAT

    confirmed, unchecked = tmp_path / "c.json", tmp_path / "u.json"
    check_mechanism(rr_law(F(1)), PAIR, F(11, 10), certificate=confirmed)
    unchecked.write_text(json.dumps({"format": FORMAT, "name": "x.y", "verdict": "holds", "method": "certified",
                                     "recheckable": False, "reason": "compares computed bounds"}))
    assert check_certificate_main([str(confirmed)]) == 0
    assert check_certificate_main([str(confirmed), str(unchecked)]) == 2
    assert "not re-checkable" in capsys.readouterr().out


def test_certificate_exp_bounds_bracket_e():
    for x in (F(0), F(1, 3), F(1), F(25, 2)):
        lo, hi = exp_bounds(x)
        with mpmath.workdps(200):
            v = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
            assert lo <= hi and mpmath.mpf(lo.numerator) / lo.denominator <= v
            assert v <= mpmath.mpf(hi.numerator) / hi.denominator
        assert hi - lo < F(1, 2 ** 500) * (1 + hi)


# ---------------------------------------------------------------------------
# Certificates of proofs for every epsilon (algebraic)
# ---------------------------------------------------------------------------

def test_for_all_epsilon_certificates_are_rechecked_exactly():
    pytest.importorskip("sympy")
    from refdp.verify import prove_for_all_epsilon
    from refdp.verify.certificate import certificate_dict

    rr = lambda d, t: {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}
    cert = certificate_dict(prove_for_all_epsilon(rr, PAIR), "rr")
    assert cert["kind"] == "for-all-epsilon" and check_certificate(cert)["confirmed"]
    # a failing law relabelled as holding is caught by the separate checker
    wrong = lambda d, t: {d[0]: t ** 2 / (1 + t ** 2), 1 - d[0]: 1 / (1 + t ** 2)}
    bad = certificate_dict(prove_for_all_epsilon(wrong, PAIR), "wrong")
    bad["verdict"] = "holds"
    assert not check_certificate(bad)["confirmed"]
    # so is a law edited so that it no longer sums to one
    cert["datasets"]["0"]["outputs"][repr(0)][0] = [[1, "2"]]
    assert not check_certificate(cert)["confirmed"]


@pytest.mark.parametrize("roots", [[(F(2), 2)], [(F(2), 3)], [(F(3, 2), 1), (F(5, 2), 1)], [(F(1), 1)],
                                   [(F(1, 2), 1)], [(F(7, 3), 2), (F(4), 4)], []])
@pytest.mark.parametrize("sign", [1, -1])
def test_sign_on_t_above_one_matches_the_factorisation(roots, sign):
    # p = sign * prod (t - r)^k against brute force on the grid 1 + i/7: the roots are at least
    # 1/6 apart, so every interval between roots above 1 contains a grid point
    from refdp.check_certificate import _mul, nonnegative_above_one

    p = [F(sign)]
    for r, k in roots:
        for _ in range(k):
            p = _mul(p, [-r, F(1)])

    def value(t):
        v = F(sign)
        for r, k in roots:
            v *= (t - r) ** k
        return v

    grid = [1 + F(i, 7) for i in range(1, 60)]
    assert nonnegative_above_one(p) == all(value(t) >= 0 for t in grid)


def test_bad_input_names_the_parameter():
    law = lambda d: {d[0]: F(3, 4), 1 - d[0]: F(1, 4)}
    with pytest.raises(ValueError, match="'max_dps' parameter of check_mechanism"):
        check_mechanism(law, PAIR, 1.0, dps=30, max_dps=20)
    with pytest.raises(ValueError, match="'distribution_fn' parameter .*real probabilities"):
        check_mechanism(lambda d: {0: 1j, 1: 0}, PAIR, 1.0)
    with pytest.raises(ValueError, match="'distribution_fn' parameter .*finite probabilities"):
        check_mechanism(lambda d: {0: np.longdouble("nan"), 1: 0}, PAIR, 1.0)
    with pytest.raises(ValueError, match="'distribution_fn' parameter .*sum to 1"):
        check_mechanism(lambda d: {0: F(1, 2)}, PAIR, 1.0)      # half the mass: a forgotten normalisation
    with pytest.raises(ValueError, match="verdicts"):
        worst_verdict([None])
