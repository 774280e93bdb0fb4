#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pps.sh - packets per second through htbx vs mainline htb, same boot.
#
#   bench/pps.sh [--kernel 6.1|6.12|both] [--count N]
#
# Boots the pinned kernel(s) under --icount (1 ns of guest time per guest
# instruction, so the figures repeat whatever the host is doing) and, in
# the guest, runs pktgen (xmit_mode queue_xmit, 60-byte UDP) into a dummy
# device whose root qdisc is, in turn, pfifo (reference), then the same
# class tree as htbx and as htb:
#
#   1class   one class 1:10 at 10gbit, reached as the default class
#   4leaves  1:1 at 10gbit with 4 leaves, 64leaves: with 64 leaves; leaves
#            rate 1mbit ceil 10gbit (all of them borrow); a u32 hash on
#            the low bits of the UDP dst port spreads the packets evenly
#
# pps is pktgen's own figure; ratio is htbx/htb (1.00: same cost per
# packet). Not a test: nothing is asserted.

top=${HTBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}

if [ "${1:-}" != --guest ]; then
	lines=both count=200000
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) lines=$2; shift 2 ;;
		--count) count=$2; shift 2 ;;
		*) echo "usage: bench/pps.sh [--kernel 6.1|6.12|both] [--count N]" >&2; exit 2 ;;
		esac
	done
	[ "$lines" = both ] && lines="6.1 6.12"
	rc=0
	for l in $lines; do
		"$top/scripts/vm" --kernel "$l" --icount --timeout 900 -- \
			sh "$top/bench/pps.sh" --guest "$count" || rc=1
	done
	exit $rc
fi

# ---- in the guest ----
count=${2:-200000}
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

# tree KIND NLEAVES: 0 leaves = one class reached as the default.
tree()
{
	local kind="$1" n="$2" i hex div
	tc qdisc del dev "$dev" root 2>/dev/null
	if [ "$n" = 0 ]; then
		tc qdisc add dev "$dev" root handle 1: "$kind" default 10 &&
		tc class add dev "$dev" parent 1: classid 1:10 "$kind" \
			rate 10gbit ceil 10gbit burst 64k cburst 64k
		return
	fi
	tc qdisc add dev "$dev" root handle 1: "$kind" default 0 &&
	tc class add dev "$dev" parent 1: classid 1:1 "$kind" \
		rate 10gbit ceil 10gbit burst 64k cburst 64k || return 1
	div=$n
	tc filter add dev "$dev" parent 1: prio 1 handle 2: protocol ip u32 divisor "$div" &&
	tc filter add dev "$dev" parent 1: prio 1 protocol ip u32 ht 800:: \
		match ip protocol 17 0xff hashkey mask "$(printf '0x%08x' $((n - 1)))" at 20 \
		link 2: || return 1
	i=0
	while [ "$i" -lt "$n" ]; do
		hex=$(printf '%x' $((0x100 + i)))
		tc class add dev "$dev" parent 1:1 classid "1:$hex" "$kind" \
			rate 1mbit ceil 10gbit burst 64k cburst 64k &&
		tc filter add dev "$dev" parent 1: prio 1 protocol ip u32 \
			ht "2:$(printf '%x' "$i"):" match u32 0 0 flowid "1:$hex" || return 1
		i=$((i + 1))
	done
}

run()
{
	pgset pgctrl start
	sed -n 's/.* \([0-9][0-9]*\)pps.*/\1/p' "$PG/$dev" | head -n1
}

# Classes that carried at least one packet.
busy_leaves()
{
	tc -s class show dev "$dev" | grep -c 'Sent [1-9]'
}

echo "# pps.sh: $(uname -r), pktgen queue_xmit, $count x 60-byte UDP, icount=${HTBX_ICOUNT:-0}"
tc qdisc add dev "$dev" root handle 1: pfifo limit 1000
printf '%-9s %10s\n' pfifo "$(run)"
printf '%-9s %10s %10s %7s\n' tree htbx htb ratio
for n in 0 4 64; do
	name=${n}leaves
	[ "$n" = 0 ] && name=1class
	for kind in htbx htb; do
		if tree "$kind" "$n" >/tmp/pps.err 2>&1; then
			eval "pps_$kind=$(run)"
		else
			eval "pps_$kind=0"
			echo "pps: $kind $name: $(head -n1 /tmp/pps.err)" >&2
		fi
		eval "sent_$kind=\"\$(tc -s qdisc show dev $dev | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*dropped \([0-9]*\).*/\1 sent \2 dropped/p' | head -n1), \$(busy_leaves) busy classes\""
	done
	ratio=$(awk -v a="$pps_htbx" -v b="$pps_htb" 'BEGIN { if (b) printf "%.3f", a / b; else print "-" }')
	printf '%-9s %10s %10s %7s   (htbx %s; htb %s)\n' "$name" "$pps_htbx" "$pps_htb" "$ratio" "$sent_htbx" "$sent_htb"
done
tc qdisc del dev "$dev" root
ip link del "$dev"
