"""The examples of docs/erm.rst run and say what the page says."""
import os

import numpy as np

from tests._support.paths import DOCS
from tests._support.rst import python_blocks


def test_erm_page_examples_run():
    blocks = python_blocks(os.path.join(DOCS, "erm.rst"))
    assert len(blocks) == 3
    ns = {"__name__": "erm_example"}
    for code in blocks:
        exec(compile(code, "erm.rst", "exec"), ns)
    release = ns["release"]
    assert release.method == "output" and release.epsilon == 1.0 and release.norm_bound == 3.0
    assert ns["accuracy"] > 0.9                       # fixed seeds: deterministic
    assert ns["svm"].result_.method == "objective"
    assert ns["features"].transform(ns["X"]).shape == (4000, 100)
    assert ns["lam"] in (1e-4, 1e-3, 1e-2) and ns["chosen"].result_.n == 1000
    assert not hasattr(ns["clf"], "minimiser_") and set(vars(release)) >= {"theta", "noise_rate"}
    assert np.isfinite(ns["clf"].coef_).all()
