#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pkg-check.sh: host-side tests of packaging (TAP): dkms.conf against the Makefile and Kbuild,
# the module build's refusals (no CONFIG_RUST, another rustc), make install / uninstall into a
# staging root with stand-in artifacts (only copies, exactly the manifest, nothing left), and
# how tc's plugin directory is found. Needs no kernel, no root and no build; about 2 s.
set -uo pipefail
cd "$(dirname "$0")/.."

n=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $1"
	[ -z "${2:-}" ] || sed 's/^/# /' <<<"$2"
}
# check NAME CMD...: one case.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}

conf() { sed -n "s/^$1=\"\\(.*\\)\"$/\\1/p" dkms.conf; }

# --- dkms.conf against the Makefile, Kbuild and Cargo.toml -----------------------------------
dkms_module_name() {
	local kbuild
	kbuild=$(sed -n 's/^obj-m *:= *\(.*\)\.o$/\1/p' Kbuild)
	[ -n "$kbuild" ] && [ "$(conf 'BUILT_MODULE_NAME\[0\]')" = "$kbuild" ]
}
dkms_make_targets() {
	local make clean target
	make=$(conf 'MAKE\[0\]')
	clean=$(conf CLEAN)
	[[ $make == "make module KDIR=\${kernel_source_dir}" ]] || { echo "MAKE[0]: $make"; return 1; }
	[[ $clean == "make clean KDIR=\${kernel_source_dir}" ]] || { echo "CLEAN: $clean"; return 1; }
	for target in module clean; do
		grep -q "^$target:" Makefile || { echo "no $target: rule"; return 1; }
	done
	# The module is built in the top directory (M=$(CURDIR)), where BUILT_MODULE_LOCATION says.
	[ "$(conf 'BUILT_MODULE_LOCATION\[0\]')" = . ] && grep -q 'M="$(CURDIR)" LLVM=$(LLVM) modules$' Makefile
}
dkms_version() {
	local cargo
	cargo=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
	[ "$(conf PACKAGE_VERSION)" = "$cargo" ] && [ "$(conf PACKAGE_NAME)" = ecnsharp ]
}
dkms_sources_complete() {
	# make dkms-add copies what `make module` needs and nothing of the build.
	make -s dkms-add DESTDIR="$tmp/dkms" >/dev/null || return 1
	local src=$tmp/dkms/usr/src/ecnsharp-$(conf PACKAGE_VERSION)
	for f in dkms.conf Makefile Kbuild rust-toolchain.toml kmod/module/shim.c kmod/src/lib.rs; do
		[ -f "$src/$f" ] || { echo "missing $f"; return 1; }
	done
	[ ! -e "$src/target" ] && [ ! -e "$src/tc-helper" ]
}
check "dkms.conf: BUILT_MODULE_NAME is Kbuild's obj-m" dkms_module_name
check "dkms.conf: MAKE and CLEAN are the Makefile's module and clean targets, with KDIR" dkms_make_targets
check "dkms.conf: PACKAGE_VERSION is the workspace's version" dkms_version
check "dkms.conf: kernels without CONFIG_RUST are excluded" grep -qx 'BUILD_EXCLUSIVE_CONFIG="CONFIG_RUST"' dkms.conf
check "make dkms-add stages the module's sources only" dkms_sources_complete

# --- the module build's refusals --------------------------------------------------------------
refuses_without_rust() {
	mkdir -p "$tmp/k-norust"
	echo '# CONFIG_RUST is not set' >"$tmp/k-norust/.config"
	local out
	out=$(make -s module KDIR="$tmp/k-norust" 2>&1) && return 1
	grep -q 'was built without CONFIG_RUST=y' <<<"$out" || { echo "$out"; return 1; }
}
refuses_other_rustc() {
	mkdir -p "$tmp/k-rust/include/config"
	echo 'CONFIG_RUST=y' >"$tmp/k-rust/.config"
	echo 'CONFIG_RUSTC_VERSION_TEXT="rustc 1.0.0 (00000000 2015-05-15)"' >"$tmp/k-rust/include/config/auto.conf"
	local out
	out=$(make -s module KDIR="$tmp/k-rust" 2>&1) && return 1
	grep -q "was built with 'rustc 1.0.0 (00000000 2015-05-15)'" <<<"$out" &&
		grep -q "kernel's own rustc" <<<"$out" || { echo "$out"; return 1; }
}
accepts_same_rustc() {
	# With the kernel's rustc the check passes (the fake tree then fails in the kernel's make).
	local have out
	have=$(RUSTUP_TOOLCHAIN=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml) rustc --version)
	echo "CONFIG_RUSTC_VERSION_TEXT=\"$have\"" >"$tmp/k-rust/include/config/auto.conf"
	out=$(make -s module KDIR="$tmp/k-rust" 2>&1)
	! grep -q "kernel's own rustc" <<<"$out" || { echo "$out"; return 1; }
}
check "make module refuses a kernel without CONFIG_RUST" refuses_without_rust
check "make module refuses a rustc other than the kernel's" refuses_other_rustc
check "make module accepts the kernel's own rustc" accepts_same_rustc

# --- make install / uninstall into a staging root --------------------------------------------
# Stand-ins for what `make` builds: install only copies, so their content does not matter.
art=$tmp/artifacts
mkdir -p "$art/completions"
for f in ecnsharp-tc libq_ecnsharp.so completions/ecnsharp-tc.bash completions/_ecnsharp-tc \
	completions/ecnsharp-tc.fish sch_ecnsharp.ko; do
	echo "stand-in $f" >"$art/$f"
done
stage=$tmp/stage
inst() { make -s "$1" DESTDIR="$stage" TOOLS_DIR="$art" MODULE="$art/sch_ecnsharp.ko" KVER=6.12.0-test \
	TC_LIB_DIR=/opt/tc-test PREFIX=/usr/local "${@:2}"; }

install_never_builds() {
	local out
	out=$(make -n install TOOLS_DIR="$art" MODULE="$art/sch_ecnsharp.ko" KVER=x DESTDIR="$stage")
	! grep -qE 'cargo|rustc|modules_install|\$\(MAKE\) -C' <<<"$out" || { echo "$out"; return 1; }
}
install_needs_make_first() {
	local out
	out=$(make -s install DESTDIR="$stage" TOOLS_DIR="$tmp/nothing" INSTALL_MODULE=0 2>&1) && return 1
	grep -q "run 'make' first" <<<"$out" || { echo "$out"; return 1; }
	out=$(make -s install DESTDIR="$stage" MODULE="$tmp/nothing.ko" 2>&1) && return 1
	grep -q "not built: run 'make' first" <<<"$out" || { echo "$out"; return 1; }
	[ ! -e "$stage" ] || { echo "something was copied"; find "$stage"; return 1; }
}
installs_the_manifest() {
	inst install >/dev/null || return 1
	local m=$stage/usr/local/share/ecnsharp/manifest listed found
	[ -f "$m" ] || { echo "no manifest"; return 1; }
	listed=$( (awk '$1 == "file" { print $3 }' "$m"; echo /usr/local/share/ecnsharp/manifest) | sort)
	found=$(cd "$stage" && find . -type f | sed 's/^\.//' | sort)
	[ "$listed" = "$found" ] || { diff <(echo "$listed") <(echo "$found"); return 1; }
	for f in /usr/local/bin/ecnsharp-tc /opt/tc-test/q_ecnsharp.so \
		/lib/modules/6.12.0-test/updates/sch_ecnsharp.ko /usr/local/share/man/man8/tc-ecnsharp.8 \
		/usr/local/share/man/man8/ecnsharp-tc.8 /etc/bash_completion.d/tc-ecnsharp \
		/usr/local/share/bash-completion/completions/ecnsharp-tc; do
		[ -f "$stage$f" ] || { echo "missing $f"; return 1; }
	done
	[ -x "$stage/usr/local/bin/ecnsharp-tc" ] && [ "$(stat -c %a "$stage/opt/tc-test/q_ecnsharp.so")" = 644 ] &&
		grep -qx 'depmod 6.12.0-test' "$m"
}
reinstall_keeps_records() {
	# A second install without the module must still let uninstall remove the first one's.
	inst install INSTALL_MODULE=0 >/dev/null &&
		grep -q 'updates/sch_ecnsharp.ko$' "$stage/usr/local/share/ecnsharp/manifest"
}
uninstall_leaves_nothing() {
	inst uninstall >/dev/null || return 1
	[ -z "$(ls -A "$stage")" ] || { find "$stage"; return 1; }
	local out
	out=$(inst uninstall) && grep -q 'nothing to uninstall' <<<"$out"
}
uninstall_keeps_foreign_files() {
	mkdir -p "$stage/usr/local/bin" && echo other >"$stage/usr/local/bin/other-tool"
	inst install >/dev/null && inst uninstall >/dev/null &&
		[ "$(cd "$stage" && find . -type f)" = ./usr/local/bin/other-tool ]
}
check "make install never builds (no cargo, rustc or kbuild in its recipe)" install_never_builds
check "make install without built artifacts fails, telling to run make first, copying nothing" install_needs_make_first
check "make install DESTDIR=...: every file listed in the manifest, nothing else" installs_the_manifest
check "make install again keeps what the first install recorded" reinstall_keeps_records
check "make uninstall DESTDIR=...: nothing left, and a second uninstall is a no-op" uninstall_leaves_nothing
check "make uninstall leaves files it did not install" uninstall_keeps_foreign_files

# --- licensing -------------------------------------------------------------------------------
# Files that carry no SPDX line, and why: documentation and data, covered by LICENSE and
# debian/copyright as a whole. Everything else tracked says its license at its top.
spdx_exempt='^(COPYING|LICENSE|LICENSES/.*|debian/(changelog|copyright|source/format))$|\.md$|^docs/results/|Cargo\.lock$|/proptest-regressions/|/testdata/|^tests/vm/kernel(-debug)?\.config$'
tracked_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files; else find . -type f ! -path './target/*' ! -path './.git/*' | sed 's:^\./::'; fi
}
every_file_has_spdx() {
	local f id bad=0
	while IFS= read -r f; do
		[ -f "$f" ] || continue
		grep -qE "$spdx_exempt" <<<"$f" && continue
		id=$(head -n 3 "$f" | grep -o 'SPDX-License-Identifier: .*' | head -n 1 |
			sed 's/^SPDX-License-Identifier: //; s: *\*/ *$::; s/ *-->$//')
		case "$id" in
		GPL-2.0-only | GPL-2.0) ;;
		"GPL-2.0-only WITH Linux-syscall-note" | "GPL-2.0 WITH Linux-syscall-note")
			[[ $f == include/uapi/* ]] || { echo "$f: the syscall note is for uapi headers"; bad=1; } ;;
		"") echo "$f: no SPDX-License-Identifier in its first 3 lines"; bad=1 ;;
		*) echo "$f: unexpected license '$id'"; bad=1 ;;
		esac
	done < <(tracked_files)
	[ "$bad" -eq 0 ]
}
license_files() {
	grep -q 'GNU GENERAL PUBLIC LICENSE' COPYING && grep -q 'Version 2, June 1991' COPYING &&
		grep -q 'does \*not\* cover user programs' LICENSES/Linux-syscall-note &&
		grep -q 'GPL-2.0-only' LICENSE &&
		grep -qx 'license = "GPL-2.0-only"' Cargo.toml &&
		grep -q 'license: "GPL",' kmod/module/sch_ecnsharp_rs.rs
}
# The shipped tools link their crates statically: each must offer a GPL-2.0-compatible license.
shipped_crates_compatible() {
	local list
	list=$(cargo tree --locked -e normal --prefix none -p ecnsharp-tc -p q_ecnsharp --format '{p} | {l}') || return 1
	[ "$(grep -c . <<<"$list")" -gt 10 ] || { echo "cargo tree listed nearly nothing: $list"; return 1; }
	# Our own crates name their path; a license passes if one of its choices is GPL-2.0-compatible.
	grep -v ' (/' <<<"$list" | grep . | sort -u | grep -vE '[|](.*[ (/])?(MIT|BSD-[23]-Clause|ISC|Zlib|Unlicense)([ )/]|$)' |
		sed 's/^/incompatible: /' | grep . && return 1
	return 0
}
check "LICENSE, COPYING (GPL-2.0) and the syscall note; Cargo and the module say GPL" license_files
check "every tracked source file has an SPDX line (GPL-2.0-only; the uapi header WITH Linux-syscall-note)" every_file_has_spdx
check "the crates of ecnsharp-tc and q_ecnsharp.so offer GPL-2.0-compatible licenses" shipped_crates_compatible

# --- tc's plugin directory ------------------------------------------------------------------
lib_dir_env() { [ "$(TC_LIB_DIR=/x/tc pkg/tc-lib-dir.sh)" = /x/tc ]; }
lib_dir_from_binary() {
	printf 'junk\0/usr/lib/debug/x/tc\0/etc/iproute2/tc\0/usr/lib64/tc\0junk' >"$tmp/fake-tc"
	[ "$(env -u TC_LIB_DIR pkg/tc-lib-dir.sh "$tmp/fake-tc")" = /usr/lib64/tc ]
}
lib_dir_here() {
	# This host's tc names a directory that holds tc's own files.
	local d
	d=$(env -u TC_LIB_DIR pkg/tc-lib-dir.sh)
	echo "tc's plugin directory here: $d"
	[ -f "$d/normal.dist" ]
}
check "tc-lib-dir.sh: TC_LIB_DIR overrides" lib_dir_env
check "tc-lib-dir.sh: the directory compiled into tc (debug and /etc paths aside)" lib_dir_from_binary
check "tc-lib-dir.sh: on this host, a directory with tc's distribution tables" lib_dir_here

echo "1..$n"
echo "# packaging: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
