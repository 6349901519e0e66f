"""Neighbouring datasets over a finite domain, for exhaustive privacy checks.

A dataset is a tuple of domain elements. Two representations are offered:

* **multisets** (``ordered=False``): the tuple is sorted, so datasets that
  differ only in the order of their records are the same dataset. Use this
  when the mechanism does not look at the order (histograms, votes).
* **sequences** (``ordered=True``): the order is part of the dataset, for
  mechanisms that depend on it (e.g. a fixed partition by position).

Labelled data are datasets over a domain of ``(x, y)`` pairs
(:func:`labelled_domain`). Domain elements must be hashable and, for
multisets, mutually comparable (they are sorted).

Neighbour relations (docs/theory/mechanisms.rst): *replace-one* (same size, one record
replaced by a different one) and *add/remove* (one record inserted or deleted).

For data too large to enumerate, :func:`adversarial_pairs` searches for the
neighbouring pairs with the largest divergence by hill climbing with random
restarts; the pairs it returns are then decided exactly by
:func:`refdp.verify.check.check_pairs`.

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", 2014, Sec. 2.3 (databases as histograms over a universe; neighbours).
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping

import mpmath
import numpy as np

from ..utils.precision import GLOBAL_MPMATH_LOCK, mp_context
from ..utils import constraints as _c
from ..utils.validation import Described, Interval, Options, check_scalar, parameter_error
from .verdict import takes_context

__all__ = [
    "check_domain",
    "labelled_domain",
    "all_datasets",
    "replace_one_neighbours",
    "add_remove_neighbours",
    "neighbour_function",
    "neighbouring_pairs",
    "adversarial_pairs",
]

NEIGHBOURS = Options(("replace", "add_remove"))


_DOMAIN = _c.Checked("a finite, non-empty collection of distinct hashable elements (checked by check_domain)",
                     invalid=([], None, 1.5, [1, 1], [[1]]))
_DOMAIN_OR_NONE = _c.Checked("None or a finite domain (checked by check_domain)", invalid=([], 1.5, [1, 1]))
_DATASET = _c.Checked("a tuple of domain elements (checked in the body)", invalid=(None, 1.5, (99,)))
_DATASETS = _c.Checked("a non-empty iterable of datasets (tuples; checked by neighbouring_pairs)",
                       invalid=([], None, 1.5))
_NEIGHBOURS = _c.Checked("'replace', 'add_remove' or a callable dataset -> neighbours (checked by "
                         "neighbour_function)", invalid=("no such", 1.5, None))
_NAME = _c.InstanceOf((str,), "a str")


@_c.constrained_with(dict(domain=_DOMAIN, owner=_NAME, ordered=_c.FLAG, name=_NAME))
def check_domain(domain, owner: str = "check_domain", *, ordered: bool = True, name: str = "domain") -> tuple:
    """Validate a finite domain: non-empty, distinct hashable elements.

    Returns the domain as a tuple, sorted when ``ordered`` is False (multisets
    are stored sorted, so their elements must be comparable). ``name`` is the
    parameter the error messages name.
    """
    if isinstance(domain, (str, bytes, Mapping)) or not hasattr(domain, "__iter__") \
            or (isinstance(domain, np.ndarray) and domain.ndim == 0):
        raise parameter_error(name, owner, "a finite iterable of distinct elements", domain)
    dom = tuple(domain)
    if not dom:
        raise parameter_error(name, owner, "a non-empty collection of elements", domain)
    try:
        if len(set(dom)) != len(dom):
            seen, dup = set(), None
            for e in dom:
                if e in seen:
                    dup = e
                    break
                seen.add(e)
            raise parameter_error(name, owner, "a collection of distinct elements",
                                  Described(f"{dup!r} repeated"))
    except TypeError:
        raise parameter_error(name, owner, "a collection of hashable elements", domain) from None
    if not ordered:
        try:
            dom = tuple(sorted(dom))
        except TypeError:
            raise parameter_error(name, owner, "a collection of mutually comparable elements",
                                  domain) from None
    return dom


@_c.constrained(xs=_DOMAIN, labels=_DOMAIN)
def labelled_domain(xs, labels=(0, 1)) -> tuple:
    """The domain of labelled records ``(x, y)``, ``x`` in ``xs``, ``y`` in ``labels``.

    Returns
    -------
    tuple of (x, y)
        In lexicographic order of ``(x, y)``.
    """
    xs = check_domain.__wrapped__(xs, "labelled_domain", ordered=False, name="xs")
    ys = check_domain.__wrapped__(labels, "labelled_domain", ordered=False, name="labels")
    return tuple((x, y) for x in xs for y in ys)


def _check_dataset(dataset, dom_set, owner, ordered):
    if isinstance(dataset, (str, bytes, Mapping)) or not hasattr(dataset, "__iter__") \
            or (isinstance(dataset, np.ndarray) and dataset.ndim == 0):
        raise parameter_error("dataset", owner, "a tuple of domain elements", dataset)
    d = tuple(dataset)
    for i, e in enumerate(d):
        try:
            known = e in dom_set
        except TypeError:        # an unhashable record is in no domain
            known = False
        if not known:
            raise parameter_error("dataset", owner, "a tuple of elements of 'domain'",
                                  Described(f"{e!r} at position {i}, not in the domain"))
    return d if ordered else tuple(sorted(d))


@_c.constrained(domain=_DOMAIN, max_size=Interval(int, 0, 1000), ordered=_c.FLAG,
                min_size=Interval(int, 0, 1000))
def all_datasets(domain, max_size: int, *, ordered: bool = False, min_size: int = 0):
    """Every dataset of size ``min_size..max_size`` over ``domain``.

    Parameters
    ----------
    domain : iterable
        Distinct hashable elements.
    max_size : int, max_size >= 0
    ordered : bool, default False
        False: multisets as sorted tuples, ``C(m + n - 1, n)`` of size ``n`` over
        ``m`` elements. True: sequences, ``m ** n`` of size ``n``.
    min_size : int, 0 <= min_size <= max_size

    Yields
    ------
    tuple
        Datasets in order of size, then lexicographically in the domain order.
    """
    owner = "all_datasets"
    # checked when called, not at the first iteration: the generator is the helper below
    dom = check_domain.__wrapped__(domain, owner, ordered=ordered)
    min_size = check_scalar(min_size, "min_size", owner, Interval(int, 0, max_size))
    return _all_datasets(dom, min_size, max_size, ordered)


def _all_datasets(dom, min_size, max_size, ordered):
    for n in range(min_size, max_size + 1):
        if ordered:
            yield from itertools.product(dom, repeat=n)
        else:
            yield from itertools.combinations_with_replacement(dom, n)


@_c.constrained(dataset=_DATASET, domain=_DOMAIN, ordered=_c.FLAG)
def replace_one_neighbours(dataset, domain, *, ordered: bool = False):
    """Every replace-one neighbour of ``dataset``: one record replaced by another value.

    Parameters
    ----------
    dataset : tuple
        Elements of ``domain`` (sorted first when ``ordered`` is False).
    domain : iterable
    ordered : bool, default False

    Yields
    ------
    tuple
        Each neighbour once. Sequences of size ``n`` over ``m`` elements have
        ``n (m - 1)`` neighbours; multisets with ``k`` distinct values have
        ``k (m - 1)``.
    """
    owner = "replace_one_neighbours"
    # checked when called, not at the first iteration: the generator is the helper below
    dom = check_domain.__wrapped__(domain, owner, ordered=ordered)
    d = _check_dataset(dataset, set(dom), owner, ordered)
    return _replace_one_neighbours(d, dom, ordered)


def _replace_one_neighbours(d, dom, ordered):
    if ordered:
        for i, v in enumerate(d):
            for w in dom:
                if w != v:
                    yield d[:i] + (w,) + d[i + 1:]
    else:
        for v in dict.fromkeys(d):
            i = d.index(v)
            rest = d[:i] + d[i + 1:]
            for w in dom:
                if w != v:
                    yield tuple(sorted(rest + (w,)))


@_c.constrained(dataset=_DATASET, domain=_DOMAIN, ordered=_c.FLAG)
def add_remove_neighbours(dataset, domain, *, ordered: bool = False):
    """Every add/remove neighbour of ``dataset``: one record deleted or inserted.

    Parameters
    ----------
    dataset : tuple
    domain : iterable
    ordered : bool, default False
        For sequences, a record may be inserted at any position.

    Yields
    ------
    tuple
        Each neighbour once: first the deletions, then the insertions.
        Multisets with ``k`` distinct values over ``m`` elements have ``k + m``
        neighbours; a sequence of size ``n`` with ``r`` runs of equal values has
        ``r + (n + 1) m - n``.
    """
    owner = "add_remove_neighbours"
    # checked when called, not at the first iteration: the generator is the helper below
    dom = check_domain.__wrapped__(domain, owner, ordered=ordered)
    d = _check_dataset(dataset, set(dom), owner, ordered)
    return _add_remove_neighbours(d, dom, ordered)


def _add_remove_neighbours(d, dom, ordered):
    seen = set()
    if ordered:
        candidates = itertools.chain(
            (d[:i] + d[i + 1:] for i in range(len(d))),
            (d[:i] + (w,) + d[i:] for i in range(len(d) + 1) for w in dom),
        )
    else:
        candidates = itertools.chain(
            (d[:d.index(v)] + d[d.index(v) + 1:] for v in dict.fromkeys(d)),
            (tuple(sorted(d + (w,))) for w in dom),
        )
    for c in candidates:
        if c not in seen:
            seen.add(c)
            yield c


@_c.constrained_with(dict(neighbours=_NEIGHBOURS, domain=_DOMAIN_OR_NONE, ordered=_c.FLAG, owner=_NAME))
def neighbour_function(neighbours, domain, *, ordered: bool = False, owner: str = "neighbour_function"):
    """Turn ``"replace"``, ``"add_remove"`` or a callable into ``dataset -> neighbours``.

    A callable is returned unchanged (it receives a dataset and returns an
    iterable of datasets); the named relations need ``domain``.
    """
    if callable(neighbours):
        return neighbours
    if not isinstance(neighbours, str) or neighbours not in NEIGHBOURS.values:
        raise parameter_error("neighbours", owner, NEIGHBOURS.describe() + " or a callable", neighbours)
    if domain is None:
        raise parameter_error("domain", owner, f"a finite domain when neighbours={neighbours!r}", domain)
    dom = check_domain.__wrapped__(domain, owner, ordered=ordered)
    gen = replace_one_neighbours if neighbours == "replace" else add_remove_neighbours

    def fn(dataset):
        return gen(dataset, dom, ordered=ordered)

    fn.__name__ = f"{neighbours}_neighbours"
    return fn


@_c.constrained_with(dict(datasets=_DATASETS, neighbours=_NEIGHBOURS, domain=_DOMAIN_OR_NONE, ordered=_c.FLAG,
                          owner=_NAME))
def neighbouring_pairs(datasets, neighbours="replace", *, domain=None, ordered=False,
                       owner: str = "neighbouring_pairs"):
    """Every unordered pair of a dataset in ``datasets`` and one of its neighbours.

    The datasets are validated and normalised as in
    :func:`refdp.verify.check.check_mechanism`: each is a tuple (sorted when
    ``ordered`` is False); ``domain`` defaults to the elements appearing in
    ``datasets``.

    Parameters
    ----------
    datasets : iterable of tuple
    neighbours : {"replace", "add_remove"} or callable, default "replace"
    domain : iterable, optional
    ordered : bool, default False
    owner : str
        Public function named in error messages.

    Returns
    -------
    pairs : list of (tuple, tuple)
        Each unordered pair of distinct datasets once, as ``(d, d')`` with
        ``d`` from ``datasets``.
    relation : str
        Description of the relation (for reports).
    """
    if isinstance(datasets, (str, bytes, Mapping)) or not hasattr(datasets, "__iter__") \
            or (isinstance(datasets, np.ndarray) and datasets.ndim == 0):
        raise parameter_error("datasets", owner, "an iterable of datasets (tuples)", datasets)
    try:
        ds = [tuple(d) if ordered else tuple(sorted(d)) for d in datasets]
        hash(tuple(ds))          # datasets are keys: their records must be hashable
    except (TypeError, ValueError):
        raise parameter_error("datasets", owner, "an iterable of datasets (tuples of hashable, comparable "
                              "elements)", datasets) from None
    if not ds:
        raise parameter_error("datasets", owner, "a non-empty iterable of datasets", Described("no dataset"))
    if domain is None and not callable(neighbours):
        elems = {x for d in ds for x in d}
        if not elems:
            raise parameter_error("domain", owner, "given when every dataset is empty", domain)
        domain = elems
    if domain is not None:
        domain = check_domain.__wrapped__(domain, owner, ordered=ordered)
    nbr = neighbour_function.__wrapped__(neighbours, domain, ordered=ordered, owner=owner)
    relation = neighbours if isinstance(neighbours, str) else getattr(neighbours, "__name__", "callable")
    relation += ", ordered" if ordered else ", multisets"
    seen, pairs = set(), []
    for d in dict.fromkeys(ds):
        try:
            neighbours_of_d = list(nbr(d))
        except ValueError as exc:
            if not str(exc).startswith("The 'dataset' parameter"):
                raise
            raise parameter_error("datasets", owner, "datasets whose records are in 'domain'",
                                  Described(f"{d!r}")) from None
        for e in neighbours_of_d:
            key = frozenset((d, e))
            if d != e and key not in seen:
                seen.add(key)
                pairs.append((d, e))
    if not pairs:
        raise parameter_error("datasets", owner, "datasets with at least one neighbour",
                              Described("no pair of distinct neighbouring datasets"))
    return pairs, relation


def _score_dataset(d, nbr_fn, evaluate, divergence):
    """Largest divergence (either direction) between d and one of its neighbours."""
    best, best_pair = mpmath.mpf("-inf"), None
    pd = evaluate(d)
    for e in nbr_fn(d):
        pe = evaluate(e)
        for pair, (a, b) in (((d, e), (pd, pe)), ((e, d), (pe, pd))):
            v = divergence(a, b)
            if best_pair is None or v > best:
                best, best_pair = v, pair
    return best, best_pair


@_c.constrained(
    distribution_fn=_c.Callable("a callable dataset -> distribution"), domain=_DOMAIN,
    size=Interval(int, 1, 1000), neighbours=_NEIGHBOURS, ordered=_c.FLAG,
    divergence=_c.Checked("'max', 'hockey_stick' or a callable (checked in the body)", invalid=("no such", 1.5)),
    epsilon=_c.Optional(Interval(float, 0, None, closed="left")), restarts=Interval(int, 1, 10_000),
    steps=Interval(int, 0, 1_000_000), top=Interval(int, 1, None), dps=Interval(int, 5, _c.MAX_DPS), rng=_c.RNG,
)
def adversarial_pairs(distribution_fn, domain, size, *, neighbours="replace", ordered=False,
                      divergence="max", epsilon=None, restarts=8, steps=40, top=5, dps=15, rng=None):
    """Search for the neighbouring pairs with the largest divergence by hill climbing.

    Datasets of exactly ``size`` records are scored by their largest
    divergence to any neighbour (both directions). From a random start, each
    step proposes a random replace-one move of the current dataset and accepts
    it when the score does not decrease; the search restarts ``restarts``
    times. The search is heuristic (floating point at ``dps`` digits); decide
    the returned pairs exactly with :func:`refdp.verify.check.check_pairs`.

    Parameters
    ----------
    distribution_fn : callable
        ``(dataset, ctx) -> distribution``, computed in the real mpmath
        context ``ctx`` at ``dps`` digits that the search gives it, or the
        legacy ``dataset -> distribution`` (see
        :func:`refdp.verify.check.check_mechanism`).
    domain : iterable
    size : int, size >= 1
    neighbours : {"replace", "add_remove"} or callable, default "replace"
    ordered : bool, default False
    divergence : {"max", "hockey_stick"} or callable, default "max"
        A callable receives two distributions and returns a real number;
        ``"hockey_stick"`` needs ``epsilon``.
    epsilon : float, optional
    restarts : int, default 8
    steps : int, default 40
    top : int, default 5
        Number of distinct pairs returned.
    dps : int, default 15
    rng : None, int, SeedSequence, BitGenerator or Generator
        Normalised with :func:`numpy.random.default_rng`.

    Returns
    -------
    list of ((tuple, tuple), mpmath.mpf)
        Up to ``top`` pairs ``(d, d')`` with their divergence, largest first.
    """
    from . import divergences as dv

    owner = "adversarial_pairs"
    dom = check_domain.__wrapped__(domain, owner, ordered=ordered)
    nbr_fn = neighbour_function.__wrapped__(neighbours, dom, ordered=ordered, owner=owner)
    if callable(divergence):
        div = divergence
    elif not isinstance(divergence, str):
        raise parameter_error("divergence", owner, "one of 'max', 'hockey_stick' or a callable", divergence)
    elif divergence == "max":
        def div(a, b):
            outputs = list(dict.fromkeys(list(a) + list(b)))
            pv, qv = [a.get(o, 0) for o in outputs], [b.get(o, 0) for o in outputs]
            return dv._max_divergence(outputs, pv, qv, dv._Arith(False))[0]
    elif divergence == "hockey_stick":
        if epsilon is None:
            raise parameter_error("epsilon", owner, "a float in the range [0, inf) when "
                                  "divergence='hockey_stick'", epsilon)

        def div(a, b):
            outputs = list(dict.fromkeys(list(a) + list(b)))
            pv, qv = [a.get(o, 0) for o in outputs], [b.get(o, 0) for o in outputs]
            return dv._hockey_stick(outputs, pv, qv, epsilon, dv._Arith(False))[0]
    else:
        raise parameter_error("divergence", owner, "one of 'max', 'hockey_stick' or a callable", divergence)

    cache: dict = {}
    with_ctx = takes_context(distribution_fn, 1)

    def evaluate(d):
        # validated once per dataset; the named divergences then skip re-validation
        if d not in cache:
            if with_ctx:
                raw = distribution_fn(d, mp_context(dps))
            else:
                # a law of the legacy protocol computes "at the current precision"
                # with the global mpmath functions: the one use of the global
                # precision left, serialised with refdp's other uses
                with GLOBAL_MPMATH_LOCK, mpmath.workdps(dps):
                    raw = distribution_fn(d)
            cache[d] = raw if callable(divergence) else dv.as_distribution(
                    raw, "distribution_fn", f"{owner} (dataset {d!r})")
        return cache[d]

    found: dict = {}

    def canon(d):
        return d if ordered else tuple(sorted(d))

    def record(score, pair):
        if pair is None:  # a dataset without neighbours
            return
        key = frozenset(pair)
        if key not in found or score > found[key][1]:
            found[key] = (pair, score)

    m = len(dom)
    for _ in range(restarts):
        cur = canon(tuple(dom[i] for i in rng.integers(0, m, size=size)))
        cur_score, pair = _score_dataset(cur, nbr_fn, evaluate, div)
        record(cur_score, pair)
        for _ in range(steps):
            if m < 2:
                break
            pos = int(rng.integers(0, size))
            shift = int(rng.integers(1, m))
            new_val = dom[(dom.index(cur[pos]) + shift) % m]
            cand = canon(cur[:pos] + (new_val,) + cur[pos + 1:])
            score, pair = _score_dataset(cand, nbr_fn, evaluate, div)
            record(score, pair)
            if score >= cur_score:
                cur, cur_score = cand, score
    ranked = sorted(found.values(), key=lambda t: t[1], reverse=True)
    return ranked[:top]
