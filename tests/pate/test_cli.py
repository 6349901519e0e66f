"""``refdp pate``: add_arguments / run on label and count files."""
import argparse
import json

import numpy as np
import pytest

from refdp.pate import cli


def run(argv, capsys):
    parser = cli.add_arguments(argparse.ArgumentParser(prog="refdp pate"))
    rc = cli.run(parser.parse_args(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 5, 20)
    votes = np.where(rng.random((50, 20)) < 0.9, truth, rng.integers(0, 5, (50, 20)))
    counts = np.array([np.bincount(v, minlength=5) for v in votes.T])
    np.save(tmp_path / "votes.npy", votes)
    np.save(tmp_path / "counts.npy", counts)
    return tmp_path


def test_labels_and_counts_give_the_same_json(files, capsys):
    rc1, out1, _ = run(["--votes", str(files / "votes.npy"), "--classes", "5", "--gamma", "0.1",
                        "--delta", "1e-5", "--json"], capsys)
    rc2, out2, _ = run(["--votes", str(files / "counts.npy"), "--counts", "--gamma", "0.1",
                        "--delta", "1e-5", "--teachers", "50", "--json"], capsys)
    assert rc1 == rc2 == 0
    a, b = json.loads(out1), json.loads(out2)
    assert a["analyses"] == b["analyses"] and a["n_queries"] == 20 and a["n_classes"] == 5
    assert set(a["analyses"]) == {"data_independent", "theorem3"}
    assert a["smooth_sensitivity_release"]["noise_scale_log_moment"] > 0


def test_exact_table_and_orders(files, capsys):
    rc, out, _ = run(["--votes", str(files / "counts.npy"), "--counts", "--gamma", "0.1", "--delta", "1e-5",
                      "--orders", "1", "2", "8", "--exact", "--one-sided"], capsys)
    assert rc == 0
    for word in ("data_independent", "theorem3_exact_q", "exact", "Smooth-sensitivity", "one-sided"):
        assert word in out


@pytest.mark.parametrize("extra,message", [
    (["--gamma", "0", "--delta", "1e-5", "--classes", "5"], "'--gamma'"),
    (["--gamma", "0.1", "--delta", "1", "--classes", "5"], "'--delta'"),
    (["--gamma", "0.1", "--delta", "1e-5", "--classes", "5", "--orders", "1", "-2"], "'--orders'"),
    (["--gamma", "0.1", "--delta", "1e-5"], "'--classes'"),
    (["--gamma", "0.1", "--delta", "1e-5", "--classes", "3"], "'--votes'"),
    (["--gamma", "0.1", "--delta", "1e-5", "--classes", "5", "--teachers", "7"], "'--votes'"),
    (["--gamma", "0.1", "--delta", "1e-5", "--classes", "5", "--ss-epsilon", "-1"], "'--ss-epsilon'"),
    (["--gamma", "0.1", "--delta", "1e-5", "--classes", "0"], "'--classes'"),
])
def test_bad_input_exits_with_status_2(files, capsys, extra, message):
    # Errors name the option the user typed, never an internal function.
    rc, _, err = run(["--votes", str(files / "votes.npy")] + extra, capsys)
    assert rc == 2 and message in err and err.startswith("error: The ")
    assert "of refdp pate" in err
    for internal in ("count_votes", "pate_analysis", "lemma4", "smooth_"):
        assert internal not in err


def test_transposed_arrays_are_refused_and_teachers_printed(files, capsys):
    votes = np.load(files / "votes.npy")
    n_teachers = votes.shape[0]
    rc, out, _ = run(["--votes", str(files / "votes.npy"), "--classes", "5", "--gamma", "0.1",
                      "--delta", "1e-5"], capsys)
    assert rc == 0 and out.startswith(f"PATE analysis: {n_teachers} teachers, {votes.shape[1]} queries")
    np.save(files / "votes_t.npy", votes.T)
    rc, _, err = run(["--votes", str(files / "votes_t.npy"), "--classes", "5", "--teachers", str(n_teachers),
                      "--gamma", "0.1", "--delta", "1e-5"], capsys)
    assert rc == 2 and "'--votes'" in err and "transposed" in err
    counts = np.load(files / "counts.npy")
    np.save(files / "counts_t.npy", counts.T)
    assert len(set(counts.T.sum(axis=1))) > 1
    rc, _, err = run(["--votes", str(files / "counts_t.npy"), "--counts", "--gamma", "0.1", "--delta", "1e-5"],
                     capsys)
    assert rc == 2 and "'--votes'" in err and "transposed" in err


def test_count_totals_and_missing_file(files, capsys):
    bad = np.array([[3, 2], [4, 0]])
    np.save(files / "bad.npy", bad)
    rc, _, err = run(["--votes", str(files / "bad.npy"), "--counts", "--teachers", "5", "--gamma", "0.1",
                      "--delta", "1e-5"], capsys)
    assert rc == 2 and "each sum to n_teachers = 5" in err
    rc, _, err = run(["--votes", str(files / "nope.npy"), "--counts", "--gamma", "0.1", "--delta", "1e-5"],
                     capsys)
    assert rc == 2 and "'--votes'" in err
    np.save(files / "empty.npy", np.zeros((0, 3), dtype=int))
    rc, _, err = run(["--votes", str(files / "empty.npy"), "--classes", "3", "--gamma", "0.1",
                      "--delta", "1e-5"], capsys)
    assert rc == 2 and "'--votes'" in err
