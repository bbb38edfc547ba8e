#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# install.sh: what `make install` and `make uninstall` do, in plain sh so that it runs as root
# without cargo or make (and in the bench's busybox guest).
#
#   install.sh install MANIFEST MODE:SOURCE:TARGET...
#       Copy each SOURCE (built beforehand by `make`, as the user) to $DESTDIR/TARGET with MODE,
#       creating missing directories, and record every file and directory it created in
#       $DESTDIR/MANIFEST. Fails before copying anything if a SOURCE is missing. A module
#       (a TARGET ending in .ko) is followed by `depmod -a KVER` when DESTDIR is empty (KVER
#       from the environment, else from the module's vermagic); with DESTDIR the packager runs
#       depmod.
#   install.sh uninstall MANIFEST
#       Remove exactly what MANIFEST lists: the files, then the directories the install created
#       if they are empty, then MANIFEST; run depmod again if a module was removed. A file that
#       changed since (its checksum is none the install recorded) or that a Debian package now
#       owns (dpkg-query -S, without DESTDIR) is someone else's, and stays. Without
#       MANIFEST, look for the manifest of another prefix (those installs recorded in
#       /var/lib/ecnsharp/manifests, then /usr/local, /usr, /opt/ecnsharp, ~/.local): if there
#       is one, name the PREFIX to uninstall with and fail; if there is none, nothing to do.
#
# MANIFEST lines: `file MODE PATH SUM` (SUM: see sum_of; manifests written before it have none),
# `dir PATH`, `depmod KVER` (paths without DESTDIR, no spaces).
set -eu

die() {
	echo "install.sh: $*" >&2
	exit 1
}

# mkdirs DIR: create DIR under $DESTDIR, recording each directory created, outermost first.
mkdirs() {
	[ -d "$DESTDIR$1" ] && return 0
	if [ "$1" = / ] || [ "$1" = . ]; then
		mkdir -p "$DESTDIR/"
		return 0
	fi
	mkdirs "$(dirname "$1")"
	mkdir "$DESTDIR$1"
	echo "dir $1" >>"$new"
}

# register MANIFEST: add it to the registry of installs, if the registry can be written; the
# directories made for it are listed in $REGISTRY_DIR/created, innermost first, to go with it.
register() {
	if [ ! -d "$REGISTRY_DIR" ]; then
		made=
		d=$REGISTRY_DIR
		while [ ! -d "$d" ]; do
			made="$made$d
"
			d=$(dirname "$d")
		done
		mkdir -p "$REGISTRY_DIR" 2>/dev/null || return 0
		printf '%s' "$made" >"$REGISTRY_DIR/created"
	fi
	grep -qx "$1" "$REGISTRY" 2>/dev/null || echo "$1" >>"$REGISTRY" 2>/dev/null || true
}

# unregister MANIFEST: drop it from the registry; the last one takes the registry with it.
unregister() {
	[ -f "$REGISTRY" ] || return 0
	grep -vx "$1" "$REGISTRY" >"$REGISTRY.new" || true
	if [ -s "$REGISTRY.new" ]; then
		mv -f "$REGISTRY.new" "$REGISTRY"
		return 0
	fi
	rm -f "$REGISTRY.new" "$REGISTRY"
	made=$(cat "$REGISTRY_DIR/created" 2>/dev/null || true)
	rm -f "$REGISTRY_DIR/created"
	rmdir "$REGISTRY_DIR" 2>/dev/null || true
	for d in $made; do
		rmdir "$d" 2>/dev/null || true
	done
}

# sum_of FILE: the first 16 hex digits of its SHA-256 (sha256sum: coreutils, and busybox's
# applet in the bench's guest, which has no cksum).
sum_of() { sha256sum <"$1" | cut -c1-16; }

# foreign PATH SUMS: whether the file at $DESTDIR$PATH is not the one an install copied there:
# changed since (SUMS, the sums recorded for it, holds none of its sum), or owned by a Debian
# package (a real install only). With no sum recorded (an older manifest), it is ours.
foreign() {
	if [ -n "$2" ]; then
		case " $2 " in
		*" $(sum_of "$DESTDIR$1") "*) ;;
		*) return 0 ;;
		esac
	fi
	[ -z "$DESTDIR" ] && command -v dpkg-query >/dev/null 2>&1 && dpkg-query -S "$1" >/dev/null 2>&1
}

do_install() {
	manifest=$1
	shift
	for spec in "$@"; do
		src=${spec#*:}
		src=${src%%:*}
		[ -f "$src" ] || die "$src is missing: run 'make' first, as your user (make install only copies what it built)"
	done
	new=$(mktemp)
	trap 'rm -f "$new"' EXIT
	kver=${KVER:-}
	for spec in "$@"; do
		mode=${spec%%:*}
		rest=${spec#*:}
		src=${rest%%:*}
		dst=${rest#*:}
		mkdirs "$(dirname "$dst")"
		cp "$src" "$DESTDIR$dst.tmp.$$"
		chmod "$mode" "$DESTDIR$dst.tmp.$$"
		mv -f "$DESTDIR$dst.tmp.$$" "$DESTDIR$dst"
		echo "file $mode $dst $(sum_of "$DESTDIR$dst")" >>"$new"
		echo "install $DESTDIR$dst"
		case "$dst" in
		*.ko)
			[ -n "$kver" ] || kver=$(modinfo -F vermagic "$src" 2>/dev/null | cut -d' ' -f1)
			[ -n "$kver" ] || die "cannot tell the kernel release of $src: set KVER"
			echo "depmod $kver" >>"$new"
			;;
		esac
	done
	mkdirs "$(dirname "$manifest")"
	# A reinstall keeps what an earlier install recorded, so uninstall still finds it all.
	if [ -f "$DESTDIR$manifest" ]; then
		cat "$DESTDIR$manifest" >>"$new"
	fi
	awk '!seen[$0]++' "$new" >"$DESTDIR$manifest"
	echo "install $DESTDIR$manifest"
	# A real install (no DESTDIR) is recorded, so that uninstall finds it whatever its prefix.
	[ -n "$DESTDIR" ] || register "$manifest"
	if [ -z "$DESTDIR" ] && [ -n "$kver" ]; then
		depmod -a "$kver"
	fi
}

# prefix_of MANIFEST: the PREFIX whose install wrote it.
prefix_of() { echo "${1%/share/ecnsharp/manifest}"; }

# other_manifests: manifests of installs at other prefixes, one per line.
other_manifests() {
	{
		[ -n "$DESTDIR" ] || cat "$REGISTRY" 2>/dev/null || true
		for p in /usr/local /usr /opt/ecnsharp ${HOME:+"$HOME/.local"}; do
			echo "$p/share/ecnsharp/manifest"
		done
	} | awk '!seen[$0]++' | while read -r m; do
		[ -n "$m" ] && [ "$m" != "$1" ] && [ -f "$DESTDIR$m" ] && echo "$m"
	done
	return 0
}

do_uninstall() {
	manifest=$1
	if [ ! -f "$DESTDIR$manifest" ]; then
		others=$(other_manifests "$manifest")
		if [ -n "$others" ]; then
			echo "install.sh: no install with PREFIX=$(prefix_of "$manifest") (no $DESTDIR$manifest), but:" >&2
			for m in $others; do
				echo "  an install with PREFIX=$(prefix_of "$m"): make uninstall PREFIX=$(prefix_of "$m")" \
					"(or: sh $(prefix_of "$m")/share/ecnsharp/install.sh uninstall $m)" >&2
			done
			return 1
		fi
		echo "install.sh: nothing to uninstall: no $DESTDIR$manifest, and no install at another prefix"
		return 0
	fi
	# Files first (each with the sums its installs recorded), then directories innermost first
	# (the reverse of their creation order).
	awk '$1 == "file" { if (!($3 in s)) order[n++] = $3; s[$3] = s[$3] " " $4 }
		END { for (i = 0; i < n; i++) print order[i] s[order[i]] }' "$DESTDIR$manifest" |
		while read -r path sums; do
			if [ -L "$DESTDIR$path" ] || { [ -e "$DESTDIR$path" ] && ! foreign "$path" "$sums"; }; then
				rm -f "$DESTDIR$path"
				echo "remove $DESTDIR$path"
			elif [ -e "$DESTDIR$path" ]; then
				echo "keep $DESTDIR$path: not the file installed there (changed since, or a package's)"
			fi
		done
	rm -f "$DESTDIR$manifest"
	echo "remove $DESTDIR$manifest"
	[ -n "$DESTDIR" ] || unregister "$manifest"
	awk '$1 == "dir" { d[n++] = $2 } END { while (n > 0) print d[--n] }' "$saved" |
		while read -r dir; do
			rmdir "$DESTDIR$dir" 2>/dev/null && echo "remove $DESTDIR$dir/" || true
		done
	if [ -z "$DESTDIR" ]; then
		awk '$1 == "depmod" { print $2 }' "$saved" | sort -u | while read -r kver; do
			depmod -a "$kver"
		done
	fi
}

DESTDIR=${DESTDIR:-}
# Where real installs are recorded (ECNSHARP_REGISTRY_DIR for tests).
REGISTRY_DIR=${ECNSHARP_REGISTRY_DIR:-/var/lib/ecnsharp}
REGISTRY=$REGISTRY_DIR/manifests
case "${1:-}" in
install)
	[ $# -ge 3 ] || die "usage: install.sh install MANIFEST MODE:SOURCE:TARGET..."
	shift
	do_install "$@"
	;;
uninstall)
	[ $# -eq 2 ] || die "usage: install.sh uninstall MANIFEST"
	saved=$(mktemp)
	trap 'rm -f "$saved"' EXIT
	[ ! -f "$DESTDIR$2" ] || cp "$DESTDIR$2" "$saved"
	do_uninstall "$2" || exit 1
	;;
*) die "usage: install.sh install|uninstall MANIFEST ..." ;;
esac
