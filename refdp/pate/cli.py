"""``refdp pate``: the privacy analyses of a file of teacher votes.

Usage::

    refdp pate --votes FILE.npy --gamma 0.05 --delta 1e-5 --classes 10 [--orders ...]
               [--exact] [--one-sided] [--teachers T] [--exact-delta EPS]
               [--noise {discrete,continuous}] [--json]
    refdp pate --votes FILE.npy --counts --gamma 0.05 --delta 1e-5 [...]

The file (NumPy ``.npy``) holds either

* a (teachers x queries) array of labels in ``[0, C)`` -- the default; the
  number of classes must be given with ``--classes C`` (it is never inferred
  from the labels, which are sensitive), or
* a (queries x classes) array of vote counts, when ``--counts`` is given.

A 2-D array cannot be told apart by its shape alone (250 x 100 may be either),
hence the explicit flag. ``--teachers T`` declares the number of teachers:
count rows must then each sum to T (labels: the array must have T rows).

Printed for each analysis (data-independent, Theorem 3 with Lemma 4, and with
``--exact`` Theorem 3 with the exact q and the exact worst-case log-moments,
for the noise law of ``--noise``):
epsilon by the tail bound and by the Rényi conversion, with the order
attaining each; PATE's closed form; and the smooth sensitivity of the
Theorem 3 log-moment at ``--ss-order`` with the scale of the Laplace noise
that releases it at (``--ss-epsilon``, ``--ss-delta``). The data-dependent
values printed are themselves sensitive: only the noisy release
(:func:`refdp.pate.release_epsilon`) may be published.

``--noise discrete`` (the default) analyses answers of
``refdp.pate.lnmax_labels`` with its default ``secure=True`` (exact discrete
Laplace noise; docs/theory/pate_discrete.rst); ``--noise continuous`` the
textbook ``secure=False`` answers.

The lead wires :func:`add_arguments` and :func:`run` as the subcommand ``pate``.
"""
from __future__ import annotations

import json
import math
import sys

import numpy as np

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    """Fill an :class:`argparse.ArgumentParser` with the options of ``refdp pate``."""
    parser.add_argument("--votes", required=True, metavar="FILE.npy",
                        help="(teachers x queries) labels, or (queries x classes) counts with --counts")
    parser.add_argument("--counts", action="store_true",
                        help="the file holds a (queries x classes) array of vote counts")
    parser.add_argument("--classes", type=int, metavar="C",
                        help="number of classes (required for a label array)")
    parser.add_argument("--teachers", type=int, metavar="T", help="declared number of teachers")
    parser.add_argument("--gamma", type=float, required=True, help="LNMax inverse Laplace scale")
    parser.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    parser.add_argument("--orders", type=float, nargs="+", metavar="LAMBDA",
                        help="moment orders (default: refdp.accounting.DEFAULT_ORDERS)")
    parser.add_argument("--exact", action="store_true",
                        help="add the analyses from the exact LNMax law")
    parser.add_argument("--one-sided", action="store_true",
                        help="the paper's one-sided data-dependent bound (default: two-sided)")
    parser.add_argument("--ss-order", type=float, default=8.0, metavar="LAMBDA",
                        help="moment order of the smooth-sensitivity release (fixed in advance; default 8)")
    parser.add_argument("--ss-epsilon", type=float, default=1.0,
                        help="epsilon of the smooth-sensitivity release (default 1)")
    parser.add_argument("--ss-delta", type=float, default=1e-6,
                        help="delta of the smooth-sensitivity release (default 1e-6)")
    parser.add_argument("--exact-delta", type=float, metavar="EPS",
                        help="also print the exact data-dependent delta(EPS) of the LNMax answers "
                             "(refdp.pate.exact_delta: every combination of neighbour moves for a few "
                             "queries, dominating pairs beyond 4096 combinations)")
    parser.add_argument("--noise", choices=("discrete", "continuous"), default="discrete",
                        help="noise law of the answers: 'discrete' for refdp.pate.lnmax_labels with its "
                             "default secure=True (default), 'continuous' for the textbook secure=False")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def _load(args):
    """The (queries x classes) counts of ``--votes``; errors name the command line's options."""
    from ..utils.validation import Described, parameter_error
    from ..utils.votes import check_counts, counts_from_votes

    owner = "refdp pate"
    try:
        arr = np.load(args.votes, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise parameter_error("--votes", owner, "a readable .npy file", args.votes) from None
    if args.counts:
        if args.classes is not None and (arr.ndim != 2 or arr.shape[1] != args.classes):
            raise parameter_error("--votes", owner, f"a count array of shape (queries, {args.classes}) "
                                  "(--classes)", arr)
        counts = check_counts(arr, owner, n_teachers=args.teachers, name="--votes")
        totals = counts.sum(axis=1)
        if np.any(totals != totals[0]):
            # Every teacher votes at every query, so each row of counts sums to
            # the number of teachers; rows that disagree are usually a
            # transposed (classes x queries) array.
            i = int(np.flatnonzero(totals != totals[0])[0])
            raise parameter_error("--votes", owner, "a (queries x classes) count array whose rows each sum "
                                  "to the number of teachers (is the array transposed?)",
                                  Described(f"row 0 summing to {int(totals[0])} and row {i} to "
                                            f"{int(totals[i])}"))
        return counts
    if args.classes is None:
        raise parameter_error("--classes", owner, "given for a label array (an int >= 1), "
                              "or --counts for a count array", None)
    if args.teachers is not None and (arr.ndim != 2 or arr.shape[0] != args.teachers):
        raise parameter_error("--votes", owner, f"a (teachers x queries) label array with {args.teachers} "
                              "rows, one per teacher (--teachers; is the array transposed?)", arr)
    return counts_from_votes(arr, args.classes, owner, name="--votes")


def _check_options(args):
    """Validate the numeric options up front, so that an error names the option the user typed.

    The constraints are the library's own (those of :func:`refdp.pate.pate_analysis`
    and :func:`refdp.pate.smooth_laplace_parameters`), checked here under the
    options' names.
    """
    from ..utils.validation import Interval, check_scalar
    from ._args import DELTA, GAMMA, POSITIVE

    owner = "refdp pate"
    check_scalar(args.gamma, "--gamma", owner, GAMMA)
    check_scalar(args.delta, "--delta", owner, DELTA)
    for name in ("classes", "teachers"):
        if getattr(args, name) is not None:
            check_scalar(getattr(args, name), f"--{name}", owner, Interval(int, 1, None))
    for order in args.orders or ():
        check_scalar(order, "--orders", owner, POSITIVE)
    check_scalar(args.ss_order, "--ss-order", owner, POSITIVE)
    check_scalar(args.ss_epsilon, "--ss-epsilon", owner, POSITIVE)
    check_scalar(args.ss_delta, "--ss-delta", owner, DELTA)


def _fmt(v):
    return "-" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v))


def run(args) -> int:
    """Run ``refdp pate`` on parsed arguments; returns the exit status (0, or 2 on bad input)."""
    from . import pate_analysis, smooth_laplace_parameters, smooth_sensitivity

    try:
        _check_options(args)
        counts = _load(args)
        noise = getattr(args, "noise", "discrete")
        result = pate_analysis(counts, args.gamma, args.delta, orders=args.orders, exact=args.exact,
                               two_sided=not args.one_sided, n_teachers=args.teachers, noise=noise)
        a, beta = smooth_laplace_parameters(args.ss_epsilon, args.ss_delta)
        ss = smooth_sensitivity(counts, args.gamma, args.ss_order, beta, two_sided=not args.one_sided,
                                noise=noise)
        exact = None
        if getattr(args, "exact_delta", None) is not None:
            from .exact_delta import exact_delta
            exact = exact_delta(counts, args.gamma, args.exact_delta, method="auto", noise=noise)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    scale = ss.value / a
    release = {
        "order": ss.order, "epsilon_release": args.ss_epsilon, "delta_release": args.ss_delta,
        "beta": beta, "smooth_sensitivity": ss.value, "local_sensitivity_bound": ss.local,
        "noise_scale_log_moment": scale, "noise_scale_epsilon": scale / ss.order,
        "epsilon_tail_at_order": (ss.log_moment + math.log(1 / args.delta)) / ss.order,
    }
    if args.json:
        out = result.as_dict()
        out["n_classes"] = int(counts.shape[1])
        out["n_teachers"] = int(counts[0].sum())
        out["smooth_sensitivity_release"] = release
        if exact is not None:
            out["exact_delta"] = {"epsilon": exact.epsilon, "lower": exact.lower, "upper": exact.upper,
                                  "worst_moves": [list(m) for m in exact.worst_moves],
                                  "direction": exact.worst_direction}
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    sided = "one-sided (paper)" if args.one_sided else "two-sided"
    print(f"PATE analysis: {int(counts[0].sum())} teachers, {result.n_queries} queries, "
          f"{counts.shape[1]} classes, gamma = {args.gamma:g}, "
          f"delta = {args.delta:g}, data-dependent bounds {sided}, {noise} noise"
          + (" (textbook secure=False answers)" if noise == "continuous" else ""))
    print(result.table())
    print("Data-dependent epsilons are functions of the sensitive votes; publish only a noisy release.")
    print(f"Smooth-sensitivity release of the Theorem 3 log-moment at order {_fmt(ss.order)} "
          f"(cost epsilon = {args.ss_epsilon:g}, delta = {args.ss_delta:g}; beta = {beta:.6g}):")
    print(f"  smooth sensitivity {ss.value:.6g} (local bound {ss.local:.6g}); Laplace noise scale "
          f"{scale:.6g} on the log-moment, {scale / ss.order:.6g} on epsilon")
    if exact is not None:
        print(f"Exact data-dependent {exact}")
    return 0
