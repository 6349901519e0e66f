"""The Sphinx documentation builds without a single warning, and its examples run."""
import os
import subprocess
import sys

from tests._support.paths import DOCS
from tests._support.rst import python_blocks


def test_sphinx_build_is_warning_free(tmp_path):
    # -W turns every warning (broken reference, bad docstring section, page
    # missing from a toctree, ...) into an error; --keep-going reports all of them.
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
           DOCS, str(tmp_path / "html")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    output = proc.stdout[-20000:] + "\n" + proc.stderr[-20000:]
    assert proc.returncode == 0, "sphinx-build failed:\n" + output
    assert (tmp_path / "html" / "index.html").is_file()


def test_quickstart_examples_run(capsys):
    blocks = python_blocks(os.path.join(DOCS, "quickstart.rst"))
    assert len(blocks) == 3
    namespaces = []
    for code in blocks:
        ns = {"__name__": "quickstart_example"}
        exec(compile(code, "quickstart.rst", "exec"), ns)
        namespaces.append(ns)
    printed = capsys.readouterr().out

    # PATE example: the data-dependent epsilon the page quotes ("about 0.47
    # and 0.33"), and both are below the data-independent cost it quotes (5.3).
    guarantee = namespaces[0]["guarantee"]
    assert round(guarantee.epsilon_tail, 2) == 0.47
    assert round(guarantee.epsilon_rdp, 2) == 0.33
    from refdp.accounting import DEFAULT_ORDERS, moments_to_dp, pate_data_independent_log_moments
    independent = moments_to_dp(pate_data_independent_log_moments(0.05, DEFAULT_ORDERS, 100),
                                DEFAULT_ORDERS, delta=1e-5)
    assert round(independent.epsilon_tail, 1) == 5.3 and round(independent.epsilon_rdp, 1) == 4.7
    assert guarantee.epsilon_tail < independent.epsilon_tail

    # Walk example: the printed log-odds, worked by hand from the page's data
    # (s = 0.5; query 0.15 sees one 0-label, 0.2 sees labels 0, 0, 1, and 1.0
    # sees 0, 0, 1, 1, 1; B = ln 19 is never reached).
    assert namespaces[1]["log_odds"].tolist() == [-0.5, -0.5, 0.5]

    # Validation example: the message quoted on the page.
    assert ("The 'gamma' parameter of lemma4_log_q must be a float in the range "
            "(0, inf). Got -1.0 instead.") in printed
