"""refdp.prediction.generalization: the Lemma 6.4 calculator, its rounding, and the lemma on data."""
import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, strategies as st

from proofs_checks.dwork_feldman.lemma_6_4_generalization import POP, exact_means
from refdp.prediction.generalization import lemma_6_4_bounds


@pytest.mark.parametrize("kwargs, name", [
    ({"epsilon": -0.1}, "epsilon"), ({"epsilon": math.nan}, "epsilon"),
    ({"epsilon": math.inf}, "epsilon"), ({"empirical_loss": 1.5}, "empirical_loss"),
    ({"empirical_loss": -0.01}, "empirical_loss"), ({"delta": 1.1}, "delta"),
    ({"delta": -1e-9}, "delta"), ({"epsilon": "1"}, "epsilon"),
])
def test_validation(kwargs, name):
    args = {"epsilon": 1.0, "empirical_loss": 0.2, "delta": 0.0, **kwargs}
    with pytest.raises(ValueError, match=f"The '{name}' parameter of lemma_6_4_bounds must be"):
        lemma_6_4_bounds(args["epsilon"], args["empirical_loss"], delta=args["delta"])


def test_boundaries():
    assert lemma_6_4_bounds(0.0, 0.3) == (0.3, 0.3)        # e^0 = 1 exactly
    assert lemma_6_4_bounds(2.0, 0.0) == (0.0, 0.0)
    assert lemma_6_4_bounds(50.0, 0.5)[1] == 1.0           # a loss in [0, 1] has L_P <= 1
    assert lemma_6_4_bounds(0.5, 0.01, delta=0.05)[0] == 0.0


@given(eps=st.floats(0, 30), ls=st.floats(0, 1), delta=st.floats(0, 1))
def test_rounding_toward_safety(eps, ls, delta):
    lo, hi = lemma_6_4_bounds(eps, ls, delta=delta)
    with mpmath.workdps(60):
        e, l_, d = mpmath.mpf(eps), mpmath.mpf(ls), mpmath.mpf(delta)
        exact_hi = min(mpmath.mpf(1), mpmath.exp(e) * l_ + d)
        exact_lo = max(mpmath.mpf(0), mpmath.exp(-e) * (l_ - d))
        assert mpmath.mpf(hi) >= exact_hi
        assert mpmath.mpf(lo) <= exact_lo
        assert mpmath.mpf(hi) - exact_hi <= 1e-15 * (1 + exact_hi)
        assert exact_lo - mpmath.mpf(lo) <= 1e-15 * (1 + exact_lo)


@pytest.mark.parametrize("eps", [0.25, 1.0])
def test_lemma_holds_exactly_for_the_private_memoriser(eps):
    with mpmath.workdps(30):
        es, ep = exact_means(eps)
        assert mpmath.exp(-eps) * es <= ep <= mpmath.exp(eps) * es
        lo, hi = lemma_6_4_bounds(eps, float(es))
        assert lo <= ep <= hi


def test_lemma_fails_without_privacy():
    """The same memoriser released without noise overfits beyond any e^eps with eps = 0.25.

    Exact rational computation over all 6^3 datasets: the noiseless prediction
    p = A(S)(x) in [0, 1], loss |p - y|.
    """
    n = 3

    def learner(ds, x):
        return Fraction(1, 2) + Fraction(1, 2 * n) * sum(2 * POP[i][1] - 1 for i in ds if POP[i][0] == x)

    es = ep = Fraction(0)
    for ds in itertools.product(range(len(POP)), repeat=n):
        prob = math.prod((POP[i][2] for i in ds), start=Fraction(1))
        es += prob * sum(abs(learner(ds, POP[i][0]) - POP[i][1]) for i in ds) / n
        ep += prob * sum(w * abs(learner(ds, x) - y) for x, y, w in POP)
    assert ep / es > math.exp(0.25)        # the bound of Lemma 6.4 at eps = 0.25 would be violated
    lo, hi = lemma_6_4_bounds(0.25, float(es))
    assert not lo <= float(ep) <= hi
