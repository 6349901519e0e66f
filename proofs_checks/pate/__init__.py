"""Checks of PATE: Papernot, Abadi, Erlingsson, Goodfellow and Talwar, "Semi-
supervised Knowledge Transfer for Deep Learning from Private Training Data"
(ICLR 2017), Theorems 1-3 and Lemma 4, and the smooth-sensitivity release of
Papernot et al. (ICLR 2018).
"""
