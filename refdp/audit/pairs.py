"""Candidate neighbouring pairs of query answers, after StatDP's input patterns.

Mechanisms such as report-noisy-max and the sparse vector technique take a
vector of query answers, each of sensitivity 1, so on neighbouring datasets
every answer may move by at most 1 (all of them at once, each in its own
direction). Ding et al. ([DWWZK18]_, Sec. 5) search such mechanisms on a short
list of patterns around the vector of ones, and DP-Sniper ([BSBV21]_) reuses
the list. :func:`query_answer_pairs` produces the same kind of list for any
length: each pair is labelled, and each is a pair of neighbours under the
stated sensitivity assumption.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting
   Violations of Differential Privacy", ACM CCS 2018.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper:
   Black-Box Discovery of Differential Privacy Violations using Classifiers",
   IEEE S&P 2021.
"""
from __future__ import annotations

import numpy as np

from .._validation import Interval, check_scalar, parameter_error

__all__ = ["query_answer_pairs"]


def query_answer_pairs(length, *, componentwise=True):
    """Labelled pairs ``(D, D', label)`` of query-answer vectors differing by at most 1 per entry.

    With ``D = (1, ..., 1)`` and ``h = length // 2``, the pairs are

    * ``first lower``: ``D' = (0, 1, ..., 1)``;
    * ``first higher``: ``D' = (2, 1, ..., 1)``;
    * ``first higher, rest lower``: ``D' = (2, 0, ..., 0)`` (componentwise only);
    * ``first lower, rest higher``: ``D' = (0, 2, ..., 2)`` (componentwise only);
    * ``half higher, half lower``: ``D' = (2, ..., 2, 0, ..., 0)`` with ``h``
      twos (componentwise only);
    * ``all higher``: ``D' = (2, ..., 2)`` (componentwise only);
    * ``all lower``: ``D' = (0, ..., 0)`` (componentwise only);
    * ``crossing``: ``D = (1, ..., 1, 0, ..., 0)`` and
      ``D' = (0, ..., 0, 1, ..., 1)``, ``h`` leading entries (componentwise only).

    Parameters
    ----------
    length : int >= 1
        Number of queries.
    componentwise : bool, default True
        True: every answer may change between neighbours (counting queries of
        one record each, as for report-noisy-max and the sparse vector
        technique). False: only one entry changes (a histogram under
        add/remove), which leaves the first two pairs.

    Returns
    -------
    list of (ndarray, ndarray, str)
        Float arrays of shape ``(length,)``; pairs that coincide for small
        ``length`` are listed once.

    Examples
    --------
    >>> [label for _, _, label in query_answer_pairs(5)][:3]
    ['first lower', 'first higher', 'first higher, rest lower']
    >>> d, e, label = query_answer_pairs(4)[-1]
    >>> d.tolist(), e.tolist(), label
    ([1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], 'crossing')
    """
    owner = "query_answer_pairs"
    length = check_scalar(length, "length", owner, Interval(int, 1, None))
    if not isinstance(componentwise, (bool, np.bool_)):
        raise parameter_error("componentwise", owner, "a bool", componentwise)
    k, h = length, length // 2
    ones = np.ones(k)

    def vec(head, head_len, rest):
        return np.array([head] * head_len + [rest] * (k - head_len), dtype=np.float64)

    cands = [(ones, vec(0, 1, 1), "first lower"), (ones, vec(2, 1, 1), "first higher")]
    if componentwise:
        cands += [
            (ones, vec(2, 1, 0), "first higher, rest lower"),
            (ones, vec(0, 1, 2), "first lower, rest higher"),
            (ones, vec(2, h, 0), "half higher, half lower"),
            (ones, np.full(k, 2.0), "all higher"),
            (ones, np.zeros(k), "all lower"),
            (vec(1, h, 0), vec(0, h, 1), "crossing"),
        ]
    out, seen = [], set()
    for d, e, label in cands:
        key = (d.tobytes(), e.tobytes())
        if key in seen or np.array_equal(d, e):
            continue
        seen.add(key)
        out.append((d, e, label))
    return out
