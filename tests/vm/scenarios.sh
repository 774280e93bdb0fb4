# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# scenarios.sh - shaping scenarios shared by the shaping suites, scripts/demo
# and bench/. Sourced after tests/vm/lib.sh, in the guest (busybox ash).
#
#   netns A (sender)                      netns B (receiver)
#   htbx-traffic send --> VETH_A ====== VETH_B --> htbx-traffic recv
#                         [root qdisc: $KIND]     198.18.0.2
#
# Every scenario takes the qdisc kind as its first argument so that the same
# tree runs through htbx and through mainline htb in one boot; the suites
# assert the htbx figure and print the htb figure beside it.
#
# Functions (all return/print, none exits):
#   sc_init                   netns pair + module sanity; call once
#   sc_fini                   delete the netns pair now
#   sc_tc ARGS...             tc in the sender's namespace
#   sc_root KIND [OPTS...]    fresh root qdisc 1: of KIND on the sender veth
#   sc_class KIND PARENT ID OPTS...   tc class add ... KIND OPTS
#   sc_flows SECS WARMUP FLOW...      saturating/paced UDP flows A -> B;
#                             result JSON in $SC_JSON (see htbx-traffic)
#   sc_flows_start/_finish    the same in two halves (changes under traffic)
#   sc_build KIND FN          run tree builder FN KIND; on failure say so
#                             and leave an empty result
#   sc_try KIND FN ARGS -- SECS WARMUP FLOW...   sc_build, then sc_flows
#   sc_mbit PORT              achieved L2 mbit of PORT in $SC_JSON
#   sc_second PORT I          mbit of PORT in second I of $SC_JSON
#   sc_err ACTUAL EXPECTED    signed error in %, 2 decimals
#   sc_near ACTUAL EXPECTED PCT       true if |error| <= PCT
#   sc_le ACTUAL LIMIT PCT    true if ACTUAL <= LIMIT * (1 + PCT/100)

SC_DST=198.18.0.2
SC_PAYLOAD=${SC_PAYLOAD:-1400}	# UDP payload; 1442 bytes on the wire
SC_TMP=${SC_TMP:-/tmp/htbx-sc.$$}
SC_JSON=$SC_TMP/flows.json

sc_init()
{
	mkdir -p "$SC_TMP"
	netns_pair || { fail "netns_pair"; exit 1; }
	SC_DEV=$VETH_A
	# Room for a deep backlog: saturating senders fill the leaf queues.
	# (a refusal fails: busybox's ip took no txqueuelen and said so unseen)
	in_a "$IP" link set dev "$SC_DEV" txqueuelen 1000 ||
		{ fail "sc_init: txqueuelen 1000 on $SC_DEV"; exit 1; }
}

# Tear the namespaces down now (lib.sh's exit trap would do it later).
sc_fini()
{
	netns_cleanup
	rm -rf "$SC_TMP"
}

sc_tc()
{
	tc_a "$@"
}

sc_root()
{
	local kind="$1"
	shift
	tc_a qdisc del dev "$SC_DEV" root 2>/dev/null
	tc_a qdisc add dev "$SC_DEV" root handle 1: "$kind" "$@"
}

sc_class()
{
	local kind="$1" parent="$2" id="$3"
	shift 3
	tc_a class add dev "$SC_DEV" parent "$parent" classid "$id" "$kind" "$@"
}

# sc_flows SECS WARMUP FLOW... : FLOW is PORT[,rate=R][,mark=N][,prio=N]...
# The receiver's window starts with the first packet; the sender runs two
# seconds longer than the window so that the tail is still saturated.
# sc_flows_start/sc_flows_finish split it for changes made under traffic.
# A FLOW without a rate is offered at $SC_OFFER when that is set, else as
# fast as the sender can. A steady pace above what the tree gives the flow
# keeps its class backlogged as a flood does, and under --icount a flood
# costs host time for every packet the qdisc drops: each second of one is
# a second of guest CPU, where a paced flow leaves the guest idle and
# --icount skips the idle time (the rate suites set SC_OFFER).
sc_flows_start()
{
	local secs="$1" warm="$2" f ports="" n
	shift 2
	n=$#
	for f in "$@"; do
		ports="$ports ${f%%,*}"
		case $f in
		*,rate=*) ;;
		*) [ -n "${SC_OFFER:-}" ] && f="$f,rate=$SC_OFFER" ;;
		esac
		set -- "$@" "$f"
	done
	shift "$n"
	rm -f "$SC_JSON"
	# bg_in_ns: BG_PID is the process to wait for; lib.sh's cleanup kills
	# leftovers.
	# shellcheck disable=SC2086
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv -j -t "$secs" -w "$warm" \
		$ports >"$SC_JSON" 2>"$SC_TMP/recv.err"
	SC_RPID=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $SC_RPID"
	for f in $ports; do
		wait_until 10 port_listening "$NS_B" "$f" ||
			echo "# sc_flows: receiver not listening on $f"
	done
	bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$SC_DST" \
		-t $((secs + 2)) -s "$SC_PAYLOAD" "$@" >/dev/null 2>"$SC_TMP/send.err"
	SC_SPID=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $SC_SPID"
}

sc_flows_finish()
{
	wait "$SC_RPID"
	kill "$SC_SPID" 2>/dev/null
	wait "$SC_SPID" 2>/dev/null
	HTBX_PIDS=$(echo " $HTBX_PIDS " | sed "s/ $SC_RPID / /; s/ $SC_SPID / /")
	if [ ! -s "$SC_JSON" ]; then
		echo "# sc_flows: no result: $(head -c 300 "$SC_TMP/recv.err")"
		echo '{"flows":[]}' >"$SC_JSON"
	fi
	[ "${VERBOSE:-0}" = 1 ] && echo "# flows: $(cat "$SC_JSON")"
	return 0
}

sc_flows()
{
	sc_flows_start "$@"
	sc_flows_finish
}

sc_mbit()
{
	local v
	v=$(flow_mbit "$SC_JSON" "$1" 2>/dev/null)
	echo "${v:-0}"
}

# Mbit in second I (0-based) of the per-second series of PORT.
sc_second()
{
	local v
	v=$(flow_field "$SC_JSON" "$1" per_second "$2" 2>/dev/null)
	echo "${v:-0}"
}

# Mean of seconds FROM..TO of PORT.
sc_seconds_mean()
{
	local port="$1" from="$2" to="$3" i="$2" sum=0
	while [ "$i" -le "$to" ]; do
		sum=$(awk -v a="$sum" -v b="$(sc_second "$port" "$i")" 'BEGIN { print a + b }')
		i=$((i + 1))
	done
	awk -v s="$sum" -v n=$((to - from + 1)) 'BEGIN { printf "%.2f\n", s / n }'
}

sc_err()
{
	awk -v a="$1" -v e="$2" 'BEGIN { printf "%+.2f\n", e ? (a - e) * 100 / e : 0 }'
}

sc_near()
{
	awk -v a="$1" -v e="$2" -v p="$3" \
		'BEGIN { d = a - e; if (d < 0) d = -d; exit !(d <= e * p / 100) }'
}

sc_le()
{
	awk -v a="$1" -v l="$2" -v p="$3" 'BEGIN { exit !(a <= l * (1 + p / 100)) }'
}

sc_fmt()
{
	awk -v a="$1" 'BEGIN { printf "%.2f\n", a }'
}

# Packets a class has sent (tc -s class show), 0 if the class is absent.
sc_class_pkts()
{
	tc_a -s class show dev "$SC_DEV" classid "$1" 2>/dev/null |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1 |
		grep . || echo 0
}

# direct_packets_stat of the root qdisc.
sc_direct_pkts()
{
	tc_a -s qdisc show dev "$SC_DEV" 2>/dev/null |
		sed -n 's/.*direct_packets_stat \([0-9]*\).*/\1/p' | head -n1 |
		grep . || echo 0
}

# sc_build KIND FN [ARGS...]: FN KIND ARGS... builds a tree. If that fails
# (e.g. the module is missing), report it and make the next sc_mbit 0.
sc_build()
{
	local kind="$1" fn="$2"
	shift 2
	"$fn" "$kind" "$@" >"$SC_TMP/build.err" 2>&1 && return 0
	fail "$kind: $fn $*: tc setup failed" "$(head -n3 "$SC_TMP/build.err")"
	return 1
}

# sc_try KIND FN [ARGS...] -- SECS WARMUP FLOW...: build, then measure.
# ARGS are single words. A failed build leaves an empty result.
sc_try()
{
	local kind="$1" fn="$2" bargs=""
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		bargs="$bargs $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	if sc_build "$kind" "$fn" $bargs; then
		sc_flows "$@"
	else
		echo '{"flows":[]}' >"$SC_JSON"
	fi
}

# The kinds to compare; mainline htb is always the reference.
SC_KINDS=${SC_KINDS:-"htbx htb"}

# sc_report DESC EXP PCT HTBX HTB: one TAP line for a figure with a target.
# Only the htbx figure is asserted; htb is printed beside it.
sc_report()
{
	local desc="$1" exp="$2" pct="$3" x="$4" h="$5" line
	line="$desc: htbx $(sc_fmt "$x") mbit ($(sc_err "$x" "$exp")% of $exp, ±$pct%) | htb $(sc_fmt "$h") ($(sc_err "$h" "$exp")%)"
	if sc_near "$x" "$exp" "$pct"; then
		ok "$line"
	else
		fail "$line"
	fi
}

# The 2008 report's situation, used by the demo: a 40 mbit link, three
# classes with unequal guarantees, all allowed to borrow up to the link.
# sc_three KIND: builds the tree; flows 5010/5011/5012 -> 1:10/1:11/1:12.
SC_THREE="1:10 28 5010
1:11 6 5011
1:12 6 5012"

sc_three()
{
	local kind="$1" id rate port
	sc_root "$kind" default 0 || return 1
	sc_class "$kind" 1: 1:1 rate 40mbit ceil 40mbit burst 15k || return 1
	echo "$SC_THREE" | while read -r id rate port; do
		sc_class "$kind" 1:1 "$id" rate "${rate}mbit" ceil 40mbit burst 15k &&
		tc_a filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
			u32 match ip dport "$port" 0xffff flowid "$id" || exit 1
	done
}
