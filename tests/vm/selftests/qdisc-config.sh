#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Configuration of the ecnsharp qdisc through stock tc (with q_ecnsharp.so), in the manner of the
# kernel's tc-testing (tdc) cases: defaults, each option read back, replace/change/delete, errors
# answered with an extack naming the option, and attachment under other qdiscs.
. /test/vm/guest/lib.sh
ktap_begin qdisc-config 58

ip link add dum0 type dummy && ip link set dum0 up
D=dum0
add() { tc qdisc add dev $D root handle 1: ecnsharp "$@"; }
del() { tc qdisc del dev $D root 2>/dev/null; true; }

# opt_is KEY VALUE: the option reads back as VALUE (raw JSON value).
opt_is() {
	got=$(qopt $D "$1")
	[ "$got" = "$2" ] || { echo "$1: got '$got', want '$2'"; qjson $D; return 1; }
}
# with_opt KEY VALUE OPTIONS...: a fresh qdisc with OPTIONS reads KEY back as VALUE.
with_opt() {
	key=$1
	want=$2
	shift 2
	del
	add "$@" || return 1
	opt_is "$key" "$want"
}
# refused PATTERN CMD...: CMD fails and its error output matches PATTERN (the option's name).
refused() {
	pattern=$1
	shift
	if "$@" >/tmp/refused.out 2>&1; then
		echo "accepted: $*"
		return 1
	fi
	cat /tmp/refused.out
	grep -q -- "$pattern" /tmp/refused.out
}
# exits CODE CMD...: CMD exits with CODE (tc: 1 = syntax, 2 = the kernel said no).
exits() {
	code=$1
	shift
	"$@" >/tmp/exits.out 2>&1
	rc=$?
	[ "$rc" = "$code" ] || { cat /tmp/exits.out; echo "exit $rc, want $code"; return 1; }
}
kind_is() { tc -j qdisc show dev $D | jq -e ".[0].kind == \"$1\" and .[0].handle == \"$2\"" >/dev/null; }
text_has() { tc qdisc show dev $D | grep -q -- "$1"; }
no_qdisc_of_ours() { ! tc qdisc show | grep -q ecnsharp; }

# Defaults: the ECN# paper's testbed values.
check "add with defaults" add
check "kind ecnsharp, handle 1:" kind_is ecnsharp 1:
check "default ins_target 200us" opt_is ins_target 200
check "default pst_target 85us" opt_is pst_target 85
check "default pst_interval 200us" opt_is pst_interval 200
check "default limit 1000 packets" opt_is limit 1000
check "default bands 1" opt_is bands 1
check "text shows the paper's defaults" text_has "ins_target 200us pst_target 85us pst_interval 200us"
check "duplicate add fails with EEXIST (exit 2)" exits 2 add
del

# Each option, read back.
check "ins_target 50us" with_opt ins_target 50 ins_target 50us
check "pst_target 1ms" with_opt pst_target 1000 pst_target 1ms
check "pst_interval 1.5ms" with_opt pst_interval 1500 pst_interval 1.5ms
check "limit 500" with_opt limit 500 limit 500
check "bands 8" with_opt bands 8 bands 8
check "mode tcn" with_opt mode '"tcn"' mode tcn
check "mode codel" with_opt mode '"codel"' mode codel
check "mode red with k 20" with_opt k 20 mode red k 20
check "mode dequeue" with_opt mode '"dequeue"' mode dequeue
# (tmin, tmax and pmax away from their defaults, 100us, 400us and 10%, so a read-back shows them.)
check "mode prob with tmin/tmax/pmax: tmax" with_opt tmax 300 mode prob tmin 50us tmax 300us pmax 20%
check "mode prob with tmin/tmax/pmax: tmin" with_opt tmin 50 mode prob tmin 50us tmax 300us pmax 20%
check "mode prob with tmin/tmax/pmax: pmax" with_opt pmax 0.2 mode prob tmin 50us tmax 300us pmax 20%
check "seed 7" with_opt seed 7 mode prob seed 7
check "limit_bytes 100kb" with_opt limit_bytes 102400 limit_bytes 100kb
check "idle_reset off" with_opt idle_reset false idle_reset off
check "k in bytes sets k_unit" with_opt k_unit '"bytes"' mode red k 30kb
check "weights" with_opt weights '[4,2,1]' bands 3 sched wfq weights 4,2,1
check "sched wfq" with_opt sched '"wfq"' bands 3 sched wfq weights 2,1,1
check "sched dwrr quanta" with_opt quanta '[3000,1500,1500]' bands 3 sched dwrr quanta 3000,1500,1500
check "strict bands on top of dwrr" with_opt strict 1 bands 3 sched dwrr strict 1
check "rate 100mbit (JSON: bytes per second, as tc)" with_opt rate 12500000 rate 100mbit
check "burst 30000" with_opt burst 30000 rate 100mbit burst 30000
check "non_ect drop" with_opt non_ect '"drop"' non_ect drop
check "classify dscp" with_opt classify '"dscp"' classify dscp
check "dscpmap 46:0" with_opt 'dscpmap[46]' 0 bands 3 classify dscp dscpmap 46:0
check "priomap" with_opt priomap '[0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1]' bands 2 priomap 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1
check "split_gso off" with_opt split_gso false split_gso off
check "control_law linear" with_opt control_law '"linear"' control_law linear
del

# change keeps what it is not given; replace creates or changes.
change_keeps() {
	add ins_target 300us pst_interval 400us || return 1
	tc qdisc change dev $D root ecnsharp ins_target 100us || return 1
	opt_is ins_target 100 && opt_is pst_interval 400
}
check "change sets one option and keeps the others" change_keeps
check "replace an existing qdisc" tc qdisc replace dev $D root handle 1: ecnsharp pst_target 50us
check "replace took effect" opt_is pst_target 50
check "delete" tc qdisc del dev $D root
check "nothing left after delete" no_qdisc_of_ours
check "delete twice fails (exit 2)" exits 2 tc qdisc del dev $D root handle 1: ecnsharp
check "replace when absent creates" tc qdisc replace dev $D root handle 1: ecnsharp

# Errors: the grammar refuses what is not a value; the kernel refuses what does not fit,
# including what only becomes invalid merged with the current configuration.
check "syntax error exits 1" exits 1 tc qdisc change dev $D root ecnsharp ins_target fast
check "unknown option exits 1" exits 1 tc qdisc change dev $D root ecnsharp frobnicate 1
check "pst_interval 0 refused, naming pst_interval" refused "Error: .*pst_interval" tc qdisc change dev $D root ecnsharp pst_interval 0
check "tmin above tmax refused, naming the option" refused "Error: .*tm" tc qdisc change dev $D root ecnsharp tmin 300us tmax 100us
check "valid probabilistic settings accepted" tc qdisc change dev $D root ecnsharp mode prob tmin 100us tmax 200us
check "kernel: tmax below the configured tmin refused, extack names it" refused "Error: .*tm" tc qdisc change dev $D root ecnsharp tmax 50us
check "kernel: strict 3 with bands 2 refused" refused "Error: .*strict" tc qdisc change dev $D root ecnsharp bands 2 strict 3
check "a failed change leaves the config whole" opt_is tmax 200

# Every error message goes through the kernel's extack macros, so the netlink:netlink_extack
# tracepoint sees it. Only the debug kernel has trace events, and make check runs this suite on
# the default kernel, where the case is a SKIP: run it by hand with
# `tests/vm/run-in-vm --flavour debug tests/vm/selftests/qdisc-config.sh`. (qdisc-fuzz, on the
# debug kernel in make check, requires an extack for every error of ours.)
extack_traced() {
	T=/sys/kernel/tracing
	[ -e $T/events ] || mount -t tracefs nodev $T || return 1
	echo 1 >$T/events/netlink/netlink_extack/enable || return 1
	echo >$T/trace
	tc qdisc change dev $D root ecnsharp bands 2 strict 3 >/dev/null 2>&1
	echo 0 >$T/events/netlink/netlink_extack/enable
	grep -q 'netlink_extack: msg=.*strict' $T/trace || { tail -n 5 $T/trace; return 1; }
}
if [ -d /sys/kernel/tracing ]; then
	check "kernel: the refusal's message is seen by the netlink_extack tracepoint" extack_traced
else
	ktap_skip "kernel: the refusal's message is seen by the netlink_extack tracepoint" "no trace events in this kernel (the debug kernel has them)"
fi
del

# Attachment: as a child of htb and tbf, and per TX queue under mq.
under_htb() {
	tc qdisc add dev $D root handle 1: htb default 1 &&
		tc class add dev $D parent 1: classid 1:1 htb rate 10mbit &&
		tc qdisc add dev $D parent 1:1 handle 10: ecnsharp &&
		tc -j qdisc show dev $D | jq -e 'any(.[]; .kind == "ecnsharp" and .parent == "1:1")' >/dev/null
}
check "child of htb" under_htb
del
under_tbf() {
	tc qdisc add dev $D root handle 1: tbf rate 10mbit burst 10kb latency 50ms &&
		tc qdisc add dev $D parent 1:1 handle 10: ecnsharp &&
		tc -j qdisc show dev $D | jq -e 'any(.[]; .kind == "ecnsharp")' >/dev/null
}
check "child of tbf" under_tbf
del
under_mq() {
	ip link add mq0 numtxqueues 4 type veth peer name mq1 numtxqueues 4 || return 1
	ip link set mq0 up
	tc qdisc add dev mq0 root handle 1: mq || return 1
	for q in 1 2 3 4; do
		tc qdisc add dev mq0 parent 1:$q ecnsharp || return 1
	done
	n=$(tc -j qdisc show dev mq0 | jq '[.[] | select(.kind == "ecnsharp")] | length')
	ip link del mq0
	[ "$n" = 4 ]
}
check "one per TX queue under mq" under_mq
check "ecnsharp as a child of a classless qdisc is refused" exits 2 sh -c '
	/usr/sbin/tc qdisc add dev dum0 root handle 1: pfifo &&
	/usr/sbin/tc qdisc add dev dum0 parent 1:1 ecnsharp'
del
check "at the ingress hook it is refused" exits 2 tc qdisc add dev $D parent ffff:fff1 ecnsharp

ip link del dum0
ktap_end
