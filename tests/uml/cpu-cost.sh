#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, User-Mode Linux side (tests/uml/run-in-uml --native): the CPU cost of each qdisc
# per packet as the packet rate pktgen reaches through it, with the kernel's code running
# natively on the host CPU (not emulated as under qemu's TCG). pktgen (queue_xmit, so every
# packet goes through the root qdisc's enqueue and dequeue) sends COUNT 64-byte UDP packets, ECN
# capable (ECT(0)), to a dummy device, which frees them.
#
# The marking path runs on every packet where a qdisc can mark without a queue: ecnsharp with
# ins_target 0 and pst_target 0 (every sojourn exceeds 0: each packet is marked CE by the
# instantaneous rule, and the persistent state machine runs in its marking state); fq_codel
# with ce_threshold 0 where a packet's sojourn rounds above it; red and prio cannot mark without a
# queue. No standing queue forms: a 6.12 virtual device never pushes back on its qdisc (dummy
# frees at once, veth and ifb drop), so the queue is one packet deep. Every round runs every case
# once in a rotated order; ROUNDS rounds in one boot. Prints per case the median packets per
# second [p25-p75], and, last:
#   pps_ratio kernel=uml ecnsharp_1band/prio=A ecnsharp_8band_dwrr/prio=B ecnsharp_1band/fq_codel=C
# (medians of the per-round ratios, with their p25-p75). Usage: cpu-cost.sh [ROUNDS [COUNT]]
ROUNDS=${1:-15}
COUNT=${2:-1000000}
DEV=bench0
PG=/proc/net/pktgen
CASES="prio fq_codel red ecnsharp_1band ecnsharp_8band_dwrr"

ip link add $DEV type dummy || exit 1
echo 1 >/proc/sys/net/ipv6/conf/$DEV/disable_ipv6 2>/dev/null
ip link set $DEV txqueuelen 1000 up || exit 1
ip addr add 10.9.0.1/24 dev $DEV || exit 1

qdisc_args() {
	case $1 in
	prio) echo "prio" ;;
	fq_codel) echo "fq_codel ecn ce_threshold 0" ;;
	red) echo "red limit 1000000 min 30000 max 30001 avpkt 1000 burst 31 probability 1.0 ecn bandwidth 10gbit" ;;
	ecnsharp_1band) echo "ecnsharp bands 1 mode ecnsharp ins_target 0 pst_target 0" ;;
	ecnsharp_8band_dwrr) echo "ecnsharp bands 8 sched dwrr mode ecnsharp ins_target 0 pst_target 0" ;;
	esac
}

# run CASE: one pktgen run through CASE; prints its packets per second, and the qdisc's marks.
run() {
	tc qdisc del dev $DEV root 2>/dev/null
	# shellcheck disable=SC2046
	tc qdisc add dev $DEV root handle 1: $(qdisc_args "$1") || return 1
	echo "rem_device_all" >$PG/kpktgend_0
	echo "add_device $DEV" >$PG/kpktgend_0 || return 1
	for cmd in "count $COUNT" "pkt_size 64" "delay 0" "clone_skb 0" "burst 1" "tos 02" \
		"xmit_mode queue_xmit" "dst 10.9.0.2" "dst_mac 02:00:00:00:00:02" \
		"udp_dst_min 9" "udp_dst_max 9"; do
		echo "$cmd" >$PG/$DEV || { echo "pktgen refused: $cmd" >&2; return 1; }
	done
	echo start >$PG/pgctrl
	pps=$(sed -n 's/.* \([0-9][0-9]*\)pps .*/\1/p' $PG/$DEV)
	set -- $(tc -s -j qdisc show dev $DEV | jq -r '.[0] | "\(.packets) \(.drops) \(.marks // .ecn_mark // .ce_mark // 0)"')
	if [ "$1" -lt "$COUNT" ] || [ "$1" -gt $((COUNT + 10)) ] || [ "$2" != 0 ]; then
		echo "cpu-cost: the qdisc sent $1 of $COUNT packets, dropped $2" >&2
		return 1
	fi
	tc qdisc del dev $DEV root
	echo "$pps $3"
}

echo "cpu-cost: kernel=uml native (no time travel), $ROUNDS rounds of $COUNT packets of 64 bytes, ECT(0)"
: >/tmp/cpu-cost
n=$(echo $CASES | wc -w)
r=1
while [ "$r" -le "$ROUNDS" ]; do
	set -- $CASES
	k=$(((r - 1) % n))
	order=$(echo $CASES $CASES | cut -d' ' -f$((k + 1))-$((k + n)))
	line="round $r:"
	for c in $order; do
		res=$(run "$c") || { echo "cpu-cost: $c failed"; exit 1; }
		echo "$r $c $res" >>/tmp/cpu-cost
		line="$line $c=${res% *}"
	done
	echo "cpu-cost: $line"
	r=$((r + 1))
done
stats() {
	awk -v c="$1" '$2 == c { print $3 }' /tmp/cpu-cost | sort -n | awk '{ v[NR] = $1 }
		END { print v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'
}
ratio() {
	awk -v a="$1" -v b="$2" '$2 == a { x[$1] = $3 } $2 == b { y[$1] = $3 }
		END { for (r in x) if (r in y) printf "%.4f\n", x[r] / y[r] }' /tmp/cpu-cost | sort -n |
		awk '{ v[NR] = $1 } END { printf "%s [%s-%s]\n", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'
}
for c in $CASES; do
	set -- $(stats "$c")
	marks=$(awk -v c="$c" '$2 == c { m = $4 } END { print m }' /tmp/cpu-cost)
	echo "cpu-cost:   $c $(($1 / 1000)) kpps [$(($2 / 1000))-$(($3 / 1000))], marks in its last run $marks of $COUNT"
done
a=$(ratio ecnsharp_1band prio)
b=$(ratio ecnsharp_8band_dwrr prio)
c=$(ratio ecnsharp_1band fq_codel)
echo "pps_ratio kernel=uml ecnsharp_1band/prio=${a%% *} ecnsharp_8band_dwrr/prio=${b%% *} ecnsharp_1band/fq_codel=${c%% *}"
echo "pps_ratio_iqr kernel=uml ecnsharp_1band/prio=${a#* } ecnsharp_8band_dwrr/prio=${b#* } ecnsharp_1band/fq_codel=${c#* }"
ip link del $DEV
