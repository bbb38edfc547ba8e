# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by ns3/run.sh and ns3/full.sh: the sender and host model of the rule's runs
# (docs/results/ns3/rule.md, addendum of 2026-11-29; validation.md, round 7).
# The headline: senders that defer, reduce and grow their window as Linux 6.12 does, with TCP
# small queues, and no host marker (ns3/sim/tso-defer.h); within the tolerance of the Linux
# testbed on 18 of 18 comparisons.
# shellcheck disable=SC2034 # used by the scripts that source this
HEADLINE_SENDER="--tsoDefer=2 --tsq=1 --hostMark=0"
# Sensitivity run S2: the model of the runs before it, ns-3.37's own sender with the host
# marker at 20 us (13 of 18).
S2_SENDER="--tsoDefer=0 --tsq=0 --hostMark=20us --variant=stockmark"
