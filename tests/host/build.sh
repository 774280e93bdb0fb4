#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh - sch_htbx.ko built from scratch for every kernel line of
# lines/versions.mk, each with its own toolchain (lines/kmake: bookworm
# lines on this host, other suites' lines in a build root of that suite):
# the build succeeds, prints no warning, and its vermagic is the line's
# release. Lines whose kernel is not in the cache yet are fetched (Debian)
# or reported as SKIP (built from source: `make built-kernels`).
# Where the Makefile's own build of a line (make lines, make
# built-modules: build/<release>/) started from no objects and no source
# changed since, its log and module are judged instead of building again:
# in make check every line's module was built so minutes before.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
cache=$(lines/cachedir)
work=$top/build/.check-build.$$
trap 'rm -rf "$work"' EXIT

# The files the module is built from: the Makefile's own list.
srcs=$(make -s --no-print-directory --eval 'htbx-print-srcs: ; @echo $(MODULE_SRCS)' htbx-print-srcs)
[ -n "$srcs" ] || { echo "not ok - the Makefile's MODULE_SRCS"; exit 1; }
for line in $(lines/kline list); do
	rel=$(lines/kline krel "$line")
	if [ "$(lines/kline kind "$line")" = debian ]; then
		lines/kline ensure "$line" >/dev/null 2>&1
	fi
	kd=$cache/kernels/$rel/root/usr/src/linux-headers-$rel
	if [ ! -e "$cache/kernels/$rel/.complete" ] || [ ! -d "$kd" ]; then
		echo "ok - [$line] $rel # SKIP kernel not in the cache (make built-kernels)"
		continue
	fi
	made=$top/build/$rel
	# shellcheck disable=SC2086
	if [ -e "$made/build.scratch" ] && [ -e "$made/sch_htbx.ko" ] && [ -e "$made/build.log" ] &&
	   [ -z "$(find $srcs -newer "$made/sch_htbx.ko" 2>/dev/null)" ]; then
		out=$made
		rc=0
		how="make's build"
	else
		out=$work/$rel
		mkdir -p "$out"
		for f in $srcs; do ln -s "$top/$f" "$out/$f"; done
		nobtf=
		[ -e "$kd/vmlinux" ] || nobtf=CONFIG_DEBUG_INFO_BTF_MODULES=
		t0=$(date +%s)
		lines/kmake "$kd" -s M="$out" $nobtf modules >"$out/build.log" 2>&1
		rc=$?
		how="$(($(date +%s) - t0)) s"
	fi
	warn=$(grep -c -i 'warning' "$out/build.log")
	vm=$(modinfo -F vermagic "$out/sch_htbx.ko" 2>/dev/null | cut -d' ' -f1)
	desc="[$line] sch_htbx.ko for $rel ($(lines/kline suite "$line") toolchain, $how)"
	if [ $rc -eq 0 ] && [ "$warn" = 0 ] && [ "$vm" = "$rel" ]; then
		echo "ok - $desc, no warning, vermagic $vm"
	else
		echo "not ok - $desc: exit $rc, $warn warning line(s), vermagic '$vm'"
		sed 's/^/# /' "$out/build.log" | tail -n 30
	fi
done
