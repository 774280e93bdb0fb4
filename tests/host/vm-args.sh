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

# lines/klog-kcsan: a KCSAN report fails a boot only with sch_htbx in it
kt=$(mktemp -d)
trap 'rm -rf "$kt"' EXIT
cat >"$kt/klog" <<'LOG'
[    2.1] ==================================================================
[    2.1] BUG: KCSAN: data-race in tick_sched_do_timer / tick_nohz_next_event
[    2.1] read to 0xffffffff82a1b2c0 of 4 bytes by task 0 on cpu 1:
[    2.1]  tick_nohz_next_event+0x4b/0x1e0
[    2.1] Reported by Kernel Concurrency Sanitizer on:
[    2.1] ==================================================================
[    3.2] ==================================================================
[    3.2] BUG: KCSAN: data-race in htbx_mq_sum / qdisc_tree_reduce_backlog
[    3.2] write to 0xffff888003c4a0d0 of 4 bytes by task 91 on cpu 0:
[    3.2]  qdisc_tree_reduce_backlog+0x12a/0x1c0
[    3.2]  fq_codel_dequeue+0x31d/0x3a0 [sch_fq_codel]
[    3.2]  htbx_queue_qdisc_dequeue+0x55/0x90 [sch_htbx]
[    3.2] ==================================================================
LOG
kout=$("$top/lines/klog-kcsan" "$kt/other" <"$kt/klog" 2>"$kt/count")
if [[ $kout == *"htbx_mq_sum / qdisc_tree_reduce_backlog"* ]] &&
   [[ $kout != *tick_sched_do_timer* ]] &&
   grep -q tick_sched_do_timer "$kt/other" &&
   [ "$(cat "$kt/count")" = "HTBX-KCSAN-OTHER: 1" ]; then
	echo "ok - lines/klog-kcsan keeps the report with sch_htbx in it, sets the other aside and counts it"
else
	echo "not ok - lines/klog-kcsan keeps the report with sch_htbx in it, sets the other aside and counts it"
	printf '%s\n' "$kout" | sed 's/^/# /'
fi
