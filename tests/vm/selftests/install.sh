#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install suite: `make install` on a real host, played in the guest. The host staged it
# (make install DESTDIR=..., in make bench-artifacts; the tree is /stage here); the guest, which
# has no make, installs that tree into / with the same pkg/install.sh make install runs, then
# loads the module with modprobe and as net.core.default_qdisc (under mq, on every TX queue),
# drives the qdisc through the installed tc plugin and ecnsharp-tc, finds the man pages and
# completions, and uninstalls, leaving the file system as it found it.
. /test/vm/guest/lib.sh
ktap_begin install 25

stage=/stage
manifest=/usr/local/share/ecnsharp/manifest
kver=$(uname -r)
tclib=/usr/lib/x86_64-linux-gnu/tc

# A clean host first: the bench's own copies of the module and tools out of the way, and the
# module index a real host has before anything is installed.
rmmod sch_ecnsharp 2>/dev/null
rm -f /usr/local/bin/ecnsharp-tc "$tclib/q_ecnsharp.so"
mkdir -p "/lib/modules/$kver"
depmod -a "$kver"
# What a host's module loader is; busybox has no /sbin/modprobe of its own.
[ -x /sbin/modprobe ] || echo /bin/modprobe >/proc/sys/kernel/modprobe

snapshot() {
	# /var/run/netns is ip netns's, /stage and /test the bench's.
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run \
		-o -path /var/run -o -path /stage -o -path /test \) -prune -o -print | sort
}
snapshot >/tmp/before

# --- the staged tree ------------------------------------------------------------------------
staged_files() {
	[ -f "$stage$manifest" ] || { echo "no $stage$manifest"; return 1; }
	awk '$1 == "file" { print $3 }' "$stage$manifest" >/tmp/files
	[ "$(wc -l </tmp/files)" -ge 10 ] || { cat /tmp/files; return 1; }
	while read -r f; do [ -f "$stage$f" ] || { echo "missing $f"; return 1; }; done </tmp/files
}
staged_module_for_this_kernel() {
	grep -qE "^file 0644 /lib/modules/$kver/updates/sch_ecnsharp\.ko( |$)" "$stage$manifest" &&
		grep -qx "depmod $kver" "$stage$manifest"
}
check "make install DESTDIR staged every file of its manifest" staged_files
check "the staged module is for this kernel ($kver), in updates/" staged_module_for_this_kernel

# --- install, as make install does it -------------------------------------------------------
install_tree() {
	specs=$(awk -v s="$stage" '$1 == "file" { print $2 ":" s $3 ":" $3 }' "$stage$manifest")
	# shellcheck disable=SC2086
	DESTDIR='' KVER="$kver" sh "$stage/usr/local/share/ecnsharp/install.sh" install "$manifest" $specs
}
installed() {
	while read -r f; do cmp -s "$stage$f" "$f" || { echo "$f differs or is missing"; return 1; }; done </tmp/files
	[ -x /usr/local/bin/ecnsharp-tc ] && [ -f "$manifest" ]
}
indexed() { grep -q "updates/sch_ecnsharp.ko:" "/lib/modules/$kver/modules.dep"; }
check "install.sh install (make install's copy step) into /" install_tree
check "every file in place, byte for byte" installed
check "depmod indexed the module" indexed

# --- modprobe and default_qdisc -------------------------------------------------------------
loaded() { grep -q '^sch_ecnsharp ' /proc/modules; }
not_loaded() { ! loaded; }
check "modprobe sch_ecnsharp loads the installed module" modprobe sch_ecnsharp
check "module loaded" loaded
check "modprobe -r sch_ecnsharp unloads it" modprobe -r sch_ecnsharp
check "module unloaded" not_loaded
check "net.core.default_qdisc=ecnsharp loads the module on demand (net-sch-ecnsharp)" \
	sysctl -w net.core.default_qdisc=ecnsharp
check "module loaded by the kernel's request" loaded

# A 4-queue veth: mq puts the default qdisc on every TX queue in one command.
every_queue() {
	ip link add mq0 numtxqueues 4 type veth peer name mq1 numtxqueues 4 || return 1
	ip link set mq0 up && ip link set mq1 up
	tc qdisc replace dev mq0 root handle 1: mq || return 1
	tc qdisc show dev mq0
	[ "$(tc qdisc show dev mq0 | grep -c '^qdisc ecnsharp 0: parent 1:[1-4] ')" -eq 4 ]
}
options_on_every_queue() {
	# One command for options on every queue: tc -batch, one line per queue.
	printf 'qdisc replace dev mq0 parent 1:%x ecnsharp rate 2500mbit pst_target 20us\n' 1 2 3 4 |
		tc -batch - || return 1
	tc qdisc show dev mq0
	[ "$(tc qdisc show dev mq0 | grep -c 'ecnsharp .* pst_target 20us .* rate 2.5Gbit')" -eq 4 ]
}
check "default_qdisc=ecnsharp: mq has ecnsharp on each of the 4 TX queues" every_queue
check "tc -batch sets options on every TX queue in one command" options_on_every_queue
ip link del mq0 2>/dev/null
sysctl -qw net.core.default_qdisc=pfifo_fast

# --- the installed front ends ---------------------------------------------------------------
net_pair
plugin_add() { tc -n snd qdisc add dev veth-s root ecnsharp bands 3 rate 200mbit pst_target 70us; }
plugin_show() { tc -n snd qdisc show dev veth-s | tee /dev/stderr | grep -q 'bands 3 .*pst_target 70us.*rate 200Mbit'; }
# The fresh namespace's IPv6 (DAD, MLD, router solicitations) crosses the veth for a few seconds
# and moves the counters between two dumps: compare only when the tc dumps taken before and after
# ecnsharp-tc's agree (nothing moved, so its dump saw the same counters), for up to 15 s.
same_text() {
	_n=0
	while :; do
		_t1=$(tc -n snd -s qdisc show dev veth-s)
		_e=$(ecnsharp-tc -n snd -s qdisc show dev veth-s)
		_t2=$(tc -n snd -s qdisc show dev veth-s)
		if [ "$_t1" = "$_t2" ]; then
			[ "$_e" = "$_t1" ] && return 0
			printf 'tc:\n%s\necnsharp-tc:\n%s\n' "$_t1" "$_e"
			return 1
		fi
		_n=$((_n + 1))
		[ $_n -ge 30 ] && { echo "the counters never held still for 15 s"; return 1; }
		sleep 0.5
	done
}
same_json() {
	# The options and every member name; the counters may move between the two dumps (IPv6
	# neighbour discovery crosses the veth), frontends.sh compares them on a quiet device.
	f='map({kind, handle, options, keys: keys, band_keys: (.bands[0] | keys)})'
	a=$(tc -n snd -s -j qdisc show dev veth-s | jq -cS "$f") &&
		b=$(ecnsharp-tc -n snd -s -j q s dev veth-s | jq -cS "$f") &&
		[ -n "$a" ] && [ "$a" = "$b" ] || { echo "tc: $a"; echo "ecnsharp-tc: $b"; return 1; }
}
helper_change() { ecnsharp-tc -n snd qdisc change dev veth-s root ins_target 150us; }
plugin_sees_change() { tc -n snd qdisc show dev veth-s | grep -q 'ins_target 150us'; }
check "the installed plugin: tc qdisc add ... ecnsharp" plugin_add
check "the installed plugin prints the options" plugin_show
check "the installed ecnsharp-tc -n prints what tc prints" same_text
check "the same JSON options and members (ecnsharp-tc -s -j q s, tc's prefixes)" same_json
check "the installed ecnsharp-tc changes the qdisc" helper_change
check "tc sees the change" plugin_sees_change
check "ecnsharp-tc tune --help exits 0" ecnsharp-tc tune --help
net_teardown

# --- man pages and completions --------------------------------------------------------------
man_pages() {
	for p in tc-ecnsharp ecnsharp-tc; do
		f=/usr/local/share/man/man8/$p.8
		head -n 5 "$f" | grep -q "^\.TH $(echo "$p" | tr 'a-z' 'A-Z') 8 " || { echo "$f"; return 1; }
	done
	grep -q '^\.BI pst_interval ' /usr/local/share/man/man8/tc-ecnsharp.8
}
completions() {
	grep -q 'complete -F _ecnsharp_tc_first tc' /etc/bash_completion.d/tc-ecnsharp &&
		grep -q 'complete -F .* ecnsharp-tc$' /usr/local/share/bash-completion/completions/ecnsharp-tc &&
		[ -s /usr/local/share/zsh/site-functions/_ecnsharp-tc ] &&
		[ -s /usr/local/share/fish/vendor_completions.d/ecnsharp-tc.fish ]
}
check "man pages tc-ecnsharp(8) and ecnsharp-tc(8) installed" man_pages
check "completions installed (bash, tc's bash, zsh, fish)" completions

# --- uninstall ------------------------------------------------------------------------------
uninstall() { rmmod sch_ecnsharp && DESTDIR='' sh /usr/local/share/ecnsharp/install.sh uninstall "$manifest"; }
nothing_left() {
	snapshot >/tmp/after
	diff /tmp/before /tmp/after
}
no_module() { ! modprobe sch_ecnsharp 2>/dev/null && ! grep -q sch_ecnsharp "/lib/modules/$kver/modules.dep"; }
check "uninstall (the installed install.sh, as make uninstall)" uninstall
check "the file system is as before the install" nothing_left
check "modprobe finds no module any more" no_module

ktap_end
