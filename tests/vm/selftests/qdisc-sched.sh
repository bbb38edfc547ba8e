#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Scheduling between bands on real traffic: pktgen streams with skb->priority 0, 1, 2 (priomap:
# priority N -> band N) into an ecnsharp qdisc whose shaper (20 Mbit/s) is the bottleneck; bytes
# sent per band over a window are compared with the configured quanta or weights (within 5%),
# and strict priority must starve lower bands.
. /test/vm/guest/lib.sh
ktap_begin qdisc-sched 30

Q=vq
MAP="priomap 0 1 2 2 2 2 2 2 2 2 2 2 2 2 2 2"
# Streams paced at 26.7 Mbit/s each, above the shaper's rate, so every band stays backlogged. The
# limit is high enough that nothing is refused during a run: pktgen stops pacing a device whose
# send was refused, which would starve the other device of its thread.
PACE=300000
COMMON="$MAP rate 20mbit limit 100000"
near_pct() { # A B PCT: |A - B| <= PCT% of B, and B > 0 (an empty window proves nothing)
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b > 0 && d <= b * p / 100) }' ||
		{ echo "got $1, expected $2 (+-$3%)"; return 1; }
}
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a < b) }' || { echo "$1 is not below $2"; return 1; }; }
# band_bytes: the bytes sent by bands 0, 1 and 2, then band 0's queue length, from one dump (one
# instant for all bands).
band_bytes() { qjson $Q | jq -r '[.bands[0:3][].bytes, .bands[0].qlen] | map(tostring) | join(" ")'; }
# window SECONDS: per-band bytes sent during SECONDS, into W0 W1 W2 and their sum WT; band 0's
# queue length at the start and the end into Q0A and Q0B.
window() {
	read -r a0 a1 a2 Q0A <<EOT
$(band_bytes)
EOT
	sleep "$1"
	read -r b0 b1 b2 Q0B <<EOT
$(band_bytes)
EOT
	W0=$((b0 - a0)); W1=$((b1 - a1)); W2=$((b2 - a2))
	WT=$((W0 + W1 + W2))
	diag "window: band0 $W0 band1 $W1 band2 $W2 bytes"
	# Before any share is judged: the window carried traffic (1 MB is an eighth of what the
	# 20 Mbit/s shaper sends in 3 s; a share of nothing would pass any ratio).
	check "window of ${1}s carried traffic (1 MB or more)" sh -c "[ $WT -ge 1000000 ]"
}
# streams SECONDS [PACE0]: the three streams in the background (band 0 paced at PACE0 ns).
streams() {
	pg_streams "$1" 1000 "skb_priority 0;tos 02;delay ${2:-$PACE}" \
		"skb_priority 1;tos 02;delay $PACE" "skb_priority 2;tos 02;delay $PACE" &
}
fresh() {
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp bands 3 $COMMON "$@"
}
nothing_refused() { [ "$(qstat $Q drops)" = 0 ] || { echo "drops $(qstat $Q drops)"; return 1; }; }

pg_pair || { ktap_not_ok "test network"; ktap_end; exit 1; }

# DWRR 2:1:1 (the ECN# multi-queue experiment's quanta), then changed at run time to 1:1:2.
check "dwrr 3000,1500,1500" fresh sched dwrr quanta 3000,1500,1500
streams 8
sleep 1.5
window 3
check "dwrr: band 0 gets 2/4 of the bytes" near_pct $W0 $((WT / 2)) 5
check "dwrr: band 1 gets 1/4" near_pct $W1 $((WT / 4)) 5
check "dwrr: band 2 gets 1/4" near_pct $W2 $((WT / 4)) 5
check "dwrr: quanta changed under traffic" tc qdisc change dev $Q root ecnsharp quanta 1500,1500,3000
sleep 0.5
window 2
check "dwrr after change: band 2 gets 2/4" near_pct $W2 $((WT / 2)) 5
check "dwrr after change: band 0 gets 1/4" near_pct $W0 $((WT / 4)) 5
wait
check "dwrr: nothing refused (every band backlogged by its own stream)" nothing_refused
check "dwrr: counters balance with packets queued" bands_balanced $Q

# WFQ with weights 2:1:1.
check "wfq 2,1,1" fresh sched wfq weights 2,1,1
streams 6
sleep 1.5
window 3
check "wfq: band 0 gets 2/4 of the bytes" near_pct $W0 $((WT / 2)) 5
check "wfq: band 1 gets 1/4" near_pct $W1 $((WT / 4)) 5
check "wfq: band 2 gets 1/4" near_pct $W2 $((WT / 4)) 5
wait
check "wfq: counters balance with packets queued" bands_balanced $Q

# Strict priority: while band 0 is backlogged, nothing else is served. Band 0 is paced at twice
# the shaper's rate (not 1.33x like the others): in 1.5 s it builds 1.5 s of queue, so a pktgen
# stall of a loaded guest does not empty it and let lower bands send; that it stayed backlogged
# is checked at both ends of the window, else "nothing else served" would prove nothing.
check "sp" fresh sched sp
streams 6 $((PACE * 2 / 3))
sleep 1.5
window 3
check "sp: band 0 held a queue at both ends of the window ($Q0A, $Q0B packets)" sh -c "[ ${Q0A:-0} -gt 0 ] && [ ${Q0B:-0} -gt 0 ]"
check "sp: band 0 gets more than 99% while backlogged" sh -c "[ $((W0 * 100)) -gt $((WT * 99)) ]"
check "sp: bands 1 and 2 get nothing" sh -c "[ $((W1 + W2)) = 0 ]"
wait
check "sp: counters balance with packets queued" bands_balanced $Q

# SP on top of DWRR: band 0 strict but light (4 Mbit/s); bands 1 and 2 share the rest 2:1.
check "strict 1 over dwrr" fresh sched dwrr strict 1 quanta 1500,3000,1500
streams 6 2000000
sleep 1.5
window 3
strict_unqueued() { [ "$(bstat $Q 0 qlen)" -lt 10 ] && [ "$(bstat $Q 0 drops_limit)" = 0 ]; }
check "sp+dwrr: the strict band is served as it arrives (under 10 queued)" strict_unqueued
# A strict packet waits at most for the shaper's next wake-up, which a starved guest's timer
# delays by up to the lateness the qdisc itself measured (late_max): 100x less than the others
# plus that, and 10x less in any case.
diag "sp+dwrr: mean sojourn band 0 $(bstat $Q 0 sojourn_mean) us, band 1 $(bstat $Q 1 sojourn_mean) us; late_max $(qstat $Q late_max) us"
check "sp+dwrr: the strict band waits 100x less than the others (mean sojourn), give or take the timer's measured lateness" \
	below "$(bstat $Q 0 sojourn_mean)" "$(awk -v m="$(bstat $Q 1 sojourn_mean)" -v l="$(qstat $Q late_max)" 'BEGIN { print m / 100 + l }')"
check "sp+dwrr: the strict band waits 10x less than the others (mean sojourn)" \
	below "$(bstat $Q 0 sojourn_mean)" "$(awk -v m="$(bstat $Q 1 sojourn_mean)" 'BEGIN { print m / 10 }')"
check "sp+dwrr: bands 1 and 2 share the rest 2:1" near_pct $W1 $((W2 * 2)) 5
wait
check "sp+dwrr: counters balance with packets queued" bands_balanced $Q
tc qdisc del dev $Q root

pg_teardown
ktap_end
