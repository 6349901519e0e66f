"""PATE: Private Aggregation of Teacher Ensembles (Papernot et al., ICLR 2017), end to end.

One concept per module:

==========================  ===============================================================
``teachers``                disjoint partition (by record or by group key), teachers, votes
``aggregation``             LNMax labels for a batch of queries, (2 gamma, 0)-DP each
``lnmax_law``               exact LNMax output law (compiled float kernel; mpmath twin)
``exact``                   exact q and exact worst-case log-moments over neighbours
``exact_delta``             exact data-dependent privacy profile delta(eps) of T LNMax answers
``discrete_analysis``       Lemma 4, exact q, worst-case moments for the discrete noise
``accountant``              moments accountant (Theorems 1-3, Lemma 4), one-call analysis
``smooth_sensitivity``      differentially private release of the data-dependent epsilon
``student``                 budgeted labelling of public points, student training
``cli``                     ``refdp pate``: the analyses of a vote file
==========================  ===============================================================

The theory (proofs of every bound refdp adds to the paper) is in
docs/theory/pate.rst, for the default discrete noise of ``lnmax_labels`` in
docs/theory/pate_discrete.rst; the user guide in docs/pate.rst.
"""
from .accountant import ANALYSES, PATEAccountant, PATEAnalysis, pate_analysis
from .aggregation import lnmax_labels
from .exact import ExactAnalysis, exact_analysis
from .exact_delta import ExactDelta, exact_delta
from .lnmax_law import lnmax_distribution
from .smooth_sensitivity import (EpsilonRelease, SmoothSensitivity, release_epsilon,
                                 smooth_laplace_parameters, smooth_sensitivity)
from .student import PATEStudent, data_independent_budget, data_independent_epsilon
from .teachers import PATETeachers, partition_by_group, partition_by_record

__all__ = [
    "PATETeachers", "partition_by_record", "partition_by_group",
    "lnmax_labels", "lnmax_distribution",
    "ExactAnalysis", "exact_analysis", "ExactDelta", "exact_delta",
    "ANALYSES", "PATEAccountant", "PATEAnalysis", "pate_analysis",
    "SmoothSensitivity", "EpsilonRelease", "smooth_sensitivity", "smooth_laplace_parameters",
    "release_epsilon",
    "PATEStudent", "data_independent_budget", "data_independent_epsilon",
    "PRIVATE_MECHANISMS",
]

#: Fully qualified names of the public functions and methods of refdp.pate that
#: release private output; each is covered by a check in proofs_checks/pate/.
PRIVATE_MECHANISMS = (
    "refdp.pate.lnmax_labels",
    "refdp.pate.PATETeachers.noisy_labels",
    "refdp.pate.PATEStudent.fit",
    "refdp.pate.release_epsilon",
)
