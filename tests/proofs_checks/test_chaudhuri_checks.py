"""The Chaudhuri et al. privacy checks have power: they hold for the algorithms and flag broken variants.

The registered checks themselves run in tests/proofs_checks/test_registered_checks.py; here the
pieces are exercised on single 1-D settings (fast), including the variants of
Algorithm 2 the density check must reject.
"""
from fractions import Fraction

import mpmath
import pytest

from proofs_checks.chaudhuri import theorem_1_output_perturbation as thm1
from proofs_checks.chaudhuri import theorem_2_objective_perturbation as thm2
from refdp.erm import objective_perturbation_budget
from refdp.verify.verdict import Verdict


@pytest.mark.parametrize("index", [0, 1, 2])
def test_density_check_holds_for_algorithm_2(index):
    setting = thm2.QUICK[index]
    res = thm2.density_ratio_sweep(setting)
    assert res.verdict is Verdict.HOLDS and res.measured < setting.epsilon
    assert thm2.budget_conditions(setting) is Verdict.HOLDS


@pytest.mark.parametrize("index, variant", [(1, thm2.no_delta_budget), (2, thm2.no_slack_budget)])
def test_density_check_flags_broken_variants(index, variant):
    res = thm2.density_ratio_sweep(thm2.QUICK[index], variant)
    assert res.verdict is Verdict.FAILS and res.measured > thm2.QUICK[index].epsilon


def test_largest_ratio_matches_the_hand_computation():
    # 1-D Huber hinge h = 1/2 (c = 1), n = 2, Lambda = 0.95, eps = 2 (Delta = 0 branch). For
    # D = {-1, +1} and D' = {-1, -1} (records u = y x) and an output f in (1/2, 3/2): u = -1 is in the
    # linear zone (l' = -1, l'' = 0) and u = +1 in the quadratic zone (l' = f - 3/2, l'' = 1), so
    # b_D = -(f - 1/2 + n Lambda f), b_D' = -(2 + n Lambda f), both negative, and
    #     ln p_D/p_D' = beta (5/2 - f) + ln((1 + n Lambda) / (n Lambda)),
    # whose supremum (f -> 1/2) is 2 beta + ln(1 + c/(n Lambda)) = eps - ln(1 + c/(n Lambda)).
    setting = thm2.QUICK[2]
    res = thm2.density_ratio_sweep(setting)
    assert res.datasets == (((Fraction(-1),), (Fraction(1),)), ((Fraction(-1),), (Fraction(-1),)))
    (f,) = res.output
    assert Fraction(1, 2) < f < Fraction(3, 2)
    bud = objective_perturbation_budget(2.0, 1.0, 2, 0.95, improved=False)
    with mpmath.workdps(40):
        nl = 2 * mpmath.mpf(0.95)
        closed = mpmath.mpf(bud.noise_rate) * (mpmath.mpf(5) / 2 - mpmath.mpf(f)) + mpmath.log((1 + nl) / nl)
        assert abs(res.measured - closed) < mpmath.mpf(10) ** -25
        sup = 2 - mpmath.log(1 + 1 / nl)
        assert res.measured < sup < 2 and sup - res.measured < 0.01


def test_output_perturbation_bound_is_attained_for_the_huber_hinge():
    # h = 1/4, Lambda = 2: every margin stays in the linear zone, and replacing (x, y) = (1, 1) by
    # (1, -1) moves the minimiser by exactly 2/(n Lambda): the constant 2 cannot be lowered.
    verdicts, worst, bound, _, _ = thm1.sweep("huber_hinge", Fraction(1, 4), Fraction(2), 3, 1)
    assert all(v is Verdict.HOLDS for v in verdicts)
    assert worst == bound == Fraction(1, 3)
