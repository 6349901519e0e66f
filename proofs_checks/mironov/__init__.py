"""Checks of the Rényi-DP conversions: Mironov, "Rényi Differential Privacy"
(CSF 2017, Proposition 3) with the improvement of Canonne, Kamath and
Steinke (2020, Proposition 12), and the pure-DP/zCDP conversions of Bun and
Steinke (2016, Propositions 1.3 and 1.4).
"""
