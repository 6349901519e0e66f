"""Running refdp's long jobs on a Dask cluster, with results identical to the local run.

Optional: needs the extra ``refdp[distributed]`` (dask and distributed).
Nothing else in refdp imports dask; without the extra every function here
raises an ``ImportError`` saying how to install it, and everything else runs
as before.

What is distributed, and why the results do not depend on the number of
workers:

* :func:`refdp.verify.check_pairs` / :func:`refdp.verify.check_mechanism`
  with ``client=``: the neighbouring pairs are cut into contiguous shards *by
  index*; each shard is decided on a worker exactly as the local loop decides
  it (each pair's verdict and enclosure depend on that pair only), and the
  shards' summaries are combined exactly: the worst verdict, the first pair
  attaining the largest upper end, sums of the counts.
* ``refdp verify --scheduler ADDRESS``: each registered check is one task.
* :class:`refdp.pate.PATETeachers` with ``client=``: teacher ``j`` is trained
  on a worker from its own spawned stream, as locally.

Only small things cross the network: the law or mechanism and its shard of
datasets; the shard's summary (a verdict, an enclosure, a pair, counts) or a
fitted teacher back.

``scheduler`` strings: ``"local:N"`` starts a
:class:`distributed.LocalCluster` with ``N`` single-threaded worker processes
on this machine; anything else is the address of a running scheduler
(``tcp://host:8786``), reached within ``timeout`` seconds or a clear error.
"""
from __future__ import annotations

import sys
import time

from .utils.validation import Described, Interval, check_scalar, parameter_error
from .utils.validation import POSITIVE

__all__ = ["connect", "map_ordered", "check_picklable", "n_workers", "INSTALL_HINT"]

INSTALL_HINT = "pip install 'refdp[distributed]'"


def _require():
    try:
        import distributed  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"running on a Dask cluster needs dask and distributed: {INSTALL_HINT}") from exc
    return distributed


def connect(scheduler, *, timeout=10.0, owner="connect"):
    """A :class:`distributed.Client` for ``scheduler`` (see the module notes); the caller closes it.

    Parameters
    ----------
    scheduler : str
        ``"local:N"`` (``N >= 1`` worker processes on this machine) or a
        scheduler address.
    timeout : float > 0, default 10
        Seconds to wait for the scheduler.

    Returns
    -------
    distributed.Client
        With ``client.refdp_cluster`` set to the :class:`LocalCluster` it
        started (closed with :func:`close`), or None.

    Raises
    ------
    ValueError
        A malformed ``scheduler``, ``N < 1``, or a scheduler that cannot be
        reached within ``timeout`` (nothing is left running).
    """
    distributed = _require()
    timeout = check_scalar(timeout, "timeout", owner, POSITIVE)
    if not isinstance(scheduler, str) or not scheduler:
        raise parameter_error("scheduler", owner, "'local:N' or a scheduler address such as "
                              "'tcp://host:8786'", scheduler)
    if scheduler.startswith("local:"):
        text = scheduler[len("local:"):]
        try:
            n = int(text)
        except ValueError:
            n = None
        if n is None or n < 1 or str(n) != text.strip():
            raise parameter_error("scheduler", owner, "'local:N' with N an int >= 1 (worker processes)",
                                  scheduler)
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=40)
        client = distributed.Client(cluster)
        client.refdp_cluster = cluster
        return client
    try:
        client = distributed.Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise parameter_error("scheduler", owner, f"the address of a Dask scheduler reachable within "
                              f"{timeout:g} s", Described(f"{scheduler!r} ({type(exc).__name__}: {exc})")) from None
    client.refdp_cluster = None
    return client


def close(client):
    """Close ``client`` and the local cluster :func:`connect` started for it, if any."""
    cluster = getattr(client, "refdp_cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def n_workers(client) -> int:
    """Number of workers the scheduler knows now (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


def check_picklable(obj, name, owner):
    """Raise the standard ValueError if ``obj`` cannot be sent to the workers.

    Dask pickles tasks with cloudpickle (functions defined in ``__main__``
    and lambdas travel); what does not pickle at all (an open file, a lock, a
    generator object) is refused here with a fix, before anything is sent.
    """
    try:
        import cloudpickle
        cloudpickle.dumps(obj)
    except Exception as exc:  # noqa: BLE001 - any pickling failure is reported the same way
        raise parameter_error(name, owner, "an object that can be pickled for the workers (define it at "
                              "module level in an importable module, and keep open files, locks and "
                              "generators out of it)", Described(f"{obj!r} ({type(exc).__name__}: {exc})")) from None
    return obj


def map_ordered(client, func, items, *, label="tasks", progress=True, retries=2, amounts=None, unit=None):
    """``[func(item) for item in items]`` on the cluster, results in the order of ``items``.

    Each item is one task. A worker lost mid-run has its tasks rescheduled
    by the scheduler; ``retries`` more attempts are allowed for a task whose
    function raised on a worker that then died. With ``progress`` a line
    ``label: done/total, rate/s`` is written to standard error as tasks
    finish (at most about once a second); with ``amounts`` (one number per
    item, e.g. the outputs a task draws) and ``unit`` the line also gives
    the amount done and its rate (``unit/s``).
    """
    _require()
    from distributed import as_completed

    items = list(items)
    # one graph: ``func`` is pickled once for all the tasks, not once per task
    futures = client.map(func, items, pure=False, retries=retries) if items else []
    index = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(items)
    t0 = last = time.perf_counter()
    done = amount = 0
    try:
        for fut in as_completed(futures):
            i = index[fut.key]
            results[i] = fut.result()
            done += 1
            amount += amounts[i] if amounts is not None else 0
            now = time.perf_counter()
            if progress and (now - last >= 1.0 or done == len(items)):
                elapsed = max(now - t0, 1e-9)
                text = f"{label}: {done}/{len(items)} done, {done / elapsed:.3g}/s"
                if amounts is not None:
                    text += f", {amount} {unit}, {amount / elapsed:.3g} {unit}/s"
                print(f"\r{text}", end="", file=sys.stderr, flush=True)
                last = now
    finally:
        for f in futures:
            f.release()
    if progress and items:
        print(file=sys.stderr, flush=True)
    return results


def is_client(obj) -> bool:
    """True if ``obj`` is a :class:`distributed.Client` (without importing dask when it is not)."""
    return type(obj).__module__.startswith("distributed") and hasattr(obj, "submit")


def check_client(client, owner):
    """``None`` or a :class:`distributed.Client`."""
    if client is not None and not is_client(client):
        raise parameter_error("client", owner, "None or a distributed.Client (see refdp.distributed.connect)",
                              client)
    return client
