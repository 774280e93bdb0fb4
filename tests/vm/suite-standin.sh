# vm-args: --icount --timeout 600
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
#
# suite-standin.sh - htbx in sch_htb's place: `modprobe sch_htbx htb=1`
# (or 1 into /sys/module/sch_htbx/parameters/htb) serves tc's kind htb
# with sch_htb's netlink interface (htbx_htb.c).
#
#   netns pair: veth-a (NS_A, the qdisc) -> veth-b (NS_B, the receiver)
#   root htb 1: default 20
#     1:1 rate 10mbit
#       1:10 rate 2mbit ceil 10mbit burst 15k prio 1
#       1:20 rate 5mbit ceil 5mbit (the default class: the flood)
#
# 1. Refused where the kernel's sch_htb holds the kind: modprobe with
#    htb=1 fails and leaves nothing loaded; 1 into the parameter of a
#    loaded sch_htbx fails and leaves it 0; the message names sch_htb.
# 2. The same tc commands (tc's own htb) through the kernel's sch_htb,
#    then through htbx in its place: every command's exit status, and
#    `tc -d qdisc show`, `tc -d class show` identical. (A class whose
#    parent does not exist is left out: sch_htb makes it a root class,
#    htbx refuses it, in either kind; README.md "Migrating from htb".)
#    pyroute2's own htb example (the docstring of its sched_htb, run by
#    tests/vm/pyroute2-htb.py with bookworm's python3 and pyroute2 that
#    lines/fetch-python stages) the same way: every call succeeds, the
#    views identical.
# 3. Traffic: a 20 mbit UDP flood into 1:20 (rate = ceil = 5mbit) is
#    held to 5 mbit (within 2 %); the class xstats are htb's (lended,
#    giants 0, tokens); sch_htb is not loaded meanwhile.
#    The kernel's own tc-testing cases of htb (tools/testing/selftests/
#    tc-testing/tc-tests/qdiscs/htb.json, staged by lines/stage-tdc-htb)
#    pass against it.
# 4. Requests sch_htb refuses, refused with a message (tools/bin/htbx-nl
#    --kind htb): no options, no TCA_HTB_INIT, version 2, offload.
# 5. 0 into the parameter: the qdisc made stays htbx's, a new htb qdisc
#    is the kernel's (sch_htb autoloaded); sch_htbx unloads once its
#    qdiscs are gone.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

HTBX_NL=$HTBX_TOP/tools/bin/htbx-nl
PARAM=/sys/module/sch_htbx/parameters/htb
W=/tmp/htbx-standin.$$
mkdir -p "$W"
trap 'netns_cleanup; rm -rf "$W"' EXIT

unload() { rmmod "$@" 2>/dev/null; for _m in "$@"; do ! module_loaded "$_m" || return 1; done; }

if ! modinfo -F parm sch_htbx 2>/dev/null | grep -q '^htb:'; then
	fail "sch_htbx has the parameter htb" "$(modinfo sch_htbx 2>&1)"
	exit 1
fi
unload sch_htbx sch_htb
modprobe veth 2>/dev/null
netns_pair || { fail "netns pair"; exit 1; }

# --- 1. refused where the kernel's sch_htb holds the kind ------------------
modprobe sch_htb || { fail "modprobe sch_htb (the kernel's)"; exit 1; }
dmesg -C 2>/dev/null
if modprobe sch_htbx htb=1 2>"$W/err"; then
	fail "modprobe sch_htbx htb=1 refused while sch_htb is loaded" "$(dmesg | tail -n 5)"
elif module_loaded sch_htbx; then
	fail "a refused modprobe leaves nothing loaded" "$(grep sch_htb /proc/modules)"
elif ! dmesg | grep -q "kind htb is the kernel's sch_htb's"; then
	fail "the refusal says why" "$(dmesg | tail -n 5)" "$(cat "$W/err")"
else
	ok "modprobe sch_htbx htb=1 refused while sch_htb is loaded, nothing loaded ($(dmesg | grep -o 'kind htb is.*' | head -n 1))"
fi
modprobe sch_htbx || { fail "modprobe sch_htbx"; exit 1; }
if (echo 1 >"$PARAM") 2>/dev/null; then
	fail "1 into $PARAM refused while sch_htb is loaded"
elif [ "$(cat "$PARAM")" != N ]; then
	fail "a refused 1 leaves the parameter 0" "$(cat "$PARAM")"
else
	ok "1 into $PARAM refused while sch_htb is loaded, the parameter left N"
fi

# --- 2. the same commands through sch_htb, then through htbx ---------------
# setup_tree OUT: the tree on veth-a, each command's exit status and the
# config views into OUT.
setup_tree() {
	{
		for c in "qdisc add dev $VETH_A root handle 1: htb default 20" \
			 "class add dev $VETH_A parent 1: classid 1:1 htb rate 10mbit" \
			 "class add dev $VETH_A parent 1:1 classid 1:10 htb rate 2mbit ceil 10mbit burst 15k prio 1" \
			 "class add dev $VETH_A parent 1:1 classid 1:20 htb rate 5mbit ceil 5mbit" \
			 "class change dev $VETH_A parent 1:1 classid 1:10 htb rate 3mbit ceil 10mbit burst 15k cburst 3000 prio 2 quantum 3000" \
			 "class add dev $VETH_A parent 1:1 classid 1:30 htb rate 1kbit ceil 40gbit" \
			 "class add dev $VETH_A parent 1:30 classid 1:31 htb rate 500kbit ceil 1mbit overhead 44 linklayer atm mpu 64" \
			 "class del dev $VETH_A classid 1:31" \
			 "qdisc change dev $VETH_A root handle 1: htb r2q 5"; do
			# shellcheck disable=SC2086
			tc_a $c >/dev/null 2>&1
			echo "$? $c"
		done
		tc_a -d qdisc show dev "$VETH_A"
		tc_a -d class show dev "$VETH_A"
	} >"$1"
}
# pyroute2_run OUT: pyroute2's own htb example (tests/vm/pyroute2-htb.py,
# bookworm's python3 and pyroute2 staged by lines/fetch-python) on a dummy
# of NS_A, its report and the views it leaves into OUT.
PY=$HTBX_TOP/build/python/python3
pyroute2_run() {
	in_a "$IP" link add py0 type dummy && in_a "$IP" link set py0 up || return 1
	{
		in_a "$PY" "$HTBX_TOP/tests/vm/pyroute2-htb.py" py0 2>&1
		echo "exit $?"
		tc_a -d qdisc show dev py0
		tc_a -d class show dev py0
		tc_a filter show dev py0
	} >"$1"
	in_a "$IP" link del py0
}
setup_tree "$W/htb"
[ -x "$PY" ] && pyroute2_run "$W/py-htb"
tc_a qdisc del dev "$VETH_A" root
if ! unload sch_htb; then
	fail "rmmod sch_htb" "$(grep sch_htb /proc/modules)"
	exit 1
fi
check "1 into $PARAM once sch_htb is gone" sh -c "echo 1 >$PARAM"
setup_tree "$W/standin"
if module_loaded sch_htb; then
	fail "the htb commands loaded the kernel's sch_htb" "$(grep sch_htb /proc/modules)"
elif ! tc_a qdisc show dev "$VETH_A" | grep -q '^qdisc htb 1: root'; then
	fail "htbx serves kind htb" "$(tc_a qdisc show dev "$VETH_A")"
elif ! diff "$W/htb" "$W/standin" >"$W/diff"; then
	fail "the same commands: exit statuses and tc -d views identical to sch_htb's" \
		"$(cat "$W/diff")"
else
	ok "the same commands: exit statuses and tc -d views identical to sch_htb's ($(grep -c '^class' "$W/standin") classes, $(grep -c '^[0-9]' "$W/standin") commands)"
fi
if [ ! -x "$PY" ]; then
	skip "pyroute2's htb example" "no staged python3 (lines/fetch-python)"
elif ! pyroute2_run "$W/py-standin"; then
	fail "pyroute2's htb example: a dummy device for it"
elif ! grep -qx 'exit 0' "$W/py-htb"; then
	fail "pyroute2's htb example runs against sch_htb" "$(cat "$W/py-htb")"
elif ! diff "$W/py-htb" "$W/py-standin" >"$W/py-diff"; then
	fail "pyroute2's htb example: every call and tc's views as with sch_htb" "$(cat "$W/py-diff")"
else
	ok "pyroute2's htb example: its $(grep -c '^ok' "$W/py-standin") statements and tc's views as with sch_htb ($(grep -c '^class htb' "$W/py-standin") classes, $(grep -c '^filter.*fh' "$W/py-standin") filters)"
fi

# --- 3. traffic -------------------------------------------------------------
if measure -t 3 -w 1 9001,rate=20mbit; then
	r=$(flow_mbit "$MEASURE_JSON" 9001)
	if within "$r" 5 2; then
		ok "a 20 mbit flood into 1:20 (rate = ceil = 5mbit): $r mbit"
	else
		fail "a 20 mbit flood into 1:20 held to 5 mbit (2 %)" "measured $r mbit"
	fi
else
	fail "traffic through the htb qdisc"
fi
x=$(tc_a -s class show dev "$VETH_A" classid 1:20)
if printf '%s\n' "$x" | grep -Eq 'lended: [1-9][0-9]* borrowed: 0 giants: 0' &&
   printf '%s\n' "$x" | grep -Eq 'tokens: -?[0-9]+ ctokens: -?[0-9]+'; then
	ok "1:20's xstats are htb's: $(printf '%s\n' "$x" | grep -o 'lended.*')"
else
	fail "1:20's xstats are htb's" "$x"
fi
if module_loaded sch_htb; then
	fail "sch_htb stays unloaded under traffic" "$(grep sch_htb /proc/modules)"
else
	ok "sch_htb stays unloaded: htbx served every htb request"
fi
if rmmod sch_htbx 2>/dev/null; then
	fail "rmmod sch_htbx refused while its htb qdisc exists"
else
	ok "rmmod sch_htbx refused while its htb qdisc exists"
fi

# --- 3b. the kernel's own tc-testing cases of htb ---------------------------
# (lines/stage-tdc-htb stages them from the kernel source, scripts/setup
# runs it)
if [ -e "$HTBX_TOP/build/tdc-htb/htb.json" ]; then
	sh "$HTBX_TOP/tests/tdc/run" "$HTBX_TOP/build/tdc-htb/htb.json" </dev/null 2>&1 |
		sed -e 's/^ok - /ok - the kernel'"'"'s tdc htb case /' \
		    -e 's/^not ok - /not ok - the kernel'"'"'s tdc htb case /' \
		    -e 's/^\([0-9]* passed, [0-9]* failed\)$/# the kernel'"'"'s tdc htb cases: \1/'
	if module_loaded sch_htb; then
		fail "the tdc htb cases ran on htbx" "$(grep sch_htb /proc/modules)"
	fi
else
	skip "the kernel's tdc htb cases" "not staged (lines/stage-tdc-htb)"
fi

# --- 4. what sch_htb refuses ------------------------------------------------
# tc_htb_glob: version, rate2quantum, defcls, debug, direct_pkts (u32 each)
glob() { printf '%02x000000%s' "$1" 0a000000000000000000000000000000; }
Q="qdisc add dev $VETH_B root handle 2:"
nl_refused() {
	_d=$1 _pat=$2
	shift 2
	_out=$(in_b "$HTBX_NL" --kind htb "$@" 2>&1)
	_rc=$?
	if [ $_rc -eq 2 ] && printf '%s\n' "$_out" | grep -qi -- "$_pat" &&
	   ! in_b "$TC" qdisc show dev "$VETH_B" | grep -q 'qdisc htb'; then
		ok "$_d: refused ($(printf '%s\n' "$_out" | sed -n 's/.*extack="\([^"]*\)".*/\1/p'))"
	else
		fail "$_d: refused with a message matching '$_pat'" "exit $_rc: $_out"
	fi
}
nl_refused "qdisc without options" "no htb qdisc options" --no-options $Q
nl_refused "qdisc without TCA_HTB_INIT" "TCA_HTB_INIT" $Q
nl_refused "qdisc of version 2" "version 3" $Q "raw:2=$(glob 2)"
nl_refused "qdisc with offload" "offload" $Q "raw:2=$(glob 3)" flag:9
if out=$(in_b "$HTBX_NL" --kind htb $Q "raw:2=$(glob 3)" 2>&1) &&
   in_b "$TC" -d qdisc show dev "$VETH_B" | grep -q 'qdisc htb 2: root refcnt [0-9]* r2q 10 default 0 '; then
	ok "a qdisc of version 3, nothing else: taken, r2q 10, default 0"
else
	fail "a qdisc of version 3, nothing else: taken" "$out" "$(in_b "$TC" -d qdisc show dev "$VETH_B")"
fi
in_b "$TC" qdisc del dev "$VETH_B" root 2>/dev/null

# --- 5. back to sch_htb -----------------------------------------------------
check "0 into $PARAM" sh -c "echo 0 >$PARAM"
check "a new htb qdisc once htbx stands aside" \
	in_b "$TC" qdisc add dev "$VETH_B" root handle 3: htb default 1
if module_loaded sch_htb && tc_a class show dev "$VETH_A" | grep -q 'class htb 1:20'; then
	ok "the new qdisc is the kernel's sch_htb's, the one made before still htbx's"
else
	fail "the new qdisc is the kernel's sch_htb's, the one made before still htbx's" \
		"$(grep sch_htb /proc/modules)" "$(tc_a class show dev "$VETH_A")"
fi
tc_a qdisc del dev "$VETH_A" root
in_b "$TC" qdisc del dev "$VETH_B" root
check "rmmod sch_htbx once its qdiscs are gone" rmmod sch_htbx
exit 0
