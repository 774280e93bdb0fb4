# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# kernel.sh - facts about the running guest kernel, measured, for the VM
# suites (POSIX sh; source after tests/vm/lib.sh).
#
#   hz_measure [SECS]   print the kernel's tick rate, measured: jiffies
#                       against CLOCK_MONOTONIC, both read from one
#                       /proc/timer_list snapshot ("now at N nsecs",
#                       "jiffies: N"), SECS (default 2) apart. jiffies
#                       advance HZ per second whatever NO_HZ does (an idle
#                       CPU catches them up when it wakes), so over 2 s the
#                       reading is within one tick: HZ +- 1/SECS ticks.
#   hz_nearest HZ       the nearest of the x86 choices 100 250 300 1000
#   kconfig SYMBOL      the value of CONFIG_SYMBOL of the running kernel, from
#                       the config lines/vm puts in the guest as
#                       $HTBX_KCONFIG (every kernel), else /proc/config.gz;
#                       empty when unset or unknown

hz_sample() {
	awk '/^now at / { now = $3 } /^jiffies: / { print now, $2; exit }' /proc/timer_list
}

hz_measure() {
	_s1=$(hz_sample)
	sleep "${1:-2}"
	_s2=$(hz_sample)
	echo "$_s1 $_s2" | awk 'NF == 4 && $3 > $1 {
		printf "%.1f\n", ($4 - $2) * 1e9 / ($3 - $1) }'
}

hz_nearest() {
	awk -v h="$1" 'BEGIN { n = split("100 250 300 1000", c, " "); b = c[1]
		for (i = 2; i <= n; i++) if ((c[i] - h) * (c[i] - h) < (b - h) * (b - h)) b = c[i]
		print b }'
}

kconfig() {
	if [ -n "${HTBX_KCONFIG:-}" ] && [ -r "$HTBX_KCONFIG" ]; then
		sed -n "s/^CONFIG_$1=//p" "$HTBX_KCONFIG" | tr -d '"'
	elif [ -r /proc/config.gz ]; then
		zcat /proc/config.gz | sed -n "s/^CONFIG_$1=//p" | tr -d '"'
	fi
}
