#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# no-panics.sh MODULE.ko: fail if the module's code can reach a Rust panic. In the kernel a panic
# is BUG(): the core uses wrapping, saturating and checked arithmetic and masked indices so that
# none is left; this lists every call into core::panicking (overflow, bounds, unwrap, ...) by the
# function that makes it.
set -euo pipefail
ko=${1:?usage: no-panics.sh MODULE.ko}
command -v objdump >/dev/null || { echo "objdump missing (binutils)"; exit 1; }
calls=$(objdump -dr --no-show-raw-insn "$ko" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2 }
	/R_X86_64_(PLT32|PC32)/ && /panic|rust_begin_unwind|slice_(start|end)_index|index_order_fail|unwrap_failed|expect_failed/ {
		print fn, $NF }' | sort | uniq -c)
if [ -n "$calls" ]; then
	echo "panic paths in $ko:"
	echo "$calls"
	exit 1
fi
echo "no panic paths in $ko"
