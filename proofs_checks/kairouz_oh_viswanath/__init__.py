"""Checks of Kairouz, Oh and Viswanath, "The Composition Theorem for
Differential Privacy" (ICML 2015): optimal composition (Theorem 3.3) against
brute force, and the composition bounds it dominates.
"""
