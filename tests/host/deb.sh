#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/host/deb.sh - the Debian packages (make deb), on the host, as TAP:
# both build; lintian reports no error and no warning (its info tags are
# shown); each package holds what it must and nothing of the other's; the
# DKMS sources in sch-htbx-dkms build, through dkms.conf's own MAKE line,
# against every cached kernel line's headers, and dkms.conf's
# BUILD_EXCLUSIVE_KERNEL admits each of those releases.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
	n=$((n + 1)) bad=$((bad + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}

tmp=$(mktemp -d /tmp/htbx-deb.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! debs=$(scripts/make-deb 2>"$tmp/err"); then
	fail "make deb builds the packages" "$(cat "$tmp/err")"
	echo "1..$n"
	exit 1
fi
ok "make deb builds the packages: $(echo $debs)"
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
dkms_deb=build/deb/sch-htbx-dkms_${ver}_all.deb
tc_deb=build/deb/tc-htbx_${ver}_$(dpkg --print-architecture).deb

# lintian: no error or warning; info tags are listed as diagnostics.
if lintian --fail-on error,warning -I build/deb/*.changes >"$tmp/lintian" 2>&1; then
	ok "lintian: no error or warning ($(grep -c '^I:' "$tmp/lintian") info tags)"
	sed 's/^/# /' "$tmp/lintian" | grep -v 'root privileges'
else
	fail "lintian: no error or warning" "$(cat "$tmp/lintian")"
fi

# contents DEB: the paths it installs, one a line
contents() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|'; }
contents "$dkms_deb" >"$tmp/dkms.list"
contents "$tc_deb" >"$tmp/tc.list"
src=/usr/src/sch_htbx-$ver
want_dkms="$src/dkms.conf $src/Kbuild $src/sch_htbx.c $src/sch_htbx_main.c $src/htbx_core.c
	$src/htbx_core.h $src/psched_clock.h $src/compat/compat.h $src/compat/Kbuild.include
	$src/include/uapi/linux/pkt_sched_htbx.h"
miss=
for f in $want_dkms; do grep -qx "$f" "$tmp/dkms.list" || miss="$miss $f"; done
if [ -z "$miss" ] && ! grep -q 'q_htbx\|/man/' "$tmp/dkms.list"; then
	ok "sch-htbx-dkms holds the module's sources under $src and nothing of tc-htbx"
else
	fail "sch-htbx-dkms contents" "missing:$miss" "$(cat "$tmp/dkms.list")"
fi
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if grep -qx "/usr/lib/$ma/tc/q_htbx.so" "$tmp/tc.list" &&
   grep -qx /usr/share/man/man8/tc-htbx.8.gz "$tmp/tc.list" &&
   ! grep -q '^/usr/src' "$tmp/tc.list"; then
	ok "tc-htbx holds q_htbx.so where tc looks (/usr/lib/$ma/tc) and tc-htbx(8)"
else
	fail "tc-htbx contents" "$(cat "$tmp/tc.list")"
fi
dep_dkms=$(dpkg-deb -f "$dkms_deb" Depends)
dep_tc=$(dpkg-deb -f "$tc_deb" Depends)
case "$dep_dkms|$dep_tc" in
*dkms*"|"*dkms*) fail "only sch-htbx-dkms depends on dkms" "$dep_dkms" "$dep_tc" ;;
*dkms*"|"*iproute2*) ok "depends: sch-htbx-dkms on $dep_dkms; tc-htbx on $dep_tc" ;;
*) fail "depends: dkms and iproute2" "$dep_dkms" "$dep_tc" ;;
esac
dpkg-deb -e "$dkms_deb" "$tmp/ctl"
if grep -q 'common.postinst' "$tmp/ctl/postinst" 2>/dev/null &&
   grep -q 'dkms remove\|common.prerm\|dkms' "$tmp/ctl/prerm" 2>/dev/null; then
	ok "sch-htbx-dkms: postinst builds through dkms, prerm removes"
else
	fail "sch-htbx-dkms maintainer scripts" "$(ls "$tmp/ctl")"
fi

# The packaged sources, built the way DKMS builds them.
dpkg-deb -x "$dkms_deb" "$tmp/root"
conf=$tmp/root$src/dkms.conf
# shellcheck disable=SC1090
( set +u; . "$conf" && [ "$PACKAGE_NAME" = sch_htbx ] && [ "$PACKAGE_VERSION" = "$ver" ] ) &&
	ok "dkms.conf: PACKAGE_NAME sch_htbx, PACKAGE_VERSION $ver" ||
	fail "dkms.conf names and version" "$(cat "$conf")"
excl=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
for line in $(scripts/kline list); do
	krel=$(scripts/kline krel "$line")
	kdir=$(scripts/cachedir)/kernels/$krel/root/usr/src/linux-headers-$krel
	if [ ! -d "$kdir" ]; then
		echo "ok $((n += 1)) - [$line] dkms build # SKIP no headers for $krel in the cache"
		continue
	fi
	if ! [[ $krel =~ $excl ]]; then
		fail "[$line] BUILD_EXCLUSIVE_KERNEL ($excl) admits $krel"
		continue
	fi
	# dkms.conf's MAKE[0], evaluated with DKMS's variables for this kernel
	dkms_tree=$tmp/dkms-$line
	b=$dkms_tree/sch_htbx/$ver/build
	mkdir -p "$(dirname "$b")"
	cp -a "$tmp/root$src" "$b"
	# (as dkms does: its variables set, then dkms.conf sourced)
	mk=$(set +u; kernel_source_dir=$kdir; . "$conf"; echo "${MAKE[0]}")
	if (cd "$b" && $mk) >"$tmp/mk-$line" 2>&1 && [ -e "$b/sch_htbx.ko" ]; then
		mv=$(modinfo -F version "$b/sch_htbx.ko" 2>/dev/null)
		w=$(grep -ci 'warning' "$tmp/mk-$line")
		if [ "$mv" = "$ver" ] && [ "$w" -eq 0 ]; then
			ok "[$line] the packaged sources build for $krel through dkms.conf's MAKE (version $mv, no warnings)"
		else
			fail "[$line] packaged build: version $mv (want $ver), $w warnings" "$(tail -n 20 "$tmp/mk-$line")"
		fi
	else
		fail "[$line] the packaged sources build for $krel" "$mk" "$(tail -n 20 "$tmp/mk-$line")"
	fi
done

echo "1..$n"
[ $bad -eq 0 ]
