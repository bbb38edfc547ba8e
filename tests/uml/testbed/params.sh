# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# shellcheck disable=SC2034 # plain assignments, read by the scripts that source this file
# The virtual-time testbed's parameters (tests/uml/testbed/, docs/results/uml/README.md), fixed
# before any result: written and committed before the first run, never re-tuned after one. A
# setting chosen after seeing results is a sensitivity sweep with its own label, never the
# headline. Sourced by the guest scripts and read by the host driver; plain shell assignments.

# --- The testbed (ECN# paper, section 5.2 and 2.3) -------------------------------------------
# 7 senders and 1 receiver through one switch port; every link 10 Gbit/s. Each sender's NIC is a
# 10 Gbit/s token bucket of about two MTUs that also segments TSO/GSO super-packets (as a NIC
# does), so the switch sees MTU-sized packets at line rate per sender. Buckets are 3750 bytes,
# 3 us at 10 Gbit/s, at least two MTUs (ecnsharp's minimum). tc hands tbf its bucket as a time
# in 64 ns ticks, rounded down: 2944 ns, 3680 bytes at 10 Gbit/s (tc then displays "2500b",
# its display rounding to whole microseconds).
SENDERS=7
RATE=10gbit
RATE_BPS=10000000000
NIC_BURST=3750
# The bottleneck: the switch's port toward the receiver, 10 Gbit/s, a buffer of 1000 packets
# (1.5 MB, 1.2 ms at 10 Gbit/s), a bucket of about two MTUs (a switch port sends one packet at a
# time; two let a packet through while the next is timed). The paper does not give the
# testbed's buffer. Amended before the second run (docs/results/uml/README.md, "Amendments"):
# the first run used the authors' simulations' 250 packets (378.5 KB, 303 us), less than the
# paper's own thresholds at 5x (K = 412.5 KB, ins_target 330 us), so there DCTCP-RED-Tail never
# marked and ECN#'s instantaneous rule never fired; a port must hold the largest threshold the
# paper configures, and a shared-buffer switch's port (the testbed's Tofino has 22 MB) holds more
# than 1.5 MB under dynamic thresholds.
LIMIT_PKTS=1000
LIMIT_BYTES=1514000
BOTTLENECK_BURST=3750
MTU=1500

# --- RTTs ---------------------------------------------------------------------------------------
# The paper: "netem to emulate a 3x RTT variations (from 70 us to 210 us) ... based on the
# distribution in Figure 1, which is long-tail". Its thresholds imply the statistics: DCTCP-RED-
# Tail's K = 250 KB is 200 us at 10 Gbit/s (lambda 1, the 90th percentile RTT) and pst_target =
# 85 us (lambda 1, the mean RTT). Each flow draws its RTT class (a per-class netem delay on the
# data path, after the bottleneck, so that requests and incast bursts are not staggered) from
# this long tail: most flows at the base RTT, a tenth at about 3x. Its mean is 86.6 us and its
# 90th percentile 200 us (the class distribution reaches 0.89 below 200 us).
# RTT_CLASSES: "RTT_US:PERCENT ..." of the 3x spread.
RTT_CLASSES="70:75 75:8 80:4 120:2 200:6 210:5"
RTT_MIN_US=70
# The 2x and 5x spreads (Figure 8) stretch the same shape: RTT' = 70 + (RTT - 70) (V - 1) / 2.
# The delay each class's netem adds is its RTT less the two 10 Gbit/s serializations a full
# segment meets (NIC and bottleneck, 1.2 us each); ACKs and requests are not delayed or shaped.
BASE_SERIALIZATION_NS=2400

# --- End hosts --------------------------------------------------------------------------------
# DCTCP as Linux sets it (defaults: g = 1/16, RTO minimum 200 ms, initial window 10), ECN on,
# no ECN fallback (a SYN sent again keeps asking for ECN), TSO/GSO on at the senders.
CC=dctcp

# --- Schemes ----------------------------------------------------------------------------------
# The paper's testbed values (section 5.2), in its units; the per-spread rule for 2x/5x below.
# ecnsharp     ECN#: ins_target 200 us, pst_target 85 us, pst_interval 200 us
# red_tail     DCTCP-RED-Tail: K = 250 KB (the 90th percentile RTT, lambda 1)
# red_avg      DCTCP-RED-Avg: K = 80 KB (the paper's value; lambda 1 x the mean RTT of our
#              distribution would be 108 KB: the paper's is the lower, more aggressive one)
# tcn_tail     TCN at the 90th percentile RTT: 200 us (K_tail / C, the paper says DCTCP-RED and
#              TCN are identical with one queue)
# tcn_avg      TCN at K_avg / C: 64 us
# codel        CoDel as the paper ran it (ECN marking, no instantaneous part): target 85 us,
#              interval 200 us (ecnsharp's codel mode: the same state machine as ECN#'s pst)
# All of these are ecnsharp modes under its own 10 Gbit/s shaper: one implementation, one code
# path, one instrument. DCTCP-RED's K counts bytes in the queue when a packet arrives.
ECNSHARP_INS_US=200
ECNSHARP_PST_US=85
ECNSHARP_INTERVAL_US=200
RED_TAIL_K_BYTES=250000
RED_AVG_K_BYTES=80000
TCN_TAIL_US=200
TCN_AVG_US=64
CODEL_TARGET_US=85
CODEL_INTERVAL_US=200
# Linux's own qdiscs as a user would configure them for this fabric, each under a tbf of the
# same rate and bucket, limit $LIMIT_PKTS packets (1000, as every scheme), ECN on:
# linux_codel     codel target 85us interval 200us ecn
# linux_fq_codel  fq_codel target 85us interval 200us ce_threshold 200us ecn (the DCTCP-style
#                 threshold at the 90th percentile RTT, as TCN-Tail)
# linux_red       red with DCTCP's configuration: min = K_tail, max = K_tail + 1 MTU,
#                 probability 1, ecn, the average following the instantaneous queue (avpkt 1000,
#                 burst 1: Wlog as small as tc allows)
# linux_pie       pie target 85us tupdate 200us ecn (the target at the mean RTT, the update
#                 period one high-percentile RTT)
LINUX_CODEL_TARGET_US=85
LINUX_CODEL_INTERVAL_US=200
LINUX_FQ_CODEL_CE_US=200
LINUX_RED_MIN_BYTES=250000
LINUX_RED_MAX_BYTES=251500
LINUX_PIE_TARGET_US=85
LINUX_PIE_TUPDATE_US=200
SCHEMES="ecnsharp red_tail red_avg tcn_tail tcn_avg codel linux_codel linux_fq_codel linux_red linux_pie"
# 2x and 5x (Figure 8: ECN# against DCTCP-RED-Tail only): the paper's rule with lambda 1 on that
# spread's distribution: ins_target = pst_interval = K_tail / C = the 90th percentile RTT,
# pst_target = the mean RTT (rounded to 1 us). At 3x this rule gives 200/87/200 us and 250 KB:
# the paper's values within 2 us.
VARIATION_SCHEMES="ecnsharp red_tail"

# --- Workloads (section 5.1) ------------------------------------------------------------------
# Web search (DCTCP) and data mining (VL2) flow sizes, ns3/workloads/*.cdf; Poisson arrivals at
# LOAD x 10 Gbit/s from random senders (each flow also draws its RTT class) to the receiver;
# short flows < 100 KB, large > 10 MB (the paper's). Flows that have not finished DRAIN seconds
# after the last arrival count as unfinished (reported, never dropped).
SHORT_BYTES=100000
LARGE_BYTES=10000000
FLOW_DRAIN_S=3
# Each point runs until at least SHORT_FLOWS_PER_SEED short flows have arrived in each of SEEDS
# seeds (at least 2,000 short flows per scheme and point over the seeds).
SEEDS=3
SHORT_FLOWS_PER_SEED=700
# make experiments-full: both workloads at every load; make experiments: web search at two.
LOADS_FULL="0.3 0.5 0.7 0.8 0.9"
LOADS_QUICK="0.5 0.9"

# --- Section 2.3: queue and throughput under RTT variation ------------------------------------
# Long-lived DCTCP flows, one per RTT class, from distinct senders, for LONG_SECS (LONG_OMIT
# seconds of slow start not measured); the queue sampled every SAMPLE_US through rtnetlink (the
# same sampler for every scheme: the root qdisc's backlog), goodput per flow from bytes read.
LONG_SECS=1.5
LONG_OMIT=0.5
LONG_SEEDS=5
SAMPLE_US=20
# Under the workloads the queue is sampled the same way at this mean spacing.
FLOWS_SAMPLE_US=200

# --- Incast (section 5.4) ---------------------------------------------------------------------
# Two background long flows (the shortest and the longest RTT class), then one synchronized
# query of N responses (3-60 KB, uniform) from N connections spread over the senders and RTT
# classes; QUERIES queries per fanout and seed, 50 ms apart. A fanout counts as "without
# timeout" when no query of any seed saw a TCP retransmission timeout.
INCAST_FANOUTS_FULL="8 16 24 32 40 48 56 64 80 96 112 128 160 192"
INCAST_FANOUTS_QUICK="16 32 48 64 96 128"
INCAST_QUERIES=5
INCAST_WARMUP_S=0.2
INCAST_MIN_BYTES=3000
INCAST_MAX_BYTES=60000
INCAST_SCHEMES="ecnsharp red_tail tcn_tail codel linux_codel linux_fq_codel"

# --- Scheduling (journal Fig. 19-20) ----------------------------------------------------------
# Three DWRR bands, quanta 2:1:1 (3028, 1514, 1514 bytes), by DSCP; one long flow per band,
# starting SCHED_STAGGER_S apart; per-band throughput once all three run. ECN# against TCN
# (ins_target alone).
SCHED_SECS=1.5
SCHED_STAGGER_S=0.3

# --- Scheduling with short probe flows (ECN# paper, section 5.4, Figure 13b) --------------------
# SCENARIO=sched_probe (Amendment 5 of docs/results/uml/README.md, written and committed before
# any of its runs): the sched setup above (the same qdisc, bands, quanta, long flows and stagger)
# plus short probe flows, as the paper: "we also randomly start short flows (the size is from
# 3KB to 60KB) from the rest of senders to probe the queue occupancies". Probes are 3-60 KB
# (uniform), from the senders that carry no long flow (h4..h7), each with an RTT class drawn as
# the workloads' flows draw theirs and a DSCP drawn uniformly over the three bands; Poisson
# arrivals at SCHED_PROBE_LOAD of the link (mean size 31.5 KB: a mean gap of 1.68 ms), starting
# SCHED_STAGGER_S after the third long flow starts (when the shares' window opens, all three
# long flows running), until SCHED_PROBES_PER_SEED have arrived (expected 0.34 s, so the last
# arrives about 0.64 s after the third flow's start, well before the long flows stop at 0.9 s).
# Why these values: 1.5% of the link (150 Mbit/s, 50 per band) is a light probe beside the long
# flows' 10 Gbit/s (it measures the queues more than it changes them), and 200 probes per seed
# give 600 per scheme over the 3 seeds (about 200 per band): a mean, and a p99 with 6 samples
# above it. The seed fixes the probes' arrivals, sizes, senders, classes and bands:
# every scheme sees the same probes. Every probe's FCT is recorded (flows.jsonl, as SCENARIO=flows).
# Schemes: ecnsharp (the rule's 200/85/200 us), tcn_tail (TCN at 200 us, as sched) and tcn150
# (TCN at the paper's stated 150 us: "We set the TCN marking threshold to 150us").
SCHED_PROBE_SCHEMES="ecnsharp tcn_tail tcn150"
SCHED_PROBES_PER_SEED=200
SCHED_PROBE_LOAD=0.015
SCHED_PROBE_MIN_BYTES=3000
SCHED_PROBE_MAX_BYTES=60000
TCN_PAPER_US=150
# Amendment 6 (docs/results/uml/README.md; written and committed before its runs, after
# Amendment 5's numbers were known): a new labelled measurement of sched_probe, added beside its
# metrics (which keep their names): why are ECN#'s probes faster than TCN-150's when TCN-150's
# per-band mean sojourn over the whole run is lower? The probe window (from the probes' start
# until the last probe ends) had no queue measurement. Now: every SCHED_PROBE_SAMPLE_S (1 ms, at
# most SCHED_PROBE_SAMPLES_MAX samples) each band's qlen and backlog from the qdisc's per-band
# stats (bandq.txt, collected into bandq.tsv.gz); each band's marks by cause and packets over the
# window (stats at its two ends: pw_band*_marks_*, pw_band*_packets); the probe senders' (h4..h7)
# delivered and CE-echoed packets over it (pw_probe_delivered, pw_probe_delivered_ce). The runs
# are deterministic, so the probes' FCTs are expected to equal Amendment 5's; if the sampler
# changes them, both are shown.
SCHED_PROBE_SAMPLE_S=0.001
SCHED_PROBE_SAMPLES_MAX=2000
