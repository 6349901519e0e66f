"""Checks of the lecture notes on private learning (Y.-X. Wang, "DPML I:
Introduction and Posterior Sampling"): the exponential-mechanism learner,
one posterior sample, the utility bound and Claim 9.10.
"""
