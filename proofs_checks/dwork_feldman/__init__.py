"""Checks of Dwork and Feldman, "Privacy-preserving Prediction" (COLT 2018):
soft majority (Theorem 4.1), stability and averaging (Lemmas 4.5, 4.6,
Corollary 4.7, Theorems 4.9, 4.12), the projected walk (Section 5) and
generalisation (Lemma 6.4).
"""
