# vm-args: --icount --timeout 1500
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
#
# suite-live.sh - changes under saturating traffic, htbx and mainline htb:
#   - class change: 10 -> 20 mbit takes effect within a second
#   - deleting busy leaves (selected by default and by skb->priority)
#   - replacing the root qdisc under traffic, both ways
# then: no leftover - the namespaces go, and sch_htbx unloads.
# Any oops or WARN fails the whole VM run (lines/vm).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/scenarios.sh"

sc_init
# Flows without a rate offered at 40 mbit: above the 10 and 20 of the
# classes they saturate, steadily.
SC_OFFER=40mbit

# --- live rate change -----------------------------------------------------------
# 7 s window; the change is made 3 s in. Seconds 0-2 at 10, 5-6 at 20: the
# change lands after second 3 begins, later by the sender's start and one tc
# run, so second 4 may still be mixed.

one()
{
	sc_root "$1" default 10 &&
	sc_class "$1" 1: 1:10 rate 10mbit ceil 10mbit burst 15k
}

for kind in $SC_KINDS; do
	eval "pre_$kind=0 post_$kind=0 chg_$kind=fail"
	sc_build "$kind" one || continue
	sc_flows_start 7 0 5001
	sleep 3
	sc_tc class change dev "$SC_DEV" parent 1: classid 1:10 "$kind" \
		rate 20mbit ceil 20mbit burst 15k && eval "chg_$kind=ok"
	sc_flows_finish
	eval "pre_$kind=$(sc_seconds_mean 5001 0 2) post_$kind=$(sc_seconds_mean 5001 5 6)"
done
line="class change 10->20mbit under traffic: htbx before $(sc_fmt "$pre_htbx") after $(sc_fmt "$post_htbx") ($(sc_err "$post_htbx" 20)%), change $chg_htbx | htb $(sc_fmt "$pre_htb") $(sc_fmt "$post_htb") ($(sc_err "$post_htb" 20)%)"
if [ "$chg_htbx" = ok ] && sc_near "$pre_htbx" 10 3 && sc_near "$post_htbx" 20 3; then
	ok "$line"
else
	fail "$line"
fi

# --- class delete under traffic ---------------------------------------------------
# 5001 reaches 1:10 by skb->priority (SO_PRIORITY 0x10010), 5002 goes to the
# default 1:20; both paced at 60 mbit (over what the tree gives them). Both
# leaves are deleted while busy, then their parent; the flows continue
# unshaped through the direct queue (60 mbit in the last second).

busy()
{
	sc_root "$1" default 20 &&
	sc_class "$1" 1: 1:1 rate 40mbit ceil 40mbit burst 15k &&
	sc_class "$1" 1:1 1:10 rate 10mbit ceil 40mbit burst 15k &&
	sc_class "$1" 1:1 1:20 rate 10mbit ceil 40mbit burst 15k
}

for kind in $SC_KINDS; do
	eval "del_$kind=fail left_$kind=x last_$kind=0"
	sc_build "$kind" busy || continue
	sc_flows_start 5 0 5001,prio=65552,rate=60mbit 5002,rate=60mbit
	sleep 2
	sc_tc class del dev "$SC_DEV" classid 1:20 &&
	sleep 1 &&
	sc_tc class del dev "$SC_DEV" classid 1:10 &&
	sc_tc class del dev "$SC_DEV" classid 1:1 && eval "del_$kind=ok"
	sc_flows_finish
	eval "left_$kind=$(sc_tc class show dev "$SC_DEV" | grep -c .)"
	eval "last_$kind=$(sc_second 5002 4)"
done
line="class delete under traffic: htbx deletes $del_htbx, classes left $left_htbx, flow after $(sc_fmt "$last_htbx") mbit (60 paced) | htb $del_htb, $left_htb, $(sc_fmt "$last_htb")"
if [ "$del_htbx" = ok ] && [ "$left_htbx" = 0 ] && sc_near "$last_htbx" 60 5; then
	ok "$line"
else
	fail "$line"
fi

# Deleting a class with children is refused, the tree stays as it was.
for kind in $SC_KINDS; do
	eval "ref_$kind=fail"
	sc_build "$kind" busy || continue
	if ! sc_tc class del dev "$SC_DEV" classid 1:1 2>/dev/null &&
	   [ "$(sc_tc class show dev "$SC_DEV" | grep -c "^class $kind")" = 3 ]; then
		eval "ref_$kind=ok"
	fi
done
line="delete of a parent class refused, tree intact: htbx $ref_htbx | htb $ref_htb"
if [ "$ref_htbx" = ok ]; then ok "$line"; else fail "$line"; fi

# --- qdisc replace under traffic --------------------------------------------------
# KIND -> pfifo -> KIND (new handle, new tree) -> deleted, all while 5001
# saturates. The last tree shapes to 10 mbit again, measured from its
# class's own counters over 2 s once the class exists (htbx-traffic
# tcrate), not by the receiver's seconds: those read 10.4-10.8 mbit for
# htbx and htb alike in two make check runs on a loaded host (9.98 and
# 9.99 alone), whatever window was taken.

for kind in $SC_KINDS; do
	eval "rep_$kind=fail again_$kind=0"
	sc_build "$kind" one || continue
	sc_flows_start 6 0 5001
	sleep 1
	sc_tc qdisc replace dev "$SC_DEV" root handle 2: pfifo limit 1000 &&
	sleep 1 &&
	sc_tc qdisc replace dev "$SC_DEV" root handle 3: "$kind" default 10 &&
	sc_tc class add dev "$SC_DEV" parent 3: classid 3:10 "$kind" \
		rate 10mbit ceil 10mbit burst 15k && eval "rep_$kind=ok"
	eval "again_$kind=$(rate_get "$(class_rates "$SC_DEV" 2 0.5)" 3:10)"
	sc_tc qdisc del dev "$SC_DEV" root || eval "rep_$kind=fail"
	sc_flows_finish
done
line="qdisc replace under traffic (kind->pfifo->kind->none): htbx $rep_htbx, new tree $(sc_fmt "$again_htbx") mbit ($(sc_err "$again_htbx" 10)%) | htb $rep_htb, $(sc_fmt "$again_htb")"
if [ "$rep_htbx" = ok ] && sc_near "$again_htbx" 10 3; then ok "$line"; else fail "$line"; fi

# --- leftovers --------------------------------------------------------------------
# A qdisc left in a namespace being torn down must still go away; then the
# module must have no users.

busy htbx >/dev/null 2>&1
sc_flows_start 2 0 5002
sc_flows_finish
sc_fini
ns_gone_then_rmmod "netns with an htbx tree deleted" "rmmod sch_htbx after use"
