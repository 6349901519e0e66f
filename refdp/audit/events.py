"""Events for the black-box audit: score functions, thresholds, and their selection.

An event is ``E = {o : s(o) >= t}`` or ``{o : s(o) <= t}`` for a *score*
``s`` fitted on one part of the samples (the *fit* part) and a threshold ``t``
chosen on another (the *tune* part). The families of scores are

* ``threshold``: one coordinate of a numeric output (``s(o) = o_j``): the
  half-lines ``o_j >= t`` and ``o_j <= t``;
* ``outcomes``: the estimated log-likelihood ratio of each distinct output
  (discrete outputs, or numeric outputs that repeat); the events are the sets
  of outcomes with the largest (or smallest) estimated ratios, which is how
  the Neyman--Pearson lemma says the most telling event is built;
* ``cells``: the same on histogram cells (each coordinate cut at quantiles of
  the fit samples, with frequent values, e.g. a flag such as ``-1`` for
  "aborted", kept as cells of their own);
* ``naive Bayes``: the sum of per-coordinate log-likelihood ratios estimated
  on quantile cells (vector outputs with continuous coordinates): the exact
  likelihood ratio when the coordinates are independent given the input;
* ``classifier``: a logistic regression trained to tell the two datasets'
  outputs apart (DP-Sniper's idea, [BSBV21]_), for vector outputs;
* ``float bits`` (opt-in): the sign, exponent and last four mantissa bits of a
  float output, the pattern Mironov's attack reads ([Mir12]_).

Every choice made here (family, fitted score, threshold, direction) depends
only on the fit and tune samples; the bounds the audit reports are computed on
fresh samples (:mod:`refdp.audit.blackbox`). The selection scores each
candidate with Clopper--Pearson bounds on the tune part, at an error smaller
than the final one to account for the many candidates compared, so that it
prefers events whose probabilities can be bounded tightly, not events with a
large empirical ratio on a handful of outputs.

References
----------
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper:
   Black-Box Discovery of Differential Privacy Violations using Classifiers",
   IEEE S&P 2021.
.. [Mir12] I. Mironov, "On Significance of the Least Significant Bits for
   Differential Privacy", ACM CCS 2012.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ._sampling import Sample, hash_rows
from .clopper_pearson import lower_unchecked, upper_unchecked
from .logistic import fit_logistic

__all__ = ["Objective", "Event", "Candidate", "build_scores", "select_events", "rescore", "conditional_bound",
           "projected_conditional",
           "HOLDOUT_TESTS"]

#: The held-out tests of an epsilon bound (see :func:`conditional_bound`).
HOLDOUT_TESTS = ("binomial", "conditional", "auto")

_SMOOTH = 0.5            # additive smoothing of outcome counts in the likelihood-ratio estimate
_MAX_THRESHOLDS = 2048   # thresholds examined per score (quantiles of the tune scores)
_SCREEN = 16             # thresholds per score and orientation re-scored with exact bounds
_MAX_COORDINATES = 32    # coordinates given their own threshold score
_MAX_ATOMS = 8           # frequent values per coordinate kept as cells / flags
_MAX_FIT = 100_000       # fit samples per dataset used by the classifier
_NB_BINS = 64            # quantile cells per coordinate of the naive-Bayes score
_DISCRETE = 0.99         # share of fit outputs seen twice or more above which outputs count as discrete
_SELECTION_PENALTY = 64   # the selection's bounds use error beta / (4 * 64 * number of scores)
#: Standard errors by which a tune estimate is moved against a candidate event
#: before its held-out bound is projected (guards the choice among many thresholds).
SELECTION_Z = 2.0


def _fmt(x) -> str:
    return f"{x:.6g}" if isinstance(x, float) else repr(x)


# ---------------------------------------------------------------------------
# Objectives
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Objective:
    """What an event is chosen for.

    ``kind="epsilon"``: maximise ``ln((p_lo - delta) / p'_hi)`` at ``param =
    delta`` (the claimed delta). ``kind="delta"``: maximise ``p_lo - e^eps
    p'_hi`` at ``param = eps``.
    """

    kind: str
    param: float

    def value(self, lo, hi):
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        if self.kind == "epsilon":
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.log((lo - self.param) / hi)
            return np.where((lo > self.param) & (hi > 0), v, -np.inf)
        return lo - math.exp(self.param) * hi

    def floor(self) -> float:
        """The trivially valid value reported when no event does better."""
        return 0.0


# ---------------------------------------------------------------------------
# Scores
# ---------------------------------------------------------------------------

class _Score:
    family = ""

    def __call__(self, sample: Sample) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self, side: str, t: float) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


def _coordinate_name(j, shape):
    if not shape or (len(shape) == 1 and shape[0] == 1):
        return "output"
    idx = np.unravel_index(j, shape)
    return "output[" + ", ".join(str(int(i)) for i in idx) + "]"


class _CoordinateScore(_Score):
    family = "threshold"

    def __init__(self, j, shape):
        self.j, self.shape = j, shape

    def __call__(self, sample):
        return sample.real[:, self.j]

    def describe(self, side, t):
        return f"{_coordinate_name(self.j, self.shape)} {side} {_fmt(float(t))}"


class _KeyTable:
    """Estimated log-likelihood ratio of each key seen in the fit samples."""

    def __init__(self, keys_a, keys_b, show, label):
        pooled = np.concatenate([keys_a, keys_b])
        self.keys, first, inv = np.unique(pooled, return_index=True, return_inverse=True)
        na, nb = len(keys_a), len(keys_b)
        ca = np.bincount(inv[:na], minlength=len(self.keys))
        cb = np.bincount(inv[na:], minlength=len(self.keys))
        self.scores = (np.log((ca + _SMOOTH) / (na + _SMOOTH)) - np.log((cb + _SMOOTH) / (nb + _SMOOTH)))
        self.repeated = float(np.sum((ca + cb)[(ca + cb) >= 2])) / max(len(pooled), 1)
        order = np.argsort(self.scores, kind="stable")
        shown = np.unique(np.concatenate([order[:8], order[-8:]]))
        self.examples = {int(i): show(int(first[i])) for i in shown}
        self.label = label

    def lookup(self, keys):
        idx = np.searchsorted(self.keys, keys)
        idx_c = np.minimum(idx, len(self.keys) - 1)
        found = self.keys[idx_c] == keys
        return np.where(found, self.scores[idx_c], 0.0)

    def describe(self, side, t, what):
        inside = self.scores >= t if side == ">=" else self.scores <= t
        m = int(inside.sum())
        chosen = np.flatnonzero(inside)
        chosen = chosen[np.argsort(-self.scores[chosen] if side == ">=" else self.scores[chosen])]
        examples = [self.examples[int(i)] for i in chosen if int(i) in self.examples][:4]
        unseen = (0.0 >= t) if side == ">=" else (0.0 <= t)
        text = f"{what} in a set of {m} {self.label}"
        if examples:
            text += " (most telling first: " + ", ".join(examples) + (", ..." if m > len(examples) else "") + ")"
        if unseen:
            text += f", plus every {self.label[:-1]} not seen when the event was chosen"
        return text


class _OutcomeScore(_Score):
    family = "outcomes"

    def __init__(self, fit_a, fit_b):
        na = len(fit_a)

        def show(i):
            return _fmt(fit_a.output(i) if i < na else fit_b.output(i - na))
        self.table = _KeyTable(fit_a.key, fit_b.key, show, "outcomes")

    def __call__(self, sample):
        return self.table.lookup(sample.key)

    def describe(self, side, t):
        return self.table.describe(side, t, "output")


class _CellCoder:
    """Codes each coordinate as a frequent value (atom) or a quantile bin."""

    def __init__(self, real):
        n, d = real.shape
        self.atoms, self.edges, self.has_rest = [], [], []
        cont_per_row = np.zeros(n)
        for j in range(d):
            col = real[:, j]
            vals, counts = np.unique(col, return_counts=True)
            # a coordinate with few distinct values is all atoms; otherwise the
            # frequent values (e.g. flags such as -1 for "aborted") are
            keep = np.ones(vals.shape, dtype=bool) if vals.size <= _MAX_ATOMS else counts >= max(5, 0.01 * n)
            atoms = vals[keep][np.argsort(-counts[keep], kind="stable")][:_MAX_ATOMS]
            atoms = np.sort(atoms)
            self.atoms.append(atoms)
            rest = ~self._is_atom(col, atoms)
            self.has_rest.append(bool(rest.any()))
            cont_per_row += rest
        d_eff = max(1.0, float(np.mean(cont_per_row))) if n else 1.0
        self.bins = int(min(32, max(2, round(256 ** (1.0 / d_eff)))))
        for j in range(d):
            col = real[:, j]
            rest = col[~self._is_atom(col, self.atoms[j])]
            if rest.size:
                qs = np.quantile(rest, np.linspace(0, 1, self.bins + 1)[1:-1])
                self.edges.append(np.unique(qs))
            else:
                self.edges.append(np.empty(0))
        self.continuous = bool(np.any(cont_per_row > 0))

    @staticmethod
    def _is_atom(col, atoms):
        if atoms.size == 0:
            return np.zeros(col.shape, dtype=bool)
        idx = np.minimum(np.searchsorted(atoms, col), atoms.size - 1)
        return atoms[idx] == col

    def codes(self, real):
        out = np.empty(real.shape, dtype=np.int64)
        for j in range(real.shape[1]):
            col, atoms = real[:, j], self.atoms[j]
            atom = self._is_atom(col, atoms)
            out[:, j] = len(atoms) + np.searchsorted(self.edges[j], col, side="right")
            if atoms.size:
                out[atom, j] = np.searchsorted(atoms, col[atom])
        return out

    def cell_text(self, codes_row, shape):
        parts = []
        for j, c in enumerate(codes_row):
            atoms, edges = self.atoms[j], self.edges[j]
            name = _coordinate_name(j, shape) if len(codes_row) > 1 else "output"
            if c < len(atoms):
                parts.append(f"{name} = {_fmt(float(atoms[c]))}")
            else:
                b = c - len(atoms)
                lo = "-inf" if b == 0 else _fmt(float(edges[b - 1]))
                hi = "inf" if b >= len(edges) else _fmt(float(edges[b]))
                parts.append(f"{name} in [{lo}, {hi})")
        return "{" + ", ".join(parts) + "}"


class _CellScore(_Score):
    family = "cells"

    def __init__(self, coder, fit_a, fit_b, shape):
        self.coder = coder
        ca, cb = coder.codes(fit_a.real), coder.codes(fit_b.real)
        pooled = np.concatenate([ca, cb])
        self.table = _KeyTable(hash_rows(ca), hash_rows(cb),
                               lambda i: coder.cell_text(pooled[i], shape), "cells")

    def __call__(self, sample):
        return self.table.lookup(hash_rows(self.coder.codes(sample.real)))

    def describe(self, side, t):
        return self.table.describe(side, t, "output")


def _float_bits_keys(col):
    bits = np.ascontiguousarray(col, dtype=np.float64).view(np.uint64)
    return ((bits >> np.uint64(52)) << np.uint64(4)) | (bits & np.uint64(0xF))


def _float_bits_text(key):
    high, low = key >> 4, key & 0xF
    sign, exponent = high >> 11, high & 0x7FF
    return f"(sign {sign}, exponent {exponent - 1023}, last bits {low:04b})"


class _FloatBitsScore(_Score):
    family = "float bits"

    def __init__(self, j, shape, fit_a, fit_b):
        self.j, self.shape = j, shape
        ka, kb = _float_bits_keys(fit_a.real[:, j]), _float_bits_keys(fit_b.real[:, j])
        pooled = np.concatenate([ka, kb])
        self.table = _KeyTable(ka, kb, lambda i: _float_bits_text(int(pooled[i])), "bit patterns")

    def __call__(self, sample):
        return self.table.lookup(_float_bits_keys(sample.real[:, self.j]))

    def describe(self, side, t):
        return self.table.describe(side, t, f"(sign, exponent, last 4 mantissa bits) of "
                                            f"{_coordinate_name(self.j, self.shape)}")


class _NaiveBayesScore(_Score):
    """Sum over coordinates of each coordinate's estimated log-likelihood ratio.

    Each coordinate is cut into its frequent values and ``_NB_BINS`` quantile
    bins of the fit samples; the score of an output is the sum of the
    smoothed log frequency ratios of its coordinates' cells. When the
    coordinates are independent given the input (noisy histograms, i.i.d.
    noise on each answer), this is an estimate of the exact log-likelihood
    ratio, so its upper level sets are the Neyman--Pearson events; a cell
    product such as "count 0 low and count 1 high" is one of them.
    """

    family = "naive Bayes"

    def __init__(self, fit_a, fit_b, pooled):
        self.edges, self.tables = [], []
        na, nb = len(fit_a), len(fit_b)
        for j in range(pooled.shape[1]):
            qs = np.quantile(pooled[:, j], np.linspace(0, 1, _NB_BINS + 1)[1:-1])
            edges = np.unique(qs)
            ca = np.bincount(np.searchsorted(edges, fit_a.real[:, j], side="right"), minlength=edges.size + 1)
            cb = np.bincount(np.searchsorted(edges, fit_b.real[:, j], side="right"), minlength=edges.size + 1)
            self.edges.append(edges)
            self.tables.append(np.log((ca + _SMOOTH) / (na + _SMOOTH)) - np.log((cb + _SMOOTH) / (nb + _SMOOTH)))

    def __call__(self, sample):
        out = np.zeros(len(sample))
        for j, (edges, table) in enumerate(zip(self.edges, self.tables)):
            out += table[np.searchsorted(edges, sample.real[:, j], side="right")]
        return out

    def describe(self, side, t):
        return (f"sum of the coordinates' estimated log-likelihood ratios {side} {_fmt(float(t))} "
                f"({len(self.edges)} coordinates, up to {_NB_BINS} quantile cells each)")


class _ClassifierScore(_Score):
    family = "classifier"

    def __init__(self, coder, fit_a, fit_b, rng):
        self.coder = coder
        parts = []
        for s in (fit_a, fit_b):
            idx = np.arange(len(s))
            if len(idx) > _MAX_FIT:
                idx = np.sort(rng.choice(len(idx), _MAX_FIT, replace=False))
            parts.append(s.real[idx])
        raw = self._features(np.concatenate(parts))
        mean = raw.mean(axis=0)
        std = raw.std(axis=0)
        scale = np.where(std > 0, std, 1.0)
        labels = np.concatenate([np.ones(len(parts[0])), np.zeros(len(parts[1]))])
        w = fit_logistic((raw - mean) / scale, labels)
        # score = w0 + sum_i w_i (f_i - mean_i) / scale_i, folded into one weight per raw feature
        self.weights = w[1:] / scale
        self.offset = w[0] - float(self.weights @ mean)
        self.n_features = raw.shape[1]

    def _columns(self, real):
        """Per coordinate: (atom index or -1, value where not an atom else 0)."""
        for j in range(real.shape[1]):
            col, atoms = real[:, j], self.coder.atoms[j]
            if atoms.size:
                idx = np.minimum(np.searchsorted(atoms, col), atoms.size - 1)
                hit = atoms[idx] == col
                yield j, np.where(hit, idx, -1), np.where(hit, 0.0, col)
            else:
                yield j, None, col

    def _features(self, real):
        cols = []
        for j, idx, rest in self._columns(real):
            if idx is not None:
                cols.extend((idx == m).astype(np.float64) for m in range(self.coder.atoms[j].size))
            if self.coder.has_rest[j]:
                cols.append(rest)
        return np.column_stack(cols) if cols else np.zeros((len(real), 1))

    def __call__(self, sample):
        out = np.full(len(sample), self.offset)
        c = 0
        for j, idx, rest in self._columns(sample.real):
            if idx is not None:
                m = self.coder.atoms[j].size
                table = np.append(self.weights[c:c + m], 0.0)  # index -1 (not an atom) -> 0
                out += table[idx]
                c += m
            if self.coder.has_rest[j]:
                out += self.weights[c] * rest
                c += 1
        return out

    def describe(self, side, t):
        return (f"logistic-regression score {side} {_fmt(float(t))} ({self.n_features} features: "
                f"each coordinate's value and flags for its frequent values)")


def build_scores(fit_a: Sample, fit_b: Sample, shape, *, float_bits=False, rng=None):
    """Fit every applicable score family on the fit samples of the two datasets.

    Parameters
    ----------
    fit_a, fit_b : Sample
        Fit samples of ``M(D)`` and ``M(D')``.
    shape : tuple
        Shape of one output (for naming coordinates); ``()`` for scalars.
    float_bits : bool
        Add the float-bits family (numeric outputs, first four coordinates).
    rng : numpy.random.Generator
        Used to subsample the classifier's training set.

    Returns
    -------
    list of score callables
    """
    scores = []
    outcome = _OutcomeScore(fit_a, fit_b)
    numeric = fit_a.real is not None
    if not numeric or outcome.table.repeated >= 0.05:
        scores.append(outcome)
    if not numeric:
        return scores
    d = fit_a.real.shape[1]
    scores.extend(_CoordinateScore(j, shape) for j in range(min(d, _MAX_COORDINATES)))
    pooled = np.concatenate([fit_a.real, fit_b.real])
    if len(pooled) > 4 * _MAX_FIT:  # quantiles and frequent values need no more
        pooled = pooled[np.sort(rng.choice(len(pooled), 4 * _MAX_FIT, replace=False))]
    coder = _CellCoder(pooled)
    if coder.continuous:
        scores.append(_CellScore(coder, fit_a, fit_b, shape))
        if d >= 2:
            scores.append(_NaiveBayesScore(fit_a, fit_b, pooled))
    if d >= 2 and outcome.table.repeated < _DISCRETE:
        # on (nearly) discrete outputs the outcome ratios are already the
        # likelihood-ratio ordering a classifier would estimate
        scores.append(_ClassifierScore(coder, fit_a, fit_b, rng))
    if float_bits:
        scores.extend(_FloatBitsScore(j, shape, fit_a, fit_b) for j in range(min(d, 4)))
    return scores


# ---------------------------------------------------------------------------
# Events and their selection
# ---------------------------------------------------------------------------

@dataclass
class Event:
    """``{o : score(o) >= threshold}`` or ``{o : score(o) <= threshold}``."""

    score: object
    side: str
    threshold: float

    def contains(self, sample: Sample) -> np.ndarray:
        s = self.score(sample)
        return s >= self.threshold if self.side == ">=" else s <= self.threshold

    @property
    def family(self) -> str:
        return self.score.family

    def describe(self) -> str:
        return self.score.describe(self.side, self.threshold)


@dataclass
class Candidate:
    """The best event found for one objective on one pair.

    ``numerator`` is 0 when the event bounds ``P[M(D) in E]`` from below and
    ``P[M(D') in E]`` from above, 1 for the opposite direction. ``value`` is
    the objective computed with Clopper--Pearson bounds on the tune samples
    (a provisional figure: the reported bound comes from fresh samples).
    """

    objective: Objective
    event: Event
    numerator: int
    value: float
    description: str
    tune_counts: tuple
    #: the held-out test the value was projected for: "binomial" (two
    #: Clopper--Pearson bounds) or "conditional" (:func:`conditional_bound`)
    test: str = "binomial"


def _wilson(k, n, z):
    """Approximate one-sided bounds (Wilson score), used only to screen thresholds."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    z2 = z * z
    centre = (k + z2 / 2) / (n + z2)
    half = z * np.sqrt(k * (n - k) / n + z2 / 4) / (n + z2)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def _orientations(sa, sb):
    """Threshold grid and, per orientation, (counts of numerator, of denominator)."""
    sa, sb = np.sort(sa), np.sort(sb)
    pooled = np.sort(np.concatenate([sa, sb]), kind="stable")  # two sorted runs: a merge
    distinct = 1 + int(np.count_nonzero(pooled[1:] != pooled[:-1])) if pooled.size else 0
    if distinct <= _MAX_THRESHOLDS:
        grid = np.unique(pooled)
    else:  # the pooled quantiles at levels i / (T - 1) (inverted CDF), from the sorted scores
        at = np.ceil(np.linspace(0, 1, _MAX_THRESHOLDS) * pooled.size).astype(np.int64) - 1
        grid = np.unique(pooled[np.clip(at, 0, pooled.size - 1)])
    ge_a = len(sa) - np.searchsorted(sa, grid, side="left")
    ge_b = len(sb) - np.searchsorted(sb, grid, side="left")
    le_a = np.searchsorted(sa, grid, side="right")
    le_b = np.searchsorted(sb, grid, side="right")
    return grid, ((0, ">=", ge_a, ge_b), (0, "<=", le_a, le_b), (1, ">=", ge_b, ge_a), (1, "<=", le_b, le_a))


def _projected(k, n, z_sel, n_project, beta, upper):
    """The Clopper--Pearson bound a held-out count would give, from a tune count.

    The tune proportion is first moved toward the unfavourable side by
    ``z_sel`` standard errors (Wilson), a guard against choosing, among many
    thresholds, one whose tune count is lucky; the held-out count is then
    taken to be that proportion of ``n_project`` outputs (a real number,
    which the incomplete beta function accepts).
    """
    lo, hi = _wilson(k, n, z_sel)
    p = hi if upper else lo
    kk = np.clip(p * n_project, 0.0, n_project)
    return upper_unchecked(kk, n_project, beta) if upper else lower_unchecked(kk, n_project, beta)


def conditional_bound(k, k_other, error):
    """Lower bound on ``ln(p / p')`` from Poisson counts, by the conditional binomial test.

    When the held-out sizes are independent Poisson variables of the same mean
    ``lambda``, the counts in an event are independent, ``K ~ Poisson(lambda
    p)`` and ``K' ~ Poisson(lambda p')``, and given ``K + K' = s``, ``K`` is
    binomial with ``s`` trials and success probability ``theta = p / (p +
    p')`` (the conditional test of two Poisson means; Lehmann and Romano,
    *Testing Statistical Hypotheses*, Sec. 4.5). A Clopper--Pearson lower bound
    ``theta_L`` at error ``error`` therefore gives ``ln(theta_L / (1 -
    theta_L)) <= ln(p / p')`` with probability at least ``1 - error``, for
    every ``s`` and so unconditionally. One bound at error ``2 beta`` replaces
    the two of the binomial test at ``beta`` each, and the two counts'
    variances add before the quantile is taken instead of after.

    Parameters
    ----------
    k, k_other : array_like of float
        Counts in the event under the numerator's and the denominator's
        dataset (real numbers for a projection).
    error : float in (0, 1)

    Returns
    -------
    ndarray or float
        ``-inf`` where ``k = 0``. ``theta_L`` is the float Clopper--Pearson
        bound lowered by the relative margin
        :data:`refdp.audit.clopper_pearson.OUTWARD` (its coverage is checked
        exactly by ``refdp verify``); that margin moves the logit down by far
        more than the rounding of the two logarithms can move it up.
    """
    k, k_other = np.asarray(k, dtype=np.float64), np.asarray(k_other, dtype=np.float64)
    s = np.maximum(k + k_other, 1.0)
    theta = lower_unchecked(np.minimum(k, s), s, error)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.log(theta) - np.log1p(-theta)
    out = np.where((k > 0) & (theta > 0) & (theta < 1), v, -np.inf)
    return float(out) if out.ndim == 0 else out


def cannot_tell(best0, best1, other0, other1):
    """Whether the tune samples cannot tell a runner-up from the best candidate.

    ``best0`` and ``other0`` are the two candidates' projected values without
    guard, ``best1`` and ``other1`` at one standard error of guard, so that
    ``x0 - x1`` is what one standard error costs each. True when all four are
    finite and ``best0 - other0 < sqrt((other0 - other1)**2 + (best0 -
    best1)**2)``: the difference is within one standard error of the
    difference, the two estimates treated as independent (which can only make
    the answer True more often). Used for the rarer events
    (:func:`refdp.audit.blackbox._alternate`) and the runner-up pools
    (:func:`refdp.audit.pooling.choose_pools`) tested beside the best.
    """
    values = (best0, best1, other0, other1)
    return all(math.isfinite(v) for v in values) and best0 - other0 < math.hypot(other0 - other1, best0 - best1)


def _eligible(objective, mode):
    """Whether the conditional test may bound this objective (pure epsilon only: it bounds a ratio)."""
    return mode != "binomial" and objective.kind == "epsilon" and objective.param == 0


def projected_conditional(k_num, n_num, k_den, n_den, n_project, beta):
    """The conditional test's projected held-out value of an event (tune counts ``k`` of ``n``, ``k'`` of ``n'``)."""
    return _projected_conditional(k_num, n_num, k_den, n_den, SELECTION_Z, n_project, beta)


def _projected_conditional(k_num, n_num, k_den, n_den, z_sel, n_project, beta):
    """The conditional test's value at the tune proportions moved against the event (as :func:`_projected`)."""
    p_num = _wilson(k_num, n_num, z_sel)[0]
    p_den = _wilson(k_den, n_den, z_sel)[1]
    return conditional_bound(np.clip(p_num * n_project, 0.0, n_project),
                             np.clip(p_den * n_project, 0.0, n_project), 2 * beta)


def rescore(candidate, tune_a: Sample, tune_b: Sample, beta, n_project, z_sel=None):
    """The projected held-out value of an already chosen candidate on other tune samples.

    Used by the stopping rule: the event chosen before a doubling and the one
    chosen after it are compared on the same (new) tune samples, so that the
    comparison measures whether the doubling found a better event, not how
    much the estimates sharpened. ``z_sel`` is the guard in standard errors
    (default :data:`SELECTION_Z`).
    """
    z_sel = SELECTION_Z if z_sel is None else z_sel
    inside_a = int(np.count_nonzero(candidate.event.contains(tune_a)))
    inside_b = int(np.count_nonzero(candidate.event.contains(tune_b)))
    k = (inside_a, inside_b) if candidate.numerator == 0 else (inside_b, inside_a)
    n = (len(tune_a), len(tune_b)) if candidate.numerator == 0 else (len(tune_b), len(tune_a))
    if candidate.test == "conditional":
        return float(_projected_conditional(k[0], n[0], k[1], n[1], z_sel, n_project, beta))
    lo = _projected(k[0], n[0], z_sel, n_project, beta, upper=False)
    hi = _projected(k[1], n[1], z_sel, n_project, beta, upper=True)
    return float(candidate.objective.value(lo, hi))


def select_events(scores, tune_a: Sample, tune_b: Sample, objectives, beta, n_project=None, test="binomial",
                  z_sel=None, below=None, avoid=None):
    """The best (score, threshold, side, direction) for each objective, on the tune samples.

    Parameters
    ----------
    scores : list
        From :func:`build_scores`.
    tune_a, tune_b : Sample
        Tune samples of ``M(D)`` and ``M(D')`` (not used by the fit).
    objectives : sequence of Objective
    beta : float
        Error probability of each final Clopper--Pearson bound.
    n_project : int, optional
        Size of the held-out samples the chosen event will be certified on.
        Given, every candidate is scored by the bound the held-out stage would
        report: the Clopper--Pearson bounds at error ``beta`` on
        ``n_project`` outputs, of event probabilities estimated on the tune
        samples and moved by :data:`SELECTION_Z` standard errors against the
        candidate. Events are thus compared at the precision they will be
        certified with, whatever their probability (no floor on it). Without
        ``n_project``, candidates are compared with Clopper--Pearson bounds
        on the tune samples themselves at the smaller error
        ``beta / (4 * 64 * len(scores))``. Either way the rule only steers
        the choice; validity comes from the held-out samples.
    test : {"binomial", "conditional", "auto"}, default "binomial"
        The held-out test the projection is for (with ``n_project``; an
        epsilon objective with ``param = 0`` only, the others are always
        binomial): two Clopper--Pearson bounds, the conditional test of
        :func:`conditional_bound` at error ``2 beta``, or whichever projects
        the larger value for each candidate (recorded in ``Candidate.test``).
        :func:`refdp.audit.audit_black_box` with ``holdout_test="auto"``
        selects with ``"binomial"`` and compares the tests on the final
        candidate only.
    z_sel : float, optional
        With ``n_project``: the guard, in standard errors of the tune
        estimates (default :data:`SELECTION_Z`). At half the guard the
        choice is the one four times as many tune outputs would make if the
        tune frequencies held (every standard error halves).
    below : sequence of int, optional
        One count per objective (None for no limit): only events holding
        fewer tune outputs of the two datasets together are considered
        (used to find the best event rarer than a chosen one).
    avoid : sequence of int, optional
        One count per objective (None for none): events whose tune outputs
        of the two datasets together are within 5% of it are not considered
        (used to find a second event, different from a first one).

    Returns
    -------
    list of Candidate or None
        One per objective (None if no event has a finite objective value).
    """
    n = (len(tune_a), len(tune_b))
    if n_project is None:
        beta_sel = beta / (4 * _SELECTION_PENALTY * max(1, len(scores)))
        z = float(-special.ndtri(beta_sel))
    else:
        z = SELECTION_Z if z_sel is None else float(z_sel)
    best = [None] * len(objectives)
    for score in scores:
        sa, sb = score(tune_a), score(tune_b)
        grid, orients = _orientations(sa, sb)
        for num, side, k_num, k_den in orients:
            n_num, n_den = n[num], n[1 - num]
            if n_project is None:
                lo_approx = _wilson(k_num, n_num, z)[0]
                hi_approx = _wilson(k_den, n_den, z)[1]
            else:
                zf = float(-special.ndtri(beta))
                lo_approx = _wilson(_wilson(k_num, n_num, z)[0] * n_project, n_project, zf)[0]
                hi_approx = _wilson(_wilson(k_den, n_den, z)[1] * n_project, n_project, zf)[1]
            for i, obj in enumerate(objectives):
                cond = n_project is not None and _eligible(obj, test) and 2 * beta < 1
                approx = obj.value(lo_approx, hi_approx)
                if cond:
                    # the conditional test's value at the same approximate counts (Wilson on theta)
                    zc = float(-special.ndtri(2 * beta))
                    a_num = _wilson(k_num, n_num, z)[0] * n_project
                    a_den = _wilson(k_den, n_den, z)[1] * n_project
                    th = _wilson(a_num, np.maximum(a_num + a_den, 1.0), zc)[0]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        approx_c = np.where((th > 0) & (th < 1), np.log(th) - np.log1p(-th), -np.inf)
                    approx = approx_c if test == "conditional" else np.maximum(approx, approx_c)
                if below is not None and below[i] is not None:
                    approx = np.where(k_num + k_den < below[i], approx, -np.inf)
                if avoid is not None and avoid[i] is not None:
                    approx = np.where(np.abs(k_num + k_den - avoid[i]) > 0.05 * avoid[i], approx, -np.inf)
                top = np.argsort(-approx, kind="stable")[:_SCREEN]
                top = top[np.isfinite(approx[top])]
                if top.size == 0:
                    continue
                if n_project is None:
                    lo = lower_unchecked(k_num[top], n_num, beta)
                    hi = upper_unchecked(k_den[top], n_den, beta)
                else:
                    lo = _projected(k_num[top], n_num, z, n_project, beta, upper=False)
                    hi = _projected(k_den[top], n_den, z, n_project, beta, upper=True)
                vals = obj.value(lo, hi)
                kinds = np.zeros(top.size, dtype=bool)          # True: the conditional test
                if cond:
                    vals_c = _projected_conditional(k_num[top], n_num, k_den[top], n_den, z, n_project, beta)
                    kinds = (vals_c > vals) if test == "auto" else np.ones(top.size, dtype=bool)
                    vals = np.where(kinds, vals_c, vals)
                j = int(np.argmax(vals))
                if not np.isfinite(vals[j]):
                    continue
                if best[i] is None or vals[j] > best[i].value:
                    event = Event(score, side, float(grid[top[j]]))
                    best[i] = Candidate(obj, event, num, float(vals[j]), event.describe(),
                                        (int(k_num[top[j]]), n_num, int(k_den[top[j]]), n_den),
                                        "conditional" if kinds[j] else "binomial")
    return best
