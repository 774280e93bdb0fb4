# vm-args: --icount --timeout 1800
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
#
# suite-tcver.sh - q_htbx.so inside the tc of each Debian release a shaping
# box runs: bullseye's (iproute2 5.10, `tc -V` says 5.9), bookworm's (6.1,
# the guest's own), trixie's (6.15) and sid's (7.3). The other suites' tc
# runs in the guest with its own suite's loader and libraries (staged by
# lines/fetch-tc from that suite's packages, tests/vm/lib.sh stage_tc),
# with TC_LIB_DIR pointing at the plugin (bullseye's tc looks in
# /usr/lib/tc, the later ones in /usr/lib/<multiarch>/tc).
#
#   1. compat's sequences (suite-compat.sh: tc-htb(8)'s synopsis, LARTC,
#      rates in percent, explicit changes, deletes, refused commands)
#      through htb and through htbx with bullseye's and sid's tc (suite-
#      compat runs all its sequences with bookworm's and trixie's): each command's exit
#      status and every text view identical to htb's under the same tc,
#      JSON views (class JSON from tc 6.2 on, qdisc JSON before) valid and
#      identical to htb's;
#   2. one tdc case (tests/tdc) in 24 with each other suite's tc as $TC,
#      from a different case for each tc (offsets 0, 8, 16: a third of
#      the cases of one in 8 between them): the same output patterns hold
#      in each tc's layout (suite-tdc runs them all with the guest's own
#      tc).
# A tc that crashes fails its checks (its exit status is compared).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

W=/tmp/htbx-tcver.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
for m in sch_htbx sch_htb dummy veth sch_sfq cls_u32 cls_matchall; do
	modprobe "$m" 2>/dev/null
done
export TC_LIB_DIR=/usr/lib/x86_64-linux-gnu/tc

tcs=
for s in bullseye trixie sid; do
	if [ -x "$HTBX_TOP/build/tc-$s/tc" ]; then
		tcs="$tcs $s"
	else
		skip "tc of $s" "not staged (lines/fetch-tc $s)"
	fi
done

# 1. compat's sequences, in every tc's views (its own TAP lines); trixie's
# tc is suite-compat's own second tc (all its sequences, in the same
# make check), so not again here
vtcs=$(printf '%s\n' $tcs | grep -vx trixie | tr '\n' ' ')
TEST_COMPAT_TCS="$vtcs" TEST_COMPAT_PARTS=views \
TEST_COMPAT_ONLY="synopsis lartc percent change_explicit delete errors" \
	sh "$HTBX_TOP/tests/vm/suite-compat.sh" </dev/null 2>&1 |
	sed -e 's/^ok - /ok - views: /' -e 's/^not ok - /not ok - views: /'

# 2. tdc, one case in 24, with each other suite's tc
off=0
for s in $tcs; do
	t=$(stage_tc "$s" "$W") || { fail "tdc with the tc of $s: staged"; continue; }
	v=$("$t" -V 2>&1 | sed -n 's/.*iproute2-\([0-9.]*\).*/\1/p')
	TC=$t sh "$HTBX_TOP/tests/tdc/run" -s 24 -o $off "$HTBX_TOP"/tests/tdc/*.json </dev/null 2>&1 |
		sed -e "s/^ok - /ok - tdc, tc $v: /" -e "s/^not ok - /not ok - tdc, tc $v: /" \
		    -e "s/^\([0-9]* passed, [0-9]* failed\)$/# tc $v: \1/"
	off=$((off + 8))
done
exit 0
