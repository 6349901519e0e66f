"""Random Fourier features for private kernel ERM (Algorithm 3).

Chaudhuri, Monteleoni and Sarwate (2011), Section 6 and Algorithm 3, after
Rahimi and Recht (2007): a shift-invariant kernel ``k(x, x') = k(x - x')`` is
the Fourier transform of a probability measure, so ``k(x, x') = E[cos(w^T x
+ psi) cos(w^T x' + psi)] * 2`` for ``w`` drawn from the kernel's spectral
measure and ``psi`` uniform on ``[-pi, pi]``. For the Gaussian kernel
``exp(-gamma ||x - x'||^2)`` the spectral measure is ``N(0, 2 gamma I)``.

:class:`RandomFourierFeatures` draws ``D`` pairs ``theta_j = (w_j, psi_j)``
once, independently of the data, and maps a row to ``phi(x) = D^{-1/2}
[cos(w_j^T x + psi_j)]_j``. Every coordinate is in ``[-D^{-1/2}, D^{-1/2}]``,
so ``||phi(x)|| <= 1`` for every ``x`` (checked exactly on the floats
returned), and ``phi(x)^T phi(x')`` estimates ``k(x, x') / 2`` (the
paper's map ``sqrt(2/D) cos(...)`` estimates ``k`` itself but has norm up to
``sqrt(2)``; dividing by ``sqrt(2)`` is the rescaling to the unit ball).

Privacy: the draws do not depend on the data and the map acts on each row
alone, so replace-one neighbours stay replace-one neighbours. Running
Algorithm 1 or 2 on the features is therefore epsilon-DP, and the draws
(``omega_``, ``psi_``) are released with the model: they are needed to
predict and reveal nothing about the data. The features need no bound on the
raw ``||x||``.

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
   Private Empirical Risk Minimization", JMLR 12:1069-1109, 2011, Algorithm 3.
.. [RR07] A. Rahimi and B. Recht, "Random Features for Large-Scale Kernel
   Machines", NIPS 2007.
"""
from __future__ import annotations

import math

import numpy as np

from ..utils.constraints import RNG, Checked, constrained, declared, validate_declared
from ..utils.validation import Interval
from ._data import feature_array, shrink_into_ball
from ._params import ParamsMixin
from ._sklearn_compat import not_fitted
from ..utils.validation import POSITIVE

__all__ = ["RandomFourierFeatures"]

#: Number of random features: at most 2**20 (a mistyped 5e8 allocated d * 5e8 normals for minutes).
COMPONENTS = Interval(int, 1, 2**20)
#: Features: a finite 2-D float array (checked by feature_array in the body, with sklearn's messages).
ROWS = Checked("a 2-dimensional array of finite floats (feature_array)",
               invalid=("abc", None, np.zeros((0, 2)), np.zeros(3), np.array([[np.nan, 0.0]])))


class RandomFourierFeatures(ParamsMixin):
    """Random Fourier features of the Gaussian kernel, rows of norm at most 1 ([CMS11]_ Algorithm 3).

    Parameters
    ----------
    n_components : int in [1, 2**20], default 100
        ``D``, the number of random features.
    gamma : float > 0, default 1.0
        Kernel ``k(x, x') = exp(-gamma ||x - x'||^2)``; ``w ~ N(0, 2 gamma I)``.
    rng : None, int, SeedSequence, BitGenerator or Generator, optional
        Source of the draws, normalised with :func:`numpy.random.default_rng`
        at :meth:`fit`.

    Attributes
    ----------
    omega_ : ndarray, shape (d, n_components)
        The frequencies ``w_j`` (columns; ``d = n_features_in_``). Public.
    psi_ : ndarray, shape (n_components,)
        The phases ``psi_j``. Public.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from refdp.erm import RandomFourierFeatures
    >>> X = np.array([[0.0, 3.0], [10.0, -2.0]])
    >>> rff = RandomFourierFeatures(n_components=50, gamma=0.5, rng=0).fit(X)
    >>> Z = rff.transform(X)
    >>> Z.shape, bool(np.all(np.linalg.norm(Z, axis=1) <= 1.0))
    ((2, 50), True)
    """

    @declared(n_components=COMPONENTS, gamma=POSITIVE, rng=RNG)
    def __init__(self, n_components=100, gamma=1.0, rng=None):
        self.n_components = n_components
        self.gamma = gamma
        self.rng = rng

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=TransformerTags(), input_tags=InputTags())

    @constrained(X=ROWS, y=Checked("ignored", invalid=()))
    def fit(self, X, y=None):
        """Draw the ``D`` pairs ``(w_j, psi_j)``; only the number of columns of ``X`` is used.

        Parameters
        ----------
        X : array_like of float, shape (n, d)
        y : ignored

        Returns
        -------
        self
        """
        owner = f"{type(self).__name__}.fit"
        p = validate_declared(type(self).__init__, self.get_params(), owner)   # scikit-learn: checked at fit
        D, gamma, rng = p["n_components"], p["gamma"], p["rng"]
        X = feature_array(X, owner, min_rows=1)
        d = X.shape[1]
        self.omega_ = rng.normal(0.0, math.sqrt(2.0 * gamma), size=(d, D))
        self.psi_ = rng.uniform(-math.pi, math.pi, size=D)
        self.n_features_in_ = d
        return self

    @constrained(X=ROWS)
    def transform(self, X):
        """``phi(x) = D^{-1/2} cos(x^T omega_ + psi_)`` per row, each of norm at most 1.

        Parameters
        ----------
        X : array_like of float, shape (q, d)

        Returns
        -------
        ndarray, shape (q, n_components)
        """
        owner = f"{type(self).__name__}.transform"
        if not hasattr(self, "omega_"):
            raise not_fitted(self)
        X = feature_array(X, owner, n_features=self.n_features_in_, min_rows=1)   # as declared
        Z = np.cos(X @ self.omega_ + self.psi_) / math.sqrt(self.omega_.shape[1])
        return shrink_into_ball(Z)

    def fit_transform(self, X, y=None):
        """``fit(X).transform(X)``."""
        return self.fit(X).transform(X)
