"""refdp: a reference implementation of differentially private prediction and
learning, with exact (mpmath) verification of every privacy claim.

Subpackages
-----------
core        validated entry points to the compiled kernels
mechanisms  Laplace, Gaussian, exponential mechanism, report-noisy-max, spherical Laplace
accounting  conversions, composition, moments accountant to (epsilon, delta)
prediction  private prediction (Dwork & Feldman 2018): projected walk, soft majority,
            averaging, stability-based prediction, convex regression
learning    exponential-mechanism learning and one posterior sample (lecture notes)
verify      exact divergences, fail-closed verdicts and the check registry
"""
__version__ = "0.1.0"

__all__ = ["__version__"]
