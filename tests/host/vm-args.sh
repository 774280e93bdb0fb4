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

# lines/qemu: the emulator the guests run, trixie's unless told otherwise
qv=$(mapfile -t q < <("$top/lines/qemu") && "${q[@]}" --version 2>&1 | head -n 1)
if [[ $qv == "QEMU emulator version "* ]] && [[ $qv != *" 7.2"* ]]; then
	echo "ok - lines/qemu runs trixie's QEMU ($qv)"
else
	echo "not ok - lines/qemu runs trixie's QEMU: ${qv:-no output}"
fi
if [ "$(HTBX_QEMU=host "$top/lines/qemu")" = qemu-system-x86_64 ]; then
	echo "ok - HTBX_QEMU=host names the host's qemu-system-x86_64"
else
	echo "not ok - HTBX_QEMU=host names the host's qemu-system-x86_64"
fi
