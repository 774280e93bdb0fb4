# SPDX-License-Identifier: GPL-2.0
#
# group.sh SUITE... - several VM suites in one boot, for a kernel whose
# boot and kmemleak scans cost more than most suites (the debug kernel:
# about a minute to boot, 20-60 s a scan). tests/run-all uses it for the
# lines it groups; by hand:
#
#   scripts/vm --kernel debug -- sh tests/vm/group.sh module regress
#
# Each suite's TAP lines get its name ("ok - module: ..."); "# group:
# SUITE" comes before it, so a crash names the suite that ran. After each
# suite, where the kernel has kmemleak, two scans (the second after
# kmemleak's minimum object age) and a result line for the suite: a leak is
# that suite's failure, not only the boot's. scripts/vm-init scans once
# more after the last suite (and fails the boot on any report).

top=${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
kml=/sys/kernel/debug/kmemleak

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
	[ -w "$kml" ] || continue
	for i in 1 2 3 4 5 6 7 8; do /bin/true; done
	echo scan >"$kml"
	sleep 6
	echo scan >"$kml"
	leaks=$(grep -c '^unreferenced object' "$kml")
	if [ "$leaks" = 0 ]; then
		echo "ok - $s: kmemleak: no unreferenced object after the suite"
	else
		echo "not ok - $s: kmemleak: $leaks unreferenced objects after the suite"
		sed 's/^/# /' "$kml" | head -n 60
		# reported here: the boot's final scan reports only new ones
		echo clear >"$kml"
	fi
done
exit 0
