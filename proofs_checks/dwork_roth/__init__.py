"""Checks of Dwork and Roth, "The Algorithmic Foundations of Differential
Privacy" (2014): the Laplace mechanism, randomised response and report-
noisy-max.
"""
