"""Runs on a real Dask LocalCluster (2 worker processes) give the local run's results exactly."""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

from refdp import cli  # noqa: E402
from refdp.distributed import connect  # noqa: E402
from refdp.pate import PATETeachers  # noqa: E402
from refdp.verify import check_mechanism  # noqa: E402

# The laws below are defined in this test module, which the workers cannot
# import: send them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def count_law(d, ctx, eps=1):
    """Randomised response on the count of ones, mod 3, with a geometric-like law (certified, in ctx)."""
    s = sum(d) % 3
    w = [ctx.exp(-eps * abs(s - o)) for o in range(3)]
    total = sum(w)
    return {o: w[o] / total for o in range(3)}


def slow_law(d, ctx):
    time.sleep(0.2)
    return count_law(d, ctx)


DATASETS = [tuple(int(b) for b in f"{i:04b}") for i in range(16)]


def _same(a, b):
    for name in ("verdict", "enclosure", "divergence", "worst_pair", "worst_output", "pairs_checked",
                 "failing_pairs", "undecided_pairs", "method", "max_dps_used", "reason"):
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("epsilon", [2.0, 1.9, Fraction(2)])
def test_check_mechanism_on_the_cluster_equals_the_local_run(client, epsilon):
    local = check_mechanism(count_law, DATASETS, epsilon, domain=(0, 1), ordered=True)
    remote = check_mechanism(count_law, DATASETS, epsilon, domain=(0, 1), ordered=True, client=client)
    _same(local, remote)
    assert remote.pairs_checked > 8      # several shards on two workers


def test_a_worker_killed_mid_run_changes_nothing(client):
    local = check_mechanism(count_law, DATASETS, 1.9, domain=(0, 1), ordered=True)
    out = {}

    def run():
        out["remote"] = check_mechanism(slow_law, DATASETS, 1.9, domain=(0, 1), ordered=True, client=client)

    pids = client.run(os.getpid)
    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.0)
    victim = pids[sorted(pids)[0]]
    os.kill(victim, signal.SIGKILL)   # the nanny restarts it; its tasks are redone
    t.join(timeout=240)
    assert not t.is_alive() and "remote" in out     # finished while a worker was lost
    _same(local, out["remote"])
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()     # the worker really was replaced


class Centroid:
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.centres_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        d = ((np.asarray(X)[:, None, :] - self.centres_[None, :, :]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(d, axis=1)]


def test_teachers_trained_on_the_cluster_vote_as_the_local_ones(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0).astype(int)
    queries = rng.normal(size=(50, 3))
    local = PATETeachers(12, Centroid, rng=5).fit(X, y)
    remote = PATETeachers(12, Centroid, rng=5, client=client).fit(X, y)
    np.testing.assert_array_equal(local.vote_counts(queries), remote.vote_counts(queries))
    np.testing.assert_array_equal(local.assignment_, remote.assignment_)


def test_verify_on_the_cluster_prints_the_local_table(client, capsys):
    rc = cli.main(["verify", "--only", "refdp.core_", "--json", "--jobs", "1"])
    local = json.loads(capsys.readouterr().out)
    rc2 = cli.main(["verify", "--only", "refdp.core_", "--json", "--scheduler", client.scheduler.address])
    remote = json.loads(capsys.readouterr().out)
    assert rc == rc2 == 0
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    assert strip(local["checks"]) == strip(remote["checks"]) and len(local["checks"]) >= 3


def test_bad_schedulers_and_unpicklable_laws():
    with pytest.raises(ValueError, match="'scheduler' parameter of connect must be the address of a Dask "
                                         "scheduler reachable within 1 s"):
        connect("tcp://127.0.0.1:9", timeout=1.0)
    for bad in ("local:0", "local:x", "local:-2", ""):
        with pytest.raises(ValueError, match="'scheduler' parameter of connect"):
            connect(bad)


def test_unpicklable_law_is_refused_before_anything_is_sent(client):
    lock = threading.Lock()

    def law(d, ctx):
        with lock:
            return count_law(d, ctx)

    with pytest.raises(ValueError, match="'distribution_fn' parameter of check_mechanism must be an object "
                                         "that can be pickled"):
        check_mechanism(law, DATASETS, 2.0, domain=(0, 1), ordered=True, client=client)
    with pytest.raises(ValueError, match="'client' parameter of check_mechanism must be None or a "
                                         "distributed.Client"):
        check_mechanism(count_law, DATASETS, 2.0, domain=(0, 1), ordered=True, client="tcp://x")


def test_verify_with_an_unreachable_scheduler_fails_cleanly(capsys):
    rc = cli.main(["verify", "--only", "refdp.core_count", "--scheduler", "local:0"])
    assert rc == 2 and "'scheduler' parameter of refdp verify" in capsys.readouterr().err


def test_nothing_imports_dask_without_being_asked():
    code = ("import sys, refdp, refdp.verify, refdp.pate, refdp.prediction, refdp.audit, refdp.accounting, "
            "refdp.erm, refdp.mechanisms, refdp.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
