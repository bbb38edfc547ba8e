#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pkg-check.sh: host-side tests of packaging (TAP): dkms.conf against the Makefile and Kbuild,
# the module build's refusals (no CONFIG_RUST, another rustc), make install / uninstall into a
# staging root with stand-in artifacts (only copies, exactly the manifest, nothing left), and
# how tc's plugin directory is found, the crates' licence notices. Needs no kernel, no root and
# no build (only the crates cargo fetched, for their licence files); about 3 s.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

. tests/tap-cases.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

conf() { sed -n "s/^$1=\"\\(.*\\)\"$/\\1/p" dkms.conf; }

# --- dkms.conf against the Makefile, Kbuild and Cargo.toml -----------------------------------
dkms_module_name() {
	local kbuild
	kbuild=$(sed -n 's/^obj-m *:= *\(.*\)\.o$/\1/p' Kbuild)
	[ -n "$kbuild" ] && [ "$(conf 'BUILT_MODULE_NAME\[0\]')" = "$kbuild" ]
}
dkms_make_targets() {
	local make
	make=$(conf 'MAKE\[0\]')
	[[ $make == "make module KDIR=\${kernel_source_dir}" ]] || { echo "MAKE[0]: $make"; return 1; }
	grep -q "^module:" Makefile || { echo "no module: rule"; return 1; }
	# The module is built in the top directory (M=$(CURDIR)), where BUILT_MODULE_LOCATION says.
	[ "$(conf 'BUILT_MODULE_LOCATION\[0\]')" = . ] && grep -q '^	+@$(call KBUILD,$(CURDIR)) modules$' Makefile
}
dkms_no_deprecated_keys() {
	# dkms 3 removes its build directory itself (CLEAN is deprecated), and warns about these.
	! grep -nE '^(CLEAN|REMAKE_INITRD|MODULES_CONF[A-Z_]*|PATCH_MATCH|NO_WEAK_MODULES)(\[|=)' dkms.conf
}
dkms_version() {
	local cargo
	cargo=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
	[ "$(conf PACKAGE_VERSION)" = "$cargo" ] && [ "$(conf PACKAGE_NAME)" = ecnsharp ]
}
dkms_sources_complete() {
	# make dkms-add copies what `make module` needs and nothing of the build.
	make -s dkms-add DESTDIR="$tmp/dkms" >/dev/null || return 1
	local src
	src=$tmp/dkms/usr/src/ecnsharp-$(conf PACKAGE_VERSION)
	for f in dkms.conf Makefile Kbuild pkg/module-toolchain.sh kmod/module/shim.c kmod/src/lib.rs LICENSE COPYING; do
		[ -f "$src/$f" ] || { echo "missing $f"; return 1; }
	done
	# Not the tools' pinned toolchain: rustup would apply it to the module's build there.
	[ ! -e "$src/target" ] && [ ! -e "$src/tc-helper" ] && [ ! -e "$src/rust-toolchain.toml" ]
}
check "dkms.conf: BUILT_MODULE_NAME is Kbuild's obj-m" dkms_module_name
check "dkms.conf: MAKE is the Makefile's module target, with KDIR" dkms_make_targets
check "dkms.conf: no deprecated key (CLEAN, REMAKE_INITRD, MODULES_CONF...)" dkms_no_deprecated_keys
check "dkms.conf: PACKAGE_VERSION is the workspace's version" dkms_version
check "dkms.conf: kernels without CONFIG_RUST are excluded" grep -qx 'BUILD_EXCLUSIVE_CONFIG="CONFIG_RUST"' dkms.conf
dkms_kernels_as_kbuild() {
	# DKMS tests BUILD_EXCLUSIVE_KERNEL with bash's =~ against the kernel's release; Kbuild
	# refuses by VERSION.PATCHLEVEL.SUBLEVEL. Both must take the same kernels.
	local re rel v p s out refused excluded bad=0
	re=$(conf BUILD_EXCLUSIVE_KERNEL)
	[ -n "$re" ] || { echo "no BUILD_EXCLUSIVE_KERNEL"; return 1; }
	for rel in 6.1.0-28-amd64 6.6.63 6.12.0 6.12.9 6.12.28 6.12.29 6.12.30 6.12.99 6.12.117 \
		6.12.29+deb13-amd64 6.12.3-rt 6.13.0 6.13.12 6.14.11 6.15.0 6.15.9 6.19.2 6.20.1 \
		6.100.0 7.0.0 7.4.1-arch1 10.1.0; do
		IFS=.- read -r v p s _ <<<"$rel"
		s=${s%%[!0-9]*}
		refused=no
		# make fails either way here (no kernel tree): its message says whether Kbuild refused.
		out=$(make -s -f Kbuild -n VERSION="$v" PATCHLEVEL="$p" SUBLEVEL="$s" 2>&1)
		grep -q 'needs Linux' <<<"$out" && refused=yes
		excluded=yes
		[[ $rel =~ $re ]] && excluded=no
		[ "$refused" = "$excluded" ] || { echo "$rel: Kbuild refuses: $refused, DKMS skips: $excluded"; bad=1; }
	done
	return "$bad"
}
check "make dkms-add stages the module's sources only" dkms_sources_complete
check "dkms.conf: BUILD_EXCLUSIVE_KERNEL skips exactly the kernels Kbuild refuses" dkms_kernels_as_kbuild
check "pkg/THIRD-PARTY-LICENSES is the crates' notices for this Cargo.lock (pkg/third-party-licenses.py)" \
	python3 pkg/third-party-licenses.py --check pkg/THIRD-PARTY-LICENSES

# --- the module's toolchain: the kernel's own rustc, bindgen, LLVM ---------------------------
# A fake kernel tree whose Makefile prints what kbuild was given, instead of building.
fake_kdir() { # DIR VERSION_TEXT
	mkdir -p "$1/include/config"
	printf 'CONFIG_RUST=y\nCONFIG_CC_IS_CLANG=y\nCONFIG_RUSTC_VERSION_TEXT="%s"\n' "$2" >"$1/.config"
	# 6.12 writes strings to auto.conf unquoted.
	printf 'CONFIG_RUST=y\nCONFIG_RUSTC_VERSION_TEXT=%s\n' "$2" >"$1/include/config/auto.conf"
	printf 'modules:\n\t@echo "kbuild: RUSTC=$(RUSTC) BINDGEN=$(BINDGEN) LLVM=$(LLVM) M=$(M) RUSTUP_TOOLCHAIN=$$RUSTUP_TOOLCHAIN"\n\t@$(RUSTC) --version\n' >"$1/Makefile"
}
# Stand-in rustup with two installed toolchains, 1.95.0 and 1.85.0, each with a rustc that
# prints its version text and sysroot: the picking logic without downloading a toolchain.
fakebin=$tmp/fakebin
mkdir -p "$fakebin"
for t in 1.95.0 1.85.0; do
	d=$tmp/rustup/toolchains/$t-x86_64-unknown-linux-gnu
	mkdir -p "$d/bin"
	printf '#!/bin/sh\ncase "$1" in --version) echo "rustc %s (fake0000 2025-01-01)" ;; --print) echo "%s" ;; esac\n' "$t" "$d" >"$d/bin/rustc"
	chmod +x "$d/bin/rustc"
done
tc_dir=$tmp/rustup/toolchains
cat >"$fakebin/rustup" <<EOF
#!/bin/sh
case "\$1 \$2" in
"toolchain list") printf '1.95.0-x86_64-unknown-linux-gnu (default)\n1.85.0-x86_64-unknown-linux-gnu\n' ;;
"which --toolchain")
	for d in "$tc_dir/\$3-x86_64-unknown-linux-gnu" "$tc_dir/\$3"; do
		[ -x "\$d/bin/rustc" ] && echo "\$d/bin/rustc" && exit 0
	done
	echo "no toolchain \$3" >&2; exit 1 ;;
*) echo "fake rustup: \$*" >&2; exit 1 ;;
esac
EOF
chmod +x "$fakebin/rustup"
# mk ARGS...: make module seeing the stand-in rustup, no RUSTC or RUSTUP_TOOLCHAIN unless given.
mk() { env -u RUSTC -u RUSTUP_TOOLCHAIN PATH="$fakebin:$PATH" make -s --no-print-directory module "$@" 2>&1; }

refuses_without_rust() {
	mkdir -p "$tmp/k-norust"
	echo '# CONFIG_RUST is not set' >"$tmp/k-norust/.config"
	local out
	out=$(make -s module KDIR="$tmp/k-norust" 2>&1) && return 1
	grep -q 'was built without CONFIG_RUST=y' <<<"$out" || { echo "$out"; return 1; }
}
names_the_rustc_to_install() {
	fake_kdir "$tmp/k-old" "rustc 1.80.1 (3f5fd8dd4 2024-08-06)"
	local out
	out=$(mk KDIR="$tmp/k-old") && { echo "$out"; return 1; }
	echo "$out"
	grep -q "was built with 'rustc 1.80.1 (3f5fd8dd4 2024-08-06)', and no rustc of that version is installed" <<<"$out" &&
		grep -q 'rustup toolchain install 1.80.1 --profile minimal' <<<"$out" &&
		! grep -q '^kbuild:' <<<"$out"
}
picks_the_second_toolchain() {
	fake_kdir "$tmp/k-185" "rustc 1.85.0 (fake0000 2025-01-01)"
	local out
	out=$(mk KDIR="$tmp/k-185") || { echo "$out"; return 1; }
	echo "$out"
	grep -qF "with rustc 1.85.0 (fake0000 2025-01-01) (rustup toolchain 1.85.0-x86_64-unknown-linux-gnu)" <<<"$out" &&
		grep -qx "kbuild: RUSTC=$tc_dir/1.85.0-x86_64-unknown-linux-gnu/bin/rustc BINDGEN=.* LLVM=1 M=$PWD RUSTUP_TOOLCHAIN=1.85.0-x86_64-unknown-linux-gnu" <<<"$out" &&
		grep -qx 'rustc 1.85.0 (fake0000 2025-01-01)' <<<"$out"
}
given_toolchain_reaches_kbuild() {
	# From the environment and from the command line alike.
	local out1 out2 out
	out1=$(RUSTUP_TOOLCHAIN=1.85.0 PATH="$fakebin:$PATH" make -s --no-print-directory module KDIR="$tmp/k-185" 2>&1) || { echo "$out1"; return 1; }
	out2=$(mk KDIR="$tmp/k-185" RUSTUP_TOOLCHAIN=1.85.0) || { echo "$out2"; return 1; }
	for out in "$out1" "$out2"; do
		grep -qF '(RUSTUP_TOOLCHAIN=1.85.0)' <<<"$out" &&
			grep -qx 'kbuild: RUSTC=.*/1.85.0-x86_64-unknown-linux-gnu/bin/rustc .*RUSTUP_TOOLCHAIN=1.85.0' <<<"$out" ||
			{ echo "$out"; return 1; }
	done
	# A given toolchain that is not the kernel's is refused, naming both.
	out=$(mk KDIR="$tmp/k-185" RUSTUP_TOOLCHAIN=1.95.0) && return 1
	grep -qF "built with 'rustc 1.85.0 (fake0000 2025-01-01)' but rustup toolchain 1.95.0 is 'rustc 1.95.0 (fake0000 2025-01-01)'" <<<"$out" ||
		{ echo "$out"; return 1; }
}
given_rustc_reaches_kbuild() {
	local r=$tc_dir/1.85.0-x86_64-unknown-linux-gnu/bin/rustc out1 out2 out
	out1=$(RUSTC=$r PATH="$fakebin:$PATH" make -s --no-print-directory module KDIR="$tmp/k-185" 2>&1) || { echo "$out1"; return 1; }
	out2=$(mk KDIR="$tmp/k-185" RUSTC="$r") || { echo "$out2"; return 1; }
	for out in "$out1" "$out2"; do
		grep -qF "(RUSTC=$r)" <<<"$out" && grep -q "^kbuild: RUSTC=$r " <<<"$out" || { echo "$out"; return 1; }
	done
	out=$(mk KDIR="$tmp/k-old" RUSTC="$r") && return 1
	grep -qF "built with 'rustc 1.80.1 (3f5fd8dd4 2024-08-06)' but RUSTC=$r is 'rustc 1.85.0" <<<"$out" || { echo "$out"; return 1; }
}
bindgen_checked() {
	local out
	out=$(mk KDIR="$tmp/k-185" BINDGEN=/nonexistent/bindgen) && return 1
	grep -qF 'bindgen not found (/nonexistent/bindgen)' <<<"$out" && grep -q 'cargo install --locked bindgen-cli' <<<"$out" ||
		{ echo "$out"; return 1; }
	printf '#!/bin/sh\necho "bindgen 0.60.1"\n' >"$fakebin/old-bindgen" && chmod +x "$fakebin/old-bindgen"
	out=$(mk KDIR="$tmp/k-185" BINDGEN=old-bindgen) && return 1
	grep -qF "is bindgen '0.60.1', older than the kernel's minimum 0.65.1" <<<"$out" || { echo "$out"; return 1; }
}
compiler_checked() {
	# A PATH with everything make module needs but clang: the kernel's compiler is named.
	local nc=$tmp/noclang t out
	mkdir -p "$nc"
	for t in sh bash sed head awk sort date mktemp rm cat basename dirname cut id env tr grep \
		bindgen ld.lld; do
		ln -sf "$(command -v "$t")" "$nc/$t"
	done
	out=$(env -u RUSTC -u RUSTUP_TOOLCHAIN PATH="$fakebin:$nc" "$(command -v bash)" pkg/module-toolchain.sh "$tmp/k-185" 2>&1) && { echo "$out"; return 1; }
	grep -qF "was built with clang" <<<"$out" && grep -qF 'but clang is not installed (Debian: apt install clang lld llvm)' <<<"$out" ||
		{ echo "$out"; return 1; }
}
build_conf_for_dkms() {
	# Root under DKMS sees no user environment: /etc/ecnsharp/build.conf can name the rustc.
	local out
	echo "RUSTUP_TOOLCHAIN=1.85.0" >"$tmp/build.conf"
	out=$(ECNSHARP_BUILD_CONF=$tmp/build.conf mk KDIR="$tmp/k-185") || { echo "$out"; return 1; }
	grep -qF '(RUSTUP_TOOLCHAIN=1.85.0)' <<<"$out" || { echo "$out"; return 1; }
}
build_conf_homes_reach_rustup() {
	# A system-wide rustup (RUSTUP_HOME in build.conf) is found: the file's variables are
	# exported to rustup, which here lists its toolchains only under that RUSTUP_HOME.
	local fb=$tmp/fakebin-home out
	mkdir -p "$fb"
	printf '#!/bin/sh\n[ "$RUSTUP_HOME" = %s ] || { echo "no toolchains here" >&2; exit 1; }\nexec %s "$@"\n' \
		"$tmp/rustup-home" "$fakebin/rustup" >"$fb/rustup"
	chmod +x "$fb/rustup"
	printf 'RUSTUP_HOME=%s\n' "$tmp/rustup-home" >"$tmp/build-home.conf"
	out=$(env -u RUSTUP_HOME -u RUSTC -u RUSTUP_TOOLCHAIN ECNSHARP_BUILD_CONF="$tmp/build-home.conf" \
		PATH="$fb:$fakebin:$PATH" make -s --no-print-directory module KDIR="$tmp/k-185" 2>&1) || { echo "$out"; return 1; }
	grep -qF '(rustup toolchain 1.85.0-x86_64-unknown-linux-gnu)' <<<"$out" || { echo "$out"; return 1; }
}
without_home() {
	# DKMS under a service without HOME: the build goes on (HOME from passwd).
	local out
	out=$(env -u HOME -u RUSTC -u RUSTUP_TOOLCHAIN PATH="$fakebin:$PATH" make -s --no-print-directory module KDIR="$tmp/k-185" 2>&1) ||
		{ echo "$out"; return 1; }
	grep -qF '(rustup toolchain 1.85.0-x86_64-unknown-linux-gnu)' <<<"$out" || { echo "$out"; return 1; }
}
make_without_kernel_builds_tools() {
	# `make` with no kernel tree: the tools (cargo stood in by `true`), then how to get the module.
	local bin=$tmp/tools out
	mkdir -p "$bin"
	printf '#!/bin/sh\necho "# completion $2"\n' >"$bin/ecnsharp-tc" && chmod +x "$bin/ecnsharp-tc"
	out=$(make --no-print-directory KDIR="$tmp/nothing" CARGO=true TOOLS_DIR="$bin" 2>&1) || { echo "$out"; return 1; }
	grep -qF "note: built the tools only: $tmp/nothing is no kernel build tree" <<<"$out" &&
		grep -qF 'make module KDIR=' <<<"$out" && [ -s "$bin/completions/ecnsharp-tc.bash" ] || { echo "$out"; return 1; }
	out=$(make --no-print-directory KDIR="$tmp/k-norust" CARGO=true TOOLS_DIR="$bin" 2>&1) || { echo "$out"; return 1; }
	grep -q "is a kernel built without CONFIG_RUST" <<<"$out" || { echo "$out"; return 1; }
	# Not `make help | grep -q`: grep leaving early makes make's write fail (pipefail).
	grep -q '^  make tools ' <<<"$(make -s help)" || { echo "make help does not list make tools"; return 1; }
}
check "make module refuses a kernel without CONFIG_RUST" refuses_without_rust
check "make module names the kernel's rustc and the command that installs it" names_the_rustc_to_install
check "make module picks the installed toolchain that built the kernel, and kbuild gets it" picks_the_second_toolchain
check "RUSTUP_TOOLCHAIN from the environment or the command line reaches kbuild; another is refused" given_toolchain_reaches_kbuild
check "RUSTC from the environment or the command line reaches kbuild; another is refused" given_rustc_reaches_kbuild
check "make module checks bindgen: missing, or older than the kernel's minimum" bindgen_checked
check "make module checks the kernel's compiler: clang and lld for a clang-built kernel" compiler_checked
check "/etc/ecnsharp/build.conf (ECNSHARP_BUILD_CONF) names a toolchain for DKMS" build_conf_for_dkms
check "build.conf's RUSTUP_HOME reaches rustup (a system-wide rustup)" build_conf_homes_reach_rustup
check "make module runs without HOME (DKMS under a service), HOME from passwd" without_home
check "make with no Rust kernel tree builds the tools and says how to build the module" make_without_kernel_builds_tools

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
	out=$(make -n install TOOLS_DIR="$art" MODULE="$art/sch_ecnsharp.ko" KVER=x DESTDIR="$stage") ||
		{ echo "make -n install failed: $out"; return 1; }
	# It does install (an empty or other recipe would pass the test below).
	grep -q 'pkg/install.sh' <<<"$out" || { echo "no pkg/install.sh in: $out"; return 1; }
	! grep -qE 'cargo|rustc|modules_install|\$\(MAKE\) -C' <<<"$out" || { echo "$out"; return 1; }
}
install_needs_make_first() {
	local out
	out=$(make -s install DESTDIR="$stage" TOOLS_DIR="$tmp/nothing" INSTALL_MODULE=0 2>&1) && return 1
	grep -q "run 'make' first" <<<"$out" || { echo "$out"; return 1; }
	out=$(make -s install DESTDIR="$stage" MODULE="$tmp/nothing.ko" 2>&1) && return 1
	grep -q "not built: run 'make' first" <<<"$out" || { echo "$out"; return 1; }
	[ ! -e "$stage" ] || { echo "something was copied"; find "$stage"; return 1; }
	# A module whose kernel release cannot be told (not a module: modinfo fails) and no KVER:
	# refused before anything is copied (the module would go to /lib/modules//updates).
	out=$(make -s install DESTDIR="$stage" TOOLS_DIR="$art" MODULE="$art/sch_ecnsharp.ko" 2>&1) && return 1
	grep -q "cannot tell the kernel release" <<<"$out" || { echo "$out"; return 1; }
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
		/usr/local/share/bash-completion/completions/ecnsharp-tc \
		/usr/local/include/linux/pkt_sched_ecnsharp.h /usr/local/share/doc/ecnsharp-tools/configuration.md; do
		[ -f "$stage$f" ] || { echo "missing $f"; return 1; }
	done
	[ -x "$stage/usr/local/bin/ecnsharp-tc" ] && [ "$(stat -c %a "$stage/opt/tc-test/q_ecnsharp.so")" = 644 ] &&
		grep -qx 'depmod 6.12.0-test' "$m"
}
reinstall_keeps_records() {
	# A second install without the module must still let uninstall remove the first one's.
	inst install INSTALL_MODULE=0 >/dev/null &&
		grep -qE 'updates/sch_ecnsharp\.ko( |$)' "$stage/usr/local/share/ecnsharp/manifest"
}
dkms_add_refuses_installed_module() {
	# The manifest still lists the module (reinstall_keeps_records): DKMS would leave it in place.
	local out
	out=$(make -s dkms-add DESTDIR="$stage" PREFIX=/usr/local 2>&1) && { echo "$out"; return 1; }
	grep -qF "run 'sudo make uninstall' first" <<<"$out" && [ ! -e "$stage/usr/src" ] || { echo "$out"; return 1; }
}
dkms_remove_leaves_package_sources() {
	# Sources a Debian package owns (a stand-in dpkg-query says so) are apt's to remove. A
	# version no install has, so that nothing real is touched if the guard failed.
	local fb=$tmp/fake-dpkg-src out
	mkdir -p "$fb"
	printf '#!/bin/sh\necho "ecnsharp-dkms: $2"\n' >"$fb/dpkg-query" && chmod +x "$fb/dpkg-query"
	local t
	for t in dkms-remove dkms-add; do
		out=$(PATH="$fb:$PATH" make -s $t VERSION=0.0.0-pkgcheck 2>&1) && { echo "$out"; return 1; }
		grep -qF 'belongs to the package ecnsharp-dkms: use apt (apt remove ecnsharp-dkms)' <<<"$out" ||
			{ echo "$t: $out"; return 1; }
	done
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
check "make install without built artifacts, or without the module's kernel release, fails before copying anything" install_needs_make_first
check "make install DESTDIR=...: every file listed in the manifest, nothing else" installs_the_manifest
check "make install again keeps what the first install recorded" reinstall_keeps_records
check "make dkms-add refuses while make install's module is in place" dkms_add_refuses_installed_module
check "make dkms-add and dkms-remove leave sources a Debian package owns to apt" dkms_remove_leaves_package_sources
check "make uninstall DESTDIR=...: nothing left, and a second uninstall is a no-op" uninstall_leaves_nothing
uninstall_names_the_prefix() {
	# An install with PREFIX=/usr, an uninstall with the default PREFIX: fails, naming /usr.
	local out
	rm -rf "$stage"
	inst install PREFIX=/usr >/dev/null || return 1
	out=$(inst uninstall 2>&1) && { echo "$out"; return 1; }
	grep -qF 'no install with PREFIX=/usr/local' <<<"$out" && grep -qF 'make uninstall PREFIX=/usr ' <<<"$out" ||
		{ echo "$out"; return 1; }
	inst uninstall PREFIX=/usr >/dev/null && [ -z "$(ls -A "$stage")" ]
}
uninstall_finds_any_prefix() {
	# A real install (no DESTDIR) is recorded; uninstall at another prefix names it, whatever it is.
	local reg=$tmp/var/lib/ecnsharp p=$tmp/anywhere/opt/tools out
	ECNSHARP_REGISTRY_DIR=$reg pkg/install.sh install "$p/share/ecnsharp/manifest" \
		"0644:$art/ecnsharp-tc:$p/bin/ecnsharp-tc" >/dev/null || return 1
	grep -qx "$p/share/ecnsharp/manifest" "$reg/manifests" || { echo "not recorded"; return 1; }
	out=$(ECNSHARP_REGISTRY_DIR=$reg pkg/install.sh uninstall "$tmp/elsewhere/share/ecnsharp/manifest" 2>&1) && return 1
	grep -qF "make uninstall PREFIX=$p " <<<"$out" || { echo "$out"; return 1; }
	# The registry goes, and the directories made for it (here $tmp/var/lib and $tmp/var).
	ECNSHARP_REGISTRY_DIR=$reg pkg/install.sh uninstall "$p/share/ecnsharp/manifest" >/dev/null &&
		[ ! -e "$tmp/var" ] && [ ! -e "$p/bin/ecnsharp-tc" ]
}
uninstall_keeps_others_files() {
	# After the install, one file changed and dpkg claims another (a stand-in dpkg-query):
	# both stay, the third goes. A manifest of before the sums (no fourth field) still removes.
	local reg=$tmp/reg-keep p=$tmp/keep fb=$tmp/fake-dpkg out
	mkdir -p "$fb"
	printf '#!/bin/sh\n[ "$2" = %s ] && echo "ecnsharp-tools: $2"\n' "$p/lib/q_ecnsharp.so" >"$fb/dpkg-query"
	chmod +x "$fb/dpkg-query"
	ECNSHARP_REGISTRY_DIR=$reg pkg/install.sh install "$p/share/ecnsharp/manifest" \
		"0755:$art/ecnsharp-tc:$p/bin/ecnsharp-tc" "0644:$art/libq_ecnsharp.so:$p/lib/q_ecnsharp.so" \
		"0644:$art/completions/_ecnsharp-tc:$p/zsh/_ecnsharp-tc" >/dev/null || return 1
	echo "another build" >"$p/bin/ecnsharp-tc"
	out=$(PATH="$fb:$PATH" ECNSHARP_REGISTRY_DIR=$reg pkg/install.sh uninstall "$p/share/ecnsharp/manifest") ||
		{ echo "$out"; return 1; }
	[ -f "$p/bin/ecnsharp-tc" ] && [ -f "$p/lib/q_ecnsharp.so" ] && [ ! -e "$p/zsh" ] &&
		[ "$(grep -c '^keep ' <<<"$out")" = 2 ] || { echo "$out"; find "$p"; return 1; }
	mkdir -p "$tmp/old/share/ecnsharp" "$tmp/old/bin" && echo x >"$tmp/old/bin/tool"
	echo "file 0755 /bin/tool" >"$tmp/old/share/ecnsharp/manifest"
	DESTDIR=$tmp/old pkg/install.sh uninstall /share/ecnsharp/manifest >/dev/null && [ ! -e "$tmp/old/bin/tool" ]
}
debian_install_lists() {
	# debian/rules stages with make install; the .install files must claim every staged file
	# (but the manifest, the uninstall script and LICENSE, which rules deletes) and each match one.
	local d=$tmp/debian-stage pattern f claimed
	make -s install DESTDIR="$d" TOOLS_DIR="$art" PREFIX=/usr INSTALL_MODULE=0 \
		TC_LIB_DIR=/usr/lib/x86_64-linux-gnu/tc BASH_COMPLETION_COMPAT_DIR=/etc/bash_completion.d \
		ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions \
		FISH_COMPLETION_DIR=/usr/share/fish/vendor_completions.d >/dev/null || return 1
	rm -r "$d/usr/share/ecnsharp" "$d/usr/share/doc/ecnsharp-tools/LICENSE"
	claimed=$tmp/claimed
	: >"$claimed"
	for pattern in $(grep -hv '^#' debian/*.install); do
		compgen -G "$d/${pattern%/}" >/dev/null || { echo "debian: $pattern matches nothing staged"; return 1; }
		for f in $(compgen -G "$d/${pattern%/}"); do
			if [ -d "$f" ]; then find "$f" -type f; else echo "$f"; fi
		done >>"$claimed"
	done
	# shellcheck disable=SC2044 # the staged paths are the package's own, without spaces
	for f in $(find "$d" -type f); do
		grep -qx "$f" "$claimed" || { echo "staged but in no package: ${f#"$d"}"; return 1; }
	done
}
check "make uninstall leaves files it did not install" uninstall_keeps_foreign_files
check "make uninstall keeps a file changed since, or one a Debian package owns; old manifests still work" uninstall_keeps_others_files
check "debian/*.install claim every file make install stages for the packages" debian_install_lists
check "make uninstall with another PREFIX than the install's fails, naming the install's" uninstall_names_the_prefix
check "uninstall finds a recorded install at any prefix; the record goes with it" uninstall_finds_any_prefix

# --- licensing -------------------------------------------------------------------------------
# Files that carry no SPDX line, and why: documentation and data, covered by LICENSE and
# debian/copyright as a whole; the kernels' config fragments and patches are hashed into the
# kernel cache's key, so a line there would rebuild every cached kernel; tdc's test cases are
# JSON, which has no comments; pkg/THIRD-PARTY-LICENSES is other projects' licence texts.
# Everything else tracked says its license at its top.
spdx_exempt='^(COPYING|LICENSE|LICENSES/.*|pkg/THIRD-PARTY-LICENSES|debian/(changelog|copyright|source/format))$|\.md(\.in)?$|^docs/results/|Cargo\.lock$|/proptest-regressions/|/testdata/|^tests/vm/kernel(-debug)?\.config$|^tests/uml/(kernel\.config|[^/]*\.patch)$|^tests/tdc/[^/]*\.json$'
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

tap_finish packaging
