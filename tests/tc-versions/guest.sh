#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tc-versions/guest.sh TC (in the VM, from tests/tc-versions/check.sh): the bench's q_ecnsharp.so
# through a second tc binary: add, change, a refusal, show, -s, -j and class statistics, each
# compared with what Debian's tc and ecnsharp-tc print for the same qdisc. Prints TAP.
. /test/vm/guest/lib.sh
new=/test/extra/$1
old=/usr/sbin/tc
# The second tc looks in its own LIBDIR; the plugin is where the bench put Debian's.
export TC_LIB_DIR=/usr/lib/x86_64-linux-gnu/tc
ktap_begin tc-versions 10
diag "$($new -V) against $($old -V)"
ip link add d0 type dummy
# No IPv6 on it: router solicitations would move the counters between two dumps.
echo 1 >/proc/sys/net/ipv6/conf/d0/disable_ipv6 2>/dev/null
ip link set d0 up
check "$($new -V | sed 's/.*iproute2-//'): tc qdisc add ... ecnsharp" \
	$new qdisc add dev d0 root handle 1: ecnsharp bands 3 quanta 3000,1500,1500 rate 10gbit
check "change through the second tc" $new qdisc change dev d0 root ecnsharp pst_target 70us control_law linear
same_text() {
	$new qdisc show dev d0 >/tmp/new.txt && $old qdisc show dev d0 >/tmp/old.txt &&
		ecnsharp-tc qdisc show dev d0 >/tmp/helper.txt || return 1
	cat /tmp/new.txt
	grep -q 'pst_target 70us pst_interval 200us control_law linear' /tmp/new.txt && diff /tmp/old.txt /tmp/new.txt &&
		diff /tmp/helper.txt /tmp/new.txt
}
check "show: the same line as Debian's tc and ecnsharp-tc" same_text
# Some packets through the qdisc (a dummy device sends without ARP, then drops).
ip addr add 192.0.2.2/24 dev d0
ping -c 5 -i 0.2 -I d0 192.0.2.1 >/dev/null 2>&1
same_stats() {
	# No traffic between the dumps: every counter equal; `now` is the kernel's clock at each dump.
	$new -s qdisc show dev d0 >/tmp/new-s.txt && $old -s qdisc show dev d0 >/tmp/old-s.txt || return 1
	cat /tmp/new-s.txt
	grep -q '^  band 0: ' /tmp/new-s.txt && diff /tmp/old-s.txt /tmp/new-s.txt
}
check "-s: the same statistics text as Debian's tc" same_stats
same_json() {
	$new -s -j qdisc show dev d0 | jq -S 'map(del(.now))' >/tmp/new.json &&
		$old -s -j qdisc show dev d0 | jq -S 'map(del(.now))' >/tmp/old.json &&
		ecnsharp-tc -s -j qdisc show dev d0 | jq -S 'map(del(.now))' >/tmp/helper.json || return 1
	jq -e '.[0].options.bands == 3 and (.[0].bands | length) == 3' /tmp/new.json &&
		diff /tmp/old.json /tmp/new.json && diff /tmp/helper.json /tmp/new.json
}
check "-s -j: the same JSON as Debian's tc and ecnsharp-tc" same_json
same_class() {
	$new -s class show dev d0 >/tmp/new-c.txt && $old -s class show dev d0 >/tmp/old-c.txt || return 1
	cat /tmp/new-c.txt
	grep -q 'sojourn p50' /tmp/new-c.txt && diff /tmp/old-c.txt /tmp/new-c.txt
}
check "class statistics: the same as Debian's tc" same_class
# tc 6.1 prints classes as text even with -j; a later tc writes JSON, the class's counters in
# "stats" and the plugin's band record in "stats.band" (its packets, bytes, qlen and backlog
# are the band's own: flat beside tc's, each name would stand twice in one object).
same_class_json() {
	$new -s -j class show dev d0 >/tmp/new-c.json && ecnsharp-tc -s -j class show dev d0 >/tmp/helper-c.json || return 1
	head -c 600 /tmp/new-c.json
	echo
	# Flat, .stats.band would be the band's number and .stats.band.band an error.
	jq -e 'length == 3 and all(.[]; (.stats.packets | type) == "number" and .stats.band.band != null)' /tmp/new-c.json &&
		jq -S . /tmp/helper-c.json >/tmp/helper-c.sorted && jq -S . /tmp/new-c.json >/tmp/new-c.sorted &&
		diff /tmp/helper-c.sorted /tmp/new-c.sorted
}
if $new -j class show dev d0 | grep -q '^\['; then
	check "class statistics -j: tc's layout, the band's record in its own object, as ecnsharp-tc writes it" same_class_json
else
	ktap_skip "class statistics -j" "this tc prints classes as text with -j (before 6.2)"
fi
refusal() {
	$new qdisc change dev d0 root ecnsharp pst_interval 0 2>/tmp/err
	rc=$?
	cat /tmp/err
	[ "$rc" -eq 2 ] && grep -qx 'Error: pst_interval must be at least 1us.' /tmp/err
}
check "a refused change: the kernel's extack, exit 2" refusal
syntax() {
	$new qdisc change dev d0 root ecnsharp limt 5 2>/tmp/err
	rc=$?
	head -n 2 /tmp/err
	[ "$rc" -eq 1 ] && grep -qx 'What is "limt"?' /tmp/err
}
check "a syntax error: the grammar's message, exit 1" syntax
check "del" $new qdisc del dev d0 root
ktap_end
