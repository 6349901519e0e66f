"""Checks of Ghosh, Roughgarden and Sundararajan, "Universally Utility-
Maximizing Privacy Mechanisms" (STOC 2009): the geometric mechanism at every
epsilon.
"""
