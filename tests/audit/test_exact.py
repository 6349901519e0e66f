"""Exact audit: the divergences of refdp.verify behind one call, worst pair and output."""
import math
from fractions import Fraction as F

import mpmath
import pytest

from refdp.audit import audit_exact
from refdp.verify import Verdict


def rr_table(num, den):
    """Randomised response reporting the bit with probability num/den, as a table."""
    p = F(num, den)
    return {0: [p, 1 - p], 1: [1 - p, p]}


def test_table_randomised_response_exact_epsilon_and_delta():
    r = audit_exact(rr_table(3, 4), claimed_epsilon=1.0)
    assert r.verdict is Verdict.FAILS and r.violation
    with mpmath.workdps(40):
        assert abs(r.epsilon - mpmath.log(3)) < mpmath.mpf(10) ** -25
        # delta(1) = 3/4 - e/4 on the event {output 0} for (0, 1) (or {1} for (1, 0))
        assert abs(r.delta - (mpmath.mpf(3) / 4 - mpmath.e / 4)) < mpmath.mpf(10) ** -25
    assert set(r.worst_pair) == {0, 1} and r.pairs_checked == 1
    assert r.worst_output in (0, 1) and r.delta_event in ((0,), (1,))
    ok = audit_exact(rr_table(3, 4), claimed_epsilon=1.1)
    assert ok.verdict is Verdict.HOLDS and not ok.violation
    # ln 3 is not a double: the nearest double lies above it (the claim holds), the
    # next one down lies below it (the claim fails), and the audit tells them apart
    with mpmath.workdps(40):
        assert mpmath.mpf(math.log(3)) > mpmath.log(3) > mpmath.mpf(math.nextafter(math.log(3), 0.0))
    assert audit_exact(rr_table(3, 4), claimed_epsilon=math.log(3)).verdict is Verdict.HOLDS
    below = math.nextafter(math.log(3), 0.0)
    assert audit_exact(rr_table(3, 4), claimed_epsilon=below).verdict is Verdict.FAILS


def test_claimed_delta_is_decided_by_the_hockey_stick_divergence():
    # leaky randomised response: with probability 1/64 output the bit itself
    rho = F(1, 64)
    p = F(3, 4)

    def law(d):
        b = d[0]
        return {("leak", b): rho, ("rr", b): (1 - rho) * p, ("rr", 1 - b): (1 - rho) * (1 - p)}
    pairs = [((0,), (1,))]
    holds = audit_exact(law, math.log(3) + 1e-9, claimed_delta=1 / 64, pairs=pairs)
    assert holds.verdict is Verdict.HOLDS
    assert holds.epsilon == mpmath.inf  # the leak has no counterpart
    fails = audit_exact(law, math.log(3) + 1e-9, claimed_delta=1 / 128, pairs=pairs)
    assert fails.verdict is Verdict.FAILS
    assert fails.delta_event == (("leak", fails.delta_pair[0][0]),)


def test_function_with_datasets_and_neighbours_finds_the_worst_pair():
    # sum of bits plus geometric noise, clamped to [0, 3]; claimed eps = 1 but built at eps = 2
    def noisy_count(eps):
        def dist(dataset):
            a = mpmath.exp(-mpmath.mpf(eps))
            c = sum(dataset)
            law = {k: (1 - a) / (1 + a) * a ** abs(k - c) for k in range(1, 3)}
            law[0] = a ** c / (1 + a)
            law[3] = a ** (3 - c) / (1 + a)
            return law
        return dist
    datasets = [(0, 0, 0), (0, 0, 1), (0, 1, 1), (1, 1, 1)]
    r = audit_exact(noisy_count(2), claimed_epsilon=1.0, datasets=datasets, neighbours="replace",
                    orders=(2.0,))
    assert r.verdict is Verdict.FAILS
    assert abs(r.epsilon - 2) < mpmath.mpf(10) ** -20
    d, e = r.worst_pair
    assert sum(a != b for a, b in zip(sorted(d), sorted(e))) == 1
    assert 2.0 in r.renyi and r.renyi[2.0][0] > 0
    good = audit_exact(noisy_count(1), claimed_epsilon=1.0 + 1e-12, datasets=datasets)
    assert good.verdict is Verdict.HOLDS


def test_pairs_given_as_lists_and_renyi_over_pairs():
    table = {(0, 0): [F(1, 2), F(1, 2)], (0, 1): [F(3, 4), F(1, 4)], (1, 1): [F(7, 8), F(1, 8)]}
    r = audit_exact(table, 2.0, pairs=[[[0, 0], [0, 1]], [[0, 1], [1, 1], "second"]], orders=[2, 3])
    assert r.pairs_checked == 2
    with mpmath.workdps(30):
        want = max(abs(mpmath.log(mpmath.mpf(1) / 2 / (mpmath.mpf(1) / 4))),
                   abs(mpmath.log(mpmath.mpf(1) / 4 / (mpmath.mpf(1) / 8))))
    assert abs(r.epsilon - want) < mpmath.mpf(10) ** -20
    assert set(r.renyi) == {2.0, 3.0}
    text = r.summary()
    assert "exact epsilon" in text and "Renyi" in text
    assert r.as_dict()["verdict"] == "holds"


@pytest.mark.parametrize("kwargs,match", [
    ({"distribution": {0: [1.0]}}, r"table of at least two datasets"),
    ({"distribution": 3}, r"'distribution' parameter"),
    ({"pairs": [(0, 0)]}, r"the same dataset 0 twice"),
    ({"pairs": [(0, 2)]}, r"2 at position 0, not in the table"),
    ({"pairs": []}, r"non-empty"),
    ({"pairs": [(0, 1, 2, 3)]}, r"pairs \(d, d'\)"),
    ({"pairs": [(0, 1)], "datasets": [(0,)]}, r"'datasets' parameter"),
    ({"orders": (1.0,)}, r"'orders' parameter"),
    ({"claimed_epsilon": -1.0}, r"'claimed_epsilon' parameter"),
    ({"claimed_delta": 1.0}, r"'claimed_delta' parameter"),
    ({"dps": 2}, r"'dps' parameter"),
    ({"distribution": {0: [0.5, 0.6], 1: [0.5, 0.5]}}, r"sum to 1"),
])
def test_bad_input(kwargs, match):
    args = {"distribution": rr_table(3, 4), "claimed_epsilon": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        audit_exact(**args)


def test_function_needs_pairs_or_datasets():
    with pytest.raises(ValueError, match="'pairs' parameter of audit_exact must be given"):
        audit_exact(lambda d: [1.0], 1.0)


def test_neighbours_is_checked_when_pairs_are_given():
    def law(d, ctx):
        p = ctx.mpf(3) / 4
        return {d[0]: p, 1 - d[0]: 1 - p}

    with pytest.raises(ValueError, match=r"^The 'neighbours' parameter of audit_exact"):
        audit_exact(law, 1.2, pairs=[((0,), (1,))], neighbours="no such")
    assert audit_exact(law, 1.2, pairs=[((0,), (1,))], neighbours="add_remove").passed
