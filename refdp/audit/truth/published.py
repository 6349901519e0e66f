"""Lower bounds published by DP-Sniper and StatDP for the benchmark mechanisms, with their pairs.

Source: the reference results released with DP-Sniper (Bichsel, Steffen,
Bogunovic and Vechev, IEEE S&P 2021) in the repository
github.com/eth-sri/dp-sniper, folder ``eval_sp2021/reference-results``:

* ``dd_search_reg_data.log`` (DP-Sniper, logistic regression) and
  ``dd_search_mlp_data.log`` (DP-Sniper, neural network): the field
  ``eps_lcb`` (a lower confidence bound at 90% confidence) and the pair
  ``best_result.a1 / a2`` it was found on;
* ``statdp_1_data.log`` and ``statdp_2_data.log`` (two runs of StatDP, Ding et
  al., CCS 2018, as wrapped for that evaluation): ``statdp_result.eps_lcb`` and
  its pair. StatDP ran its own implementations with the arguments of
  ``statdpwrapper/experiments/mechanism_config.py``; they match the
  mechanisms here except SparseVectorTechnique5, run with epsilon 0.05, and
  RAPPOR, whose input is hashed as ``str(float)`` ("1.0") where DP-Sniper
  hashes ``str(int)`` ("1").

StatDP's own paper reports p-values, not epsilon bounds, so the StatDP
numbers here are those of the runs above. Values are rounded to 4 digits
(downwards, so that a rounded bound is still a lower bound). ``None``: the
tool was not run on the mechanism (not found).
"""
from __future__ import annotations

__all__ = ["PUBLISHED"]

_X = ((1, 1, 1, 1, 1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1, 1, 1, 1, 1))
_ONE = (1,) * 10
_HALF = (2, 2, 2, 2, 2, 0, 0, 0, 0, 0)

#: name -> {tool: (lower bound, (D, D'))}
PUBLISHED = {
    "LaplaceMechanism": {"DP-Sniper (LR)": (0.0968, ((1,), (2,))), "DP-Sniper (MLP)": (0.0976, ((0,), (1,))),
                         "StatDP run 1": (0.0998, ((1,), (0,))), "StatDP run 2": (0.0996, ((1,), (2,)))},
    "TruncatedGeometricMechanism": {"DP-Sniper (LR)": (0.1155, ((2,), (1,))),
                                    "DP-Sniper (MLP)": (0.1155, ((2,), (1,))),
                                    "StatDP run 1": (0.1158, ((1,), (2,))), "StatDP run 2": (0.1168, ((1,), (0,)))},
    "NoisyHist1": {"DP-Sniper (LR)": (0.0977, ((0, 1, 1, 1, 1), (1, 1, 1, 1, 1))),
                   "DP-Sniper (MLP)": (0.0976, ((1, 1, 1, 1, 1), (0, 1, 1, 1, 1))),
                   "StatDP run 1": (0.0828, ((1, 1, 1, 1, 1), (2, 1, 1, 1, 1))),
                   "StatDP run 2": (0.0994, ((1, 1, 1, 1, 1), (2, 1, 1, 1, 1)))},
    "NoisyHist2": {"DP-Sniper (LR)": (4.602, ((0, 1, 1, 1, 1), (1, 1, 1, 1, 1))),
                   "DP-Sniper (MLP)": (4.6014, ((1, 1, 1, 1, 1), (2, 1, 1, 1, 1))),
                   "StatDP run 1": (9.7169, ((1, 1, 1, 1, 1), (2, 1, 1, 1, 1))),
                   "StatDP run 2": (10.0021, ((1, 1, 1, 1, 1), (2, 1, 1, 1, 1)))},
    "ReportNoisyMax1": {"DP-Sniper (LR)": (0.0922, ((1,) * 5, (0, 2, 2, 2, 2))),
                        "DP-Sniper (MLP)": (0.0925, ((1,) * 5, (0, 2, 2, 2, 2))),
                        "StatDP run 1": (0.0919, ((1,) * 5, (2, 0, 0, 0, 0))),
                        "StatDP run 2": (0.0921, ((1,) * 5, (2, 0, 0, 0, 0)))},
    "ReportNoisyMax2": {"DP-Sniper (LR)": (0.0975, ((1,) * 5, (0, 2, 2, 2, 2))),
                        "DP-Sniper (MLP)": (0.0979, ((1,) * 5, (0, 2, 2, 2, 2))),
                        "StatDP run 1": (0.0995, ((1,) * 5, (0, 2, 2, 2, 2))),
                        "StatDP run 2": (0.0996, ((1,) * 5, (2, 0, 0, 0, 0)))},
    "ReportNoisyMax3": {"DP-Sniper (LR)": (0.2478, ((0,) * 5, (1,) * 5)),
                        "DP-Sniper (MLP)": (0.2488, ((1,) * 5, (2,) * 5)),
                        "StatDP run 1": (0.1991, ((1,) * 5, (2,) * 5)),
                        "StatDP run 2": (0.1960, ((1,) * 5, (0,) * 5))},
    "ReportNoisyMax4": {"DP-Sniper (LR)": (0.3463, ((1,) * 5, (2,) * 5)),
                        "DP-Sniper (MLP)": (0.3534, ((1,) * 5, (2,) * 5)),
                        "StatDP run 1": (0.1960, ((1,) * 5, (2,) * 5)),
                        "StatDP run 2": (0.1988, ((1,) * 5, (0,) * 5))},
    "SparseVectorTechnique1": {"DP-Sniper (LR)": (0.0857, (_X[1], _X[0])),
                               "DP-Sniper (MLP)": (0.0857, (_ONE, _HALF)),
                               "StatDP run 1": (0.0297, _X), "StatDP run 2": (0.0298, _X)},
    "SparseVectorTechnique2": {"DP-Sniper (LR)": (0.0859, (_X[1], _X[0])),
                               "DP-Sniper (MLP)": (0.0852, (_X[1], _X[0])),
                               "StatDP run 1": (0.0316, (_ONE, _HALF)), "StatDP run 2": (0.0406, (_ONE, _HALF))},
    "SparseVectorTechnique3": {"DP-Sniper (LR)": (0.1715, (_ONE, _HALF)),
                               "DP-Sniper (MLP)": (0.1821, (_X[1], _X[0])),
                               "StatDP run 1": (0.0230, (_ONE, (0,) + (1,) * 9)),
                               "StatDP run 2": (0.1792, (_ONE, (2,) + (0,) * 9))},
    "SparseVectorTechnique4": {"DP-Sniper (LR)": (0.1686, (_ONE, _HALF)),
                               "DP-Sniper (MLP)": (0.1695, (_ONE, _HALF)),
                               "StatDP run 1": (0.1708, (_ONE, _HALF)), "StatDP run 2": (0.1719, (_ONE, _HALF))},
    "SparseVectorTechnique5": {"DP-Sniper (LR)": (1.7611, (_HALF, _ONE)),
                               "DP-Sniper (MLP)": (1.7609, ((0,) + (2,) * 9, _ONE)),
                               "StatDP run 1": (14.3143, (_ONE, _HALF)),
                               "StatDP run 2": (14.3143, (_ONE, (0,) + (2,) * 9))},
    "SparseVectorTechnique6": {"DP-Sniper (LR)": (0.2720, _X), "DP-Sniper (MLP)": (0.2698, (_X[1], _X[0])),
                               "StatDP run 1": (0.3220, _X), "StatDP run 2": (0.3199, _X)},
    "Rappor": {"DP-Sniper (LR)": (0.2929, ((1,), (0,))), "DP-Sniper (MLP)": (0.3008, ((1,), (0,))),
               "StatDP run 1": (0.2415, ((1.0,), (0.0,))), "StatDP run 2": (0.0242, ((1.0,), (0.0,)))},
    "OneTimeRappor": {"DP-Sniper (LR)": (0.5977, ((1,), (0,))), "DP-Sniper (MLP)": (0.5998, ((0,), (1,))),
                      "StatDP run 1": (0.4706, ((1.0,), (2.0,))), "StatDP run 2": (0.0601, ((1.0,), (0.0,)))},
    "LaplaceParallel": {"DP-Sniper (LR)": (0.0349, ((1,), (0,))), "DP-Sniper (MLP)": (0.0298, ((0,), (1,))),
                        "StatDP run 1": (0.0125, ((1,), (2,))), "StatDP run 2": (0.0134, ((1,), (2,)))},
    "PrefixSum": {"DP-Sniper (LR)": (0.5040, (_ONE, (0,) * 10)), "DP-Sniper (MLP)": (0.5774, (_ONE, (0,) * 10)),
                  "StatDP run 1": (0.3516, (_ONE, (2,) * 10)), "StatDP run 2": (0.3445, (_ONE, (0,) * 10))},
    "NumericalSVT": {"DP-Sniper (LR)": (0.0343, ((2,) * 10, _ONE)), "DP-Sniper (MLP)": (0.0345, _X),
                     "StatDP run 1": None, "StatDP run 2": None},
    "SVT34Parallel": {"DP-Sniper (LR)": (0.2610, (_ONE, _HALF)), "DP-Sniper (MLP)": (0.2616, (_ONE, _HALF)),
                      "StatDP run 1": (0.1370, (_ONE, (0,) + (2,) * 9)),
                      "StatDP run 2": (0.1963, (_ONE, (0,) * 10))},
    "NoisyMax (Gumbel)": {"DP-Sniper (LR)": None, "DP-Sniper (MLP)": None,
                          "StatDP run 1": None, "StatDP run 2": None},
}
