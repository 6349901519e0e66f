"""Algebraic verdicts: exact decisions at one epsilon and for every epsilon (refdp.verify.algebraic)."""
import subprocess
import sys
import threading
from fractions import Fraction as F

import mpmath
import pytest

from refdp.verify import Verdict, check_algebraic, check_mechanism, prove_for_all_epsilon

sympy = pytest.importorskip("sympy")
T = sympy.Symbol("t", positive=True)
BITS = [(0,), (1,)]


def rr(d, t):
    return {d[0]: t / (1 + t), 1 - d[0]: 1 / (1 + t)}


def rr3(d, t):
    return [(t if v == d[0] else 1) / (t + 2) for v in range(3)]


# --- one epsilon -------------------------------------------------------------

@pytest.mark.parametrize("eps", [F(1), F(1, 2), F(3, 7), F(10), F(1, 1000), 0.1, 2])
def test_randomised_response_is_tight_and_decided(eps):
    r = check_algebraic(rr, BITS, eps, 1)
    assert r.verdict is Verdict.HOLDS and r.method == "algebraic"
    lo, hi = (F(x.man) * F(2) ** x.exp for x in r.enclosure)
    assert lo <= F(eps) <= hi and hi - lo < F(1, 10 ** 20)
    up = F(eps) * (1 + F(1, 10 ** 40))
    down = F(eps) * (1 - F(1, 10 ** 40))
    # the mechanism run at eps (1 + 1e-40) is not eps-DP; run at eps (1 - 1e-40) it is
    assert check_algebraic(rr, BITS, eps, 1, law_epsilon=up).verdict is Verdict.FAILS
    assert check_algebraic(rr, BITS, eps, 1, law_epsilon=down).verdict is Verdict.HOLDS
    # the same mechanism claimed at eps (1 -+ 1e-40)
    assert check_algebraic(rr, BITS, down, 2, law_epsilon=2 * F(eps)).verdict is Verdict.FAILS
    assert check_algebraic(rr, BITS, up, 2, law_epsilon=2 * F(eps)).verdict is Verdict.HOLDS


def test_estimated_check_cannot_decide_the_tight_claim_but_algebraic_can():
    import math
    e = math.e

    def floats(d):
        return {d[0]: e / (1 + e), 1 - d[0]: 1 / (1 + e)}

    assert check_mechanism(floats, BITS, 1.0).verdict is not Verdict.HOLDS
    r = check_mechanism(rr, BITS, 1, algebraic=1)
    assert r.verdict is Verdict.HOLDS and r.method == "algebraic"
    # floats are exact binary numbers: the verdict about the law they define is certified
    assert check_mechanism(floats, BITS, 1.0).method == "certified"


def test_three_values_and_add_remove_and_max_dps_cap():
    assert check_algebraic(rr3, [(0,), (1,), (2,)], 1, 1).verdict is Verdict.HOLDS
    # an ordinary (non-tight) failure and success
    assert check_algebraic(rr, BITS, F(1, 2), 1, law_epsilon=1).verdict is Verdict.FAILS
    assert check_algebraic(rr, BITS, 1, 1, law_epsilon=F(1, 2)).verdict is Verdict.HOLDS
    # the cap gives UNDECIDED with a reason, never a wrong verdict
    r = check_algebraic(rr, BITS, 1, 1, law_epsilon=1 + F(1, 10 ** 60), max_dps=20)
    assert r.verdict is Verdict.UNDECIDED and "not decided within 20 digits" in r.detail


def test_approximate_dp():
    def wrong(d, t):
        return {d[0]: t ** 2 / (1 + t ** 2), 1 - d[0]: 1 / (1 + t ** 2)}
    # hockey-stick divergence at eps = 1 is (e^2 - e)/(1 + e^2) = 0.55676994...
    assert check_algebraic(wrong, BITS, 1, 1, delta=F(55677, 100000)).verdict is Verdict.HOLDS
    assert check_algebraic(wrong, BITS, 1, 1, delta=F(55676, 100000)).verdict is Verdict.FAILS
    assert check_algebraic(rr, BITS, 1, 1, delta=0.01).verdict is Verdict.HOLDS
    r = check_algebraic(wrong, BITS, 1, 1, delta=F(1, 10))
    assert r.kind == "hockey-stick divergence" and r.event == (0,)


# --- every epsilon -----------------------------------------------------------

def test_for_all_epsilon_holds_and_fails_with_exact_ranges():
    assert prove_for_all_epsilon(rr, BITS)
    assert prove_for_all_epsilon(rr3, [(0,), (1,), (2,)])

    def partial(d, t):  # fails for t < 3^(1/3) and for t > 3
        if d[0] == 0:
            return {0: t ** 2 / (t ** 2 + 3), 1: 3 / (t ** 2 + 3)}
        return {0: 3 / (t ** 2 + 3), 1: t ** 2 / (t ** 2 + 3)}

    p = prove_for_all_epsilon(partial, BITS)
    assert not p and p.verdict is Verdict.FAILS
    ranges = sorted(p.epsilon_ranges)
    lo_range = [r for r in ranges if r[0] == (0, 0)][0]
    hi_range = [r for r in ranges if r[1][0] == mpmath.inf][0]
    # the ends are ln(3)/3 (an isolating interval refined to 1e-15) and ln 3 (exact root t = 3)
    assert abs(lo_range[1][0] - 1.0986122886681098 / 3) < 1e-14 and lo_range[1][1] - lo_range[1][0] < 1e-12
    assert abs(hi_range[0][0] - 1.0986122886681098) < 1e-15 and hi_range[0][1] - hi_range[0][0] < 1e-25
    exact = [f for f in p.failures if f.low is not None]
    assert exact and exact[0].low.exact and exact[0].low.low == 3
    # between them the claim holds: check_algebraic agrees at eps = 1/2 and 1 and 1.5
    for eps, want in ((F(1, 5), Verdict.FAILS), (F(1, 2), Verdict.HOLDS), (F(1), Verdict.HOLDS),
                      (F(3, 2), Verdict.FAILS)):
        assert check_algebraic(partial, BITS, eps, 1).verdict is want


# --- registered proofs and their wrong variants ------------------------------

def test_registered_proofs_hold_and_wrong_variants_fail():
    from proofs_checks.chaudhuri import algorithm_4_private_tuning_all_epsilon as tuning
    from proofs_checks.dwork_feldman import section_5_walk_all_epsilon as walk
    from proofs_checks.dwork_feldman import theorem_4_1_soft_majority_all_epsilon as soft
    from proofs_checks.dwork_roth import randomised_response_all_epsilon as rresp
    from proofs_checks.ghosh_roughgarden_sundararajan import geometric_mechanism_all_epsilon as geo
    from proofs_checks.lecture_notes import learners_all_epsilon as learners
    from proofs_checks.mcsherry_talwar import exponential_mechanism_all_epsilon as expmech
    good = [[rresp.proof(3)], geo.proofs(max_size=2)[0], expmech.proofs(max_size=2)[0],
            [tuning.proof(max_size=2)], soft.proofs(((( 0, 1), (0, 1), 2),))[0],
            walk.proofs(max_size=3, ks=(2,))[0], learners.learner_proofs(max_size=1)[0],
            learners.posterior_proofs(max_size=2)[0]]
    for proofs in good:
        assert all(proofs), [p.detail for p in proofs if not p]
    wrong = [[rresp.proof(3, power=2)], geo.proofs(power=2, max_size=2)[0],
             expmech.proofs(max_size=2, power=2)[0][1:], [tuning.proof(power=2, max_size=2)],
             soft.proofs((((0, 1), (0, 1), 2),), power=2)[0],
             [p for p, lab in zip(*walk.proofs(max_size=3, ks=(2,), power=2)) if "query -1.0" not in lab],
             learners.learner_proofs(power=2, max_size=2)[0],
             [p for p, lab in zip(*learners.posterior_proofs(power=2, max_size=2)) if "replace" in lab]]
    for proofs in wrong:
        assert proofs and not any(proofs)
        for p in proofs:
            low_end, high_end = p.failures[0].epsilon
            assert low_end[0] < high_end[0] and "fails for epsilon in" in p.failures[0].describe()


def test_algebraic_exponential_law_equals_the_library_law():
    from proofs_checks.mcsherry_talwar.exponential_mechanism_all_epsilon import law
    from refdp.mechanisms import exponential_mechanism_distribution

    e = sympy.exp(sympy.Rational(1, 2))   # t = e^(eps/2) at eps = 1
    for d in [(0, 1, 1), (2, 2, 2), (0, 3)]:
        mine = [sympy.N(p.subs(T, e), 30) for p in law(4)(d, T)]
        ref = exponential_mechanism_distribution([d.count(h) for h in range(4)], 1.0, exact=True, dps=30)
        assert all(abs(float(a) - float(b)) < 1e-15 for a, b in zip(mine, ref))


# --- bad input ---------------------------------------------------------------

@pytest.mark.parametrize("value", [sympy.pi * T / (1 + T), sympy.sqrt(2) / 2, T ** sympy.Rational(1, 2),
                                   sympy.exp(T), T ** 0.5, sympy.Symbol("s"), "a", None, True,
                                   float("nan")])
def test_non_rational_values_are_rejected(value):
    def law(d, t):
        return {0: value, 1: 1 - value} if not isinstance(value, (str, type(None), bool)) else {0: value}
    for fn in (lambda: check_algebraic(law, BITS, 1, 1), lambda: prove_for_all_epsilon(law, BITS)):
        with pytest.raises(ValueError, match="The 'law' parameter of .* must be a rational function"):
            fn()


def test_bad_parameters_and_laws():
    for m in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="The 'm' parameter of check_algebraic must be"):
            check_algebraic(rr, BITS, 1, m)
        with pytest.raises(ValueError, match="The 'm' parameter of prove_for_all_epsilon must be"):
            prove_for_all_epsilon(rr, BITS, m)
    for eps in (0, -1, float("inf"), float("nan"), "1", mpmath.mpf(1), True):
        with pytest.raises(ValueError, match="The 'epsilon' parameter of check_algebraic must be"):
            check_algebraic(rr, BITS, eps, 1)
    with pytest.raises(ValueError, match="summing to exactly 1"):
        check_algebraic(lambda d, t: {0: t / (1 + t), 1: F(1, 2)}, BITS, 1, 1)
    with pytest.raises(ValueError, match="summing to exactly 1"):
        check_algebraic(lambda d, t: [0.1, 0.9], BITS, 1, 1)     # binary 0.1 + 0.9 != 1
    with pytest.raises(ValueError, match="nonnegative"):
        check_algebraic(lambda d, t: {0: 2 - t, 1: t - 1}, BITS, 2, 1)
    with pytest.raises(ValueError, match="nonnegative for every epsilon"):
        prove_for_all_epsilon(lambda d, t: {0: 2 - t, 1: t - 1}, BITS)
    with pytest.raises(ValueError, match="without poles"):
        prove_for_all_epsilon(lambda d, t: {0: 1 / (t - 2) ** 2 + 1, 1: -1 / (t - 2) ** 2}, BITS)


def test_core_import_does_not_import_sympy():
    code = "import sys, refdp, refdp.verify; assert 'sympy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_sympy_names_the_extra():
    code = ("import sys; sys.modules['sympy'] = None\n"
            "from refdp.verify import check_algebraic\n"
            "try:\n    check_algebraic(lambda d, t: [1], [(0,), (1,)], 1, 1)\n"
            "except ImportError as e:\n    assert \"pip install 'refdp[exact]'\" in str(e), e\n"
            "else:\n    raise SystemExit('no ImportError')\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# --- global mpmath precision changed by other threads -------------------------

def test_results_do_not_depend_on_global_mpmath_precision():
    def run():
        a = check_algebraic(rr3, [(0,), (1,), (2,)], F(7, 5), 1, law_epsilon=F(7, 5) + F(1, 10 ** 30))
        b = prove_for_all_epsilon(rr3, [(0,), (1,), (2,)])
        return (a.verdict, tuple(x._mpf_ for x in a.enclosure), a.divergence._mpf_, a.dps, b.verdict,
                b.conditions, b.polynomials)

    reference = run()
    stop = threading.Event()

    def churn():
        k = 0
        while not stop.is_set():
            mpmath.mp.dps = 5 + k % 200
            mpmath.iv.prec = 10 + k % 300
            k += 1

    old_dps, old_prec = mpmath.mp.dps, mpmath.iv.prec
    threads = [threading.Thread(target=churn) for _ in range(2)]
    for th in threads:
        th.start()
    try:
        results = [run() for _ in range(5)]
    finally:
        stop.set()
        for th in threads:
            th.join()
        mpmath.mp.dps, mpmath.iv.prec = old_dps, old_prec
    assert all(r == reference for r in results)
