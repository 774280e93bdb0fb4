#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lines/vm rejects bad arguments with a usage line on stderr and exit 2,
# before booting anything.
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/lines/vm

bad() {
	local desc=$1 err rc
	shift
	err=$(timeout 20 "$vm" "$@" 2>&1 >/dev/null </dev/null)
	rc=$?
	if [ $rc -eq 2 ] && [[ $err == usage:* ]]; then
		echo "ok - $desc: usage, exit 2"
	else
		echo "not ok - $desc: exit $rc"
		printf '%s\n' "$err" | head -n 5 | sed 's/^/# /'
	fi
}

bad "no arguments"
bad "no --"			true
bad "-- without a command"	--
bad "unknown option"		--frobnicate -- true
bad "unknown kernel"		--kernel 4.9 -- true
bad "--kernel without value"	--kernel
bad "non-numeric --timeout"	--timeout soon -- true
bad "zero --timeout"		--timeout 0 -- true
bad "non-numeric --smp"		--smp two -- true
bad "bad --mem"			--mem lots -- true
