"""``refdp audit`` (refdp.audit.cli): targets, pairs, JSON, exit status, clear errors.

The callables below are audit targets named on the command line as
``tests.audit.test_cli:<name>``. Audits use fixed seeds (deterministic).
"""
import argparse
import json
import os
from fractions import Fraction as F

import numpy as np
import pytest

from refdp.audit import cli


def broken_rr(bit, n, rng):
    """Randomised response at probability 0.9 (ln 9-DP), to be audited against ln 3."""
    b = int(np.asarray(bit).reshape(-1)[0])
    return np.where(rng.random(n) < 0.9, b, 1 - b)


broken_rr.audit_pairs = [(0, 1, "bit 0 vs bit 1")]


def rr_one(bit, rng):
    """Per-call randomised response at probability 3/4 (exactly ln 3-DP)."""
    return bit if rng.random() < 0.75 else 1 - bit


rr_one.audit_per_call = True
rr_one.audit_pairs = lambda: [(0, 1)]


def rr_law(dataset):
    """The exact law of randomised response at 3/4."""
    b = dataset if isinstance(dataset, int) else dataset[0]
    return {b: F(3, 4), 1 - b: F(1, 4)}


rr_law.audit_distribution = True
rr_law.audit_pairs = [((0,), (1,))]


def no_pairs(d, n, rng):
    return np.zeros(n)


def raising(d, n, rng):
    raise RuntimeError("the mechanism is broken")


NOT_CALLABLE = 3


def _run(argv):
    parser = argparse.ArgumentParser(prog="refdp audit")
    cli.add_arguments(parser)
    return cli.run(parser.parse_args(argv))


def test_broken_mechanism_exits_1_with_a_summary(capsys):
    rc = _run(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1.0986", "--samples", "40000",
               "--seed", "1", "--quiet"])
    out = capsys.readouterr()
    assert rc == 1
    assert "VIOLATION" in out.out and "bit 0 vs bit 1" in out.out and out.err == ""


def test_json_output_and_pair_option(capsys):
    rc = _run(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "3", "--samples", "40000",
               "--seed", "2", "--json", "--quiet", "--pair", "[0, 1, \"given\"]"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert data["mode"] == "black-box" and data["violation"] is False
    assert data["pair_label"] == "given" and 0 < data["epsilon_lower"] <= np.log(9)
    assert data["confidence"] == 0.95 and data["false_alarm_probability"] == pytest.approx(0.05)


def test_pool_pairs_pools_two_pairs_and_reports_them_in_json(capsys):
    rc = _run(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1.0986", "--samples", "40000",
               "--seed", "3", "--json", "--quiet", "--holdout-test", "conditional", "--pool-pairs", "2",
               "--pair", "[0, 1, \"a\"]", "--pair", "[1, 0, \"b\"]"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1 and data["violation"] is True and data["holdout_test"] == "conditional"
    # both orders of the pair carry the same violation: the pool adds them up
    assert [m["pair_label"] for m in data["pooled"]] == ["a", "b"]
    assert data["counts"][0] == sum(m["k"] for m in data["pooled"])


def test_vector_pairs_from_json_become_arrays(capsys):
    rc = _run(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1", "--samples", "20000",
               "--seed", "3", "--quiet", "--json", "--pair", "[[0], [1]]"])
    assert rc == 1
    assert sorted(json.loads(capsys.readouterr().out)["pair"]) == [[0.0], [1.0]]


def test_per_call_attribute_and_delta(capsys):
    rc = _run(["tests.audit.test_cli:rr_one", "--claimed-epsilon", "1.2", "--samples", "20000",
               "--seed", "4", "--quiet", "--delta-at-epsilon", "0.5", "--confidence", "0.9"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "delta >=" in out and "at confidence 0.9" in out


def test_exact_mode(capsys):
    rc = _run(["tests.audit.test_cli:rr_law", "--claimed-epsilon", "1.0", "--orders", "2"])
    out = capsys.readouterr().out
    assert rc == 1 and "FAILS" in out and "1.09861228867" in out and "Renyi" in out
    rc = _run(["tests.audit.test_cli:rr_law", "--exact", "--claimed-epsilon", "1.1", "--json",
               "--pair", "[[0], [1]]"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["mode"] == "exact" and data["verdict"] == "holds"


def test_file_path_target(capsys):
    path = os.path.abspath(__file__)
    rc = _run([f"{path}:broken_rr", "--claimed-epsilon", "1", "--samples", "20000", "--seed", "5",
               "--quiet"])
    assert rc == 1


@pytest.mark.parametrize("argv,message", [
    (["nodots", "--claimed-epsilon", "1"], "module:callable"),
    (["tests.no_such_module:f", "--claimed-epsilon", "1"], "cannot import"),
    (["tests.audit.test_cli:missing", "--claimed-epsilon", "1"], "has no attribute"),
    (["tests.audit.test_cli:NOT_CALLABLE", "--claimed-epsilon", "1"], "is not callable"),
    (["tests.audit.test_cli:no_pairs", "--claimed-epsilon", "1"], "audit_pairs"),
    (["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1", "--pair", "[0, 1"], "is not JSON"),
    (["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1", "--pair", "[0]"], "must be a JSON array"),
    (["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1", "--pair", "[0, 0]"],
     "pairs of two different datasets"),
    (["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1", "--confidence", "1.5"],
     "'confidence' parameter"),
    (["tests.audit.test_cli:raising", "--claimed-epsilon", "1", "--pair", "[0, 1]"],
     "RuntimeError: the mechanism is broken"),
    (["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1", "--pool-pairs", "2"], "'pool_pairs' parameter"),
])
def test_errors_exit_2_with_a_message(argv, message, capsys):
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("refdp audit: ") and message in err


def test_main_entry_point(capsys):
    assert cli.main(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "5", "--samples", "20000",
                     "--seed", "6", "--quiet"]) == 0
    assert "no violation found" in capsys.readouterr().out


def rr_per_call_unmarked(bit, rng):
    """A per-call mechanism without audit_per_call: needs --per-call on the command line."""
    return bit if rng.random() < 0.75 else 1 - bit


def test_help_states_the_signature_and_the_pair_conversion(capsys):
    from refdp import cli as top

    with pytest.raises(SystemExit):
        top.main(["audit", "--help"])
    text = capsys.readouterr().out
    assert "mechanism(dataset, n_samples, rng) -> n_samples outputs" in text
    assert "--per-call" in text and "NumPy float64 array" in text


def test_wrong_signature_suggests_per_call(capsys):
    rc = _run(["tests.audit.test_cli:rr_per_call_unmarked", "--claimed-epsilon", "1.1", "--pair", "[0, 1]",
               "--samples", "200000", "--seed", "1", "--quiet"])
    assert rc == 2 and "--per-call" in capsys.readouterr().err
    rc = _run(["tests.audit.test_cli:rr_per_call_unmarked", "--per-call", "--claimed-epsilon", "1.1",
               "--pair", "[0, 1]", "--samples", "200000", "--seed", "1", "--quiet"])
    assert rc == 0


def test_small_budget_warns(capsys):
    _run(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1.0986", "--samples", "2000", "--seed", "1"])
    assert "warning: --samples 2000 is below" in capsys.readouterr().err


def test_a_py_file_can_import_its_neighbours(tmp_path, capsys):
    (tmp_path / "helper_mod_for_audit.py").write_text("P = 0.75\n")
    (tmp_path / "mech_file.py").write_text(
        "import numpy as np\nfrom helper_mod_for_audit import P\n"
        "def rr(bit, n, rng):\n"
        "    b = int(np.asarray(bit).reshape(-1)[0])\n"
        "    return np.where(rng.random(n) < P, b, 1 - b)\n")
    rc = _run([f"{tmp_path / 'mech_file.py'}:rr", "--claimed-epsilon", "1.1", "--pair", "[0, 1]",
               "--samples", "200000", "--seed", "2", "--quiet"])
    assert rc == 0, capsys.readouterr().err


def test_json_pairs_are_arrays(capsys):
    rc = _run(["tests.audit.test_cli:broken_rr", "--claimed-epsilon", "1.0986", "--pair", "[[0, 0], [1, 0]]",
               "--samples", "200000", "--seed", "3", "--json", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    assert out["pair"] == [[0.0, 0.0], [1.0, 0.0]]            # arrays, not their text
    assert out["pair_text"] == ["[0.0, 0.0]", "[1.0, 0.0]"]


def test_exact_summary_prints_the_claim_exactly(capsys):
    # ln 3 = 1.0986122886681098; a claim just above it holds, and must not be
    # printed rounded (1.09861) below the exact value printed to 12 digits.
    claim = "1.09861228866811"
    rc = _run(["tests.audit.test_cli:rr_law", "--claimed-epsilon", claim])
    out = capsys.readouterr().out
    assert rc == 0 and f"claim {float(claim)!r}-DP: HOLDS" in out
