"""Checks of Wang, Kifer and Lee, "Differentially Private Confidence Intervals
for Empirical Risk Minimization" (Journal of Privacy and Confidentiality
2019): improved objective perturbation, the zCDP releases, the matrix
sensitivities and the intervals' budget and coverage.
"""
