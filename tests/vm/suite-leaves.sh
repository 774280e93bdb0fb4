# vm-args: --icount --timeout 1500
# vm-args-debug: --timeout 1500
# SPDX-License-Identifier: GPL-2.0
#
# suite-leaves.sh - every kind of leaf qdisc under htbx classes, each made
# to drop by real traffic: bulk TCP with GSO (veth has TSO on by default), a
# UDP flood, and a mix of sizes (UDP payloads 64 B .. 60 KB, IP-fragmented
# above the MTU; TCP writes of 100 B, 9000 B, 64 KB).
#
#   netns A: htbx-traffic send --> VETH_A ====== VETH_B --> recv (netns B)
#   root 1: htbx default 10
#     1:1  rate 12.5mbit (above the two ceils: not a bottleneck)
#       1:10 rate 3mbit ceil 4mbit    leaf 10: KIND ...   (unclassified)
#       1:20 rate 5mbit ceil 6mbit    leaf 20: KIND ...   (SO_PRIORITY 1:20)
# Low rates on purpose: on a shared 2-core host a TCG guest starves at
# 8-12 mbit (htb misses its ceil by 10-30 % as much as htbx does).
#
# Per kind, with the tree built afresh (counters from 0):
#   bulk  2.2 s: UDP flood (1400 B, 12 mbit: 3x the ceil) -> 1:10, TCP
#         64 KB writes -> 1:20.
#         The 1:10 rate is measured from the class byte counter over 1.5 s
#         (htbx-traffic tcrate: the clock is read around the netlink dumps);
#         it must be the ceil (4 mbit) +-10 %, or, for leaves that shape by
#         themselves (tbf, netem rate, nested htbx/htb at half the ceil),
#         the leaf's rate +-10 %. 1:20 must not pass its ceil (+10 %).
#         A 1:10 short of its target gets one more window (a vCPU the busy
#         host stalls loses time that no shaper makes up; htb the same).
#   mix   1.5 s: UDP 64/1000/4000/16000/60000 B, TCP 100/9000 B writes.
#   Rates are judged only on RATE_LINES (lines/versions.mk); on the other
#   lines bulk and mix last 0.8 s each and bulk has no rate window.
#   then, once the qdisc has drained (polled):
#     - qlen and backlog 0 on every qdisc and class (hhf: but the root's
#       byte backlog, see run_case);
#     - bytes: sum over leaf classes = 1:1 = root qdisc;
#     - packets: the same (GSO segments, as the qdisc counts them, not skbs);
#     - giants 0 on the leaf classes (TCP/GSO passed through them);
#     - drops: the leaves dropped; root drops >= sum of class drops; each
#       class's drops <= its leaf qdisc's; root drops = sum of leaf-qdisc
#       drops (tbf: <=, it drops segments of GSO packets it split itself).
# 1:10 short of its target in both windows reruns the bulk phase with
# mainline htb as the root: htb on target and htbx more than 10 % below
# htb is a failure; otherwise a skip (the guest could not carry the rate:
# plain TCG on a busy 2-core host does that), reported after the kind's
# other results.
# A kind the kernel lacks is a counted skip. "# leaf: KIND: PHASE" comes
# before each step, so a crash (lines/vm exit 125; soft lockups and RCU
# stalls panic too, see panic_on_hang) names the kind that ran. The kinds
# that drop or wait inside their own dequeue (cake, netem, codel, fq_codel)
# run last.
#
# make check runs it under --icount (one vCPU, deterministic clock) on the
# Debian lines: rates free of host load (6.12: 148 of 148 checks, 402 s of
# host time; plain TCG took 303 s on 6.1 but missed cake's ceil by 24 %
# where htb in the same boot made it). The debug line runs plain TCG
# (vm-args-debug); it judges no rates, as no line outside RATE_LINES does.
#
# Local debugging only: TEST_LEAVES_ONLY="k1 k2" runs just those kinds,
# TEST_LEAVES_SKIP="k1 k2" reports them as skipped, TEST_LEAVES_ROOT=htb
# runs the same cases under mainline htb (to tell htbx's failures from the
# environment's), TEST_LEAVES_FLOOD=RATE sets the 1:10 flood ("" unpaced).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

KINDS="pfifo bfifo pfifo_head_drop sfq fq fq_pie pie red hhf tbf prio drr ets
htbx htb cake netem netem_rate netem_child codel fq_codel"
# The debug kernel (KASAN, lockdep, kmemleak: a kind costs 2 minutes there,
# every exec of tc or jq 1.4 s) runs the two kinds that drop inside their
# own dequeue and re-enter htbx (netem with a child, fq_codel), with the
# counters and drain after each; like every line outside RATE_LINES it
# has no rate window (rates are the rate lines' and seed000's business).
# TEST_LEAVES_DEBUG_KINDS="..." picks others.
# Rates are judged on the rate lines (RATE_LINES in lines/versions.mk:
# bookworm's 6.12 and the newest 7.x); elsewhere the bulk phase is a
# shorter flood with no rate window (BULK_T, MIX_T: the drops, counters and
# drain are what differs between kernels) and no rate line is printed.
JUDGE_RATES=1 CEILS="4000 6000" BULK_T=2.2 MIX_T=1.5
if [ -n "${HTBX_KLINE:-}" ] && ! bash "$HTBX_TOP/lines/kline" rates "$HTBX_KLINE"; then
	JUDGE_RATES=0 BULK_T=0.8 MIX_T=0.8
fi
case ${HTBX_KLINE:-} in
debug)
	KINDS=${TEST_LEAVES_DEBUG_KINDS:-"netem_child fq_codel"}
	# a tenth of the rates: at 4 mbit the debug guest could not send
	# the flood's 12 and fq_codel dropped nothing
	CEILS="400 600"
	;;
esac

panic_on_hang
TMPD=/tmp/htbx-leaves.$$
mkdir -p "$TMPD"
netns_pair || { fail "netns_pair"; exit 1; }
DEV=$VETH_A
in_a "$IP" link set dev "$DEV" txqueuelen 1000
# 1:10 and 1:20: ceil in kbit (TEST_LEAVES_CEILS="C10 C20" for other
# figures; rates are 3/4 and 5/6 of them); shaping leaves run at half.
set -- ${TEST_LEAVES_CEILS:-$CEILS}
CEIL_10=$1
CEIL_20=$2
TOL=10
ROOT=${TEST_LEAVES_ROOT:-htbx}
# The 1:10 flood: 3x its ceil, paced. Unpaced, the sender alone starves the
# guest's TCG vCPUs and even mainline htb then misses the ceil by 10-25 %.
FLOOD=${TEST_LEAVES_FLOOD-$((CEIL_10 * 3))kbit}

# ------------------------------------------------------------ leaf kinds
# leaf_KIND CLASSID HANDLE INNER_KBIT: the leaf qdisc (and what it needs)
# under CLASSID, handle HANDLE:, sub-handles HANDLE1: HANDLE2: ...
# The AQMs' targets (20 ms; cake: rtt 400ms) are above a TCG guest's
# scheduling jitter: with a 2 ms target codel keeps one 1400 B packet (2.8
# ms at 4 mbit) and any stall empties the class, under htb as well. The
# flood still overruns the limits, so they drop at dequeue (the re-entry
# path; suite-regress has the 100us target).

T() { tc_a "$@"; }
leaf_pfifo()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": pfifo limit 10; }
leaf_bfifo()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": bfifo limit 30000; }
leaf_pfifo_head_drop()	{ T qdisc add dev "$DEV" parent "$1" handle "$2": pfifo_head_drop limit 10; }
leaf_sfq()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": sfq limit 16 depth 8; }
leaf_fq()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": fq limit 40 flow_limit 10; }
leaf_fq_pie()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": fq_pie limit 40 flows 16 target 20ms; }
leaf_pie()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": pie limit 40 target 20ms tupdate 5ms; }
leaf_red() {
	T qdisc add dev "$DEV" parent "$1" handle "$2": red limit 200000 \
		min 15000 max 45000 avpkt 1500 burst 20 probability 0.2 bandwidth "$3"kbit
}
leaf_hhf()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": hhf limit 40; }
leaf_tbf()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": tbf rate "$3"kbit burst 5000 limit 15000; }
leaf_prio() {
	T qdisc add dev "$DEV" parent "$1" handle "$2": prio bands 3 &&
	for b in 1 2 3; do
		T qdisc add dev "$DEV" parent "$2:$b" handle "$2$b": pfifo limit 8 || return 1
	done
}
leaf_drr() {
	T qdisc add dev "$DEV" parent "$1" handle "$2": drr &&
	T class add dev "$DEV" parent "$2": classid "$2:1" drr quantum 1514 &&
	T qdisc add dev "$DEV" parent "$2:1" handle "$2"1: pfifo limit 8 &&
	{ T filter add dev "$DEV" parent "$2": protocol all prio 1 matchall classid "$2:1" 2>/dev/null ||
	  T filter add dev "$DEV" parent "$2": protocol all prio 1 u32 match u32 0 0 classid "$2:1"; }
}
leaf_ets() {
	T qdisc add dev "$DEV" parent "$1" handle "$2": ets bands 2 strict 1 &&
	T qdisc add dev "$DEV" parent "$2:1" handle "$2"1: pfifo limit 8 &&
	T qdisc add dev "$DEV" parent "$2:2" handle "$2"2: pfifo limit 8
}
leaf_nested() {	# KIND CLASSID HANDLE INNER_KBIT
	T qdisc add dev "$DEV" parent "$2" handle "$3": "$1" default 1 &&
	T class add dev "$DEV" parent "$3": classid "$3:1" "$1" rate "$4"kbit ceil "$4"kbit burst 15k &&
	T qdisc add dev "$DEV" parent "$3:1" handle "$3"1: pfifo limit 10
}
leaf_htbx()		{ leaf_nested htbx "$@"; }
leaf_htb()		{ leaf_nested htb "$@"; }
leaf_cake()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": cake unlimited besteffort flows rtt 400ms memlimit 128kb; }
leaf_netem()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": netem delay 1ms limit 20 loss 1%; }
leaf_netem_rate()	{ T qdisc add dev "$DEV" parent "$1" handle "$2": netem delay 1ms rate "$3"kbit limit 20; }
leaf_netem_child() {
	T qdisc add dev "$DEV" parent "$1" handle "$2": netem delay 1ms limit 50 &&
	T qdisc add dev "$DEV" parent "$2": handle "$2"1: pfifo limit 5
}
leaf_codel()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": codel limit 40 target 20ms interval 200ms; }
leaf_fq_codel()		{ T qdisc add dev "$DEV" parent "$1" handle "$2": fq_codel limit 40 flows 16 target 20ms interval 200ms; }

# Modules a kind needs ("" = built into every kernel: sch_fifo).
kind_mods() {
	case $1 in
	pfifo|bfifo|pfifo_head_drop) echo "" ;;
	netem*) echo sch_netem ;;
	drr) echo sch_drr ;;
	htbx) echo sch_htbx ;;
	*) echo "sch_$1" ;;
	esac
}

# Kinds whose rate is their own (half the class ceil), not the class's.
kind_shapes() {
	case $1 in tbf|netem_rate|htbx|htb) return 0 ;; esac
	return 1
}

# ---------------------------------------------------------------- traffic

RECV_PIDS=
SEND_PIDS=

recv_start() {
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv -t 300 -w 0 \
		5001 5101 5102 5103 5104 5105 >/dev/null 2>"$TMPD/recv-udp.err"
	RECV_PIDS="$BG_PID"
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv --tcp -t 300 -w 0 \
		5002 5201 5202 >/dev/null 2>"$TMPD/recv-tcp.err"
	RECV_PIDS="$RECV_PIDS $BG_PID"
	HTBX_PIDS="$HTBX_PIDS $RECV_PIDS"
	for p in 5001 5105; do
		wait_until 10 port_listening "$NS_B" $p || return 1
	done
	for p in 5002 5201 5202; do
		wait_until 10 port_listening "$NS_B" $p tcp || return 1
	done
}

# send_bg ARGS...: htbx-traffic send -d ADDR_B ARGS... in NS_A, backgrounded.
send_bg() {
	bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$ADDR_B" "$@" \
		>>"$TMPD/send.log" 2>&1
	SEND_PIDS="$SEND_PIDS $BG_PID"
	HTBX_PIDS="$HTBX_PIDS $BG_PID"
}

pids_forget() {
	for _p in "$@"; do
		HTBX_PIDS=$(echo " $HTBX_PIDS " | sed "s/ $_p / /")
	done
}

send_wait() {
	for p in $SEND_PIDS; do
		wait "$p" 2>/dev/null
	done
	pids_forget $SEND_PIDS
	SEND_PIDS=
}

recv_stop() {
	for p in $RECV_PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $RECV_PIDS; do
		wait "$p" 2>/dev/null
	done
	pids_forget $RECV_PIDS
	RECV_PIDS=
}

up() { cut -d' ' -f1 /proc/uptime; }
# bulk: the bulk phase's traffic (2.2 s); 1:10 and 1:20 over 1.5 s of it
# in $rates (class_rates lines).
# Without rates (JUDGE_RATES=0) BULK_T of traffic, no window.
bulk() {
	send_bg -t "$BULK_T" -s 1400 5001${FLOOD:+,rate=$FLOOD}
	send_bg -t "$BULK_T" -s 65507 --tcp 5002,prio=0x10020
	rates=
	[ "$JUDGE_RATES" = 0 ] || rates=$(class_rates "$DEV" 1.5 0.6)
	send_wait
}

tx_skbs() { ns_txpkts "$NS_A" "$DEV"; }

# ------------------------------------------------------------------ cases

build_tree() {	# KIND
	T qdisc del dev "$DEV" root 2>/dev/null
	T qdisc add dev "$DEV" root handle 1: $ROOT default 10 &&
	T class add dev "$DEV" parent 1: classid 1:1 $ROOT rate $(((CEIL_10 + CEIL_20) * 5 / 4))kbit burst 15k quantum 60000 &&
	T class add dev "$DEV" parent 1:1 classid 1:10 $ROOT rate $((CEIL_10 * 3 / 4))kbit ceil "$CEIL_10"kbit burst 15k cburst 15k &&
	T class add dev "$DEV" parent 1:1 classid 1:20 $ROOT rate $((CEIL_20 * 5 / 6))kbit ceil "$CEIL_20"kbit burst 15k cburst 15k &&
	"leaf_$1" 1:10 10 $((CEIL_10 / 2)) &&
	"leaf_$1" 1:20 20 $((CEIL_20 / 2))
}

dump_state() {
	echo "qdiscs:"
	T -s qdisc show dev "$DEV"
	echo "classes:"
	T -s class show dev "$DEV" | grep -A4 "^class $ROOT 1:"
}

# judge_bulk KIND: the bulk phase's rates on a rate line (a second window
# when 1:10 is short); sets rate_ok (1 pass, 0 fail, "short": judged
# after htb, see run_case) and line, exp for run_case.
judge_bulk() {
	k=$1
	if kind_shapes "$k"; then
		exp=$(awk -v c="$CEIL_10" 'BEGIN { print c / 2000 }')
		what="the leaf's own rate"
	else
		exp=$(awk -v c="$CEIL_10" 'BEGIN { print c / 1000 }')
		what="the ceil"
	fi
	lim20=$(awk -v c="$CEIL_20" 'BEGIN { print c / 1000 }')
	r10=$(rate_get "$rates" 1:10)
	r20=$(rate_get "$rates" 1:20)
	again=
	# Short of the target only (not over it): a stalled vCPU on a busy
	# host loses time no shaper can make up; one more window decides.
	if ! within "$r10" "$exp" $TOL &&
	   awk -v a="$r10" -v e="$exp" 'BEGIN { exit !(a < e) }'; then
		echo "# leaf: $k: 1:10 at $r10 mbit: a second window (t=$(up))"
		bulk
		again=" (second window; the first: 1:10 $r10, 1:20 $r20)"
		r20b=$r20
		r10=$(rate_get "$rates" 1:10)
		r20=$(rate_get "$rates" 1:20)
		# 1:20 must stay under its ceil in both windows
		awk -v a="$r20b" -v b="$r20" 'BEGIN { exit !(a > b) }' && r20=$r20b
	fi
	line="leaf $k: bulk: 1:10 UDP flood $r10 mbit ($what $exp, $(sc_err_pct "$r10" "$exp")%, ±$TOL%); 1:20 TCP $r20 mbit (ceil $lim20)$again"
	if ! awk -v a="$r20" -v l="$lim20" -v p=$TOL 'BEGIN { exit !(a <= l * (1 + p / 100)) }'; then
		fail "$line" "1:20 above its ceil"
		rate_ok=0
	elif within "$r10" "$exp" $TOL; then
		ok "$line"
		rate_ok=1
	elif awk -v a="$r10" -v e="$exp" 'BEGIN { exit !(a > e) }'; then
		fail "$line" "1:10 above its target"
		rate_ok=0
	else
		rate_ok=short
	fi
}

run_case() {
	k=$1
	echo "# leaf: $k (t=$(up))"
	for m in $(kind_mods "$k"); do
		if ! load_qdisc_mod "$m"; then
			skip "leaf $k" "$m is not available in $(uname -r) ($LOAD_ERR)"
			return 0
		fi
	done
	if ! build_tree "$k" >"$TMPD/build.err" 2>&1; then
		fail "leaf $k: tree built" "$(cat "$TMPD/build.err")"
		return 0
	fi
	ok "leaf $k: tree built ($(T qdisc show dev "$DEV" | grep ' 10: ' | head -n 1 | cut -c1-110))"
	rm -f "$TMPD/send.log"
	skb0=$(tx_skbs)
	if ! recv_start; then
		fail "leaf $k: receivers listening" "$(cat "$TMPD/recv-udp.err" "$TMPD/recv-tcp.err")"
		recv_stop
		return 0
	fi

	echo "# leaf: $k: bulk (UDP flood -> 1:10, TCP -> 1:20) (t=$(up))"
	bulk
	if [ "$JUDGE_RATES" = 0 ]; then
		echo "# leaf $k: bulk: $BULK_T s of flood and TCP, rates not measured on $HTBX_KLINE (not in RATE_LINES)"
		rate_ok=1
	else
		judge_bulk "$k"
	fi

	echo "# leaf: $k: mix (UDP 64..60000 B, TCP 100/9000 B writes) (t=$(up))"
	# 1:10 gets 13/8 of its ceil, 1:20 5/6 of its ceil plus TCP
	send_bg -t "$MIX_T" -s 64 5101,rate=$((CEIL_10 * 3 / 8))kbit
	send_bg -t "$MIX_T" -s 1000 5102,rate=$((CEIL_10 * 5 / 8))kbit,prio=0x10020
	send_bg -t "$MIX_T" -s 4000 5103,rate=$((CEIL_10 * 5 / 8))kbit
	send_bg -t "$MIX_T" -s 16000 5104,rate=$((CEIL_10 * 5 / 8))kbit,prio=0x10020
	send_bg -t "$MIX_T" -s 60000 5105,rate=$((CEIL_10 * 5 / 8))kbit
	send_bg -t "$MIX_T" -s 100 --tcp 5201,prio=0x10020
	send_bg -t "$MIX_T" -s 9000 --tcp 5202
	send_wait
	recv_stop

	echo "# leaf: $k: drain (t=$(up))"
	if [ "$k" = hhf ]; then
		# hhf's enqueue, over its limit, drops the head of the packet's
		# bucket and returns NET_XMIT_CN as if it had dropped the new
		# packet: the parents never hear of the size difference, so the
		# root's byte backlog drifts with mixed sizes (mainline htb the
		# same). Everything else must be 0.
		if wait_until 20 drained_but_root_bytes "$DEV"; then
			ok "leaf hhf: drained: qlen 0 everywhere, backlog 0 below the root (root byte backlog $(qdisc_stats "$DEV" | awk '$3 == "root" { print $7 }'): hhf's NET_XMIT_CN accounting, as under htb)"
		else
			fail "leaf hhf: drained: qlen 0 everywhere, backlog 0 below the root" "$(dump_state)"
		fi
	elif wait_until 20 tc_drained "$DEV"; then
		ok "leaf $k: drained: qlen 0 and backlog 0 on every qdisc and class"
	else
		fail "leaf $k: drained: qlen 0 and backlog 0 on every qdisc and class" "$(dump_state)"
	fi
	echo "# leaf: $k: counters (t=$(up))"
	check_counters "$k"
	T qdisc del dev "$DEV" root
	# 1:10 short of its target in both windows: the same leaves under
	# mainline htb, in the same boot. htb on target: htbx's shortfall, a
	# failure. htb short too: the guest could not carry the rate (a busy
	# host starves plain TCG), a skip that says so, not a pass.
	if [ "$rate_ok" = short ]; then
		h10=
		if [ "$ROOT" = htbx ]; then
			ROOT=htb
			build_tree "$k" >/dev/null 2>&1 && rerun_htb "$k"
			ROOT=htbx
			h10=$(rate_get "$rates" 1:10)
		fi
		if [ -z "$h10" ]; then
			fail "$line"
		elif within "$h10" "$exp" $TOL &&
		     awk -v a="$r10" -v h="$h10" -v p=$TOL 'BEGIN { exit !(a < h * (1 - p / 100)) }'; then
			fail "$line" "mainline htb with the same leaves in this boot: 1:10 $h10 mbit (on target; htbx more than $TOL% below it)"
		else
			skip "$line" "not judged: mainline htb with the same leaves in this boot got 1:10 $h10 mbit (short too, or htbx within $TOL% of it): the guest could not carry the rate"
		fi
	fi
}

rerun_htb() {
	k=$1
	echo "# leaf: $k: the bulk phase again under htb (t=$(up))"
	rates=
	recv_start && bulk
	recv_stop
	echo "# leaf $k: under mainline htb in this boot: 1:10 UDP flood $(rate_get "$rates" 1:10) mbit, 1:20 TCP $(rate_get "$rates" 1:20) mbit"
	T qdisc del dev "$DEV" root
}

# drained_but_root_bytes DEV: tc_drained, except the root qdisc's bytes.
drained_but_root_bytes() {
	qdisc_stats "$1" | awk '$8 != 0 || ($3 != "root" && $7 != 0) { bad = 1 } END { exit bad }' &&
	class_stats "$1" | awk '$9 != 0 || $10 != 0 { bad = 1 } END { exit bad }'
}

sc_err_pct() {
	awk -v a="$1" -v e="$2" 'BEGIN { printf "%+.1f\n", e ? (a - e) * 100 / e : 0 }'
}

check_counters() {
	k=$1
	stable_stats "$DEV" || echo "# counters of $DEV still moving after 6 s (read anyway)"
	skbs=$(($(tx_skbs) - skb0))
	# root qdisc: KIND HANDLE PARENT BYTES PKTS DROPS BACKLOG QLEN
	set -- $(printf '%s\n' "$qd" | awk '$3 == "root"')
	qb=${4:-0} qp=${5:-0} qdrop=${6:-0}
	set -- $(printf '%s\n' "$cls" | awk -v r=$ROOT '$1 == r && $2 ~ /^1:/ && $4 != "-" {
		b += $5; p += $6; d += $7; g += $11; n++ } END { print b + 0, p + 0, d + 0, g + 0, n + 0 }')
	lb=$1 lp=$2 ldrop=$3 lg=$4 nleaf=$5
	ib=$(cls_get "$cls" 1:1 bytes)
	ipk=$(cls_get "$cls" 1:1 pkts)
	# leaf qdiscs: the qdiscs grafted on 1:10 and 1:20
	lqdrop=$(printf '%s\n' "$qd" | awk '$3 == "1:10" || $3 == "1:20" { d += $6 } END { print d + 0 }')
	# Packets that went to the direct queue count at the root only: a
	# retransmission of the previous kind's TCP (its timer outlives the
	# sender) that came while this tree was being built, before its
	# default class 1:10 existed (seen once in 20 kinds on sid and rt).
	dp=$(T qdisc show dev "$DEV" | awk '$1 == "qdisc" && $4 == "root" {
		for (i = 5; i < NF; i++) if ($i == "direct_packets_stat") { print $(i + 1); exit } }')
	dp=${dp:-0}
	detail="root qdisc: $qb bytes $qp pkts $qdrop drops, $dp direct; 1:1: $ib bytes $ipk pkts; $nleaf leaf classes: $lb bytes $lp pkts $ldrop drops; leaf qdiscs $lqdrop drops; device $skbs skbs"

	if [ "$dp" -eq 0 ] && [ "$nleaf" -eq 2 ] && [ "$qb" -gt 0 ] && [ "$lb" -eq "$qb" ] && [ "$ib" -eq "$qb" ]; then
		ok "leaf $k: bytes: 1:10 + 1:20 = 1:1 = qdisc = $qb"
	elif [ "$dp" -gt 0 ] && [ "$nleaf" -eq 2 ] && [ "$lb" -eq "$ib" ] && [ "$qb" -gt "$lb" ] &&
	     [ "$((qb - lb))" -le "$((dp * 70000))" ]; then
		ok "leaf $k: bytes: 1:10 + 1:20 = 1:1 = $lb, qdisc $qb with $dp direct (the previous kind's TCP, sent while the tree was built)"
	else
		fail "leaf $k: bytes: 1:10 + 1:20 = 1:1 = qdisc" "$detail"
	fi
	if [ "$dp" -eq 0 ] && [ "$lp" -eq "$qp" ] && [ "$ipk" -eq "$qp" ]; then
		ok "leaf $k: packets: 1:10 + 1:20 = 1:1 = qdisc = $qp (segments; the device saw $skbs skbs)"
	elif [ "$dp" -gt 0 ] && [ "$lp" -eq "$ipk" ] && [ "$((qp - lp))" -ge "$dp" ] &&
	     [ "$((qp - lp))" -le "$((dp * 45))" ]; then
		ok "leaf $k: packets: 1:10 + 1:20 = 1:1 = $lp, qdisc $qp with $dp direct skb(s) (segments; the device saw $skbs skbs)"
	else
		fail "leaf $k: packets: 1:10 + 1:20 = 1:1 = qdisc (GSO segments counted)" \
			"classes $lp, 1:1 $ipk, qdisc $qp; the device saw $skbs skbs" "$detail"
	fi
	if [ "$lg" -eq 0 ]; then
		ok "leaf $k: giants 0 on the leaf classes after TCP/GSO"
	else
		fail "leaf $k: giants 0 on the leaf classes after TCP/GSO" \
			"1:10 $(cls_get "$cls" 1:10 giants), 1:20 $(cls_get "$cls" 1:20 giants) (mtu 1600; the device saw $skbs skbs for $qp packets)"
	fi

	# drops
	why=
	[ "$lqdrop" -gt 0 ] || why="$why; the leaves dropped nothing"
	[ "$qdrop" -ge "$ldrop" ] || why="$why; root drops $qdrop < class drops $ldrop"
	for c in 1:10 1:20; do
		cdrop=$(cls_get "$cls" $c drops)
		qh=$(printf '%s\n' "$qd" | awk -v c=$c '$3 == c { print $6; exit }')
		[ "$cdrop" -le "${qh:-0}" ] || why="$why; $c drops $cdrop > its leaf qdisc's ${qh:-0}"
	done
	if [ "$k" = tbf ]; then
		[ "$qdrop" -le "$lqdrop" ] || why="$why; root drops $qdrop > leaf-qdisc drops $lqdrop"
		rel="<="
	else
		[ "$qdrop" -eq "$lqdrop" ] || why="$why; root drops $qdrop != leaf-qdisc drops $lqdrop"
		rel="="
	fi
	if [ -z "$why" ]; then
		ok "leaf $k: drops: root $qdrop $rel leaf qdiscs $lqdrop, >= classes $ldrop"
	else
		fail "leaf $k: drops accounted${why}" "$detail"
	fi
}

# --------------------------------------------------------------- the run

ran_gso=0
for k in $KINDS; do
	if [ -n "${TEST_LEAVES_ONLY:-}" ] && ! echo " $TEST_LEAVES_ONLY " | grep -q " $k "; then
		continue
	fi
	if echo " ${TEST_LEAVES_SKIP:-} " | grep -q " $k "; then
		skip "leaf $k" "TEST_LEAVES_SKIP"
		continue
	fi
	run_case "$k"
	# Once: the TCP traffic really came as GSO skbs (qdisc packets >
	# device skbs on a kind that does not split them).
	if [ $ran_gso = 0 ] && [ "${qp:-0}" -gt 0 ] && [ "$k" = pfifo ]; then
		ran_gso=1
		if [ "$qp" -gt "$skbs" ]; then
			ok "veth GSO/TSO in use: $qp packets left the qdisc in $skbs skbs"
		else
			fail "veth GSO/TSO in use" "$qp packets in $skbs skbs: no multi-segment skbs"
		fi
	fi
done

rm -rf "$TMPD"
exit 0
