#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# mkinitramfs.sh OUT.cpio.gz [MODULE.ko] [TOOLS_DIR] [tdc]: the guest's base initramfs:
# busybox-static, the real iproute2 ip/tc (busybox's applets of the same name lack most of tc),
# iperf3, ethtool, jq with their shared libraries, the guest init, the module and the project's
# binaries, and make install's staged tree in /stage. With "tdc", also python3 with its standard
# library and the kernel tree's own tc-testing (tdc.py) in /usr/share/tc-testing, for the tdc
# suite (about 8 MB more, compressed).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
module=${2:-}
tools=${3:-}
tdc=${4:-}
need cpio gzip ldd
# Debian's busybox-static: a dynamic busybox would need its libraries before /lib exists.
busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox missing: run tests/vm/deps.sh (package busybox-static)"
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is dynamically linked: install busybox-static"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,etc,root,var/run,test,lib/modules/ecnsharp}
cp "$busybox" "$root/bin/busybox"
# Applet links for everything but ip and tc: iproute2 owns those names (guest scripts still call
# them by path, because busybox ash prefers its own applets to PATH).
for applet in $("$root/bin/busybox" --list); do
	case "$applet" in ip | tc | ss | busybox) continue ;; esac
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# Copy a binary and the shared libraries it needs.
add_bin() {
	local bin=$1 dest=$2 lib
	[ -x "$bin" ] || die "$bin missing: run tests/vm/deps.sh"
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$bin" "$root$dest"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
add_bin /usr/sbin/ip /usr/sbin/ip
add_bin /usr/sbin/tc /usr/sbin/tc
add_bin /usr/bin/ss /usr/bin/ss
add_bin /usr/bin/iperf3 /usr/bin/iperf3
add_bin /usr/sbin/ethtool /usr/sbin/ethtool
add_bin /usr/bin/jq /usr/bin/jq
# tc's own library directory: distribution tables for netem, and where q_ecnsharp.so goes.
if [ -d /usr/lib/x86_64-linux-gnu/tc ]; then
	mkdir -p "$root/usr/lib/x86_64-linux-gnu/tc"
	cp -a /usr/lib/x86_64-linux-gnu/tc/. "$root/usr/lib/x86_64-linux-gnu/tc/"
fi
mkdir -p "$root/etc/iproute2"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
: >"$root/etc/resolv.conf"

if [ -n "$module" ]; then
	cp "$module" "$root/lib/modules/ecnsharp/"
fi
if [ -n "$tools" ] && [ -d "$tools" ]; then
	for t in "$tools"/*; do
		[ -f "$t" ] || continue
		case "$t" in
		*.so) cp "$t" "$root/usr/lib/x86_64-linux-gnu/tc/" ;;
		# make install's staged tree (DESTDIR), for the install suite.
		*.tar) mkdir -p "$root/stage" && tar -C "$root/stage" -xf "$t" ;;
		*) add_bin "$t" "/usr/local/bin/$(basename "$t")" ;;
		esac
	done
fi
if [ "$tdc" = tdc ]; then
	py=$(readlink -f /usr/bin/python3)
	pylib=/usr/lib/$(basename "$py")
	[ -x "$py" ] && [ -d "$pylib" ] || die "python3 and its standard library are missing: run tests/vm/deps.sh"
	add_bin "$py" /usr/bin/python3
	mkdir -p "$root$pylib"
	# The standard library without its tests, build configuration and tools tdc does not use.
	tar -C "$pylib" --exclude=./test --exclude='./config-*' --exclude=./lib2to3 --exclude=./idlelib \
		--exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip --exclude=./pydoc_data \
		--exclude=./distutils --exclude=./site-packages --exclude=./dist-packages -cf - . |
		tar -C "$root$pylib" -xf -
	for so in "$pylib"/lib-dynload/*.so; do
		for lib in $(ldd "$so" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
	# pyroute2 (Debian's python3-pyroute2), which tdc's nsPlugin uses to make each case's
	# namespace and devices before it goes on; without it nsPlugin feeds them to a background
	# "ip -b -" and does not wait for the devices (a case's setup then races them).
	[ -d /usr/lib/python3/dist-packages/pyroute2 ] ||
		die "python3-pyroute2 is missing: run tests/vm/deps.sh"
	mkdir -p "$root/usr/lib/python3/dist-packages"
	cp -a /usr/lib/python3/dist-packages/pyroute2 "$root/usr/lib/python3/dist-packages/"
	ksrc=$(kernel_source_dir)
	[ -f "$ksrc/tools/testing/selftests/tc-testing/tdc.py" ] ||
		die "no tdc.py in $ksrc (the kernel source tree build-kernel.sh extracts)"
	mkdir -p "$root/usr/share/tc-testing"
	cp -a "$ksrc/tools/testing/selftests/tc-testing/." "$root/usr/share/tc-testing/"
fi
cp "$VM_DIR/guest-init" "$root/init"
chmod +x "$root/init"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
