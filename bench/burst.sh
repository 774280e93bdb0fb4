#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# burst.sh - what the default burst buys: one saturated class at RATE with
# no burst given, htbx (1 ms of rate, at least 2 mtu) vs mainline htb (tc's
# default: one MTU here), plus both with the other's burst, same boot.
#
#   bench/burst.sh [--kernel 6.1|6.12] [--icount] [--load] [--reps N] [RATE_MBIT...]
#
# --load runs an unshaped saturating UDP flow on a second veth pair for the
# whole run, so softirq and sender work compete for the one guest CPU and
# the qdisc's timer is served late - deterministically with --icount.
#
# Without --icount the guest runs on plain TCG (-smp 2): its timers fire
# late whenever the host is busy, which is where a one-MTU bucket loses
# rate. With --icount timers are exact and both defaults hold the rate
# until the guest runs out of CPU. Rates default to 50 100 200. Not a test.

top=${HTBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}

if [ "${1:-}" != --guest ]; then
	line=6.12 icount='' reps=2 rates='' load=0
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) line=$2; shift 2 ;;
		--icount) icount=--icount; shift ;;
		--reps) reps=$2; shift 2 ;;
		--load) load=1; shift ;;
		[0-9]*) rates="$rates $1"; shift ;;
		*) echo "usage: bench/burst.sh [--kernel 6.1|6.12] [--icount] [--load] [--reps N] [RATE_MBIT...]" >&2; exit 2 ;;
		esac
	done
	# shellcheck disable=SC2086
	exec "$top/lines/vm" --kernel "$line" $icount --timeout 1800 -- \
		sh "$top/bench/burst.sh" --guest "$reps" "$load" ${rates:-50 100 200}
fi

# ---- in the guest ----
shift
reps=$1 load=$2
shift 2
. "$top/tests/vm/lib.sh"
. "$top/tests/vm/scenarios.sh"
if [ "$load" = 1 ]; then
	netns_pair || exit 1
	"$IP" netns exec "$NS_B" "$HTBX_TRAFFIC" recv -t 3000 -w 0 6000 >/dev/null 2>&1 &
	HTBX_PIDS="$HTBX_PIDS $!"
	wait_until 10 port_listening "$NS_B" 6000
	"$IP" netns exec "$NS_A" "$HTBX_TRAFFIC" send -d 198.18.0.2 -t 3000 6000 >/dev/null 2>&1 &
	HTBX_PIDS="$HTBX_PIDS $!"
fi
sc_init

one()	# KIND RATE [OPTS...]
{
	local kind="$1" rate="$2"
	shift 2
	sc_root "$kind" default 10 &&
	sc_class "$kind" 1: 1:10 rate "$rate" ceil "$rate" "$@"
}

# Bytes of RATE mbit in 1 ms.
ms_bytes() { echo $(($1 * 1000 / 8)); }

echo "# burst.sh: $(uname -r), icount=${HTBX_ICOUNT:-0}, load=$load, $reps rep(s), 3 s windows (first 1 s left out), mbit"
printf '%-6s %4s %17s %17s %16s %16s\n' rate rep "htbx default" "htb default" "htbx burst 1600" "htb burst 1ms"
for r in "$@"; do
	b=$(ms_bytes "$r")
	[ "$b" -lt 3200 ] && b=3200
	i=1
	while [ "$i" -le "$reps" ]; do
		sc_try htbx one "${r}mbit" -- 3 1 5001
		xd=$(sc_mbit 5001)
		sc_try htb one "${r}mbit" -- 3 1 5001
		hd=$(sc_mbit 5001)
		sc_try htbx one "${r}mbit" burst 1600 cburst 1600 -- 3 1 5001
		xm=$(sc_mbit 5001)
		sc_try htb one "${r}mbit" burst "$b" cburst "$b" -- 3 1 5001
		hm=$(sc_mbit 5001)
		printf '%-6s %4s %17s %17s %16s %16s\n' "$r" "$i" \
			"$(sc_fmt "$xd") ($(pct "$xd" "$r")%)" "$(sc_fmt "$hd") ($(pct "$hd" "$r")%)" \
			"$(sc_fmt "$xm")" "$(sc_fmt "$hm")"
		i=$((i + 1))
	done
done
sc_try htbx one 10gbit -- 3 1 5001
echo "# unshaped ceiling of this guest (htbx at 10gbit): $(sc_fmt "$(sc_mbit 5001)") mbit"
sc_fini
