# vm-args: --icount --timeout 1500
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
#
# suite-hierarchy.sh - borrowing through a two-level tree with real UDP
# traffic, htbx asserted, mainline htb in the same boot printed beside it:
#
#            1:1  rate 40mbit ceil 40mbit
#           /   \
#        1:10    1:20      u32: dport 5001 -> 1:10, 5002 -> 1:20
#
#   - borrowing: 1:10 10/ceil 40, 1:20 30/ceil 40: 1:10 alone ~40,
#     both saturated ~10/30 (within 5 %)
#   - ceil caps: 1:10 5/ceil 15 never exceeds 15, alone or not
#   - prio: 1:10 prio 0 takes the excess before 1:20 prio 1
#   - DRR: equal rates, quantum 1514 vs 3028: the excess splits 1:2
# Under --icount each window is 2 virtual seconds, the first half second
# left out.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/scenarios.sh"

sc_init
# Each flow offered at 60 mbit: above the 40 the root gives, steadily.
SC_OFFER=60mbit

# tree KIND "A-OPTS" "B-OPTS": the tree above; options use '+' for spaces.
# shellcheck disable=SC2086
tree()
{
	local kind="$1" a b
	a=$(echo "$2" | tr + ' ')
	b=$(echo "$3" | tr + ' ')
	sc_root "$kind" default 0 &&
	sc_class "$kind" 1: 1:1 rate 40mbit ceil 40mbit burst 15k &&
	sc_class "$kind" 1:1 1:10 $a burst 15k &&
	sc_class "$kind" 1:1 1:20 $b burst 15k &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		u32 match ip dport 5001 0xffff flowid 1:10 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		u32 match ip dport 5002 0xffff flowid 1:20
}

# pair NAME A-OPTS B-OPTS: both flows saturated; sets a_<kind>, b_<kind>.
pair()
{
	local kind
	for kind in $SC_KINDS; do
		sc_try "$kind" tree "$2" "$3" -- 2 0.5 5001 5002
		eval "a_$kind=$(sc_mbit 5001) b_$kind=$(sc_mbit 5002)"
	done
}

# alone A-OPTS B-OPTS: only 1:10's flow; sets a_<kind>.
alone()
{
	local kind
	for kind in $SC_KINDS; do
		sc_try "$kind" tree "$1" "$2" -- 2 0.5 5001
		eval "a_$kind=$(sc_mbit 5001)"
	done
}

# two-figure TAP line: DESC EXP-A EXP-B PCT
report2()
{
	local line
	line="$1: 1:10 htbx $(sc_fmt "$a_htbx") ($(sc_err "$a_htbx" "$2")% of $2), 1:20 htbx $(sc_fmt "$b_htbx") ($(sc_err "$b_htbx" "$3")% of $3) | htb $(sc_fmt "$a_htb") ($(sc_err "$a_htb" "$2")%) $(sc_fmt "$b_htb") ($(sc_err "$b_htb" "$3")%)"
	if sc_near "$a_htbx" "$2" "$4" && sc_near "$b_htbx" "$3" "$4"; then
		ok "$line"
	else
		fail "$line"
	fi
}

# --- borrowing ------------------------------------------------------------------

A='rate+10mbit+ceil+40mbit'
B='rate+30mbit+ceil+40mbit'
alone "$A" "$B"
sc_report "borrow: 1:10 (10/ceil 40) alone borrows up to 40" 40 5 "$a_htbx" "$a_htb"
pair borrow "$A" "$B"
report2 "borrow: both saturated get their rates" 10 30 5

# --- ceil -----------------------------------------------------------------------
# 1:10 has prio 0, so it would take all of the 30 mbit excess (35 in all);
# its ceil stops it at 15 and 1:20 takes the rest (25). (At equal prio the
# cap is not reached at all when the quantum, here rate/r2q = 62500 B, is
# much larger than cburst: the ceil bucket overflows while the other class
# has its turn. Mainline htb does the same.)

A='rate+5mbit+ceil+15mbit+cburst+15k+prio+0'
B='rate+5mbit+ceil+40mbit+cburst+15k+prio+1'
alone "$A" "$B"
line="ceil: 1:10 (5/ceil 15) alone: htbx $(sc_fmt "$a_htbx") mbit ($(sc_err "$a_htbx" 15)% of ceil) | htb $(sc_fmt "$a_htb") ($(sc_err "$a_htb" 15)%)"
if sc_le "$a_htbx" 15 0.5 && sc_near "$a_htbx" 15 2; then ok "$line"; else fail "$line"; fi
pair ceil "$A" "$B"
line="ceil: 1:10 (5/ceil 15, prio 0) beside 1:20 (5/ceil 40, prio 1): htbx $(sc_fmt "$a_htbx")/$(sc_fmt "$b_htbx") ($(sc_err "$a_htbx" 15)% of ceil; 1:20 $(sc_err "$b_htbx" 25)% of 25) | htb $(sc_fmt "$a_htb")/$(sc_fmt "$b_htb")"
if sc_le "$a_htbx" 15 0.5 && sc_near "$a_htbx" 15 2 && sc_near "$b_htbx" 25 5; then
	ok "$line"
else
	fail "$line"
fi

# --- prio -----------------------------------------------------------------------
# 10 + 10 guaranteed; the 20 mbit excess goes to the prio 0 class first.

pair prio rate+10mbit+ceil+40mbit+prio+0 rate+10mbit+ceil+40mbit+prio+1
report2 "prio: 1:10 prio 0 takes the excess over 1:20 prio 1" 30 10 5

# --- DRR by quantum -------------------------------------------------------------
# 5 + 5 guaranteed; the 30 mbit excess splits by quantum 1:2 -> 15 / 25.

pair drr rate+5mbit+ceil+40mbit+quantum+1514 rate+5mbit+ceil+40mbit+quantum+3028
report2 "drr: excess split by quantum 1514:3028" 15 25 5

sc_tc qdisc del dev "$SC_DEV" root 2>/dev/null
