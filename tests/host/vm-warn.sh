#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lines/vm reports what happened in the guest: the command's exit status
# and clean output with the real module on 6.12, a kernel WARN
# (panic_on_warn) as a failure with the WARNING shown, a hang as exit 124.
# The WARN is checked on the oldest and the newest Debian line and on the
# PREEMPT_RT one (WARN_LINES): the same lines/vm reads every line's log,
# and a boot costs 15-20 s of the budget.
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/lines/vm
krel() { "$top/lines/kline" krel "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1

# Build the test modules before any boot: lines/vm would build them on
# demand, but boots started concurrently would race to do it, and the
# checks below must see the same files the boots saw.
make -s -C "$top/tests/modules" >"$tmp/modules.log" 2>&1 ||
	sed 's/^/# /' "$tmp/modules.log"

# One boot at a time: run-all runs this file as one job of its pool, which
# keeps the host at two VMs. Results are read after the last boot.
run() {	# run NAME ARGS...: lines/vm ARGS
	local name=$1
	shift
	"$vm" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	echo $? >"$tmp/$name.rc"
}
rel12=$(krel 6.12)
WARN_LINES="5.10 rt 7.3"
for line in $WARN_LINES; do
	[ -e "$top/build/$(krel "$line")/tests/modules/htbx_warn.ko" ] &&
		run "warn$line" --kernel "$line" -- sh -c 'modprobe htbx_warn; echo survived'
done
run hang --kernel 6.12 --timeout 25 -- sleep 1000
# A kernel that dies before userspace (no init: it panics mounting a root
# it does not have) is booted once more, and fails as a crash.
HTBX_VM_APPEND=rdinit=/nope run noinit --kernel 6.12 --timeout 120 -- echo ran
# One boot for the status, the output and the real module (a boot costs
# 35 s): exit 3 once sch_htbx is loaded.
run module --kernel 6.12 -- sh -c 'echo hello from $HTBX_KLINE; uname -r
	modprobe sch_htbx && lsmod | grep "^sch_htbx " && exit 3'

# Status and output: stdout holds exactly what the command printed.
rc=$(cat "$tmp/module.rc")
if [ "$rc" = 3 ] && [ "$(sed -n 1p "$tmp/module.out")" = "hello from 6.12" ] &&
   [ "$(wc -l <"$tmp/module.out")" = 3 ]; then
	echo "ok - [6.12] exit status 3 and clean output"
else
	echo "not ok - [6.12] exit status 3 and clean output: exit $rc"
	head -c 2000 "$tmp/module.out" "$tmp/module.err" | sed 's/^/# /'
fi

# A WARN_ON(1) in a module's init must fail the run and show the WARNING.
for line in $WARN_LINES; do
	ko=$top/build/$(krel "$line")/tests/modules/htbx_warn.ko
	if [ ! -e "$ko" ]; then
		echo "not ok - [$line] WARN fails the run: $ko not built (make -C tests/modules)"
		continue
	fi
	rc=$(cat "$tmp/warn$line.rc")
	if [ "$rc" != 0 ] && [ "$rc" != 2 ] && grep -q 'WARNING:.*htbx_warn' "$tmp/warn$line.err" &&
	   ! grep -q survived "$tmp/warn$line.out" &&
	   ! grep -q 'booting again' "$tmp/warn$line.err"; then
		echo "ok - [$line] WARN fails the run: exit $rc, WARNING shown, not booted again"
	else
		echo "not ok - [$line] WARN fails the run: exit $rc"
		tail -n 20 "$tmp/warn$line.err" | sed 's/^/# /'
	fi
done

# A guest that never finishes: exit 124 after --timeout.
rc=$(cat "$tmp/hang.rc")
if [ "$rc" = 124 ]; then
	echo "ok - [6.12] hang past --timeout: exit 124"
else
	echo "not ok - [6.12] hang past --timeout: exit $rc"
	tail -n 20 "$tmp/hang.err" | sed 's/^/# /'
fi

# Died before userspace: two boots (said once on stderr), then exit 125.
rc=$(cat "$tmp/noinit.rc")
again=$(grep -c 'died before userspace.*booting again' "$tmp/noinit.err")
if [ "$rc" = 125 ] && [ "$again" = 1 ] && ! grep -q '^ran' "$tmp/noinit.out"; then
	echo "ok - [6.12] a kernel that dies before userspace is booted once more, then fails (exit 125)"
else
	echo "not ok - [6.12] death before userspace: exit $rc, 'booting again' said $again times"
	tail -n 20 "$tmp/noinit.err" | sed 's/^/# /'
fi

# The real module, autoloaded by name.
if [ ! -e "$top/build/$rel12/sch_htbx.ko" ]; then
	echo "ok - [6.12] modprobe sch_htbx # SKIP build/$rel12/sch_htbx.ko not built"
else
	rc=$(cat "$tmp/module.rc")
	if [ "$rc" = 3 ] && [ "$(sed -n 2p "$tmp/module.out")" = "$rel12" ] &&
	   grep -q '^sch_htbx ' "$tmp/module.out"; then
		echo "ok - [6.12] uname -r is $rel12, modprobe sch_htbx loads it"
	else
		echo "not ok - [6.12] modprobe sch_htbx: exit $rc"
		head -n 20 "$tmp/module.out" | sed 's/^/# /'
		tail -n 20 "$tmp/module.err" | sed 's/^/# /'
	fi
fi
exit 0
