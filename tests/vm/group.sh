# SPDX-License-Identifier: GPL-2.0
#
# group.sh SUITE... - several VM suites in one boot, for a kernel whose
# boot and kmemleak scans cost more than most suites (the debug kernel:
# about a minute to boot, 20-60 s a scan). tests/run-all uses it for the
# lines it groups; by hand:
#
#   lines/vm --kernel debug -- sh tests/vm/group.sh module regress
#
# Each suite's TAP lines get its name ("ok - module: ..."); "# group:
# SUITE" comes before it, so a crash names the suite that ran. kmemleak is
# scanned once, by lines/vm-init after the last suite (twice, a pause
# between): a scan pair after each suite cost a minute or more of the
# debug kernel's time, and a report's allocation stack names the code that
# leaked, whichever suite ran it.

top=${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}

for s in "$@"; do
	f=$top/tests/vm/suite-$s.sh
	echo "# group: suite $s"
	if [ ! -e "$f" ]; then
		echo "not ok - $s: no such suite ($f)"
		continue
	fi
	t0=$(cut -d. -f1 /proc/uptime)
	rm -f /tmp/htbx-group.rc
	{ sh "$f" </dev/null 2>&1; echo $? >/tmp/htbx-group.rc; } |
		sed -e "s/^ok - /ok - $s: /" -e "s/^not ok - /not ok - $s: /"
	rc=$(cat /tmp/htbx-group.rc 2>/dev/null || echo '?')
	[ "$rc" = 0 ] || echo "not ok - $s: the suite exited $rc"
	echo "# group: $s: $(($(cut -d. -f1 /proc/uptime) - t0)) s (guest clock)"
done
exit 0
