#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Front-ends suite: iproute2's tc with q_ecnsharp.so and ecnsharp-tc configure the qdisc and read
# it back, each agreeing with the other (options, statistics, text and JSON); bad values are
# refused by the grammar (exit 1) or by the kernel's validation with an extack naming the option
# (exit 2); change, replace and del work from both tools.
. /test/vm/guest/lib.sh
ktap_begin frontends 44

DEV=d0
OPTS="bands 3 mode ecnsharp+red ins_target 150us pst_target 60us pst_interval 180us k 40p
quanta 3000,1500,1500 rate 100mbit non_ect drop"

# A dummy device kept down: no traffic, so two dumps in a row are identical.
dummy_dev() {
	ip link del "$DEV" 2>/dev/null
	ip link add "$DEV" type dummy
}

tools_present() {
	command -v ecnsharp-tc && [ -f /usr/lib/x86_64-linux-gnu/tc/q_ecnsharp.so ]
}

# opts TOOL: the options object that TOOL's JSON dump shows, keys sorted.
opts() {
	case "$1" in
	tc) tc -j qdisc show dev "$DEV" ;;
	et) ecnsharp-tc -j qdisc show dev "$DEV" ;;
	esac | jq -cS '.[] | select(.kind == "ecnsharp") | .options'
}

same_options() {
	a=$(opts tc) b=$(opts et)
	echo "tc:          $a"
	echo "ecnsharp-tc: $b"
	[ -n "$a" ] && [ "$a" != "{}" ] && [ "$a" = "$b" ]
}

# The values given in $OPTS, as the JSON shows them (times in whole us, rate in bytes/s, as tc).
given_values() {
	opts "$1" | jq -e '.bands == 3 and .mode == "ins+pst+red" and .ins_target == 150 and
		.pst_target == 60 and .pst_interval == 180 and .k == 40 and .k_unit == "packets" and
		.quanta == [3000, 1500, 1500] and .rate == 12500000 and .non_ect == "drop" and
		.limit == 1000 and .control_law == "inv_sqrt"'
}

# same_output ARGS...: tc and ecnsharp-tc print the very same thing for `ARGS qdisc show dev d0`.
same_output() {
	tc "$@" qdisc show dev "$DEV" >/tmp/tc.out 2>&1
	ecnsharp-tc "$@" qdisc show dev "$DEV" >/tmp/et.out 2>&1
	cat /tmp/tc.out
	if ! cmp -s /tmp/tc.out /tmp/et.out; then
		echo "ecnsharp-tc differs:"
		diff /tmp/tc.out /tmp/et.out
		return 1
	fi
}

same_json() {
	# Two dumps differ only in their kernel timestamp ("now").
	a=$(tc -s -j qdisc show dev "$DEV" | jq -cS 'map(del(.now))') b=$(ecnsharp-tc -s -j qdisc show dev "$DEV" | jq -cS 'map(del(.now))')
	echo "$a"
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# fails_with CODE PATTERN CMD...: CMD exits with CODE and says PATTERN on stderr.
fails_with() {
	_code=$1
	_pat=$2
	shift 2
	"$@" >/tmp/fw.out 2>/tmp/fw.err
	_rc=$?
	cat /tmp/fw.err
	[ "$_rc" -eq "$_code" ] || { echo "exit status $_rc, expected $_code"; return 1; }
	grep -qF -- "$_pat" /tmp/fw.err || { echo "stderr lacks: $_pat"; return 1; }
}

no_ecnsharp() { ! tc qdisc show dev "$DEV" | grep -q ecnsharp; }
value_is() { [ "$(opts "$1" | jq -r ".$2")" = "$3" ]; }

check "tools installed: ecnsharp-tc on PATH, q_ecnsharp.so in tc's library" tools_present
check "dummy device $DEV" dummy_dev

# tc configures, both read back.
# shellcheck disable=SC2086
check "tc qdisc add ... ecnsharp <options> (plugin)" tc qdisc add dev "$DEV" root handle 1: ecnsharp $OPTS
check "ecnsharp-tc -j reads back every value given to tc" given_values et
check "tc -j and ecnsharp-tc -j show identical options" same_options
check "tc qdisc show and ecnsharp-tc qdisc show print the same text" same_output
check "tc -s and ecnsharp-tc -s print the same text (options, stats, band lines)" same_output -s
check "tc -s -j and ecnsharp-tc -s -j print the same JSON" same_json
text_lines() {
	tc -s qdisc show dev "$DEV" >/tmp/t.out
	cat /tmp/t.out
	grep -q '^qdisc ecnsharp 1: root refcnt 2 limit 1000p bands 3 mode ins+pst+red ' /tmp/t.out &&
		grep -q '^  marks 0 throttled 0 burst ' /tmp/t.out &&
		grep -q '^  band 2: enqueued 0 packets 0 bytes 0 qlen 0p backlog 0b$' /tmp/t.out
}
json_stats() {
	tc -s -j qdisc show dev "$DEV" | jq -e '.[0] | .kind == "ecnsharp" and .options.bands == 3 and
		(.bands | length) == 3 and .bands[1].marks_by_cause.pst == 0 and .bytes == 0 and .qlen == 0'
}
check "text shows the options and the lines of each band" text_lines
check "tc -s -j is JSON with the options and a bands array" json_stats

# change and replace, from both tools.
check "tc qdisc change ... ins_target 300us" tc qdisc change dev "$DEV" root ecnsharp ins_target 300us
# reads TOOL JQ WANT: TOOL's JSON dump, through JQ, is WANT.
reads() {
	case "$1" in
	tc) _got=$(tc -j qdisc show dev "$DEV" | jq -c "$2") ;;
	et) _got=$(ecnsharp-tc -j qdisc show dev "$DEV" | jq -c "$2") ;;
	esac
	echo "$1 reads $_got"
	[ "$_got" = "$3" ]
}
check "  ecnsharp-tc reads ins_target 300, bands still 3" reads et '.[0].options | [.ins_target, .bands]' '[300,3]'
check "ecnsharp-tc qdisc change ... pst_target 70us control_law linear" \
	ecnsharp-tc qdisc change dev "$DEV" root pst_target 70us control_law linear
check "  tc reads pst_target 70, control_law linear, ins_target 300" \
	reads tc '.[0].options | [.pst_target, .control_law, .ins_target]' '[70,"linear",300]'
check "tc qdisc replace ... bands 2" tc qdisc replace dev "$DEV" root handle 1: ecnsharp bands 2
check "ecnsharp-tc qdisc replace ... ecnsharp sched wfq weights 3,1" \
	ecnsharp-tc qdisc replace dev "$DEV" root handle 1: ecnsharp sched wfq weights 3,1
check "  tc reads bands 2, sched wfq, weights [3,1]" \
	reads tc '.[0].options | [.bands, .sched, .weights]' '[2,"wfq",[3,1]]'
check "  ecnsharp-tc reads bands 2, sched wfq, weights [3,1]" \
	reads et '.[0].options | [.bands, .sched, .weights]' '[2,"wfq",[3,1]]'
check "options still agree after the changes" same_options

# Refusals. Validation only (the grammar takes these words): the kernel says no, exit 2.
check "tc: tmin 300us tmax 100us is refused by the kernel, naming tmin" \
	fails_with 2 "Error: tmin must not exceed tmax." tc qdisc change dev "$DEV" root ecnsharp tmin 300us tmax 100us
check "ecnsharp-tc: tmin 300us tmax 100us is refused by the kernel, naming tmin" \
	fails_with 2 "Error: tmin must not exceed tmax." ecnsharp-tc qdisc change dev "$DEV" root tmin 300us tmax 100us
check "  a refused change leaves tmin at 100us" value_is et tmin 100
check "tc: pst_interval 0 is refused by the kernel, naming pst_interval" \
	fails_with 2 "Error: pst_interval must be at least 1us." tc qdisc change dev "$DEV" root ecnsharp pst_interval 0
check "ecnsharp-tc: pst_interval 0 is refused by the kernel, naming pst_interval" \
	fails_with 2 "Error: pst_interval must be at least 1us." ecnsharp-tc qdisc change dev "$DEV" root pst_interval 0
# Syntax errors: refused by the grammar before the kernel sees them, exit 1.
check "tc: pst_interval 5parsecs is a syntax error (exit 1)" \
	fails_with 1 'Illegal "pst_interval": bad value "5parsecs"' tc qdisc change dev "$DEV" root ecnsharp pst_interval 5parsecs
check "ecnsharp-tc: pst_interval 5parsecs is a syntax error (exit 1)" \
	fails_with 1 'Illegal "pst_interval": bad value "5parsecs"' ecnsharp-tc qdisc change dev "$DEV" root pst_interval 5parsecs
check "tc: unknown option limt fails with exit 1" \
	fails_with 1 'What is "limt"?' tc qdisc change dev "$DEV" root ecnsharp limt 5
check "ecnsharp-tc: unknown option limt fails with exit 1" \
	fails_with 1 'What is "limt"?' ecnsharp-tc qdisc change dev "$DEV" root limt 5
check "  nothing changed: pst_interval 180, pst_target 70" \
	reads et '.[0].options | [.pst_interval, .pst_target]' '[180,70]'
check "ecnsharp-tc: add over an existing qdisc is refused by the kernel (exit 2)" \
	fails_with 2 "Error: " ecnsharp-tc qdisc add dev "$DEV" root handle 1: bands 2

# del, from both tools.
check "tc qdisc del" tc qdisc del dev "$DEV" root
check "  gone" no_ecnsharp
check "ecnsharp-tc qdisc add (no options: the kernel's defaults)" ecnsharp-tc qdisc add dev "$DEV" root handle 2:
check "  tc reads the defaults" \
	reads tc '.[0] | [.handle, .options.bands, .options.mode, .options.pst_target]' '["2:",1,"ecnsharp",85]'
check "ecnsharp-tc qdisc del" ecnsharp-tc qdisc del dev "$DEV" root
check "  gone" no_ecnsharp
check "ecnsharp-tc: del with nothing there is refused by the kernel (exit 2)" \
	fails_with 2 "Error: " ecnsharp-tc qdisc del dev "$DEV" root
check "ecnsharp-tc: no such device (exit 1)" \
	fails_with 1 'Cannot find device "nosuch"' ecnsharp-tc qdisc add dev nosuch root
# lo keeps its noqueue (a down device's noop is built in and never dumped).
other_kind_json() {
	_got=$(ecnsharp-tc -j qdisc show dev lo | jq -c '.[0] | [.kind, .handle, .root, .options]')
	echo "$_got"
	[ "$_got" = '["noqueue","0:",true,{}]' ]
}
other_kind_text() {
	tc qdisc show dev lo >/tmp/tc.out
	ecnsharp-tc qdisc show dev lo >/tmp/et.out
	cat /tmp/tc.out /tmp/et.out
	cmp -s /tmp/tc.out /tmp/et.out
}
check "ecnsharp-tc lists other kinds minimally (JSON: kind, handle, root, no options)" other_kind_json
check "ecnsharp-tc lists other kinds as tc does (text)" other_kind_text
ip link del "$DEV"

# With traffic: per-band statistics and marks, read by both tools.
traffic() {
	net_pair || return 1
	tc -n snd qdisc replace dev veth-s root ecnsharp bands 3 rate 200mbit || return 1
	iperf_run -c 10.0.0.2 -t 3 -C dctcp
}
# More than 200 packets: traffic happened (a debug guest beside a second VM sent 832 in 3 s, so a
# larger fixed count would measure the host, not the front end).
band_stats() {
	tc -n snd -s -j qdisc show dev veth-s | tee /tmp/s.json | jq -e '.[0] as $q |
		($q.bands | length) == 3 and $q.packets > 200 and
		([$q.bands[].packets] | add) > 200 and $q.marks > 0 and
		([$q.bands[].marks_by_cause.ins] | add) > 0 and ($q.bands[1].sojourn_max > 0)'
}
check "iperf3 through ecnsharp bands 3 rate 200mbit (DCTCP)" traffic
check "tc -s -j: packets, marks and sojourn per band" band_stats
diag "$(jq -c '.[0] | {packets, marks, throttled, band1: .bands[1] | {packets, marks, marks_by_cause, sojourn_max, sojourn_mean}}' /tmp/s.json)"
agree_in_netns() {
	a=$(ip netns exec snd ecnsharp-tc -s -j qdisc show dev veth-s | jq -cS '[.[0].options, (.[0].bands | length)]')
	b=$(tc -n snd -s -j qdisc show dev veth-s | jq -cS '[.[0].options, (.[0].bands | length)]')
	echo "$a"
	[ -n "$a" ] && [ "$a" = "$b" ]
}
marks_in_text() {
	tc -n snd -s qdisc show dev veth-s >/tmp/t.out
	cat /tmp/t.out
	grep -Eq '^   drops limit [0-9]+ non_ect [0-9]+ config [0-9]+ marks [1-9][0-9]* \(ins [0-9]+ pst' /tmp/t.out
}
check "ecnsharp-tc -s -j (in the namespace) agrees on the options and band count" agree_in_netns
check "tc -s text shows marks by cause per band" marks_in_text
net_teardown

ktap_end
