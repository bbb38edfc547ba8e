#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Scheduling between bands through the shaper, in virtual time (the shares of
# tests/vm/selftests/qdisc-sched.sh, with the bounds the qemu guest cannot hold). Three pktgen
# streams, each paced above the shaper's 20 Mbit/s, keep bands 0, 1 and 2 backlogged; the bytes
# each band sent over a window of the kernel's own clock are compared with its share, within
# what the scheduler itself allows (a few packets), not within 5%: DWRR's bound from its quanta
# (every band gets one grant per round, and carries less than a quantum and a packet of
# deficit), SCFQ's from Golestani's fairness bound, strict priority's as all or nothing.
. "$ECNSHARP_REPO/tests/uml/selftests/lib.sh"
ktap_begin uml-sched 31

Q=vq
S=1000
RATE=20000000
MAP="priomap 0 1 2 2 2 2 2 2 2 2 2 2 2 2 2 2"
# Streams paced at 26.7 Mbit/s each (300 us per packet), above the shaper's rate. The limit is
# high enough that nothing is refused: pktgen stops pacing a device whose send was refused.
PACE=300000
fresh() {
	tc qdisc del dev $Q root 2>/dev/null
	# shellcheck disable=SC2086 # MAP: words
	tc qdisc add dev $Q root handle 1: ecnsharp bands 3 $MAP rate ${RATE}bit limit 100000 "$@"
}
# streams SECONDS [PACE0]: the three streams in the background (band 0 paced at PACE0 ns).
streams() {
	pg_streams "$1" $S "skb_priority 0;tos 02;delay ${2:-$PACE}" \
		"skb_priority 1;tos 02;delay $PACE" "skb_priority 2;tos 02;delay $PACE" &
	STREAMS=$!
}
# snap: from one dump (one instant, under the qdisc lock), the kernel's clock (us), then each
# band's bytes sent and queue length.
snap() { qjson $Q | jq -r '[.now, (.bands[0:3][] | .bytes, .qlen)] | map(tostring) | join(" ")'; }
# window SECONDS: bytes sent per band over SECONDS of the kernel's clock into W0 W1 W2, their
# sum WT, the window's length in us into WUS; BACKLOGGED says which bands held a queue at both
# ends ("012" when all did).
window() {
	read -r t0 a0 qa0 a1 qa1 a2 qa2 <<EOT
$(snap)
EOT
	sleep "$1"
	read -r t1 b0 qb0 b1 qb1 b2 qb2 <<EOT
$(snap)
EOT
	W0=$((b0 - a0)); W1=$((b1 - a1)); W2=$((b2 - a2))
	WT=$((W0 + W1 + W2))
	WUS=$((t1 - t0))
	BACKLOGGED=
	[ "$qa0" -gt 0 ] && [ "$qb0" -gt 0 ] && BACKLOGGED=${BACKLOGGED}0
	[ "$qa1" -gt 0 ] && [ "$qb1" -gt 0 ] && BACKLOGGED=${BACKLOGGED}1
	[ "$qa2" -gt 0 ] && [ "$qb2" -gt 0 ] && BACKLOGGED=${BACKLOGGED}2
	diag "window of $WUS us: band0 $W0 band1 $W1 band2 $W2 bytes; backlogged at both ends: ${BACKLOGGED:-none} (queues $qa0/$qb0 $qa1/$qb1 $qa2/$qb2)"
}
# backlogged BANDS: each band named (e.g. "012") held a queue at both ends of the window.
backlogged() {
	for _b in $(echo "$1" | sed 's/./& /g'); do
		case $BACKLOGGED in *$_b*) ;; *) echo "bands backlogged at both ends: ${BACKLOGGED:-none}, expected $1"; return 1 ;; esac
	done
}
# at_rate BYTES: BYTES is what the shaper sends over the window, within two packets.
at_rate() {
	awk -v g="$1" -v us="$WUS" -v r=$RATE -v s=$S 'BEGIN { want = r * us / 8e6; d = g - want; if (d < 0) d = -d
		printf "%d bytes in %d us, %.0f at the rate, off by %.0f (tolerance %d)\n", g, us, want, d, 2 * s
		exit !(g > 0 && d <= 2 * s) }'
}
# share GOT TOTAL PART WHOLE TOL: GOT is PART/WHOLE of TOTAL within TOL bytes.
share() {
	awk -v g="$1" -v t="$2" -v p="$3" -v w="$4" -v tol="$5" 'BEGIN { want = t * p / w; d = g - want; if (d < 0) d = -d
		printf "got %d bytes, %d/%d of %d is %.0f, off by %.0f (tolerance %.0f, %.2f%%)\n", g, p, w, t, want, d, tol, 100 * tol / want
		exit !(t > 0 && d <= tol) }'
}
# dwrr_tol Q_I Q_SUM N: DWRR's bound on a backlogged band's share over any window. Band i sent
# k*q_i + e_i with |e_i| < 2*q_i + S (grants differ by at most one between bands, a deficit lies
# in [0, q_i + S)), so its bytes lie within 4*q_i + S + N*S*q_i/Q_SUM of q_i/Q_SUM of the total.
dwrr_tol() { echo $((4 * $1 + S + $3 * S * $1 / $2)); }
# wfq_tol W_I W_SUM N: SCFQ's (Golestani): |B_i/w_i - B_j/w_j| <= S/w_i + S/w_j for backlogged
# bands, so B_i lies within S * (1 + N*w_i/W_SUM) of w_i/W_SUM of the total.
wfq_tol() { echo $((S + $3 * S * $1 / $2)); }
nothing_refused() { [ "$(qstat $Q drops)" = 0 ] || { echo "drops $(qstat $Q drops)"; return 1; }; }

{ pg_pair && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }

# ---- DWRR 3000,1500,1500 (the ECN# multi-queue experiment's quanta), then 1500,1500,3000 set
# under traffic.
check "dwrr 3000,1500,1500" fresh sched dwrr quanta 3000,1500,1500
streams 4.5
sleep 1
window 1.5
check "dwrr: every band backlogged throughout the window" backlogged 012
check "dwrr: the shaper sent at its rate" at_rate $WT
check "dwrr: band 0 gets 2/4 of the bytes, within DWRR's bound" share $W0 $WT 2 4 "$(dwrr_tol 3000 6000 3)"
check "dwrr: band 1 gets 1/4" share $W1 $WT 1 4 "$(dwrr_tol 1500 6000 3)"
check "dwrr: band 2 gets 1/4" share $W2 $WT 1 4 "$(dwrr_tol 1500 6000 3)"
check "dwrr: quanta changed under traffic" tc qdisc change dev $Q root ecnsharp quanta 1500,1500,3000
sleep 0.3
window 1.5
check "dwrr after change: every band backlogged throughout" backlogged 012
check "dwrr after change: band 2 gets 2/4" share $W2 $WT 2 4 "$(dwrr_tol 3000 6000 3)"
check "dwrr after change: band 0 gets 1/4" share $W0 $WT 1 4 "$(dwrr_tol 1500 6000 3)"
wait $STREAMS
check "dwrr: nothing refused" nothing_refused
check "dwrr: counters balance with packets queued" bands_balanced $Q

# ---- WFQ (SCFQ) with weights 2:1:1.
check "wfq 2,1,1" fresh sched wfq weights 2,1,1
streams 3
sleep 1
window 1.5
check "wfq: every band backlogged throughout the window" backlogged 012
check "wfq: band 0 gets 2/4 of the bytes, within SCFQ's bound" share $W0 $WT 2 4 "$(wfq_tol 2 4 3)"
check "wfq: band 1 gets 1/4" share $W1 $WT 1 4 "$(wfq_tol 1 4 3)"
check "wfq: band 2 gets 1/4" share $W2 $WT 1 4 "$(wfq_tol 1 4 3)"
wait $STREAMS
check "wfq: counters balance with packets queued" bands_balanced $Q

# ---- Strict priority: while band 0 is backlogged (paced at 40 Mbit/s), nothing else is served,
# and band 0 has the shaper to itself.
check "sp" fresh sched sp
streams 3 $((PACE * 2 / 3))
sleep 1
window 1.5
check "sp: every band backlogged throughout the window" backlogged 012
check "sp: bands 1 and 2 sent nothing" sh -c "[ $((W1 + W2)) = 0 ] || { echo '$W1 + $W2 bytes'; exit 1; }"
check "sp: band 0 sent at the shaper's rate" at_rate $W0
wait $STREAMS
check "sp: counters balance with packets queued" bands_balanced $Q

# ---- Band 0 strict but light (one packet every 2 ms, 4 Mbit/s); bands 1 and 2 share the rest
# 2:1 by DWRR. A strict packet waits at most until the shaper has the tokens for it: one
# packet's time at the rate (400 us), plus the timer's lateness.
check "strict 1 over dwrr 3000,1500" fresh sched dwrr strict 1 quanta 1500,3000,1500
streams 3 2000000
sleep 1
window 1.5
check "sp+dwrr: bands 1 and 2 backlogged throughout the window" backlogged 12
check "sp+dwrr: the strict band sent what it was offered (one packet per 2 ms, within two)" \
	share $W0 $((WUS * S)) 1 2000 $((2 * S))
soj_bound=$(awk -v s=$S -v r=$RATE -v l="$(qstat $Q late_max)" 'BEGIN { printf "%d", s * 8e6 / r + l + 1 }')
diag "strict band: sojourn max $(bstat $Q 0 sojourn_max) us, mean $(bstat $Q 0 sojourn_mean) us; bands 1 and 2 mean $(bstat $Q 1 sojourn_mean) and $(bstat $Q 2 sojourn_mean) us"
check "sp+dwrr: no strict packet waited longer than one packet at the rate (${soj_bound} us with lateness)" \
	le "$(bstat $Q 0 sojourn_max)" "$soj_bound"
check "sp+dwrr: band 1 gets 2/3 of the rest, within DWRR's bound" share $W1 $((W1 + W2)) 2 3 "$(dwrr_tol 3000 4500 2)"
check "sp+dwrr: band 2 gets 1/3 of the rest" share $W2 $((W1 + W2)) 1 3 "$(dwrr_tol 1500 4500 2)"
check "sp+dwrr: the shaper sent at its rate" at_rate $WT
wait $STREAMS
check "sp+dwrr: counters balance with packets queued" bands_balanced $Q
tc qdisc del dev $Q root

pg_teardown
ktap_end
