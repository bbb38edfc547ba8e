#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Netlink fuzzing in the kernel: ecnsharp-nlfuzz (tests/nlfuzz) sends malformed and extreme
# RTM_NEWQDISC/RTM_DELQDISC requests on a raw rtnetlink socket (wrong sizes and nesting, missing
# NLA_F_NESTED, truncated headers, duplicates, unknown attributes, zero and maximal values, size
# tables; add, change, replace and delete in random order) at an ecnsharp slot on root and under
# htb, tbf, prio and mq (a 4-queue veth), while pktgen streams run through the device. Every
# request must be answered (an ack), every error the qdisc may have raised must carry an extack
# message; after each batch the ecnsharp qdiscs balance band by band, and a fresh tree forwards
# exactly 100 packets with the counters of the qdisc and its parent in agreement. On the debug
# kernel, KASAN, lockdep and kmemleak (run-in-vm fails on any report) watch all of it.
#
# Arguments: [REQUESTS [SEED [KINDS]]]: requests in all (default 10000 on the debug kernel, where the
# reliability figures come from, and 2500 on the default kernel, which make check runs first;
# split over the five parents in batches of 500) and the base seed (default 1); batch B of a run
# uses seed SEED*1000+B, printed in its line, so a failing batch replays with the same arguments;
# KINDS (e.g. "tbf") runs only those parents' batches, with the seeds they have in a full run.
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
ktap_begin qdisc-fuzz

if [ -e /sys/kernel/debug/kmemleak ]; then TOTAL=${1:-10000}; else TOTAL=${1:-2500}; fi
BASE=${2:-1}
KINDS=${3:-root htb tbf prio mq}
BATCH=500
Q=vq
diag "requests: $TOTAL, base seed $BASE (replay: run-in-vm --flavour debug tests/vm/selftests/qdisc-fuzz.sh $TOTAL $BASE '$KINDS')"

# Each parent: its tree, the parents the fuzzer aims at, and where a sane ecnsharp goes after a
# batch ("PARENT HANDLE" pairs).
tree_root() { :; }
tree_htb() {
	tc qdisc add dev $Q root handle 1: htb default 1 &&
		tc class add dev $Q parent 1: classid 1:1 htb rate 200mbit
}
tree_tbf() { tc qdisc add dev $Q root handle 1: tbf rate 200mbit burst 20k latency 100ms; }
tree_prio() { tc qdisc add dev $Q root handle 1: prio; }
tree_mq() { tc qdisc add dev $Q root handle 1: mq; }
parents_of() {
	case $1 in
	root) echo root ;;
	htb | tbf) echo 1:1 ;;
	prio) echo 1:1,1:2,1:3 ;;
	mq) echo 1:1,1:2,1:3,1:4 ;;
	esac
}
slots_of() {
	case $1 in
	root) echo "root/1:" ;;
	htb | tbf) echo "1:1/10:" ;;
	prio) echo "1:1/10: 1:2/20: 1:3/30:" ;;
	mq) echo "1:1/10: 1:2/20: 1:3/30: 1:4/40:" ;;
	esac
}

# fresh PARENT-KIND: the tree with a sane ecnsharp in every slot.
fresh() {
	tc qdisc del dev $Q root 2>/dev/null
	tree_$1 || return 1
	for _s in $(slots_of "$1"); do
		_p=${_s%/*}
		_h=${_s#*/}
		if [ "$_p" = root ]; then
			tc qdisc add dev $Q root handle $_h ecnsharp bands 3 limit 1000 || return 1
		else
			tc qdisc add dev $Q parent $_p handle $_h ecnsharp bands 3 limit 1000 || return 1
		fi
	done
}

# forwards PARENT-KIND: a fresh tree takes exactly 100 packets, delivers them, and the counters
# of ecnsharp and of its parent (the root qdisc) agree.
forwards() {
	fresh "$1" || return 1
	_np0=$(snmp_counter rcv Udp NoPorts)
	pg_send 100 200 "udp_src_min 9" "udp_src_max 64" "flag UDPSRC_RND" || return 1
	wait_drained $Q 60 || { echo "queue never drained"; tc -s qdisc show dev $Q; return 1; }
	await_count $((_np0 + 100)) snmp_counter rcv Udp NoPorts
	_got=$(($(snmp_counter rcv Udp NoPorts) - _np0))
	[ "$_got" = 100 ] || { echo "delivered $_got of 100"; tc -s qdisc show dev $Q; return 1; }
	settled_balanced $Q || return 1
	_enq=$(jq '[.[] | select(.kind == "ecnsharp") | .bands[].enqueued] | add' /tmp/dump.json)
	_sent=$(sum_of ecnsharp packets)
	[ "$_enq" = 100 ] && [ "$_sent" = 100 ] || { echo "ecnsharp enqueued $_enq, sent $_sent"; return 1; }
	jq -e '[.[] | select(.root == true)][0] | .packets == 100 and .drops == 0 and .qlen == 0 and .backlog == 0' \
		/tmp/dump.json >/dev/null || { MISMATCHES=$((MISMATCHES + 1)); jq -c ".[]" /tmp/dump.json; return 1; }
}

{ pg_pair 4 && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }
TRIED=0
ACCEPTED=0
REJECTED=0
per=$(((TOTAL + 4) / 5))
b=0
for kind in root htb tbf prio mq; do
	done_here=0
	case " $KINDS " in
	*" $kind "*) check "$kind: tree with ecnsharp" fresh $kind ;;
	*)
		# Not run: its batches keep their seeds so the others replay as in a full run.
		b=$((b + (per + BATCH - 1) / BATCH))
		continue
		;;
	esac
	while [ $done_here -lt $per ]; do
		n=$BATCH
		[ $((per - done_here)) -lt $n ] && n=$((per - done_here))
		b=$((b + 1))
		seed=$((BASE * 1000 + b))
		bg_start "tos 02;skb_priority 0;delay 400000" \
			"dst6 fd01::2;src6 fd01::1;traffic_class 01;skb_priority 1;delay 400000" \
			"tos 00;skb_priority 2;delay 800000"
		ecnsharp-nlfuzz fuzz --dev $Q --parents "$(parents_of $kind)" --handle 10: \
			--seed $seed --count $n >/tmp/nlfuzz.out 2>&1
		rc=$?
		bg_stop
		cat /tmp/nlfuzz.out | sed 's/^/# /'
		line=$(grep '^nlfuzz: seed=' /tmp/nlfuzz.out)
		t=$(echo "$line" | sed -n 's/.* tried=\([0-9]*\).*/\1/p')
		a=$(echo "$line" | sed -n 's/.* accepted=\([0-9]*\).*/\1/p')
		r=$(echo "$line" | sed -n 's/.* rejected=\([0-9]*\).*/\1/p')
		TRIED=$((TRIED + ${t:-0}))
		ACCEPTED=$((ACCEPTED + ${a:-0}))
		REJECTED=$((REJECTED + ${r:-0}))
		check "$kind, seed $seed: $n requests, each answered, extack on every error of ours" \
			sh -c "[ $rc = 0 ] && [ '${t:-0}' = $n ] && [ $((${a:-0} + ${r:-0})) = $n ]"
		check "$kind, seed $seed: traffic flowed during the batch ($BG_OFFERED packets offered)" \
			gt "${BG_OFFERED:-0}" 0
		check "$kind, seed $seed: every ecnsharp band balances after the batch" balanced_all $Q
		check "$kind, seed $seed: a fresh tree forwards 100 packets, ecnsharp and parent agree" forwards $kind
		done_here=$((done_here + n))
	done
done
check "fuzzing both accepted and rejected requests (the fuzzer has power)" \
	sh -c "[ $ACCEPTED -gt $((TRIED / 20)) ] && [ $REJECTED -gt $((TRIED / 5)) ]"
tc qdisc del dev $Q root 2>/dev/null
pg_teardown
check "module unloads after the fuzzing" rmmod sch_ecnsharp
reliability "fuzz_tried=$TRIED fuzz_rejected=$REJECTED fuzz_accepted=$ACCEPTED counter_mismatches=$MISMATCHES"
ktap_end
