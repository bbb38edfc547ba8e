#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# vm-flavour: debug
# Allocation failures injected under traffic (debug kernel: failslab and fail_page_alloc, armed
# per request through /proc/thread-self/fail-nth as syzkaller does). For each parent (root, htb,
# tbf) ecnsharp-nlfuzz faults makes the 1st, 2nd, ... Nth allocation of a request fail until the
# request completes before its Nth allocation: qdisc create, change (to 16 bands: the largest
# notification), class dump, qdisc dump, matchall filter add, and at the root GSO packets that
# ecnsharp cuts into segments at enqueue. Every request must be answered, the device must hold
# the configuration before or the one asked for, never a mixture; a GSO packet whose segmentation
# fails is queued whole (its band counts one packet where a split one counts eight). Meanwhile
# pktgen streams run through every band; afterwards every band balances. KASAN, lockdep and
# kmemleak watch it all (run-in-vm fails the run on any report, and on a leak the final scan
# finds).
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
ktap_begin qdisc-faults 20

Q=vq
MAX=${1:-300}
KINDS="root htb tbf"
if [ ! -e /proc/thread-self/fail-nth ] || [ ! -d /sys/kernel/debug/failslab ] || [ ! -d /sys/kernel/debug/fail_page_alloc ]; then
	for i in $(seq 1 20); do ktap_skip "fault injection case $i" "this kernel has no failslab/fail_page_alloc (the debug kernel has)"; done
	ktap_end
	exit 0
fi

# Only fail-nth injects (probability 0); GFP_KERNEL allocations too (ignore-gfp-wait N), page
# allocations of any order; silent (verbose 0: a failure's stack dump would read as a splat).
arm_fault_injection() {
	for d in failslab fail_page_alloc; do
		f=/sys/kernel/debug/$d
		echo 0 >$f/probability && echo 0 >$f/verbose && echo N >$f/ignore-gfp-wait || return 1
	done
	echo 0 >/sys/kernel/debug/fail_page_alloc/min-order
}
check "fault injection armed (failslab, fail_page_alloc, fail-nth)" arm_fault_injection

tree_root() { :; }
tree_htb() {
	tc qdisc add dev $Q root handle 1: htb default 1 &&
		tc class add dev $Q parent 1: classid 1:1 htb rate 300mbit
}
tree_tbf() { tc qdisc add dev $Q root handle 1: tbf rate 300mbit burst 30k latency 100ms; }
slot_of() { [ "$1" = root ] && echo root || echo 1:1; }

{ pg_pair && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }
INJECTED=0
for kind in $KINDS; do
	P=$(slot_of $kind)
	setup() {
		tc qdisc del dev $Q root 2>/dev/null
		tree_$kind || return 1
		tc qdisc add dev $Q parent $P handle 10: ecnsharp bands 3 limit 1000 2>/dev/null ||
			tc qdisc add dev $Q root handle 10: ecnsharp bands 3 limit 1000
	}
	check "$kind: tree with ecnsharp under $P" setup
	gso=
	[ $kind = root ] && gso="--dst-mac $PG_MAC"
	# The GSO sends go to band 15 (class 10:16) of the 16-band qdisc the faults leave behind.
	b15() { qjson $Q | jq -r '.bands[15].enqueued // 0'; }
	# Every band: three priorities, ECT(0), ECT(1) and not-ECT.
	bg_start "tos 02;skb_priority 0;delay 300000" \
		"dst6 fd01::2;src6 fd01::1;traffic_class 01;skb_priority 1;delay 300000" \
		"tos 00;skb_priority 2;delay 600000"
	# shellcheck disable=SC2086 # gso: two words or none
	ecnsharp-nlfuzz faults --dev $Q --parent $P --handle 10: --max "$MAX" $gso >/tmp/faults.out 2>&1
	rc=$?
	bg_stop
	sed 's/^/# /' /tmp/faults.out
	n=$(sed -n 's/^faults: injected=\([0-9]*\) .*/\1/p' /tmp/faults.out)
	INJECTED=$((INJECTED + ${n:-0}))
	check "$kind: every request answered; the device held the old or the new configuration, never a mixture" \
		sh -c "[ $rc = 0 ] && grep -q '^faults: injected=[0-9]* mismatches=0' /tmp/faults.out"
	check "$kind: faults injected into add, change, class dump, qdisc dump and filter add" sh -c '
		for op in add change class-dump qdisc-dump filter-add; do
			grep -q "^faults: op=$op tried=[0-9]* injected=[1-9]" /tmp/faults.out || { echo "none injected into $op"; exit 1; }
		done'
	check "$kind: traffic flowed meanwhile ($BG_OFFERED packets offered)" gt "${BG_OFFERED:-0}" 0
	check "$kind: every ecnsharp band balances" balanced_all $Q
	if [ $kind = root ]; then
		wait_drained $Q 30
		sent=$(sed -n 's/^faults: gso sent=\([0-9]*\).*/\1/p' /tmp/faults.out)
		enq=$(b15)
		# A split packet adds 8 to the band's arrivals, one queued whole 1: enq = 8 sent - 7 whole.
		whole=$(((8 * ${sent:-0} - ${enq:-0}) / 7))
		diag "gso: $sent packets queued, band 15 took $enq arrivals: $whole queued whole"
		check "gso: faults injected into GSO sends, each answered (${sent:-0} queued)" \
			grep -q '^faults: op=gso-split tried=[0-9]* injected=[1-9]' /tmp/faults.out
		check "gso: a packet whose segmentation failed was queued whole ($whole of ${sent:-0})" \
			sh -c "[ $whole -ge 1 ] && [ $(((8 * ${sent:-0} - ${enq:-0}) % 7)) = 0 ] && [ ${enq:-0} -gt 0 ]"
		# A packet queued whole counts in the kernel's packet counters as its gso_segs, in the
		# band records as one skb: the bands balance, and the classes (which count as the kernel
		# does) add up to the qdisc.
		gso_books() {
			balanced_all $Q || return 1
			_cls=$(tc -s class show dev $Q | awk '$1 == "class" { c = ($2 == "ecnsharp") } c && $1 == "Sent" { s += $4; c = 0 } END { print s + 0 }')
			_q=$(qstat $Q packets)
			[ "$_cls" = "$_q" ] || { MISMATCHES=$((MISMATCHES + 1)); echo "classes $_cls packets, qdisc $_q"; return 1; }
		}
		check "gso: ecnsharp's books balance after the GSO faults, the classes add up to the qdisc" gso_books
	fi
done
tc qdisc del dev $Q root 2>/dev/null
pg_teardown
check "module unloads" rmmod sch_ecnsharp
reliability "faults_injected=$INJECTED counter_mismatches=$MISMATCHES"
ktap_end
