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

# TEST_TDC_STRIDE=N runs every Nth case only. make check runs every case on
# the Debian lines and every 16th on the debug kernel, where a case costs
# about 20 s (each tc or ip exec 1.4 s, lockdep's share of it most) and
# the fuzz suite sends its kind of requests by the thousand.
case ${HTBX_KLINE:-} in
debug) stride=${TEST_TDC_STRIDE:-16} ;;
*) stride=${TEST_TDC_STRIDE:-1} ;;
esac
if [ "$stride" -gt 1 ]; then
	echo "# every ${stride}th case"
	exec sh "$top/tests/tdc/run" -s "$stride" "$top"/tests/tdc/*.json
fi
exec sh "$top/tests/tdc/run" "$top"/tests/tdc/*.json
