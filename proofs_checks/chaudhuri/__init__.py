"""Checks of Chaudhuri, Monteleoni and Sarwate, "Differentially Private
Empirical Risk Minimization" (JMLR 2011): output perturbation (Theorem 1),
objective perturbation (Theorem 2), private tuning (Algorithm 4), the
spherical Laplace noise and the white-box audit.
"""
