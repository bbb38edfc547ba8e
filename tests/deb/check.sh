#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# deb/check.sh: the Debian packages end to end (TAP): `make deb` (tests skipped: make check ran
# them), lintian without an error, each package's contents, DKMS building the module from
# ecnsharp-dkms's own sources against the bench kernel (and skipping a kernel without
# CONFIG_RUST), then the VM guest installing all three packages with dpkg, running their
# maintainer scripts (dkms add/remove), adding an ecnsharp qdisc through the installed tc
# plugin and ecnsharp-tc, and removing them (tests/deb/guest.sh). About 2 minutes once cargo's
# and the kernel's caches are warm.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/lib.sh

. tests/tap-cases.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
finish() { tap_finish deb; }

version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
debs=target/deb
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
tools=$debs/ecnsharp-tools_${version}_$arch.deb
dev=$debs/ecnsharp-dev_${version}_all.deb
dkms_deb=$debs/ecnsharp-dkms_${version}_all.deb

build() {
	rm -f "$debs"/*.deb
	start=$(date +%s)
	DEB_BUILD_OPTIONS=nocheck make -s deb >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; return 1; }
	echo "# make deb: $(($(date +%s) - start)) s"
	[ -f "$tools" ] && [ -f "$dev" ] && [ -f "$dkms_deb" ]
}
if out_build=$(build 2>&1); then
	ok "make deb builds ecnsharp-tools, ecnsharp-dev and ecnsharp-dkms"
	grep '^# ' <<<"$out_build"
else
	not_ok "make deb builds ecnsharp-tools, ecnsharp-dev and ecnsharp-dkms" "$out_build"
	finish
fi

lintian_clean() {
	local report
	report=$(lintian --fail-on error "$debs/ecnsharp_${version}_$arch.changes" 2>&1) || { echo "$report"; return 1; }
	echo "$report"
	! grep -q '^E: ' <<<"$report"
}
check "lintian: no error in any package" lintian_clean

# contains DEB PATH...: the package holds each PATH.
contains() {
	local deb=$1 list p
	shift
	list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's:^\./:/:')
	for p in "$@"; do
		grep -qx -- "$p" <<<"$list" || { echo "$deb lacks $p"; return 1; }
	done
}
tools_contents() {
	# tc's plugin where this host's tc looks for it (pkg/tc-lib-dir.sh asks tc itself).
	local tc_dir
	tc_dir=$(env -u TC_LIB_DIR pkg/tc-lib-dir.sh)
	[ "$tc_dir" = "/usr/lib/$multiarch/tc" ] || { echo "tc looks in $tc_dir"; return 1; }
	contains "$tools" /usr/bin/ecnsharp-tc "$tc_dir/q_ecnsharp.so" /usr/share/man/man8/tc-ecnsharp.8.gz \
		/usr/share/man/man8/ecnsharp-tc.8.gz /usr/share/bash-completion/completions/ecnsharp-tc \
		/etc/bash_completion.d/tc-ecnsharp /usr/share/zsh/vendor-completions/_ecnsharp-tc \
		/usr/share/fish/vendor_completions.d/ecnsharp-tc.fish /usr/share/doc/ecnsharp-tools/copyright \
		/usr/share/doc/ecnsharp-tools/tuning.md.gz /usr/share/doc/ecnsharp-tools/configuration.md.gz \
		/usr/share/doc/ecnsharp-tools/THIRD-PARTY-LICENSES.gz &&
		! dpkg-deb -c "$tools" | grep -E 'share/ecnsharp/(manifest|install.sh)'
}
dev_contents() { contains "$dev" /usr/include/linux/pkt_sched_ecnsharp.h; }
dkms_contents() {
	local src=/usr/src/ecnsharp-$version
	contains "$dkms_deb" "$src/dkms.conf" "$src/Makefile" "$src/Kbuild" "$src/pkg/module-toolchain.sh" \
		"$src/kmod/module/shim.c" "$src/kmod/src/lib.rs" || return 1
	! dpkg-deb -c "$dkms_deb" | grep -E 'rust-toolchain.toml|/target/|tc-helper' &&
		[ "$(dpkg-deb -f "$dkms_deb" Depends)" != "" ] && dpkg-deb -f "$dkms_deb" Depends | grep -q dkms
}
check "ecnsharp-tools: ecnsharp-tc, the plugin in tc's directory, man pages, completions, documents" tools_contents
check "ecnsharp-dev: <linux/pkt_sched_ecnsharp.h>" dev_contents
check "ecnsharp-dkms: the module's sources and dkms.conf, depends on dkms" dkms_contents

# DKMS, with trees of its own (nothing of the host's DKMS state is touched), from the package.
kdir=$(tests/vm/build-kernel.sh default 2>/dev/null)
kver=$(cat "$kdir/include/config/kernel.release" 2>/dev/null)
dk=$tmp/dkms
dkms_() { dkms "$@" --sourcetree "$dk/root/usr/src" --dkmstree "$dk/tree" --installtree "$dk/install"; }
dkms_builds() {
	mkdir -p "$dk/tree" "$dk/install" && dpkg-deb -x "$dkms_deb" "$dk/root" || return 1
	dkms_ add -m ecnsharp -v "$version" || return 1
	dkms_ build -m ecnsharp -v "$version" -k "$kver" --kernelsourcedir "$kdir" ||
		{ cat "$dk/tree/ecnsharp/$version/build/make.log"; return 1; }
	ko=$dk/tree/ecnsharp/$version/$kver/x86_64/module/sch_ecnsharp.ko
	[ -f "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ]
}
dkms_skips_plain_kernel() {
	# A release Kbuild would take (6.15): only the missing CONFIG_RUST excludes it.
	mkdir -p "$tmp/plain" && echo '# CONFIG_RUST is not set' >"$tmp/plain/.config"
	local out rc
	out=$(dkms_ build -m ecnsharp -v "$version" -k 6.15.0-plain --kernelsourcedir "$tmp/plain" 2>&1)
	rc=$?
	echo "$out"
	[ "$rc" -eq 77 ] && grep -q 'BUILD_EXCLUSIVE' <<<"$out"
}
dkms_skips_refused_release() {
	# A Rust kernel Kbuild refuses (6.13): a skip, where a build would fail the kernel's postinst.
	mkdir -p "$tmp/k613" && echo 'CONFIG_RUST=y' >"$tmp/k613/.config"
	local out rc
	out=$(dkms_ build -m ecnsharp -v "$version" -k 6.13.0-rust --kernelsourcedir "$tmp/k613" 2>&1)
	rc=$?
	echo "$out"
	[ "$rc" -eq 77 ] && grep -q 'BUILD_EXCLUSIVE' <<<"$out"
}
if [ -z "$kver" ]; then
	not_ok "the bench kernel builds or is cached (tests/vm/build-kernel.sh default)"
	finish
fi
check "dkms builds sch_ecnsharp.ko for the bench kernel ($kver) from ecnsharp-dkms's sources" dkms_builds
check "dkms skips a kernel without CONFIG_RUST (BUILD_EXCLUSIVE_CONFIG, status 77)" dkms_skips_plain_kernel
check "dkms skips a Rust kernel Kbuild refuses, 6.13 (BUILD_EXCLUSIVE_KERNEL, status 77)" dkms_skips_refused_release
ko=$dk/tree/ecnsharp/$version/$kver/x86_64/module/sch_ecnsharp.ko
[ -f "$ko" ] || finish

# What the guest needs to run dpkg and dkms: their binaries and libraries, as tar, and a dpkg
# database declaring the packages the guest really has (the host's libc and tc are its own).
bundle() {
	local root=$tmp/bundle f lib
	mkdir -p "$root"
	for f in /usr/bin/dpkg /usr/bin/dpkg-deb /usr/bin/dpkg-split /usr/bin/tar /usr/bin/dpkg-query /usr/bin/dpkg-trigger /usr/sbin/start-stop-daemon \
		/sbin/ldconfig /bin/bash /usr/sbin/dkms /usr/lib/dkms/common.postinst /etc/dkms/framework.conf; do
		[ -e "$f" ] || { echo "missing $f"; return 1; }
		mkdir -p "$root$(dirname "$f")" && cp -L "$f" "$root$f"
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
		done
	done
	# Stand-ins with no Depends: what those packages depend on is not dpkg's business here.
	dpkg-query -W -f='Package: ${Package}\nStatus: install ok installed\nPriority: optional\nSection: ${Section}\nMaintainer: ${Maintainer}\nArchitecture: ${Architecture}\nMulti-Arch: ${Multi-Arch}\nVersion: ${Version}\nDescription: the host'"'"'s, in the guest\n\n' \
		libc6 libgcc-s1 iproute2 dkms | sed '/^Multi-Arch: $/d' >"$tmp/status" || return 1
	tar -C "$root" -cf "$tmp/tools-for-guest.tar" .
}
check "dpkg and dkms bundled for the guest" bundle || finish

# The guest: no module loaded at boot (the DKMS-built one is loaded by the script), the bench's
# own plugin and ecnsharp-tc removed before the packages go in.
guest() {
	tests/vm/run-in-vm --no-module --timeout 600 --file "$tools" --file "$dev" --file "$dkms_deb" \
		--file "$ko" --file "$tmp/tools-for-guest.tar" --file "$tmp/status" tests/deb/guest.sh \
		"$(basename "$tools")" "$(basename "$dev")" "$(basename "$dkms_deb")" "/usr/lib/$multiarch/tc"
}
guest >"$tmp/guest.log" 2>&1
rc=$?
# The guest's whole console, for a failure's post-mortem.
cp "$tmp/guest.log" "$debs/guest.log"
while IFS= read -r line; do
	case "$line" in
	"ok "*) ok "guest: ${line#ok * - }" ;;
	"not ok "*) not_ok "guest: ${line#not ok * - }" ;;
	*) echo "$line" ;;
	esac
done < <(tr -d '\r' <"$tmp/guest.log" | grep -E '^(ok|not ok) [0-9]+ - |^# ')
if [ "$rc" -ne 0 ] || ! grep -qE '^ok [0-9]+ - ' "$tmp/guest.log"; then
	not_ok "the guest's run passed (run-in-vm exit $rc; console in $debs/guest.log)" "$(tail -n 30 "$tmp/guest.log")"
fi
finish
