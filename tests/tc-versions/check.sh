#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tc-versions/check.sh IPROUTE2_SRC: q_ecnsharp.so against a second iproute2 (TAP): tc built from
# the source tree IPROUTE2_SRC (a release tarball or checkout, e.g. 7.1.0), then on the host the
# plugin's parsing through it, and a host that is not tc unable to load it; then in the VM,
# add/change/show/-s/-j/class statistics and errors through the second tc, each compared with
# Debian's tc and ecnsharp-tc (tests/tc-versions/guest.sh). Not in make check: it needs the
# source of another iproute2 (docs/tc.md, "iproute2 versions").
set -uo pipefail
src=${1:?usage: tests/tc-versions/check.sh IPROUTE2_SRC}
src=$(cd "$src" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/lib.sh

. tests/tap-cases.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
finish() { tap_finish tc-versions; }

# tc alone (lib and tc), in a copy of the tree.
cp -a "$src" "$tmp/iproute2"
if out=$(cd "$tmp/iproute2" && ./configure && make -j"$(nproc)" SUBDIRS="lib tc" 2>&1); then
	tc2=$tmp/iproute2/tc/tc
	ok "tc built from $src: $("$tc2" -V)"
	# Without libmnl, iproute2 cannot read the kernel's extack (the error message).
	ldd "$tc2" | grep -q libmnl || not_ok "tc links libmnl, so it prints the kernel's extack (apt install libmnl-dev)"
else
	not_ok "tc built from $src" "$out"
	finish
fi
make -s tools >/dev/null || { not_ok "make tools"; finish; }
mkdir -p "$tmp/plugin" && cp target/release/libq_ecnsharp.so "$tmp/plugin/q_ecnsharp.so"

# Parsing needs no module: the kernel's "unknown kind" (exit 2) comes after the plugin built the
# request; without the plugin tc stops at the options (exit 1).
out=$(TC_LIB_DIR=$tmp/plugin "$tc2" qdisc add dev lo root ecnsharp bands 3 rate 10gbit 2>&1)
rc=$?
if [ "$rc" -eq 2 ]; then ok "the plugin parses options through this tc (the kernel then answers: $out)"; else
	not_ok "the plugin parses options through this tc" "exit $rc: $out"; fi
out=$(TC_LIB_DIR=$tmp/plugin "$tc2" qdisc add dev lo root ecnsharp limt 3 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && grep -qx 'What is "limt"?' <<<"$out"; then ok "a syntax error in the grammar's words, exit 1"; else
	not_ok "a syntax error in the grammar's words, exit 1" "exit $rc: $out"; fi

# A host without tc's functions: the plugin is linked with immediate binding, so the dynamic
# linker refuses it at dlopen, naming a tc function; it can never stop half-way through a command.
bind_now() { readelf -d "$tmp/plugin/q_ecnsharp.so" | grep -qE 'FLAGS.*(BIND_NOW|NOW)'; }
if bind_now && cc -o "$tmp/no-tc" tests/tc-versions/no-tc.c 2>"$tmp/cc.err"; then
	out=$("$tmp/no-tc" "$tmp/plugin/q_ecnsharp.so" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qE '^refused: .*undefined symbol: (addattr_l|is_json_context|print_|open_json|close_json|get_json_writer|jsonw_)' <<<"$out"; then
		ok "a host without tc's functions cannot load the plugin (BIND_NOW): $out"
	else
		not_ok "a host without tc's functions cannot load the plugin (BIND_NOW)" "exit $rc: $out"
	fi
else
	not_ok "the plugin is linked with immediate binding, and no-tc.c builds" "$(cat "$tmp/cc.err" 2>/dev/null)"
fi

# In the VM, against the module.
cp "$tc2" "$tmp/tc2"
tests/vm/run-in-vm --timeout 600 --file "$tmp/tc2" tests/tc-versions/guest.sh tc2 >"$tmp/guest.log" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok "*) ok "guest: ${line#ok * }" ;;
	"not ok "*) not_ok "guest: ${line#not ok * }" ;;
	*) echo "$line" ;;
	esac
done < <(tr -d '\r' <"$tmp/guest.log" | grep -E '^(not )?ok [0-9]+ |^# ')
[ "$rc" -eq 0 ] || not_ok "the guest's run passed (run-in-vm exit $rc)" "$(tail -n 30 "$tmp/guest.log")"
finish
