# vm-args: --timeout 300
# SPDX-License-Identifier: GPL-2.0
#
# suite-netlink.sh - the kernel module's own rejections of bad netlink input.
# tc's q_htbx.so checks its input before sending, so these requests are made
# by tools/bin/htbx-nl (raw rtnetlink, arbitrary TCA_OPTIONS content).
#
#   netns $NS
#   nl0 (dummy)  root qdisc htbx 1: default 10
#                1:1 -- 1:10
#                  \--- 1:2 -- 1:3 -- ... -- 1:8	(8 levels: the maximum)
#
# Every bad request must: fail with an errno (htbx-nl exit 2), carry an
# extack that names the option (a keyword), and leave `tc -d class show` and
# `tc -d qdisc show` byte-identical (nothing half-applied).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

HTBX_NL=$(command -v htbx-nl 2>/dev/null || echo "$HTBX_TOP/tools/bin/htbx-nl")
DEV=nl0
NS=htbx-nl-$$

if [ ! -x "$HTBX_NL" ]; then
	fail "htbx-nl is built" "missing: $HTBX_NL (make tools)"
	exit 1
fi

modprobe dummy 2>/dev/null
netns_trap
"$IP" netns add "$NS" || exit 1
HTBX_NETNS="$HTBX_NETNS $NS"
in_ns "$NS" "$IP" link set lo up || exit 1
in_ns "$NS" "$IP" link add "$DEV" type dummy || exit 1
in_ns "$NS" "$IP" link set "$DEV" up || exit 1

tc_n() { in_ns "$NS" "$TC" "$@"; }
nl() { in_ns "$NS" "$HTBX_NL" "$@"; }
state() { tc_n -d class show dev "$DEV"; tc_n -d qdisc show dev "$DEV"; }

# tc's warnings (a clamped quantum) are kept out of the TAP stream.
SETUP_LOG=/tmp/htbx-netlink-setup.$$
setup_ok=1
exec 3>&2 2>"$SETUP_LOG"
tc_n qdisc add dev "$DEV" root handle 1: htbx default 10 || setup_ok=0
tc_n class add dev "$DEV" parent 1: classid 1:1 htbx rate 100mbit || setup_ok=0
tc_n class add dev "$DEV" parent 1:1 classid 1:10 htbx rate 10mbit ceil 100mbit || setup_ok=0
p=1:1
for i in 2 3 4 5 6 7 8; do
	tc_n class add dev "$DEV" parent "$p" classid "1:$i" htbx rate 1mbit || setup_ok=0
	p=1:$i
done
exec 2>&3 3>&-
if [ $setup_ok = 1 ] && [ "$(tc_n class show dev "$DEV" | grep -c '^class htbx')" = 9 ]; then
	ok "setup: htbx 1: with 9 classes, 1:1..1:8 eight levels deep"
else
	fail "setup: htbx 1: with 9 classes, 1:1..1:8 eight levels deep" "$(state)" \
		"$(cat "$SETUP_LOG")"
	exit 1
fi
rm -f "$SETUP_LOG"
_setup_state=$(state)

# bad DESC KEYWORD HTBX-NL-ARGS...: the request is refused by the kernel
# (exit 2), its extack matches KEYWORD (case-insensitive ERE) and the tc view
# of the device is unchanged.
# bad_core: the same for requests the tc core (net/sched/sch_api.c) refuses
# before sch_htbx sees them; the core gives no extack for some of them (an
# empty one is accepted, a non-empty one must match KEYWORD).
bad_core() {
	HTBX_NL_CORE=1 bad "$@"
}

# bad_del DESC KEYWORD ARGS...: a class delete the module refuses. Where the
# kernel's class delete takes no extack (5.10: modinfo sch_htbx's compat
# field says no-class-delete-extack) the refusal can carry no text: there
# it must be EBUSY with an empty extack, everything else as bad's.
if modinfo -F compat sch_htbx 2>/dev/null | grep -qw no-class-delete-extack; then
	bad_del() {
		_d=$1
		shift 2
		HTBX_NL_CORE=1 bad "$_d (EBUSY; no extack in this kernel's class delete)" '^$' "$@"
		case $_out in
		*"error=EBUSY extack=\"\""*) ;;
		*) fail "$_d: EBUSY with an empty extack" "$_out" ;;
		esac
	}
else
	bad_del() { bad "$@"; }
fi

# The view before a request is the view after the previous refused one when
# no result was reported between them (every other step that changes the
# tree reports one): half the tc dumps, which cost most of this suite's time
# on the debug kernel (an exec of tc there takes 1.4 s).
# On the debug kernel (a tc exec there takes 1.4 s; the comparison is the
# same on every kernel and runs on the Debian ones) the view is compared
# only once, at the end of the refusals: NL_STATE=each|end.
_known= _known_at=-1
case ${NL_STATE:-${HTBX_KLINE:-}} in
debug|end) NL_STATE=end ;;
*) NL_STATE=each ;;
esac
bad() {
	_desc=$1 _kw=$2
	shift 2
	if [ $NL_STATE = end ]; then
		_before=
	elif [ "$_known_at" = "$HTBX_RESULTS" ]; then
		_before=$_known
	else
		_before=$(state)
	fi
	_out=$(nl "$@" 2>&1)
	_rc=$?
	if [ $NL_STATE = end ]; then
		_after=
	else
		_after=$(state)
	fi
	_ext=$(printf '%s\n' "$_out" | sed -n 's/.*extack="\(.*\)".*/\1/p')
	if [ $_rc -ne 2 ]; then
		fail "$_desc: refused by the kernel" "htbx-nl $*" "exit $_rc: $_out"
	elif [ -z "$_ext" ] && [ "${HTBX_NL_CORE:-0}" = 0 ]; then
		fail "$_desc: extack is not empty" "htbx-nl $*" "$_out"
	elif [ -n "$_ext" ] && ! printf '%s\n' "$_ext" | grep -qiE -- "$_kw"; then
		fail "$_desc: extack matches '$_kw'" "htbx-nl $*" "$_out"
	elif [ "$_before" != "$_after" ]; then
		fail "$_desc: nothing changed" "htbx-nl $*" "before:" "$_before" \
			"after:" "$_after"
	else
		ok "$_desc: $_out"
	fi
	_known=$_after _known_at=$HTBX_RESULTS
}

C="class change dev $DEV classid 1:10"
C_INNER="class change dev $DEV classid 1:1"
A="class add dev $DEV parent 1:1 classid 1:20"
Q="qdisc change dev $DEV root handle 1:"
R=u64:RATE=125000

# --- malformed attributes -----------------------------------------------------
bad "unknown attribute 99" 'unknown htbx attribute \(known: 2\.\.20\)' $C u32:99=1
bad "unknown attribute 99 on the qdisc" 'unknown htbx attribute \(known: 2\.\.20\)' $Q u32:99=1
# a wrong length is named as such, not answered with the value range
bad "truncated rate (2 bytes)" 'invalid rate: attribute length must be 8 bytes' $C raw:RATE=0102
bad "u32 where rate wants u64" 'invalid rate: attribute length must be 8 bytes' $C u32:RATE=125000
bad "truncated prio (1 byte)" 'invalid prio: attribute length must be 4 bytes' $C raw:PRIO=01
bad "u64 where overhead wants s32" 'invalid overhead: attribute length must be 4 bytes' $C u64:OVERHEAD=0
bad "trailing bytes after the last attribute" 'malformed|truncated' --trail 0102 $C $R
bad "attribute type 0" 'unknown htbx attribute \(known: 2\.\.20\)' $C u32:0=1
bad "read-only level on a class" 'level' $C u32:LEVEL=0
bad "read-only version on the qdisc" 'version' $Q u32:VERSION=1
bad "read-only direct_packets_stat on the qdisc" 'direct_packets_stat' $Q u64:DIRECT_PKTS=0
bad "read-only budget_hits on the qdisc" 'budget_hits' $Q u64:BUDGET_HITS=0
bad "pad attribute on a class" 'pad' $C u64:PAD=0

# The attribute offset points into the request (past nlmsghdr + tcmsg).
_out=$(nl $C u32:99=1 2>&1)
_off=$(printf '%s\n' "$_out" | sed -n 's/.* offset=\([0-9]*\).*/\1/p')
if [ -n "$_off" ] && [ "$_off" -ge 36 ]; then
	ok "extack names the offending attribute's offset ($_off)"
else
	fail "extack names the offending attribute's offset" "$_out"
fi

# --- wrong object -------------------------------------------------------------
bad "qdisc attribute default on a class" 'default is a qdisc option' $C u32:DEFCLS=10
bad "qdisc attribute r2q on a class" 'r2q is a qdisc option' $C u32:R2Q=5
bad "class attribute rate on the qdisc" 'rate is a class option' $Q $R
bad "class attribute prio on the qdisc" 'prio is a class option' $Q u32:PRIO=1

# --- out of range ------------------------------------------------------------
# (what tc-htb takes and htb adjusts is taken: see "accepted with a warning")
bad "rate 0 on create" 'invalid rate' $A u64:RATE=0
bad "rate 0 on change" 'invalid rate' $C u64:RATE=0
bad "linklayer 2" 'invalid linklayer' $C u8:LINKLAYER=2
bad "overhead -65" 'invalid overhead: s32 bytes, -64\.\.65535' $C s32:OVERHEAD=-65
bad "overhead 65536 (tc-htb's is a u16)" 'invalid overhead' $C s32:OVERHEAD=65536
bad "mpu 65537" 'invalid mpu' $C u32:MPU=65537
bad "offload flag" 'offload' $Q flag:OFFLOAD

# --- tree structure -----------------------------------------------------------
# The core gives a class the major of its parent's qdisc and refuses
# differing majors itself: sch_htbx's own classid/parent major checks are
# not reachable from netlink; these prove the request still fails cleanly.
bad_core "classid 2:20 under parent 1:1 (core)" 'class|qdisc|parent' \
	class add dev $DEV parent 1:1 classid 2:20 $R
bad_core "classid 2:20 under parent root: no qdisc 2: (core)" 'qdisc' \
	class add dev $DEV parent root classid 2:20 $R
bad "classid minor 0" 'classid' class add dev $DEV parent 1:1 classid 1:0 $R
bad "missing parent 1:99" 'parent class (1:99 )?does not exist' \
	class add dev $DEV parent 1:99 classid 1:20 $R
bad "depth 9 (child of 1:8)" 'too deep' \
	class add dev $DEV parent 1:8 classid 1:9 $R
bad_core "change of nonexistent class 1:77 (core)" 'class' \
	class change dev $DEV classid 1:77 $R
bad_del "delete class 1:1 with children" 'child' class del dev $DEV classid 1:1
bad_del "delete inner class 1:7 with a child" 'child' class del dev $DEV classid 1:7

# --- a new qdisc with bad options (init fails, the qdisc is destroyed) ------
N="qdisc add dev $DEV parent 1:10 handle 2:"
bad "new child qdisc with a truncated r2q" 'invalid r2q: attribute length' $N raw:R2Q=01
bad "new child qdisc with offload" 'offload' $N flag:OFFLOAD
bad "new child qdisc with a class attribute" 'rate is a class option' $N $R
bad "new child qdisc with unknown attribute 42" 'unknown htbx attribute \(known: 2\.\.20\)' $N u32:42=0
bad "root replace with a truncated direct_qlen" 'invalid direct_qlen: attribute length' \
	qdisc replace dev $DEV root handle 1: raw:DIRECT_QLEN=0102
# htb refuses a qdisc without TCA_OPTIONS; a netlink library that knows
# no htbx (pyroute2) sends none, and an accepted qdisc would then lose its
# default class without a word.
bad "new child qdisc without TCA_OPTIONS (as htb)" 'no htbx qdisc options' --no-options $N

# --- estimator, graft, filters -------------------------------------------------
bad "new class with an invalid rate estimator (interval 7)" 'estimator' $A $R ^raw:5=0702
bad "class change with an invalid rate estimator" 'estimator' $C u32:PRIO=1 ^raw:5=0702
bad "pfifo grafted onto inner class 1:1" 'child classes' \
	--kind pfifo --no-options qdisc add dev $DEV parent 1:1 handle 3:
if tc_n filter add dev "$DEV" parent 1: protocol all prio 1 matchall \
	classid 1:8 >/dev/null 2>&1; then
	bad_del "delete class 1:8 used by a filter" 'filter' class del dev $DEV classid 1:8
	tc_n filter del dev "$DEV" parent 1: prio 1
else
	skip "delete class 1:8 used by a filter" "no matchall classifier"
fi

# --- missing options ----------------------------------------------------------
bad "attributes outside TCA_OPTIONS on create" 'no htbx class options: rate is required' --no-nest $A $R
bad "no TCA_OPTIONS on create" 'no htbx class options: rate is required' --no-options $A
bad "no TCA_OPTIONS on change" 'no htbx class options: nothing to change' --no-options $C
bad "empty TCA_OPTIONS on create" 'rate is required' $A
bad "create without rate" 'rate is required' $A u32:PRIO=1

if [ $NL_STATE = end ]; then
	_after=$(state)
	if [ "$_after" = "$_setup_state" ]; then
		ok "the refusals above changed nothing (one comparison at their end)"
	else
		fail "the refusals above changed nothing (one comparison at their end)" \
			"after setup:" "$_setup_state" "now:" "$_after"
	fi
fi

# --- one good raw request -----------------------------------------------------
_out=$(nl $A u64:RATE=125000 u64:CEIL=1250000 u32:PRIO=3 2>&1)
_rc=$?
_cls=$(tc_n -d class show dev "$DEV" classid 1:20)
if [ $_rc -eq 0 ] && printf '%s\n' "$_out" | grep -q '^ok' &&
   printf '%s\n' "$_cls" | grep -q 'parent 1:1 .*prio 3'; then
	ok "raw class add 1:20 (rate 1mbit ceil 10mbit prio 3): $_out"
else
	fail "raw class add 1:20 (rate 1mbit ceil 10mbit prio 3)" "exit $_rc: $_out" \
		"$_cls"
fi
_out=$(nl class del dev "$DEV" classid 1:20 2>&1)
_rc=$?
if [ $_rc -eq 0 ] && [ -z "$(tc_n class show dev "$DEV" classid 1:20)" ]; then
	ok "raw class del 1:20: $_out"
else
	fail "raw class del 1:20" "exit $_rc: $_out"
fi

_out=$(nl class add dev "$DEV" parent 1:1 classid 1:21 u64:RATE=125000000 2>&1)
_rc=$?
if [ $_rc -eq 0 ] && printf '%s\n' "$_out" | grep -q '^ok warning=".*quantum'; then
	ok "raw class add 1:21 at 1gbit succeeds with the clamped-quantum warning: $_out"
else
	fail "raw class add 1:21 at 1gbit succeeds with the clamped-quantum warning" \
		"exit $_rc: $_out"
fi

# --- accepted with a warning: what htb takes and adjusts ------------------------
# warned DESC WARNING-ERE EXPECTED-IN-SHOW HTBX-NL-ARGS...: the request
# succeeds, carries an extack warning matching WARNING-ERE, and
# `tc -d class show; tc -d qdisc show` then matches EXPECTED-IN-SHOW.
warned() {
	_desc=$1 _kw=$2 _want=$3
	shift 3
	_out=$(nl "$@" 2>&1)
	_rc=$?
	_after=$(state)
	if [ $_rc -eq 0 ] && printf '%s\n' "$_out" | grep -q '^ok warning=' &&
	   printf '%s\n' "$_out" | grep -qiE -- "$_kw" &&
	   printf '%s\n' "$_after" | grep -qE -- "$_want"; then
		ok "$_desc: $_out"
	else
		fail "$_desc" "htbx-nl $*" "exit $_rc: $_out" "$_after"
	fi
}
warned "prio 8 counts as 7" 'prio (8 counts as 7|above 7 counts as 7)' \
	'class htbx 1:10 .*prio 7 ' $C u32:PRIO=8
warned "prio 4294967295 counts as 7" 'prio' 'class htbx 1:10 .*prio 7 ' $C u32:PRIO=4294967295
warned "r2q 0 counts as 1" 'r2q 0.*counts as 1' 'r2q 1 ' $Q u32:R2Q=0
check "r2q back to 10" nl $Q u32:R2Q=10
warned "default 0x10000: only the low 16 bits name a class" 'low 16 bits' \
	'default 0x10000 ' $Q u32:DEFCLS=0x10000
check "default back to 10" nl $Q u32:DEFCLS=0x10
warned "rate above 8Tbit counts as 8Tbit" '8Tbit' 'class htbx 1:10 .*rate 8Tbit ' \
	$C u64:RATE=1000000000001 u64:CEIL=0
warned "ceil above 8Tbit counts as 8Tbit" '8Tbit' 'class htbx 1:10 .*ceil 8Tbit ' \
	$C u64:RATE=125000 u64:CEIL=18446744073709551615
warned "ceil below rate on change: held to ceil" 'held to ceil' \
	'class htbx 1:10 .*rate 8Mbit ceil 1Mbit ' $C u64:RATE=1000000 u64:CEIL=125000
warned "ceil below rate on create" 'held to ceil' 'class htbx 1:20 .*rate 10Mbit ceil 1Mbit ' \
	$A u64:RATE=1250000 u64:CEIL=125000
check "class 1:20 deleted again" nl class del dev $DEV classid 1:20
warned "mtu 1048577 counts as 1048576" 'mtu above 1048576' 'class htbx 1:10 .*mtu 1048576 ' \
	$C u32:MTU=1048577 u64:CEIL=0
warned "a class with children keeps its prio and quantum" 'keeps its prio and quantum' \
	'class htbx 1:1 root rate' $C_INNER u32:PRIO=3 u32:QUANTUM=7000
_cls=$(tc_n -d class show dev "$DEV" classid 1:1)
if printf '%s\n' "$_cls" | grep -q 'quantum'; then
	fail "the inner class shows no prio/quantum (as htb)" "$_cls"
else
	ok "the inner class shows no prio/quantum (as htb)"
fi
warned "several adjustments in one request" 'adjusted as htb|prio' \
	'class htbx 1:10 .*prio 7 .*rate 8Tbit ' $C u32:PRIO=9 u64:RATE=9000000000000 u64:CEIL=0

# --- the largest and smallest values accepted (ranges are not off by one) ---
_out=$(nl $C u64:RATE=1000000000000 u64:CEIL=1000000000000 u32:PRIO=7 \
	s32:OVERHEAD=65535 u32:MPU=65536 u32:MTU=1048576 u8:LINKLAYER=1 2>&1)
_rc=$?
_cls=$(tc_n -d class show dev "$DEV" classid 1:10)
if [ $_rc -eq 0 ] && printf '%s\n' "$_cls" | grep -q 'prio 7 .*overhead 65535'; then
	ok "raw class change 1:10 to the maxima of rate/ceil/prio/overhead/mpu/mtu/linklayer: $_out"
else
	fail "raw class change 1:10 to the maxima" "exit $_rc: $_out" "$_cls"
fi
check "raw class change 1:10 to rate 1, overhead -64, prio 0" \
	nl $C u64:RATE=1 u64:CEIL=1 s32:OVERHEAD=-64 u32:MPU=0 u32:PRIO=0 u8:LINKLAYER=0
check "raw qdisc change to r2q 1, direct_qlen 4294967295, default 0xffffffff" \
	nl $Q u32:R2Q=1 u32:DIRECT_QLEN=4294967295 u32:DEFCLS=0xffffffff
check "raw qdisc change to r2q 4294967295, direct_qlen 0, default 0" \
	nl $Q u32:R2Q=4294967295 u32:DIRECT_QLEN=0 u32:DEFCLS=0

# --- a partial change (raw netlink) keeps what is absent ---------------------
nl $C u64:RATE=125000 u64:CEIL=1250000 u32:BURST=15360 u32:PRIO=2 s32:OVERHEAD=0 >/dev/null 2>&1
nl $C u32:PRIO=5 >/dev/null 2>&1
_cls=$(tc_n class show dev "$DEV" classid 1:10)
if printf '%s\n' "$_cls" | grep -q 'prio 5 rate 1Mbit ceil 10Mbit burst 15Kb'; then
	ok "raw change of prio only keeps rate, ceil, burst: $_cls"
else
	fail "raw change of prio only keeps rate, ceil, burst" "$_cls"
fi

netns_cleanup
check "no namespace left behind" netns_leak_check
exit 0
