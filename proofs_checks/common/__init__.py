"""Helpers shared by the checks of several papers (exact laws of samplers,
exhaustive sweeps, stability searches, the certified ERM reference,
composition sums). They register no check.
"""
