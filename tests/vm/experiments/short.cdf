# SPDX-License-Identifier: GPL-2.0-only
# Short flows of the scheduling scenario (make experiments, sched): 3 KB to 60 KB, uniform, as
# the ECN# journal's probe flows (Fig. 19); bytes, cumulative probability (ecnsharp-flowgen --cdf).
3000 0
60000 1
