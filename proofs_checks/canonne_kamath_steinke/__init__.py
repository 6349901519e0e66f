"""Checks of Canonne, Kamath and Steinke, "The Discrete Gaussian for
Differential Privacy" (NeurIPS 2020): discrete Laplace and discrete Gaussian
privacy (Theorem 4), the exact samplers' laws and the secure-noise grids.
"""
