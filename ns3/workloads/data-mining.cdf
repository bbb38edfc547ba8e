# SPDX-License-Identifier: GPL-2.0-only
# Data mining flow sizes (VL2, Greenberg et al., SIGCOMM 2009), as the ECN# paper uses them
# (its Figure 5): bytes, cumulative probability, from the usual tabulation in packets of 1460
# bytes (1, 2, 3, 7, 267, 2107, 66667, 666667). Sampled with linear interpolation.
1460 0
1460 0.5
2920 0.6
4380 0.7
10220 0.8
389820 0.9
3076220 0.95
97333820 0.99
973333820 1
