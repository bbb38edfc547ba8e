#!/bin/sh
# Scheduling between bands on real traffic: pktgen streams with skb->priority 0, 1, 2 saturate an
# ecnsharp qdisc whose shaper is the bottleneck; bytes sent per band over a window are compared
# with the configured quanta or weights (within 5%), and strict priority must starve lower bands.
. /test/vm/guest/lib.sh
ktap_begin qdisc-sched

Q=vq
MAP="priomap 0 1 2 2 2 2 2 2 2 2 2 2 2 2 2 2"
near_pct() { # A B PCT: |A - B| <= PCT% of B
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }' ||
		{ echo "got $1, expected $2 (+-$3%)"; return 1; }
}
# window SECONDS: per-band bytes sent during SECONDS, into W0 W1 W2.
window() {
	a0=$(bstat $Q 0 bytes); a1=$(bstat $Q 1 bytes); a2=$(bstat $Q 2 bytes)
	sleep "$1"
	W0=$(($(bstat $Q 0 bytes) - a0)); W1=$(($(bstat $Q 1 bytes) - a1)); W2=$(($(bstat $Q 2 bytes) - a2))
	diag "window: band0 $W0 band1 $W1 band2 $W2 bytes"
}
streams() { pg_streams "$1" 1000 "skb_priority 0;tos 0x02" "skb_priority 1;tos 0x02" "skb_priority 2;tos 0x02" & }

pg_pair || { ktap_not_ok "test network"; ktap_end; exit 1; }

# DWRR 2:1:1 (the ECN# multi-queue experiment's quanta), then changed at run time to 1:1:2.
check "dwrr 3000,1500,1500" tc qdisc replace dev $Q root handle 1: ecnsharp bands 3 sched dwrr quanta 3000,1500,1500 $MAP rate 20mbit limit 3000
streams 9
sleep 1.5
window 3
check "dwrr: band 0 gets 2/4 of the bytes" near_pct $W0 $(((W0 + W1 + W2) / 2)) 5
check "dwrr: band 1 gets 1/4" near_pct $W1 $(((W0 + W1 + W2) / 4)) 5
check "dwrr: band 2 gets 1/4" near_pct $W2 $(((W0 + W1 + W2) / 4)) 5
check "dwrr: quanta changed under traffic" tc qdisc change dev $Q root ecnsharp quanta 1500,1500,3000
sleep 0.5
window 2
check "dwrr after change: band 2 gets 2/4" near_pct $W2 $(((W0 + W1 + W2) / 2)) 5
check "dwrr after change: band 0 gets 1/4" near_pct $W0 $(((W0 + W1 + W2) / 4)) 5
wait
wait_drained $Q 30
check "dwrr: counters balance" qdisc_balanced $Q

# WFQ with weights 2:1:1.
check "wfq 2,1,1" tc qdisc replace dev $Q root handle 1: ecnsharp bands 3 sched wfq weights 2,1,1 $MAP rate 20mbit limit 3000
streams 6
sleep 1.5
window 3
check "wfq: band 0 gets 2/4 of the bytes" near_pct $W0 $(((W0 + W1 + W2) / 2)) 5
check "wfq: band 1 gets 1/4" near_pct $W1 $(((W0 + W1 + W2) / 4)) 5
check "wfq: band 2 gets 1/4" near_pct $W2 $(((W0 + W1 + W2) / 4)) 5
wait
wait_drained $Q 30

# Strict priority: while band 0 is backlogged, nothing else is served.
check "sp" tc qdisc replace dev $Q root handle 1: ecnsharp bands 3 sched sp $MAP rate 20mbit limit 3000
streams 6
sleep 1.5
window 3
check "sp: band 0 gets more than 99% while backlogged" sh -c "[ $((W0 * 100)) -gt $(((W0 + W1 + W2) * 99)) ]"
check "sp: band 2 starves behind band 1" sh -c "[ $W2 -le $W1 ]"
wait
wait_drained $Q 30

# SP on top of DWRR: band 0 strict but light (paced below the rate); bands 1 and 2 share 2:1.
check "strict 1 over dwrr" tc qdisc replace dev $Q root handle 1: ecnsharp bands 3 sched dwrr strict 1 quanta 1500,3000,1500 $MAP rate 20mbit limit 3000
pg_streams 6 1000 "skb_priority 0;tos 02;delay 2000000" "skb_priority 1;tos 0x02" "skb_priority 2;tos 0x02" &
sleep 1.5
window 3
check "sp+dwrr: the strict band is never dropped" sh -c "[ $(bstat $Q 0 drops_limit) = 0 ]"
check "sp+dwrr: the strict band waits little (max sojourn < 5ms)" sh -c "[ $(bstat $Q 0 sojourn_max) -lt 5000 ]"
check "sp+dwrr: bands 1 and 2 share 2:1" near_pct $W1 $((W2 * 2)) 5
wait
wait_drained $Q 30
check "sp+dwrr: counters balance" qdisc_balanced $Q

pg_teardown
ktap_end
