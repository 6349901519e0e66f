"""Run callables in threads while another thread keeps changing mpmath's global precision."""
import threading

import mpmath


def run_beside_global_precision_changes(targets):
    """Run each callable of ``targets`` in its own thread, while one more thread flips ``mpmath.mp.dps``.

    The global precision is restored afterwards. Exceptions raised by a target
    are returned (in target order, ``None`` where it returned normally) so the
    calling test can assert on them in the main thread.
    """
    stop = threading.Event()
    errors = [None] * len(targets)

    def disturb():
        while not stop.is_set():
            mpmath.mp.dps = 50 if mpmath.mp.dps != 50 else 15
            mpmath.mp.exp(mpmath.mpf(1) / 3)

    def wrap(i, target):
        try:
            target()
        except BaseException as exc:          # reported in the main thread
            errors[i] = exc

    saved = mpmath.mp.dps
    bg = threading.Thread(target=disturb)
    bg.start()
    try:
        workers = [threading.Thread(target=wrap, args=(i, t)) for i, t in enumerate(targets)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        stop.set()
        bg.join()
        mpmath.mp.dps = saved
    return errors
