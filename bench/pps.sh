#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pps.sh - packets per second through htbx vs mainline htb, same boot.
#
#   bench/pps.sh [--kernel LINE|both] [--count N] [--leaves "N..."]
#   bench/pps.sh --profile TREE [--kernel LINE] [--count N]
#
# Boots the pinned kernel(s) under --icount (1 ns of guest time per guest
# instruction, so the figures repeat whatever the host is doing) and, in
# the guest, runs pktgen (xmit_mode queue_xmit, 60-byte UDP) into a dummy
# device whose root qdisc is, in turn, pfifo and prio (references), then
# the same class tree as htbx and as htb. pfifo at the root is bypassed
# whenever it is empty (TCQ_F_CAN_BYPASS: __dev_xmit_skb hands the packet
# straight to the driver), which under pktgen's queue_xmit is every packet,
# so pfifo's figure is the stack without a qdisc; prio (2 bands, every
# packet to band 0, a pfifo child) has no bypass: the cost of a classful
# qdisc's enqueue and dequeue through a child, without shaping. Trees:
#
#   1class   one class 1:10 at 10gbit, reached as the default class
#   1prio    the same class, named by skb->priority (no filter runs)
#   1u32     the same class, chosen by a u32 filter (match UDP, flowid)
#   deep8    a chain of 8 levels, 1:1 at 10gbit, each class below it rate
#            1mbit ceil 10gbit: every packet borrows through 7 ancestors;
#            the leaf named by skb->priority
#   deep8u32 the same chain, the leaf chosen by that u32 filter
#   4leaves  1:1 at 10gbit with 4 leaves, 64leaves: with 64 leaves; leaves
#            rate 1mbit ceil 10gbit (all of them borrow); a u32 hash on
#            the low bits of the UDP dst port spreads the packets evenly
#   Nflow    (--leaves, default 1024 16384) N leaves as above, made with
#            one tc -batch; one flow filter (map key proto-dst, divisor N)
#            sends UDP port p to leaf 1:(0x100 + p % N), and pktgen steps
#            through N ports, so every leaf gets every N-th packet: the
#            filter's cost is the same for every N, the scheduler's is what
#            grows, if anything does. N at most 65000 (16-bit minors).
#
# --profile TREE (a tree of the list, as the table names it: 1class,
# 64leaves, 1024flow, ...) runs that tree only, htbx then htb, each under
# perf record (cpu-clock at 50 kHz of guest time: under --icount the
# samples fall in proportion to instructions) and prints, per kind, where
# pktgen's thread spent its samples, by function; for htbx also by source
# line (nm and addr2line on build/RELEASE/sch_htbx.ko, which has debug
# info), innermost inlined function first (TCG takes interrupts between
# translation blocks: a line's samples are those of the block it starts,
# a function's total is fair). The host's perf (Debian's
# linux-perf) runs in the guest: it and its libraries are staged, with
# the dynamic loader, in $(lines/cachedir)/perf/ID/ (ID: perf's build
# id), and the guest is started from there (lines/vm shares the current
# directory).
#
# pps is pktgen's own figure; ratio is htbx/htb (1.00: same cost per
# packet), cost is the ns per packet over pfifo's, htbx/htb (< 1: htbx's
# scheduling costs less; the guest's instruction count, --icount). Not a
# test: nothing is asserted.

top=${HTBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}

if [ "${1:-}" != --guest ]; then
	lines=both count=200000 leaves="1024 16384" profile=
	usage="usage: bench/pps.sh [--kernel LINE|both] [--count N] [--leaves \"N...\"] | --profile TREE [--kernel LINE] [--count N]"
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel|--count|--leaves|--profile)
			[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
			case $1 in
			--kernel) lines=$2 ;;
			--count) count=$2 ;;
			--leaves) leaves=$2 ;;
			--profile) profile=$2 ;;
			esac
			shift 2 ;;
		*) echo "$usage" >&2; exit 2 ;;
		esac
	done
	for n in $count $leaves; do
		case $n in ''|*[!0-9]*) echo "pps: not a number: $n" >&2; exit 2 ;; esac
	done
	for n in $leaves; do
		[ "$n" -ge 1 ] && [ "$n" -le 65000 ] ||
			{ echo "pps: --leaves: N must be 1 .. 65000 (16-bit minors)" >&2; exit 2; }
	done
	if [ -n "$profile" ]; then
		[ "$lines" = both ] && lines=6.12
		exec "$top/bench/profile-map.sh" "$lines" "$count" "$profile"
	fi
	[ "$lines" = both ] && lines="6.1 6.12"
	rc=0
	for l in $lines; do
		"$top/lines/vm" --kernel "$l" --icount --mem 2048 --timeout 3000 -- \
			sh "$top/bench/pps.sh" --guest "$count" $leaves || rc=1
	done
	exit $rc
fi

# ---- in the guest ----
count=${2:-200000}
shift 2
# --profile TREE (from bench/profile-map.sh): perf staged in HTBX_PERF_DIR,
# its output into HTBX_PERF_OUT
profile=
if [ "${1:-}" = --profile ]; then
	profile=$2
	shift 2
	PERF="$HTBX_PERF_DIR/lib/ld-linux-x86-64.so.2 --library-path $HTBX_PERF_DIR/lib $HTBX_PERF_DIR/perf"
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	uname -r >"$HTBX_PERF_OUT/release"
fi
dev=pg0
PG=/proc/net/pktgen

modprobe dummy numdummies=0 && modprobe pktgen || exit 1
ip link add "$dev" type dummy || exit 1
ip link set "$dev" txqueuelen 1000 up
ip addr add 198.19.0.1/24 dev "$dev"

pgset()
{
	echo "$2" >"$PG/$1" || echo "pps: pktgen $1: '$2' refused" >&2
}

pgset kpktgend_0 rem_device_all
pgset kpktgend_0 "add_device $dev"
for c in "count $count" "pkt_size 60" "delay 0" "burst 1" \
	 "xmit_mode queue_xmit" "dst 198.19.0.2" "dst_mac 02:00:00:00:00:02" \
	 "udp_src_min 9" "udp_src_max 9" "udp_dst_min 1024" "udp_dst_max 1088"; do
	pgset "$dev" "$c"
done

# skb->priority naming class 1:MINOR (hex), 0: none
prio_of() { echo $((0x10000 + 0x$1)); }

# The class options: the top class (and the one class of 1class/1prio),
# and every class below 1:1 (all of them borrow).
TOP="rate 10gbit ceil 10gbit burst 64k cburst 64k"
LEAF="rate 1mbit ceil 10gbit burst 64k cburst 64k"

# u32_to CLASS: one u32 filter at the root sends every UDP packet to CLASS.
u32_to()
{
	tc filter add dev "$dev" parent 1: prio 1 protocol ip u32 \
		match ip protocol 17 0xff flowid "$1"
}

# tree KIND SHAPE: SHAPE 1class, 1prio, 1u32, deep8, deep8u32, N (u32, N <= 64)
# or Nflow.
tree()
{
	local kind="$1" n="$2" i hex
	tc qdisc del dev "$dev" root 2>/dev/null
	pgset "$dev" "skb_priority 0"
	pgset "$dev" "udp_dst_max 1088"
	case $n in
	1class|1prio|1u32)
		tc qdisc add dev "$dev" root handle 1: "$kind" default 10 &&
		tc class add dev "$dev" parent 1: classid 1:10 "$kind" $TOP || return 1
		case $n in
		1prio) pgset "$dev" "skb_priority $(prio_of 10)" ;;
		1u32) u32_to 1:10 || return 1 ;;
		esac
		return ;;
	esac
	# every other shape: 1:1 at the top, its classes below it
	tc qdisc add dev "$dev" root handle 1: "$kind" default 0 &&
	tc class add dev "$dev" parent 1: classid 1:1 "$kind" $TOP || return 1
	case $n in
	deep8|deep8u32)
		for i in 2 3 4 5 6 7 8; do
			tc class add dev "$dev" parent "1:$((i - 1))" classid "1:$i" "$kind" \
				$LEAF || return 1
		done
		if [ "$n" = deep8 ]; then
			pgset "$dev" "skb_priority $(prio_of 8)"
		else
			u32_to 1:8 || return 1
		fi ;;
	*flow)
		n=${n%flow}
		awk -v n="$n" -v d="$dev" -v k="$kind" -v o="$LEAF" 'BEGIN {
			for (i = 0; i < n; i++)
				printf "class add dev %s parent 1:1 classid 1:%x %s %s\n", d, 256 + i, k, o
		}' >/tmp/pps.batch
		tc -batch /tmp/pps.batch || return 1
		tc filter add dev "$dev" parent 1: protocol ip prio 1 handle 1 \
			flow map key proto-dst baseclass 1:100 divisor "$n" || return 1
		pgset "$dev" "udp_dst_max $((1024 + n - 1))" ;;
	*)
		tc filter add dev "$dev" parent 1: prio 1 handle 2: protocol ip u32 divisor "$n" &&
		tc filter add dev "$dev" parent 1: prio 1 protocol ip u32 ht 800:: \
			match ip protocol 17 0xff hashkey mask "$(printf '0x%08x' $((n - 1)))" at 20 \
			link 2: || return 1
		i=0
		while [ "$i" -lt "$n" ]; do
			hex=$(printf '%x' $((0x100 + i)))
			tc class add dev "$dev" parent 1:1 classid "1:$hex" "$kind" $LEAF &&
			tc filter add dev "$dev" parent 1: prio 1 protocol ip u32 \
				ht "2:$(printf '%x' "$i"):" match u32 0 0 flowid "1:$hex" || return 1
			i=$((i + 1))
		done ;;
	esac
}

run()
{
	if [ -n "$profile" ]; then
		$PERF record -q -a -e cpu-clock -F 50000 -o "/tmp/perf.$kind" -- \
			sh -c "echo start >$PG/pgctrl" >/dev/null 2>&1
	else
		pgset pgctrl start
	fi
	sed -n 's/.* \([0-9][0-9]*\)pps.*/\1/p' "$PG/$dev" | head -n1
}

# --profile: pktgen's thread's samples of the last run by function (top
# 30, % of the thread's), the share of the kind's own functions (htbx_*,
# htb_*: what they call outside, rb_* or list checks, is not in it), and
# each sample's function+offset for profile-map.sh.
perf_out()
{
	echo "# $kind $name, pktgen's thread by function:"
	$PERF report -i "/tmp/perf.$kind" --stdio --comm kpktgend_0 \
		--percentage relative --sort sym 2>/dev/null |
		grep -v '^#' | grep . | head -n 30
	$PERF script -i "/tmp/perf.$kind" --comm kpktgend_0 -F ip,sym,symoff 2>/dev/null |
		awk '{ print $2 }' | sort | uniq -c >"$HTBX_PERF_OUT/symoff.$kind"
	awk -v k="$kind" '{ all += $1 } index($2, k "_") == 1 { own += $1 }
		END { printf "# %s %s: functions named %s_* took %.1f %% of the thread'"'"'s %d samples\n",
			k, name, k, all ? 100 * own / all : 0, all }' name="$name" "$HTBX_PERF_OUT/symoff.$kind"
}

# Classes that carried at least one packet.
busy_leaves()
{
	tc -s class show dev "$dev" | grep -c 'Sent [1-9]'
}

echo "# pps.sh: $(uname -r), pktgen queue_xmit, $count x 60-byte UDP, icount=${HTBX_ICOUNT:-0}"
tc qdisc add dev "$dev" root handle 1: pfifo limit 1000
pfifo=$(run)
printf '%-9s %10s   (root bypass: an empty queue is skipped)\n' pfifo "$pfifo"
tc qdisc del dev "$dev" root
tc qdisc add dev "$dev" root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
printf '%-9s %10s   (enqueued and dequeued through a pfifo child, no shaping)\n' prio "$(run)"
printf '%-9s %10s %10s %7s %6s %9s\n' tree htbx htb ratio cost htbx/pfifo
shapes="1class 1prio 1u32 deep8 deep8u32 4 64"
for n in "$@"; do shapes="$shapes ${n}flow"; done
if [ -n "$profile" ]; then
	shapes=${profile%leaves}
fi
for n in $shapes; do
	name=$n
	case $n in [0-9]|[0-9][0-9]) name=${n}leaves ;; esac
	for kind in htbx htb; do
		if tree "$kind" "$n" >/tmp/pps.err 2>&1; then
			eval "pps_$kind=$(run)"
			[ -z "$profile" ] || perf_out
		else
			eval "pps_$kind=0"
			echo "pps: $kind $name: $(grep -v '^Warning' /tmp/pps.err | head -n1)" >&2
		fi
		eval "sent_$kind=\"\$(tc -s qdisc show dev $dev | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*dropped \([0-9]*\).*/\1 sent \2 dropped/p' | head -n1), \$(busy_leaves) busy classes\""
	done
	# cost: ns per packet above pfifo's, htbx over htb
	figs=$(awk -v a="$pps_htbx" -v b="$pps_htb" -v p="$pfifo" 'BEGIN {
		if (!a || !b || !p) { print "- - -"; exit }
		printf "%.3f %.3f %.3f", a / b, (1e9 / a - 1e9 / p) / (1e9 / b - 1e9 / p), a / p }')
	set -- $figs
	printf '%-9s %10s %10s %7s %6s %9s   (htbx %s; htb %s)\n' "$name" "$pps_htbx" "$pps_htb" \
		"$1" "$2" "$3" "$sent_htbx" "$sent_htb"
done
tc qdisc del dev "$dev" root
ip link del "$dev"
