#!/bin/sh
# Stress: every marking mode with every scheduler, with and without the shaper, under mixed
# traffic (ECT(0), ECT(1), non-ECT and CE; three priorities; IPv4 and IPv6), with options changed
# under load and ecnsharp nested under htb and tbf. Only invariants are asserted (the counters
# balance, nothing is left queued after a delete), so the suite means the same on the debug
# kernel, where KASAN, lockdep, the atomic-sleep checks and kmemleak watch every path.
. /test/vm/guest/lib.sh
ktap_begin qdisc-stress

Q=vq
SECS=${1:-2}
MIX="skb_priority 0;tos 02;delay 100000|skb_priority 1;tos 01;delay 150000|skb_priority 2;tos 00;delay 200000"
traffic() {
	old_ifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086
	set -- $MIX
	IFS=$old_ifs
	pg_streams "$SECS" 700 "$@" "$1;dst6 fd01::2;src6 fd01::1" "skb_priority 0;tos 03;delay 500000"
}
run_case() { # OPTIONS...
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp bands 3 priomap 0 1 2 2 2 2 2 2 2 2 2 2 2 2 2 2 "$@" || return 1
	traffic
	bands_balanced $Q || return 1
	tc qdisc del dev $Q root
}

pg_pair || { ktap_not_ok "test network"; ktap_end; exit 1; }
for mode in ecnsharp tcn codel red dequeue prob ecnsharp_prob; do
	for sched in sp dwrr wfq; do
		check "$mode, $sched, shaped (limit 200, non_ect drop): counters balance" \
			run_case mode $mode sched $sched rate 30mbit limit 200 k 20 non_ect drop
	done
	check "$mode, dwrr strict 1, unshaped: counters balance" run_case mode $mode sched dwrr strict 1
done

changing() {
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp bands 4 rate 20mbit limit 300 || return 1
	(
		for i in 1 2 3 4 5 6; do
			tc qdisc change dev $Q root ecnsharp bands $((2 + i % 3)) limit $((50 + i * 40)) \
				sched $(echo "sp dwrr wfq" | cut -d' ' -f$((1 + i % 3))) mode ecnsharp_prob \
				rate $((10 + i * 5))mbit
			sleep 0.3
		done
	) &
	traffic
	wait
	bands_balanced $Q || return 1
	tc qdisc del dev $Q root
}
check "bands, limit, scheduler and rate changed under load: counters balance" changing

nested() { # PARENT-SETUP...: ecnsharp as 10: under the given parent, with traffic
	tc qdisc del dev $Q root 2>/dev/null
	"$@" || return 1
	tc qdisc add dev $Q parent 1:1 handle 10: ecnsharp bands 3 limit 100 mode tcn ins_target 1ms || return 1
	traffic
	tc qdisc change dev $Q parent 1:1 handle 10: ecnsharp limit 10 || return 1
	j=$(tc -s -j qdisc show dev $Q)
	tc qdisc del dev $Q root
	echo "$j" | jq -e '(.[] | select(.kind == "ecnsharp")) as $c |
		($c.bands | all(.enqueued == .packets + .drops_limit + .drops_nonect + .drops_config + .qlen))' \
		>/dev/null || { echo "$j"; return 1; }
}
htb_parent() {
	tc qdisc add dev $Q root handle 1: htb default 1 &&
		tc class add dev $Q parent 1: classid 1:1 htb rate 20mbit
}
tbf_parent() { tc qdisc add dev $Q root handle 1: tbf rate 20mbit burst 5000 latency 100ms; }
check "under htb, with a limit shrink after traffic" nested htb_parent
check "under tbf (peek), with a limit shrink after traffic" nested tbf_parent
nothing_left() { [ -z "$(tc qdisc show dev $Q | grep ecnsharp)" ]; }
check "nothing of ours left on the device" nothing_left
pg_teardown
check "module unloads after the stress" rmmod sch_ecnsharp
ktap_end
