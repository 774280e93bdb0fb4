# vm-args: --icount --timeout 1500
# vm-kernels: 6.12 7.3
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# suite-sqm.sh - sqm-scripts (tohojo/sqm-scripts; Debian does not package
# it: lines/stage-sqm stages a snapshot into build/sqm, lines/fetch-iptables
# bookworm's iptables into build/iptables) shaping through htb, through
# htbx, and through htbx in htb's place, in one boot.
#
#   netns pair: veth-a (NS_A: start-sqm's IFACE; its IFB ifb4veth-a shapes
#   the ingress) <-> veth-b (NS_B)
#   UPLINK 10000 kbit, DOWNLINK 8000 kbit, QDISC fq_codel, LINKLAYER atm,
#   OVERHEAD 44: a size table on each root, which charges the 1442 bytes of
#   a frame with a 1400-byte payload as 31 ATM cells, 1643 bytes
#
# start-sqm and stop-sqm run under `ip netns exec NS_A` with IFACE,
# SCRIPT, UPLINK, DOWNLINK, QDISC, LINKLAYER, OVERHEAD and SQM_LIB_DIR in
# their environment (/etc/sqm/sqm.conf: lines/stage-sqm's copy, which takes
# SQM_LIB_DIR and SQM_STATE_DIR from there). start-sqm's exit status says
# little: it is judged by its state file, its ERROR: lines and the tc
# dumps. simple.qos and simplest.qos, each with
#   (1) htb: sqm-scripts as it is, on the kernel's sch_htb;
#   (2) htbx: the copy of lines/stage-sqm with every "htb" made "htbx";
#   (3) the stand-in: sqm-scripts as it is, sch_htb unloaded and 1 in
#       sch_htbx's parameter htb (as suite-standin.sh switches):
# 1. start-sqm (egress and ingress): its state file, no ERROR: line, the
#    tree on veth-a and on the IFB (kind, classes, fq_codel leaves, the
#    size table); every tc, ip and iptables call it made succeeded or
#    failed as with htb (its SUCCESS/FAILURE lines, the kind's name and the
#    random names of verify_qdisc's IFBs aside); in htb's place, the
#    `tc -d` views of veth-a and the IFB identical to htb's, and sch_htb
#    not loaded.
# 2. Rates: UDP flows from NS_A to NS_B (egress: for simple.qos three,
#    marked EF, best effort and CS1 by their TOS, which its iptables rules
#    turn into its three tiers; for simplest.qos one) and from NS_B to NS_A
#    (ingress, through the IFB): what arrives within 1 % of the shaper's
#    rate (in ATM cells) and of htb's figure; for simple.qos each tier's
#    within 1 % of htb's. The overlimits of the root qdisc, of 1:1 and of
#    the busy leaf after the egress flows are printed beside htb's, not
#    judged (simplest.qos's 1:1, at its one busy child's rate, counts as
#    many as the child with htbx, a few with htb, and the qdisc's sum about
#    twice htb's: README.md "Migrating from htb"; suite-compat pins it).
# 3. stop-sqm leaves nothing: veth-a's qdiscs as before start-sqm (the
#    default), no IFB in NS_A, iptables' mangle tables as before, no state
#    file.
# 4. htbx_simple.qos (sqm/ of this tree; the tc-htbx package installs it
#    into /usr/lib/sqm) through start-sqm with SCRIPT=htbx_simple.qos: its
#    tree (kind htbx, htbx's default burst), rates, stop-sqm; then on a veth
#    with 4 TX queues: its root in mq mode, four flows held to the shaper,
#    stop-sqm.
# TEST_SQM_KEEP=DIR (in the checkout, which the guest sees) keeps
# start-sqm's and stop-sqm's output, the calls and the views there.
# Without a staged sqm-scripts (build/sqm/MISSING says why) the suite is
# one counted skip; without the staged iptables, simple.qos and
# htbx_simple.qos are.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "$HTBX_TOP/tests/vm/scenarios.sh"

SQ=$HTBX_TOP/build/sqm
PARAM=/sys/module/sch_htbx/parameters/htb
W=/tmp/htbx-sqm.$$
UP=10000
DOWN=8000
ETC_MADE=0

if [ ! -e "$SQ/lib-htb/start-sqm" ]; then
	if [ -e "$SQ/MISSING" ]; then
		skip "sqm-scripts through htb, htbx and the stand-in" "$(cat "$SQ/MISSING")"
	else
		skip "sqm-scripts through htb, htbx and the stand-in" "not staged (lines/stage-sqm, run by scripts/setup)"
	fi
	exit 0
fi

unload() { rmmod "$@" 2>/dev/null; for _m in "$@"; do ! module_loaded "$_m" || return 1; done; }

# shellcheck disable=SC2317 # (a trap's)
cleanup() {
	netns_cleanup
	[ -e "$PARAM" ] && echo 0 >"$PARAM" 2>/dev/null
	rmmod sch_htbx 2>/dev/null
	[ "$ETC_MADE" = 1 ] && rm -rf /etc/sqm
	if [ -n "${TEST_SQM_KEEP:-}" ]; then
		mkdir -p "$TEST_SQM_KEEP" && cp "$W"/*.start "$W"/*.stop "$W"/*.calls "$W"/*.views "$TEST_SQM_KEEP/" 2>/dev/null
	fi
	rm -rf "$W" "$SC_TMP"
}
HTBX_TRAPPED=1
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 130' INT TERM

mkdir -p "$W/state"
chmod 755 "$W/state"
# the libraries in the guest's RAM (read over 9p, every source would cost)
cp -a "$SQ/lib-htb" "$SQ/lib-htbx" "$W/" || { fail "copy the staged sqm-scripts"; exit 1; }
cp "$HTBX_TOP/sqm/htbx_simple.qos" "$HTBX_TOP/sqm/htbx_simple.qos.help" "$W/lib-htb/" ||
	{ fail "copy sqm/htbx_simple.qos"; exit 1; }
if [ ! -e /etc/sqm ]; then
	mkdir -p /etc/sqm && ETC_MADE=1
fi
cp "$SQ/sqm.conf" /etc/sqm/sqm.conf || { fail "install /etc/sqm/sqm.conf"; exit 1; }
IPT_OK=0
if [ -x "$HTBX_TOP/build/iptables/bin/iptables" ]; then
	cp -a "$HTBX_TOP/build/iptables" "$W/iptables" &&
		PATH=$W/iptables/bin:$PATH && export PATH && IPT_OK=1
fi
echo "# sqm-scripts: $(cat "$SQ/ORIGIN")"
[ "$IPT_OK" = 1 ] && echo "# iptables: $(iptables -V 2>&1)"

# a clean start: neither kind loaded, ifb without ifb0/ifb1
unload sch_htbx sch_htb
modprobe veth 2>/dev/null
if ! module_loaded ifb; then
	modprobe ifb numifbs=0 || { fail "modprobe ifb numifbs=0"; exit 1; }
fi
sc_init
L2=$((SC_PAYLOAD + 42))

# ------------------------------------------------------------ helpers

# exp_mbit KBIT: what the receiver counts (payload + 42 bytes a frame) when
# the shaper charges each frame as ATM cells (with OVERHEAD 44) at KBIT
exp_mbit() {
	awk -v k="$1" -v l="$L2" -v o=44 'BEGIN {
		c = int((l + o + 47) / 48) * 53
		printf "%.3f\n", k / 1000 * l / c }'
}

# SQM_NS and IFACE: where start-sqm shapes
SQM_NS=$NS_A
IFACE=$VETH_A
tcn() { in_ns "$SQM_NS" "$TC" "$@"; }

# sqm LIB SCRIPT ACTION OUT: start-sqm or stop-sqm (ACTION) of LIB with
# SCRIPT on IFACE in SQM_NS; its output (debug verbosity: every command's
# SUCCESS or FAILURE) into OUT, its exit status into OUT.rc. Under dash,
# /bin/sh: busybox's env would run its own ash as sh, in which `command -v
# tc` finds busybox's tc applet.
sqm() {
	(
		export IFACE SCRIPT="$2" UPLINK=$UP DOWNLINK=$DOWN QDISC=fq_codel \
			LINKLAYER=atm OVERHEAD=44 SQM_LIB_DIR="$1" \
			SQM_STATE_DIR="$W/state" SQM_VERBOSITY_MAX=8
		in_ns_sys "$SQM_NS" /bin/sh "$1/$3"
	) >"$4" 2>&1 </dev/null
	echo $? >"$4.rc"
}

# calls OUT: the calls start-sqm made and how each ended, the kind's name
# and verify_qdisc's random IFB names made alike
calls() {
	sed -nE 's/.*cmd_wrapper: ([a-z0-9]+): (SUCCESS|FAILURE \([0-9]+\)): /\1 \2: /p' "$1" |
		sed -e 's/htbx/htb/g' -e 's/SQM_IFB_[0-9a-f]*/SQM_IFB_x/g'
}

# leftovers: what start-sqm may leave, for the before/after comparison
leftovers() {
	echo "qdiscs:"
	tcn qdisc show dev "$IFACE"
	echo "ifb devices:"
	in_ns "$SQM_NS" "$IP" -o link show type ifb | awk '{ print $2 }'
	if [ "$IPT_OK" = 1 ]; then
		echo "mangle:"
		in_ns "$SQM_NS" iptables -t mangle -S
		in_ns "$SQM_NS" ip6tables -t mangle -S
	fi
	echo "state:"
	ls "$W/state"
}

# flows SRC_NS DST_NS DST_ADDR FLOW...: sc_flows, a 3 s window after 1 s,
# from SRC_NS to DST_NS
flows() {
	fl_a=$NS_A fl_b=$NS_B fl_d=$SC_DST
	NS_A=$1 NS_B=$2 SC_DST=$3
	shift 3
	sc_flows 3 1 "$@"
	NS_A=$fl_a NS_B=$fl_b SC_DST=$fl_d
}

# rate_judge DESC MBIT EXP [REF]: within 1 % of EXP, and of REF (htb's)
rate_judge() {
	rj_line="$1: $(sc_fmt "$2") mbit ($(sc_err "$2" "$3")% of the shaper's $3${4:+; htb $(sc_fmt "$4"): $(sc_err "$2" "$4")%})"
	if sc_near "$2" "$3" 1 && { [ -z "$4" ] || sc_near "$2" "$4" 1; }; then
		ok "$rj_line"
	else
		fail "$rj_line"
	fi
}

# ovl DEV LEAF: "qdisc N, 1:1 N, LEAF N": overlimits of DEV's root qdisc,
# of class 1:1 and of the leaf LEAF
ovl() {
	_q=$(tcn -s qdisc show dev "$1" | awk '/^qdisc/ { r = ($0 ~ / root /) } r && /Sent/ {
		for (i = 1; i < NF; i++) if ($i == "overlimits") { print $(i + 1); exit } }')
	_s=$(tcn -s class show dev "$1")
	echo "qdisc ${_q:-?}, 1:1 $(cls_get "$(printf '%s\n' "$_s" | tc_class_parse)" 1:1 overlimits), $2 $(cls_get "$(printf '%s\n' "$_s" | tc_class_parse)" "$2" overlimits)"
}

# classes DEV: "KIND ID" of each class on DEV
classes() { tcn class show dev "$1" | awk '$1 == "class" { print $2, $3 }' | sort | tr '\n' ' '; }

# tree_check WHO KIND SCRIPT: the tree start-sqm made (see the top)
IFB=ifb4$VETH_A
tree_check() {
	tc_who=$1 tc_k=$2
	case $3 in
	simplest.qos) want_e="$tc_k 1:1 $tc_k 1:10 " leaves_e="110:" ;;
	*) want_e="$tc_k 1:1 $tc_k 1:11 $tc_k 1:12 $tc_k 1:13 " leaves_e="110: 120: 130:" ;;
	esac
	want_i="$tc_k 1:1 $tc_k 1:10 "
	tc_q=$(tcn -d qdisc show dev "$IFACE")
	tc_qi=$(tcn -d qdisc show dev "$IFB" 2>&1)
	tc_bad=
	printf '%s\n' "$tc_q" | grep -q "^qdisc $tc_k 1: root" || tc_bad="$tc_bad; no $tc_k root on $IFACE"
	printf '%s\n' "$tc_q" | grep -q '^qdisc ingress ffff:' || tc_bad="$tc_bad; no ingress qdisc on $IFACE"
	[ "$(printf '%s\n' "$tc_q" | awk '$2 == "fq_codel" { print $3 }' | sort | tr '\n' ' ')" = "$leaves_e " ] ||
		tc_bad="$tc_bad; leaves on $IFACE are not fq_codel $leaves_e"
	printf '%s\n' "$tc_q" | grep -q 'linklayer atm overhead 44' || tc_bad="$tc_bad; no ATM size table on $IFACE"
	[ "$(classes "$IFACE")" = "$want_e" ] || tc_bad="$tc_bad; classes on $IFACE: $(classes "$IFACE")"
	printf '%s\n' "$tc_qi" | grep -q "^qdisc $tc_k 1: root" || tc_bad="$tc_bad; no $tc_k root on $IFB"
	printf '%s\n' "$tc_qi" | grep -q 'linklayer atm overhead 44' || tc_bad="$tc_bad; no ATM size table on $IFB"
	[ "$(classes "$IFB")" = "$want_i" ] || tc_bad="$tc_bad; classes on $IFB: $(classes "$IFB")"
	if [ -z "$tc_bad" ]; then
		ok "$tc_who: the tree on $IFACE ($(echo "$want_e" | wc -w | awk '{ print $1 / 2 }') $tc_k classes, fq_codel $leaves_e) and $IFB ($tc_k 1:1, 1:10), ATM size tables"
	else
		fail "$tc_who: the tree start-sqm made" "${tc_bad#; }" "$tc_q" "$tc_qi" "$(tcn class show dev "$IFACE")"
	fi
}

# start_check WHO OUT: start-sqm's state file and no ERROR: line
start_check() {
	if [ -e "$W/state/$IFACE.state" ] && ! grep -q '^ERROR:' "$2"; then
		ok "$1: start-sqm wrote its state file, no ERROR: line (exit $(cat "$2.rc"), $(calls "$2" | wc -l) calls, $(calls "$2" | grep -c FAILURE) expected failures)"
		return 0
	fi
	fail "$1: start-sqm wrote its state file, no ERROR: line" "exit $(cat "$2.rc")" \
		"$(grep -E '^(ERROR|WARNING):' "$2" | head -n 20)" "$(tail -n 15 "$2")"
	return 1
}

# stop_check WHO OUT BEFORE: stop-sqm left what was there before start-sqm
stop_check() {
	leftovers >"$3.after" 2>&1
	if diff "$3" "$3.after" >"$3.diff" && ! grep -q '^ERROR:' "$2"; then
		ok "$1: stop-sqm leaves nothing: $(tcn qdisc show dev "$IFACE" | awk '{ print $2 }' | tr '\n' ' ')alone on $IFACE, no IFB, mangle tables and state as before"
	else
		fail "$1: stop-sqm leaves nothing" "$(cat "$3.diff")" "$(grep '^ERROR:' "$2" | head -n 10)"
	fi
}

# run_kind KIND LIB WHO: simple.qos and simplest.qos through LIB (kind
# KIND in tc's views); results in $W/<script>-<who>.*
run_kind() {
	rk_k=$1 rk_lib=$2 rk_who=$3
	for rk_s in simple.qos simplest.qos; do
		if [ "$rk_s" = simple.qos ] && [ "$IPT_OK" != 1 ]; then
			skip "$rk_who: $rk_s" "no iptables staged (lines/fetch-iptables)"
			continue
		fi
		rk_o=$W/$rk_s-$rk_who
		rk_d="$rk_who: $rk_s"
		leftovers >"$rk_o.before" 2>&1
		sqm "$rk_lib" "$rk_s" start-sqm "$rk_o.start"
		calls "$rk_o.start" >"$rk_o.calls"
		if ! start_check "$rk_d" "$rk_o.start"; then
			sqm "$rk_lib" "$rk_s" stop-sqm "$rk_o.stop"
			continue
		fi
		tree_check "$rk_d" "$rk_k" "$rk_s"
		{
			tcn -d qdisc show dev "$IFACE"; tcn -d class show dev "$IFACE"
			tcn -d qdisc show dev "$IFB"; tcn -d class show dev "$IFB"
		} >"$rk_o.views" 2>&1
		if [ "$rk_who" != htb ]; then
			if [ ! -e "$W/$rk_s-htb.calls" ]; then
				skip "$rk_d: the same calls as with htb" "htb's run did not start"
			elif diff "$W/$rk_s-htb.calls" "$rk_o.calls" >"$rk_o.calls.diff"; then
				ok "$rk_d: the same $(wc -l <"$rk_o.calls") calls as with htb, each succeeded or failed as there"
			else
				fail "$rk_d: the same calls as with htb, each succeeded or failed as there" "$(head -n 30 "$rk_o.calls.diff")"
			fi
		fi
		if [ "$rk_who" = standin ]; then
			if diff "$W/$rk_s-htb.views" "$rk_o.views" >"$rk_o.views.diff"; then
				ok "$rk_d: tc -d views of $IFACE and $IFB identical to sch_htb's ($(grep -c '^class' "$rk_o.views") classes)"
			else
				fail "$rk_d: tc -d views identical to sch_htb's" "$(head -n 30 "$rk_o.views.diff")"
			fi
			if module_loaded sch_htb; then
				fail "$rk_d: sch_htb stays unloaded (do_modules asks for it)" "$(grep '^sch_htb ' /proc/modules)"
			else
				ok "$rk_d: sch_htb stays unloaded though do_modules asks for it"
			fi
		fi
		# egress
		if [ "$rk_s" = simple.qos ]; then
			flows "$NS_A" "$NS_B" "$ADDR_B" 6011,rate=12mbit,tos=184 \
				6012,rate=12mbit 6013,rate=12mbit,tos=32
			rk_ef=$(sc_mbit 6011) rk_be=$(sc_mbit 6012) rk_cs1=$(sc_mbit 6013)
			echo "$rk_ef $rk_be $rk_cs1" >"$rk_o.tiers"
			rk_e=$(awk -v a="$rk_ef" -v b="$rk_be" -v c="$rk_cs1" 'BEGIN { print a + b + c }')
		else
			flows "$NS_A" "$NS_B" "$ADDR_B" 6012,rate=12mbit
			rk_e=$(sc_mbit 6012)
		fi
		echo "$rk_e" >"$rk_o.egress"
		if [ "$rk_s" = simple.qos ]; then
			ovl "$IFACE" 1:12 >"$rk_o.ovl"
		else
			ovl "$IFACE" 1:10 >"$rk_o.ovl"
		fi
		rk_ref=
		[ "$rk_who" != htb ] && rk_ref=$(cat "$W/$rk_s-htb.egress" 2>/dev/null)
		rate_judge "$rk_d: egress, $UP kbit" "$rk_e" "$(exp_mbit $UP)" "$rk_ref"
		if [ "$rk_s" = simple.qos ]; then
			# EF at 1:11's ceil (UPLINK/3), CS1 at 1:13's rate (UPLINK/6),
			# best effort the rest
			rk_t="EF $(sc_fmt "$rk_ef"), best effort $(sc_fmt "$rk_be"), CS1 $(sc_fmt "$rk_cs1") mbit"
			if [ "$rk_who" = htb ]; then
				echo "# $rk_d: tiers: $rk_t; expected $(exp_mbit $((UP / 3))), $(exp_mbit $((UP - UP / 3 - UP / 6))), $(exp_mbit $((UP / 6)))"
			elif [ -e "$W/$rk_s-htb.tiers" ]; then
				read -r h_ef h_be h_cs1 <"$W/$rk_s-htb.tiers"
				if sc_near "$rk_ef" "$h_ef" 1 && sc_near "$rk_be" "$h_be" 1 && sc_near "$rk_cs1" "$h_cs1" 1; then
					ok "$rk_d: the three tiers as with htb: $rk_t (htb $h_ef, $h_be, $h_cs1)"
				else
					fail "$rk_d: the three tiers as with htb (1 %)" "$rk_t" "htb $h_ef, $h_be, $h_cs1"
				fi
			fi
		fi
		echo "# $rk_d: overlimits after the egress flows: $(cat "$rk_o.ovl")${rk_ref:+ (htb: $(cat "$W/$rk_s-htb.ovl"))}"
		# ingress: from NS_B through veth-a's ingress qdisc and the IFB
		flows "$NS_B" "$NS_A" "$ADDR_A" 6020,rate=12mbit
		rk_i=$(sc_mbit 6020)
		echo "$rk_i" >"$rk_o.ingress"
		rk_ref=
		[ "$rk_who" != htb ] && rk_ref=$(cat "$W/$rk_s-htb.ingress" 2>/dev/null)
		rate_judge "$rk_d: ingress via $IFB, $DOWN kbit" "$rk_i" "$(exp_mbit $DOWN)" "$rk_ref"
		sqm "$rk_lib" "$rk_s" stop-sqm "$rk_o.stop"
		stop_check "$rk_d" "$rk_o.stop" "$rk_o.before"
	done
}

# ------------------------------------------------ 1. htb, 2. htbx
run_kind htb "$W/lib-htb" htb
if ! unload sch_htb; then
	fail "rmmod sch_htb after stop-sqm" "$(grep '^sch_htb ' /proc/modules)"
fi
run_kind htbx "$W/lib-htbx" htbx

# ------------------------------------------------ 4. htbx_simple.qos
if [ "$IPT_OK" != 1 ]; then
	skip "htbx_simple.qos" "no iptables staged (lines/fetch-iptables)"
else
	o=$W/htbx_simple
	leftovers >"$o.before" 2>&1
	sqm "$W/lib-htb" htbx_simple.qos start-sqm "$o.start"
	if start_check "htbx_simple.qos" "$o.start"; then
		tree_check "htbx_simple.qos" htbx simple.qos
		x=$(tcn class show dev "$IFACE" classid 1:1)
		# htbx's default burst: 1 ms of 10 mbit is 1250 bytes, two mtus 3200
		if printf '%s\n' "$x" | grep -q 'burst 3200b cburst 3200b'; then
			ok "htbx_simple.qos: no burst given, htbx's default (1 ms, at least 2 mtus): $(printf '%s\n' "$x" | grep -o 'burst.*')"
		else
			fail "htbx_simple.qos: htbx's default burst on 1:1" "$x"
		fi
		flows "$NS_A" "$NS_B" "$ADDR_B" 6011,rate=12mbit,tos=184 \
			6012,rate=12mbit 6013,rate=12mbit,tos=32
		x_ef=$(sc_mbit 6011) x_be=$(sc_mbit 6012) x_cs1=$(sc_mbit 6013)
		e=$(awk -v a="$x_ef" -v b="$x_be" -v c="$x_cs1" 'BEGIN { print a + b + c }')
		rate_judge "htbx_simple.qos: egress, $UP kbit (EF $x_ef, best effort $x_be, CS1 $x_cs1)" \
			"$e" "$(exp_mbit $UP)"
		# its tiers are simple.qos's: as simple.qos's on htb
		if [ -e "$W/simple.qos-htb.tiers" ]; then
			read -r h_ef h_be h_cs1 <"$W/simple.qos-htb.tiers"
			if sc_near "$x_ef" "$h_ef" 1 && sc_near "$x_be" "$h_be" 1 && sc_near "$x_cs1" "$h_cs1" 1; then
				ok "htbx_simple.qos: the three tiers as simple.qos's on htb (1 %): htb $h_ef, $h_be, $h_cs1"
			else
				fail "htbx_simple.qos: the three tiers as simple.qos's on htb (1 %)" \
					"htbx_simple $x_ef, $x_be, $x_cs1" "simple.qos on htb $h_ef, $h_be, $h_cs1"
			fi
		fi
		echo "# htbx_simple.qos: overlimits after the egress flows: $(ovl "$IFACE" 1:12)"
		flows "$NS_B" "$NS_A" "$ADDR_A" 6020,rate=12mbit
		rate_judge "htbx_simple.qos: ingress via $IFB, $DOWN kbit" "$(sc_mbit 6020)" "$(exp_mbit $DOWN)"
	fi
	sqm "$W/lib-htb" htbx_simple.qos stop-sqm "$o.stop"
	stop_check "htbx_simple.qos" "$o.stop" "$o.before"

	# on a veth with 4 TX queues: mq mode
	NS_MA=htbx-sqmq-a-$$ NS_MB=htbx-sqmq-b-$$
	for ns in "$NS_MA" "$NS_MB"; do
		"$IP" netns add "$ns" && HTBX_NETNS="$HTBX_NETNS $ns"
		in_ns "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6;
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
		in_ns "$ns" "$IP" link set lo up
	done
	if ! veth_mq_pair "$NS_MA" mqa 198.19.2.1 "$NS_MB" mqb 198.19.2.2; then
		fail "htbx_simple.qos on 4 TX queues: a veth with 4 queues"
	else
		SQM_NS=$NS_MA IFACE=mqa IFB=ifb4mqa
		o=$W/htbx_simple-mq
		leftovers >"$o.before" 2>&1
		sqm "$W/lib-htb" htbx_simple.qos start-sqm "$o.start"
		if start_check "htbx_simple.qos on 4 TX queues" "$o.start"; then
			x=$(tcn qdisc show dev mqa | head -n 1)
			if printf '%s\n' "$x" | grep -q '^qdisc htbx 1: root.* mq$' &&
			   [ "$(classes mqa)" = "htbx 1:1 htbx 1:11 htbx 1:12 htbx 1:13 " ]; then
				ok "htbx_simple.qos on 4 TX queues: the root in mq mode, 4 classes ($x)"
			else
				fail "htbx_simple.qos on 4 TX queues: the root in mq mode" "$x" "$(classes mqa)"
			fi
			flows "$NS_MA" "$NS_MB" 198.19.2.2 6031,rate=4mbit 6032,rate=4mbit \
				6033,rate=4mbit 6034,rate=4mbit
			e=$(awk -v a="$(sc_mbit 6031)" -v b="$(sc_mbit 6032)" -v c="$(sc_mbit 6033)" \
				-v d="$(sc_mbit 6034)" 'BEGIN { print a + b + c + d }')
			rate_judge "htbx_simple.qos on 4 TX queues: four best-effort flows, $UP kbit ($(sc_mbit 6031), $(sc_mbit 6032), $(sc_mbit 6033), $(sc_mbit 6034))" \
				"$e" "$(exp_mbit $UP)"
		fi
		sqm "$W/lib-htb" htbx_simple.qos stop-sqm "$o.stop"
		stop_check "htbx_simple.qos on 4 TX queues" "$o.stop" "$o.before"
		SQM_NS=$NS_A IFACE=$VETH_A IFB=ifb4$VETH_A
	fi
fi

# ------------------------------------------------ 3. the stand-in
if ! unload sch_htb; then
	fail "rmmod sch_htb before the stand-in" "$(grep '^sch_htb ' /proc/modules)"
elif ! { module_loaded sch_htbx || modprobe sch_htbx; } || ! (echo 1 >"$PARAM") 2>/dev/null; then
	fail "htbx in htb's place (1 into $PARAM)" "$(dmesg | tail -n 3)"
else
	run_kind htb "$W/lib-htb" standin
	echo 0 >"$PARAM"
fi
if wait_until 10 unload sch_htbx; then
	ok "sch_htbx unloads once stop-sqm has run (no qdisc of it left)"
else
	fail "sch_htbx unloads once stop-sqm has run" "$(grep '^sch_htbx ' /proc/modules)"
fi
exit 0
