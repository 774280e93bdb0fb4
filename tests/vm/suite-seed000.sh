# vm-args: --icount --timeout 1500
# vm-kernels: kcsan 6.12 debug
# SPDX-License-Identifier: GPL-2.0
#
# suite-seed000.sh - seed 000 (LARTC 2003, "Effect of HZ on shaping": a
# 10 mbit HTB class passed 94 mbit at HZ 512 and 1000, because the psched
# clock's jiffies scale only knew HZ 100 and 1024) as a test, run on a kernel
# of each tick rate: kcsan (HZ 100), 6.12 (Debian, HZ 250), debug (HZ 1000).
#
#   root 1: KIND default 20
#     1:1  rate 100mbit
#       1:10 rate 10mbit ceil 10mbit    sfq    <- u32 ip dport 5010
#       1:20 rate 90mbit ceil 100mbit   sfq    <- u32 ip dport 5020
#   two UDP flows (1400 B payload), each paced at 50 mbit, to 5010 and 5020
#
# The HZ of the boot is measured (tests/vm/kernel.sh) and printed. htbx's
# 1:10 must be 10 mbit within 1 %; mainline htb in the same boot is printed
# beside it, and 1:20 (which should carry its whole offered 50 mbit) too.
# 1:20 must carry its whole offered rate (within 2 %): proof that the guest
# really offered both flows. Deterministic under --icount.
#
# SEED000_SCALE=S divides every rate by S. Default 1 (the seed's figures),
# but 10 on the debug kernel: under icount its KASAN/lockdep data path
# carries about 21 mbit in all (measured: 1:10 htbx 10.01, htb 10.00, but
# 1:20 only 10.78 of its 50), so there the tree is 10/1/9 mbit with 5 mbit
# offered per flow.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/scenarios.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/kernel.sh"

case ${HTBX_KLINE:-} in
debug)	scale=${SEED000_SCALE:-10} ;;
*)	scale=${SEED000_SCALE:-1} ;;
esac
r() { awk -v m="$1" -v s="$scale" 'BEGIN { printf "%.6g\n", m / s }'; }
R1=$(r 100) R10=$(r 10) R20=$(r 90) C20=$(r 100) OFFER=$(r 50)
# Window: 3 s measured (10 mbit: 2600 packets); 6 s when scaled down, so that
# one packet stays below 0.2 % of 1:10's count.
secs=4
[ "$scale" != 1 ] && secs=7

hz=$(hz_measure 2)
chz=$(kconfig HZ)
ok "${HTBX_KLINE:-?} ($(uname -r)): HZ measured ${hz:-?} (CONFIG_HZ ${chz:-?})"

sc_init

seed000()	# KIND
{
	local kind="$1"
	sc_root "$kind" default 20 &&
	sc_class "$kind" 1: 1:1 rate "${R1}mbit" &&
	sc_class "$kind" 1:1 1:10 rate "${R10}mbit" ceil "${R10}mbit" &&
	sc_class "$kind" 1:1 1:20 rate "${R20}mbit" ceil "${C20}mbit" &&
	sc_tc qdisc add dev "$SC_DEV" parent 1:10 handle 10: sfq perturb 10 &&
	sc_tc qdisc add dev "$SC_DEV" parent 1:20 handle 20: sfq perturb 10 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		u32 match ip dport 5010 0xffff flowid 1:10 &&
	sc_tc filter add dev "$SC_DEV" parent 1: protocol ip prio 1 \
		u32 match ip dport 5020 0xffff flowid 1:20
}

for kind in htbx htb; do
	sc_try "$kind" seed000 -- "$secs" 1 "5010,rate=${OFFER}mbit" "5020,rate=${OFFER}mbit"
	eval "a_$kind=$(sc_mbit 5010) b_$kind=$(sc_mbit 5020)"
	[ "${VERBOSE:-0}" = 1 ] && sc_tc -s class show dev "$SC_DEV" | sed 's/^/# /'
done

desc="seed 000 at HZ $(hz_nearest "${hz:-0}") (measured ${hz:-?})"
[ "$scale" != 1 ] && desc="$desc, rates /$scale"
line="$desc: 1:10 (${R10}mbit) htbx $(sc_fmt "$a_htbx") ($(sc_err "$a_htbx" "$R10")%) | htb $(sc_fmt "$a_htb") ($(sc_err "$a_htb" "$R10")%); 1:20 (offered ${OFFER}) htbx $(sc_fmt "$b_htbx") | htb $(sc_fmt "$b_htb")"
if sc_near "$a_htbx" "$R10" 1; then ok "$line"; else fail "$line"; fi
line="$desc: 1:20 carries its offered ${OFFER} mbit: htbx $(sc_fmt "$b_htbx") ($(sc_err "$b_htbx" "$OFFER")%) | htb $(sc_fmt "$b_htb") ($(sc_err "$b_htb" "$OFFER")%)"
if sc_near "$b_htbx" "$OFFER" 2; then ok "$line"; else fail "$line"; fi
sc_tc qdisc del dev "$SC_DEV" root 2>/dev/null
sc_fini
exit 0
