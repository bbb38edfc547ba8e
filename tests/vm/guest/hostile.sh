# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Guest helpers for the hostile-input suites (qdisc-fuzz, qdisc-stress, qdisc-oddpkts), sourced
# after lib.sh: background pktgen traffic that starts and stops on demand, balance checks over
# every ecnsharp qdisc of a device, and the reliability figures the suites print for
# tests/check.sh ("# reliability: key=value ...", summed over suites).

MISMATCHES=0

# qdump DEV: every qdisc of DEV with statistics, as JSON, from ecnsharp-tc (tc 6.1 prints invalid
# JSON for hfsc and qfq parents).
qdump() { ecnsharp-tc -s -j qdisc show dev "$1"; }

# quiet_pair: after pg_pair, vq sends nothing of its own, so the qdisc sees only pktgen's packets
# and counts can be exact: both neighbours pinned (no ARP), IPv6 off on vq (no MLD, RS or
# neighbour advertisements; pktgen builds its IPv6 headers itself).
quiet_pair() {
	ip neigh replace 10.1.0.2 lladdr "$PG_MAC" dev vq nud permanent || return 1
	ip -n rcv neigh replace 10.1.0.1 lladdr "$(cat /sys/class/net/vq/address)" dev vr nud permanent || return 1
	echo 1 >/proc/sys/net/ipv6/conf/vq/disable_ipv6
}

# bg_start SPEC...: pktgen streams on vq (one per SPEC, each a ";"-separated list of pktgen
# commands) of BG_SIZE-byte packets (default 200), running until bg_stop. The test network comes
# from pg_pair.
bg_start() {
	BG_N=0
	for _spec in "$@"; do
		# Random source ports: the streams spread over flows (and mq's queues).
		set -- "$@" "udp_src_min 9;udp_src_max 64;flag UDPSRC_RND;$_spec"
		BG_N=$((BG_N + 1))
	done
	shift $BG_N
	pg_setup_streams 0 "${BG_SIZE:-200}" "$@" || return 1
	echo start >/proc/net/pktgen/pgctrl &
	BG_PID=$!
}

# bg_offered: what the streams offered so far (pktgen's sent + refused, over all streams).
bg_offered() {
	cat /proc/net/pktgen/vq@* 2>/dev/null | awk '
		/pkts-sofar:/ { for (i = 1; i < NF; i++) { if ($i == "pkts-sofar:") s += $(i + 1); if ($i == "errors:") s += $(i + 1) } }
		END { print s + 0 }'
}

# bg_stop: stop the streams; BG_OFFERED is what they offered the qdisc (sent + refused).
bg_stop() {
	pg_stop_all "$BG_PID"
	# shellcheck disable=SC2034 # read by the suites that source this
	BG_OFFERED=$(bg_offered)
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_0
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_1 2>/dev/null
	return 0
}

# balanced_all DEV: DEV has an ecnsharp qdisc, and every band of every one balances, packets and
# bytes (enqueued = sent + drops + queued; the band records are one snapshot). A failure counts
# in MISMATCHES and shows the dump.
balanced_all() {
	qdump "$1" >/tmp/dump.json 2>&1 || { cat /tmp/dump.json; return 1; }
	# At least one ecnsharp qdisc: an empty list would pass "all" and prove nothing.
	jq -e '[.[] | select(.kind == "ecnsharp") | .bands[] |
		.enqueued == .packets + .drops_limit + .drops_nonect + .drops_config + .qlen] |
		length > 0 and all' /tmp/dump.json >/dev/null && return 0
	MISMATCHES=$((MISMATCHES + 1))
	jq -c '.[] | select(.kind == "ecnsharp") | {handle, parent, bands: [.bands[] |
		{enqueued, packets, qlen, drops_limit, drops_nonect, drops_config}]}' /tmp/dump.json
	return 1
}

# settled_balanced DEV [churned]: once nothing moves, each ecnsharp qdisc's generic counters
# equal the sum of its bands (the kernel reads them at another moment of the dump, so a moving
# queue is retried). With "churned" (changes under traffic may have removed bands: a removed
# band's record leaves the dump, while the packets it sent stay in the qdisc's generic count, so
# the packets cannot add up) only qlen and backlog are summed. A failure counts in MISMATCHES.
settled_balanced() {
	_sum_packets=true
	[ "${2:-}" = churned ] && _sum_packets=false
	for _try in 1 2 3 4 5; do
		qdump "$1" >/tmp/dump.json 2>&1 || break
		jq -e --argjson sum_packets $_sum_packets '[.[] | select(.kind == "ecnsharp") |
			(($sum_packets | not) or ([.bands[].packets] | add) == .packets) and
			([.bands[].qlen] | add) == .qlen and ([.bands[].backlog] | add) == .backlog and
			all(.bands[]; .enqueued == .packets + .drops_limit + .drops_nonect + .drops_config + .qlen)] | all' \
			/tmp/dump.json >/dev/null && return 0
		sleep 0.2
	done
	MISMATCHES=$((MISMATCHES + 1))
	jq -c '.[]' /tmp/dump.json 2>/dev/null || cat /tmp/dump.json
	return 1
}

# sum_of KIND FIELD: FIELD summed over DEV vq's qdiscs of KIND (from the last dump).
sum_of() { jq -r "[.[] | select(.kind == \"$1\") | .$2] | add // 0" /tmp/dump.json; }

# reliability KEY=VALUE...: one line for tests/check.sh, which sums each key over the suites.
reliability() { echo "# reliability: $*"; }
