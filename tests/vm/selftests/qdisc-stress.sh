#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Stress: every marking mode with every scheduler, with and without the shaper, under mixed
# traffic on every band (ECT(0), ECT(1), non-ECT and CE; three priorities; IPv4 and IPv6); then
# the configuration changed many times a second (bands up and down, rate, limit, mode, scheduler)
# under traffic, at the root and under htb, tbf and prio; links flapping; the qdisc deleted and
# re-added; the device deleted under traffic; the module unloaded at the end. Every run is
# bounded in time and must have moved traffic: pktgen offered packets, and in the scheduler
# cases every band enqueued some.
# Only invariants are asserted, so the suite means the same on the debug kernel (KASAN, lockdep,
# kmemleak): band by band enqueued = sent + drops + queued; once drained, every offered packet
# was enqueued by ecnsharp and sent or dropped, and a parent's counters say the same.
#
# Argument: [SECONDS] of traffic per run (default 2; make soak runs longer).
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
# The debug kernel (KASAN, lockdep, kmemleak: ten times slower) runs a rotated matrix (below):
# 8 runs of the modes instead of 28, then the same 9 cases.
DEBUG=0
[ -e /sys/kernel/debug/kmemleak ] && DEBUG=1
if [ $DEBUG = 1 ]; then ktap_begin qdisc-stress 17; else ktap_begin qdisc-stress 37; fi

Q=vq
SECS=${1:-2}
STRESS_S=0
STRESS_PKTS=0
CHANGES=0
MAP="priomap 0 1 2 2 2 2 2 2 2 2 2 2 2 2 2 2"
# Three bands (priorities 0, 1, 2), IPv4 and IPv6, every ECN codepoint, paced.
# About 3,400 packets of 1000 bytes a second in all (27 Mbit/s): more than the shaped runs'
# 10 Mbit/s, and light enough that tc gets the CPU to change the options many times a second.
# shellcheck disable=SC2034 # read by bg_start (tests/vm/guest/hostile.sh)
BG_SIZE=1000
traffic_start() {
	bg_start "skb_priority 0;tos 02;delay 1000000" "skb_priority 1;tos 01;delay 1000000" \
		"skb_priority 2;tos 00;delay 1500000" "skb_priority 0;tos 02;dst6 fd01::2;src6 fd01::1;delay 2000000" \
		"skb_priority 1;tos 03;delay 4000000" || return 1
}
# traffic_stop: stop, then require that pktgen offered packets; adds to the figures.
traffic_stop() {
	bg_stop
	STRESS_S=$((STRESS_S + SECS))
	STRESS_PKTS=$((STRESS_PKTS + BG_OFFERED))
	[ "$BG_OFFERED" -gt 0 ] || { echo "pktgen offered nothing"; return 1; }
}

# drained_balance [PARENT-KIND]: once the queue drained, at the qdisc: every band balances, and
# what pktgen offered (sent + refused) is what ecnsharp sent plus what it dropped; the bands that
# took traffic are at least NBANDS (default 3). With a parent, the parent says the same: sent +
# dropped = offered, nothing left, the same sent and dropped as ecnsharp. (After a change that
# removed bands, the removed bands' records leave the dump, so the qdisc-wide figures are the
# generic counters, not sums over bands.)
drained_balance() {
	wait_drained $Q 60 || { echo "queue never drained"; tc -s qdisc show dev $Q; return 1; }
	balanced_all $Q || return 1
	jq -e --argjson off "$BG_OFFERED" --argjson nb "${NBANDS:-3}" \
		'([.[] | select(.kind == "ecnsharp")][0]) as $c |
		$c.packets + $c.drops + $c.qlen == $off and $c.qlen == 0 and
		([$c.bands[] | select(.enqueued > 0)] | length) >= $nb' /tmp/dump.json >/dev/null || {
		MISMATCHES=$((MISMATCHES + 1))
		echo "ecnsharp's sent + dropped is not the $BG_OFFERED packets offered (or too few bands busy):"
		jq -c '.[]' /tmp/dump.json
		return 1
	}
	[ -z "${1:-}" ] && return 0
	jq -e --argjson off "$BG_OFFERED" '([.[] | select(.kind == "ecnsharp")][0]) as $c |
		([.[] | select(.root == true)][0]) as $p |
		$p.packets + $p.drops == $off and $p.qlen == 0 and $p.backlog == 0 and
		$p.packets == $c.packets and $p.drops == $c.drops' /tmp/dump.json >/dev/null || {
		MISMATCHES=$((MISMATCHES + 1))
		echo "parent $1 disagrees with ecnsharp or with the $BG_OFFERED packets offered:"
		jq -c '.[]' /tmp/dump.json
		return 1
	}
}

run_case() { # OPTIONS...
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp bands 3 $MAP "$@" || return 1
	traffic_start || return 1
	sleep "$SECS"
	balanced_all $Q || { bg_stop; return 1; }
	traffic_stop || return 1
	drained_balance || return 1
	# No band came or went: the bands add up to the qdisc's generic counters.
	settled_balanced $Q || return 1
	tc qdisc del dev $Q root
}

{ pg_pair && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }
# On the debug kernel (ten times slower) each mode runs with one scheduler, in rotation, and the
# unshaped strict-priority run only for the first mode: every mode and every scheduler still runs.
SCHEDS="sp dwrr wfq"
m=0
for mode in ecnsharp tcn codel red dequeue prob ecnsharp_prob; do
	m=$((m + 1))
	[ $DEBUG = 1 ] && SCHEDS=$(echo "sp dwrr wfq" | cut -d' ' -f$((1 + m % 3)))
	for sched in $SCHEDS; do
		check "$mode, $sched, shaped at 10mbit (limit 200, non_ect drop): traffic on every band, counters balance" \
			run_case mode $mode sched $sched rate 10mbit limit 200 k 20 non_ect drop
	done
	[ $DEBUG = 1 ] && [ $m -gt 1 ] && continue
	check "$mode, dwrr strict 1, unshaped: traffic on every band, counters balance" \
		run_case mode $mode sched dwrr strict 1
done

# under_change [PARENT-KIND]: traffic through a qdisc whose options change under it as fast as
# the kernel answers (ecnsharp-nlfuzz churn: RTM_NEWQDISC changes over raw netlink, each with a
# new band count from 1 to 6, limit, marking mode, scheduler and rate; tc would manage only a
# few a second in this guest). Every change must be taken.
under_change() {
	tc qdisc del dev $Q root 2>/dev/null
	if [ -n "${1:-}" ]; then
		${1}_parent || return 1
		tc qdisc add dev $Q parent 1:1 handle 10: ecnsharp bands 3 $MAP rate 20mbit limit 300 || return 1
		_where="--parent 1:1 --handle 10:"
	else
		tc qdisc add dev $Q root handle 1: ecnsharp bands 3 $MAP rate 20mbit limit 300 || return 1
		_where="--parent root --handle 1:"
	fi
	traffic_start || return 1
	# shellcheck disable=SC2086
	ecnsharp-nlfuzz churn --dev $Q $_where --seconds "$SECS" --seed $((STRESS_S + 1)) >/tmp/churn.out 2>&1
	_rc=$?
	balanced_all $Q || { bg_stop; return 1; }
	traffic_stop || return 1
	cat /tmp/churn.out
	_n=$(sed -n 's/^churn: changes=\([0-9]*\).*/\1/p' /tmp/churn.out)
	CHANGES=$((CHANGES + ${_n:-0}))
	[ "$_rc" = 0 ] || { echo "churn failed (status $_rc)"; return 1; }
	[ "${_n:-0}" -gt $((SECS * 5)) ] || { echo "only ${_n:-0} changes in ${SECS}s"; return 1; }
	# The last change may have left one band: the traffic went to at least one.
	NBANDS=1 drained_balance $1 || return 1
	tc qdisc del dev $Q root
}
htb_parent() {
	tc qdisc add dev $Q root handle 1: htb default 1 &&
		tc class add dev $Q parent 1: classid 1:1 htb rate 40mbit
}
tbf_parent() { tc qdisc add dev $Q root handle 1: tbf rate 40mbit burst 20k latency 200ms; }
prio_parent() { tc qdisc add dev $Q root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0; }
check "options changed many times a second under traffic (root): every change taken, counters balance" under_change
check "... under htb: parent and child agree with what was offered" under_change htb
check "... under tbf (a peeking parent): parent and child agree with what was offered" under_change tbf
check "... under prio: parent and child agree with what was offered" under_change prio

# Link flaps under traffic and change: each down resets the queue (its packets count as config
# drops) and stops pktgen on the device, which is restarted after each flap; only ecnsharp's own
# balance is asserted, at every band, before and after every flap.
flapping() {
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp bands 3 $MAP rate 10mbit limit 500 || return 1
	_end=$(($(uptime_ms) + SECS * 1000))
	_flaps=0
	_off=0
	while [ "$(uptime_ms)" -lt $_end ]; do
		traffic_start || return 1
		sleep 0.3
		balanced_all $Q || { bg_stop; return 1; }
		ip link set $Q down && ip link set $Q up || { bg_stop; return 1; }
		bg_stop
		_off=$((_off + BG_OFFERED))
		tc qdisc change dev $Q root ecnsharp limit $((100 + _flaps % 400)) || return 1
		_flaps=$((_flaps + 1))
		balanced_all $Q || return 1
	done
	STRESS_S=$((STRESS_S + SECS))
	STRESS_PKTS=$((STRESS_PKTS + _off))
	CHANGES=$((CHANGES + 2 * _flaps))
	diag "link flaps: $_flaps, $_off packets offered"
	[ "$_flaps" -gt 0 ] && [ "$_off" -gt 0 ] || return 1
	wait_drained $Q 60 && settled_balanced $Q || return 1
	jq -e '[.[] | select(.kind == "ecnsharp") | .bands[].enqueued] | add > 0' /tmp/dump.json >/dev/null
}
check "link flaps under traffic and change: every band balances around every flap" flapping

# The qdisc deleted and re-added under traffic, many times.
readd() {
	tc qdisc del dev $Q root 2>/dev/null
	traffic_start || return 1
	_end=$(($(uptime_ms) + SECS * 1000))
	_n=0
	while [ "$(uptime_ms)" -lt $_end ]; do
		tc qdisc replace dev $Q root handle 1: ecnsharp bands $((1 + _n % 4)) rate 20mbit limit 200 || { bg_stop; return 1; }
		sleep 0.05
		balanced_all $Q || { bg_stop; return 1; }
		tc qdisc del dev $Q root || { bg_stop; return 1; }
		_n=$((_n + 1))
	done
	tc qdisc add dev $Q root handle 1: ecnsharp bands 3 $MAP rate 20mbit limit 200 || { bg_stop; return 1; }
	sleep 0.5
	balanced_all $Q || { bg_stop; return 1; }
	traffic_stop || return 1
	CHANGES=$((CHANGES + 2 * _n))
	diag "deleted and re-added $_n times"
	[ "$_n" -gt 0 ] && wait_drained $Q 60 && settled_balanced $Q
}
check "qdisc deleted and re-added under traffic: each instance balances" readd

# The device deleted under traffic, with packets queued in a shaped ecnsharp under htb.
device_gone() {
	tc qdisc del dev $Q root 2>/dev/null
	htb_parent && tc qdisc add dev $Q parent 1:1 handle 10: ecnsharp bands 3 $MAP rate 200kbit limit 1000 || return 1
	traffic_start || return 1
	sleep "$SECS"
	balanced_all $Q || { bg_stop; return 1; }
	_q=$(tc -s -j qdisc show dev $Q | jq '[.[] | select(.kind == "ecnsharp") | .qlen] | add')
	_off=$(bg_offered)
	ip link del $Q || { bg_stop; return 1; }
	bg_stop
	STRESS_S=$((STRESS_S + SECS))
	STRESS_PKTS=$((STRESS_PKTS + _off))
	CHANGES=$((CHANGES + 1))
	diag "device deleted with $_q packets queued in ecnsharp, $_off offered"
	[ "$_off" -gt 0 ] && [ "$_q" -gt 0 ] && ! ip link show $Q >/dev/null 2>&1
}
check "device deleted under traffic with packets queued" device_gone
pg_teardown
nothing_left() { ! tc qdisc show | grep -q ecnsharp; }
check "nothing of ours left" nothing_left
check "module unloads after the stress" rmmod sch_ecnsharp
reliability "stress_s=$STRESS_S stress_pkts=$STRESS_PKTS changes=$CHANGES counter_mismatches=$MISMATCHES"
ktap_end
