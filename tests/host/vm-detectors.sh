#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel's detectors fire in our boots and fail the run: a module
# that leaks one allocation (tests/modules/htbx_leak.c) must be reported by
# kmemleak in lines/vm-init's scan after the command, one that reads freed
# memory (htbx_uaf.c) by KASAN; lines/vm must exit 125 for both and show
# the report. The command itself succeeds in both boots, so the failure is
# the detector's alone. Skipped when the debug kernel is not built
# (make built-kernels, which make check runs first). Then the same for the
# kcsan kernel's KCSAN, below.
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/lines/vm
cd "$top" || exit 1
cache=$(lines/cachedir)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ready LINE DESC...: LINE's kernel is built, and the test modules now
# are for it; if not, each DESC is a counted SKIP, and false.
ready() {
	local line=$1 krel d
	shift
	krel=$(lines/kline krel "$line") || exit 1
	if [ ! -e "$cache/kernels/$krel/.complete" ]; then
		for d in "$@"; do
			echo "ok - [$line] $d # SKIP $krel not built (make built-kernels)"
		done
		return 1
	fi
	make -s -C tests/modules KREL="$krel" >"$tmp/modules.log" 2>&1 ||
		sed 's/^/# /' "$tmp/modules.log"
}

# check NAME MODULE PATTERN WHERE DESC [loaded]: boot, load MODULE, expect
# exit 125 with PATTERN in the kernel log lines/vm shows, WHERE (the
# module's function) in the report, and with "loaded" the command's own
# "loaded" on stdout (it ran to its end).
check() {
	local name=$1 mod=$2 pat=$3 where=$4 desc=$5 want=${6:-} rc t0
	t0=$(date +%s)
	"$vm" --kernel debug --timeout 900 -- sh -c "modprobe $mod && echo loaded" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	rc=$?
	if [ "$rc" = 125 ] && { [ -z "$want" ] || grep -q loaded "$tmp/$name.out"; } &&
	   grep -qE "$pat" "$tmp/$name.err" && grep -A 40 -E "$pat" "$tmp/$name.err" | grep -q "$where"; then
		echo "ok - [debug] $desc: exit 125, \"$(grep -oE "$pat" "$tmp/$name.err" | head -n 1)\", in $where ($(($(date +%s) - t0)) s)"
	else
		echo "not ok - [debug] $desc: exit $rc (want 125, /$pat/ in the kernel log, in $where)"
		sed 's/^/# out: /' "$tmp/$name.out" | head -n 10
		grep -v '^$' "$tmp/$name.err" | tail -n 40 | sed 's/^/# /'
	fi
	# The report itself, for the log.
	grep -E -A 14 "$pat" "$tmp/$name.err" | head -n 18 | sed 's/^/#   /'
}

if ready debug "kmemleak reports a leaking module" "KASAN reports a use after free"; then
	check leak htbx_leak 'unreferenced object 0x[0-9a-f]+ \(size [0-9]+\)' htbx_leak_one \
		"kmemleak reports a leaking module" loaded
	check uaf htbx_uaf 'BUG: KASAN: [a-z-]*use-after-free in [a-z_]+' htbx_uaf_read \
		"KASAN reports a use after free"
fi

# The kcsan kernel (multi-threaded TCG): a module with a data race on
# purpose (tests/modules/htbx_race.c). Named as ours in
# HTBX_KCSAN_MODULES, its KCSAN report fails the boot (exit 125); not
# named, the boot passes and lines/vm counts the report on stderr: what
# keeps the rest of the kernel's races from failing sch_htbx's runs.
ready kcsan "KCSAN reports a race in a module named as ours" \
	"a race in another module is counted, not failed" || exit 0
t0=$(date +%s)
HTBX_KCSAN_MODULES="sch_htbx htbx_race" "$vm" --kernel kcsan --timeout 600 -- \
	sh -c "modprobe htbx_race && echo loaded" >"$tmp/race.out" 2>"$tmp/race.err" </dev/null
rc=$?
if [ "$rc" = 125 ] && grep -q 'BUG: KCSAN: data-race in htbx_race_bump' "$tmp/race.err"; then
	echo "ok - [kcsan] KCSAN reports a race in a module named as ours: exit 125, \"$(grep -o 'BUG: KCSAN: data-race in [a-z_ /]*' "$tmp/race.err" | head -n 1)\" ($(($(date +%s) - t0)) s)"
else
	echo "not ok - [kcsan] KCSAN reports a race in a module named as ours: exit $rc (want 125, a KCSAN report in htbx_race_bump)"
	grep -v '^$' "$tmp/race.err" | tail -n 30 | sed 's/^/# /'
fi
t0=$(date +%s)
"$vm" --kernel kcsan --timeout 600 -- sh -c "modprobe htbx_race && echo loaded" \
	>"$tmp/other.out" 2>"$tmp/other.err" </dev/null
rc=$?
if [ "$rc" = 0 ] && grep -q loaded "$tmp/other.out" &&
   grep -q '^vm: KCSAN: [1-9][0-9]* report(s) without sch_htbx' "$tmp/other.err"; then
	echo "ok - [kcsan] a race in another module is counted, not failed: $(grep -o 'KCSAN: [0-9]* report(s)' "$tmp/other.err") ($(($(date +%s) - t0)) s)"
else
	echo "not ok - [kcsan] a race in another module is counted, not failed: exit $rc (want 0 and a count on stderr)"
	grep -v '^$' "$tmp/other.err" | tail -n 20 | sed 's/^/# /'
fi
exit 0
