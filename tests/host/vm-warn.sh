#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm reports what happened in the guest: the command's exit status
# and clean output, a kernel WARN (panic_on_warn) as a failure with the
# WARNING shown, a hang as exit 124, and the real module on 6.12.
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/scripts/vm
krel() { sed -n "s/^KREL_${1//./_}[[:space:]]*:=[[:space:]]*//p" "$top/scripts/versions.mk"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1

# Status and output: stdout holds exactly what the command printed.
"$vm" --kernel 6.1 -- sh -c 'echo hello from $HTBX_KLINE; exit 3' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && [ "$(cat "$tmp/out")" = "hello from 6.1" ]; then
	echo "ok - [6.1] exit status 3 and clean output"
else
	echo "not ok - [6.1] exit status 3 and clean output: exit $rc"
	head -c 2000 "$tmp/out" "$tmp/err" | sed 's/^/# /'
fi

# A WARN_ON(1) in a module's init must fail the run and show the WARNING.
for line in 6.1 6.12; do
	ko=$top/build/$(krel "$line")/tests/modules/htbx_warn.ko
	if [ ! -e "$ko" ]; then
		echo "not ok - [$line] WARN fails the run: $ko not built (make -C tests/modules)"
		continue
	fi
	"$vm" --kernel "$line" -- sh -c 'modprobe htbx_warn; echo survived' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ] && grep -q 'WARNING:.*htbx_warn' "$tmp/err" &&
	   ! grep -q survived "$tmp/out"; then
		echo "ok - [$line] WARN fails the run: exit $rc, WARNING shown"
	else
		echo "not ok - [$line] WARN fails the run: exit $rc"
		tail -n 20 "$tmp/err" | sed 's/^/# /'
	fi
done

# A guest that never finishes: exit 124 after --timeout.
"$vm" --kernel 6.12 --timeout 25 -- sleep 1000 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 124 ]; then
	echo "ok - [6.12] hang past --timeout: exit 124"
else
	echo "not ok - [6.12] hang past --timeout: exit $rc"
	tail -n 20 "$tmp/err" | sed 's/^/# /'
fi

# The real module, autoloaded by name.
rel=$(krel 6.12)
if [ ! -e "$top/build/$rel/sch_htbx.ko" ]; then
	echo "ok - [6.12] modprobe sch_htbx # SKIP build/$rel/sch_htbx.ko not built"
else
	"$vm" --kernel 6.12 -- sh -c 'uname -r; modprobe sch_htbx && lsmod' >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$(head -n 1 "$tmp/out")" = "$rel" ] &&
	   grep -q '^sch_htbx ' "$tmp/out"; then
		echo "ok - [6.12] uname -r is $rel, modprobe sch_htbx loads it"
	else
		echo "not ok - [6.12] modprobe sch_htbx: exit $rc"
		cat "$tmp/out" | head -n 20 | sed 's/^/# /'
		tail -n 20 "$tmp/err" | sed 's/^/# /'
	fi
fi
exit 0
