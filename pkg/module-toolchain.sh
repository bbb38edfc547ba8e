#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# module-toolchain.sh KDIR: which rustc, bindgen and compiler build sch_ecnsharp.ko for the kernel
# at KDIR, printed as shell assignments for `make module` (and DKMS, which runs it as root):
#   ECNSHARP_RUSTC=... ECNSHARP_RUSTUP_TOOLCHAIN=... ECNSHARP_BINDGEN=... ECNSHARP_LLVM=...
# or one message on stderr naming what to install, and exit 1.
#
# A Rust module must be compiled by the very rustc that built the kernel (the kernel's rust/
# metadata is rustc's own format), recorded as CONFIG_RUSTC_VERSION_TEXT in its .config. In
# order, the first that applies:
#   1. RUSTC (environment or make's command line): that rustc, which must be the kernel's;
#   2. RUSTUP_TOOLCHAIN (idem): that rustup toolchain, which must be the kernel's;
#   3. an installed rustup toolchain whose rustc prints exactly the kernel's version text (the
#      toolchain named by its version first);
#   4. rustc-X.Y (a distribution's versioned rustc) or rustc on PATH, if it is the kernel's.
# bindgen (the module's Kbuild runs it over its C shim) must be at least the kernel's minimum
# and find libclang; the C compiler is the kernel's: LLVM=1 for a clang-built kernel.
# /etc/ecnsharp/build.conf (ECNSHARP_BUILD_CONF), if present, may set RUSTC, RUSTUP_TOOLCHAIN,
# BINDGEN, RUSTUP_HOME, CARGO_HOME or PATH for builds that see no user environment, as DKMS's.
set -eu

kdir=${1:?usage: module-toolchain.sh KDIR}
# A kernel's postinst run by a service (unattended-upgrades under systemd, no User=) may give
# DKMS no HOME: the user's own from passwd, which rustup and cargo's ~/.cargo need too.
if [ -z "${HOME:-}" ]; then
	HOME=$(getent passwd "$(id -u)" | cut -d: -f6)
	export HOME
fi
conf=${ECNSHARP_BUILD_CONF:-/etc/ecnsharp/build.conf}
# The environment wins over the file: keep what was given.
given_rustc=${RUSTC:-}
given_toolchain=${RUSTUP_TOOLCHAIN:-}
given_bindgen=${BINDGEN:-}
given_rustup_home=${RUSTUP_HOME:-}
given_cargo_home=${CARGO_HOME:-}
if [ -f "$conf" ]; then
	# shellcheck disable=SC1090
	. "$conf"
	given_rustc=${given_rustc:-${RUSTC:-}}
	given_toolchain=${given_toolchain:-${RUSTUP_TOOLCHAIN:-}}
	given_bindgen=${given_bindgen:-${BINDGEN:-}}
	RUSTUP_HOME=${given_rustup_home:-${RUSTUP_HOME:-}}
	CARGO_HOME=${given_cargo_home:-${CARGO_HOME:-}}
	# Sourcing sets shell variables only: rustup and cargo read these from their environment.
	[ -z "$RUSTUP_HOME" ] || export RUSTUP_HOME
	[ -z "$CARGO_HOME" ] || export CARGO_HOME
fi
# rustup and cargo-installed tools live in ~/.cargo/bin, which root's PATH under DKMS lacks.
cargo_bin=${CARGO_HOME:-$HOME/.cargo}/bin
PATH=$PATH:$cargo_bin
export PATH

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}
note() { printf 'ecnsharp: %s\n' "$*" >&2; }

# kconfig NAME: the value of CONFIG_NAME in KDIR's .config (quotes removed), else auto.conf's.
kconfig() {
	for f in "$kdir/.config" "$kdir/include/config/auto.conf"; do
		[ -f "$f" ] || continue
		v=$(sed -n "s/^CONFIG_$1=//p" "$f" | head -n 1)
		if [ -n "$v" ]; then
			v=${v#\"}
			printf '%s\n' "${v%\"}"
			return 0
		fi
	done
}

# version_ge A B: whether dotted version A >= B.
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]; }

[ -f "$kdir/.config" ] || die "no kernel build tree at KDIR=$kdir (no .config there)." \
	"The module needs the build tree of a kernel built with CONFIG_RUST=y: make module KDIR=/path/to/build." \
	"'make tools' builds the tools alone; 'make kernel' builds the bench's VM kernel (see README)."
[ "$(kconfig RUST)" = y ] || die "$kdir was built without CONFIG_RUST=y, so it cannot load Rust" \
	"modules (Debian's stock kernel is such a kernel). Use a kernel built with CONFIG_RUST=y" \
	"(README, 'On a real host'); 'make tools' builds the tools alone."

want=$(kconfig RUSTC_VERSION_TEXT)
# want_number: 1.85.0 out of "rustc 1.85.0 (4d91de4e4 2025-02-17)" (or 1.97.0-nightly).
want_number=$(printf '%s\n' "$want" | awk '{print $2}')

# version_of RUSTC: its --version line, or nothing.
version_of() { "$1" --version 2>/dev/null | head -n 1 || true; }

# real_rustc RUSTC: the rustc binary itself, not rustup's proxy (kbuild runs in KDIR, where a
# proxy could pick another toolchain than it did here).
real_rustc() {
	sysroot=$("$1" --print sysroot 2>/dev/null) && [ -x "$sysroot/bin/rustc" ] &&
		echo "$sysroot/bin/rustc" || echo "$1"
}

# The command that installs the kernel's rustc with rustup.
install_hint() {
	case "$want_number" in
	*-nightly)
		# A nightly's version text carries its commit date; rustup names it by the next day.
		d=$(printf '%s\n' "$want" | sed -n 's/.* \([0-9-]\{10\}\))$/\1/p')
		next=$(date -u -d "$d + 1 day" +%Y-%m-%d 2>/dev/null || echo "$d")
		echo "rustup toolchain install nightly-$next --profile minimal" ;;
	*-beta*) echo "rustup toolchain install beta --profile minimal (the beta of ${want#rustc })" ;;
	*) echo "rustup toolchain install $want_number --profile minimal" ;;
	esac
}
who=$( [ "$(id -u)" -eq 0 ] && echo "as root (DKMS builds as root)" || echo "as the user who builds")

rustc='' toolchain='' how=''
if [ -n "$given_rustc" ]; then
	rustc=$(command -v "$given_rustc" 2>/dev/null) || die "RUSTC=$given_rustc: no such program"
	have=$(version_of "$rustc")
	how="RUSTC=$given_rustc"
	[ -z "$want" ] || [ "$have" = "$want" ] || die "$kdir was built with '$want' but RUSTC=$given_rustc" \
		"is '${have:-not a rustc}': a Rust module must be built by the kernel's own rustc." \
		"Install it ($(install_hint), $who) or give RUSTC=/path/to/that/rustc."
elif [ -n "$given_toolchain" ]; then
	command -v rustup >/dev/null 2>&1 || die "RUSTUP_TOOLCHAIN=$given_toolchain is set but rustup is not installed"
	rustc=$(rustup which --toolchain "$given_toolchain" rustc 2>/dev/null) ||
		die "RUSTUP_TOOLCHAIN=$given_toolchain: no such rustup toolchain installed ($(install_hint))"
	toolchain=$given_toolchain
	have=$(version_of "$rustc")
	how="RUSTUP_TOOLCHAIN=$given_toolchain"
	[ -z "$want" ] || [ "$have" = "$want" ] || die "$kdir was built with '$want' but rustup toolchain" \
		"$given_toolchain is '$have': a Rust module must be built by the kernel's own rustc." \
		"Install it: $(install_hint) ($who), or leave RUSTUP_TOOLCHAIN unset to let make pick it."
elif [ -z "$want" ]; then
	# Kernels before 6.12 do not record their rustc: trust the one on PATH, say so.
	rustc=$(command -v rustc 2>/dev/null) || die "no rustc on PATH; install the rustc that built $kdir"
	how="PATH (the kernel records no CONFIG_RUSTC_VERSION_TEXT: it must be the rustc that built it)"
else
	if command -v rustup >/dev/null 2>&1; then
		# Installed toolchains only (never one rustup would download): the version's own name first.
		for t in $(rustup toolchain list 2>/dev/null | awk '{print $1}' |
			awk -v v="$want_number" 'index($0, v "-") == 1 { print; next } { rest = rest " " $0 } END { print rest }'); do
			r=$(rustup which --toolchain "$t" rustc 2>/dev/null) || continue
			if [ "$(version_of "$r")" = "$want" ]; then
				rustc=$r toolchain=$t how="rustup toolchain $t"
				break
			fi
		done
	fi
	if [ -z "$rustc" ]; then
		mm=$(printf '%s\n' "$want_number" | cut -d. -f1,2)
		for r in "rustc-$mm" rustc; do
			r=$(command -v "$r" 2>/dev/null) || continue
			if [ "$(version_of "$r")" = "$want" ]; then
				rustc=$r how="PATH"
				break
			fi
		done
	fi
	on_path=$(version_of rustc)
	[ -n "$rustc" ] || die "$kdir was built with '$want', and no rustc of that version is" \
		"installed (rustc on PATH: ${on_path:-none}). A Rust module must be built by the" \
		"kernel's own rustc. Install it $who: $(install_hint)" \
		"-- then make picks it; or give RUSTC=/path/to/rustc or RUSTUP_TOOLCHAIN=NAME."
fi

# bindgen: at least the kernel's minimum, and able to load libclang.
bindgen=${given_bindgen:-bindgen}
bindgen_min=0.65.1
for s in "$kdir/scripts/min-tool-version.sh" "$kdir/source/scripts/min-tool-version.sh"; do
	if [ -x "$s" ]; then
		bindgen_min=$("$s" bindgen 2>/dev/null || echo "$bindgen_min")
		break
	fi
done
bindgen_path=$(command -v "$bindgen" 2>/dev/null) || die "bindgen not found ($bindgen): the module's" \
	"Kbuild runs it over its C shim. Install it $who: cargo install --locked bindgen-cli" \
	"(Debian's bindgen package is older than the kernel's minimum $bindgen_min), or give BINDGEN=/path."
bv=$("$bindgen_path" --version 2>/dev/null | awk '{print $2}')
[ -n "$bv" ] && version_ge "$bv" "$bindgen_min" || die "$bindgen_path is bindgen '${bv:-?}', older than" \
	"the kernel's minimum $bindgen_min. Install a newer one $who: cargo install --locked bindgen-cli," \
	"or give BINDGEN=/path."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int ecnsharp_probe;' >"$tmp/probe.h"
"$bindgen_path" "$tmp/probe.h" -o "$tmp/probe.rs" >"$tmp/err" 2>&1 || die "bindgen cannot run" \
	"($(head -n 1 "$tmp/err")): it needs libclang; install it (Debian: apt install libclang-dev)."

# The C compiler: the kernel's. kbuild only warns about another version; a missing one fails late.
if [ "$(kconfig CC_IS_CLANG)" = y ]; then
	llvm=${LLVM:-1}
	for tool in clang ld.lld; do
		command -v "$tool" >/dev/null 2>&1 || die "$kdir was built with clang ($(kconfig CC_VERSION_TEXT))" \
			"and LLVM=1, but $tool is not installed (Debian: apt install clang lld llvm)."
	done
	cc_have=$(clang --version 2>/dev/null | head -n 1)
else
	llvm=${LLVM:-}
	command -v gcc >/dev/null 2>&1 || die "$kdir was built with $(kconfig CC_VERSION_TEXT), but gcc is not installed"
	cc_have=$(gcc --version 2>/dev/null | head -n 1)
fi
cc_want=$(kconfig CC_VERSION_TEXT)
[ -z "$cc_want" ] || [ "$cc_have" = "$cc_want" ] ||
	note "warning: $kdir was built by '$cc_want', this C compiler is '$cc_have' (kbuild will say so too)"

rustc=$(real_rustc "$rustc")
# rustup's name of the toolchain the rustc belongs to, so that kbuild's clippy-driver and rustdoc
# (CLIPPY=1, doc tests) come from it too.
if [ -z "$toolchain" ]; then
	case "$rustc" in
	*/toolchains/*/bin/rustc) toolchain=$(basename "$(dirname "$(dirname "$rustc")")") ;;
	esac
fi
# The default sits in double quotes of its own: an apostrophe inside "${x:-...}" is literal in
# POSIX shells but starts a quoted string for bash outside POSIX mode (and for shellcheck).
cc_shown=${cc_have:-"the kernel's C compiler"}
note "building for $kdir with $(version_of "$rustc") ($how), bindgen $bv, $cc_shown"
printf "ECNSHARP_RUSTC='%s' ECNSHARP_RUSTUP_TOOLCHAIN='%s' ECNSHARP_BINDGEN='%s' ECNSHARP_LLVM='%s'\n" \
	"$rustc" "$toolchain" "$bindgen_path" "$llvm"
