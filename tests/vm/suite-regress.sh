# vm-args: --timeout 400
# SPDX-License-Identifier: GPL-2.0
#
# suite-regress.sh - leaf qdiscs that drop from inside their own ->dequeue
# (qdisc_tree_reduce_backlog -> htbx qlen_notify while htbx is dequeuing
# from that very leaf). Both once crashed the kernel under htbx; they live
# here, apart from suite-leaves, so that a crash does not hide the rest.
#
#   (a) mtu68: root 1: htbx default 10, leaves 1:10 and 1:20 at 100kbit with
#       quantum 1000; fq_codel target 100us interval 1ms on both, created
#       while VETH_A's mtu is 68 (fq_codel's quantum becomes 82 bytes); mtu
#       back to 1500; one 1 mbit UDP flow per class for 3 s. codel then
#       drops nearly every packet at dequeue.
#   (b) blackhole: leaf 1:10 is netem delay 1ms with a blackhole child:
#       every packet netem hands on is dropped inside netem's dequeue.
#   (c) wide: mq mode on a dummy with 300 TX queues, as root (not on
#       debug) and as uid 65534 in a user+net namespace of its own: qdisc add, class add (a
#       leaf turning inner), change, leaf graft, 64 UDP flows through the
#       leaf (every packet counted by the root and the class), qdisc
#       change, class deletes (an inner class a leaf again). A
#       configuration that held every queue's lock at once overflowed
#       preempt_count's 8 bits (and lockdep's 48 held locks): "scheduling
#       while atomic", a panic.
#
# Each case asserts (after its traffic, drain polled): qlen and backlog 0
# on every qdisc and class; class bytes/packets add up to the qdisc's; the
# root's drops are the leaves' drops. (a): the rate stays within the class
# rate; (b): nothing is sent, every packet the sender passed is a drop. A
# crash, and (panic_on_hang) a soft lockup or RCU stall, fails the VM run
# (exit 125); "# regress: CASE: PHASE" before each step names the case.
# TEST_REGRESS_ONLY="mtu68|blackhole|wide" runs one.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

panic_on_hang
TMPD=/tmp/htbx-regress.$$
mkdir -p "$TMPD"
netns_pair || { fail "netns_pair"; exit 1; }
DEV=$VETH_A
T() { tc_a "$@"; }

wanted() { [ -z "${TEST_REGRESS_ONLY:-}" ] || [ "$TEST_REGRESS_ONLY" = "$1" ]; }

# udp_run SECS FLOW...: a UDP sink on the flows' ports in B, then
# htbx-traffic send in A; the sender's report is left in $TMPD/send.out.
udp_run() {
	_secs=$1
	shift
	_ports=
	for _f in "$@"; do _ports="$_ports ${_f%%,*}"; done
	# shellcheck disable=SC2086
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv -t 300 -w 0 $_ports \
		>/dev/null 2>"$TMPD/recv.err"
	_r=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $_r"
	for _p in $_ports; do
		wait_until 10 port_listening "$NS_B" "$_p" || echo "# receiver not listening on $_p"
	done
	bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$ADDR_B" -t "$_secs" "$@" \
		>"$TMPD/send.out" 2>&1
	_s=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $_s"
}

udp_finish() {
	wait "$_s"
	kill "$_r" 2>/dev/null
	wait "$_r" 2>/dev/null
	HTBX_PIDS=$(echo " $HTBX_PIDS " | sed "s/ $_r / /; s/ $_s / /")
}

dump_state() {
	echo "qdiscs:"
	T -s qdisc show dev "$DEV"
	echo "classes:"
	T -s class show dev "$DEV" | grep -A4 '^class htbx'
}

# common_checks CASE LEAFCLASSES...: drain, byte/packet sums, drops.
common_checks() {
	_c=$1
	shift
	if wait_until 20 tc_drained "$DEV"; then
		ok "$_c: drained: qlen 0 and backlog 0 on every qdisc and class"
	else
		fail "$_c: drained: qlen 0 and backlog 0 on every qdisc and class" "$(dump_state)"
	fi
	stable_stats "$DEV" || echo "# counters of $DEV still moving after 6 s (read anyway)"
	set -- $(printf '%s\n' "$qd" | awk '$3 == "root"')
	qb=${4:-0} qp=${5:-0} qdrop=${6:-0}
	set -- $(printf '%s\n' "$cls" | awk '$1 == "htbx" && $4 != "-" {
		b += $5; p += $6; d += $7 } END { print b + 0, p + 0, d + 0 }')
	lb=$1 lp=$2 ldrop=$3
	lqdrop=$(printf '%s\n' "$qd" | awk '$3 ~ /^1:/ { d += $6 } END { print d + 0 }')
	detail="root qdisc $qb bytes $qp pkts $qdrop drops; leaf classes $lb bytes $lp pkts $ldrop drops; leaf qdiscs $lqdrop drops"
	if [ "$lb" -eq "$qb" ] && [ "$lp" -eq "$qp" ]; then
		ok "$_c: leaf classes' bytes/packets = qdisc's ($qb/$qp)"
	else
		fail "$_c: leaf classes' bytes/packets = qdisc's" "$detail"
	fi
	if [ "$qdrop" -eq "$lqdrop" ] && [ "$qdrop" -ge "$ldrop" ] && [ "$qdrop" -gt 0 ]; then
		ok "$_c: drops: root $qdrop = leaf qdiscs $lqdrop, >= classes $ldrop"
	else
		fail "$_c: drops: root = leaf qdiscs > 0, >= classes" "$detail"
	fi
}

# --- (a) fq_codel created at mtu 68 ------------------------------------------

if wanted mtu68; then
	c="mtu68 (fq_codel target 100us interval 1ms made at mtu 68, 100kbit quantum 1000)"
	echo "# regress: mtu68: build"
	if T qdisc add dev "$DEV" root handle 1: htbx default 10 &&
	   T class add dev "$DEV" parent 1: classid 1:10 htbx rate 100kbit quantum 1000 &&
	   T class add dev "$DEV" parent 1: classid 1:20 htbx rate 100kbit quantum 1000 &&
	   in_a "$IP" link set dev "$DEV" mtu 68 &&
	   T qdisc add dev "$DEV" parent 1:10 handle 10: fq_codel target 100us interval 1ms &&
	   T qdisc add dev "$DEV" parent 1:20 handle 20: fq_codel target 100us interval 1ms &&
	   in_a "$IP" link set dev "$DEV" mtu 1500; then
		ok "$c: tree built ($(T qdisc show dev "$DEV" | grep ' 10: ' | cut -c1-90))"
		echo "# regress: mtu68: traffic (1 mbit UDP into each 100kbit class)"
		udp_run 3.5 5001,rate=1mbit 5002,rate=1mbit,prio=0x10020
		rates=$(class_rates "$DEV" 2.5 0.8)
		udp_finish
		r10=$(rate_get "$rates" 1:10)
		r20=$(rate_get "$rates" 1:20)
		line="$c: rates 1:10 $r10, 1:20 $r20 mbit: above 0, not above 0.1 (+15%)"
		if awk -v a="$r10" -v b="$r20" 'BEGIN { exit !(a > 0 && b > 0 && a <= 0.115 && b <= 0.115) }'; then
			ok "$line"
		else
			fail "$line" "$(cat "$TMPD/send.out")"
		fi
		echo "# regress: mtu68: drain and counters"
		common_checks mtu68
	else
		fail "$c: tree built"
	fi
	T qdisc del dev "$DEV" root 2>/dev/null
	in_a "$IP" link set dev "$DEV" mtu 1500
fi

# --- (b) netem with a blackhole child ---------------------------------------------

if wanted blackhole; then
	c="blackhole (netem delay 1ms, blackhole child, under 1:10)"
	echo "# regress: blackhole: build"
	skb0=$(ns_txpkts "$NS_A" "$DEV")
	if T qdisc add dev "$DEV" root handle 1: htbx default 10 &&
	   T class add dev "$DEV" parent 1: classid 1:10 htbx rate 10mbit burst 15k &&
	   T qdisc add dev "$DEV" parent 1:10 handle 10: netem delay 1ms &&
	   T qdisc add dev "$DEV" parent 10: handle 11: blackhole; then
		ok "$c: tree built"
		echo "# regress: blackhole: traffic (5 mbit UDP)"
		udp_run 2 5001,rate=5mbit
		udp_finish
		echo "# regress: blackhole: drain and counters"
		common_checks blackhole
		sent=$(awk '/^port/ { s += $5 } END { print s + 0 }' "$TMPD/send.out")
		set -- $(qdisc_stats "$DEV" | awk '$3 == "root"')
		skbs=$(($(ns_txpkts "$NS_A" "$DEV") - skb0))
		if [ "${4:-1}" -eq 0 ] && [ "$skbs" -eq 0 ] && [ "${6:-0}" -eq "$sent" ] && [ "$sent" -gt 0 ]; then
			ok "blackhole: nothing sent, all $sent packets the sender passed dropped"
		else
			fail "blackhole: nothing sent, every packet dropped" \
				"sender passed $sent; root qdisc sent ${4:-?} bytes, drops ${6:-?}; device $skbs skbs" "$(dump_state)"
		fi
	else
		fail "$c: tree built"
	fi
	T qdisc del dev "$DEV" root 2>/dev/null
fi

# --- (c) mq mode on 300 TX queues ---------------------------------------------

# $TMPD/wide.sh: the steps of (c), in the network namespace it runs in.
# Between the leaf graft and the qdisc change, 64 UDP flows of 100 kbit
# for 2 s go out of the dummy through 1:10 (the flow hash spreads them
# over its 300 queues), and every qdisc and class is left to drain. Prints
# the step that failed, or "sent S root R class C" (packets: the sender's,
# the root's, 1:10's) and the classes left at the end.
_flows=
for _i in $(seq 0 63); do _flows="$_flows $((6000 + _i)),rate=100kbit"; done
cat >"$TMPD/wide.sh" <<EOF
d=wq\$\$
# IPv6 off: its router solicitations and reports would be counted too
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6 2>/dev/null
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null
run() {
	for s in "\$@"; do
		$TC \$s || { echo "step: tc \$s"; exit 1; }
	done
}
drained() {
	$TC -s qdisc show dev "\$d" | grep -q 'backlog [1-9]' && return 1
	$TC -s class show dev "\$d" | grep -q 'backlog [1-9]' && return 1
	return 0
}
$IP link add "\$d" numtxqueues 300 type dummy &&
$IP link set "\$d" up &&
$IP addr add 198.18.9.1/24 dev "\$d" || { echo "step: link add"; exit 1; }
run "qdisc add dev \$d root handle 1: htbx default 10 mq" \\
    "class add dev \$d parent 1: classid 1:1 htbx rate 100mbit" \\
    "class add dev \$d parent 1:1 classid 1:10 htbx rate 10mbit ceil 100mbit" \\
    "class add dev \$d parent 1:1 classid 1:20 htbx rate 20mbit ceil 100mbit" \\
    "class change dev \$d parent 1:1 classid 1:10 htbx rate 30mbit ceil 100mbit quantum 3000" \\
    "qdisc add dev \$d parent 1:10 handle 10: fq_codel"
sent=\$($HTBX_TRAFFIC send -d 198.18.9.2 -t 2 $_flows |
	awk '\$1 == "port" { n += \$5 } END { print n + 0 }')
i=0
while ! drained && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
drained || { echo "step: drain"; $TC -s qdisc show dev "\$d" | head -n 20; exit 1; }
root=\$($TC -s qdisc show dev "\$d" | awk '\$2 == "htbx" { r = 1 } r && \$1 == "Sent" { print \$4; exit }')
class=\$($TC -s class show dev "\$d" classid 1:10 | awk '\$1 == "Sent" { print \$4; exit }')
echo "sent \$sent root \$root class \$class"
run "qdisc change dev \$d root handle 1: htbx default 20 r2q 5" \\
    "class del dev \$d classid 1:20" \\
    "class del dev \$d classid 1:10"
$TC class show dev "\$d" | awk '{ print \$3 }' | paste -sd' '
$IP link del "\$d"
EOF

# wide_check: $out, wide.sh's report, through the checks of (c), as $who.
wide_check() {
	_cls=$(echo "$out" | tail -n 1)
	# shellcheck disable=SC2046
	set -- $(echo "$out" | awk '$1 == "sent" { print $2, $4, $6 }')
	if [ "${1:-0}" -gt 0 ] && [ "$1" = "${2:-}" ] && [ "$1" = "${3:-}" ] && [ "$_cls" = "1:1" ]; then
		ok "wide: 300 TX queues in mq mode, $who: every step taken, 64 flows' $1 packets counted by the root and 1:10, 1:1 left"
	else
		fail "wide: 300 TX queues in mq mode, $who" "$out" "$(cat "$TMPD/wide.err")"
	fi
}

# On debug (35 s a run there) only as uid 65534: the same requests, and
# the user's memory accounting under its detectors; as root on the Debian
# lines.
if wanted wide; then
	if [ "${HTBX_KLINE:-}" != debug ]; then
		echo "# regress: wide: as root"
		who="as root"
		out=$(in_a sh "$TMPD/wide.sh" 2>"$TMPD/wide.err")
		wide_check
	fi
	echo "# regress: wide: as uid 65534 in a user+net namespace"
	chmod 755 "$TMPD"
	chmod 644 "$TMPD/wide.sh"
	who="as uid 65534"
	out=$("$HTBX_TOP/tools/bin/htbx-userns" sh "$TMPD/wide.sh" 2>"$TMPD/wide.err")
	wide_check
fi

rm -rf "$TMPD"
exit 0
