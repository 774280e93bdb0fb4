# vm-args: --icount --timeout 1500
# vm-kernels: 6.1
# SPDX-License-Identifier: GPL-2.0
#
# suite-shaping.sh - real UDP traffic through one flat class tree, htbx
# asserted, mainline htb in the same boot printed beside it:
#   - one class at 5, 20, 50 mbit (explicit burst) within 2 %
#   - the default burst: htbx with no burst vs htb with tc's default burst
#     (one MTU) at 200 mbit
#   - the default class, and the direct queue (default names no class)
#   - classification by u32 (dst port) and by fw (SO_MARK)
#
# Deterministic under --icount (rates within 0.2 % in a window): each
# window is 2 virtual seconds, the first half second left out, and each
# flow is offered at a steady pace above its class's rate, not flooded.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/scenarios.sh"

sc_init

# --- one class -----------------------------------------------------------

one_class()	# KIND RATE [CLASS OPTS...]
{
	local kind="$1" rate="$2"
	shift 2
	sc_root "$kind" default 10 &&
	sc_class "$kind" 1: 1:10 rate "$rate" ceil "$rate" "$@"
}

# Each flow is offered at twice what its class may send (SC_OFFER).
for r in 5 20 50; do
	SC_OFFER=$((2 * r))mbit
	for kind in htbx htb; do
		sc_try "$kind" one_class "${r}mbit" burst 15k -- 2 0.5 5001
		eval "m_$kind=$(sc_mbit 5001)"
	done
	sc_report "one class ${r}mbit burst 15k" "$r" 2 "$m_htbx" "$m_htb"
done

# --- default burst ---------------------------------------------------------
# htbx: no burst given (1 ms of rate, >= 2 mtu); htb: tc's default (one MTU
# on a kernel whose psched clock runs at 1 GHz). Also htbx held to one MTU,
# to show what the time-based default buys.

r=200
SC_OFFER=400mbit
sc_try htbx one_class "${r}mbit" -- 2 0.5 5001
x_def=$(sc_mbit 5001)
sc_try htb one_class "${r}mbit" -- 2 0.5 5001
h_def=$(sc_mbit 5001)
sc_try htbx one_class "${r}mbit" burst 1600 cburst 1600 -- 2 0.5 5001
x_mtu=$(sc_mbit 5001)
sc_try htb one_class "${r}mbit" burst 25k cburst 25k -- 2 0.5 5001
h_1ms=$(sc_mbit 5001)
line="default burst ${r}mbit: htbx $(sc_fmt "$x_def") mbit ($(sc_err "$x_def" $r)%) | htb tc-default $(sc_fmt "$h_def") ($(sc_err "$h_def" $r)%); htbx burst 1600 $(sc_fmt "$x_mtu") ($(sc_err "$x_mtu" $r)%), htb burst 25k $(sc_fmt "$h_1ms") ($(sc_err "$h_1ms" $r)%)"
if sc_near "$x_def" $r 2; then ok "$line"; else fail "$line"; fi

# --- default class ----------------------------------------------------------

two_classes()	# KIND DEFAULT
{
	local kind="$1" def="$2"
	sc_root "$kind" default "$def" &&
	sc_class "$kind" 1: 1:10 rate 5mbit ceil 5mbit burst 15k &&
	sc_class "$kind" 1: 1:20 rate 10mbit ceil 10mbit burst 15k
}

SC_OFFER=20mbit
for kind in htbx htb; do
	sc_try "$kind" two_classes 20 -- 2 0.5 5001
	eval "m_$kind=$(sc_mbit 5001)"
	eval "p10_$kind=$(sc_class_pkts 1:10)"
	eval "p20_$kind=$(sc_class_pkts 1:20)"
done
line="default 20: unclassified flow in 1:20 (10mbit): htbx $(sc_fmt "$m_htbx") mbit ($(sc_err "$m_htbx" 10)%), pkts 1:10/1:20 $p10_htbx/$p20_htbx | htb $(sc_fmt "$m_htb") mbit, $p10_htb/$p20_htb"
if sc_near "$m_htbx" 10 2 && [ "$p10_htbx" -eq 0 ] && [ "$p20_htbx" -gt 0 ]; then
	ok "$line"
else
	fail "$line"
fi

# --- direct queue -------------------------------------------------------------
# default 99 names no class: a 30 mbit flow passes unshaped (not at 5 or 10)
# and is counted in direct_packets_stat.

for kind in htbx htb; do
	sc_try "$kind" two_classes 99 -- 2 0.5 5001,rate=30mbit
	eval "m_$kind=$(sc_mbit 5001)"
	eval "d_$kind=$(sc_direct_pkts)"
	eval "p_$kind=$(($(sc_class_pkts 1:10) + $(sc_class_pkts 1:20)))"
done
line="default 99 (no class): 30mbit flow unshaped: htbx $(sc_fmt "$m_htbx") mbit, direct_packets_stat $d_htbx, class pkts $p_htbx | htb $(sc_fmt "$m_htb") mbit, $d_htb, $p_htb"
if sc_near "$m_htbx" 30 5 && [ "$d_htbx" -gt 1000 ] && [ "$p_htbx" -eq 0 ]; then
	ok "$line"
else
	fail "$line"
fi

# --- filters -------------------------------------------------------------------

by_u32()
{
	two_classes "$1" 0 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		u32 match ip dport 5001 0xffff flowid 1:10 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		u32 match ip dport 5002 0xffff flowid 1:20
}

by_fw()
{
	two_classes "$1" 0 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		handle 10 fw flowid 1:10 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		handle 20 fw flowid 1:20
}

for kind in htbx htb; do
	sc_try "$kind" by_u32 -- 2 0.5 5001 5002
	eval "a_$kind=$(sc_mbit 5001) b_$kind=$(sc_mbit 5002)"
done
line="u32 dport: 5001->1:10 (5mbit) htbx $(sc_fmt "$a_htbx") ($(sc_err "$a_htbx" 5)%), 5002->1:20 (10mbit) htbx $(sc_fmt "$b_htbx") ($(sc_err "$b_htbx" 10)%) | htb $(sc_fmt "$a_htb") $(sc_fmt "$b_htb")"
if sc_near "$a_htbx" 5 2 && sc_near "$b_htbx" 10 2; then ok "$line"; else fail "$line"; fi

for kind in htbx htb; do
	sc_try "$kind" by_fw -- 2 0.5 5001,mark=10 5002,mark=20
	eval "a_$kind=$(sc_mbit 5001) b_$kind=$(sc_mbit 5002)"
done
line="fw mark: 10->1:10 (5mbit) htbx $(sc_fmt "$a_htbx") ($(sc_err "$a_htbx" 5)%), 20->1:20 (10mbit) htbx $(sc_fmt "$b_htbx") ($(sc_err "$b_htbx" 10)%) | htb $(sc_fmt "$a_htb") $(sc_fmt "$b_htb")"
if sc_near "$a_htbx" 5 2 && sc_near "$b_htbx" 10 2; then ok "$line"; else fail "$line"; fi

sc_tc qdisc del dev "$SC_DEV" root 2>/dev/null
