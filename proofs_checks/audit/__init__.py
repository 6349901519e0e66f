"""Checks of refdp's audit API: exact Clopper–Pearson coverage (Clopper and
Pearson 1934), the black-box audit's false-alarm rate, and the exact epsilon
of the audit benchmarks (Ding et al. 2018; Bichsel et al. 2021; Lyu, Su and
Li 2017).
"""
