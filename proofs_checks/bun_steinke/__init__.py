"""Checks of Bun and Steinke, "Concentrated Differential Privacy" (TCC 2016):
the Gaussian mechanism's zCDP (Proposition 1.6) and its noise law.
"""
