# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - helpers for the guest-side suites (tests/vm/suite-*.sh). POSIX sh:
# runs under dash (the guest's /bin/sh) and busybox ash. Source it with
#	. "${HTBX_TOP:-.}/tests/vm/lib.sh"
#
# Topology made by netns_pair (one pair per call, unique names):
#
#   netns $NS_A                          netns $NS_B
#   +-----------------------+            +-----------------------+
#   | $VETH_A  198.18.0.1/24 |<--veth--->| $VETH_B  198.18.0.2/24 |
#   | htbx-traffic send      |            | htbx-traffic recv      |
#   +-----------------------+            +-----------------------+
#
# Shape on $VETH_A's egress (tc_a ... dev $VETH_A). IPv6 is off and the
# neighbours are static, so the only packets on the link are the test's own
# (exact qdisc counters).
#
# TAP: ok DESC / fail DESC [DETAIL...] / skip DESC REASON / check DESC CMD...
# print "ok - ..." / "not ok - ..." lines without numbers (tests/run-all
# numbers them and prefixes the kernel). They return 0 (check returns CMD's
# status), so a suite's exit status is its own: exit 0 after reporting
# failures through TAP; a non-zero exit means the suite itself broke.
# VERBOSE=1 echoes the commands run through echo_cmd/in_a/in_b/tc_a/tc_b as
# "# + cmd" on stderr.

HTBX_TOP=${HTBX_TOP:-$(cd "$(dirname "$0")/../.." 2>/dev/null && pwd)}
VERBOSE=${VERBOSE:-0}
TC=/sbin/tc
IP=/sbin/ip
[ -x "$TC" ] || TC=$(command -v tc)
[ -x "$IP" ] || IP=$(command -v ip)
NSENTER=$(command -v nsenter 2>/dev/null)
HTBX_TRAFFIC=$(command -v htbx-traffic 2>/dev/null || echo "$HTBX_TOP/tools/bin/htbx-traffic")
HTBX_FAILED=0
HTBX_RESULTS=0	# results reported so far (ok, fail, skip)
HTBX_NETNS=
HTBX_PIDS=
HTBX_NS_SEQ=0

# ------------------------------------------------------------------ TAP

ok() {
	HTBX_RESULTS=$((HTBX_RESULTS + 1))
	echo "ok - $*"
}

# fail DESC [DETAIL...]: each DETAIL line printed as "# ...".
fail() {
	_d=$1
	shift
	echo "not ok - $_d"
	HTBX_RESULTS=$((HTBX_RESULTS + 1))
	HTBX_FAILED=$((HTBX_FAILED + 1))
	for _l in "$@"; do
		printf '%s\n' "$_l" | sed 's/^/# /'
	done
	return 0
}

# skip DESC REASON
skip() {
	HTBX_RESULTS=$((HTBX_RESULTS + 1))
	echo "ok - $1 # SKIP $2"
}

# check DESC CMD...: ok when CMD succeeds, else fail with its output.
check() {
	_d=$1
	shift
	[ "$VERBOSE" = 1 ] && echo "# + $*" >&2
	_out=$("$@" 2>&1)
	_rc=$?
	if [ $_rc -eq 0 ]; then
		ok "$_d"
	else
		fail "$_d" "command: $*" "exit status: $_rc" "$_out"
	fi
	return $_rc
}

# within ACTUAL EXPECTED PCT: status 0 when |ACTUAL-EXPECTED| <= EXPECTED*PCT/100.
within() {
	awk -v a="$1" -v e="$2" -v p="$3" 'BEGIN {
		if (a == "" || a !~ /^-?[0-9.eE+-]+$/) exit 1;
		d = a - e; if (d < 0) d = -d;
		m = e * p / 100; if (m < 0) m = -m;
		exit !(d <= m) }'
}

# pct ACTUAL EXPECTED: ACTUAL as a percentage of EXPECTED, 2 decimals.
pct() {
	awk -v a="$1" -v e="$2" 'BEGIN { if (e == 0) print "inf"; else printf "%.2f\n", a * 100 / e }'
}

# ------------------------------------------------------------- commands

# echo_cmd CMD...: run CMD, echoing it first as "# + CMD" when VERBOSE=1.
echo_cmd() {
	[ "$VERBOSE" = 1 ] && echo "# + $*" >&2
	"$@"
}

# in_ns NS CMD...: CMD in network namespace NS. setns(2) alone (nsenter
# --net): `ip netns exec` also unshares a mount namespace and remounts
# /sys, which costs 4-5x as much per call (measured in the guest: 174 vs
# 42 ms on 6.12, 1.4 vs 0.3 s on the debug kernel). CMD sees the root
# namespace's /sys; in_ns_sys is for what reads /sys/class/net.
in_ns() {
	_ns=$1
	shift
	if [ -n "$NSENTER" ]; then
		echo_cmd "$NSENTER" --net="/run/netns/$_ns" "$@"
	else
		echo_cmd "$IP" netns exec "$_ns" "$@"
	fi
}
in_ns_sys() {
	_ns=$1
	shift
	echo_cmd "$IP" netns exec "$_ns" "$@"
}
# bg_in_ns NS CMD...: CMD in NS in the background, as in_ns runs it; its
# pid in BG_PID (nsenter and ip netns exec both exec CMD: the pid is CMD's).
bg_in_ns() {
	_ns=$1
	shift
	[ "$VERBOSE" = 1 ] && echo "# + [$_ns] $* &" >&2
	if [ -n "$NSENTER" ]; then
		"$NSENTER" --net="/run/netns/$_ns" "$@" &
	else
		"$IP" netns exec "$_ns" "$@" &
	fi
	BG_PID=$!
}
# ns_txpkts NS DEV: packets DEV in NS has sent (its /proc/net/dev: no
# remount of /sys needed)
ns_txpkts() {
	in_ns "$1" awk -v d="$2" '{ sub(/:/, " ") } $1 == d { print $11; exit }' /proc/net/dev
}

# ns_txbytes NS DEV: bytes DEV in NS has sent (as ns_txpkts).
ns_txbytes() {
	in_ns "$1" awk -v d="$2" '{ sub(/:/, " ") } $1 == d { print $10; exit }' /proc/net/dev
}
in_a() { in_ns "$NS_A" "$@"; }
in_b() { in_ns "$NS_B" "$@"; }
tc_a() { in_a "$TC" "$@"; }
tc_b() { in_b "$TC" "$@"; }

# wait_until TIMEOUT_S CMD...: poll CMD every 0.1 s until it succeeds;
# status 1 when TIMEOUT_S passes first.
wait_until() {
	_n=$(awk -v t="$1" 'BEGIN { printf "%d\n", t * 10 }')
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$_n" -le 0 ] && return 1
		_n=$((_n - 1))
		sleep 0.1
	done
	return 0
}

# --------------------------------------------------------------- netns

# netns_pair: two namespaces joined by a veth pair (see the top of the file).
# Exports NS_A NS_B VETH_A VETH_B ADDR_A ADDR_B; registers the cleanup.
netns_pair() {
	HTBX_NS_SEQ=$((HTBX_NS_SEQ + 1))
	NS_A=htbx-a-$$-$HTBX_NS_SEQ
	NS_B=htbx-b-$$-$HTBX_NS_SEQ
	VETH_A=veth-a
	VETH_B=veth-b
	ADDR_A=198.18.0.1
	ADDR_B=198.18.0.2
	export NS_A NS_B VETH_A VETH_B ADDR_A ADDR_B
	netns_trap
	for _ns in "$NS_A" "$NS_B"; do
		echo_cmd "$IP" netns add "$_ns" || return 1
		HTBX_NETNS="$HTBX_NETNS $_ns"
		in_ns "$_ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6;
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
		in_ns "$_ns" "$IP" link set lo up || return 1
	done
	echo_cmd "$IP" -n "$NS_A" link add "$VETH_A" type veth \
		peer name "$VETH_B" netns "$NS_B" || return 1
	in_a "$IP" addr add "$ADDR_A/24" dev "$VETH_A" || return 1
	in_b "$IP" addr add "$ADDR_B/24" dev "$VETH_B" || return 1
	in_a "$IP" link set "$VETH_A" up || return 1
	in_b "$IP" link set "$VETH_B" up || return 1
	_mac_a=$(in_ns_sys "$NS_A" cat "/sys/class/net/$VETH_A/address")
	_mac_b=$(in_ns_sys "$NS_B" cat "/sys/class/net/$VETH_B/address")
	in_a "$IP" neigh replace "$ADDR_B" lladdr "$_mac_b" dev "$VETH_A" nud permanent || return 1
	in_b "$IP" neigh replace "$ADDR_A" lladdr "$_mac_a" dev "$VETH_B" nud permanent || return 1
	return 0
}

# veth_mq_pair NS DEV ADDR PEER_NS PEER_DEV PEER_ADDR: a veth pair with 4
# TX and 4 RX queues from namespace NS to PEER_NS, addresses ADDR/24 and
# PEER_ADDR/24, both up (DEV with txqueuelen 1000, so its qdiscs get the
# usual default limit), lo up in PEER_NS and static neighbours, as
# netns_pair makes its pair. Both namespaces must exist.
veth_mq_pair() {
	echo_cmd "$IP" -n "$1" link add "$2" numtxqueues 4 numrxqueues 4 type veth \
		peer name "$5" numtxqueues 4 numrxqueues 4 netns "$4" || return 1
	in_ns "$1" "$IP" addr add "$3/24" dev "$2" || return 1
	in_ns "$4" "$IP" addr add "$6/24" dev "$5" || return 1
	in_ns "$1" "$IP" link set "$2" up txqueuelen 1000 || return 1
	in_ns "$4" "$IP" link set "$5" up || return 1
	in_ns "$4" "$IP" link set lo up || return 1
	in_ns "$1" "$IP" neigh replace "$6" dev "$2" nud permanent \
		lladdr "$(in_ns_sys "$4" cat "/sys/class/net/$5/address")" || return 1
	in_ns "$4" "$IP" neigh replace "$3" dev "$5" nud permanent \
		lladdr "$(in_ns_sys "$1" cat "/sys/class/net/$2/address")" || return 1
	return 0
}

# Kill the background jobs this library started, delete its namespaces.
netns_cleanup() {
	for _p in $HTBX_PIDS; do
		kill "$_p" 2>/dev/null
	done
	for _p in $HTBX_PIDS; do
		wait "$_p" 2>/dev/null
	done
	HTBX_PIDS=
	for _ns in $HTBX_NETNS; do
		"$IP" netns del "$_ns" 2>/dev/null
	done
	HTBX_NETNS=
}

netns_trap() {
	[ -n "$HTBX_TRAPPED" ] && return 0
	HTBX_TRAPPED=1
	trap 'netns_cleanup' EXIT
	trap 'netns_cleanup; trap - EXIT; exit 130' INT TERM
}

# netns_leak_check: status 0 when no htbx-* namespace is left (prints the
# leftovers otherwise).
netns_leak_check() {
	_left=$("$IP" netns list 2>/dev/null | awk '$1 ~ /^htbx-/ { print $1 }')
	[ -z "$_left" ] && return 0
	echo "# leaked netns: $(echo $_left)"
	return 1
}

# ------------------------------------------------------------- traffic

# port_listening NS PORT [tcp]: a socket in NS is bound to PORT.
port_listening() {
	_hex=$(printf '%04X' "$2")
	if [ "$3" = tcp ]; then
		in_ns "$1" awk -v p=":$_hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp
	else
		in_ns "$1" awk -v p=":$_hex" '$2 ~ p"$" { f = 1 } END { exit !f }' /proc/net/udp
	fi
}

# measure [-t SECS] [-w WARMUP] [-s PAYLOAD] [-o JSONFILE] [--tcp] FLOW...
#   FLOW as for `htbx-traffic send` (PORT[,rate=R][,mark=N][,tos=N][,prio=N]).
#   Receives in B on every flow's port, sends from A to ADDR_B for
#   SECS + 1 s (the receiver's window, SECS, starts at the first packet),
#   waits for both. The receiver's JSON is left in JSONFILE (default
#   $MEASURE_JSON, itself defaulting to /tmp/htbx-measure-$$.json) and
#   MEASURE_JSON is set to it. Status 1 (with "# " lines saying why) when the
#   receiver or sender failed. VERBOSE=1 prints the JSON as a "# " line.
measure() {
	_t=5 _w=1 _s=1400 _tcp= _o=${MEASURE_JSON:-/tmp/htbx-measure-$$.json}
	while [ $# -gt 0 ]; do
		case $1 in
		-t) _t=$2; shift 2 ;;
		-w) _w=$2; shift 2 ;;
		-s) _s=$2; shift 2 ;;
		-o) _o=$2; shift 2 ;;
		--tcp) _tcp=--tcp; shift ;;
		*) break ;;
		esac
	done
	MEASURE_JSON=$_o
	_ports=
	for _f in "$@"; do
		_ports="$_ports ${_f%%,*}"
	done
	rm -f "$_o"
	# bg_in_ns: BG_PID is the process itself, to wait for or kill.
	[ "$VERBOSE" = 1 ] && echo "# + (B) htbx-traffic recv -j -t $_t -w $_w $_tcp$_ports" >&2
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv -j -t "$_t" -w "$_w" $_tcp $_ports >"$_o" 2>"$_o.err"
	_rpid=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $_rpid"
	for _p in $_ports; do
		if ! wait_until 10 port_listening "$NS_B" "$_p" ${_tcp:+tcp}; then
			echo "# measure: receiver not listening on $_p"
			cat "$_o.err" | sed 's/^/# /'
			return 1
		fi
	done
	_st=$(awk -v t="$_t" 'BEGIN { print t + 1 }')
	[ "$VERBOSE" = 1 ] && echo "# + (A) htbx-traffic send -d $ADDR_B -t $_st -s $_s $_tcp $*" >&2
	bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$ADDR_B" -t "$_st" -s "$_s" $_tcp "$@" >"$_o.send" 2>&1
	_spid=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $_spid"
	wait "$_rpid"
	_rrc=$?
	wait "$_spid"
	_src=$?
	HTBX_PIDS=$(echo " $HTBX_PIDS " | sed "s/ $_rpid / /; s/ $_spid / /")
	if [ "$VERBOSE" = 1 ]; then
		echo "# measure: $(cat "$_o")"
		sed 's/^/# send: /' "$_o.send"
	fi
	if [ $_rrc -ne 0 ] || [ $_src -ne 0 ]; then
		echo "# measure: recv exit $_rrc, send exit $_src"
		sed 's/^/# recv: /' "$_o.err"
		sed 's/^/# send: /' "$_o.send"
		return 1
	fi
	return 0
}

# flow_field JSONFILE PORT FIELD [I]: a field of one flow in htbx-traffic
# recv -j output (mbit, packets, bytes; per_second takes I, 0-based, and is
# 0 past the series' end); empty when the port is absent. awk on that
# tool's own one-line layout, not jq: a jq start costs 0.6 s under TCG.
flow_field() {
	awk -v p="$2" -v f="$3" -v i="${4:-0}" '
		{ all = all $0 }
		END {
			n = split(all, part, /\{"port":/)
			for (k = 2; k <= n; k++) {
				s = part[k]
				if (s + 0 != p)
					continue
				if (f == "per_second") {
					if (!match(s, /"per_second":\[[^]]*\]/))
						exit
					m = split(substr(s, RSTART + 14, RLENGTH - 15), v, ",")
					print (i + 1 <= m && v[i + 1] != "") ? v[i + 1] : 0
				} else if (match(s, "\"" f "\":[-0-9.eE+]+")) {
					print substr(s, RSTART + length(f) + 3, RLENGTH - length(f) - 3)
				}
				exit
			}
		}' "$1"
}

# flow_mbit JSONFILE PORT: that port's measured rate in mbit (empty if absent).
flow_mbit() {
	flow_field "$1" "$2" mbit
}

# ------------------------------------------------------------ counters
# Used by suite-leaves, suite-regress and suite-tcp. All read NS_A.

# awk functions for tc's text: num("(dropped 12,") is 12; size("12Kb") is
# 12288 (tc's rounding of byte counts undone approximately).
TC_AWK_NUM='
	function num(s) { gsub(/[^0-9]/, "", s); return s + 0 }
	function size(s, m) {
		m = 1
		if (s ~ /Kb$/) m = 1024
		else if (s ~ /Mb$/) m = 1048576
		else if (s ~ /Gb$/) m = 1073741824
		sub(/[KMG]?b$/, "", s)
		return int(s * m)
	}'

# tc_class_parse: `tc -s [-j] class show` output on stdin, one line per class
# on stdout:
#   KIND CLASSID PARENT LEAF BYTES PKTS DROPS OVERLIMITS BACKLOG QLEN GIANTS
# PARENT is "root" for a root class, LEAF "-" for a class without a leaf
# qdisc; BACKLOG is bytes (tc's "12Kb" rounding is undone approximately, so
# only a 0 is exact); GIANTS is 0 for kinds without that xstat. iproute2 6.1
# (Debian 12) prints text for `tc -j class show`; later versions print JSON:
# both are read.
tc_class_parse() {
	_in=$(cat)
	case $_in in
	\[*)
		printf '%s\n' "$_in" | jq -r '.[] | [
			(.class // .kind // "?"), (.handle // "?"),
			(if .root then "root" else (.parent // "-") end),
			((.leaf // "-") | tostring),
			(.bytes // 0), (.packets // 0), (.drops // 0),
			(.overlimits // 0), (.backlog // 0), (.qlen // 0),
			([.. | objects | .giants? | numbers][0] // 0)
			] | map(tostring) | join(" ")'
		;;
	*)
		printf '%s\n' "$_in" | awk "$TC_AWK_NUM"'
		function flush() {
			if (id != "")
				print kind, id, par, leaf, by, pk, dr, ov, bl, ql, gi
			id = ""
		}
		/^class / {
			flush()
			kind = $2; id = $3; par = "-"; leaf = "-"
			by = pk = dr = ov = bl = ql = gi = 0
			for (i = 4; i < NF; i++) {
				if ($i == "parent") par = $(i + 1)
				else if ($i == "leaf") leaf = $(i + 1)
			}
			if ($4 == "root") par = "root"
			next
		}
		id != "" && $1 == "Sent" {
			by = $2; pk = $4
			for (i = 5; i < NF; i++) {
				if ($i == "(dropped") dr = num($(i + 1))
				if ($i == "overlimits") ov = num($(i + 1))
			}
		}
		id != "" && $1 == "backlog" { bl = size($2); ql = num($3) }
		id != "" { for (i = 1; i < NF; i++) if ($i == "giants:") gi = num($(i + 1)) }
		END { flush() }'
		;;
	esac
}

# class_stats DEV: tc_class_parse lines for every class on DEV (in NS_A).
class_stats() {
	tc_a -s -j class show dev "$1" | tc_class_parse
}

# tc_est DEV CLASSID [TC]: the rate estimator's figures of CLASSID on DEV
# as "MBIT PPS" (tc -s prints "rate 39760Kbit 3313pps backlog ..."), "0 0"
# when it has none; TC is the command to run tc with (default: $TC itself,
# in the current netns; tc_a for $NS_A). tc_est_mbit: the MBIT alone;
# tc_est_counts: true when it shows more than 1 mbit.
tc_est() {
	${3:-"$TC"} -s class show dev "$1" classid "$2" | awk '
		function num(v, unit,    m) {
			sub(unit "$", "", v); m = 1
			if (v ~ /K$/) m = 1e3
			else if (v ~ /M$/) m = 1e6
			else if (v ~ /G$/) m = 1e9
			sub(/[KMG]$/, "", v)
			return v * m
		}
		$1 == "rate" && $2 ~ /bit$/ && $3 ~ /pps$/ {
			printf "%.3f %d\n", num($2, "bit") / 1e6, num($3, "pps")
			found = 1; exit
		}
		END { if (!found) print "0 0" }'
}
tc_est_mbit() {
	tc_est "$@" | awk '{ print $1 }'
}
tc_est_counts() {
	awk -v e="$(tc_est_mbit "$@")" 'BEGIN { exit !(e > 1) }'
}

# cls_get LINES CLASSID FIELD: one field of one class from class_stats
# lines; FIELD is bytes|pkts|drops|overlimits|backlog|qlen|giants|leaf|parent.
cls_get() {
	printf '%s\n' "$1" | awk -v c="$2" -v f="$3" '
		BEGIN { split("kind id parent leaf bytes pkts drops overlimits backlog qlen giants", n, " ")
			for (i in n) col[n[i]] = i }
		$2 == c { print $(col[f]); found = 1; exit }
		END { if (!found) print (f == "leaf" || f == "parent") ? "-" : 0 }'
}

# qdisc_stats DEV: one line per qdisc on DEV (in NS_A), from tc -s qdisc
# show's text (awk: a jq start costs 0.6 s under TCG, and the drain and
# counter checks poll this):
#   KIND HANDLE PARENT BYTES PKTS DROPS BACKLOG QLEN
# PARENT is "root" for the root qdisc; BACKLOG is bytes (tc's "12Kb"
# rounding undone approximately: only a 0 is exact). A qdisc's own Sent
# and backlog lines are the first after its "qdisc" line (cake's tin
# table has backlog rows of its own).
qdisc_stats() {
	tc_a -s qdisc show dev "$1" | awk "$TC_AWK_NUM"'
		function flush() {
			if (h != "")
				print kind, h, par, by, pk, dr, bl, ql
			h = ""
		}
		/^qdisc / {
			flush()
			kind = $2; h = $3; par = "-"
			by = pk = dr = bl = ql = 0
			sent = back = 0
			if ($4 == "root") par = "root"
			for (i = 4; i < NF; i++) if ($i == "parent") par = $(i + 1)
			next
		}
		h != "" && !sent && $1 == "Sent" {
			sent = 1; by = $2; pk = $4
			for (i = 5; i < NF; i++) if ($i == "(dropped") dr = num($(i + 1))
			next
		}
		h != "" && sent && !back && $1 == "backlog" { back = 1; bl = size($2); ql = num($3) }
		END { flush() }'
}

# stable_stats DEV: sets $cls (class_stats) and $qd (qdisc_stats) of DEV
# from one quiet moment: the qdisc read before and after the classes must
# agree (up to 30 tries 0.2 s apart). Drained queues do not stop traffic: a
# TCP retransmission (its timer outlives the sender) can pass between two
# dumps and would count in one and not the other. Status 1 when it never
# became quiet (the last reads are kept).
stable_stats() {
	_n=0
	while [ $_n -lt 30 ]; do
		_q0=$(qdisc_stats "$1")
		cls=$(class_stats "$1")
		qd=$(qdisc_stats "$1")
		[ "$_q0" = "$qd" ] && return 0
		_n=$((_n + 1))
		sleep 0.2
	done
	return 1
}

# tc_drained DEV: every qdisc and class on DEV has qlen 0 and backlog 0.
tc_drained() {
	_q=$(qdisc_stats "$1") || return 1
	[ -n "$_q" ] || return 1
	printf '%s\n' "$_q" | awk '$7 != 0 || $8 != 0 { bad = 1 } END { exit bad }' || return 1
	class_stats "$1" | awk '$9 != 0 || $10 != 0 { bad = 1 } END { exit bad }'
}

# class_rates DEV SECS [WARMUP]: htbx-traffic tcrate in NS_A: after WARMUP
# seconds, each class's counters over SECS, one line per class:
#   class ID mbit X bytes N packets N drops N secs S
# (the clock is read around each netlink dump, so the interval is exact to
# microseconds even when process start-up in the guest is slow).
class_rates() {
	in_a "$HTBX_TRAFFIC" tcrate -i "$1" -t "$2" -w "${3:-0}"
}

# rate_get LINES CLASSID [FIELD]: FIELD (default mbit) of one class from
# class_rates lines; 0 when the class is absent.
rate_get() {
	printf '%s\n' "$1" | awk -v c="$2" -v f="${3:-mbit}" '
		$1 == "class" && $2 == c { for (i = 3; i < NF; i++) if ($i == f) { print $(i + 1); exit } }' |
		grep . || echo 0
}

# module_loaded MODULE: MODULE is loaded (a module, not built in).
module_loaded() { grep -q "^$1 " /proc/modules; }

# ns_gone_then_rmmod NS_DESC RMMOD_DESC: a suite's last checks, after its
# namespaces were deleted: NS_A is gone within 20 s (a tree left in a
# namespace being torn down still goes away), then sch_htbx unloads within
# 20 s (nothing of it left in use).
ns_gone_then_rmmod() {
	# shellcheck disable=SC2016
	if wait_until 20 sh -c '! ip netns list | grep -q "$0"' "$NS_A"; then
		ok "$1"
	else
		fail "$1" "$(ip netns list)"
	fi
	if wait_until 20 rmmod sch_htbx; then
		ok "$2"
	else
		fail "$2" "$(lsmod | grep sch_htbx)"
	fi
}

# load_qdisc_mod MODULE: modprobe it (a no-op for built-in ones). Status 1,
# with modprobe's message in LOAD_ERR, when the guest does not have it.
load_qdisc_mod() {
	LOAD_ERR=$(modprobe "$1" 2>&1) && return 0
	LOAD_ERR=$(printf '%s' "$LOAD_ERR" | head -n 1)
	return 1
}

# panic_on_hang: make a soft lockup, an RCU stall or a hung task panic the
# guest, so that lines/vm fails the run at once (exit 125, with the
# kernel log) instead of when its --timeout runs out.
panic_on_hang() {
	for _f in softlockup_panic panic_on_rcu_stall hung_task_panic; do
		[ -w "/proc/sys/kernel/$_f" ] && echo 1 >"/proc/sys/kernel/$_f"
	done
	return 0
}

# stage_tc SUITE DIR: another Debian suite's tc as lines/fetch-tc staged
# it (build/tc-SUITE/: its tree, loader and libraries, and the wrapper
# that runs them, which finds its tree beside itself) copied to
# DIR/tc-SUITE in the guest's RAM (run from the 9p share, every exec would
# read them through it); prints that copy's wrapper. Fails when SUITE's tc
# is not staged.
stage_tc() {
	[ -x "$HTBX_TOP/build/tc-$1/tc" ] || return 1
	rm -rf "$2/tc-$1"
	cp -a "$HTBX_TOP/build/tc-$1" "$2/tc-$1" || return 1
	echo "$2/tc-$1/tc"
}
