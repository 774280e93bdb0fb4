# vm-args: --icount --timeout 1500
# vm-kernels: 6.12 7.3
# SPDX-License-Identifier: GPL-2.0
#
# suite-tcp.sh - one bulk TCP flow (GSO: veth has TSO on) through one class
# at 5, 20 and 50 mbit, burst 15k, under --icount (deterministic clock).
# htbx is asserted, mainline htb measured in the same boot printed beside:
#   - the class rate from its own byte counter over a window after 1 s of
#     warm-up, while the flow runs (htbx-traffic tcrate: rtnetlink dumps
#     with the guest clock read around each) within 2 % of the rate. TCP
#     fills the leaf with GSO skbs of up to 64 KB, which the counter takes
#     in one step (0.1 s at 5 mbit): the window is 10 s at 5 mbit, 4 s at
#     20, 3 s at 50, so that one skb is under 1 % of it;
#   - class packets = qdisc packets at the end (GSO segments, as the qdisc
#     counts them), the qdisc drained.
# First, the same flow through a class at 10gbit: what TCP reaches in this
# guest at all. A rate the guest cannot carry (ceiling < rate + 5 %) is a
# counted skip that says so, not a pass.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/scenarios.sh"

sc_init
DEV=$SC_DEV
WARM=1
WIN=3
PORT=5001

one_class()	# KIND RATE [CLASS OPTS...]
{
	local kind="$1" rate="$2"
	shift 2
	sc_root "$kind" default 10 &&
	sc_class "$kind" 1: 1:10 rate "$rate" ceil "$rate" "$@"
}

# tcp_rate KIND RATE [OPTS...]: build (OPTS default: burst 15k), run one
# TCP flow, measure 1:10 over WIN s.
# Sets RATE_MBIT, CLS_PKTS, QD_PKTS, DRAINED (0/1), SEGS_PER_SKB.
tcp_rate()
{
	local kind="$1" rate="$2" r s rates skb0 skbs
	shift 2
	[ $# -gt 0 ] || set -- burst 15k
	RATE_MBIT=0 CLS_PKTS=0 QD_PKTS=0 DRAINED=0 SEGS_PER_SKB=0
	if ! sc_build "$kind" one_class "$rate" "$@"; then
		return 1
	fi
	skb0=$(ns_txpkts "$NS_A" "$DEV")
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv --tcp -t 300 -w 0 $PORT \
		>/dev/null 2>"$SC_TMP/recv.err"
	r=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $r"
	wait_until 10 port_listening "$NS_B" $PORT tcp ||
		echo "# tcp_rate: receiver not listening on $PORT"
	bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$SC_DST" --tcp -s 65507 \
		-t "$(awk -v w="$WARM" -v n="$WIN" 'BEGIN { print w + n + 0.5 }')" $PORT >"$SC_TMP/send.out" 2>&1
	s=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $s"
	rates=$(class_rates "$DEV" $WIN $WARM)
	wait "$s"
	kill "$r" 2>/dev/null
	wait "$r" 2>/dev/null
	HTBX_PIDS=$(echo " $HTBX_PIDS " | sed "s/ $r / /; s/ $s / /")
	RATE_MBIT=$(rate_get "$rates" 1:10)
	wait_until 20 tc_drained "$DEV" && DRAINED=1
	CLS_PKTS=$(cls_get "$(class_stats "$DEV")" 1:10 pkts)
	QD_PKTS=$(qdisc_stats "$DEV" | awk '$3 == "root" { print $5 }')
	skbs=$(($(ns_txpkts "$NS_A" "$DEV") - skb0))
	SEGS_PER_SKB=$(awk -v p="$QD_PKTS" -v s="$skbs" 'BEGIN { printf "%.2f\n", s ? p / s : 0 }')
	[ "${VERBOSE:-0}" = 1 ] && echo "# $kind $rate: $rates" && sed 's/^/# send: /' "$SC_TMP/send.out"
	return 0
}

# --- what TCP reaches in this guest -------------------------------------------

echo "# tcp: ceiling (htbx class at 10gbit)"
# A short window: at gigabits every virtual second is many host seconds.
WARM=0.5 WIN=1
tcp_rate htbx 10gbit burst 1m cburst 1m
CEIL=$RATE_MBIT
WARM=1
if awk -v c="$CEIL" 'BEGIN { exit !(c > 0) }'; then
	ok "tcp ceiling of this guest (one flow, class at 10gbit): $CEIL mbit, $SEGS_PER_SKB segments per skb"
else
	fail "tcp ceiling of this guest: no traffic" "$(cat "$SC_TMP/send.out" "$SC_TMP/recv.err")"
fi

# --- one class ------------------------------------------------------------------

for r in 5 20 50; do
	if ! awk -v c="$CEIL" -v r=$r 'BEGIN { exit !(c >= r * 1.05) }'; then
		skip "tcp one class ${r}mbit" "unreachable here: one TCP flow reaches $CEIL mbit unshaped under icount"
		continue
	fi
	case $r in 5) WIN=10 ;; 20) WIN=4 ;; *) WIN=3 ;; esac
	for kind in htbx htb; do
		echo "# tcp: $kind ${r}mbit"
		tcp_rate "$kind" "${r}mbit"
		eval "m_$kind=\$RATE_MBIT c_$kind=\$CLS_PKTS q_$kind=\$QD_PKTS d_$kind=\$DRAINED g_$kind=\$SEGS_PER_SKB"
	done
	sc_report "tcp one class ${r}mbit burst 15k (counters over ${WIN}s)" "$r" 2 "$m_htbx" "$m_htb"
	line="tcp ${r}mbit: class packets = qdisc packets: htbx $c_htbx/$q_htbx ($g_htbx segments per skb) | htb $c_htb/$q_htb"
	if [ "$c_htbx" -eq "$q_htbx" ] && [ "$q_htbx" -gt 0 ] && [ "$d_htbx" = 1 ]; then
		ok "$line, drained"
	else
		fail "$line, drained $d_htbx" "$(tc_a -s qdisc show dev "$DEV")"
	fi
done

sc_tc qdisc del dev "$DEV" root 2>/dev/null
sc_fini
exit 0
