# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Shared helpers for the VM bench scripts (sourced, not run).
# Everything heavy is cached outside the clone, under $ECNSHARP_CACHE.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$VM_DIR/../.." && pwd)
ECNSHARP_CACHE=${ECNSHARP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ecnsharp}
# The kernel, its rust/ metadata and our module must come from one rustc: the pinned one
# (ECNSHARP_KERNEL_TOOLCHAIN builds a bench kernel with another, as tests/rustc-select.sh does).
RUST_TOOLCHAIN=${ECNSHARP_KERNEL_TOOLCHAIN:-$(sed -n 's/^channel *= *"\(.*\)"/\1/p' "$REPO_DIR/rust-toolchain.toml")}
export RUSTUP_TOOLCHAIN=$RUST_TOOLCHAIN
export PATH="$HOME/.cargo/bin:$PATH"
KERNEL_SOURCE_PKG=linux-source-6.12
# shellcheck disable=SC2034 # read by build-kernel.sh and deps.sh, which source this
KERNEL_SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz

# suite_path DIR SUITE: SUITE as given if it is a file, else DIR/SUITE.sh (a bare suite name,
# such as qdisc-config); dies naming DIR's suites if neither exists.
suite_path() {
	if [ -f "$2" ]; then
		echo "$2"
	elif [ -f "$1/${2%.sh}.sh" ]; then
		echo "$1/${2%.sh}.sh"
	else
		die "no such suite: $2 ($1 has $(cd "$1" && echo *.sh))"
	fi
}

# kernel_source_dir: the extracted tree build-kernel.sh builds from (its tools/testing too).
kernel_source_dir() {
	echo "$ECNSHARP_CACHE/src/$KERNEL_SOURCE_PKG-$(dpkg-query -W -f='${Version}' "$KERNEL_SOURCE_PKG" 2>/dev/null)"
}

say() { printf '[vm] %s\n' "$*" >&2; }
die() {
	printf '[vm] error: %s\n' "$*" >&2
	exit 1
}

# need CMD... : fail clearly when a tool the next step relies on is missing.
# uml_work CLONE: where run-in-uml builds and boots for the clone at CLONE (one per clone, so
# clones and worktrees never share a module build).
uml_work() {
	echo "$ECNSHARP_CACHE/run/uml-$(printf '%s' "$1" | sha256sum | cut -c1-8)"
}

need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "'$c' is missing; run 'tests/vm/deps.sh' (or 'make deps') to install the bench's dependencies"
	done
}

# flavour_fragments FLAVOUR: the config fragments of a kernel flavour, in merge order.
flavour_fragments() {
	case "$1" in
	default) echo "$VM_DIR/kernel.config" ;;
	debug) echo "$VM_DIR/kernel.config $VM_DIR/kernel-debug.config" ;;
	uml) echo "$REPO_DIR/tests/uml/kernel.config" ;;
	*) die "unknown kernel flavour '$1' (expected: default, debug, uml)" ;;
	esac
}

# flavour_patches FLAVOUR: patches applied to that flavour's own copy of the source (uml only:
# the virtual-time bench takes no randomness and no time from the host, and runs on AMX hosts).
flavour_patches() {
	case "$1" in
	uml) echo "$REPO_DIR/tests/uml/random-seed.patch $REPO_DIR/tests/uml/time-travel-start.patch $REPO_DIR/tests/uml/host-xstate.patch" ;;
	esac
}

# flavour_arch FLAVOUR: the kernel's ARCH (User-Mode Linux is ARCH=um on an x86_64 host).
flavour_arch() {
	case "$1" in
	uml) echo um ;;
	*) echo x86 ;;
	esac
}

# kernel_image FLAVOUR KDIR: the bootable image of a built kernel (UML's is a host executable).
kernel_image() {
	case "$1" in
	uml) echo "$2/linux" ;;
	*) echo "$2/arch/x86/boot/bzImage" ;;
	esac
}

# kernel_key FLAVOUR: what the cached build depends on; a change to any of it rebuilds.
kernel_key() {
	local frags
	frags=$(flavour_fragments "$1")
	{
		dpkg-query -W -f='${Version}\n' "$KERNEL_SOURCE_PKG" 2>/dev/null || echo no-source
		# shellcheck disable=SC2086,SC2046 # split intended: lists of file paths
		cat $frags $(flavour_patches "$1")
		rustc --version 2>/dev/null
		bindgen --version 2>/dev/null
		clang --version 2>/dev/null | head -n 1
	} | sha256sum | cut -c1-12
}

# kernel_dir FLAVOUR: the build directory (KDIR) of that flavour's cached kernel.
kernel_dir() {
	echo "$ECNSHARP_CACHE/kernel/$1-$(kernel_key "$1")"
}
