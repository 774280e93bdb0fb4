#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# runner-check.sh UNIT - how the unit runner picks tests by name (TAP):
# a test's whole name runs that test alone ("perf 10" is not also
# "perf 1000" and "perf 10000"), any other text runs every test whose name
# contains it, and no name runs everything but the perf tests.
unit=$1
rc=0

# check DESC WANT NAME...: UNIT NAME... prints WANT TAP lines, all "ok"
check() {
	desc=$1 want=$2
	shift 2
	out=$("$unit" "$@" 2>&1)
	n=$(printf '%s\n' "$out" | grep -c '^ok ')
	bad=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$n" = "$want" ] && [ "$bad" = 0 ]; then
		echo "ok - runner: $desc ($n)"
	else
		echo "not ok - runner: $desc: $n tests ran ok, $bad failed, want $want"
		printf '%s\n' "$out" | sed 's/^/# /'
		rc=1
	fi
}

check "a whole name runs that test alone" 1 "perf 10"
check "part of a name runs every test containing it" 2 "xmit_ns"
out=$("$unit" 2>&1)
all=$(printf '%s\n' "$out" | grep -c '^ok ')
perf=$(printf '%s\n' "$out" | grep -c '^ok [0-9]* - perf')
if [ "$perf" = 0 ] && [ "$all" -gt 30 ]; then
	echo "ok - runner: no name: every test but the perf ones ($all)"
else
	echo "not ok - runner: no name: $all tests, $perf of them perf"
	rc=1
fi
exit $rc
