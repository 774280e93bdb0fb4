# vm-args: --timeout 600
# vm-kernels: debian debug kcsan
# SPDX-License-Identifier: GPL-2.0
#
# suite-debug.sh - what kernel the suites ran on, measured rather than taken
# from its name:
#   - HZ, measured (jiffies against CLOCK_MONOTONIC over 2 s, tests/vm/kernel.sh),
#     must be the kernel's CONFIG_HZ within 2 %; on the built kernels
#     CONFIG_HZ must also be what they are built for (debug 1000, kcsan 100);
#   - on the debug kernel, every detector must be live in this boot: KASAN
#     (initialised, generic), kmemleak (/sys/kernel/debug/kmemleak readable,
#     not disabled), lockdep (/proc/lockdep, debug_locks 1), PREEMPT full,
#     DEBUG_ATOMIC_SLEEP, DEBUG_LIST, debugobjects (its debugfs stats, hrtimer
#     and work objects tracked), panic_on_warn 1. On other kernels the
#     detectors present are listed.
# That the detectors also fire (and fail the run) is tests/host/vm-detectors.sh.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/kernel.sh"

line=${HTBX_KLINE:-?}
chz=$(kconfig HZ)
hz=$(hz_measure 2)
echo "# $line: $(uname -r), $(uname -v)"
if [ -z "$hz" ]; then
	fail "HZ measured: no jiffies in /proc/timer_list" "$(head -n 20 /proc/timer_list)"
elif [ -z "$chz" ]; then
	fail "HZ measured $hz: the kernel's CONFIG_HZ is unknown (no HTBX_KCONFIG, no /proc/config.gz)"
elif within "$hz" "$chz" 2; then
	ok "HZ measured $hz (CONFIG_HZ $chz, nearest choice $(hz_nearest "$hz"))"
else
	fail "HZ measured $hz, CONFIG_HZ $chz"
fi
case $line in
debug)	want_hz=1000 ;;
kcsan)	want_hz=100 ;;
*)	want_hz= ;;
esac
if [ -n "$want_hz" ]; then
	if [ "$chz" = "$want_hz" ] && [ "$(hz_nearest "${hz:-0}")" = "$want_hz" ]; then
		ok "$line kernel runs at HZ $want_hz"
	else
		fail "$line kernel runs at HZ $want_hz: CONFIG_HZ $chz, measured $hz"
	fi
fi

# ----------------------------------------------------------- detectors
dlog=$(dmesg)
# det NAME COND...: one detector; COND is a shell test that must hold.
present=
det() {
	_n=$1
	shift
	if "$@" >/dev/null 2>&1; then
		present="$present $_n"
		[ "$line" = debug ] && ok "debug: $_n"
	elif [ "$line" = debug ]; then
		fail "debug: $_n" "check: $*"
	fi
	return 0
}
kc() { [ "$(kconfig "$1")" = "$2" ]; }

det "KASAN generic, initialised" sh -c '
	[ "$(echo "$1" | grep -c "KernelAddressSanitizer initialized")" -ge 1 ]' _ "$dlog"
det "KASAN inline" kc KASAN_INLINE y
det "kmemleak on" sh -c '[ -r /sys/kernel/debug/kmemleak ] && cat /sys/kernel/debug/kmemleak >/dev/null &&
	! echo "$1" | grep -q "kmemleak: Kernel memory leak detector disabled"' _ "$dlog"
det "lockdep (PROVE_LOCKING), debug_locks 1" sh -c '[ -r /proc/lockdep ] &&
	grep -q "debug_locks: *1" /proc/lockdep_stats' _
det "PREEMPT full" sh -c '[ "$1" = y ] && uname -v | grep -q "PREEMPT "' _ "$(kconfig PREEMPT)"
det "DEBUG_ATOMIC_SLEEP" kc DEBUG_ATOMIC_SLEEP y
det "DEBUG_LIST" kc DEBUG_LIST y
det "debugobjects (hrtimer, work)" sh -c '[ -r /sys/kernel/debug/debug_objects/stats ] &&
	[ "$1" = y ] && [ "$2" = y ]' _ "$(kconfig DEBUG_OBJECTS_TIMERS)" "$(kconfig DEBUG_OBJECTS_WORK)"
det "panic_on_warn 1" sh -c '[ "$(cat /proc/sys/kernel/panic_on_warn)" = 1 ]'
if [ "$line" != debug ]; then
	ok "detectors present:${present:- none}"
fi
[ -r /sys/kernel/debug/debug_objects/stats ] &&
	sed 's/^/# debug_objects: /' /sys/kernel/debug/debug_objects/stats | head -n 12
exit 0
