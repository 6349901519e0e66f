"""White-box audits of private-ERM rules: flawed rules are flagged with certified witnesses, correct ones hold."""
import math
from fractions import Fraction

import pytest

from proofs_checks.chaudhuri.whitebox_data_norm_and_intercept import objective_rule
from refdp.audit.erm_whitebox import erm_whitebox, record_alphabet
from refdp.verify.verdict import Verdict


def output_rule(epsilon, n, regularization, curvature, data_norm):
    """Chaudhuri et al. (2011) Algorithm 1 for ||x|| <= q: sensitivity 2 q / (n lambda)."""
    return n * regularization * epsilon / (2 * data_norm)


@pytest.mark.parametrize("eps, lam", [(2.0, 2.0), (1.0, 4.0)])
def test_slack_ignoring_the_data_norm_is_flagged_at_q_4(eps, lam):
    r = erm_whitebox(objective_rule(1), epsilon=eps, n=2, regularization=lam, data_norm=4.0, loss="huber")
    assert r.verdict is Verdict.FAILS and r.method == "certified"
    assert r.ratio[0] > eps                      # the certified enclosure lies above epsilon
    d, e = r.worst_pair
    assert len(d) == len(e) == 2 and sum(a != b for a, b in zip(sorted(d), sorted(e))) >= 1
    correct = erm_whitebox(objective_rule(2), epsilon=eps, n=2, regularization=lam, data_norm=4.0, loss="huber")
    assert correct.verdict is Verdict.HOLDS and correct.ratio[1] <= eps


def test_unpenalised_intercept_is_flagged_and_a_penalised_one_holds():
    r = erm_whitebox(objective_rule(2), epsilon=1.0, n=2, regularization=0.5, dimension=2, intercept=True)
    assert r.verdict is Verdict.FAILS and r.ratio[0] > 1 and len(r.worst_output) == 2
    ok = erm_whitebox(objective_rule(2), epsilon=1.0, n=2, regularization=0.5, dimension=2,
                      intercept="penalised")
    assert ok.verdict is Verdict.HOLDS


def test_correct_logistic_rule_holds_in_two_dimensions():
    r = erm_whitebox(objective_rule(2), epsilon=1.0, n=2, regularization=0.5, data_norm=2.0, dimension=2,
                     grid_points=15)
    assert r.verdict is Verdict.HOLDS and r.method == "estimated"


def test_output_perturbation_is_exact_over_the_pairs():
    r = erm_whitebox(output_rule, epsilon=1.0, n=2, regularization=0.5, data_norm=4.0, loss="huber",
                     mechanism="output")
    assert r.verdict is Verdict.HOLDS and r.method == "certified"
    assert r.ratio[1] - r.ratio[0] < Fraction(1, 10 ** 6)


def test_record_alphabet_respects_the_norm_bound():
    for u in record_alphabet(2, Fraction(4)):
        assert u[0] ** 2 + u[1] ** 2 <= 16
    assert set(record_alphabet(1, 3)) == {(-3,), (Fraction(-3, 2),), (0,), (Fraction(3, 2),), (3,)}


@pytest.mark.parametrize("bad", [math.inf, -1.0, 0.0, math.nan, "x"])
def test_rule_returning_a_bad_scale_is_rejected(bad):
    with pytest.raises(ValueError, match="The 'rule' parameter of erm_whitebox must be a callable returning "
                                         "a finite noise_rate > 0"):
        erm_whitebox(lambda **kw: {"noise_rate": bad, "total_regularization": 1.0}, epsilon=1.0, n=2,
                     regularization=1.0)


@pytest.mark.parametrize("kw, name", [
    (dict(data_norm=0.0), "data_norm"), (dict(data_norm=-2.0), "data_norm"),
    (dict(epsilon=0.0), "epsilon"), (dict(n=0), "n"), (dict(regularization=-1.0), "regularization"),
    (dict(mechanism="input"), "mechanism"), (dict(intercept=True), "intercept"), (dict(dimension=3), "dimension"),
])
def test_bad_parameters(kw, name):
    args = dict(epsilon=1.0, n=2, regularization=1.0)
    args.update(kw)
    with pytest.raises(ValueError, match=f"The '{name}' parameter of erm_whitebox must be"):
        erm_whitebox(objective_rule(2), **args)


def output_rule_ignoring_q(epsilon, n, regularization, curvature, data_norm):
    """A flawed Algorithm 1: the sensitivity 2 / (n lambda) of ||x|| <= 1, whatever q."""
    return n * regularization * epsilon / 2


def test_output_rule_ignoring_the_data_norm_is_flagged_by_the_record_search():
    # n = 1, lambda = 2, q = 4, Huber (h = 1/2): the record x = t moves the minimiser to f = 1.5 t / (2 + t^2)
    # once its margin leaves the linear region; the largest move is at t = sqrt(2), strictly inside the
    # ball and not in the alphabet {0, +-2, +-4}, where the flawed rule's epsilon is 2 f(sqrt 2) * lambda / 1
    # = 3 sqrt(2) / 4 = 1.0607 > 1. On the alphabet alone the largest value is exactly 1 (no violation).
    kw = dict(epsilon=1.0, n=1, regularization=2.0, data_norm=4.0, loss="huber", mechanism="output")
    blind = erm_whitebox(output_rule_ignoring_q, record_search=False, **kw)
    assert blind.verdict is Verdict.HOLDS and blind.ratio[0] <= 1 <= blind.ratio[1]
    r = erm_whitebox(output_rule_ignoring_q, **kw)
    assert r.verdict is Verdict.FAILS and r.method == "certified" and r.ratio[0] > 1
    assert abs(float(r.ratio[0]) - 3 * math.sqrt(2) / 4) < 1e-8 and r.ratio[1] - r.ratio[0] < 1e-12
    (d,), (e,) = r.worst_pair
    assert abs(abs(float(d[0])) - math.sqrt(2)) < 1e-4 and abs(abs(float(e[0])) - math.sqrt(2)) < 1e-4
    assert d[0] ** 2 <= 16 and e[0] ** 2 <= 16
    # the correct rule divides by q: a quarter of the flawed value, certified
    ok = erm_whitebox(output_rule, **kw)
    assert ok.verdict is Verdict.HOLDS and ok.ratio[1] <= Fraction(1, 3)


def test_record_search_with_shared_records():
    # n = 2, lambda = 1: a shared record inside the ball raises the flawed rule's epsilon to 1.11
    r = erm_whitebox(output_rule_ignoring_q, epsilon=1.0, n=2, regularization=1.0, data_norm=4.0, loss="huber",
                     mechanism="output")
    assert r.verdict is Verdict.FAILS and r.ratio[0] > Fraction(111, 100)
    d, e = r.worst_pair
    assert d[0] == e[0] and d[1] != e[1]                     # replace-one: the shared record first
    for u in d + e:
        assert u[0] ** 2 <= 16


def test_record_search_flag_is_validated():
    with pytest.raises(ValueError, match="The 'record_search' parameter of erm_whitebox must be True or False"):
        erm_whitebox(output_rule, epsilon=1.0, n=1, regularization=1.0, mechanism="output", record_search="yes")
