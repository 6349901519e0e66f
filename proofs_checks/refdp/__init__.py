"""Checks of refdp's own lemmas (docs/theory): certified inversion, compiled
kernels equal to their Python twins, privacy-profile enclosures and Rényi
divergence enclosures.
"""
