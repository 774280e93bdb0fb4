# vm-args:
# vm-args-debug: --timeout 300
# SPDX-License-Identifier: GPL-2.0
#
# suite-tdc.sh - the tc-testing (tdc) format cases of tests/tdc/*.json on
# this kernel: every htbx qdisc and class option set and shown back
# (text and JSON), change semantics, the htbx equivalent of each upstream
# htb tdc case, and refused commands that must leave nothing behind.
# Each case runs in a fresh netns on a dummy device (tests/tdc/run).

top=${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}

# tc autoloads the module; loading it first keeps an autoload problem
# (tested elsewhere) from failing every case here.
modprobe sch_htbx 2>/dev/null || true
modprobe dummy 2>/dev/null || true

# TEST_TDC_STRIDE=N runs every Nth case only (TEST_TDC_OFFSET=K from the
# K+1th on). make check runs every case on RATE_LINES (6.12 and 7.3), a
# third of them on each other Debian line (5.10, 6.1, sid and rt take
# thirds 1, 2, 3 and 1 in turn: every case runs on three lines or more,
# 6.12 and 7.3 among them), and every 16th on the debug
# kernel, where a case costs about 20 s (each tc or ip exec 1.4 s,
# lockdep's share of it most) and the fuzz suite sends its kind of
# requests by the thousand.
case ${HTBX_KLINE:-} in
debug) stride=16 offset=0 ;;
5.10|rt) stride=3 offset=0 ;;
6.1) stride=3 offset=1 ;;
sid) stride=3 offset=2 ;;
*) stride=1 offset=0 ;;
esac
stride=${TEST_TDC_STRIDE:-$stride}
offset=${TEST_TDC_OFFSET:-$offset}
[ "$offset" -lt "$stride" ] || offset=0
if [ "$stride" -gt 1 ]; then
	echo "# one case in $stride, from case $((offset + 1))"
	exec sh "$top/tests/tdc/run" -s "$stride" -o "$offset" "$top"/tests/tdc/*.json
fi
exec sh "$top/tests/tdc/run" "$top"/tests/tdc/*.json
