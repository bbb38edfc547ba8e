#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Netlink fuzzing in the kernel, with an oracle: ecnsharp-nlfuzz (tests/nlfuzz) sends malformed
# and extreme RTM_NEWQDISC/RTM_DELQDISC requests on a raw rtnetlink socket (wrong sizes and
# nesting, missing NLA_F_NESTED, truncated headers, duplicates, unknown attributes, zero and
# maximal values, size tables; add, change, replace and delete in random order), class requests
# on ecnsharp's classes and matchall filters on its block, at an ecnsharp slot on root and under
# htb, tbf, prio, mq (a 4-queue veth), drr, ets, hfsc and qfq, while pktgen streams run through
# the device. Every request must be answered (an ack), every error the qdisc may have raised
# must carry an extack message; the oracle predicts accept or reject from a dump of the device
# before each request and the core's own decoder, reads every accepted configuration back,
# checks that a refused request changed nothing, and counts its disagreements
# (fuzz_oracle_mismatches). After each batch the ecnsharp qdiscs balance band by band, and a
# fresh tree forwards exactly 100 packets with the counters of the qdisc and its parent in
# agreement. On the debug kernel, KASAN, lockdep and kmemleak (run-in-vm fails on any report)
# watch all of it.
#
# Arguments: [REQUESTS [SEED [KINDS]]]: requests in all (default 10000 on the debug kernel, where
# the reliability figures come from, and 2500 on the default kernel, which make check runs
# first; split over the nine parents in batches of 500); the base seed (default: NLFUZZ_SEED
# from the host, else random, printed); batch B of a run uses seed SEED*1000+B, so a failing
# run replays with NLFUZZ_SEED=SEED; KINDS (e.g. "tbf qfq") runs only those parents' batches,
# with the seeds they have in a full run.
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh

if [ -e /sys/kernel/debug/kmemleak ]; then TOTAL=${1:-10000}; else TOTAL=${1:-2500}; fi
BASE=${2:-${NLFUZZ_SEED:-$(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') + 1))}}
ALL="root htb tbf prio mq drr ets hfsc qfq"
KINDS=${3:-$ALL}
BATCH=500
Q=vq
per=$(((TOTAL + 8) / 9))
batches=$(((per + BATCH - 1) / BATCH))
selected=0
for kind in $ALL; do
	case " $KINDS " in *" $kind "*) selected=$((selected + 1)) ;; esac
done
ktap_begin qdisc-fuzz $((selected * (1 + 4 * batches) + 3))
diag "requests: $TOTAL, seed base $BASE: replay with NLFUZZ_SEED=$BASE (make check, or tests/vm/selftests.sh --flavour debug tests/vm/selftests/qdisc-fuzz.sh; in the guest: qdisc-fuzz.sh $TOTAL $BASE '$KINDS')"

# Each parent: its tree, the parents the fuzzer aims at, and where a sane ecnsharp goes after a
# batch ("PARENT HANDLE" pairs). Parents that classify by filter get a matchall into 1:1.
tree_root() { :; }
tree_htb() {
	tc qdisc add dev $Q root handle 1: htb default 1 &&
		tc class add dev $Q parent 1: classid 1:1 htb rate 200mbit
}
tree_tbf() { tc qdisc add dev $Q root handle 1: tbf rate 200mbit burst 20k latency 100ms; }
tree_prio() { tc qdisc add dev $Q root handle 1: prio; }
tree_mq() { tc qdisc add dev $Q root handle 1: mq; }
tree_drr() {
	tc qdisc add dev $Q root handle 1: drr && tc class add dev $Q parent 1: classid 1:1 drr &&
		tc filter add dev $Q parent 1: protocol all prio 1 matchall classid 1:1
}
tree_ets() { tc qdisc add dev $Q root handle 1: ets bands 1 quanta 1500 priomap 0; }
tree_hfsc() {
	tc qdisc add dev $Q root handle 1: hfsc default 1 &&
		tc class add dev $Q parent 1: classid 1:1 hfsc sc rate 200mbit ul rate 200mbit
}
tree_qfq() {
	tc qdisc add dev $Q root handle 1: qfq && tc class add dev $Q parent 1: classid 1:1 qfq weight 1 maxpkt 1514 &&
		tc filter add dev $Q parent 1: protocol all prio 1 matchall classid 1:1
}
parents_of() {
	case $1 in
	root) echo root ;;
	prio) echo 1:1,1:2,1:3 ;;
	mq) echo 1:1,1:2,1:3,1:4 ;;
	*) echo 1:1 ;;
	esac
}
slots_of() {
	case $1 in
	root) echo "root/1:" ;;
	prio) echo "1:1/10: 1:2/20: 1:3/30:" ;;
	mq) echo "1:1/10: 1:2/20: 1:3/30: 1:4/40:" ;;
	*) echo "1:1/10:" ;;
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
	_n=0
	while qdump $Q | jq -e 'any(.[]; .qlen > 0)' >/dev/null; do
		_n=$((_n + 1))
		[ $_n -gt 600 ] && { echo "queue never drained"; qdump $Q; return 1; }
		sleep 0.1
	done
	await_count $((_np0 + 100)) snmp_counter rcv Udp NoPorts
	_got=$(($(snmp_counter rcv Udp NoPorts) - _np0))
	[ "$_got" = 100 ] || { echo "delivered $_got of 100"; qdump $Q; return 1; }
	settled_balanced $Q || return 1
	_enq=$(jq '[.[] | select(.kind == "ecnsharp") | .bands[].enqueued] | add' /tmp/dump.json)
	_sent=$(sum_of ecnsharp packets)
	[ "$_enq" = 100 ] && [ "$_sent" = 100 ] || { echo "ecnsharp enqueued $_enq, sent $_sent"; return 1; }
	jq -e '[.[] | select(.root == true)][0] | .packets == 100 and .drops == 0 and .qlen == 0 and .backlog == 0' \
		/tmp/dump.json >/dev/null || { MISMATCHES=$((MISMATCHES + 1)); jq -c ".[]" /tmp/dump.json; return 1; }
}

# field LINE KEY: KEY=value of the fuzzer's summary line.
field() { echo "$1" | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }

{ pg_pair 4 && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }
TRIED=0
ACCEPTED=0
REJECTED=0
PREDICTED=0
ORACLE_MISMATCHES=0
b=0
for kind in $ALL; do
	done_here=0
	case " $KINDS " in
	*" $kind "*) check "$kind: tree with ecnsharp" fresh $kind ;;
	*)
		# Not run: its batches keep their seeds so the others replay as in a full run.
		b=$((b + batches))
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
		sed 's/^/# /' /tmp/nlfuzz.out
		line=$(grep '^nlfuzz: seed=' /tmp/nlfuzz.out)
		t=$(field "$line" tried)
		a=$(field "$line" accepted)
		r=$(field "$line" rejected)
		p=$(field "$line" oracle_predicted)
		m=$(field "$line" oracle_mismatches)
		TRIED=$((TRIED + ${t:-0}))
		ACCEPTED=$((ACCEPTED + ${a:-0}))
		REJECTED=$((REJECTED + ${r:-0}))
		PREDICTED=$((PREDICTED + ${p:-0}))
		ORACLE_MISMATCHES=$((ORACLE_MISMATCHES + ${m:-0}))
		check "$kind, seed $seed: $n requests, each answered, extack on every error of ours, the oracle agreed (${p:-0} predicted)" \
			sh -c "[ $rc = 0 ] && [ '${t:-0}' = $n ] && [ $((${a:-0} + ${r:-0})) = $n ] && [ '${m:-x}' = 0 ]"
		check "$kind, seed $seed: traffic flowed during the batch ($BG_OFFERED packets offered)" \
			gt "${BG_OFFERED:-0}" 0
		# The fuzzer may have deleted every ecnsharp qdisc (the oracle checked each delete):
		# then there is nothing to balance, and the case says so rather than pass empty.
		if qdump $Q | jq -e 'any(.[]; .kind == "ecnsharp")' >/dev/null; then
			check "$kind, seed $seed: every ecnsharp band balances after the batch" balanced_all $Q
		else
			ktap_skip "$kind, seed $seed: every ecnsharp band balances after the batch" "no ecnsharp qdisc left after the batch"
		fi
		check "$kind, seed $seed: a fresh tree forwards 100 packets, ecnsharp and parent agree" forwards $kind
		done_here=$((done_here + n))
	done
done
check "fuzzing both accepted and rejected requests (the fuzzer has power)" \
	sh -c "[ $ACCEPTED -gt $((TRIED / 20)) ] && [ $REJECTED -gt $((TRIED / 5)) ]"
check "the oracle predicted most requests ($PREDICTED of $TRIED)" ge $((PREDICTED * 2)) "$TRIED"
tc qdisc del dev $Q root 2>/dev/null
pg_teardown
check "module unloads after the fuzzing" rmmod sch_ecnsharp
reliability "fuzz_tried=$TRIED fuzz_rejected=$REJECTED fuzz_accepted=$ACCEPTED fuzz_oracle_mismatches=$ORACLE_MISMATCHES counter_mismatches=$MISMATCHES"
ktap_end
