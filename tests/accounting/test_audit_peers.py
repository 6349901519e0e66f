"""Audit of peer accountants (refdp.accounting.audit_peers) and refdp's own reference values."""
import math
import re

import pytest

from refdp.utils.precision import iv_context, mp_context
from refdp.accounting import (Gaussian, Laplace, RandomizedResponse, optimal_composition_delta,
                              optimal_composition_epsilon, privacy_profile_epsilon)
from refdp.accounting.gaussian_exact import gaussian_delta, normal_cdf
from refdp.accounting.audit_peers import (AuditRow, Setting, _strict_lower, _verdict, audit_accountants,
                                          default_settings, reference_epsilon)
from refdp.accounting.profiles import Enclosure
from refdp.cli import main

P = "The '{}' parameter of {} must be"


@pytest.mark.parametrize("z", [-300.0, -38.5, -5.0, -2.0, -1.999, -0.25, 0.0, 0.5, 1.999, 2.0, 7.5])
def test_normal_cdf_encloses_mpmath(z):
    iv = iv_context(40)
    v = normal_cdf(z, iv)
    exact = mp_context(80).ncdf(z)
    assert v.a <= exact <= v.b
    assert v.delta <= 1e-35 * v.b


@pytest.mark.parametrize("mu, eps", [(2.0, 10.99), (632.0, 205000.0), (0.02, 0.14), (1.0, 0.0), (1.0, 3.0)])
def test_gaussian_delta_encloses_balle_wang(mu, eps):
    mp = mp_context(80)
    m = mp.mpf(mu)
    exact = mp.ncdf(m / 2 - eps / m) - mp.exp(eps) * mp.ncdf(-m / 2 - eps / m)
    v = gaussian_delta(mu, eps, iv_context(40))
    assert v.a <= exact <= v.b and v.delta <= 1e-30 * abs(exact)


def test_reference_epsilon_of_gaussians_inside_the_profile_enclosure():
    for mechs, delta in [([(Gaussian(5.0), 100)], 1e-6), ([Gaussian(1.0, 2.0), (Gaussian(2.0), 4)], 1e-5)]:
        ref = reference_epsilon(mechs, delta)
        prof = privacy_profile_epsilon(mechs, delta)
        assert prof.lower <= ref.lower <= ref.upper <= prof.upper
        assert ref.width <= 1e-12 * ref.upper


def test_reference_epsilon_intersects_the_enclosures_of_three_grid_steps(monkeypatch):
    import refdp.accounting.audit_peers as ap
    mechs, delta = [(Laplace(2.0), 3), (Gaussian(3.0), 2)], 1e-6
    monkeypatch.setattr(ap, "_grid_step", lambda groups: 1e-3)
    ref = reference_epsilon(mechs, delta)
    encs = [privacy_profile_epsilon(mechs, delta, grid_step=g) for g in (1e-3, 3e-3, 1e-2)]
    assert ref.lower == max(e.lower for e in encs) and ref.upper == min(e.upper for e in encs)
    assert all(e.lower <= ref.lower <= ref.upper <= e.upper for e in encs)
    # a finer grid (1e-4) encloses the same exact value: the intersection meets it
    fine = privacy_profile_epsilon(mechs, delta, grid_step=1e-4)
    assert fine.lower <= ref.upper and ref.lower <= fine.upper


@pytest.mark.parametrize("eps0, k, delta", [(0.1, 100, 1e-6), (10.0, 1, 1e-2), (1e-3, 10**5, 1e-15)])
def test_reference_epsilon_of_pure_dp_is_the_optimal_composition(eps0, k, delta):
    ref = reference_epsilon([(RandomizedResponse(eps0), k)], delta)
    assert ref.upper == optimal_composition_epsilon(eps0, k, delta)
    assert 0 < ref.lower < ref.upper and ref.width <= 1e-12 * ref.upper
    # lower end: the exact delta there is above the target
    assert optimal_composition_delta(eps0, k, ref.lower) > delta


def test_verdicts():
    e = Enclosure(1.0, 1.1)
    assert _verdict(0.99, e) == ("undercuts", pytest.approx(0.01))
    assert _verdict(1.05, e) == ("inside", None)
    assert _verdict(1.21, e) == ("valid", pytest.approx(0.1))
    assert _verdict(0.0, Enclosure(0.0, 0.0)) == ("valid", 0.0)
    assert _verdict(-1.0, Enclosure(0.0, 0.0)) == ("undercuts", math.inf)


def test_default_grid_covers_the_ranges():
    grid = default_settings()
    ks = [k for s in grid for _, k in s.mechanisms]
    deltas = {s.delta for s in grid}
    eps0 = [m.epsilon for s in grid for m, _ in s.mechanisms if isinstance(m, RandomizedResponse)]
    sig = [m.sigma for s in grid for m, _ in s.mechanisms if isinstance(m, Gaussian)]
    assert min(ks) == 1 and max(ks) == 10**5
    assert min(deltas) == 1e-15 and max(deltas) == 1e-2
    assert min(eps0) == 1e-3 and max(eps0) == 10.0
    assert min(sig) == 0.5 and max(sig) == 50.0
    assert any(len(s.mechanisms) > 1 for s in grid)
    assert len(default_settings(quick=True)) == 8


def test_refdp_renyi_is_audited_in_process_and_valid():
    settings = [Setting(((Laplace(10.0), 20),), 1e-6), Setting(((RandomizedResponse(0.5), 10),), 1e-5)]
    rows = audit_accountants(settings, ["refdp.renyi"])
    assert [r.peer for r in rows] == ["refdp.renyi"] * 2
    assert all(isinstance(r, AuditRow) and r.verdict == "valid" and r.gap > 0 for r in rows)


def test_a_peer_that_does_not_answer_in_time_is_reported_not_raised():
    # the worker is killed after the time limit; the next call starts a new one
    pytest.importorskip("autodp")
    s = Setting(((Gaussian(5.0), 10),), 1e-6)
    rows = audit_accountants([s], ["autodp"], timeout=1e-9)
    assert len(rows) == 1 and rows[0].verdict == "failed" and rows[0].value is None
    assert rows[0].error.startswith("failed: no answer within")


def test_bad_arguments():
    s = [Setting(((Gaussian(5.0), 10),), 1e-6)]
    with pytest.raises(ValueError, match=re.escape(P.format("peers", "audit_accountants"))):
        audit_accountants(s, ["opacus"])
    with pytest.raises(ValueError, match=re.escape(P.format("settings", "audit_accountants"))):
        audit_accountants([("gaussian", 10)], ["refdp.renyi"])
    with pytest.raises(ValueError, match=re.escape(P.format("memory_mb", "audit_accountants"))):
        audit_accountants(s, ["refdp.renyi"], memory_mb=10)
    with pytest.raises(ValueError, match=re.escape(P.format("delta", "reference_epsilon"))):
        reference_epsilon([Gaussian(1.0)], 1.0)


def test_cli_rejects_unknown_peer(capsys):
    assert main(["audit-accountant", "--quick", "--peers", "opacus"]) == 2
    assert "The 'peers' parameter of audit_accountants" in capsys.readouterr().err


# ------------------------------------------------- against dp_accounting --

@pytest.mark.parametrize("mechs, delta", [
    ([(Laplace(10.0), 30)], 1e-6),
    ([(Gaussian(5.0), 50)], 1e-5),
    ([(RandomizedResponse(0.2), 40)], 1e-6),
    ([(Laplace(10.0), 20), (Gaussian(5.0), 10)], 1e-6),
])
def test_profile_never_above_dp_accounting_pessimistic_by_more_than_width(mechs, delta):
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    common = pytest.importorskip("dp_accounting.pld.common")
    total = None
    for m, k in mechs:
        if isinstance(m, Laplace):
            p = pld.from_laplace_mechanism(m.scale)
        elif isinstance(m, Gaussian):
            p = pld.from_gaussian_mechanism(m.sigma)
        else:
            p = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(m.epsilon, 0.0))
        p = p.self_compose(k)
        total = p if total is None else total.compose(p)
    peer = total.get_epsilon_for_delta(delta)
    enc = privacy_profile_epsilon(mechs, delta)
    assert enc.upper <= peer + enc.width
    if all(isinstance(m, RandomizedResponse) for m, _ in mechs):
        (m, k), = mechs
        assert enc.upper >= optimal_composition_epsilon(m.epsilon, k, delta) * (1 - 1e-15)


@pytest.mark.slow
def test_cli_quick_audit_runs(capsys):
    pytest.importorskip("dp_accounting")
    assert main(["audit-accountant", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "refdp.renyi" in out and "dp_accounting.pld" in out


def test_opacus_rdp_peer_is_never_below_the_truth():
    import importlib.util
    if importlib.util.find_spec("opacus") is None:
        pytest.skip("opacus is not installed")
    settings = [Setting(((Gaussian(5.0), 100),), 1e-6), Setting(((Gaussian(0.5), 1),), 1e-2),
                Setting(((Laplace(10.0), 10),), 1e-6)]
    rows = audit_accountants(settings, ["opacus.rdp"], timeout=120.0)
    assert [r.verdict for r in rows] == ["valid", "valid", "unsupported"]
    assert all(r.value >= r.truth.upper for r in rows[:2])
    assert "only the subsampled Gaussian" in rows[2].error


def test_a_value_equal_to_a_strict_lower_end_undercuts():
    e = Enclosure(1.0, 1.2)
    assert _verdict(1.0, e) == ("inside", None)                    # lower end not known strict
    assert _verdict(1.0, e, strict=True) == ("undercuts", 0.0)
    assert _verdict(1.0 + 2 ** -52, e, strict=True) == ("inside", None)
    assert _verdict(0.0, Enclosure(0.0, 0.5), strict=True) == ("inside", None)   # lower 0 proves nothing
    assert _verdict(1.2, Enclosure(1.2, 1.2), strict=True) == ("valid", 0.0)     # a point enclosure
    assert _strict_lower([(RandomizedResponse(10.0), 1)]) and _strict_lower([Gaussian(1.0)])
    assert not _strict_lower([Laplace(1.0)]) and _strict_lower([(Laplace(1.0), 2)])


@pytest.mark.parametrize("e0, k, delta", [(10.0, 1, 1e-15), (10.0, 1, 1e-6), (10.0, 1, 0.01), (10.0, 10, 0.01)])
def test_pure_dp_lower_ends_are_strict_by_60_digits(e0, k, delta):
    # reference_epsilon's lower end for randomized response lies strictly below the exact
    # epsilon: a 60-digit bisection of the exact binomial profile (Kairouz, Oh and
    # Viswanath 2015) confirms it where the enclosure is one unit in the last place wide
    from math import comb
    truth = reference_epsilon([(RandomizedResponse(e0), k)], delta)
    mp = mp_context(60)
    E = mp.mpf(e0)
    p = mp.exp(E) / (1 + mp.exp(E))

    def prof(eps):
        return sum(comb(k, i) * p ** (k - i) * (1 - p) ** i * (1 - mp.exp(eps - (k - 2 * i) * E))
                   for i in range(k + 1) if (k - 2 * i) * E > eps)

    a, b = mp.mpf(0), mp.mpf(k * e0)
    for _ in range(220):
        c = (a + b) / 2
        a, b = (a, c) if prof(c) <= mp.mpf(delta) else (c, b)
    assert mp.mpf(truth.lower) < a and b <= mp.mpf(truth.upper)
    assert truth.upper - truth.lower <= 2 * math.ulp(truth.upper)


def test_docs_reproduction_of_the_peer_undercuts(capsys):
    # docs/accounting.rst's minimal script of every dp_accounting and autodp undercut prints
    # what the page shows, and the exact delta at each peer value exceeds the target
    pytest.importorskip("dp_accounting")
    pytest.importorskip("autodp")
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "accounting.rst").read_text(encoding="utf-8")
    start = text.index("and of every undercut of ``dp_accounting`` and ``autodp``")
    block = re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+?)\nIts output[^\n]*::\n\n((?:   .*\n)+)",
                      text[start:])
    code = "\n".join(line[3:] for line in block.group(1).splitlines())
    shown = [line.strip() for line in block.group(2).splitlines() if line.strip()]
    exec(compile(code, "accounting.rst", "exec"), {"__name__": "reproduction"})
    printed = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert printed == shown
    assert len(printed) == 17
    for line in printed[:-1]:
        delta = float(re.search(r"at delta=([0-9.e+-]+):", line).group(1))
        assert float(line.rsplit(" ", 1)[1]) > delta
    lower = float(re.search(r"exact delta there Enclosure\(lower=([0-9.e+-]+),", printed[-1]).group(1))
    assert lower > 0.01
