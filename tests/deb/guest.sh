#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# deb/guest.sh TOOLS_DEB DEV_DEB DKMS_DEB TC_DIR (in the VM, from tests/deb/check.sh): install the
# three packages with dpkg (their maintainer scripts run: ecnsharp-dkms's calls the real dkms),
# use the qdisc through the installed plugin and ecnsharp-tc, remove them, and find nothing left.
# The module is the one DKMS built from ecnsharp-dkms on the host; the bench's own plugin and
# helper are removed first, so that only the packages' can answer. Prints TAP.
x=/test/extra
tools=$x/$1 dev=$x/$2 dkms_deb=$x/$3 tc_dir=$4
tc=/usr/sbin/tc
# By path: busybox's shell runs its own dpkg applet before PATH.
dpkg=/usr/bin/dpkg
dpkg_query=/usr/bin/dpkg-query
n=0
fail=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $1"
	[ ! -s /tmp/out ] || sed 's/^/# /' /tmp/out | tail -n 30
}
# check NAME CMD...: one case; the command's output goes to /tmp/out.
check() {
	name=$1
	shift
	if "$@" >/tmp/out 2>&1; then ok "$name"; else not_ok "$name"; fi
}

# dpkg's database: the packages the guest has (the host's libc and tc, copied by the bench;
# dkms from the bundle), nothing else.
tar -C / -xf $x/tools-for-guest.tar
mkdir -p /var/lib/dpkg/info /var/lib/dpkg/updates /var/lib/dpkg/triggers /var/lib/dkms /usr/src /var/log
# bash's <(...), which dkms uses, needs /dev/fd.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
cp $x/status /var/lib/dpkg/status
: >/var/lib/dpkg/available
rm -f "$tc_dir/q_ecnsharp.so" /usr/local/bin/ecnsharp-tc

check "the module DKMS built from ecnsharp-dkms loads" insmod $x/sch_ecnsharp.ko
/usr/sbin/ip link add d0 type dummy && /usr/sbin/ip link set d0 up
# tc's own refusal for a kind without a plugin (exit 1), not any failure (a module gone, EEXIST).
no_plugin() {
	_out=$($tc qdisc add dev d0 root handle 1: ecnsharp bands 3 2>&1)
	_rc=$?
	echo "$_out"
	[ "$_rc" -eq 1 ] && echo "$_out" | grep -qF 'Unknown qdisc "ecnsharp", hence option "bands" is unparsable'
}
check "before the packages, tc cannot parse ecnsharp's options (no plugin)" no_plugin

installed() {
	$dpkg -i "$tools" "$dev" "$dkms_deb" || return 1
	for p in ecnsharp-tools ecnsharp-dev ecnsharp-dkms; do
		$dpkg_query -W -f='${Package} ${Status}\n' $p | grep -qx "$p install ok installed" || return 1
	done
}
check "dpkg -i ecnsharp-tools ecnsharp-dev ecnsharp-dkms: installed, maintainer scripts run" installed
sed 's/^/# /' /tmp/out
dkms_added() {
	# shellcheck disable=SC2144 # one version is added here: the glob names at most one path
	dkms status -m ecnsharp | tee /tmp/status | grep -q '^ecnsharp/[0-9.]*: added' && [ -L /var/lib/dkms/ecnsharp/*/source ] || {
		echo "dkms status: $(cat /tmp/status)"
		ls -la /var/lib/dkms /usr/src
		return 1
	}
}
check "ecnsharp-dkms's postinst added the sources to DKMS (dkms status)" dkms_added
$dpkg_query -L ecnsharp-tools ecnsharp-dev ecnsharp-dkms >/tmp/files
files_in_place() {
	for f in /usr/bin/ecnsharp-tc "$tc_dir/q_ecnsharp.so" /usr/include/linux/pkt_sched_ecnsharp.h \
		/usr/share/man/man8/tc-ecnsharp.8.gz /usr/src/ecnsharp-*/dkms.conf /etc/bash_completion.d/tc-ecnsharp; do
		[ -f "$f" ] || { echo "missing $f"; return 1; }
	done
}
check "the files are where tc, man and the compiler look" files_in_place

add_with_tc() {
	$tc qdisc add dev d0 root handle 1: ecnsharp bands 3 quanta 3000,1500,1500 rate 10gbit &&
		$tc qdisc show dev d0 | tee /tmp/tc.txt &&
		grep -q '^qdisc ecnsharp 1: root refcnt [0-9]* limit 1000p bands 3 mode ecnsharp .*quanta 3000,1500,1500 .*rate 10Gbit' /tmp/tc.txt
}
check "tc qdisc add ... ecnsharp through the installed plugin" add_with_tc
same_with_helper() {
	/usr/bin/ecnsharp-tc qdisc show dev d0 >/tmp/helper.txt && cat /tmp/helper.txt && cmp /tmp/tc.txt /tmp/helper.txt
}
check "the installed ecnsharp-tc shows the same line" same_with_helper
json_and_stats() {
	$tc -s -j qdisc show dev d0 | jq -e '.[0].kind == "ecnsharp" and .[0].options.bands == 3 and (.[0].bands | length) == 3'
}
check "tc -s -j: options and per-band statistics" json_and_stats
refusal() {
	$tc qdisc change dev d0 root ecnsharp pst_interval 0 2>/tmp/err
	rc=$?
	cat /tmp/err
	[ "$rc" -eq 2 ] && grep -qx 'Error: pst_interval must be at least 1us.' /tmp/err
}
check "a refused change: the kernel's extack, exit 2" refusal
check "tc qdisc del" $tc qdisc del dev d0 root

removed() {
	$dpkg --purge ecnsharp-tools ecnsharp-dev ecnsharp-dkms || return 1
	# Purged packages may stay known as "purge ok not-installed"; none may be installed.
	! $dpkg_query -W -f='${Package} ${Status}\n' ecnsharp-tools ecnsharp-dev ecnsharp-dkms 2>/dev/null | grep ' installed$' 
}
check "dpkg --purge all three" removed
nothing_left() {
	left=0
	while read -r f; do
		[ -f "$f" ] || [ -L "$f" ] || continue
		echo "left: $f"
		left=1
	done </tmp/files
	dkms status -m ecnsharp | grep . && left=1
	[ ! -e /var/lib/dkms/ecnsharp ] || { echo "left: /var/lib/dkms/ecnsharp"; left=1; }
	[ "$left" -eq 0 ]
}
check "nothing of the packages left (files, DKMS's tree)" nothing_left
check "after removal, tc cannot parse ecnsharp's options again" no_plugin

echo "$n passed or failed: $((n - fail)) passed, $fail failed" | sed 's/^.*: //'
[ "$fail" -eq 0 ]
