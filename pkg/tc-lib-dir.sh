#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tc-lib-dir.sh [TC]: print the directory where tc looks for q_<kind>.so plugins.
#
# tc loads plugins from $TC_LIB_DIR, else from LIBDIR/tc, LIBDIR being fixed when iproute2 was
# built (Debian: /usr/lib/<multiarch>, Fedora: /usr/lib64, Arch and iproute2's default:
# /usr/lib). Asked in this order, the first answer wins:
#   1. TC_LIB_DIR from the environment (make passes TC_LIB_DIR=... through);
#   2. the path compiled into tc itself (the string LIBDIR "/tc" in the binary);
#   3. a directory holding tc's own files (normal.dist, which iproute2 installs next to its
#      plugins): /usr/lib/<multiarch>/tc (dpkg-architecture, then gcc -print-multiarch),
#      /usr/lib64/tc, /usr/lib/tc;
#   4. /usr/lib/<multiarch>/tc if a multiarch triplet is known, else /usr/lib/tc.
set -eu

if [ -n "${TC_LIB_DIR:-}" ]; then
	echo "$TC_LIB_DIR"
	exit 0
fi

tc=${1:-$(command -v tc 2>/dev/null || true)}
[ -n "$tc" ] || for t in /usr/sbin/tc /sbin/tc /usr/bin/tc; do [ -x "$t" ] && tc=$t && break; done
if [ -n "$tc" ] && [ -r "$tc" ]; then
	# Absolute paths ending in /tc or /tc/ among the binary's strings; debug-info paths aside.
	dir=$(LC_ALL=C tr '\000' '\n' <"$tc" 2>/dev/null | grep -xE '/[A-Za-z0-9_.+/-]*/tc/?' |
		sed 's:/$::' | grep -vE '^/usr/lib/debug/|/s?bin/tc$|^/etc/' | head -n 1 || true)
	if [ -n "$dir" ]; then
		echo "$dir"
		exit 0
	fi
fi

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || true)
for dir in ${multiarch:+/usr/lib/$multiarch/tc} /usr/lib64/tc /usr/lib/tc; do
	if [ -f "$dir/normal.dist" ]; then
		echo "$dir"
		exit 0
	fi
done
echo "/usr/lib${multiarch:+/$multiarch}/tc"
