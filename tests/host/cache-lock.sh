#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel cache is shared by every clone on the machine
# (lines/cachedir), so two of them may fetch one kernel line at the same
# time. Two lines/fetch-kernels of the smallest line (6.1: 84 MB of
# packages) start at once into one EMPTY cache directory; both must
# succeed, print the release, and leave one complete tree (vmlinuz, header
# Makefile pointing into that cache, modules.dep, no leftover debs). Then
# the same with the second started while the first unpacks.
#
# The packages come from HTBX_DEBS, a pool in the real cache that
# fetch-kernels fills on the first run and copies from after that: the
# dependency resolution, unpacking, fix-ups and depmod (where two unlocked
# runs broke each other) run in full every time, the archive is not asked
# for the same 84 MB twice per run.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
line=6.1
krel=$(lines/kline krel "$line")
pool=$(lines/cachedir)/debs
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/htbx-cache-lock.XXXXXX") || exit 1
chmod 755 "$tmp"	# apt-get download runs as _apt
trap 'rm -rf "$tmp"' EXIT

n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}

# round NAME STAGGER: two fetches into a new empty cache; with STAGGER=1
# the second starts once the first is unpacking (what broke two clones:
# one's rm -rf met the other's half-made tree), else both at once.
round() {
	local name=$1 stagger=$2 c=$tmp/$1 i rc t0 pid1 pid2 rc1 rc2
	local root=$tmp/$1/kernels/$krel/root
	mkdir "$c"
	t0=$(date +%s)
	for i in 1 2; do
		if [ "$i" = 2 ] && [ "$stagger" = 1 ]; then
			for _ in $(seq 600); do
				[ -e "$root/usr" ] && break
				kill -0 "$pid1" 2>/dev/null || break
				sleep 0.1
			done
		fi
		HTBX_CACHE=$c HTBX_DEBS=$pool timeout 900 lines/fetch-kernels "$line" \
			>"$c.out$i" 2>"$c.err$i" &
		eval "pid$i=$!"
	done
	wait "$pid1"; rc1=$?
	wait "$pid2"; rc2=$?
	echo "# $name: two fetches of $line ($krel) into an empty cache: $(($(date +%s) - t0)) s"
	for i in 1 2; do
		eval "rc=\$rc$i"
		check "$name: fetch $i exits 0 (exit $rc)" '[ "$rc" = 0 ]'
		check "$name: fetch $i prints $krel" '[ "$(cat "$c.out$i")" = "$krel" ]'
		[ "$rc" = 0 ] || sed 's/^/#   /' "$c.err$i" | tail -n 10
	done
	check "$name: the tree is complete" '[ -e "$c/kernels/$krel/.complete" ]'
	check "$name: vmlinuz-$krel" '[ -s "$root/boot/vmlinuz-$krel" ]'
	check "$name: modules.dep" '[ -s "$root/lib/modules/$krel/modules.dep" ]'
	check "$name: the header Makefile names the cache's tree" \
		'grep -qs "$root/usr/src/" "$root/usr/src/linux-headers-$krel/Makefile"'
	check "$name: no debs left behind" '[ ! -e "$c/kernels/$krel/debs" ]'
	check "$name: one fetch waited for the other" 'cat "$c.err1" "$c.err2" | grep -q "waiting for"'
	rm -rf "$c"
}

round at-once 0
round staggered 1
