"""The ``refdp`` console script: table, JSON, exit status, fail-closed."""
import json
import subprocess
import sys

import mpmath

from refdp import cli
from refdp.verify import registry
from refdp.verify.registry import CheckResult, register
from refdp.verify.verdict import Verdict


def test_verify_json_runs_selected_checks(capsys):
    rc = cli.main(["verify", "--json", "--only", "refdp.core_"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["failed"] == 0 and len(out["checks"]) >= 3
    for row in out["checks"]:
        assert set(row) >= {"check", "claim", "measured", "bound", "verdict", "digits", "seconds"}
        assert row["verdict"] == "holds"


def test_verify_table_has_every_column(capsys):
    rc = cli.main(["verify", "--only", "refdp.core_count_votes"])
    text = capsys.readouterr().out
    assert rc == 0
    for col in ("check", "verdict", "method", "time", "measured <= bound"):
        assert col in text
    assert "claim:" not in text            # details on demand
    rc = cli.main(["verify", "--only", "refdp.core_count_votes", "--detail"])
    text = capsys.readouterr().out
    assert rc == 0 and "claim:" in text and "worst:" in text and "how:" in text


def test_verify_table_fits_the_terminal(capsys, monkeypatch):
    # Rows fit the terminal (claims wrapped; a long name moves the margin to
    # its own line); checks without a numeric margin say n/a instead of 0 <= 0.
    monkeypatch.setenv("COLUMNS", "80")
    rc = cli.main(["verify", "--only", "all_epsilon", "--detail", "--jobs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert rc == 0
    rows = [l for l in lines[2:] if l and not l.startswith(" ") and not l.startswith("-")]
    name_w = max(len(l.split()[0]) for l in rows if l.split()[0].endswith("all_epsilon"))
    for line in lines[1:]:
        assert len(line) <= max(80, name_w + 40), line
    assert any(l.strip() == "n/a" or l.endswith("  n/a") for l in lines)
    assert not any(l.endswith(" 0 <= 0") for l in lines)


def _temporary_check(name, verdict):
    @register(name, "a claim for the CLI test", quick=True)
    def _check():
        return CheckResult(mpmath.mpf(1), mpmath.mpf(1), verdict, 30, "")
    return name


def test_undecided_and_crashing_checks_fail_closed(capsys):
    names = [_temporary_check("zz_cli_test.undecided", Verdict.UNDECIDED)]

    @register("zz_cli_test.crash", "crashes", quick=True)
    def _crash():
        raise RuntimeError("boom")
    names.append("zz_cli_test.crash")
    try:
        rc = cli.main(["verify", "--json", "--only", "zz_cli_test."])
        out = json.loads(capsys.readouterr().out)
        assert rc == 1 and out["failed"] == 2
        verdicts = {r["check"]: r["verdict"] for r in out["checks"]}
        assert verdicts == {"zz_cli_test.undecided": "undecided", "zz_cli_test.crash": "error"}
    finally:
        for n in names:
            registry._REGISTRY.pop(n, None)


def test_console_script_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "refdp.cli", "verify", "--list", "--quick"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "refdp.core_walk_sweep_equals_per_query_walk" in proc.stdout


def test_verify_rows_do_not_depend_on_jobs(capsys):
    """Worker processes give the same report rows as the in-process run (times aside)."""
    reports = []
    for jobs in ("1", "2"):
        rc = cli.main(["verify", "--json", "--only", "refdp.core_", "--jobs", jobs])
        out = json.loads(capsys.readouterr().out)
        assert rc == 0 and out["jobs"] == int(jobs)
        reports.append([{k: v for k, v in r.items() if k != "seconds"} for r in out["checks"]])
    assert reports[0] == reports[1] and len(reports[0]) >= 3


def test_verify_rejects_jobs_below_one(capsys):
    assert cli.main(["verify", "--only", "refdp.core_", "--jobs", "0"]) == 2
    assert "--jobs must be an integer >= 1; got 0" in capsys.readouterr().err


def test_version_and_module_entry_point():
    for cmd in ([sys.executable, "-m", "refdp", "--version"],):
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().startswith("refdp ") and out.stdout.strip() != "refdp "


def test_reader_that_stops_early_gives_no_traceback():
    # `refdp verify --list | head -1`: the reader closes the pipe before the
    # command has written its output. Closing our end before the child writes
    # makes every write fail with EPIPE, the case `head` produces.
    proc = subprocess.Popen([sys.executable, "-m", "refdp", "verify", "--list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == cli.EXIT_BROKEN_PIPE
