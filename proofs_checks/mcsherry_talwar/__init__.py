"""Checks of McSherry and Talwar, "Mechanism Design via Differential Privacy"
(FOCS 2007): the exponential mechanism.
"""
