#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-kernel.sh [default|debug|uml]: build (or reuse) the bench's Rust-enabled 6.12 kernel and
# print its build directory, the KDIR that modules are built against. Cached under
# $ECNSHARP_CACHE/kernel/<flavour>-<key>, the key hashing the source package version, the config
# fragments and patches, and the rustc, bindgen and clang versions: a second run with nothing
# changed is a no-op. uml is User-Mode Linux (ARCH=um) for the virtual-time bench (tests/uml/),
# built from its own copy of the source with tests/uml/*.patch applied.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-default}
frags=$(flavour_fragments "$flavour")
need make clang ld.lld rustc bindgen flex bison bc tar xz flock
[ -f "$KERNEL_SOURCE_TARBALL" ] || die "$KERNEL_SOURCE_TARBALL missing: run tests/vm/deps.sh"

build=$(kernel_dir "$flavour")
# One build per flavour at a time: a second run (another clone, a parallel make) waits for the
# first and then finds its result, instead of building into the same tree.
mkdir -p "$ECNSHARP_CACHE/kernel"
exec 9>"$ECNSHARP_CACHE/kernel/.lock-$flavour"
if ! flock -n 9; then
	say "another build of the $flavour kernel is running; waiting for it"
	flock 9
fi
arch=$(flavour_arch "$flavour")
image=$(kernel_image "$flavour" "$build")
if [ -f "$build/.ecnsharp-done" ] && [ -f "$image" ]; then
	say "kernel ($flavour) cached: $build"
	echo "$build"
	exit 0
fi

version=$(dpkg-query -W -f='${Version}' "$KERNEL_SOURCE_PKG")
src="$ECNSHARP_CACHE/src/$KERNEL_SOURCE_PKG-$version"
# Flavours build at once (make check builds them in the background): one extracts and patches
# the source at a time.
mkdir -p "$ECNSHARP_CACHE/src"
exec 8>"$ECNSHARP_CACHE/src/.lock"
flock 8
if [ ! -f "$src/.ecnsharp-extracted" ]; then
	say "extracting $KERNEL_SOURCE_TARBALL to $src"
	rm -rf "$src" && mkdir -p "$src"
	tar -xJf "$KERNEL_SOURCE_TARBALL" -C "$src" --strip-components=1
	touch "$src/.ecnsharp-extracted"
fi
patches=$(flavour_patches "$flavour")
if [ -n "$patches" ]; then
	# A patched flavour builds from its own copy, keyed by its patches, so that the other
	# flavours' source stays Debian's.
	psrc="$src-$flavour-$(cat $patches | sha256sum | cut -c1-12)"
	if [ ! -f "$psrc/.ecnsharp-patched" ]; then
		say "copying the source to $psrc and applying $(basename -a $patches | tr '\n' ' ')"
		rm -rf "$psrc" && mkdir -p "$psrc"
		cp -a "$src/." "$psrc/"
		for p in $patches; do
			patch -d "$psrc" -p1 --quiet --forward <"$p" || die "$p does not apply to $src"
		done
		touch "$psrc/.ecnsharp-patched"
	fi
	src=$psrc
fi
exec 8>&-

mk() { make -C "$src" O="$build" ARCH="$arch" LLVM=1 "$@"; }
rm -rf "$build" && mkdir -p "$build"
log="$build/build.log"
say "building kernel ($flavour) in $build (6-10 minutes on 2 cores; log: $log)"
mk rustavailable >"$log" 2>&1 || die "the kernel says Rust is not available with this toolchain: $(tail -n 5 "$log")"
mk tinyconfig >>"$log" 2>&1 || die "make tinyconfig failed (see $log)"
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" $frags >>"$log" 2>&1 ||
	die "merging config fragments failed (see $log)"
mk olddefconfig >>"$log" 2>&1 || die "make olddefconfig failed (see $log)"

# Every line of the fragments must be in force: Kconfig silently drops options whose dependencies
# are not met (CONFIG_RUST without a usable toolchain, say).
bad=0
# shellcheck disable=SC2086
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qx -- "$line" "$build/.config" || { say "not in force: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -q "^$opt=" "$build/.config" && { say "not in force: $line"; bad=1; } ;;
	esac
done < <(cat $frags)
[ "$bad" -eq 0 ] || die "the kernel config does not have the options the fragments ask for (see above)"

start=$(date +%s)
target=bzImage
[ "$arch" = um ] && target=linux
mk -j"$(nproc)" "$target" modules >>"$log" 2>&1 || die "kernel build failed: $(grep -m 5 -E 'error|Error' "$log")"
touch "$build/.ecnsharp-done"
say "kernel ($flavour) built in $(($(date +%s) - start)) s"
echo "$build"
