#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, User-Mode Linux side (tests/uml/run-in-uml --native): the CPU cost of each qdisc
# per packet as the packet rate pktgen reaches through it, with the kernel's code running
# natively on the host CPU (not emulated as under qemu's TCG). The cases and the pktgen run are
# in pktgen.sh: COUNT 64-byte ECT(0) UDP packets to a dummy device.
#
# The marking path runs on every packet where a qdisc can mark without a queue: ecnsharp with
# ins_target 0 and pst_target 0 (a packet that waits at all is marked CE by the instantaneous
# rule); fq_codel with ce_threshold 0 where a packet's sojourn rounds above it; red and prio cannot
# mark without a queue. No standing queue forms: a 6.12 virtual device never pushes back on its
# qdisc (dummy frees at once, veth and ifb drop), so the queue is one packet deep, and fq_codel,
# which lets an empty queue be bypassed, does no work per packet at all. The CASE+matchall cases
# take the bypass away (pktgen.sh): every packet is enqueued and dequeued by every qdisc.
#
# Every round runs every case once in a rotated order; ROUNDS rounds in one boot. Prints per case
# the median packets per second [p25-p75], and, last (medians of the per-round ratios, then
# their p25-p75):
#   pps_ratio kernel=uml ecnsharp_1band/prio=A ecnsharp_8band_dwrr/prio=B ecnsharp_1band/fq_codel=C
#   pps_ratio_iqr kernel=uml ...
#   pps_ratio_nobypass kernel=uml ecnsharp_1band/prio=D ecnsharp_1band/fq_codel=E (the +matchall cases)
# Usage: cpu-cost.sh [ROUNDS [COUNT]]
ROUNDS=${1:-15}
COUNT=${2:-1000000}
DEV=bench0
CASES="prio fq_codel red ecnsharp_1band ecnsharp_8band_dwrr prio+matchall fq_codel+matchall ecnsharp_1band+matchall"
. "$ECNSHARP_REPO/tests/uml/bench/pktgen.sh"

pktgen_dev $DEV || exit 1

# run CASE: one pktgen run through CASE; prints its packets per second and the qdisc's marks
# (for fq_codel: how many packets it enqueued, as flows it saw new; none when it was bypassed).
run() {
	install_case $DEV "$1" || return 1
	pps=$(pktgen_send $DEV "$COUNT") || return 1
	books=$(qdisc_books $DEV "$COUNT") || return 1
	case $1 in
	fq_codel*)
		new=$(tc -s -j qdisc show dev $DEV | jq -r '.[0].new_flow_count // 0')
		if [ "$1" = fq_codel+matchall ] && [ "$new" -lt "$COUNT" ]; then
			echo "fq_codel+matchall enqueued $new of $COUNT packets: the filter did not take the bypass away" >&2
			return 1
		fi
		books="${books% *} $new" ;;
	esac
	tc qdisc del dev $DEV root
	echo "$pps ${books##* }"
}

echo "cpu-cost: kernel=uml native (no time travel), $ROUNDS rounds of $COUNT packets of 64 bytes, ECT(0)"
: >/tmp/cpu-cost
n=$(echo $CASES | wc -w)
r=1
while [ "$r" -le "$ROUNDS" ]; do
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
	# shellcheck disable=SC2046
	set -- $(stats "$c")
	marks=$(awk -v c="$c" '$2 == c { m = $4 } END { print m }' /tmp/cpu-cost)
	what=marks
	case $c in fq_codel*) what="enqueued (new flows)" ;; esac
	echo "cpu-cost:   $c $(($1 / 1000)) kpps [$(($2 / 1000))-$(($3 / 1000))], $what in its last run $marks of $COUNT"
done
a=$(ratio ecnsharp_1band prio)
b=$(ratio ecnsharp_8band_dwrr prio)
c=$(ratio ecnsharp_1band fq_codel)
d=$(ratio ecnsharp_1band+matchall prio+matchall)
e=$(ratio ecnsharp_1band+matchall fq_codel+matchall)
echo "pps_ratio kernel=uml ecnsharp_1band/prio=${a%% *} ecnsharp_8band_dwrr/prio=${b%% *} ecnsharp_1band/fq_codel=${c%% *}"
echo "pps_ratio_iqr kernel=uml ecnsharp_1band/prio=${a#* } ecnsharp_8band_dwrr/prio=${b#* } ecnsharp_1band/fq_codel=${c#* }"
echo "pps_ratio_nobypass kernel=uml ecnsharp_1band/prio=${d%% *} ${d#* } ecnsharp_1band/fq_codel=${e%% *} ${e#* }"
ip link del $DEV
