#!/bin/sh
# The qdisc's life: module load/unload, packets left queued at delete and unload (the debug
# kernel's kmemleak and KASAN watch this suite), change under traffic without loss, limit shrink
# under a parent (the parents must hear of the drops), peek by a shaping parent, device down.
. /test/vm/guest/lib.sh
ktap_begin qdisc-lifecycle

KO=/lib/modules/ecnsharp/sch_ecnsharp.ko
Q=vq
loaded() { grep -q "^sch_ecnsharp " /proc/modules; }
cycle() {
	i=0
	while [ $i -lt 100 ]; do
		rmmod sch_ecnsharp || return 1
		insmod $KO || return 1
		i=$((i + 1))
	done
	loaded
}
check "unload and load 100 times" cycle

pg_pair || { ktap_not_ok "test network"; ktap_end; exit 1; }
busy_unload() {
	tc qdisc replace dev $Q root ecnsharp || return 1
	! rmmod sch_ecnsharp 2>/dev/null && loaded
}
check "unload refused while a qdisc exists" busy_unload

# A starved shaper keeps packets queued.
starve() { tc qdisc replace dev $Q root handle 1: ecnsharp rate 8kbit limit 1000 "$@"; }
queued() { [ "$(qstat $Q qlen)" -ge "$1" ]; }
check "starved shaper" starve
pg_send 100 1000 "tos 02"
check "100 packets arrive, most stay queued" queued 95
check "backlog in bytes matches qlen" sh -c "[ $(qstat $Q backlog) = $(($(qstat $Q qlen) * 1000)) ]"
check "counters balance with packets queued" qdisc_balanced $Q
check "delete with packets queued" tc qdisc del dev $Q root
reload() { rmmod sch_ecnsharp && insmod $KO; }
check "unload after deleting a loaded qdisc" reload

# Limit shrink under an htb parent: the parent hears of every drop (bug class: a child's drops
# outside enqueue not reported).
shrink_under_htb() {
	tc qdisc replace dev $Q root handle 1: htb default 1 &&
		tc class add dev $Q parent 1: classid 1:1 htb rate 8kbit ceil 8kbit &&
		tc qdisc add dev $Q parent 1:1 handle 10: ecnsharp limit 1000 || return 1
	pg_send 100 1000 "tos 02"
	tc qdisc change dev $Q parent 1:1 handle 10: ecnsharp limit 10 || return 1
	j=$(tc -s -j qdisc show dev $Q)
	echo "$j" | jq -e '
		(.[] | select(.kind == "ecnsharp")) as $c | (.[] | select(.kind == "htb")) as $p |
		$c.qlen <= 10 and $p.qlen == $c.qlen and $p.backlog == $c.backlog and $c.drops >= 85' ||
		{ echo "$j"; return 1; }
}
check "limit shrink under htb: parent counters follow the child" shrink_under_htb
tc qdisc del dev $Q root

# Peek by tbf (a parent that peeks before it dequeues), then drain: both end at zero.
peek_under_tbf() {
	tc qdisc replace dev $Q root handle 1: tbf rate 1mbit burst 3000 latency 1s &&
		tc qdisc add dev $Q parent 1:1 handle 10: ecnsharp mode tcn ins_target 5ms || return 1
	pg_send 50 1000 "tos 02"
	i=0
	while [ "$(tc -s -j qdisc show dev $Q | jq '[.[].qlen] | add')" != 0 ]; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
	tc -s -j qdisc show dev $Q | jq -e '
		(.[] | select(.kind == "ecnsharp")) as $c | (.[] | select(.kind == "tbf")) as $p |
		$c.backlog == 0 and $p.backlog == 0 and $c.packets == 50 and $p.packets == 50 and $c.bands[0].marks > 0'
}
check "child of tbf: peeked packets accounted, all 50 sent, marks made" peek_under_tbf
tc qdisc del dev $Q root

# Device down with packets queued resets the qdisc.
down_reset() {
	starve || return 1
	pg_send 20 1000 "tos 02"
	ip link set $Q down && ip link set $Q up || return 1
	[ "$(qstat $Q qlen)" = 0 ] && [ "$(qstat $Q backlog)" = 0 ]
}
check "device down resets the queue" down_reset
tc qdisc del dev $Q root

# Replacing ecnsharp by another kind while packets are queued destroys it with its packets.
check "starved shaper before replacing" starve
pg_send 20 1000 "tos 02"
check "replace by pfifo with packets queued" tc qdisc replace dev $Q root pfifo
tc qdisc del dev $Q root 2>/dev/null
pg_teardown

# Change under traffic: a DCTCP transfer through a shaped qdisc whose options change every 0.2 s
# loses nothing (no qdisc drop, no TCP retransmission).
net_pair
tc -n snd qdisc replace dev veth-s root ecnsharp rate 200mbit limit 10000
(
	for i in 1 2 3 4 5 6 7 8 9 10; do
		tc -n snd qdisc change dev veth-s root ecnsharp ins_target $((100 + i * 20))us pst_interval $((150 + i * 10))us rate $((150 + i * 10))mbit
		sleep 0.2
	done
) &
check "transfer while options change" iperf_run -c 10.0.0.2 -t 3 -C dctcp
wait
retrans=$(jq -r '.end.sum_sent.retransmits' /tmp/iperf.json)
drops=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].drops')
diag "retransmits $retrans, qdisc drops $drops"
check "change under traffic: no qdisc drop" sh -c "[ '$drops' = 0 ]"
check "change under traffic: no TCP retransmission" sh -c "[ '$retrans' = 0 ]"
check "change under traffic: the last change is in force" sh -c "[ $(tc -n snd -j qdisc show dev veth-s | jq '.[0].options.ins_target') = 300 ]"
net_teardown

ktap_end
