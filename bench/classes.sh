#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# classes.sh - the control plane with many classes: htbx vs mainline htb,
# same boot.
#
#   bench/classes.sh [--kernel LINE] [--icount] [N...]
#
# For each N (default 1000 10000 65000) and each kind: root qdisc 1:, one
# inner class 1:1, N leaf classes under it through one `tc -batch` (rate
# 1mbit ceil 100mbit, each with its default pfifo leaf), then `tc class
# show` of them all, then the root qdisc deleted. Printed per kind: the
# guest time of each step, microseconds per class, and the memory the
# classes hold (unreclaimable kernel memory after adding them, less before,
# divided by N: /proc/meminfo's SUnreclaim + Percpu, the class and its leaf
# qdisc).
# N stops at 65000: a class id's minor is 16 bits (1:1 .. 1:ffff), for
# htb and for htbx alike. Guest time: --icount makes it an instruction
# count; plain TCG figures are noisy, read the ratio. Not a test.

top=${HTBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}

if [ "${1:-}" != --guest ]; then
	line=6.12 icount= ns=
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) [ $# -ge 2 ] || { echo "usage: bench/classes.sh [--kernel LINE] [--icount] [N...]" >&2; exit 2; }
			  line=$2; shift 2 ;;
		--icount) icount=--icount; shift ;;
		[0-9]*) case $1 in *[!0-9]*) echo "classes: N must be a number" >&2; exit 2 ;; esac
			[ "$1" -ge 1 ] && [ "$1" -le 65000 ] ||
				{ echo "classes: N must be 1 .. 65000 (16-bit minor)" >&2; exit 2; }
			ns="$ns $1"; shift ;;
		*) echo "usage: bench/classes.sh [--kernel LINE] [--icount] [N...]" >&2; exit 2 ;;
		esac
	done
	exec "$top/lines/vm" --kernel "$line" $icount --mem 2048 --timeout 3000 -- \
		sh "$top/bench/classes.sh" --guest ${ns:-1000 10000 65000}
fi

# ---- in the guest ----
shift
dev=cb0
modprobe dummy numdummies=0 || exit 1
modprobe sch_htb 2>/dev/null
modprobe sch_htbx || exit 1
ip link add "$dev" type dummy && ip link set "$dev" up || exit 1

# The guest's clock in microseconds, to /proc/uptime's 10 ms (the guest's
# date is busybox's: no %N).
now_us() { awk '{ split($1, a, "."); print a[1] * 1000000 + a[2] * 10000 }' /proc/uptime; }
# Kernel memory that classes take: unreclaimable slab (the class, its
# leaf qdisc, their stats) and per-CPU allocations.
used_kb() {
	awk '/^SUnreclaim:/ || /^Percpu:/ { s += $2 } END { print s }' /proc/meminfo
}

printf '%-6s %6s %10s %8s %10s %10s %9s\n' kind N "add ms" "us/class" "show ms" "del ms" "B/class"
for n in "$@"; do
	batch=/tmp/classes.$n
	for kind in htb htbx; do
		awk -v n="$n" -v d="$dev" -v k="$kind" 'BEGIN {
			for (i = 2; i <= n + 1; i++)
				printf "class add dev %s parent 1:1 classid 1:%x %s rate 1mbit ceil 100mbit\n", d, i, k
		}' >"$batch"
		tc qdisc add dev "$dev" root handle 1: "$kind" default 0 &&
		tc class add dev "$dev" parent 1: classid 1:1 "$kind" rate 100mbit \
			quantum 60000 || exit 1
		m0=$(used_kb)
		t0=$(now_us)
		tc -batch "$batch" || { echo "classes: $kind: tc -batch of $n classes failed" >&2; exit 1; }
		t1=$(now_us)
		m1=$(used_kb)
		t2=$(now_us)
		got=$(tc class show dev "$dev" | grep -c "^class $kind ")
		t3=$(now_us)
		tc qdisc del dev "$dev" root || exit 1
		t4=$(now_us)
		[ "$got" = $((n + 1)) ] || echo "classes: $kind: $got classes shown, want $((n + 1))" >&2
		awk -v k="$kind" -v n="$n" -v a=$((t1 - t0)) -v s=$((t3 - t2)) -v d=$((t4 - t3)) \
		    -v m=$((m1 - m0)) 'BEGIN {
			printf "%-6s %6d %10.1f %8.1f %10.1f %10.1f %9.0f\n",
			       k, n, a / 1000, a / n, s / 1000, d / 1000, m * 1024 / n }'
	done
done
rm -f /tmp/classes.*
