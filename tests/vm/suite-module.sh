# vm-args: --icount
# vm-args-debug: --timeout 1200
# SPDX-License-Identifier: GPL-2.0
#
# suite-module.sh - sch_htbx.ko as a kernel module: loading, configuration
# through tc (good and bad input), the requeue/peek promise with real driver
# push-back, changes under traffic, one mq tree (busy0 with 4 TX queues),
# and unloading.
#
#   root netns
#   htbx-traffic send --> busy0 (htbx_busydev: NETDEV_TX_BUSY every Nth xmit)
#                         [root qdisc htbx 1:, or tbf 1: -> htbx 2:]
#   tc configuration tests run on lo.
#
# Any oops or WARN fails the whole VM run (lines/vm boots panic_on_warn).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

BUSY=busy0
DST=10.99.0.2
TMPD=/tmp/htbx-module.$$
mkdir -p "$TMPD"

# cls_field DEV CLASSID: "bytes packets" of one class (tc -s class show).
cls_sent() {
	"$TC" -s class show dev "$1" classid "$2" |
		sed -n 's/^ *Sent \([0-9]*\) bytes \([0-9]*\) pkt.*/\1 \2/p' | head -n 1
}

# qd_field DEV HANDLE WORD: the number after WORD in tc -s qdisc show.
qd_field() {
	"$TC" -s qdisc show dev "$1" | awk -v h="$2" -v w="$3" '
		$1 == "qdisc" { on = ($3 == h) }
		on { for (i = 1; i < NF; i++) { t = $i; gsub(/[(),]/, "", t)
			if (t == w) { v = $(i + 1); gsub(/[^0-9]/, "", v); print v; exit } } }'
}

qd_backlog_empty() {
	_qs=$("$TC" -s qdisc show dev "$1")
	printf '%s\n' "$_qs" | grep -q 'backlog' &&
		! printf '%s\n' "$_qs" | grep 'backlog' | grep -qv ' 0b 0p'
}

# tcb: the tc commands on stdin, one tc run (tc -batch; it stops at the
# first that fails). A tc exec costs 1.4 s on the debug kernel, 0.1 s on
# the Debian ones; the kernel sees the same requests either way.
tcb() { "$TC" -batch -; }

lo_state() { printf 'class show dev lo\nqdisc show dev lo\n' | tcb; }

tx_bytes() { cat "/sys/class/net/$1/statistics/tx_bytes"; }

# expect_fail DESC PATTERN CMD...: CMD must fail, say PATTERN on stderr and
# leave `tc class show dev lo` and `tc qdisc show dev lo` as they were.
# On debug only the refusal is checked (under its detectors: the error
# paths' unwinding is the point there); the message and the unchanged state
# are the Debian lines' checks (two tc runs more each, 1.4 s a run there).
expect_fail() {
	_desc=$1 _pat=$2
	shift 2
	if [ "${HTBX_KLINE:-}" = debug ]; then
		if _out=$("$@" 2>&1); then
			fail "$_desc: rejected" "command: $*" "succeeded: $_out"
		else
			ok "$_desc: rejected ($(printf '%s' "$_out" | head -n 1))"
		fi
		return
	fi
	_before=$(lo_state)
	_out=$("$@" 2>&1)
	_rc=$?
	_after=$(lo_state)
	if [ $_rc -eq 0 ]; then
		fail "$_desc: rejected" "command: $*" "succeeded: $_out"
	elif ! printf '%s\n' "$_out" | grep -qi -- "$_pat"; then
		fail "$_desc: rejected with a message matching '$_pat'" "command: $*" "$_out"
	elif [ "$_before" != "$_after" ]; then
		fail "$_desc: rejected, nothing changed" "before: $_before" "after: $_after"
	else
		ok "$_desc: rejected ($(printf '%s' "$_out" | head -n 1))"
	fi
}

# --- load, autoload, unload refused while in use ------------------------------

if module_loaded sch_htbx; then
	rmmod sch_htbx 2>/dev/null
fi
if "$TC" qdisc add dev lo root handle 1: htbx default 10 && module_loaded sch_htbx; then
	ok "tc qdisc add ... htbx autoloads sch_htbx"
else
	fail "tc qdisc add ... htbx autoloads sch_htbx" "$(cat /proc/modules | grep htbx)"
	exit 1
fi
if rmmod sch_htbx 2>/dev/null; then
	fail "rmmod refused while an htbx qdisc exists"
	exit 1
fi
ok "rmmod refused while an htbx qdisc exists"
ver=$(cat /sys/module/sch_htbx/version 2>/dev/null)
check "module version is set ($ver)" test -n "$ver"

# --- qdisc and class configuration ----------------------------------------------

T="$TC"
$T qdisc change dev lo root handle 1: htbx default 20 r2q 5 direct_qlen 50
qs=$($T qdisc show dev lo)
case $qs in
*"r2q 5"*"default 0x20"*"direct_qlen 50"*|*"r2q 5"*"default 20"*"direct_qlen 50"*)
	ok "qdisc change: default/r2q/direct_qlen applied" ;;
*)	fail "qdisc change: default/r2q/direct_qlen applied" "$qs" ;;
esac
$T qdisc change dev lo root handle 1: htbx r2q 10 default 10

$T class add dev lo parent 1: classid 1:1 htbx rate 10mbit
$T class add dev lo parent 1:1 classid 1:10 htbx rate 4mbit ceil 10mbit prio 1
$T class add dev lo parent 1:1 classid 1:20 htbx rate 5mbit
cs=$($T -d class show dev lo classid 1:20)
case $cs in
*"rate 5Mbit ceil 5Mbit"*"quantum 62500"*|*"quantum 62500"*"rate 5Mbit ceil 5Mbit"*)
	ok "class add: auto ceil = rate, quantum = rate/r2q" ;;
*)	fail "class add: auto ceil = rate, quantum = rate/r2q" "$cs" ;;
esac

# A change is tc-htb's: what is not given takes its default again.
$T class change dev lo parent 1:1 classid 1:20 htbx rate 8mbit prio 3
$T class change dev lo parent 1:1 classid 1:20 htbx rate 6mbit
cs=$($T -d class show dev lo classid 1:20)
case $cs in
*"prio 0"*"quantum 75000"*"rate 6Mbit ceil 6Mbit"*) ok "class change: as htb, prio back to 0, auto values re-derived ($cs)" ;;
*)	fail "class change: as htb, prio back to 0, auto values re-derived" "$cs" ;;
esac
# "partial": only what is given; the auto ceil and quantum follow, prio stays.
$T class change dev lo parent 1:1 classid 1:20 htbx rate 8mbit prio 3
$T class change dev lo parent 1:1 classid 1:20 htbx partial rate 6mbit
cs=$($T -d class show dev lo classid 1:20)
case $cs in
*"prio 3"*"quantum 75000"*"rate 6Mbit ceil 6Mbit"*) ok "class change partial: auto values re-derived, prio kept ($cs)" ;;
*)	fail "class change partial: auto values re-derived, prio kept" "$cs" ;;
esac
# An explicit ceil stays when a partial change gives only the rate.
$T class change dev lo parent 1:1 classid 1:10 htbx partial rate 2mbit
cs=$($T class show dev lo classid 1:10)
case $cs in
*"rate 2Mbit ceil 10Mbit"*) ok "class change partial: explicit ceil kept" ;;
*)	fail "class change partial: explicit ceil kept" "$cs" ;;
esac
# r2q change re-derives auto quanta.
$T qdisc change dev lo root handle 1: htbx r2q 20
cs=$($T -d class show dev lo classid 1:20)
case $cs in
*"quantum 37500"*) ok "qdisc r2q change re-derives auto quanta" ;;
*)	fail "qdisc r2q change re-derives auto quanta" "$cs" ;;
esac
$T qdisc change dev lo root handle 1: htbx r2q 10
out=$($T class add dev lo parent 1: classid 1:40 htbx rate 1kbit 2>&1)
if [ $? -eq 0 ] && printf '%s' "$out" | grep -qi "quantum.*clamped"; then
	ok "derived quantum below 1000 is clamped with an extack warning"
else
	fail "derived quantum below 1000 is clamped with an extack warning" "$out"
fi
$T class del dev lo classid 1:40

# Traffic on lo through the default class and by skb->priority via ping.
ping -c 2 -i 0.2 -W 1 127.0.0.1 >/dev/null 2>&1
set -- $(cls_sent lo 1:10)
if [ "${2:-0}" -ge 4 ]; then
	ok "default class carries unclassified traffic ($2 pkts)"
else
	fail "default class carries unclassified traffic" "$($T -s class show dev lo)"
fi

# --- bad input: non-zero, a message naming the option, nothing changed ---------

expect_fail "rate 0" "rate" $T class add dev lo parent 1:1 classid 1:50 htbx rate 0
expect_fail "missing rate" "rate" $T class add dev lo parent 1:1 classid 1:50 htbx ceil 1mbit
expect_fail "change without rate (as tc-htb)" "rate" $T class change dev lo parent 1:1 classid 1:10 htbx ceil 20mbit
expect_fail "prio x" "prio" $T class add dev lo parent 1:1 classid 1:50 htbx rate 1mbit prio x
expect_fail "parent missing" "does not exist" $T class add dev lo parent 1:99 classid 1:50 htbx rate 1mbit
expect_fail "minor 0" "classid" $T class add dev lo parent 1: classid 1:0 htbx rate 1mbit
expect_fail "classid of another qdisc" "." $T class add dev lo parent 1:1 classid 2:50 htbx rate 1mbit
expect_fail "offload" "offload" $T qdisc add dev lo parent 1:20 handle 5: htbx offload
expect_fail "r2q x" "r2q" $T qdisc change dev lo root handle 1: htbx r2q x
expect_fail "overhead out of range" "overhead" $T class add dev lo parent 1:1 classid 1:50 htbx rate 1mbit overhead 70000
expect_fail "mpu out of range" "mpu" $T class add dev lo parent 1:1 classid 1:50 htbx rate 1mbit mpu 70000
# A kernel whose class delete takes no extack (5.10; modinfo's "compat"
# says so) refuses as the others do, but with tc's bare EBUSY text.
dmsg_child=child dmsg_filter=filter dmsg_note=
if modinfo -F compat sch_htbx 2>/dev/null | grep -qw no-class-delete-extack; then
	dmsg_child="resource busy" dmsg_filter="resource busy"
	dmsg_note=" (this kernel's class delete carries no message)"
fi
expect_fail "delete a class with children$dmsg_note" "$dmsg_child" $T class del dev lo classid 1:1

# Depth: 1:1 is level 1; 7 more make 8, the ninth is refused.
p=1:1
for i in 2 3 4 5 6 7 8; do
	echo "class add dev lo parent $p classid 1:6$i htbx rate 1mbit"
	p=1:6$i
done | tcb
expect_fail "depth 9" "too deep" $T class add dev lo parent 1:68 classid 1:69 htbx rate 1mbit
for i in 8 7 6 5 4 3 2; do
	echo "class del dev lo classid 1:6$i"
done | tcb

# A class filters resolve to cannot go.
if $T filter add dev lo parent 1: protocol ip prio 1 u32 \
	match ip dst 127.0.0.9/32 flowid 1:20 2>/dev/null; then
	expect_fail "delete a class in use by a filter$dmsg_note" "$dmsg_filter" $T class del dev lo classid 1:20
	$T filter del dev lo parent 1: prio 1
else
	skip "delete a class in use by a filter" "cls_u32 not available"
fi
check "class delete after its filter is gone" $T class del dev lo classid 1:20

# A leaf that gains a child: converted, its qdisc gone; the last child going
# gives it a fresh one.
$T class add dev lo parent 1:10 classid 1:11 htbx rate 1mbit
lvl=$($T -d class show dev lo classid 1:10)
$T class del dev lo classid 1:11
lvl2=$($T -d class show dev lo classid 1:10)
case "$lvl|$lvl2" in
*"level "[1-7]*"|"*"level 0"*) ok "leaf -> inner -> leaf conversion" ;;
*)	fail "leaf -> inner -> leaf conversion" "$lvl" "$lvl2" ;;
esac
check "leaf accepts a grafted qdisc" $T qdisc add dev lo parent 1:10 handle 10: pfifo limit 5
check "qdisc delete" $T qdisc del dev lo root
check "rmmod once unused" rmmod sch_htbx

# --- requeue: driver push-back through busydev --------------------------------

# busy_setup EVERY [QUEUES]: busy0 pushes back every EVERY-th transmit
# (of each of its QUEUES TX queues, default 1).
busy_setup() {
	modprobe htbx_busydev busy_every="$1" ${2:+queues=$2} || return 1
	[ -d /proc/sys/net/ipv6/conf/$BUSY ] &&
		echo 1 >/proc/sys/net/ipv6/conf/$BUSY/disable_ipv6
	"$IP" link set $BUSY up &&
	"$IP" addr add 10.99.0.1/24 dev $BUSY
}

busy_teardown() {
	"$TC" qdisc del dev $BUSY root 2>/dev/null
	"$IP" link set $BUSY down 2>/dev/null
	rmmod htbx_busydev
}

# send SECS FLOW...: blast UDP at $DST (out of busy0) in the background.
send_bg() {
	_s=$1
	shift
	"$HTBX_TRAFFIC" send -d $DST -t "$_s" "$@" >"$TMPD/send.out" 2>&1 &
	SEND_PID=$!
}

if ! busy_setup 5; then
	fail "htbx_busydev loads and busy0 comes up"
else
	ok "htbx_busydev loads and busy0 comes up"
	t0=$(tx_bytes $BUSY)
	tcb <<-EOF
	qdisc add dev $BUSY root handle 1: htbx default 20
	class add dev $BUSY parent 1: classid 1:1 htbx rate 16mbit burst 15k
	class add dev $BUSY parent 1:1 classid 1:10 estimator 250ms 1sec htbx rate 4mbit ceil 16mbit burst 15k
	class add dev $BUSY parent 1:1 classid 1:20 htbx rate 12mbit ceil 16mbit burst 15k
	EOF
	send_bg 4 5001,prio=0x10010 5002,prio=0x10020
	wait $SEND_PID
	wait_until 20 qd_backlog_empty $BUSY
	set -- $(cls_sent $BUSY 1:10)
	b10=$1
	set -- $(cls_sent $BUSY 1:20)
	b20=$1
	set -- $(cls_sent $BUSY 1:1)
	b1=$1
	tx=$(($(tx_bytes $BUSY) - t0))
	rq=$(qd_field $BUSY 1: requeues)
	busy=$(cat /sys/module/htbx_busydev/parameters/busy_returns)
	qsent=$(qd_field $BUSY 1: Sent)
	if [ "$((b10 + b20))" -eq "$tx" ] && [ "$b1" -eq "$tx" ] && [ "$qsent" -eq "$tx" ]; then
		ok "requeue: class bytes 1:10+1:20 = 1:1 = qdisc = device tx = $tx"
	else
		fail "requeue: class bytes = device tx" "1:10 $b10 1:20 $b20 1:1 $b1 qdisc $qsent tx $tx"
	fi
	if [ "${rq:-0}" -gt 0 ] && [ "$busy" -gt 0 ]; then
		ok "requeue: driver pushed back $busy times, qdisc requeues $rq"
	else
		fail "requeue: driver pushed back" "busy_returns $busy requeues $rq"
	fi
	if qd_backlog_empty $BUSY; then
		ok "requeue: qlen and backlog 0 at the end"
	else
		fail "requeue: qlen and backlog 0 at the end" "$($T -s qdisc show dev $BUSY)"
	fi
	share=$(awk -v a="$b10" -v b="$b20" 'BEGIN { if (a + b) printf "%.2f", a * 100 / (a + b) }')
	if [ "${HTBX_KLINE:-}" = debug ] && [ -z "${HTBX_ICOUNT:-}" ]; then
		# plain TCG under KASAN: the sender cannot keep both classes
		# backlogged (measured: 48.55 %, each class got what it offered);
		# under --icount it does (25.66 %)
		skip "requeue: shares 1:3 within 5% (1:10 has $share% of the bytes)" \
			"shares are not judged on the debug kernel"
	elif within "$share" 25 5; then
		ok "requeue: shares 1:3 within 5% (1:10 has $share% of the bytes)"
	else
		fail "requeue: shares 1:3 within 5%" "1:10 $b10 1:20 $b20 share $share%"
	fi

	est=$($T -s class show dev $BUSY classid 1:10 | grep -c 'rate [0-9]')
	check "rate estimator on a class" test "$est" -ge 1

	# --- classification: direct queue, default, skb->priority, drop action --
	tcb <<-EOF
	qdisc del dev $BUSY root
	qdisc add dev $BUSY root handle 1: htbx default 99 direct_qlen 100000
	class add dev $BUSY parent 1: classid 1:10 htbx rate 8mbit burst 15k
	EOF
	shot=skip
	$T filter add dev $BUSY parent 1: protocol ip prio 1 u32 \
		match ip dport 5009 0xffff action drop 2>/dev/null && shot=on
	send_bg 2 5001,prio=0x10000,rate=2mbit 5002,rate=2mbit 5003,prio=0x10010 \
		5009,rate=2mbit
	wait $SEND_PID
	wait_until 20 qd_backlog_empty $BUSY
	direct=$(qd_field $BUSY 1: direct_packets_stat)
	qpk=$(qd_field $BUSY 1: bytes)
	set -- $(cls_sent $BUSY 1:10)
	cpk=$2
	drops=$(qd_field $BUSY 1: dropped)
	if [ "${direct:-0}" -gt 0 ] && [ "$qpk" -eq "$((cpk + direct))" ]; then
		ok "direct queue: skb->priority 1:0 and a missing default go direct ($direct pkts; sent $qpk = class $cpk + direct)"
	else
		fail "direct queue and default" "direct $direct sent $qpk class $cpk" "$($T -s qdisc show dev $BUSY)"
	fi
	if [ $shot = on ]; then
		if [ "${drops:-0}" -gt 0 ]; then
			ok "filter action drop honoured ($drops dropped)"
		else
			fail "filter action drop honoured" "$($T -s qdisc show dev $BUSY)"
		fi
	else
		skip "filter action drop honoured" "u32/gact not available"
	fi

	# --- the default class follows the configuration ------------------------
	# dflt_gain CLASS...: which of "direct" and the CLASSes carried 1 s of
	# packets that name no class of 1: (priority 0, and 2:10, another
	# qdisc's class); "none" or "several" otherwise
	# (one tc run for the qdisc's and every class's counts: tcb)
	dflt_counts() {
		printf 'qdisc show dev %s\nclass show dev %s\n' $BUSY $BUSY |
			"$TC" -s -batch - | awk -v want="$*" '
			$1 == "qdisc" { c = ""; q = ($3 == "1:") }
			q { for (i = 1; i < NF; i++)
				if ($i == "direct_packets_stat") d = $(i + 1) }
			$1 == "class" { c = $3; q = 0; next }
			c != "" && $1 == "Sent" { s[c] = $4; c = "" }
			END { printf "%d ", d
				n = split(want, W, " ")
				for (i = 1; i <= n; i++) printf "%d ", s[W[i]] }'
	}
	dflt_gain() {
		_b=$(dflt_counts "$@")
		send_bg 1 5002,rate=2mbit 5004,prio=0x20010,rate=1mbit
		wait $SEND_PID
		wait_until 20 qd_backlog_empty $BUSY
		_a=$(dflt_counts "$@")
		awk -v a="$_b" -v b="$_a" -v n="direct $*" 'BEGIN {
			k = split(a, A, " "); split(b, B, " "); split(n, N, " ")
			for (i = 1; i <= k; i++) if (B[i] > A[i]) { g = N[i]; c++ }
			print c == 1 ? g : (c ? "several" : "none") }'
	}
	dflt_step() {	# DESC EXPECT TC-COMMAND
		_d=$1 _e=$2
		shift 2
		if ! $T "$@"; then
			fail "default: $_d" "tc $* failed"
			return
		fi
		_g=$(dflt_gain 1:10 1:11 1:20)
		if [ "$_g" = "$_e" ]; then
			ok "default: $_d: $_g"
		else
			fail "default: $_d" "want $_e, got $_g" "$($T -s class show dev $BUSY)"
		fi
	}
	$T qdisc del dev $BUSY root
	$T qdisc add dev $BUSY root handle 1: htbx default 20 direct_qlen 100000
	dflt_step "a missing class goes direct" direct \
		class add dev $BUSY parent 1: classid 1:1 htbx rate 100mbit
	dflt_step "a class created after the qdisc names it" 1:20 \
		class add dev $BUSY parent 1:1 classid 1:20 htbx rate 50mbit
	dflt_step "qdisc change default 10, no such class: direct" direct \
		qdisc change dev $BUSY root handle 1: htbx default 10
	dflt_step "the class created" 1:10 \
		class add dev $BUSY parent 1:1 classid 1:10 htbx rate 50mbit
	dflt_step "qdisc change default 20 again" 1:20 \
		qdisc change dev $BUSY root handle 1: htbx default 20
	dflt_step "its class deleted: direct" direct \
		class del dev $BUSY classid 1:20
	dflt_step "qdisc change default 10 (an existing class)" 1:10 \
		qdisc change dev $BUSY root handle 1: htbx default 10
	dflt_step "it gains a child (inner): direct" direct \
		class add dev $BUSY parent 1:10 classid 1:11 htbx rate 10mbit
	dflt_step "the child deleted (a leaf again)" 1:10 \
		class del dev $BUSY classid 1:11
	dflt_step "default 1, an inner class: direct" direct \
		qdisc change dev $BUSY root handle 1: htbx default 1

	# --- htbx under tbf: a parent that peeks --------------------------------
	$T qdisc del dev $BUSY root
	t0=$(tx_bytes $BUSY)
	tcb <<-EOF
	qdisc add dev $BUSY root handle 1: tbf rate 8mbit burst 10k latency 100ms
	qdisc add dev $BUSY parent 1:1 handle 2: htbx default 10
	class add dev $BUSY parent 2: classid 2:1 htbx rate 20mbit burst 15k quantum 60000
	class add dev $BUSY parent 2:1 classid 2:10 htbx rate 5mbit ceil 20mbit
	class add dev $BUSY parent 2:1 classid 2:20 htbx rate 5mbit ceil 20mbit
	EOF
	send_bg 3 5001,prio=0x20010 5002,prio=0x20020
	wait $SEND_PID
	wait_until 20 qd_backlog_empty $BUSY
	set -- $(cls_sent $BUSY 2:10)
	b10=$1
	set -- $(cls_sent $BUSY 2:20)
	b20=$1
	tx=$(($(tx_bytes $BUSY) - t0))
	hsent=$(qd_field $BUSY 2: Sent)
	if [ "$((b10 + b20))" -eq "$tx" ] && [ "$hsent" -eq "$tx" ] && [ "$tx" -gt 0 ]; then
		ok "htbx under tbf: every packet counted once (classes = htbx = device tx = $tx)"
	else
		fail "htbx under tbf: every packet counted once" "2:10 $b10 2:20 $b20 htbx $hsent tx $tx" "$($T -s qdisc show dev $BUSY)"
	fi
	check "htbx under tbf: drained" qd_backlog_empty $BUSY

	# A busy leaf gains a child (its queue is purged) and loses it again:
	# the purge must reach tbf's qlen/backlog exactly, or they never drain.
	send_bg 3 5001,prio=0x20010 5002,prio=0x20020
	sleep 1
	r1=0
	$T class add dev $BUSY parent 2:10 classid 2:11 htbx rate 5mbit || r1=1
	sleep 0.5
	$T class del dev $BUSY classid 2:11 || r1=1
	wait $SEND_PID
	wait_until 20 qd_backlog_empty $BUSY
	if [ $r1 -eq 0 ] && qd_backlog_empty $BUSY; then
		ok "busy leaf -> inner -> leaf under tbf: tbf and htbx qlen/backlog drain to 0"
	else
		fail "busy leaf -> inner -> leaf under tbf" "$($T -s qdisc show dev $BUSY)"
	fi

	# --- delete a busy leaf, replace the qdisc, under traffic ---------------
	tcb <<-EOF
	qdisc del dev $BUSY root
	qdisc add dev $BUSY root handle 1: htbx default 20
	class add dev $BUSY parent 1: classid 1:1 htbx rate 10mbit
	class add dev $BUSY parent 1:1 classid 1:10 htbx rate 5mbit ceil 10mbit
	class add dev $BUSY parent 1:1 classid 1:20 htbx rate 5mbit ceil 10mbit
	class add dev $BUSY parent 1:20 classid 1:21 htbx rate 2mbit ceil 10mbit
	class add dev $BUSY parent 1:20 classid 1:22 htbx rate 2mbit ceil 10mbit
	EOF
	send_bg 5 5001,prio=0x10010 5002,prio=0x10021 5003,prio=0x10022 5004
	sleep 1
	r1=0
	# 1:20 becomes a leaf again
	printf 'class del dev %s classid %s\n' $BUSY 1:10 $BUSY 1:21 $BUSY 1:22 |
		tcb || r1=1
	sleep 0.5
	$T class change dev $BUSY parent 1:1 classid 1:20 htbx rate 8mbit ceil 10mbit || r1=1
	sleep 0.5
	$T qdisc replace dev $BUSY root handle 2: htbx default 10 || r1=1
	$T class add dev $BUSY parent 2: classid 2:10 htbx rate 6mbit || r1=1
	sleep 0.5
	$T qdisc replace dev $BUSY root handle 3: pfifo_fast 2>/dev/null ||
		$T qdisc replace dev $BUSY root handle 3: pfifo || r1=1
	$T qdisc replace dev $BUSY root handle 1: htbx || r1=1
	wait $SEND_PID
	wait_until 20 qd_backlog_empty $BUSY
	if [ $r1 -eq 0 ] && qd_backlog_empty $BUSY; then
		ok "busy leaf delete, class change and qdisc replace under traffic"
	else
		fail "busy leaf delete, class change and qdisc replace under traffic" "$($T -s qdisc show dev $BUSY)"
	fi
	busy_teardown
fi

# --- mq mode on this kernel: one tree over 4 TX queues ------------------------
#
# suite-mq judges rates and shares on three lines; here every line (5.10's
# older stats types, RT's sleeping locks) runs the tree once: 4 flows over
# busy0's 4 queues, each queue pushing back every 7th transmit; the bytes
# add up from classes to device, every push-back was one requeue, and a
# class's rate estimator (its per-CPU count) shows a rate.
if ! busy_setup 7 4; then
	fail "mq: htbx_busydev with 4 TX queues loads"
else
	t0=$(tx_bytes $BUSY)
	tcb <<-EOF
	qdisc add dev $BUSY root handle 1: htbx default 20 mq
	class add dev $BUSY parent 1: classid 1:1 htbx rate 16mbit burst 15k
	class add dev $BUSY parent 1:1 classid 1:10 estimator 250ms 1sec htbx rate 4mbit ceil 16mbit burst 15k
	class add dev $BUSY parent 1:1 classid 1:20 htbx rate 12mbit ceil 16mbit burst 15k
	EOF
	qd=$($T qdisc show dev $BUSY | head -n 1)
	case $qd in
	*" mq") ok "mq: the root is htbx in mq mode ($qd)" ;;
	*) fail "mq: the root is htbx in mq mode" "$qd" ;;
	esac
	send_bg 4 5001,prio=0x10010 5002,prio=0x10010 5003,prio=0x10020 5004,prio=0x10020
	wait_until 10 tc_est_counts $BUSY 1:10
	rc=$?
	check "mq: 1:10's rate estimator counts under traffic ($(tc_est_mbit $BUSY 1:10) mbit)" test $rc -eq 0
	wait $SEND_PID
	wait_until 20 qd_backlog_empty $BUSY
	set -- $(cls_sent $BUSY 1:10)
	b10=${1:-0}
	set -- $(cls_sent $BUSY 1:20)
	b20=${1:-0}
	set -- $(cls_sent $BUSY 1:1)
	b1=${1:-0}
	tx=$(($(tx_bytes $BUSY) - t0))
	qsent=$(qd_field $BUSY 1: Sent)
	if [ "$tx" -gt 0 ] && [ "$((b10 + b20))" -eq "$tx" ] && [ "$b1" -eq "$tx" ] &&
	   [ "$qsent" -eq "$tx" ]; then
		ok "mq: class bytes 1:10+1:20 = 1:1 = qdisc = device tx = $tx"
	else
		fail "mq: class bytes = device tx" "1:10 $b10 1:20 $b20 1:1 $b1 qdisc $qsent tx $tx"
	fi
	rq=$(qd_field $BUSY 1: requeues)
	busy=$(cat /sys/module/htbx_busydev/parameters/busy_returns)
	pq=$(cat /sys/module/htbx_busydev/parameters/busy_queue)
	if [ "$busy" -gt 0 ] && [ "${rq:-0}" -eq "$busy" ]; then
		ok "mq: one requeue per push-back ($busy; per queue: $pq)"
	else
		fail "mq: one requeue per push-back" "requeues ${rq:-none}, push-backs $busy (per queue: $pq)"
	fi
	check "mq: qlen and backlog 0 at the end" qd_backlog_empty $BUSY
	busy_teardown
fi

# --- filters that send inner classes to each other end in the default -------

tcb <<EOF
qdisc add dev lo root handle 1: htbx default 30
class add dev lo parent 1: classid 1:1 htbx rate 10mbit
class add dev lo parent 1:1 classid 1:11 htbx rate 1mbit
class add dev lo parent 1: classid 1:2 htbx rate 10mbit
class add dev lo parent 1:2 classid 1:21 htbx rate 1mbit
class add dev lo parent 1: classid 1:30 htbx rate 10mbit
EOF
if tcb <<EOF
filter add dev lo parent 1: protocol ip prio 1 u32 match u32 0 0 flowid 1:1
filter add dev lo parent 1:1 protocol ip prio 1 u32 match u32 0 0 flowid 1:2
filter add dev lo parent 1:2 protocol ip prio 1 u32 match u32 0 0 flowid 1:1
EOF
then
	ping -c 2 -i 0.2 -W 1 127.0.0.1 >/dev/null 2>&1
	set -- $(cls_sent lo 1:30)
	if [ "${2:-0}" -ge 4 ]; then
		ok "filter loop between inner classes ends in the default class"
	else
		fail "filter loop between inner classes ends in the default class" "$($T -s class show dev lo)"
	fi
else
	skip "filter loop between inner classes ends in the default class" "cls_u32 not available"
fi
$T qdisc del dev lo root

# --- matchall and bpf classifiers, and a filter at an inner class ---------------

# got CLASSID: the class carried at least the 4 pings of a step
got() { set -- $(cls_sent lo "$1"); [ "${2:-0}" -ge 4 ]; }
tcb <<EOF
qdisc add dev lo root handle 1: htbx default 30
class add dev lo parent 1: classid 1:1 htbx rate 10mbit
class add dev lo parent 1:1 classid 1:11 htbx rate 1mbit ceil 10mbit
class add dev lo parent 1:1 classid 1:12 htbx rate 1mbit ceil 10mbit
class add dev lo parent 1: classid 1:30 htbx rate 10mbit
EOF
if $T filter add dev lo parent 1: protocol all prio 1 matchall classid 1:12; then
	ping -c 2 -i 0.2 -W 1 127.0.0.1 >/dev/null 2>&1
	if got 1:12 && ! got 1:30; then
		ok "matchall at the qdisc selects leaf 1:12"
	else
		fail "matchall at the qdisc selects leaf 1:12" "$($T -s class show dev lo)"
	fi
	# The root filter names inner 1:1; 1:1's own filter picks its leaf.
	$T filter del dev lo parent 1: prio 1
	$T filter add dev lo parent 1: protocol all prio 1 matchall classid 1:1 &&
	$T filter add dev lo parent 1:1 protocol all prio 1 matchall classid 1:11
	ping -c 2 -i 0.2 -W 1 127.0.0.1 >/dev/null 2>&1
	if got 1:11; then
		ok "a filter at inner class 1:1 continues classification into leaf 1:11"
	else
		fail "a filter at inner class 1:1 continues into leaf 1:11" "$($T -s class show dev lo)"
	fi
	$T filter del dev lo parent 1:1 prio 1
	$T filter del dev lo parent 1: prio 1
else
	skip "matchall at the qdisc selects leaf 1:12" "cls_matchall not available"
fi
# Classic BPF returning -1: "use the filter's classid".
$T class add dev lo parent 1: classid 1:40 htbx rate 10mbit
if $T filter add dev lo parent 1: protocol all prio 1 bpf \
	bytecode '1,6 0 0 4294967295,' classid 1:40; then
	ping -c 2 -i 0.2 -W 1 127.0.0.1 >/dev/null 2>&1
	if got 1:40; then
		ok "cls_bpf (classic bytecode) selects class 1:40"
	else
		fail "cls_bpf (classic bytecode) selects class 1:40" "$($T -s class show dev lo)"
	fi
else
	skip "cls_bpf (classic bytecode) selects class 1:40" "cls_bpf not available"
fi
$T qdisc del dev lo root

# --- add/delete cycles, then unload -------------------------------------------
# 100 cycles of 6 requests, 10 cycles a tc run.

cycles=${TEST_MODULE_CYCLES:-100}
i=0 err=0
while [ $i -lt "$cycles" ]; do
	j=0
	while [ $j -lt 10 ] && [ $((i + j)) -lt "$cycles" ]; do
		cat <<-EOF
		qdisc add dev lo root handle 1: htbx default 10
		class add dev lo parent 1: classid 1:1 htbx rate 10mbit
		class add dev lo parent 1:1 classid 1:10 htbx rate 5mbit ceil 10mbit
		class add dev lo parent 1:1 classid 1:20 htbx rate 5mbit ceil 10mbit
		class del dev lo classid 1:20
		qdisc del dev lo root
		EOF
		j=$((j + 1))
	done >"$TMPD/cycles"
	tcb <"$TMPD/cycles" >"$TMPD/cycles.out" 2>&1 || { err=1; break; }
	i=$((i + j))
done
if [ $err -eq 0 ] && ! "$TC" qdisc show dev lo | grep -q htbx; then
	ok "$cycles qdisc/class add/delete cycles"
else
	fail "$cycles qdisc/class add/delete cycles" "failed in the 10 from cycle $i" \
		"$(cat "$TMPD/cycles.out")" "$("$TC" qdisc show dev lo)"
fi
check "rmmod after the cycles" rmmod sch_htbx
if module_loaded sch_htbx; then
	fail "sch_htbx gone from /proc/modules"
else
	ok "sch_htbx gone from /proc/modules"
fi

rm -rf "$TMPD"
exit 0
