"""The black-box audit and the two-phase sweep on a real 2-worker Dask LocalCluster equal the local runs."""
import json
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

from refdp import cli  # noqa: E402
from refdp.audit import audit_black_box, audit_delta  # noqa: E402
from refdp.audit.blackbox import held_out_shards, shard_generator  # noqa: E402
from refdp.verify import check_mechanism  # noqa: E402

# the mechanisms below live in this test module, which the workers cannot import
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def leaky_rr(bit, n, rng):
    """Randomised response that reports the bit with probability 0.9 (true epsilon ln 9), claimed ln 3."""
    return np.where(rng.random(n) < 0.9, bit, 1 - bit)


def slow_leaky_rr(bit, n, rng):
    time.sleep(0.1)
    return leaky_rr(bit, n, rng)


def noisy_max_value(answers, n, rng):
    return (np.asarray(answers) + rng.laplace(0.0, 2.0, size=(n, len(answers)))).max(axis=1)


PAIRS = [(0, 1, "bit 0 vs bit 1"), (1, 0, "reversed")]
OPTIONS = dict(n_samples=60_000, initial_samples=4_000, shard_size=5_000, rng=7, progress=False)


def _same_audit(a, b):
    for name in ("epsilon_lower", "violation", "pair_label", "event", "counts", "p_lower", "p_upper",
                 "reversed", "delta_lower", "delta_detail", "tests", "beta", "samples"):
        assert getattr(a, name) == getattr(b, name), name
    assert [p.held_out for p in a.pairs] == [p.held_out for p in b.pairs]
    assert [p.selection_samples for p in a.pairs] == [p.selection_samples for p in b.pairs]


def test_audit_on_the_cluster_equals_the_local_run(client):
    local = audit_black_box(leaky_rr, PAIRS, np.log(3), holdout_pairs=2, **OPTIONS)
    remote = audit_black_box(leaky_rr, PAIRS, np.log(3), holdout_pairs=2, client=client, **OPTIONS)
    _same_audit(local, remote)
    # several shards per side of both held-out pairs, so the two workers shared them
    n_hold = {p.index: 60_000 - p.selection_samples for p in local.pairs}
    assert len(held_out_shards([0, 1], n_hold, 5_000)) >= 8
    assert local.violation and local.epsilon_lower > np.log(3)


def test_conditional_test_on_the_cluster_equals_the_local_run(client):
    # Poisson held-out sizes come from their own stream under the same root: the same on the cluster
    local = audit_black_box(leaky_rr, PAIRS, np.log(3), holdout_pairs=2, holdout_test="auto", **OPTIONS)
    remote = audit_black_box(leaky_rr, PAIRS, np.log(3), holdout_pairs=2, holdout_test="auto", client=client,
                             **OPTIONS)
    _same_audit(local, remote)
    assert local.holdout_test == remote.holdout_test == "conditional"
    assert local.counts[1] != local.counts[3]                  # two Poisson sizes


def test_pooled_test_on_the_cluster_equals_the_local_run(client):
    # the pool's events are counted on each of its pairs' shards: the same counts on the cluster
    local = audit_black_box(leaky_rr, PAIRS, np.log(3), holdout_test="auto", pool_pairs=2, **OPTIONS)
    remote = audit_black_box(leaky_rr, PAIRS, np.log(3), holdout_test="auto", pool_pairs=2, client=client,
                             **OPTIONS)
    _same_audit(local, remote)
    assert local.pooled == remote.pooled and len(local.pooled) == 2


def test_audit_delta_and_vector_outputs_on_the_cluster_equal_the_local_run(client):
    pairs = [(np.zeros(3), np.ones(3))]
    opts = dict(OPTIONS, n_samples=40_000)
    _same_audit(audit_delta(noisy_max_value, pairs, 0.5, 0.01, **opts),
                audit_delta(noisy_max_value, pairs, 0.5, 0.01, client=client, **opts))


def test_a_worker_killed_mid_audit_changes_nothing(client):
    local = audit_black_box(leaky_rr, PAIRS[:1], np.log(3), **OPTIONS)
    out = {}

    def run():
        out["remote"] = audit_black_box(slow_leaky_rr, PAIRS[:1], np.log(3), client=client, **OPTIONS)

    pids = client.run(os.getpid)
    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 60
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.02)  # the selection runs here; the cluster gets tasks only for the held-out shards
    assert any(client.processing().values()), "no held-out shard reached the cluster"
    os.kill(pids[sorted(pids)[0]], signal.SIGKILL)   # the nanny restarts it; its shards are redone
    t.join(timeout=120)
    assert not t.is_alive()
    _same_audit(local, out["remote"])
    client.wait_for_workers(2, timeout=60)
    assert set(client.run(os.getpid).values()) != set(pids.values())   # one worker was replaced


def test_shard_streams_depend_on_the_key_only():
    kind = np.random.PCG64
    a = shard_generator(kind, (1, 2, 3, 4), (0, 1, 2)).random(4)
    assert np.array_equal(a, shard_generator(kind, (1, 2, 3, 4), (0, 1, 2)).random(4))
    for other in ((0, 1, 3), (1, 1, 2), (0, 0, 2)):
        assert not np.array_equal(a, shard_generator(kind, (1, 2, 3, 4), other).random(4))
    assert not np.array_equal(a, shard_generator(kind, (1, 2, 3, 5), (0, 1, 2)).random(4))
    # the shards cover each side's held-out outputs exactly once, in a fixed order
    items = held_out_shards([0, 3], {0: 12, 3: 5}, 5)
    assert items == [(0, 0, 0, 5), (0, 0, 1, 5), (0, 0, 2, 2), (0, 1, 0, 5), (0, 1, 1, 5), (0, 1, 2, 2),
                     (3, 0, 0, 5), (3, 1, 0, 5)]


def test_audit_cli_on_the_cluster_prints_the_local_json(client, capsys, tmp_path):
    target = tmp_path / "rr_target.py"
    target.write_text("import numpy as np\n\n"
                      "def rr(bit, n, rng):\n"
                      "    return np.where(rng.random(n) < 0.9, bit, 1 - bit)\n")
    base = ["audit", f"{target}:rr", "--claimed-epsilon", "1.0986", "--pair", "[0, 1]", "--samples",
            "100000", "--seed", "3", "--json", "--quiet"]
    assert cli.main(base) == 1
    local = json.loads(capsys.readouterr().out)
    assert cli.main(base + ["--scheduler", client.scheduler.address]) == 1
    remote = json.loads(capsys.readouterr().out)
    local.pop("seconds"), remote.pop("seconds")
    assert local == remote


def test_bad_clients_and_mechanisms_are_refused(client):
    with pytest.raises(ValueError, match=r"client.*audit_black_box.*distributed\.Client"):
        audit_black_box(leaky_rr, PAIRS, 1.0, client="tcp://nowhere:1", **OPTIONS)
    lock = threading.Lock()

    def locked(bit, n, rng, _lock=lock):
        return leaky_rr(bit, n, rng)
    with pytest.raises(ValueError, match=r"mechanism.*pickled for the workers"):
        audit_black_box(locked, PAIRS, 1.0, client=client, **OPTIONS)
    # sample counts are capped at 2**53 (exact in floating point)
    with pytest.raises(ValueError, match=r"shard_size.*\[1, 9007199254740992\]\. Got 0"):
        audit_black_box(leaky_rr, PAIRS, 1.0, **dict(OPTIONS, shard_size=0))
    assert cli.main(["audit", "x:y", "--exact", "--claimed-epsilon", "1", "--scheduler", "local:2"]) == 2


def counting_law(d, ctx, folder=None):
    """Randomised response on the count of ones mod 3; each evaluation leaves a file in ``folder``."""
    import uuid

    with open(os.path.join(folder, f"{''.join(map(str, d))}.{uuid.uuid4().hex}"), "w"):
        pass
    s = sum(d) % 3
    w = [ctx.exp(-abs(s - o)) for o in range(3)]
    total = sum(w)
    return {o: w[o] / total for o in range(3)}


def test_two_phase_sweep_evaluates_each_law_once_and_equals_the_local_run(client, tmp_path):
    import functools

    datasets = [tuple(int(b) for b in f"{i:05b}") for i in range(32)]
    local_dir, remote_dir = tmp_path / "local", tmp_path / "remote"
    local_dir.mkdir(), remote_dir.mkdir()
    local = check_mechanism(functools.partial(counting_law, folder=str(local_dir)), datasets, 2.5,
                            domain=(0, 1), ordered=True)
    remote = check_mechanism(functools.partial(counting_law, folder=str(remote_dir)), datasets, 2.5,
                             domain=(0, 1), ordered=True, client=client)
    for name in ("verdict", "enclosure", "divergence", "worst_pair", "worst_output", "pairs_checked",
                 "failing_pairs", "undecided_pairs", "method", "max_dps_used", "reason"):
        assert getattr(local, name) == getattr(remote, name), name
    evaluated = sorted(f.split(".")[0] for f in os.listdir(remote_dir))
    # once per dataset on the whole cluster, as in the local run (the sweep holds at the first precision)
    assert evaluated == sorted(f.split(".")[0] for f in os.listdir(local_dir))
    assert len(evaluated) == len(datasets) == len(set(evaluated))
    assert remote.pairs_checked == 80 and remote.max_dps_used == 30 and bool(remote)


def test_max_selection_caps_the_selection_and_leaves_the_rest_to_the_held_out_bound():
    capped = audit_black_box(leaky_rr, PAIRS[:1], np.log(3), **dict(OPTIONS, max_selection=8_000))
    assert capped.pairs[0].selection_samples == 8_000
    assert capped.counts[1] == capped.counts[3] == 60_000 - 8_000
    assert capped.violation            # a weaker selection still finds the leak
    with pytest.raises(ValueError, match=r"max_selection.*None or an int in the range \[2, 9007199254740992\]\. Got 1"):
        audit_black_box(leaky_rr, PAIRS, 1.0, **dict(OPTIONS, max_selection=1))


def test_audit_cli_with_a_bad_scheduler_fails_cleanly(capsys, tmp_path):
    target = tmp_path / "rr_target2.py"
    target.write_text("import numpy as np\n\n"
                      "def rr(bit, n, rng):\n"
                      "    return np.where(rng.random(n) < 0.9, bit, 1 - bit)\n")
    code = cli.main(["audit", f"{target}:rr", "--claimed-epsilon", "1.0986", "--pair", "[0, 1]",
                     "--samples", "100000", "--seed", "3", "--quiet", "--scheduler", "local:0"])
    assert code == 2     # an unreachable address takes connect's timeout: tested in test_distributed.py
    err = capsys.readouterr().err
    assert "'scheduler' parameter of refdp audit" in err and "N an int >= 1" in err
