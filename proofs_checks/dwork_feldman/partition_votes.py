"""Exact law of the teachers' vote counts under refdp's random partition.

Shared by the privacy checks of the soft majority (Dwork & Feldman 2018,
Theorem 4.1) and of the averaged prediction (Corollary 4.7).

Setting
    A dataset is a multiset of labelled records ``(x, y)`` (a sorted tuple).
    refdp assigns every record independently and uniformly to one of ``k``
    parts (:func:`refdp.utils.partition.random_partition`) and trains
    one teacher per part with
    :func:`refdp.utils.partition.train_teacher` (the library's own
    function, with its empty-part and single-label rules). The learner used
    here, :class:`PointMajority`, ignores the order of its records, and the
    assignment is exchangeable, so the output law depends on the multiset of
    records only: checking multisets covers every ordering of them.

Computation
    ``F(R, r)[c]`` is the number of assignments of the multiset ``R`` to ``r``
    parts whose teachers' votes at the query ``x`` have count vector ``c``.
    The first of the ``r`` parts receives a sub-multiset ``S`` of ``R`` in
    ``prod_j C(m_j, s_j)`` ways (``m_j``, ``s_j`` the multiplicities of the
    j-th distinct record in ``R`` and ``S``); the rest is an assignment of
    ``R - S`` to ``r - 1`` parts. Hence
    ``F(R, r) = sum_S prod_j C(m_j, s_j) * shift(F(R - S, r - 1), vote(S))``
    with ``F(R, 1) = {vote(R): 1}``, in exact integers; the law of the counts
    for a dataset ``D`` of ``n`` records is ``F(D, k) / k**n``. The recursion
    is memoised across datasets, so a sweep over every dataset of size
    ``<= 6`` costs a few seconds.
"""
from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np

from refdp.utils.partition import learner_factory, teacher_votes, train_teacher
from refdp.verify.neighbours import add_remove_neighbours, all_datasets, replace_one_neighbours

__all__ = ["PointMajority", "VoteLaw", "neighbour_pairs", "representative_pairs", "representative_neighbours"]


class PointMajority:
    """Small deterministic learner used by the exhaustive checks.

    ``fit`` stores the records; ``predict(x)`` returns the most frequent label
    among the part's records at the point ``x``, else (no record at ``x``) the
    most frequent label of the whole part, else (empty part) the smallest
    label 0. Ties go to the smallest label. Features are one column holding the
    point.
    """

    def fit(self, X, y):
        self.points_ = [float(v) for v in np.asarray(X)[:, 0]]
        self.labels_ = [v.item() if hasattr(v, "item") else v for v in np.asarray(y)]
        return self

    @staticmethod
    def _majority(labels):
        if not labels:
            return 0
        counts = Counter(labels)
        best = max(counts.values())
        return min(v for v, c in counts.items() if c == best)

    def predict(self, X):
        out = []
        for q in np.asarray(X)[:, 0]:
            here = [y for x, y in zip(self.points_, self.labels_) if x == q]
            out.append(self._majority(here) if here else self._majority(self.labels_))
        return np.array(out, dtype=np.int64)


class VoteLaw:
    """Exact law of the vote counts at each query point, memoised across datasets.

    Parameters
    ----------
    queries : sequence of float
        Query points ``x``.
    classes : sequence of int
        Declared classes (``classes[0]`` is the empty-part vote).
    learner : class or callable, default PointMajority
        Passed through :func:`refdp.utils.partition.learner_factory`.
    """

    def __init__(self, queries, classes, learner=PointMajority):
        self.queries = tuple(queries)
        self.classes = np.asarray(classes)
        self.n_classes = len(self.classes)
        self._make = learner_factory(learner, "VoteLaw")
        self._xq = np.asarray(self.queries, dtype=np.float64)[:, None]
        self._votes: dict = {}
        self._memo: dict = {}
        self._laws: dict = {}
        self._stream = np.random.default_rng(0)  # unused by deterministic learners

    def votes(self, part):
        """Vote (class index) of the teacher trained on ``part`` at every query point."""
        if part not in self._votes:
            X = np.array([[float(r[0])] for r in part], dtype=np.float64).reshape(len(part), 1)
            y = np.array([r[1] for r in part], dtype=np.int64)
            teacher = train_teacher(self._make, X, y, self._stream, self.classes)
            self._votes[part] = tuple(int(v) for v in teacher_votes([teacher], self._xq, self.classes,
                                                                     "VoteLaw")[0])
        return self._votes[part]

    def _split(self, records):
        items = sorted(Counter(records).items())
        for take in itertools.product(*(range(m + 1) for _, m in items)):
            ways = 1
            sub, rest = [], []
            for (rec, m), s in zip(items, take):
                ways *= comb(m, s)
                sub.extend([rec] * s)
                rest.extend([rec] * (m - s))
            yield tuple(sub), tuple(rest), ways

    def assignments(self, records, parts):
        """``F(records, parts)``: per query point, count vector -> number of assignments."""
        key = (records, parts)
        if key in self._memo:
            return self._memo[key]
        nq = len(self.queries)
        if parts == 1:
            out = []
            for v in self.votes(records):
                c = [0] * self.n_classes
                c[v] += 1
                out.append({tuple(c): 1})
        else:
            out = [{} for _ in range(nq)]
            for sub, rest, ways in self._split(records):
                vs = self.votes(sub)
                for q, tally in enumerate(self.assignments(rest, parts - 1)):
                    acc, v = out[q], vs[q]
                    for c, w in tally.items():
                        c2 = c[:v] + (c[v] + 1,) + c[v + 1:]
                        acc[c2] = acc.get(c2, 0) + ways * w
        self._memo[key] = out
        return out

    def law(self, dataset, k, q):
        """Exact law of the vote counts at query ``q`` (an index into ``queries``).

        Returns
        -------
        (total, items) : (int, tuple)
            ``items`` are ``(count vector, number of assignments)`` sorted by
            count vector, and ``total = k ** n``; the probability of a count
            vector is its number over ``total``. Equal laws of datasets of equal
            size compare equal.
        """
        records = tuple(sorted(dataset))
        key = (records, k, q)
        if key not in self._laws:
            tally = self.assignments(records, k)[q]
            self._laws[key] = (k ** len(records), tuple(sorted(tally.items())))
        return self._laws[key]


def neighbour_pairs(domain, max_size, relation):
    """Every neighbouring pair (d, d') of multisets of size <= max_size (each edge once)."""
    if relation == "replace":
        for d in all_datasets(domain, max_size, min_size=1):
            for e in replace_one_neighbours(d, domain):
                if d < e:
                    yield d, e
    else:
        for d in all_datasets(domain, max_size - 1):
            for e in add_remove_neighbours(d, domain):
                if len(e) > len(d):
                    yield d, e


def representative_pairs(votes, domain, max_size, k, relation, q):
    """One neighbouring pair per distinct pair of vote-count laws, and the number of pairs."""
    seen, reps, n_pairs = set(), [], 0
    for d, e in neighbour_pairs(domain, max_size, relation):
        n_pairs += 1
        key = frozenset((votes.law(d, k, q), votes.law(e, k, q)))
        if key not in seen:
            seen.add(key)
            reps.append((d, e))
    return reps, n_pairs


def representative_neighbours(reps, relation):
    """Neighbour function over representative pairs ``(d, d')``: ``d -> [d', ...]``, named for reports."""
    table: dict = {}
    for d, e in reps:
        table.setdefault(d, []).append(e)

    def neighbours(d):
        return table.get(d, [])

    neighbours.__name__ = f"{relation}, one pair per distinct pair of laws"
    return neighbours
