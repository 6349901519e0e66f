"""Pure-Python twins of refdp's compiled modules, one module per compiled module.

=========================  ====================================  =============================
compiled module            twin                                  what it computes
=========================  ====================================  =============================
``refdp/_core.pyx``        :mod:`refdp.twins.core`               walk, votes, PATE Lemma 4 and
                                                                 Theorems 1-3, log-sum-exp,
                                                                 exact integer samplers
``refdp/_lnmax.pyx``       :mod:`refdp.twins.lnmax`              exact LNMax law and analysis
``refdp/_fft.pyx``         :mod:`refdp.twins.fft`                radix-2 FFT
``refdp/_bounds.pxd``      :mod:`refdp.twins.bounds`             unit roundoff, upward margins,
                                                                 PATE Theorem 2
=========================  ====================================  =============================

Each twin function has the name of the kernel it mirrors and performs the
same operations in the same order; the tests and ``refdp verify`` require
equal results. The rest of refdp reaches kernels and twins through
:mod:`refdp.core` (``docs/kernels.rst``).
"""
