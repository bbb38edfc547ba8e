#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# no-panics.sh MODULE.ko KDIR: fail if any code path of the module can reach a Rust panic. In the
# kernel a panic is BUG(): the core uses wrapping, saturating and checked arithmetic and masked
# indices so that none is left.
#
# A list of panic function names misses what it does not name (rustc 1.95's core reports a bad
# range slice through slice_index_fail and a copy_from_slice length mismatch through
# len_mismatch_fail), and a call into core or the kernel crate that panics further down (integer
# formatting carries overflow checks) looks harmless. So this follows calls instead: it builds
# the call graph of the module and of the kernel's own Rust objects (KDIR/rust/*.o: core, the
# kernel crate, compiler_builtins) from `objdump -dr`, starts from every entry point of the module
# (init_module, cleanup_module and every function whose address is stored in data: the qdisc ops
# table, vtables), and fails if any function it reaches can reach rust_begin_unwind or
# core::panicking. Each such path is printed, entry to panic, demangled.
#
# --ub-checks-only-on-ub: for a module built with CONFIG_RUST_DEBUG_ASSERTIONS (the debug
# kernel's), rustc adds checks before raw-pointer dereferences and unsafe preconditions
# (alignment, null, slice sizes) that panic only when the code is already undefined behaviour,
# as KASAN reports a bad access: those roots (panic_misaligned_pointer_dereference,
# panic_null_pointer_dereference, and the no-unwind panic of ub_checks' "unsafe precondition(s)
# violated", panic_nounwind_fmt: with panic=abort nothing else in core raises a no-unwind
# panic) are then not counted. Every other root still is: bounds, overflow, unwrap, ranges.
set -euo pipefail
ub=0
if [ "${1:-}" = --ub-checks-only-on-ub ]; then ub=1; shift; fi
ko=${1:?usage: no-panics.sh [--ub-checks-only-on-ub] MODULE.ko KDIR}
kdir=${2:?usage: no-panics.sh [--ub-checks-only-on-ub] MODULE.ko KDIR}
command -v objdump >/dev/null || { echo "objdump missing (binutils)"; exit 1; }
[ -f "$ko" ] || { echo "no module at $ko"; exit 1; }
ls "$kdir"/rust/core.o >/dev/null 2>&1 || { echo "no $kdir/rust/core.o: not a Rust kernel build tree"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Edges "E caller callee" and definitions "D fn" from a disassembly with relocations: a call or
# jump resolved in place names its target as <sym+off>; an unresolved one carries a relocation.
graph() {
	objdump -dr --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn); print "D", fn; next }
		fn == "" { next }
		/R_X86_64_(PLT32|PC32|PLT64|64|32S)/ {
			t = $NF; sub(/[-+]0x[0-9a-f]+$/, "", t)
			if (t != fn) print "E", fn, t
			next
		}
		/\t(call|jmp|j[a-z]+) +[0-9a-f]+ <[^>]+>/ {
			t = $0; sub(/.*</, "", t); sub(/>.*/, "", t); sub(/[-+]0x[0-9a-f]+$/, "", t)
			if (t != fn) print "E", fn, t
		}'
}
graph "$ko" >"$tmp/module"
for o in "$kdir"/rust/*.o; do graph "$o"; done >"$tmp/kernel"

# Entry points: functions whose address the module stores in data (relocations outside code,
# against a function symbol or against SECTION+offset inside one), plus init and cleanup.
objdump -t "$ko" | awk '/ F / { print $1, $(NF-1), $NF, $(NF-2) }' >"$tmp/funcs"
# Only data sections hold references: objtool's lists (.ibt_endbr_seal, .retpoline_sites...), the
# bug table and unwind tables name code without calling it.
objdump -r "$ko" | awk '/^RELOCATION RECORDS FOR/ { sec = $4; next }
	sec ~ /^\[(\.rodata|\.data|\.init\.data|\.exit\.data|\.gnu\.linkonce\.this_module)/ && /R_X86_64/ { print $3 }' >"$tmp/datarefs"
awk 'function hex(s,   i, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	NR == FNR { n++; at[n] = hex($1); size[n] = hex($2); name[n] = $3; sec[n] = $4; byname[$3] = 1; next }
	{ t = $1; off = 0
		if (match(t, /[-+]0x[0-9a-f]+$/)) { o = substr(t, RSTART); t = substr(t, 1, RSTART - 1)
			off = hex(substr(o, 4)); if (substr(o, 1, 1) == "-") off = -off }
		if (t in byname) { print t; next }
		for (i = 1; i <= n; i++) if (sec[i] == t && off >= at[i] && off < at[i] + size[i]) { print name[i]; next } }' \
	"$tmp/funcs" "$tmp/datarefs" | sort -u >"$tmp/entries"
printf '%s\n' init_module cleanup_module >>"$tmp/entries"

# Reach from the entries; mark what can reach a panic; print one path per entry that does.
cat "$tmp/module" "$tmp/kernel" | awk -v entries="$tmp/entries" -v ub="$ub" '
	function ubcheck(s) { return ub && s ~ /panic_misaligned_pointer_dereference|panic_null_pointer_dereference|precondition_check|14panic_nounwind|18panic_nounwind_fmt|26panic_nounwind_nobacktrace/ }
	function panicky(s) { return s ~ /rust_begin_unwind|4core9panicking/ && !ubcheck(s) }
	BEGIN { while ((getline l < entries) > 0) { reach[l] = 1; entry[l] = 1 } }
	$1 == "E" && !ubcheck($3) { n++; from[n] = $2; to[n] = $3 }
	END {
		do { changed = 0
			for (i = 1; i <= n; i++) if ((from[i] in reach) && !(to[i] in reach)) { reach[to[i]] = 1; changed = 1 }
		} while (changed)
		for (i = 1; i <= n; i++) if (panicky(to[i])) { bad[to[i]] = 1; next_hop[from[i]] = to[i]; bad[from[i]] = 1 }
		do { changed = 0
			for (i = 1; i <= n; i++) if ((to[i] in bad) && !(from[i] in bad)) { bad[from[i]] = 1; next_hop[from[i]] = to[i]; changed = 1 }
		} while (changed)
		for (s in entry) if (s in bad) {
			path = s; hop = s; steps = 0
			while ((hop in next_hop) && !panicky(hop) && steps < 30) { hop = next_hop[hop]; path = path " -> " hop; steps++ }
			print path
		}
	}' | sort >"$tmp/paths"
reached=$(wc -l <"$tmp/entries")
if [ -s "$tmp/paths" ]; then
	echo "panic paths in $ko ($(wc -l <"$tmp/paths") of $reached entry points):"
	sed 's/ -> /\n    -> /g' "$tmp/paths" | c++filt | sed 's/^\([^ ]\)/  \1/'
	exit 1
fi
what="rust_begin_unwind or core::panicking"
[ "$ub" -eq 0 ] || what="$what (other than the debug assertions' undefined-behaviour checks)"
echo "no panic paths in $ko: none of its $reached entry points reaches $what (call graph of the module and $kdir/rust/*.o)"
