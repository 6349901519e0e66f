"""``refdp audit``: audit a mechanism named on the command line.

The mechanism is called as ``mechanism(dataset, n_samples, rng)`` and returns
``n_samples`` outputs (``--per-call``: ``mechanism(dataset, rng)`` returns one).

Usage::

    refdp audit module:callable --claimed-epsilon E [--claimed-delta D]
                [--pair JSON ... | --search-pairs DIM [--patterns NAME ...]
                 [--screen-samples N]] [--samples N] [--confidence 0.95] [--seed S]
                [--delta-at-epsilon E2] [--tolerance T] [--holdout-pairs K]
                [--float-bits] [--per-call] [--exact] [--orders A ...]
                [--max-selection N] [--holdout-test binomial|conditional|auto] [--pool-pairs K]
                [--scheduler ADDRESS | local:N] [--json] [--quiet | --progress]

**The target.** ``module:callable`` is imported (``module`` may also be a path
to a ``.py`` file; ``callable`` may be dotted, e.g. ``mod:Class.method``). By
default it is a black-box mechanism in batch form, ``(dataset, n_samples,
rng) -> n_samples outputs``; with ``--per-call`` (or an attribute
``audit_per_call = True`` on the callable) it is ``(dataset, rng) -> output``
and is vectorised; with ``--exact`` (or ``audit_distribution = True``) it is
an output distribution ``dataset -> probabilities`` and the exact audit runs.

**Pairs.** Each ``--pair`` is a JSON array of two datasets, optionally with a
label: ``--pair '[[0,0,0,0,0], [1,1,1,1,1]]'`` or
``--pair '[0, 1, "bit 0 vs bit 1"]'``. For the black-box audit a JSON array
of numbers becomes a NumPy float array, other JSON values are passed as they
are; for the exact audit arrays become tuples. Without ``--pair`` the
callable's attribute ``audit_pairs`` is used: an iterable of pairs, or a
function of no argument returning one. With ``--search-pairs DIM`` no pair
is needed: inputs of length ``DIM`` are generated from StatDP's patterns
(``--patterns`` picks some by name) and a local search, screened, and the
best audited on fresh outputs (:func:`refdp.audit.search_pairs`).

**(epsilon, delta) claims.** With ``--claimed-delta D > 0`` the black-box
audit also bounds from below the delta the mechanism needs at the claimed
epsilon (hockey-stick events); a bound above ``D`` is a violation. The
epsilon bound (at delta ``D``) is reported too; the confidence covers both.

**On a Dask cluster.** ``--scheduler ADDRESS`` (a running scheduler,
``tcp://host:8786``) or ``--scheduler local:N`` (``N`` worker processes
started here) draws the held-out outputs on the cluster, one task per shard
of outputs; the bound is the one the local run prints for the same
``--seed``. Needs ``refdp[distributed]``; the target's module must be
importable on the workers (a target given as a ``.py`` path is sent by
value).

**Exit status.** 0: no violation found (black box: the lower bound does not
exceed the claim; exact: the claim holds); 1: violation (exact: the claim
fails or cannot be decided, which counts as failing); 2: the command could not
run (bad target, bad JSON, bad parameter; the message says which).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys

import numpy as np

__all__ = ["add_arguments", "run", "DESCRIPTION"]

#: The text of ``refdp audit --help`` above the options.
DESCRIPTION = """\
Black-box audit of a mechanism: a lower bound on its epsilon (and delta) at a
stated confidence, from its outputs on neighbouring datasets.

The target module:callable is called as

    mechanism(dataset, n_samples, rng) -> n_samples outputs

(an array whose first dimension is n_samples, or a sequence); with --per-call
as mechanism(dataset, rng) -> one output; with --exact as
distribution(dataset) -> probabilities. module may be a path to a .py file
(its folder is put on the import path).

Each --pair is a JSON array [D, D'] or [D, D', "label"]. A JSON array of
numbers becomes a NumPy float64 array; other JSON values (strings, nested
mixed lists) are passed as they are; with --exact arrays become tuples.

Exit status: 0 no violation found, 1 violation, 2 the command could not run.
"""

#: Fewer outputs per dataset than this rarely give a bound worth reading.
MEANINGFUL_SAMPLES = 100_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Fill an argparse parser with the options of ``refdp audit``."""
    parser.add_argument("target", metavar="module:callable",
                        help="the mechanism (or, with --exact, its output distribution)")
    parser.add_argument("--claimed-epsilon", type=float, required=True, metavar="E",
                        help="the epsilon the mechanism claims")
    parser.add_argument("--claimed-delta", type=float, default=0.0, metavar="D",
                        help="the delta it claims (default 0)")
    parser.add_argument("--pair", action="append", default=None, metavar="JSON",
                        help="a pair of neighbouring datasets as a JSON array [D, D'] or [D, D', label]; "
                             "repeat for more pairs (default: the callable's audit_pairs)")
    parser.add_argument("--search-pairs", type=int, default=None, metavar="DIM",
                        help="search neighbouring inputs of length DIM (StatDP's patterns and a local "
                             "search) instead of --pair")
    parser.add_argument("--patterns", nargs="+", default=None, metavar="NAME",
                        help="with --search-pairs: the patterns to start from (default all)")
    parser.add_argument("--screen-samples", type=int, default=100_000, metavar="N",
                        help="with --search-pairs: outputs per dataset to screen each pair (default 100000)")
    parser.add_argument("--samples", type=int, default=1_000_000, metavar="N",
                        help="most outputs drawn per dataset and pair (default 1000000)")
    parser.add_argument("--confidence", type=float, default=0.95, metavar="C",
                        help="confidence of the reported bounds (default 0.95)")
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="seed of the random generator")
    parser.add_argument("--delta-at-epsilon", type=float, default=None, metavar="E2",
                        help="also bound delta from below at this epsilon")
    parser.add_argument("--tolerance", type=float, default=0.01, metavar="T",
                        help="stop the event selection when a doubling of its samples improves the "
                             "projected bound by at most T times the bound (0: half the budget)")
    parser.add_argument("--holdout-pairs", type=int, default=1, metavar="K",
                        help="pairs given held-out bounds (Bonferroni over these; default 1)")
    parser.add_argument("--float-bits", action="store_true",
                        help="also search events on the last mantissa bits of float outputs")
    parser.add_argument("--per-call", action="store_true",
                        help="the callable is (dataset, rng) -> one output")
    parser.add_argument("--exact", action="store_true",
                        help="the callable returns the output distribution; compute exact divergences")
    parser.add_argument("--orders", type=float, nargs="*", default=(), metavar="A",
                        help="Renyi orders to report (exact audit)")
    parser.add_argument("--max-selection", type=int, default=None, metavar="N",
                        help="most outputs per dataset for the event selection (default --samples / 2); "
                             "the held-out bound gets the rest")
    parser.add_argument("--holdout-test", choices=("binomial", "conditional", "auto"), default="binomial",
                        help="the held-out test of the epsilon bound: two Clopper-Pearson bounds (binomial), "
                             "the conditional test on Poisson-sized samples, or the better projected per "
                             "event (auto)")
    parser.add_argument("--pool-pairs", type=int, default=1, metavar="K",
                        help="pool the events of up to K pairs (best projected first) into one conditional "
                             "test on their summed counts (with --holdout-test conditional or auto; default 1: "
                             "no pooling)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="draw the held-out outputs on a Dask cluster: a scheduler address "
                             "(tcp://host:8786) or local:N for N worker processes here; needs "
                             "refdp[distributed]. The bound is the local run's for the same --seed")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    noise.add_argument("--progress", action="store_true", help="progress lines on stderr from the start")


class _Usage(Exception):
    pass


def _resolve(target: str):
    if ":" not in target:
        raise _Usage(f"the target must read module:callable, got {target!r}")
    mod_name, _, attr = target.rpartition(":")
    if not mod_name or not attr:
        raise _Usage(f"the target must read module:callable, got {target!r}")
    try:
        if mod_name.endswith(".py") or os.sep in mod_name:
            path = os.path.abspath(mod_name)
            name = os.path.splitext(os.path.basename(path))[0]
            folder = os.path.dirname(path)
            if folder not in sys.path:      # so that the file can import its neighbours
                sys.path.insert(0, folder)
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_name)
    except Exception as exc:
        raise _Usage(f"cannot import {mod_name!r}: {type(exc).__name__}: {exc}") from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise _Usage(f"{mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise _Usage(f"{target!r} is not callable")
    return obj


def _dataset(value, exact):
    if exact:
        return value
    if isinstance(value, list):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            return value
        if arr.dtype.kind in "biuf":
            return arr.astype(np.float64)
    return value


def _pairs(args, target, exact):
    if args.pair:
        out = []
        for text in args.pair:
            try:
                item = json.loads(text)
            except json.JSONDecodeError as exc:
                raise _Usage(f"--pair {text!r} is not JSON: {exc}") from None
            if not isinstance(item, list) or len(item) not in (2, 3) or (len(item) == 3 and
                                                                      not isinstance(item[2], str)):
                raise _Usage(f"--pair {text!r} must be a JSON array [D, D'] or [D, D', \"label\"]")
            pair = [_dataset(item[0], exact), _dataset(item[1], exact)]
            out.append(tuple(pair + item[2:]))
        return out
    pairs = getattr(target, "audit_pairs", None)
    if pairs is None:
        raise _Usage("no pair: give --pair or define an attribute audit_pairs on the callable")
    if callable(pairs):
        pairs = pairs()
    return pairs


def run(args) -> int:
    """Run ``refdp audit`` with parsed arguments; returns the exit status."""
    from . import audit_black_box, audit_exact, search_pairs, vectorise

    client = None
    try:
        target = _resolve(args.target)
        exact = bool(args.exact or getattr(target, "audit_distribution", False))
        search = args.search_pairs is not None
        if search and (exact or args.pair):
            raise _Usage("--search-pairs cannot be combined with --pair or --exact")
        if exact and args.scheduler:
            raise _Usage("--scheduler draws outputs on a cluster; the exact audit (--exact) draws none")
        pairs = None if search else _pairs(args, target, exact)
        if not exact and 0 < args.samples < MEANINGFUL_SAMPLES and not args.quiet:
            print(f"refdp audit: warning: --samples {args.samples} is below {MEANINGFUL_SAMPLES}; the bound "
                  "will be weak (a lower bound from few outputs says little)", file=sys.stderr)
        if exact:
            result = audit_exact(target, args.claimed_epsilon, claimed_delta=args.claimed_delta,
                                 pairs=pairs, orders=list(args.orders or ()))
        else:
            mech = vectorise(target) if (args.per_call or getattr(target, "audit_per_call", False)) else target
            progress = False if args.quiet else (True if args.progress else None)
            if args.scheduler:
                from ..distributed import connect

                try:
                    client = connect(args.scheduler, owner="refdp audit")
                except ImportError as exc:
                    raise _Usage(str(exc)) from None
            delta_at = args.delta_at_epsilon
            if delta_at is None and args.claimed_delta > 0:
                delta_at = args.claimed_epsilon  # audit the (epsilon, delta) claim through delta too
            if search:
                result = search_pairs(mech, args.search_pairs, args.claimed_epsilon, patterns=args.patterns,
                                      screen_samples=args.screen_samples, claimed_delta=args.claimed_delta,
                                      delta_at_epsilon=delta_at, confidence=args.confidence,
                                      n_samples=args.samples, tolerance=args.tolerance,
                                      holdout_pairs=args.holdout_pairs, float_bits=args.float_bits,
                                      rng=args.seed, progress=progress, client=client,
                                      max_selection=args.max_selection, holdout_test=args.holdout_test,
                                      pool_pairs=args.pool_pairs)
            else:
                result = audit_black_box(mech, pairs, args.claimed_epsilon, claimed_delta=args.claimed_delta,
                                         delta_at_epsilon=delta_at, confidence=args.confidence,
                                         n_samples=args.samples, tolerance=args.tolerance,
                                         holdout_pairs=args.holdout_pairs, float_bits=args.float_bits,
                                         rng=args.seed, progress=progress, client=client,
                                         max_selection=args.max_selection,
                                         holdout_test=args.holdout_test, pool_pairs=args.pool_pairs)
    except _Usage as exc:
        print(f"refdp audit: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        hint = ""
        if (not args.per_call and "vectorise" in str(exc)):
            hint = "\nrefdp audit: hint: a mechanism (dataset, rng) -> one output needs --per-call"
        print(f"refdp audit: {exc}{hint}", file=sys.stderr)
        return 2
    except TypeError as exc:
        if args.per_call or exact:
            raise
        print(f"refdp audit: calling {args.target}(dataset, n_samples, rng) failed: {exc}\n"
              "refdp audit: hint: a mechanism (dataset, rng) -> one output needs --per-call", file=sys.stderr)
        return 2
    finally:
        if client is not None:
            from ..distributed import close

            close(client)
    if args.json:
        out = result.as_dict()
        out["mode"] = "exact" if exact else ("pair search" if search else "black-box")
        out["target"] = args.target
        json.dump(out, sys.stdout, indent=2, default=_json_default)
        print()
    else:
        print(result.summary())
    return 1 if result.violation else 0


def _json_default(value):
    """Arrays as JSON arrays (not their string form), NumPy scalars as numbers, the rest as text."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return list(value)
    return str(value)


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m refdp.audit.cli``)."""
    parser = argparse.ArgumentParser(prog="refdp audit", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
