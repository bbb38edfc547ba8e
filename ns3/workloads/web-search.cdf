# SPDX-License-Identifier: GPL-2.0-only
# Web search flow sizes (DCTCP paper, Alizadeh et al., SIGCOMM 2010), as the ECN# paper uses
# them (its Figure 5): bytes, cumulative probability. The distribution is usually tabulated in
# packets of 1460 bytes (6, 13, 19, 33, 53, 133, 667, 1333, 3333, 6667, 20000); these are those
# sizes in bytes. Sampled with linear interpolation between points.
8760 0
8760 0.15
18980 0.2
27740 0.3
48180 0.4
77380 0.53
194180 0.6
973820 0.7
1946180 0.8
4865820 0.9
9733820 0.97
29200000 1
