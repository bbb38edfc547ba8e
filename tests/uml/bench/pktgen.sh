# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced by the native-UML CPU benchmarks (cpu-cost.sh and profile-guest.sh here): the cases
# they compare and one pktgen run through a case. pktgen (queue_xmit, so every packet
# goes through the root qdisc's enqueue and dequeue unless the qdisc lets an empty queue be
# bypassed) sends 64-byte UDP packets, ECN capable (ECT(0)), to a dummy device, which frees them.
#
# fq_codel (like codel and the FIFOs) sets TCQ_F_CAN_BYPASS: a packet that finds it empty goes
# straight to the device, with no enqueue, dequeue or clock read, and with a one-packet-deep queue
# that is every packet. Attaching a filter clears the flag (net/sched/cls_api.c), so CASE+matchall
# (the case with one matchall filter to class 1:1, band or flow 0) compares the qdiscs with every
# packet enqueued and dequeued, each paying the same filter call.
PG=/proc/net/pktgen

qdisc_args() {
	case ${1%+matchall} in
	prio) echo "prio" ;;
	fq_codel) echo "fq_codel ecn ce_threshold 0" ;;
	red) echo "red limit 1000000 min 30000 max 30001 avpkt 1000 burst 31 probability 1.0 ecn bandwidth 10gbit" ;;
	ecnsharp_1band) echo "ecnsharp bands 1 mode ecnsharp ins_target 0 pst_target 0" ;;
	ecnsharp_8band_dwrr) echo "ecnsharp bands 8 sched dwrr mode ecnsharp ins_target 0 pst_target 0" ;;
	*) return 1 ;;
	esac
}

# pktgen_dev DEV: a dummy device for pktgen, up, with an address.
pktgen_dev() {
	ip link add "$1" type dummy || return 1
	echo 1 >"/proc/sys/net/ipv6/conf/$1/disable_ipv6" 2>/dev/null
	ip link set "$1" txqueuelen 1000 up || return 1
	ip addr add 10.9.0.1/24 dev "$1"
}

# install_case DEV CASE: CASE as DEV's root qdisc (handle 1:), with its filter if it names one.
install_case() {
	tc qdisc del dev "$1" root 2>/dev/null
	args=$(qdisc_args "$2") || { echo "no such case: $2" >&2; return 1; }
	# shellcheck disable=SC2086
	tc qdisc add dev "$1" root handle 1: $args || return 1
	case $2 in
	*+matchall) tc filter add dev "$1" parent 1: protocol all matchall classid 1:1 || return 1 ;;
	esac
}

# pktgen_send DEV COUNT: COUNT packets through DEV's qdisc; prints pktgen's packets per second.
pktgen_send() {
	echo "rem_device_all" >$PG/kpktgend_0
	echo "add_device $1" >$PG/kpktgend_0 || return 1
	for cmd in "count $2" "pkt_size 64" "delay 0" "clone_skb 0" "burst 1" "tos 02" \
		"xmit_mode queue_xmit" "dst 10.9.0.2" "dst_mac 02:00:00:00:00:02" \
		"udp_dst_min 9" "udp_dst_max 9"; do
		echo "$cmd" >"$PG/$1" || { echo "pktgen refused: $cmd" >&2; return 1; }
	done
	echo start >$PG/pgctrl
	sed -n 's/.* \([0-9][0-9]*\)pps .*/\1/p' "$PG/$1"
}

# qdisc_books DEV COUNT: "PACKETS DROPS MARKS" of DEV's root qdisc; fails unless it sent the COUNT
# packets (pktgen may add a few) and dropped none.
qdisc_books() {
	# shellcheck disable=SC2046
	set -- "$2" $(tc -s -j qdisc show dev "$1" | jq -r '.[0] | "\(.packets) \(.drops) \(.marks // .ecn_mark // .ce_mark // 0)"')
	if [ "$2" -lt "$1" ] || [ "$2" -gt $(($1 + 10)) ] || [ "$3" != 0 ]; then
		echo "the qdisc sent $2 of $1 packets, dropped $3" >&2
		return 1
	fi
	echo "$2 $3 $4"
}
