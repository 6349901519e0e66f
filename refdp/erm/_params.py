"""The scikit-learn parameter protocol (``get_params`` / ``set_params``), without scikit-learn.

Parameters are the arguments of ``__init__``, stored unchanged as attributes
of the same name and validated when they are used (in ``fit``), as
scikit-learn's estimator checks require.
"""
from __future__ import annotations

import functools
import inspect

from ..utils.validation import parameter_error

__all__ = ["ParamsMixin"]


class ParamsMixin:
    """``get_params``, ``set_params`` and a ``repr`` built from the ``__init__`` signature."""

    @classmethod
    def _param_names(cls):
        return list(_init_parameter_names(cls.__init__))

    def get_params(self, deep=True):
        """The constructor parameters, as a dict (scikit-learn protocol)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set constructor parameters; an unknown name raises ``ValueError``. Returns self."""
        names = self._param_names()
        for key, value in params.items():
            if key not in names:
                raise parameter_error(key, type(self).__name__, "a parameter name among "
                                      + ", ".join(names), key)
            setattr(self, key, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


@functools.lru_cache(maxsize=64)
def _init_parameter_names(init):
    """The parameter names of an ``__init__`` (without ``self``), read once per function object."""
    return tuple(p for p in inspect.signature(init).parameters if p != "self")
