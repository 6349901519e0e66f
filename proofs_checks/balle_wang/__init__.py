"""Checks of Balle and Wang, "Improving the Gaussian Mechanism for Differential
Privacy" (ICML 2018): the analytic Gaussian mechanism's exact privacy
profile.
"""
