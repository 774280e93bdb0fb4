#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scale.sh - aggregate pps from 1 to N sending CPUs: htbx in mq mode
# against htb, mq with one htb per queue, and cake_mq, in one boot.
#
#   bench/scale.sh [--kernel LINE] [--smp N] [--reps R] [--secs S]
#
# Boots LINE (default: 6.12 and 7.3) on multi-threaded TCG (HTBX_ACCEL=tcg:
# one host thread per vCPU, so two vCPUs can run at once on a two-core
# host; not --icount, which is one vCPU) with N vCPUs (default 2) and, in
# the guest, a dummy device with N TX queues whose queue q is the XPS
# queue of CPU q. pktgen (queue_xmit, 60-byte UDP, delay 0) runs one
# thread per sending CPU, each bound to its CPU and so to its queue: the
# layout of a multi-queue NIC with traffic steered per CPU. Root qdiscs,
# each with one class that does not limit (rate = ceil 10gbit):
#
#   noqueue   the dummy's default: no qdisc, the stack alone (reference)
#   htb       mainline htb: one qdisc, one root lock for every queue
#   htbx      htbx without mq: the same layout as htb
#   htbx-mq   htbx ... mq: one class tree, a scheduler per queue, the
#             class's buckets shared across queues
#   mq+htb    mq with one htb per queue (the sharded layout operators use:
#             a class per queue, so a ceiling cannot be shared)
#   cake_mq   (kernels and tc that have it: 7.x with sid's tc) one flat
#             shaper shared across queues, cake per queue, 10gbit
#
# For each, R repetitions of: pps with 1 sending CPU, then with 2 (.. N),
# S seconds each after a second of warm-up, the order of the counts
# alternating between repetitions. pps is pktgen's accepted packets per
# second of guest time, summed over the threads. Printed per qdisc: the
# median pps at each count and the median over repetitions of the ratio
# k CPUs / 1 CPU (each ratio from two runs seconds apart, so host noise
# that lasts longer cancels).
#
# Then the shared ceiling: 1:10's rate = ceil set to 3/4 of htbx-mq's
# N-CPU pps (as bits of 60-byte packets): more than one CPU offers alone,
# less than N offer together; what the qdisc sent with all N CPUs, over the ceiling, for
# htbx-mq (should be 1.00: one ceiling for all queues), for htb (one
# ceiling, one lock: the reference for what plain TCG itself loses) and
# for mq+htb with the same ceil on every queue's class (up to N x: it
# cannot share). On plain TCG a guest the host deschedules for longer
# than the burst (64k: 2-3 ms here) loses tokens, so below 1.00 is noise
# (compare htb's) and above is a fault. Not a test: nothing is asserted.

top=${HTBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}

if [ "${1:-}" != --guest ]; then
	lines="6.12 7.3" smp=2 reps=5 secs=3
	usage="usage: bench/scale.sh [--kernel LINE] [--smp N] [--reps R] [--secs S]"
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		case $1 in
		--kernel) lines=$2 ;;
		--smp) smp=$2 ;;
		--reps) reps=$2 ;;
		--secs) secs=$2 ;;
		*) echo "$usage" >&2; exit 2 ;;
		esac
		shift 2
	done
	for n in $smp $reps $secs; do
		case $n in ''|*[!0-9]*|0) echo "scale: not a positive number: $n" >&2; exit 2 ;; esac
	done
	[ "$smp" -ge 2 ] || { echo "scale: --smp must be at least 2" >&2; exit 2; }
	rc=0
	for l in $lines; do
		HTBX_ACCEL=tcg "$top/lines/vm" --kernel "$l" --smp "$smp" --mem 2048 \
			--timeout 3000 -- sh "$top/bench/scale.sh" --guest "$reps" "$secs" || rc=1
	done
	exit $rc
fi

# ---- in the guest ----
reps=$2 secs=$3
dev=pg0
PG=/proc/net/pktgen
NCPU=$(grep -c ^processor /proc/cpuinfo)
# cake_mq needs a tc that knows it (iproute2 7.0 on): sid's, when staged.
CAKE_TC=
if modprobe sch_cake 2>/dev/null && grep -q 'cake_mq' /proc/kallsyms &&
   [ -x "$top/build/tc-sid/tc" ]; then
	rm -rf /tmp/tc-sid && cp -a "$top/build/tc-sid" /tmp/tc-sid &&
		CAKE_TC=/tmp/tc-sid/tc
fi

modprobe dummy numdummies=0 && modprobe pktgen && modprobe sch_htbx &&
	modprobe sch_htb || exit 1
ip link add "$dev" numtxqueues "$NCPU" type dummy || exit 1
ip link set "$dev" txqueuelen 1000 up
ip addr add 198.19.0.1/24 dev "$dev"
q=0
while [ $q -lt "$NCPU" ]; do
	printf '%x' $((1 << q)) >"/sys/class/net/$dev/queues/tx-$q/xps_cpus" ||
		{ echo "scale: no XPS on $dev" >&2; exit 1; }
	q=$((q + 1))
done

pgset()
{
	echo "$2" >"$PG/$1" || echo "scale: pktgen $1: '$2' refused" >&2
}

# threads K: pktgen on CPUs 0 .. K-1, one device (pg0@t) each.
threads()
{
	local t=0
	while [ $t -lt "$NCPU" ]; do
		pgset "kpktgend_$t" rem_device_all
		if [ $t -lt "$1" ]; then
			pgset "kpktgend_$t" "add_device $dev@$t"
			for c in "count 0" "pkt_size 60" "delay 0" "burst 1" \
				 "xmit_mode queue_xmit" "dst 198.19.0.2" \
				 "dst_mac 02:00:00:00:00:02" "udp_src_min 9" "udp_src_max 9" \
				 "udp_dst_min 1024" "udp_dst_max 1088"; do
				pgset "$dev@$t" "$c"
			done
		fi
		t=$((t + 1))
	done
}

# pktgen's accepted packets, summed over the devices threads made.
accepted()
{
	cat "$PG/$dev"@* 2>/dev/null |
		sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}

# root_bytes: what the root qdisc sent, in bytes.
root_bytes()
{
	tc -s qdisc show dev "$dev" | awk '$4 == "root" { getline; print $2; exit }'
}

# now_ns: CLOCK_MONOTONIC in ns (the guest's date has no %N).
now_ns() { sed -n 's/^now at \([0-9]*\) nsecs.*/\1/p' /proc/timer_list | head -n 1; }

# median: the median of the numbers on stdin, one a line ("-": none).
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

# measure K: PPS, the pps of K sending CPUs over $secs after a second,
# and BPS, the root qdisc's bits per second over the same window.
measure()
{
	local pid a0 a1 b0 b1 t0 t1
	threads "$1"
	echo start >"$PG/pgctrl" &
	pid=$!
	sleep 1
	t0=$(now_ns); a0=$(accepted); b0=$(root_bytes)
	sleep "$secs"
	t1=$(now_ns); a1=$(accepted); b1=$(root_bytes)
	echo stop >"$PG/pgctrl"
	wait $pid 2>/dev/null
	BPS=$(awk -v a="${b0:-0}" -v b="${b1:-0}" -v t=$((t1 - t0)) \
		'BEGIN { printf "%.0f", (b - a) * 8e9 / t }')
	PPS=$(awk -v a="$a0" -v b="$a1" -v t=$((t1 - t0)) \
		'BEGIN { printf "%.0f", (b - a) * 1e9 / t }')
}

CLS="rate 10gbit ceil 10gbit burst 64k cburst 64k"

# setup KIND [CEIL]: the root of $dev as KIND; CEIL replaces the class's
# ceiling (and rate) where there is a class.
setup()
{
	local o="$CLS" q=0
	[ -n "${2:-}" ] && o="rate $2 ceil $2 burst 64k cburst 64k"
	tc qdisc del dev "$dev" root 2>/dev/null
	case $1 in
	noqueue) ;;
	htb|htbx)
		tc qdisc add dev "$dev" root handle 1: "$1" default 10 &&
		tc class add dev "$dev" parent 1: classid 1:10 "$1" $o ;;
	htbx-mq)
		tc qdisc add dev "$dev" root handle 1: htbx default 10 mq &&
		tc class add dev "$dev" parent 1: classid 1:10 htbx $o ;;
	mq+htb)
		tc qdisc add dev "$dev" root handle 1: mq || return 1
		while [ $q -lt "$NCPU" ]; do
			tc qdisc add dev "$dev" parent "1:$(printf '%x' $((q + 1)))" \
				handle "$(printf '%x' $((q + 16))):" htb default 10 &&
			tc class add dev "$dev" parent "$(printf '%x' $((q + 16))):" \
				classid "$(printf '%x' $((q + 16))):10" htb $o || return 1
			q=$((q + 1))
		done ;;
	cake_mq)
		$CAKE_TC qdisc add dev "$dev" root handle 1: cake_mq bandwidth 10gbit besteffort ;;
	esac
}

# counts: 1 2 4 .. up to NCPU, and NCPU.
counts=1
k=2
while [ $k -le "$NCPU" ]; do counts="$counts $k"; k=$((k * 2)); done
case " $counts " in *" $NCPU "*) ;; *) counts="$counts $NCPU" ;; esac

kinds="noqueue htb htbx htbx-mq mq+htb"
[ -n "$CAKE_TC" ] && kinds="$kinds cake_mq"
echo "# scale.sh: $(uname -r), $NCPU vCPUs (multi-threaded TCG), $dev with $NCPU TX queues (XPS: CPU q -> queue q)"
echo "# pktgen queue_xmit, 60-byte UDP, one thread per sending CPU; $reps reps of ${secs} s"
[ -n "$CAKE_TC" ] || echo "# cake_mq: not measured (no sch_cake with cake_mq, or no sid tc staged: lines/fetch-tc sid)"

R=/tmp/scale.raw
: >$R
rep=1
while [ $rep -le "$reps" ]; do
	for kind in $kinds; do
		setup "$kind" >/tmp/scale.err 2>&1 ||
			{ echo "scale: $kind: $(head -n 1 /tmp/scale.err)" >&2; continue; }
		order=$counts
		[ $((rep % 2)) = 0 ] && order=$(echo "$counts" | tr ' ' '\n' | sort -rn | tr '\n' ' ')
		for k in $order; do
			measure "$k"
			echo "$kind $rep $k $PPS" >>$R
		done
	done
	rep=$((rep + 1))
done

# Per kind: median pps at each count, median of the per-rep ratios.
printf '%-9s' qdisc
for k in $counts; do printf ' %10s' "pps@$k"; done
for k in $counts; do [ "$k" = 1 ] || printf ' %8s' "${k}/1"; done
echo
for kind in $kinds; do
	printf '%-9s' "$kind"
	for k in $counts; do
		printf ' %10s' "$(awk -v n="$kind" -v k="$k" '$1 == n && $3 == k { print $4 }' $R | median)"
	done
	for k in $counts; do
		[ "$k" = 1 ] && continue
		printf ' %8s' "$(awk -v n="$kind" -v k="$k" '
			$1 == n && $3 == 1 { one[$2] = $4 }
			$1 == n && $3 == k { m[$2] = $4 }
			END { for (r in m) if (one[r] > 0) printf "%.3f\n", m[r] / one[r] }' $R | median)"
	done
	echo
done
echo "# per run (qdisc rep cpus pps):"
sed 's/^/#   /' $R

# The shared ceiling: 3/4 of htbx-mq's median all-CPU pps, as 60-byte
# packets: more than one CPU sends alone, less than all send together.
one=$(awk -v k="$NCPU" '$1 == "htbx-mq" && $3 == k { print $4 }' $R | median)
if [ "$one" != - ] && [ "$one" -gt 0 ]; then
	ceil=$((one * 3 / 4 * 480))
	echo "# shared ceiling: ceil ${ceil}bit (3/4 of htbx-mq's $NCPU-CPU pps), $NCPU sending CPUs"
	printf '%-9s %12s %8s %10s\n' qdisc sent_bit/s x_ceil pps
	for kind in htb htbx-mq mq+htb; do
		for rep in 1 2 3; do
			setup "$kind" "${ceil}bit" >/tmp/scale.err 2>&1 ||
				{ echo "scale: $kind ceil: $(head -n 1 /tmp/scale.err)" >&2; break; }
			measure "$NCPU"
			printf '%-9s %12s %8s %10s\n' "$kind" "$BPS" \
				"$(awk -v a="$BPS" -v c="$ceil" 'BEGIN { printf "%.4f", a / c }')" "$PPS"
		done
	done
fi
tc qdisc del dev "$dev" root 2>/dev/null
ip link del "$dev"
