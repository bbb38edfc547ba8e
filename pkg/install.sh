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
#       if they are empty, then MANIFEST; run depmod again if a module was removed.
#
# MANIFEST lines: `file MODE PATH`, `dir PATH`, `depmod KVER` (paths without DESTDIR, no spaces).
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
		echo "file $mode $dst" >>"$new"
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
	if [ -z "$DESTDIR" ] && [ -n "$kver" ]; then
		depmod -a "$kver"
	fi
}

do_uninstall() {
	manifest=$1
	if [ ! -f "$DESTDIR$manifest" ]; then
		echo "install.sh: nothing to uninstall: no $DESTDIR$manifest"
		return 0
	fi
	# Files first, then directories innermost first (the reverse of their creation order).
	awk '$1 == "file" { print $3 }' "$DESTDIR$manifest" | while read -r path; do
		if [ -e "$DESTDIR$path" ] || [ -L "$DESTDIR$path" ]; then
			rm -f "$DESTDIR$path"
			echo "remove $DESTDIR$path"
		fi
	done
	rm -f "$DESTDIR$manifest"
	echo "remove $DESTDIR$manifest"
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
	do_uninstall "$2"
	;;
*) die "usage: install.sh install|uninstall MANIFEST ..." ;;
esac
