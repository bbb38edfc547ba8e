#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# rustc-select.sh [TOOLCHAIN]: the module built against a real kernel tree whose rustc is not the
# pinned one (default 1.85.0): the bench kernel built again with TOOLCHAIN (about 10 minutes
# once, then cached in ~/.cache/ecnsharp), then (TAP)
#   - with TOOLCHAIN not installed (an empty rustup home), `make module` stops naming the exact
#     version and the rustup command;
#   - installed beside the pinned toolchain, `make module` and DKMS pick it, with nothing set,
#     and the module's objects say they were compiled by it.
# tests/pkg-check.sh checks the same logic with a stand-in rustup in make check; this is the real
# thing, not in make check for the second kernel build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
toolchain=${1:-1.85.0}
. tests/vm/lib.sh
unset RUSTUP_TOOLCHAIN RUSTC

. tests/tap-cases.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! rustup which --toolchain "$toolchain" rustc >/dev/null 2>&1; then
	echo "# installing Rust $toolchain (the second kernel's rustc)"
	rustup toolchain install "$toolchain" --profile minimal --component rust-src >&2 ||
		{ echo "not ok 1 - rustup toolchain install $toolchain"; exit 1; }
fi
want=$("$(rustup which --toolchain "$toolchain" rustc)" --version)
kdir=$(ECNSHARP_KERNEL_TOOLCHAIN=$toolchain nice -n 10 tests/vm/build-kernel.sh default) ||
	{ echo "not ok 1 - the bench kernel builds with rustc $toolchain"; exit 1; }
text=$(sed -n 's/^CONFIG_RUSTC_VERSION_TEXT="\(.*\)"$/\1/p' "$kdir/.config")
echo "# second kernel: $kdir, CONFIG_RUSTC_VERSION_TEXT=\"$text\""
if [ "$text" = "$want" ]; then ok "the kernel records '$want'"; else not_ok "the kernel records '$want'" "$text"; fi

# The module's sources as DKMS gets them (no rust-toolchain.toml among them).
make -s dkms-add DESTDIR="$tmp/stage" >/dev/null
src=$tmp/stage/usr/src/ecnsharp-$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)

# Not installed: rustup with an empty home knows no toolchain, as on a machine without it.
mkdir -p "$tmp/empty-rustup"
out=$(RUSTUP_HOME=$tmp/empty-rustup make -s -C "$src" module KDIR="$kdir" 2>&1)
rc=$?
echo "$out" | grep '^error' | sed 's/^/# /'
if [ "$rc" -ne 0 ] && grep -qF "was built with '$want', and no rustc of that version is installed" <<<"$out" &&
	grep -qF "rustup toolchain install $toolchain --profile minimal" <<<"$out"; then
	ok "without rustc $toolchain, make module stops naming it and the command to install it"
else
	not_ok "without rustc $toolchain, make module stops naming it and the command to install it" "$out"
fi

# Installed beside the pinned one (and any others): picked with nothing set.
echo "# installed toolchains: $(rustup toolchain list | awk '{print $1}' | tr '\n' ' ')"
start=$(date +%s)
out=$(nice -n 10 make -s -C "$src" module KDIR="$kdir" 2>&1)
rc=$?
grep '^ecnsharp: ' <<<"$out" | sed 's/^/# /'
ko=$src/sch_ecnsharp.ko
if [ "$rc" -eq 0 ] && [ -f "$ko" ] && grep -qF "with $want (rustup toolchain $toolchain" <<<"$out"; then
	ok "make module picks rustup toolchain $toolchain and builds sch_ecnsharp.ko ($(($(date +%s) - start)) s)"
else
	not_ok "make module picks rustup toolchain $toolchain and builds sch_ecnsharp.ko" "$out"
fi
# rustc writes its version into each object's .comment.
comment=$(readelf -p .comment "$ko" 2>/dev/null | grep -o 'rustc version [^)]*)' | sort -u)
echo "# .comment of sch_ecnsharp.ko: $comment"
if grep -qF "rustc version ${want#rustc }" <<<"$comment" && [ "$(grep -c . <<<"$comment")" -eq 1 ]; then
	ok "every Rust object of the module was compiled by $want"
else
	not_ok "every Rust object of the module was compiled by $want" "$comment"
fi

# DKMS, with trees of its own, picks it as well.
if command -v dkms >/dev/null; then
	dk=$tmp/dkms
	mkdir -p "$dk/tree" "$dk/install" "$dk/src"
	cp -a "$src" "$dk/src/" && rm -f "$dk/src/$(basename "$src")"/*.ko
	d() { dkms "$@" --sourcetree "$dk/src" --dkmstree "$dk/tree" --installtree "$dk/install"; }
	ver=${src##*-}
	kver=$(cat "$kdir/include/config/kernel.release")
	out=$({ d add -m ecnsharp -v "$ver" && d build -m ecnsharp -v "$ver" -k "$kver" --kernelsourcedir "$kdir"; } 2>&1)
	# DKMS keeps the build's log beside the module once it is built.
	log=$(find "$dk/tree" -name make.log -exec cat {} + 2>/dev/null)
	if [ -f "$dk/tree/ecnsharp/$ver/$kver/x86_64/module/sch_ecnsharp.ko" ] &&
		grep -qF "with $want (rustup toolchain $toolchain" <<<"$log"; then
		ok "dkms build picks rustup toolchain $toolchain too"
	else
		not_ok "dkms build picks rustup toolchain $toolchain too" "$out
$log"
	fi
fi

tap_finish rustc-select
