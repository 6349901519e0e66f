"""The data assumption of private ERM: feature rows in the unit ball, labels +-1.

Chaudhuri, Monteleoni and Sarwate (2011) assume ``||x_i|| <= 1`` (Section
2.1); both sensitivity arguments use it. Data outside the ball is an error
unless the caller asks for one of two public, row-wise maps, which are then
part of the mechanism:

* ``norm_bound = B``: every row is divided by the public bound ``B`` (rows
  with ``||x|| > B`` are an error unless ``clip=True``);
* ``clip=True``: a row with ``||x|| > B`` is projected onto the sphere of
  radius ``B`` before the division, i.e. ``x -> x / max(B, ||x||)``.

Each map acts on one record at a time and does not look at the others, so
replace-one neighbours stay replace-one neighbours and the privacy guarantee
of the mechanism that follows is unchanged. After the map, a row whose
computed norm exceeds 1 by rounding is shrunk by a few units in the last
place, so that ``||x|| <= 1`` holds exactly for the floats the solver sees
(decided in rational arithmetic).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import core
from ..utils.rounding import UNIT_ROUNDOFF as _U
from ..utils.validation import Described, Interval, check_array, check_scalar, parameter_error
from ..utils.validation import check_flag
from ..utils.partition import check_classes, labels_to_indices
from ._sklearn_compat import FeatureTypeError, warn_column_vector
from ..utils.validation import POSITIVE

__all__ = ["feature_array", "unit_ball_rows", "rows_above", "shrink_into_ball", "signed_labels",
           "label_array", "check_classes", "prepare", "prepare_data"]



def rows_above(X, radius=1.0, sq=None):
    """Indices of the rows of ``X`` whose exact Euclidean norm exceeds ``radius``.

    Rows comfortably inside (float sum of squares below ``radius**2`` by more
    than its relative rounding error ``(d + 2) 2**-53``, with a factor 4 of
    margin) are accepted in floating point; the others are decided by a
    compensated (double-double) sum with a rigorous error bound (the
    compiled screen :func:`refdp.core.row_norm_sign`, one pass over those
    rows), and the few it cannot decide in exact integer
    arithmetic on the significands (:func:`_exact_sq_norm`). ``sq``: the
    rows' float sums of squares ``np.einsum("ij,ij->i", X, X)`` if already
    computed.
    """
    if sq is None:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            sq = np.einsum("ij,ij->i", X, X)
    margin = 1.0 - 4.0 * (X.shape[1] + 2) * _U
    with np.errstate(over="ignore", under="ignore"):
        limit = radius * radius * margin
    sure_above = np.empty(0, dtype=np.int64)
    if 2.0 ** -900 <= limit < np.inf:
        # the float sum of squares is within (d + 2) 2**-53 relative of the exact one, plus at most
        # d 2**-1074 absolute from squares in the subnormal range: negligible against this limit
        near = np.flatnonzero(~(sq <= limit))
    else:
        # radius**2 underflows or overflows, so the float sum of squares cannot decide (0 <= 0,
        # inf <= inf). The largest entry m bounds the norm: m <= ||x|| <= m sqrt(d).
        d = X.shape[1]
        m = np.max(np.abs(X), axis=1)
        sure_above = np.flatnonzero(m > radius)
        inside = radius * (1.0 - 8.0 * (d + 2) * _U) / np.sqrt(d) if radius >= 2.0 ** -1000 else 0.0
        near = np.flatnonzero(~(m > radius) & ~(m <= inside))
    if not near.size:
        return sure_above.astype(np.int64)
    sign = core.row_norm_sign(X[near], radius)
    undecided = near[sign == 0]
    r2 = Fraction(radius) ** 2
    above = [i for i, q in zip(undecided, _exact_sq_norm(X[undecided])) if q > r2] if undecided.size else []
    found = [near[sign > 0], np.asarray(above, dtype=np.int64), sure_above]
    return np.sort(np.concatenate(found)).astype(np.int64)


def _exact_sq_norm(rows):
    """Exact squared norms of float vectors (a 1-D row or the rows of a 2-D array), as Fractions.

    Each double is ``M 2**E`` with an integer ``M`` of at most 53 bits; the
    squares are summed as Python integers in units of the smallest ``2**(2E)``.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    m, e = np.frexp(rows)                            # rows = m * 2**e, |m| in [0.5, 1) or 0
    M = (m * 2.0 ** 53).astype(np.int64).tolist()    # exact: m has at most 53 significant bits
    E = (e.astype(np.int64) - 53).tolist()
    out = []
    for Mi, Ei in zip(M, E):
        nz = [(a, b) for a, b in zip(Mi, Ei) if a]
        if not nz:
            out.append(Fraction(0))
            continue
        low = min(b for _, b in nz)
        total = sum(a * a << (2 * (b - low)) for a, b in nz)
        out.append(Fraction(total << (2 * low)) if low >= 0 else Fraction(total, 1 << (-2 * low)))
    return out


def feature_array(X, owner, name="X", n_features=None, min_rows=0, check_finite=True):
    """A finite, real, dense 2-D float64 array with at least one column and ``min_rows`` rows.

    ``n_features``, if given, is the required number of columns.
    ``check_finite=False`` leaves the NaN / inf check to the caller
    (:func:`check_finite_rows`).

    Raises
    ------
    ValueError
        For sparse or complex input, a wrong number of dimensions, rows or
        columns, or NaN / inf entries.
    """
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise parameter_error(name, owner, "a dense array (sparse input is not supported)", X)
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):
        raise parameter_error(name, owner, "an array-like of real numbers", X) from None
    if arr.dtype.kind == "c":
        raise parameter_error(name, owner, "an array of real numbers (Complex data not supported)", arr)
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except TypeError as exc:        # e.g. a dict among the features
            err = parameter_error(name, owner, f"an array of real numbers ({exc})", arr)
            raise FeatureTypeError(str(err)) from None
    if arr.ndim == 1:
        raise parameter_error(name, owner, "a 2-dimensional array (Reshape your data with "
                              "X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one sample)", arr)
    X = check_array(arr, name, owner, ndim=2, finite=False)
    if X.shape[1] < 1:
        raise parameter_error(name, owner, "an array with at least one column (0 feature(s) "
                              f"(shape={X.shape}) while a minimum of 1 is required.)", X)
    if X.shape[0] < min_rows:
        raise parameter_error(name, owner, f"an array with at least {min_rows} row(s) ({X.shape[0]} "
                              f"sample(s) (shape={X.shape}) while a minimum of {min_rows} is required.)", X)
    if check_finite:
        check_finite_rows(X, owner, name)
    if n_features is not None and X.shape[1] != n_features:
        raise parameter_error(
            name, owner, f"an array with {n_features} columns (X has {X.shape[1]} features, but "
            f"{owner.split('.')[0]} is expecting {n_features} features as input)", X)
    return X


def check_finite_rows(X, owner, name="X", sq=None):
    """Raise the standard error if ``X`` holds a NaN or an infinity.

    ``sq``: the rows' float sums of squares, if computed. A sum of squares
    is finite only if every square is (NaN and infinities propagate and no
    term is negative), so finite ``sq`` decide without a second pass; an
    infinite one (a NaN, an infinity, or an overflow of finite entries) is
    decided entry by entry.
    """
    if not X.size or (sq is not None and np.all(np.isfinite(sq))) or np.all(np.isfinite(X)):
        return
    bad = tuple(int(i) for i in np.argwhere(~np.isfinite(X))[0])
    raise parameter_error(name, owner, "an array of finite numbers (no NaN or inf)",
                          Described(f"{float(X[bad])} at position {bad}"))


def unit_ball_rows(X, owner, *, norm_bound=1.0, clip=False, name="X"):
    """Validate features and map them into the unit ball (see the module docstring).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Finite, ``n >= 1``, ``d >= 1``.
    owner : str
        Name used in error messages.
    norm_bound : float > 0, default 1.0
        Public bound ``B`` on ``||x||``.
    clip : bool, default False
        Project rows with ``||x|| > B`` onto the sphere of radius ``B``
        instead of raising.

    Returns
    -------
    ndarray of float64, shape (n, d)
        Rows ``x / max(B, ||x||)`` (``x / B`` when nothing is clipped), each
        with exact norm at most 1.

    Raises
    ------
    ValueError
        On NaN or infinite features, an empty array, or a row with ``||x|| >
        B`` when ``clip`` is False.
    """
    B = check_scalar(norm_bound, "norm_bound", owner, POSITIVE)
    clip = check_flag(clip, "clip", owner)
    X = feature_array(X, owner, name, min_rows=1, check_finite=False)
    with np.errstate(over="ignore", invalid="ignore"):
        sq = np.einsum("ij,ij->i", X, X)
    check_finite_rows(X, owner, name, sq)      # one pass over the rows for both
    big = rows_above(X, B, sq)
    if big.size and not clip:
        i = int(big[0])
        norm = float(_scaled_norms(X[i:i + 1])[0])
        note = " (above the bound in exact arithmetic)" if norm <= B else ""
        raise parameter_error(
            name, owner, f"an array of rows with Euclidean norm at most 'norm_bound' = {B!r} "
            "(or pass clip=True to project larger rows onto that sphere)",
            Described(f"a row of norm {norm!r}{note} at position {i}"))
    if B == 1.0 and not big.size:
        return X                      # already inside, decided exactly
    Z = X / B if B != 1.0 else X.copy()
    if big.size:
        Z[big] = _onto_sphere(X[big])
    # only divided or clipped rows can have moved above 1 (by rounding)
    return shrink_into_ball(Z, None if B != 1.0 else big)


def _scaled_norms(X):
    """Float Euclidean norms of the rows of ``X`` without overflow or underflow (each row scaled by its max |x_j|)."""
    m = np.max(np.abs(X), axis=1)
    safe = np.where(m > 0, m, 1.0)
    return m * np.linalg.norm(X / safe[:, None], axis=1)


def _onto_sphere(Xb):
    """Rows ``x / ||x||`` of the nonzero finite rows ``Xb`` (norm 1 up to rounding, fixed by :func:`shrink_into_ball`).

    A row whose float sum of squares is a normal, finite number is divided by
    its plain norm (the map the recorded releases were made with). The others
    (entries near 1e154 or above, whose squares overflow, or rows so small that
    their squares are subnormal or zero) are first divided by their largest
    ``|x_j|``, so the norm is taken of a row with entries in [-1, 1] and
    largest entry 1: the direction is kept instead of the row becoming zeros
    (division by an infinite norm) or NaN (division by a zero norm).
    """
    with np.errstate(over="ignore", under="ignore"):
        plain = np.linalg.norm(Xb, axis=1)
    ok = np.isfinite(plain) & (plain >= 2.0 ** -480)
    Z = np.empty_like(Xb)
    Z[ok] = Xb[ok] / plain[ok][:, None]
    if not np.all(ok):
        Y = Xb[~ok]
        Y = Y / np.max(np.abs(Y), axis=1)[:, None]
        Z[~ok] = Y / np.linalg.norm(Y, axis=1)[:, None]
    return Z


def shrink_into_ball(Z, rows=None):
    """Shrink (in place) the rows of ``Z`` whose exact norm exceeds 1 by rounding; returns ``Z``.

    Each such row is multiplied by ``1 - 2**-51`` until its exact norm is at
    most 1 (a row-wise map that depends on that row only). ``rows`` limits
    the search to those indices (all rows if None).
    """
    idx = np.arange(Z.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    if idx.size and not np.all(np.isfinite(Z[idx])):
        # a non-finite entry would never shrink below 1; the maps above keep every entry finite
        raise ArithmeticError("shrink_into_ball: a row holds a non-finite entry after the map into the ball")
    bad = idx[rows_above(Z[idx])] if idx.size else idx
    while bad.size:
        Z[bad] *= 1.0 - 4.0 * _U
        bad = bad[rows_above(Z[bad])]
    return Z


def label_array(y, owner):
    """``y`` as a 1-D array; a column vector is flattened with a warning.

    Raises
    ------
    ValueError
        If ``y`` is None or has another shape than ``(n,)`` or ``(n, 1)``.
    """
    if y is None:
        raise parameter_error("y", owner, "an array of labels (requires y to be passed, but the target "
                              "y is None)", y)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warn_column_vector()
        y = y[:, 0]
    if y.ndim != 1:
        raise parameter_error("y", owner, "a 1-dimensional array of labels (y should be a 1d array)", y)
    return y


def signed_labels(y, classes, n, owner):
    """Map labels to ``-1.0`` (``classes[0]``) and ``+1.0`` (``classes[1]``).

    Raises
    ------
    ValueError
        If ``y`` does not have shape ``(n,)`` or holds a label that is not one
        of the two declared classes.
    """
    y = label_array(y, owner)
    if y.shape[0] != n:
        raise parameter_error("y", owner, f"a 1-dimensional array of shape ({n},), one label per row of 'X'",
                              y)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise parameter_error("y", owner, "an array of finite labels", y)
    if y.dtype.kind in "biuf" and np.asarray(classes).dtype.kind in "biuf" and len(classes) == 2:
        # two numeric classes: the same matches as labels_to_indices (equality), without its sort
        positive = y == classes[1]
        if np.all(positive | (y == classes[0])):
            return np.where(positive, 1.0, -1.0)
    idx = labels_to_indices(y, classes, "y", owner)
    return np.where(idx == 1, 1.0, -1.0)


PM1 = np.array([-1, 1])
TOL = POSITIVE


def prepare(owner, X, y, loss, epsilon, regularization, *, tol, norm_bound=1.0, clip=False, classes=PM1,
            budget_name="epsilon"):
    """Validate the common inputs of the ERM mechanisms.

    ``epsilon`` is the privacy parameter, a float in ``(0, inf)``, named
    ``budget_name`` in error messages (``"rho"`` for the zCDP releases).

    Returns
    -------
    Z : ndarray, shape (n, d)
        Preprocessed rows (:func:`unit_ball_rows`).
    ys : ndarray, shape (n,)
        Labels in ``{-1.0, +1.0}``.
    loss, epsilon, regularization, tol
        Validated.
    """
    from ..utils.losses import check_loss

    loss = check_loss(loss, owner)
    epsilon = check_scalar(epsilon, budget_name, owner, POSITIVE)
    regularization = check_scalar(regularization, "regularization", owner, POSITIVE)
    tol = check_scalar(tol, "tol", owner, TOL)
    Z = unit_ball_rows(X, owner, norm_bound=norm_bound, clip=clip)
    ys = signed_labels(y, classes, Z.shape[0], owner)
    return Z, ys, loss, epsilon, regularization, tol


def prepare_data(owner, X, y, *, norm_bound, clip, classes):
    """The rows and labels of an ERM release, from arguments whose other constraints are checked.

    ``norm_bound`` (a float > 0), ``clip`` (a bool) and ``classes`` (the
    array of :func:`check_classes`) are already validated by the caller's
    declared constraints; this maps ``X`` with :func:`unit_ball_rows` and
    ``y`` with :func:`signed_labels`.

    Returns
    -------
    Z : ndarray, shape (n, d)
    ys : ndarray, shape (n,)
    """
    Z = unit_ball_rows(X, owner, norm_bound=norm_bound, clip=clip)
    return Z, signed_labels(y, classes, Z.shape[0], owner)
