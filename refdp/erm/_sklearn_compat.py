"""Exception and warning classes that scikit-learn's estimator checks recognise.

refdp never imports scikit-learn. When scikit-learn's exception module is
already loaded (it is whenever its estimator checks or meta-estimators are
running), the classes raised here also derive from scikit-learn's own
``NotFittedError`` and ``DataConversionWarning``, so that code catching those
catches refdp's too. Every error stays a :class:`ValueError`.
"""
from __future__ import annotations

import sys
import warnings

__all__ = ["NotFittedError", "DataConversionWarning", "FeatureTypeError", "not_fitted", "warn_column_vector"]


class NotFittedError(ValueError, AttributeError):
    """A prediction method was called before ``fit``."""


class DataConversionWarning(UserWarning):
    """The input was converted (a column vector of labels was flattened)."""


class FeatureTypeError(ValueError, TypeError):
    """Features of a type that cannot be read as real numbers (e.g. a dict)."""


_MIXED: dict = {}


def _with_sklearn(cls, name):
    exc = sys.modules.get("sklearn.exceptions")
    other = getattr(exc, name, None) if exc is not None else None
    if other is None:
        return cls
    key = (cls, other)
    if key not in _MIXED:
        _MIXED[key] = type(cls.__name__, (cls, other), {"__module__": cls.__module__})
    return _MIXED[key]


def not_fitted(estimator) -> NotFittedError:
    """The error raised by prediction methods of an unfitted estimator."""
    cls = _with_sklearn(NotFittedError, "NotFittedError")
    return cls(f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) first.")


def warn_column_vector():
    """Warn that a column vector of labels was flattened."""
    warnings.warn("A column-vector y was passed when a 1d array was expected; it was flattened.",
                  _with_sklearn(DataConversionWarning, "DataConversionWarning"), stacklevel=4)
