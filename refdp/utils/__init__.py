"""Parts shared by every package of refdp.

Nothing here belongs to one paper. A module of one package never imports a
private (underscore) module of another; what two packages share lives here
(``tests/test_layout.py`` checks both rules, and that this package imports no
paper's package).

=====================  ==========================================================
module                 holds
=====================  ==========================================================
``validation``         parameter checks and the one error-message shape
``constraints``        parameter constraints declared as data (``@constrained``)
``precision``          mpmath / interval contexts owned by the call
``rounding``           doubles rounded toward safety; the unit roundoff,
                       ``gamma_k``, the exact-integer limit, upward dyadics
``exact``              exact conversions of inputs (``to_fraction``, ``to_mpf``)
``inversion``          certified inverse-CDF sampling of a finite law
``lazy_noise``         lazily revealed exact noise (Laplace, Gaussian vectors)
``losses``             the margin losses of ERM and the losses of the
                       prediction-stable learners (one ``LogisticLoss``)
``solver``             the certified Newton solver of regularised ERM
``partition``          partitions of a training set and the teachers trained on
                       its parts
``votes``              teachers' vote counts, as PATE and its accounting read them
``rng``                independent child streams of one generator
``repr``               the ``Name(param=value, ...)`` repr of estimators
``fftconv``            FFT convolution with a certified entrywise error bound
``pld``                privacy-loss distributions on a grid with certified
                       masses: composition, profile bounds (accounting, PATE)
=====================  ==========================================================
"""
