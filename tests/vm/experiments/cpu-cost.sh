#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, guest side: the CPU cost of each qdisc per packet, as the packet rate pktgen
# reaches through it. pktgen (xmit_mode queue_xmit, so every packet goes through the root
# qdisc's enqueue and dequeue) sends COUNT 64-byte UDP packets to a dummy device, which frees
# them; the one vCPU pktgen runs on does all the work, so packets per second is the inverse of
# the cost per packet of pktgen + stack + qdisc + driver, the qdisc being the only difference.
# prio is the C reference that queues. fq_codel, like pfifo and codel, sets TCQ_F_CAN_BYPASS:
# with the queue one packet deep here, every packet finds it empty and goes straight to the
# driver, with no enqueue, dequeue or clock read, so the fq_codel case measures no qdisc work.
# Attaching a filter clears the flag (net/sched/cls_api.c): the CASE+matchall cases (one matchall
# filter to class 1:1) have every qdisc enqueue and dequeue every packet, each paying the filter.
#
# Every round runs every case once, in a rotated order (so no case always follows the same one);
# ROUNDS rounds in one boot. Per case: median packets per second with the 25th-75th percentiles
# and the range; per ecnsharp case, its ratio to prio as the median of the per-round ratios (the
# two runs of a round are a few seconds apart, which cancels most of the machine's drift) with
# their interquartile range. Extra modules given with run-in-vm --file NAME.ko become extra cases
# "ecnsharp_1band@NAME" (loaded in turn in place of sch_ecnsharp.ko, for ablation builds).
#
# The last lines, which scripts read:
#   pps_ratio ecnsharp_1band/prio=A ecnsharp_8band_dwrr/prio=B ecnsharp_1band/fq_codel=C
#   pps_ratio_nobypass ecnsharp_1band/prio=D [p25-p75] ecnsharp_1band/fq_codel=E [p25-p75]
#   band_cost dwrr ns_per_pkt_vs_1band 2=.. 4=.. 8=.. 16=.. wfq 2=.. ...
# Run: tests/vm/run-in-vm tests/vm/experiments/cpu-cost.sh [ROUNDS [COUNT [CASES]]]
# (CASES: a space-separated subset of the cases, e.g. "prio ecnsharp_1band", for ablations).
. /test/vm/guest/lib.sh
ROUNDS=${1:-15}
COUNT=${2:-200000}
DEV=bench0
PG=/proc/net/pktgen

ip link del $DEV 2>/dev/null
ip link add $DEV type dummy || exit 1
# No IPv6 (router solicitations, MLD): only pktgen's packets go through the qdisc.
echo 1 >/proc/sys/net/ipv6/conf/$DEV/disable_ipv6 2>/dev/null
# dummy has no queue of its own (IFF_NO_QUEUE, txqueuelen 0): without a length, prio's pfifo
# children would have a limit of 0 packets.
ip link set $DEV txqueuelen 1000 up || exit 1
ip addr add 10.9.0.1/24 dev $DEV || exit 1

# The cases: NAME and the tc arguments after "root handle 1:".
CASES="prio fq_codel red ecnsharp_1band prio+matchall fq_codel+matchall ecnsharp_1band+matchall"
for b in 2 4 8 16; do
	CASES="$CASES ecnsharp_${b}band_dwrr ecnsharp_${b}band_wfq"
done
[ -n "$3" ] && CASES=$3
for ko in /test/extra/*.ko; do
	[ -f "$ko" ] || continue
	v=$(basename "$ko" .ko)
	CASES="$CASES ecnsharp_1band@$v"
done
qdisc_args() {
	case ${1%+matchall} in
	prio) echo "prio" ;;
	fq_codel) echo "fq_codel" ;;
	# DCTCP-style RED: marks above a threshold (no queue forms here, so only its cost counts).
	red) echo "red limit 1000000 min 30000 max 30001 avpkt 1000 burst 31 probability 1.0 ecn bandwidth 10gbit" ;;
	ecnsharp_1band | ecnsharp_1band@*) echo "ecnsharp bands 1" ;;
	ecnsharp_*band_dwrr) b=${1#ecnsharp_}; echo "ecnsharp bands ${b%%band_*} sched dwrr" ;;
	ecnsharp_*band_wfq) b=${1#ecnsharp_}; echo "ecnsharp bands ${b%%band_*} sched wfq" ;;
	esac
}

# The module loaded now: "" is the bench's own sch_ecnsharp.ko, else a variant's name.
LOADED=""
use_module() {
	[ "$LOADED" = "$1" ] && return 0
	tc qdisc del dev $DEV root 2>/dev/null
	rmmod sch_ecnsharp || return 1
	if [ -z "$1" ]; then
		insmod /lib/modules/ecnsharp/sch_ecnsharp.ko || return 1
	else
		insmod "/test/extra/$1.ko" || return 1
	fi
	LOADED=$1
}

RUN_N=0
# run CASE: one pktgen run through CASE; prints its packets per second.
run() {
	case $1 in
	*@*) use_module "${1#*@}" || return 1 ;;
	ecnsharp_*) use_module "" || return 1 ;;
	esac
	args=$(qdisc_args "$1")
	# A new qdisc each run (replace would change one left by a failed run, counters and all).
	tc qdisc del dev $DEV root 2>/dev/null
	# shellcheck disable=SC2086
	tc qdisc add dev $DEV root handle 1: $args || return 1
	case $1 in
	*+matchall) tc filter add dev $DEV parent 1: protocol all matchall classid 1:1 || return 1 ;;
	esac
	echo "rem_device_all" >$PG/kpktgend_0
	echo "rem_device_all" >$PG/kpktgend_1 2>/dev/null
	echo "add_device $DEV" >$PG/kpktgend_0 || return 1
	# (Not "c": run shares the caller's variables.)
	for cmd in "count $COUNT" "pkt_size 64" "delay 0" "clone_skb 0" "burst 1" \
		"xmit_mode queue_xmit" "dst 10.9.0.2" "dst_mac 02:00:00:00:00:02" \
		"udp_dst_min 9" "udp_dst_max 9"; do
		echo "$cmd" >$PG/$DEV || { echo "pktgen refused: $cmd" >&2; return 1; }
	done
	# pktgen returns once its last packet is freed: a qdisc that holds packets would hang the
	# bench, so a watchdog stops it (the count check below then fails the run).
	RUN_N=$((RUN_N + 1))
	flag=/tmp/cpu-cost-running.$RUN_N
	: >$flag
	# Not our child: a child of this shell exiting while "start" runs would interrupt it
	# (pktgen stops when the writer has a signal pending), so it is left to init.
	( (sleep 300 && [ -e $flag ] && echo stop >$PG/pgctrl) & )
	echo start >$PG/pgctrl
	rm -f $flag
	pps=$(sed -n 's/.* \([0-9][0-9]*\)pps .*/\1/p' $PG/$DEV)
	# Every packet went through the qdisc: sent by it, none dropped (a stray packet of the
	# stack's may add one).
	sent=$(tc -s -j qdisc show dev $DEV | jq -r '.[0].packets')
	drops=$(tc -s -j qdisc show dev $DEV | jq -r '.[0].drops')
	if [ "$sent" -lt "$COUNT" ] || [ "$sent" -gt $((COUNT + 10)) ] || [ "$drops" != 0 ]; then
		echo "cpu-cost: $1: the qdisc sent $sent of $COUNT packets, dropped $drops" >&2
		return 1
	fi
	tc qdisc del dev $DEV root
	echo "$pps"
}

echo "cpu-cost: $ROUNDS rounds of $COUNT packets of 64 bytes per case, pktgen queue_xmit to dummy"
echo "cpu-cost: guest $(nproc) vCPUs; load at start: $(cat /proc/loadavg)"
echo "cpu-cost: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
: >/tmp/cpu-cost
ncases=$(echo $CASES | wc -w)
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# Rotate the order by one each round.
	set -- $CASES
	k=$(((r - 1) % ncases))
	i=0
	order=""
	for c in "$@"; do
		[ $i -ge $k ] && order="$order $c"
		i=$((i + 1))
	done
	i=0
	for c in "$@"; do
		[ $i -lt $k ] && order="$order $c"
		i=$((i + 1))
	done
	line="round $r:"
	for c in $order; do
		# Not in $(...): run keeps which module is loaded in this shell. A run that pktgen ended
		# early (now and then under a loaded host it stops with a tenth sent, cause not found)
		# is run again, at most twice, and said so.
		tries=1
		until run "$c" >/tmp/cpu-cost.pps; do
			[ $tries -ge 3 ] && { echo "cpu-cost: $c failed $tries times"; exit 1; }
			echo "cpu-cost: $c: run again"
			tries=$((tries + 1))
		done
		pps=$(cat /tmp/cpu-cost.pps)
		echo "$r $c $pps" >>/tmp/cpu-cost
		line="$line $c=$pps"
	done
	echo "cpu-cost: $line"
	r=$((r + 1))
done
use_module "" >/dev/null 2>&1

# stats CASE: median p25 p75 min max of the case's pps.
stats() {
	awk -v c="$1" '$2 == c { print $3 }' /tmp/cpu-cost | sort -n | awk '
		{ v[NR] = $1 }
		END { print v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)], v[1], v[NR] }'
}
# ratio A B: median and interquartile range of A/B over the rounds.
ratio() {
	awk -v a="$1" -v b="$2" '
		$2 == a { x[$1] = $3 } $2 == b { y[$1] = $3 }
		END { for (r in x) if (r in y) printf "%.4f\n", x[r] / y[r] }' /tmp/cpu-cost | sort -n | awk '
		{ v[NR] = $1 }
		END { print v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'
}
echo "cpu-cost: per case, kpps median [p25-p75] (min-max) over $ROUNDS rounds; ratio to prio, median of per-round ratios [p25-p75]"
for c in $CASES; do
	# shellcheck disable=SC2046 # split intended: the fields become $1, $2, ...
	set -- $(stats "$c")
	# shellcheck disable=SC2046 # split intended: the ratio's fields follow as $6, $7, $8
	set -- "$@" $(ratio "$c" prio)
	awk -v c="$c" -v m="$1" -v q1="$2" -v q3="$3" -v lo="$4" -v hi="$5" -v r="$6" -v r1="$7" -v r3="$8" 'BEGIN {
		printf "cpu-cost:   %-26s %6.1f kpps [%.1f-%.1f] (%.1f-%.1f)  x prio %.3f [%.3f-%.3f]\n",
			c, m / 1000, q1 / 1000, q3 / 1000, lo / 1000, hi / 1000, r, r1, r3 }'
done
# has CASE: whether CASE ran.
has() { awk -v c="$1" '$2 == c { f = 1 } END { exit !f }' /tmp/cpu-cost; }
# The cost of bands: extra nanoseconds per packet against 1 band, from the medians.
if has ecnsharp_1band && has ecnsharp_16band_wfq; then
	m1=$(stats ecnsharp_1band | cut -d' ' -f1)
	line="band_cost"
	for s in dwrr wfq; do
		line="$line $s ns_per_pkt_vs_1band"
		for b in 2 4 8 16; do
			m=$(stats "ecnsharp_${b}band_$s" | cut -d' ' -f1)
			line="$line $(awk -v b="$b" -v m="$m" -v m1="$m1" 'BEGIN { printf "%d=%+.0f", b, 1e9 / m - 1e9 / m1 }')"
		done
	done
	echo "$line"
fi
if has ecnsharp_1band && has ecnsharp_8band_dwrr && has fq_codel; then
	a=$(ratio ecnsharp_1band prio | cut -d' ' -f1)
	b=$(ratio ecnsharp_8band_dwrr prio | cut -d' ' -f1)
	c=$(ratio ecnsharp_1band fq_codel | cut -d' ' -f1)
	echo "pps_ratio ecnsharp_1band/prio=$a ecnsharp_8band_dwrr/prio=$b ecnsharp_1band/fq_codel=$c"
	if has ecnsharp_1band+matchall && has prio+matchall && has fq_codel+matchall; then
		d=$(ratio ecnsharp_1band+matchall prio+matchall)
		e=$(ratio ecnsharp_1band+matchall fq_codel+matchall)
		echo "pps_ratio_nobypass ecnsharp_1band/prio=${d%% *} [$(echo ${d#* } | tr ' ' -)] ecnsharp_1band/fq_codel=${e%% *} [$(echo ${e#* } | tr ' ' -)]"
	fi
fi
ip link del $DEV
