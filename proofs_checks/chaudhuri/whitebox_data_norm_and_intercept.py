"""The white-box ERM audit flags flawed objective-perturbation rules and passes the correct one.

Claim
    Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2 and the proof of
    Theorem 2, for feature vectors with ``||x|| <= q``: the gradient term of a
    record has norm at most ``q`` and its Hessian term at most ``c q^2``, so the
    release is epsilon-DP with ``epsilon' = epsilon - 2 ln(1 + c q^2 / (n lambda))``
    and noise rate ``beta = epsilon' / (2 q)`` (the Delta branch when
    epsilon' <= 0). A rule whose slack uses ``c q`` instead of ``c q^2`` is not
    epsilon-DP at ``q = 4``; neither is the correct rule with an unpenalised
    intercept (the Jacobian loses its ``n mu`` floor in that direction).
Setting
    :func:`refdp.audit.erm_whitebox` on 1-D Huber hinge (h = 1/2) data with
    ``q = 4``, ``n = 2``, ``(epsilon, lambda) = (2, 2)``; the intercept case on
    logistic data with one feature and the intercept, ``q = 1``,
    ``(epsilon, lambda) = (1, 1/2)``.
Precision
    Candidates screened in double precision on the output grid and refined by
    the record search over the whole ball (records and output moved
    together), the largest re-evaluated in a 40-digit interval context from
    exact rationals.
Verdict
    HOLDS when both flawed rules are flagged with certified witnesses (interval
    enclosure of ``ln p_D(f) / p_D'(f)`` above epsilon at 40 digits) and the
    correct rule (without intercept, and with a penalised one) shows no
    output of the search grid above epsilon. The "holds" half is a grid search
    (estimated), the flags are certified.
"""
from __future__ import annotations

import math

from refdp.audit.erm_whitebox import erm_whitebox
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict, worst_verdict


def objective_rule(norm_power):
    """Chaudhuri et al. (2011) Algorithm 2 for ||x|| <= q; ``norm_power=1`` is the flawed c q slack."""
    def rule(epsilon, n, regularization, curvature, data_norm):
        cq = curvature * data_norm ** norm_power
        eps_p = epsilon - 2 * math.log1p(cq / (n * regularization))
        extra = 0.0
        if eps_p <= 0:
            extra = max(0.0, cq / (n * math.expm1(epsilon / 4)) - regularization)
            eps_p = epsilon / 2
        return {"noise_rate": eps_p / (2 * data_norm), "total_regularization": regularization + extra}
    return rule


@register("chaudhuri.whitebox_audit_data_norm_and_intercept",
          "the white-box ERM audit certifies violations of objective perturbation with a c q slack at q = 4 "
          "and with an unpenalised intercept, and finds none for the correct rule",
          covers=("refdp.audit.erm_whitebox",), quick=True)
def whitebox_flags() -> CheckResult:
    huber = dict(epsilon=2.0, n=2, regularization=2.0, data_norm=4.0, loss="huber")
    inter = dict(epsilon=1.0, n=2, regularization=0.5, dimension=2)
    flawed = [erm_whitebox(objective_rule(1), **huber), erm_whitebox(objective_rule(2), intercept=True, **inter)]
    correct = [erm_whitebox(objective_rule(2), **huber),
               erm_whitebox(objective_rule(2), intercept="penalised", **inter)]
    verdicts = [Verdict.HOLDS if r.verdict is Verdict.FAILS else Verdict.FAILS for r in flawed]
    verdicts += [r.verdict for r in correct]
    detail = "; ".join(f"{name}: {r}" for name, r in zip(
        ("c q slack", "unpenalised intercept", "correct", "penalised intercept"), flawed + correct))
    # the margin reported (measured <= bound) is the correct rule's: its largest certified log density
    # ratio against its epsilon; the flawed rules' certified violations are in the detail
    return CheckResult(float(correct[0].ratio[1]), huber["epsilon"], worst_verdict(verdicts), 40, detail,
                       method="estimated")
